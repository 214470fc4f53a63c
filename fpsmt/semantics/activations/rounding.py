"""Correctly rounded activations: σ_F(x) = RNE(σ(x)) and σ'_F(x) = RNE(σ'(x)), in any format.

A Ziv loop: evaluate σ at the exact input with rigorous ball arithmetic (:data:`ARB`,
python-flint's Arb) at a working precision, round both exact ends of the enclosure;
when they round to the same float that float is the answer (RNE is monotone, so the
exact value rounds to it too: one rounding, from an enclosure), otherwise double the
precision.  Points where the value
is rational (σ(0) = 0, sigmoid(0) = 1/2, piecewise-linear σ everywhere) are rounded
exactly from the activation's ``exact`` hooks, never from an enclosure.  An exact zero
result is +0 (as for ReLU); a nonzero value that underflows keeps its sign.

Inputs ±∞ give the limits the activation declares; NaN gives NaN.  For formats of at
most 16 bits the whole table is computed once and kept in the user cache folder
(:func:`table`).
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np

from fpsmt import __version__
from fpsmt.errors import FpsmtError, InputError
from fpsmt.semantics.arith.functions import TABLE_MAX_BITS
from fpsmt.semantics.formats import Format
from fpsmt.semantics.activations.realfun import ARB, arb, arbprec, ends_of, mpf_dyadic

MAX_PREC = 1 << 16


def round_dyadic(fmt: Format, man: int, exp: int) -> int:
    """RNE of the exact value man · 2^exp to ``fmt``, without building huge rationals:
    magnitudes far outside the format round to ±0 or ±inf directly.  One rounding: the
    value is never rounded on the way (an enclosure's end rounded to 53 bits first would
    land on a tie it was computed to stay clear of: bfloat16 gelu(0x0001) once came out
    0x0000 that way)."""
    if man == 0:
        return 0
    top = exp + abs(man).bit_length()  # 2^(top-1) <= |v| < 2^top
    if top < fmt.e_min - fmt.M - 1:  # |v| < omega / 2
        return fmt.zero_bits(man < 0)
    if top > fmt.e_max + 2:
        return fmt.inf_bits(man < 0)
    return fmt.round_dyadic(man, exp)


def enclosure(fn, q: Fraction, prec: int):
    """A ball certainly holding fn(q) at ``prec`` bits (None when Arb cannot say)."""
    with arbprec(prec):
        try:
            y = fn(arb(q), ARB)
        except (ArithmeticError, ValueError):
            return None
        y = arb(y)
        return y if y.is_finite() else None


def limit_bits(fmt: Format, v) -> int:
    if v == "nan":
        return fmt.nan_bits
    if v in ("inf", "-inf"):
        return fmt.inf_bits(v == "-inf")
    return fmt.round(Fraction(v))


def correctly_rounded(act, fmt: Format, bits: int, which: str = "value") -> int:
    """The bit pattern of RNE(σ(x)) (``which="value"``) or RNE(σ'(x)) (``"derivative"``)."""
    if fmt.is_nan(bits):
        return fmt.nan_bits
    if fmt.is_inf(bits):
        v, d = act.limits[-1 if fmt.is_negative(bits) else 1]
        return limit_bits(fmt, v if which == "value" else d)
    q = fmt.to_fraction(bits)
    hook = act.exact if which == "value" else act.exact_prime
    ex = hook(q)
    if ex is not None:
        return fmt.round(Fraction(ex))
    fn = act.f if which == "value" else act.fprime
    prec = fmt.M + 24
    while prec <= MAX_PREC:
        y = enclosure(fn, q, prec)
        if y is not None:
            # the exact ends (a ball of one sign wholly below fmt's least subnormal: signed tiny ends)
            a, b = (round_dyadic(fmt, *end) for end in ends_of(y, floor=fmt.e_min - fmt.M - 4))
            if a == b:  # RNE is monotone: every value of the enclosure rounds to a
                return a
        prec *= 2
    raise FpsmtError(f"{act.name}: could not decide the rounding of {which} at {fmt.show(bits)} "
                     f"within {MAX_PREC} bits (an exact midpoint the activation does not declare?)")


# ------------------------------------------------------------------ tables


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fpsmt" / "tables"


_tables: dict = {}
#: bumped whenever the values a table holds may change: tables cached by an earlier
#: revision are not read (revision 2: endpoints rounded exactly, see :func:`round_dyadic`;
#: revision 3: enclosures from Arb)
TABLE_REVISION = 3


def _table_chunk(args):
    act, fmt, lo, hi = args
    part = np.zeros((hi - lo, 2), dtype=np.uint64)
    for b in range(lo, hi):
        if fmt.is_nan(b):
            part[b - lo] = fmt.nan_bits
        else:
            part[b - lo] = (correctly_rounded(act, fmt, b, "value"), correctly_rounded(act, fmt, b, "derivative"))
    return lo, part


def table(act, fmt: Format, progress=None) -> np.ndarray:
    """(2^bits, 2) array of patterns: RNE(σ(x)) and RNE(σ'(x)) for every pattern x."""
    if fmt.nbits > TABLE_MAX_BITS:
        raise InputError(f"{fmt.name} has {fmt.nbits} bits: tables exist for formats of at most "
                         f"{TABLE_MAX_BITS} bits")
    key = (act.key, fmt.E, fmt.M)
    if key in _tables:
        return _tables[key]
    path = cache_dir() / f"{act.key}-E{fmt.E}M{fmt.M}-{__version__}-r{TABLE_REVISION}.npy"
    if act.cacheable and path.is_file():
        t = np.load(path)
        _tables[key] = t
        return t
    n = 1 << fmt.nbits
    t = np.zeros((n, 2), dtype=np.uint64)
    chunks = [(act, fmt, lo, min(n, lo + 4096)) for lo in range(0, n, 4096)]
    workers = min(os.cpu_count() or 1, len(chunks))
    if workers > 1:
        import concurrent.futures as cf
        import multiprocessing as mp
        with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as ex:
            for done, (lo, part) in enumerate(ex.map(_table_chunk, chunks), start=1):
                t[lo:lo + len(part)] = part
                if progress:
                    progress(min(n, done * 4096), n)
    else:
        for c in chunks:
            lo, part = _table_chunk(c)
            t[lo:lo + len(part)] = part
    if act.cacheable:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp.npy")
        np.save(tmp, t)
        os.replace(tmp, path)
    _tables[key] = t
    return t


# ------------------------------------------------------------ monotone pieces per format
_pieces_cache: dict = {}


def derivative_sign(act, fmt: Format, bits: int) -> int:
    """The sign of σ'(x) at a float x, decided with rigorous enclosures (0 if it is 0 or
    cannot be decided within the precision limit)."""
    q = fmt.to_fraction(bits)
    prec = fmt.M + 24
    while prec <= 4096:
        y = enclosure(act.fprime, q, prec)
        if y is not None and y > 0:
            return 1
        if y is not None and y < 0:
            return -1
        prec *= 2
    return 0


def value_pieces(act, fmt: Format):
    """Monotone pieces of σ_F with exact float ends: the declared ``pieces``, or for an
    activation with one critical point t* the two pieces (−∞, t_lo] (non-increasing) and
    [t_hi, ∞) (non-decreasing), t_lo < t* < t_hi adjacent floats, located by bisection with
    rigorous signs of σ'.  [] when nothing can be said."""
    if act.pieces is not None:
        return act.pieces
    if act.turning is None:
        return []
    key = (act.key, fmt.E, fmt.M)
    if key not in _pieces_cache:
        found = _locate(act, fmt)
        verify = getattr(act, "verify_pieces", None)  # an inferred turning point is checked, not assumed
        _pieces_cache[key] = found if verify is None or verify(found) else []
    return _pieces_cache[key]


def _locate(act, fmt):
    def ordinal(b):
        return -(b & ~fmt.sign_bit) if b & fmt.sign_bit else b

    def pattern(o):
        return (-o) | fmt.sign_bit if o < 0 else o
    lo, hi = ordinal(fmt.from_float(act.turning - 0.25)), ordinal(fmt.from_float(act.turning + 0.25))
    if derivative_sign(act, fmt, pattern(lo)) >= 0 or derivative_sign(act, fmt, pattern(hi)) <= 0:
        return []  # the format is too coarse to bracket the critical point there
    while hi - lo > 1:
        mid = (lo + hi) // 2
        s = derivative_sign(act, fmt, pattern(mid))
        if s == 0:
            return []
        lo, hi = (mid, hi) if s < 0 else (lo, mid)
    return [(None, fmt.to_fraction(pattern(lo)), -1), (fmt.to_fraction(pattern(hi)), None, 1)]


# ------------------------------------------------------------ constant tails per format
_tails_cache: dict = {}


_bounds_cache: dict = {}


def _enclose(fn, a: Fraction, b: Fraction):
    """(lo, hi), mpmath's enclosure of the real ``fn`` over [a, b] at the current
    ``mpmath.iv.prec``, or None: the ends of [a, b] not exact at that precision (dyadic floats
    are), an end not finite, or σ failing on intervals (a user's)."""
    from fpsmt.semantics.activations.realfun import IV
    try:
        x = mpmath.iv.mpf([mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(b.numerator) / b.denominator])
        if mpmath.mpf(x.a) != a or mpmath.mpf(x.b) != b:
            return None
        y = mpmath.iv.mpf(fn(x, IV))
        ends = (mpmath.mpf(y.a), mpmath.mpf(y.b))
    except Exception:  # noqa: BLE001 — σ that fails on intervals (a user's) has no enclosure
        return None
    return ends if all(mpmath.isfinite(e) for e in ends) else None


def finite_bounds(act, fmt: Format, which: str):
    """(lo, hi) patterns of finite floats with lo <= F(t) <= hi for every finite t (σ_F, or
    σ'_F with ``which="derivative"``), or None: F is constant on its two saturated tails
    (:func:`constant_tails`; None without both), and between them the real function is
    enclosed with mpmath's interval arithmetic over every binade up to each tail's start
    (exact dyadic ends, M + 64 bits), the enclosure's ends rounded outward; at ±0, F's own
    values.  The correctly rounded F lies in the rounded
    enclosure, RNE being monotone.  None when an enclosure is not finite (or σ fails on
    intervals)."""
    key = (act.key, fmt.E, fmt.M, which)
    if key not in _bounds_cache:
        _bounds_cache[key] = _finite_bounds(act, fmt, which)
    return _bounds_cache[key]


def _finite_bounds(act, fmt, which):
    from fpsmt.semantics.activations.realfun import mpf_dyadic
    fn = act.f if which == "value" else act.fprime
    tails = {(1 if hi_ is None else -1): (lo_ if hi_ is None else -hi_) for lo_, hi_, _ in constant_tails(act, fmt, which)}
    if set(tails) != {1, -1}:
        return None
    # the tails' constants, and F(±0) (the only floats between the binades of either sign: no
    # interval around 0, where a piecewise σ would compare an interval that straddles its kink)
    ends = [correctly_rounded(act, fmt, b, which) for b in (fmt.round(fmt.Omega), fmt.round(-fmt.Omega), 0,
                                                              fmt.sign_bit)]
    if not all(fmt.is_finite(c) for c in ends):
        return None
    vals = [mpmath.mpf(fmt.to_fraction(c).numerator) / fmt.to_fraction(c).denominator for c in ends]
    mpmath.iv.prec = fmt.M + 64
    for j in range(fmt.e_min - fmt.M, fmt.e_max + 1):  # the binades up to each tail's start
        a, b = Fraction(2) ** j, Fraction(2) ** (j + 1)
        for lo_, hi_ in ([(a, min(b, tails[1]))] if a < tails[1] else []) + \
                ([(-min(b, tails[-1]), -a)] if a < tails[-1] else []):
            e = _enclose(fn, lo_, hi_)
            if e is None:
                return None
            vals += e
    lo, hi = (Fraction(m) * Fraction(2) ** e for m, e in (mpf_dyadic(min(vals)), mpf_dyadic(max(vals))))
    down, up = fmt.round(lo), fmt.round(hi)
    if fmt.is_finite(down) and fmt.to_fraction(down) > lo:
        down = fmt.next_down(down)
    if fmt.is_finite(up) and fmt.to_fraction(up) < hi:
        up = fmt.next_up(up)
    return (down, up) if fmt.is_finite(down) and fmt.is_finite(up) else None


def constant_tails(act, fmt: Format, which: str) -> list:
    """Pieces (lo, hi, direction) on which σ_F (or σ'_F) is one constant c, the function's
    limit on that side (a saturated tail: σ = ±1, σ' = 0), found rigorously per side:

    * σ_F where σ is monotone on the whole side (a declared or inferred piece): from the
      least float t0 with F(t0) = F(±Ω) = c (F is monotone, so F = c between them);
    * otherwise (σ'_F): the binades [2^j, 2^(j+1)] from the top of the format down, each
      enclosed whole by mpmath's interval arithmetic (exact ends; at M + 64 then M + 192 bits), as long as every
      enclosure rounds to c; then, in the first binade that fails, the least float t0 with
      [t0, 2^(j+1)] enclosed rounding to c (a search over its patterns; the interval found
      is itself enclosed, so the result does not rest on the search).

    A constant piece is monotone either way; the direction orders c against the limit.
    [] where nothing is found."""
    key = (act.key, fmt.E, fmt.M, which)
    if key in _tails_cache:
        return _tails_cache[key]
    fn = act.f if which == "value" else act.fprime
    col = 0 if which == "value" else 1

    def enclosed(a: Fraction, b: Fraction):
        """What every value of fn on [a, b] rounds to, or None (mpmath's intervals: exact
        ends, rounded outward; Arb's balls would widen [a, b] by their radius's rounding)."""
        for prec in (fmt.M + 64, fmt.M + 192):
            mpmath.iv.prec = prec
            ends = _enclose(fn, a, b)
            if ends is None:
                continue
            r = [round_dyadic(fmt, *mpf_dyadic(e)) if e != 0 else 0 for e in ends]
            if fmt.is_zero(r[0]) and fmt.is_zero(r[1]):
                return 0
            if r[0] == r[1]:
                return r[0]
        return None

    out = []
    for sign in (1, -1):
        lim = act.limits[sign][col]
        if lim in ("nan", "inf", "-inf"):
            continue
        L = limit_bits(fmt, lim)
        mag = lambda b: abs(fmt.to_fraction(b))  # noqa: E731
        if which == "value" and _monotone_tail(act, fmt, sign):
            c = correctly_rounded(act, fmt, fmt.round(sign * fmt.Omega), which)
            ok = lambda b, top: _same(fmt, correctly_rounded(act, fmt, b, which), c)  # noqa: E731
        else:
            c = L  # [|b|, top] on this side, enclosed whole (a binade or less)
            ok = lambda b, top: (lambda g: g is not None and _same(fmt, g, c))(  # noqa: E731
                enclosed(*sorted((sign * mag(b), sign * top))))
        if not _same(fmt, c, L):
            continue
        start = None  # the least magnitude pattern known to start the tail
        for j in range(fmt.e_max, fmt.e_min - 1, -1):
            b = fmt.round(sign * Fraction(2) ** j)
            if not ok(b, Fraction(2) ** (j + 1)):
                break
            start = b
        if start is None:
            continue
        # within the binade below: the least pattern that still starts the tail
        top = mag(start)
        lo_b = fmt.round(sign * top / 2)
        bad, good = (lo_b & ~fmt.sign_bit), (start & ~fmt.sign_bit)
        neg = fmt.sign_bit if sign < 0 else 0
        while good - bad > 1:
            mid = (good + bad) // 2
            if ok(mid | neg, top):
                good = mid
            else:
                bad = mid
        start = good | neg
        end = mag(start)
        out.append((end, None, 1) if sign > 0 else (None, -end, 1))
    _tails_cache[key] = out
    return out


_identity_cache: dict = {}


def identity_tails(act, fmt: Format) -> list:
    """[(lo, hi)] (patterns; hi the largest finite float) on which σ_F(t) = t exactly, for
    a σ whose limit at +∞ is +∞ with σ' → 1, found rigorously binade by binade from the
    top: on [2^j, 2^(j+1)], |σ(t) − t| <= |σ(2^j) − 2^j| + 2^j·max|σ' − 1| (mpmath's
    interval arithmetic: σ at one point, σ' over the binade), and where that is below a
    quarter of the binade's spacing, 2^(j−M−2), every float t of it has σ_F(t) = t (a
    quarter, not a half: below 2^j the spacing halves, so RNE rounds 2^j − d down for d
    above 2^(j−M−2)).  The tail is the run of binades from the top down to the first that
    fails; [] if the top fails."""
    key = (act.key, fmt.E, fmt.M)
    if key in _identity_cache:
        return _identity_cache[key]
    from fpsmt.semantics.activations.realfun import IV
    out = []
    if act.limits.get(1, (None,))[0] == "inf":
        mpmath.iv.prec = fmt.M + 64
        start = None
        for j in range(fmt.e_max, -1, -1):
            try:
                p = mpmath.iv.mpf(mpmath.mpf(2) ** j)
                e0 = mpmath.iv.mpf(act.f(p, IV)) - p
                d = mpmath.iv.mpf(act.fprime(mpmath.iv.mpf([mpmath.mpf(2) ** j, mpmath.mpf(2) ** (j + 1)]), IV)) - 1
                bound = max(abs(mpmath.mpf(e0.a)), abs(mpmath.mpf(e0.b))) + \
                    mpmath.mpf(2) ** j * max(abs(mpmath.mpf(d.a)), abs(mpmath.mpf(d.b)))
            except Exception:  # noqa: BLE001 — a σ that fails on intervals has no identity tail here
                break
            if not (mpmath.isfinite(bound) and bound < mpmath.mpf(2) ** (j - fmt.M - 2)):
                break
            start = j
        if start is not None:
            out.append((fmt.round(Fraction(2) ** start), fmt.max_bits))
    _identity_cache[key] = out
    return out


def identity_below(act, fmt: Format, top: Fraction):
    """None if σ_F(t) = t and σ'_F(t) = 1 for every float t in (0, top) (top a power of two
    2^a), shown binade by binade as :func:`identity_tails` does: on [2^j, 2^(j+1)],
    |σ(t) − t| <= |σ(2^j) − 2^j| + 2^j·max|σ' − 1| below a quarter of the binade's spacing
    (2^(max(j, e_min)−M−2)), and max|σ' − 1| below 2^(−M−2) (a quarter of the spacing
    below 1), for j from a − 1 down to the least subnormal's; else 2^j of the first binade
    where the enclosure (mpmath's interval arithmetic) does not show it."""
    from fpsmt.semantics.activations.realfun import IV
    mpmath.iv.prec = fmt.M + 64
    a = top.numerator.bit_length() - top.denominator.bit_length()
    if Fraction(2) ** a != top:
        raise ValueError(f"identity_below: {top} is not a power of two")
    one = mpmath.mpf(1)
    for j in range(a - 1, fmt.e_min - fmt.M - 1, -1):
        lo, hi = mpmath.mpf(2) ** j, mpmath.mpf(2) ** (j + 1)
        try:
            p = mpmath.iv.mpf(lo)
            e0 = mpmath.iv.mpf(act.f(p, IV)) - p
            d = mpmath.iv.mpf(act.fprime(mpmath.iv.mpf([lo, hi]), IV)) - 1
            dev = max(abs(mpmath.mpf(d.a)), abs(mpmath.mpf(d.b)))
            bound = max(abs(mpmath.mpf(e0.a)), abs(mpmath.mpf(e0.b))) + lo * dev
        except Exception:  # noqa: BLE001 — a σ that fails on intervals is not shown the identity here
            return Fraction(2) ** j
        if not (mpmath.isfinite(bound) and bound < mpmath.mpf(2) ** (max(j, fmt.e_min) - fmt.M - 2)
                and dev < one / 2 ** (fmt.M + 2)):
            return Fraction(2) ** j
    return None


def _monotone_tail(act, fmt, sign):
    """A (declared, inferred or located) monotone piece of σ holds the whole tail beyond
    ±1 on this side."""
    for lo, hi, _ in value_pieces(act, fmt):
        if sign > 0 and hi is None and (lo is None or lo <= 1):
            return True
        if sign < 0 and lo is None and (hi is None or hi >= -1):
            return True
    return False


def _same(fmt, a, b):
    return a == b or (fmt.is_zero(a) and fmt.is_zero(b))
