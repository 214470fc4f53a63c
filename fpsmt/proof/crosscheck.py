"""A solver-free evaluator of the shipped Conditions 1–3 (``specs/conditions.py``).

It reads BRIEF §6 afresh, in NumPy, so that the solver's answers can be checked by a
second, independent route: no claim language, no SMT, no encoding.  What it shares with
the rest of fpsmt is only the executor (σ, σ', nextUp and one rounded addition per
value, all replayed elsewhere against exact rationals).

Values are float64: every float of a format with E <= 11 and M <= 52 is a float64, and the
rational bounds of the conditions are checked to be float64 numbers, so every comparison
below is exact.  Two places need more than a comparison:

* C2's |σ(δ0) ⊖ σ(δ1)| <= 2^e_max: the format's RNE of a real d is <= 2^e_max exactly when
  |d| <= 2^e_max + 2^(e_max−M−1) (the midpoint to the next float; a tie goes to 2^e_max,
  whose significand is even).  |d| is compared through an error-free TwoSum (in float64
  itself, the float64 subtraction is the format's).
* C3's ζ ⊕ |x|: one rounded addition in the executor.

C2's integers are not enumerated: for given δ0, δ1 the best choices are forced —
η0 = 1 (2^η0·|σ'(δ0)| grows with η0), k = log2 |σ'(δ1)|, η1 = −k and η2 = k (the bounds of
(4) only loosen towards them) — so a witness exists iff one exists with these.

``decide`` settles a condition over *every* float of a format of at most 16 bits (all pairs
where the condition has two float variables; the first witness found stops the search).
``check_witness`` re-checks a solver's witness in any format of at most 64 bits, the
∀ clauses of C1 included when the format has at most 16 bits (every x), and says when it
could not check them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fpsmt.semantics.activations import get_activation
from fpsmt.semantics.arith import concrete
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, pow2

ALL_INPUT_BITS = 16  # decide() enumerates every input of formats up to this width


def decode(fmt: Format, bits) -> np.ndarray:
    """Float64 values of bit patterns (exact for E <= 11, M <= 52)."""
    b = np.asarray(bits, dtype=np.uint64)
    frac = (b & np.uint64(fmt.frac_mask)).astype(np.float64)
    e = ((b >> np.uint64(fmt.M)) & np.uint64(fmt.exp_all_ones)).astype(np.int64)
    neg = ((b >> np.uint64(fmt.E + fmt.M)) & np.uint64(1)) == 1
    mag = np.ldexp(frac + np.where(e > 0, float(1 << fmt.M), 0.0), np.maximum(e, 1) - fmt.bias - fmt.M)
    mag = np.where(e == fmt.exp_all_ones, np.where(frac == 0, np.inf, np.nan), mag)
    return np.where(neg, -mag, mag)


def exact(q) -> float:
    """q as a float64, refused if that would round."""
    v = float(q)
    if Fraction(v) != Fraction(q):
        raise InputError(f"the bound {q} is not a float64: the independent check needs a narrower format")
    return v


class Values:
    """σ and σ' of one activation at a set of patterns (default: every finite float)."""

    def __init__(self, act, fmt: Format, bits=None):
        if fmt.E > 11 or fmt.M > 52:
            raise InputError(f"{fmt.name}: the independent check handles formats up to float64")
        self.act, self.fmt = act, fmt
        self.A = concrete(fmt)
        if bits is None:
            if fmt.nbits > ALL_INPUT_BITS:
                raise InputError(f"{fmt.name}: every input is enumerated only up to {ALL_INPUT_BITS} bits")
            bits = np.arange(1 << fmt.nbits, dtype=np.uint64)
            bits = bits[np.isfinite(decode(fmt, bits))]
        self.bits = np.asarray(bits, dtype=np.uint64)
        self.x = decode(fmt, self.bits)
        v = self.A.const(self.bits)
        self.s = decode(fmt, self.A.to_bits(act.value(self.A, v)))
        self.d = decode(fmt, self.A.to_bits(act.derivative(self.A, v)))

    def at(self, bits) -> "Values":
        return Values(self.act, self.fmt, bits)

    def sigma(self, bits):
        return self.at(np.asarray(bits, dtype=np.uint64)).s

    def next_up(self, bits):
        A = self.A
        return np.asarray(A.to_bits(A.next_up(A.const(np.asarray(bits, dtype=np.uint64)))), dtype=np.uint64)


@dataclass
class Verdict:
    holds: bool
    witness: dict | None = None
    branch: str | None = None
    note: str = ""


# ------------------------------------------------------------------ helpers
def _two_sum_le(a, b, t):
    """a + b <= t, exactly (float64 a, b, t; TwoSum)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    with np.errstate(invalid="ignore"):
        return (s < t) | ((s == t) & (err <= 0))


def _abs_diff_rounds_below(fmt, a, b):
    """|RNE_fmt(a − b)| <= 2^e_max."""
    if (fmt.E, fmt.M) == (11, 52):  # float64's own subtraction is the format's
        with np.errstate(over="ignore", invalid="ignore"):
            return np.abs(a - b) <= exact(pow2(fmt.e_max))
    t = exact(pow2(fmt.e_max) + pow2(fmt.e_max - fmt.M - 1))
    with np.errstate(invalid="ignore"):
        return _two_sum_le(a, -b, t) & _two_sum_le(b, -a, t)


class _Order:
    """The finite floats sorted by value, with prefix/suffix extremes of σ and range queries."""

    def __init__(self, V: Values):
        o = np.argsort(V.x, kind="stable")
        self.x, self.s = V.x[o], V.s[o]
        self.premax, self.premin = np.maximum.accumulate(self.s), np.minimum.accumulate(self.s)
        self.sufmax = np.maximum.accumulate(self.s[::-1])[::-1]
        self.sufmin = np.minimum.accumulate(self.s[::-1])[::-1]
        levels = [(self.s, self.s)]
        while (1 << len(levels)) <= len(self.s):
            lo, hi = levels[-1]
            h = 1 << (len(levels) - 1)
            levels.append((np.minimum(lo[:-h], lo[h:]), np.maximum(hi[:-h], hi[h:])))
        self.levels = levels

    def upto(self, v):
        """Index range end: x <= v."""
        return np.searchsorted(self.x, v, side="right")

    def from_(self, v):
        return np.searchsorted(self.x, v, side="left")

    def range_min_max(self, lo, hi):
        """min and max of σ over sorted positions lo..hi (inclusive, lo <= hi)."""
        n = hi - lo + 1
        k = np.floor(np.log2(n)).astype(np.int64)
        mins = np.empty(len(lo))
        maxs = np.empty(len(lo))
        for j in np.unique(k):
            sel = k == j
            a, b = self.levels[j]
            mins[sel] = np.minimum(a[lo[sel]], a[hi[sel] - (1 << j) + 1])
            maxs[sel] = np.maximum(b[lo[sel]], b[hi[sel] - (1 << j) + 1])
        return mins, maxs


# ------------------------------------------------------------------ C1
def _c1_a_single(V):
    f = V.fmt
    eps = pow2(-f.M)
    with np.errstate(invalid="ignore"):
        zero = V.s == 0
        c2ok = (np.abs(V.s) >= exact(eps / 2 + 2 * eps ** 2)) & (np.abs(V.s) <= exact(Fraction(5, 4) - 2 * eps))
    return zero, c2ok


def _c1_a_pairs(V, order, i1, i2):
    """(a) for pairs of indices into V: the clauses that involve both c1 and c2, ∀ x included."""
    f = V.fmt
    x1, x2 = V.x[i1], V.x[i2]
    big = np.maximum(np.abs(x1), np.abs(x2)) >= exact(pow2(f.e_min + 1))
    lo = order.from_(np.minimum(x1, x2))
    hi = order.upto(np.maximum(x1, x2)) - 1
    mn, mx = order.range_min_max(lo, hi)
    s2 = V.s[i2]
    with np.errstate(invalid="ignore"):
        return big & (mn >= np.minimum(0.0, s2)) & (mx <= np.maximum(0.0, s2))


def _c1_b(V, order=None):
    """(b) for every η of V; the ∀ clause needs ``order`` (all finite floats)."""
    f = V.fmt
    eps = pow2(-f.M)
    up_bits = V.next_up(V.bits)
    su = V.sigma(up_bits)
    xu = decode(f, up_bits)
    se, ax = V.s, np.abs(V.x)
    lo_b = exact(pow2(f.e_min + 5))
    with np.errstate(invalid="ignore", over="ignore"):
        hi_b = np.ldexp(ax, f.e_max - 6)
        ok = ((V.x != 0) & np.isfinite(xu) & (ax >= lo_b) & (ax <= exact(4 - 8 * eps))
              & np.isfinite(se) & np.isfinite(su) & (np.abs(se) >= lo_b) & (np.abs(su) >= lo_b)
              & (np.abs(se) <= hi_b) & (np.abs(su) <= hi_b) & (se != su))
        if order is None:
            return ok
        left, right = order.upto(V.x) - 1, order.from_(xu)
        right = np.minimum(right, len(order.x) - 1)
        up = (se < su) & (order.premax[left] <= se) & (order.sufmin[right] >= su)
        down = (se > su) & (order.premin[left] >= se) & (order.sufmax[right] <= su)
        return ok & (up | down)


def decide_c1(V: Values) -> Verdict:
    order = _Order(V)
    b = np.flatnonzero(_c1_b(V, order))
    if len(b) == 0:
        return Verdict(False, note="no η satisfies (b) with its ∀ clause")
    zero, c2ok = _c1_a_single(V)
    z, c = np.flatnonzero(zero), np.flatnonzero(c2ok)
    outer, inner, swap = (z, c, False) if len(z) <= len(c) else (c, z, True)
    for i in outer:
        rep = np.full(len(inner), i)
        i1, i2 = (inner, rep) if swap else (rep, inner)
        hit = np.flatnonzero(_c1_a_pairs(V, order, i1, i2))
        if len(hit):
            return Verdict(True, {"c1": int(V.bits[i1[hit[0]]]), "c2": int(V.bits[i2[hit[0]]]),
                                  "eta": int(V.bits[b[0]])})
    return Verdict(False, note="no pair c1, c2 satisfies (a) with its ∀ clause")


# ------------------------------------------------------------------ C2
def _c2_single(V):
    """Per-variable filters: (δ0 usable, δ1 usable, k of δ1)."""
    f = V.fmt
    big = exact(pow2(f.e_max))
    with np.errstate(invalid="ignore", divide="ignore"):
        bounded = np.isfinite(V.s) & (np.abs(V.s) <= big)
        g = np.abs(V.d)
        m, e = np.frexp(g)
        k = np.where(m == 0.5, e - 1, 1 << 20)
        d1 = bounded & (k >= -f.M) & (k <= 0) & (-k <= f.e_max)
        d0 = bounded & np.isfinite(g)
    return d0, d1, k


def _c2_pairs(V, i0, i1, k):
    f = V.fmt
    a0, a1 = V.s[i0], V.s[i1]
    top = np.maximum(np.abs(a0), np.abs(a1))
    with np.errstate(invalid="ignore"):
        return ((a0 != a1) & _abs_diff_rounds_below(f, a0, a1) & (2 * np.abs(V.d[i0]) <= np.abs(V.d[i1]))
                & (np.ldexp(1.0, f.e_min + k) <= top) & (top <= np.ldexp(1.0, f.e_max + k)))


def decide_c2(V: Values) -> Verdict:
    """Grouped by k; within a group the pair clauses see δ0 and δ1 only through σ(δ0), σ(δ1)."""
    d0, d1, k = _c2_single(V)
    g0 = np.abs(V.d)
    for kk in np.unique(k[d1]):
        kk = int(kk)
        with np.errstate(invalid="ignore"):
            i0 = np.flatnonzero(d0 & (2 * g0 <= np.ldexp(1.0, kk)))
        i1 = np.flatnonzero(d1 & (k == kk))
        i0 = i0[np.unique(V.s[i0], return_index=True)[1]]
        i1 = i1[np.unique(V.s[i1], return_index=True)[1]]
        if not len(i0):
            continue
        for i in i1:
            hit = np.flatnonzero(_c2_pairs(V, i0, np.full(len(i0), i), kk))
            if len(hit):
                return Verdict(True, {"d0": int(V.bits[i0[hit[0]]]), "d1": int(V.bits[i]),
                                      "eta0": 1, "eta1": -kk, "eta2": kk, "k": kk})
    return Verdict(False, note="no δ1 with |σ'(δ1)| a power of two in [2^−p, 1] pairs with any δ0"
                   if d1.any() else "|σ'| is nowhere a power of two in [2^−p, 1]")


def check_c2_integers(fmt, w, g0, g1, top) -> list[str]:
    """The integer part of a C2 witness, exactly (g0, g1, top as Fractions)."""
    e0, e1, e2, k = (int(w[n]) for n in ("eta0", "eta1", "eta2", "k"))
    bad = []
    if not (e0 >= 1 and pow2(e0) * g0 <= g1):
        bad.append("2^η0·|σ'(δ0)| <= |σ'(δ1)| with η0 >= 1")
    if g1 != pow2(k) or not (pow2(-fmt.M) <= g1 <= 1):
        bad.append("|σ'(δ1)| = 2^k in [2^−p, 1]")
    if not (-k <= e1 <= fmt.e_max and k <= e2 <= -fmt.e_min + fmt.M):
        bad.append("the ranges of η1, η2")
    if not (pow2(fmt.e_min + e2) <= top <= pow2(fmt.e_max - e1)):
        bad.append("2^(e_min+η2) <= max|σ| <= 2^(e_max−η1)")
    return bad


# ------------------------------------------------------------------ C3
def _c3_route2(V):
    f = V.fmt
    zero = V.at(np.asarray([f.zero_bits()], dtype=np.uint64))
    return bool(np.abs(zero.d[0]) >= exact(pow2(-f.M)) and np.isfinite(zero.s[0])
                and abs(zero.s[0]) <= exact(pow2(f.e_max)))


def _c3_x_ok(V):
    f = V.fmt
    with np.errstate(invalid="ignore"):
        return (np.abs(V.d) >= exact(pow2(-f.M))) & ((V.bits & np.uint64(1)) == 0)


def _c3_route1_pairs(V, zeta_bits, x_bits):
    """Route 1 for pairs (ζ, x): the clauses that need both."""
    f = V.fmt
    A = V.A
    absx = np.asarray(A.to_bits(A.abs(A.const(x_bits))), dtype=np.uint64)
    w = np.asarray(A.to_bits(A.add(A.const(zeta_bits), A.const(absx))), dtype=np.uint64)
    wv = decode(f, w)
    big = exact(pow2(f.e_max))
    sw = V.sigma(w)
    smw = V.sigma(w ^ np.uint64(f.sign_bit))
    s0 = V.sigma(np.asarray([f.zero_bits()], dtype=np.uint64))[0]
    with np.errstate(invalid="ignore"):
        return ((decode(f, absx) >= decode(f, zeta_bits)) & np.isfinite(wv) & np.isfinite(sw) & np.isfinite(smw)
                & (np.abs(sw) <= big) & (np.abs(smw) <= big) & bool(np.isfinite(s0) and abs(s0) <= big))


def decide_c3(V: Values) -> Verdict:
    f = V.fmt
    if _c3_route2(V):
        return Verdict(True, {"zeta": f.zero_bits(), "x": f.zero_bits()}, "route 2")
    A = V.A
    xs = V.bits[_c3_x_ok(V)]
    absx = np.asarray(A.to_bits(A.abs(A.const(xs))), dtype=np.uint64)
    xs = xs[np.unique(absx, return_index=True)[1]]  # route 1 sees a qualifying x only through |x|
    zetas = V.bits[(V.x >= 0) & ((V.bits >> np.uint64(f.E + f.M)) == 0)]
    for x in xs:
        hit = np.flatnonzero(_c3_route1_pairs(V, zetas, np.full(len(zetas), x, dtype=np.uint64)))
        if len(hit):
            return Verdict(True, {"zeta": int(zetas[hit[0]]), "x": int(x)}, "route 1")
    return Verdict(False, note="route 2 fails at 0 and no pair (ζ, x) satisfies route 1")


DECIDE = {"C1": decide_c1, "C2": decide_c2, "C3": decide_c3}


def decide(activation, fmt: Format, condition: str, values: Values | None = None) -> Verdict:
    """Settle one shipped condition over every float of a format of at most 16 bits."""
    V = values or Values(get_activation(activation) if isinstance(activation, str) else activation, fmt)
    return DECIDE[condition](V)


# ------------------------------------------------------------------ witnesses
def check_witness(activation, fmt: Format, condition: str, witness: dict, branch=None,
                  values: Values | None = None) -> tuple[list[str], bool]:
    """Re-check a witness: (clauses that fail, whether every clause was checked — False when
    C1's ∀ clauses were left out because the format is too wide to enumerate).

    ``witness`` maps variable names to bit patterns (ints) or, for C2's integers, ints."""
    act = get_activation(activation) if isinstance(activation, str) else activation
    full = values is not None or fmt.nbits <= ALL_INPUT_BITS
    V = values or (Values(act, fmt) if full else None)
    f = fmt

    def at(*names):
        bits = np.asarray([int(witness[n]) for n in names], dtype=np.uint64)
        return V.at(bits) if V is not None else Values(act, f, bits)

    bad: list[str] = []
    if condition == "C1":
        P = at("c1", "c2", "eta")
        zero, c2ok = _c1_a_single(P)
        if not zero[0]:
            bad.append("σ(c1) = 0")
        if not c2ok[1]:
            bad.append("ε/2 + 2ε² <= |σ(c2)| <= 5/4 − 2ε")
        order = _Order(V) if full else None
        if full:
            idx = np.searchsorted(V.bits, P.bits[:2])
            if not _c1_a_pairs(V, order, idx[:1], idx[1:])[0]:
                bad.append("max(|c1|, |c2|) >= 2^(e_min+1) and ∀ x between c1 and c2: σ(x) between")
        elif not max(abs(P.x[0]), abs(P.x[1])) >= exact(pow2(f.e_min + 1)):
            bad.append("max(|c1|, |c2|) >= 2^(e_min+1)")
        eta = P.at(P.bits[2:])
        if not _c1_b(eta, order)[0]:
            bad.append("(b)" + (" with its ∀ clause" if full else ""))
        return bad, full
    if condition == "C2":
        P = at("d0", "d1")
        d0, d1, k = _c2_single(P)
        if not (d0[0] and d1[1] and _c2_pairs(P, np.array([0]), np.array([1]), int(k[1]))[0]):
            bad.append("(1)–(4) with the forced integers")
        g0, g1 = (Fraction(float(abs(v))) if np.isfinite(v) else None for v in P.d)
        top = max(abs(Fraction(float(v))) for v in P.s) if np.all(np.isfinite(P.s)) else None
        if None in (g0, g1, top):
            bad.append("σ, σ' finite at δ0 and δ1")
        else:
            bad.extend(check_c2_integers(f, witness, g0, g1, top))
        return bad, True
    if condition == "C3":
        P = at("zeta", "x")
        r2 = _c3_route2(P)
        r1 = (bool(_c3_x_ok(P)[1]) and P.x[0] >= 0 and not (int(P.bits[0]) >> (f.E + f.M))
              and bool(_c3_route1_pairs(P, P.bits[:1], P.bits[1:])[0]))
        if branch == "route 1" and not r1:
            bad.append("route 1")
        elif branch == "route 2" and not r2:
            bad.append("route 2")
        elif not (r1 or r2):
            bad.append("route 1 or route 2")
        return bad, True
    raise InputError(f"unknown condition {condition!r} (C1, C2 or C3)")


# ------------------------------------------------------------------ candidates for the solver
def landmarks(fmt: Format) -> np.ndarray:
    """A few hundred telling inputs: ±0, powers of two across the range, small integers,
    a grid of [−4, 4] in steps of 1/16, and their neighbours."""
    vals = {Fraction(0)}
    for k in sorted({*range(-30, 31), fmt.e_min - fmt.M, fmt.e_min, fmt.e_min + 1, fmt.e_max}):
        vals.add(pow2(k))
    vals.update(Fraction(n) for n in range(1, 41))
    vals.update(Fraction(n, 16) for n in range(1, 65))
    bits = set()
    for v in vals:
        for s in (v, -v):
            b = fmt.round(s)
            if fmt.is_finite(b):
                bits.update((b, fmt.next_up(b), fmt.next_down(b)))
    return np.asarray(sorted(b for b in bits if fmt.is_finite(b)), dtype=np.uint64)


def suggest(activation, fmt: Format, condition: str) -> list[dict]:
    """Candidate witnesses for the shipped condition, found among :func:`landmarks` (the ∀
    clauses seen only on the landmarks): hints for the solver, never results."""
    if fmt.E > 11 or fmt.M > 52 or condition not in DECIDE:
        return []
    act = get_activation(activation) if isinstance(activation, str) else activation
    key = (getattr(act, "key", act.name), fmt)
    if key not in _landmark_values:
        _landmark_values.clear()
        _landmark_values[key] = Values(act, fmt, landmarks(fmt))
    v = DECIDE[condition](_landmark_values[key])
    return [v.witness] if v.holds else []


_landmark_values: dict = {}
