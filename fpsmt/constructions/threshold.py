"""The gradient-threshold indicator (the paper's Lemma 3.7, reconstructed; BRIEF §9): a
ReLU network on X = {0} whose value is exactly +0 and whose D^AD is a *non-linear* odd
function of the upstream gradient y,

    D(y) = c · sign(y) · 1[|y| ≥ t]      for every finite y,

and sums of such blocks (:func:`network`), e.g. the smallest case BRIEF §9 names:
D(y) = ±1 exactly at y = ±1 and a zero for every other finite y (:func:`smallest_case`).

Scaling by 2 commutes with RNE away from the subnormals, so every non-linear dependence
on y comes from underflow.  The block is a backward-pass program built from one primitive:

* **the threshold gadget** ω·1[u > P] for a power of two P and every |u| < 3P: u times
  powers of two whose product is ω/(2P), the last factor 2^−(M+1).  For u > P every
  intermediate is at least 2^e_min (normal, exact) and the last product u·ω/(2P) lies in
  (ω/2, 3ω/2), which rounds to ω; for u ≤ P the value before the last factor is at most
  2^e_min (rounding is monotone) and the last product at most ω/2, which rounds to 0
  (ties to even).
* **a staircase stage** (P, s) with t ≤ P and 3P > U: u ← u ⊕ (−s)·1[u > P], the
  gadget's ω taken up to 2^e(s) by powers of two and multiplied by −s's significand.
  With s ≤ P⁺ − t every u > P stays ≥ t, and the bound U on |u| becomes
  max(P, RN(U − s)): about 2U/3 + t.  Stages run until the final map applies.
* **the final map**: u ← RN(RN(u·m1)·m) with RN(t⁻·m1·m) ≤ P < RN(t·m1·m) (each rounding
  once from its exact product; m1 = 1 when one factor suffices), so 1[u ≥ t] =
  1[v > P] for the rounded v, then the gadget, then ω taken to c.

Each step of the program is one layer: a unit's backward value is the rounded sum of its
sources times their weights, over the next layer's rows left to right (BRIEF §3).  The
forward pass at x = 0 keeps every hidden ReLU active (pre-activation > 0, so ReLU' = 1):
each bias makes its neuron's pre-activation the gap between the row's sum and its
neighbouring float, exact by Sterbenz and tiny; the output bias cancels the output row's
sum, so f(0) = +0.

The plan is computed with one rounding per operation from exact rationals; the network
is then checked by the executor at every finite y (formats of at most 16 bits), and the
lemma ``gradient_threshold`` states it for every y (proofs/gradient_threshold.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from fpsmt.constructions.relu import constants, hidden
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, floor_log2, parse_format, pow2
from fpsmt.semantics.network import Layer, Network

#: the largest M whose final-map fallback (a search over one factor's significands) runs
FALLBACK_M = 10


class NoPlan(InputError):
    """No staircase plan was found for a threshold in a format."""


# ------------------------------------------------------------------ exact helpers
def _val(fmt: Format, bits: int) -> Fraction:
    return fmt.to_fraction(bits)


def rn(fmt: Format, q) -> Fraction | None:
    """RN(q) as a rational, or None where it overflows."""
    b = fmt.round(Fraction(q))
    return _val(fmt, b) if fmt.is_finite(b) else None


def _next_up(fmt: Format, q: Fraction) -> Fraction | None:
    b = fmt.next_up(fmt.round(q))
    return _val(fmt, b) if fmt.is_finite(b) else None


def next_down(fmt: Format, q: Fraction) -> Fraction:
    return _val(fmt, fmt.next_down(fmt.round(q)))


def _largest_at_most(fmt: Format, q: Fraction) -> Fraction:
    if q >= fmt.Omega:
        return fmt.Omega
    r = _val(fmt, fmt.round(q))
    return r if r <= q else next_down(fmt, r)


def _smallest_above(fmt: Format, q: Fraction) -> Fraction | None:
    if q >= fmt.Omega:
        return None
    r = _val(fmt, fmt.round(q))
    return r if r > q else _next_up(fmt, r)


def powers(fmt: Format, total: int) -> list:
    """Exponents k_i, each 2^k_i a float of ``fmt``, summing to ``total`` (the fewest)."""
    return chunks(total, fmt.e_min - fmt.M, fmt.e_max)


def chunks(total: int, lo: int, hi: int) -> list:
    """Exponents in [lo, hi] summing to ``total`` (the fewest)."""
    out = []
    while total > hi or total < lo:
        step = hi if total > hi else lo
        out.append(step)
        total -= step
    if total:
        out.append(total)
    return out


# ------------------------------------------------------------------ the plan
@dataclass
class Plan:
    """Everything one threshold block computes, as exact rationals of ``fmt``."""

    fmt: Format
    t: Fraction
    c: Fraction
    stages: list = field(default_factory=list)  # (P, s, U after)
    m1: Fraction = Fraction(1)
    m: Fraction = Fraction(1)
    P: Fraction = Fraction(0)  # the final gadget's power of two

    def describe(self) -> str:
        f = self.fmt
        return (f"threshold t = {f.hex(f.round(self.t))} ({float(self.t):g}), c = {float(self.c):g}: "
                f"{len(self.stages)} staircase stage(s), final map ×{float(self.m1):g} ×{float(self.m):g} "
                f"into the gadget at {float(self.P):g}")


@dataclass(frozen=True)
class Arith:
    """How one backward term of a program is computed, for the plan search.

    * ``plain`` (ReLU's chains at ReLU'(>0) = 1, tanh's at σ'(±0) = 1): u ⊗ w.  A gadget at
      a power of two P decides |u| > P for every |u| < 3P (the module docstring).
    * ``quarter`` (sigmoid's chains at σ'(±0) = 1/4): (u ⊗ 1/4) ⊗ 4w, which is u ⊗ w where u
      is a multiple of 4ω.  Its gadget (fpsmt.constructions.gated_logi) decides |u| > P for
      every |u| < 11P/5 where every u it reads is a multiple of 4ω: a stage's u is (the
      program's values are); the final map's product is where its factors are powers of
      two >= 1, and otherwise its P is at least 2^(e_min+2), where every value above P is
      a normal multiple of 4ω."""

    name: str
    span: Fraction  # a gadget at P decides |u| > P for every |u| < span·P

    def exact_from(self, fmt: Format) -> Fraction:
        """The least P of a final map whose factors are any floats: under ``quarter``,
        2^(e_min+2) (every value above it is a normal multiple of 4ω); below it, only a map
        ×2^k (k >= 0, no m1) keeps the multiples of 4ω."""
        return Fraction(0) if self.name == "plain" else pow2(fmt.e_min + 2)

    def lattice_up(self, fmt: Format, P: Fraction) -> Fraction | None:
        """The least value above P a program value can take (None above Ω): the next float,
        under ``quarter`` also at least P + 4ω (the values are multiples of 4ω)."""
        up = _next_up(fmt, P)
        if up is None or self.name == "plain":
            return up
        return max(up, P + 4 * fmt.omega)

    def mul(self, fmt: Format, u: Fraction, w: Fraction) -> Fraction | None:
        """One term u times the program weight w (None where it overflows)."""
        if self.name == "plain":
            return rn(fmt, u * w)
        W = rn(fmt, 4 * w)
        if W is None or W != 4 * w:
            return None
        return quarter_term(fmt, u, W)


def quarter_term(fmt: Format, u: Fraction, W: Fraction) -> Fraction | None:
    """One backward term through a neuron whose σ' is 1/4: (u ⊗ 1/4) ⊗ W (None where it
    overflows)."""
    a = rn(fmt, u / 4)
    return None if a is None else rn(fmt, a * W)


PLAIN = Arith("plain", Fraction(3))
QUARTER = Arith("quarter", Fraction(11, 5))
ARITHS = {a.name: a for a in (PLAIN, QUARTER)}


def _gadget_ok(fmt, lo, hi, U, m1, m, P, ar=PLAIN):
    """The final map sends every value <= lo to <= P, every one >= hi above P, U below
    span·P."""
    def image(u):
        a = ar.mul(fmt, u, m1)
        return None if a is None else ar.mul(fmt, a, m)
    a, b, top = image(lo), image(hi), image(U)
    return a is not None and b is not None and top is not None and a <= P < b and top < ar.span * P


def _final(fmt: Format, t: Fraction, U: Fraction, m1=Fraction(1), ar=PLAIN, lo=None):
    """(m, P) with the final map valid after the factor m1, or None; ``lo``: the largest
    value below t the map must keep at or below P (default the float below t)."""
    lo = next_down(fmt, t) if lo is None else lo
    a1, b1 = ar.mul(fmt, lo, m1), ar.mul(fmt, t, m1)
    if a1 is None or b1 is None or not a1 < b1:
        return None
    for k in range(fmt.e_min - fmt.M, fmt.e_max + 1):
        P = pow2(k)
        B = P * (1 + Fraction(1, 2 ** (fmt.M + 1)))  # RN(x) > P  iff  x > B
        m = _smallest_above(fmt, B / b1)
        if m is None:
            break
        cands = [m] if P >= ar.exact_from(fmt) else []
        if ar is QUARTER and m1 == 1:  # a power of two >= 1: exact on multiples of 4ω
            cands.append(pow2(max(0, floor_log2(B / b1) + 1)))
        for m in cands:
            if _gadget_ok(fmt, lo, t, U, m1, m, P, ar):
                return m, P
    return None


def _final_fallback(fmt: Format, t: Fraction, U: Fraction, ar=PLAIN, lo=None):
    """(m1, m, P): a first factor m1 searched over its significands (formats with M ≤
    FALLBACK_M), or None."""
    if fmt.M > FALLBACK_M:
        return None
    for sig in range(2 ** fmt.M):
        for k in range(fmt.e_min, fmt.e_max + 1):
            m1 = (1 + Fraction(sig, 2 ** fmt.M)) * pow2(k)
            got = _final(fmt, t, U, m1, ar, lo)
            if got is not None:
                return (m1,) + got
    return None


def _best_stage(fmt: Format, t: Fraction, U: Fraction, ar=PLAIN):
    """The staircase stage (P, s, U after) that shrinks the bound U on |u| the most, for
    threshold t, or None: P a power of two with t <= P and span·P > U, s the largest float
    <= P⁺ − t, P⁺ the least value above P that u takes (:meth:`Arith.lattice_up`; under
    ``quarter`` s is also a multiple of 4ω: s ⊗ 1/4 is exact)."""
    best = None
    lo = max(fmt.e_min - fmt.M, floor_log2(U / ar.span) - 1)
    for k in range(lo, min(floor_log2(U) + 2, fmt.e_max + 1)):  # span·P > U and P <= 2U: the useful ones
        P = pow2(k)
        if P < t or ar.span * P <= U:
            continue
        up = ar.lattice_up(fmt, P)
        if up is None:
            break
        s = _largest_at_most(fmt, up - t)
        if ar is QUARTER:  # a multiple of 4ω (a float below 2^(e_min+2) rounded down to one is one)
            q = 4 * fmt.omega
            s = (s // q) * q
        if s <= 0:
            continue
        after = max(P, rn(fmt, U - s))
        if best is None or after < best[2]:
            best = (P, s, after)
    return best


def staircase(fmt, t, limit=100_000, ar=PLAIN, top=None) -> list:
    """The stages [(P, s, U after), …] for threshold ``t`` run until the bound on |u| is at
    most 4t or no longer shrinks (for every float y, u = y where |y| < t, and t <= |u| <= the last U
    with u's sign where |y| >= t): the linear pieces of fpsmt.constructions.theorem32 use
    it.  Not the final map's plan (:func:`plan` stops as soon as the final map applies).
    ``top``: the largest |u| at the start (default Ω)."""
    fmt = parse_format(fmt)
    return list(_staircase(fmt.name, Fraction(t), limit, ar.name, None if top is None else Fraction(top)))


@functools.lru_cache(maxsize=4096)
def _staircase(name: str, t: Fraction, limit: int, arith: str = "plain", top=None) -> tuple:
    """:func:`staircase`'s stages, remembered (as :func:`_search`'s plans): a network's
    proof asks for the staircase of one threshold several times."""
    fmt = parse_format(name)
    ar = ARITHS[arith]
    stages, U = [], fmt.Omega if top is None else top
    for _ in range(limit):
        if U <= 4 * t:  # near t a stage shrinks U by a few ulps only
            return tuple(stages)
        best = _best_stage(fmt, t, U, ar)
        if best is None or best[2] >= U:
            return tuple(stages)
        stages.append(best)
        U = best[2]
    raise NoPlan(f"the staircase for t = {float(t):g} in {fmt.name} did not settle within {limit} stages")


def plan(fmt, t, c=1, limit=100_000, ar=PLAIN, top=None, lo=None) -> Plan:
    """The block's plan for threshold ``t`` (a positive finite float of ``fmt``, as a
    rational) and output ``c`` (a nonzero finite float).  ``ar``: the arithmetic of the
    program's terms (:class:`Arith`); ``top``: the largest |u| (default Ω); ``lo``: the
    largest value below t that u takes (default the float below t)."""
    fmt = parse_format(fmt)
    t, c = Fraction(t), Fraction(c)
    for name, v in (("threshold", t), ("output", c)):
        b = fmt.round(v)
        if not fmt.is_finite(b) or _val(fmt, b) != v:
            raise InputError(f"the {name} {v} is not a finite value of {fmt.name}")
    if t <= 0:
        raise InputError(f"the threshold must be positive, got {t}")
    if c == 0:
        raise InputError("the output c must be nonzero (a zero block is no block)")
    stages, m1, m, P = _search(fmt.name, t, limit, ar.name, None if top is None else Fraction(top),
                               None if lo is None else Fraction(lo))
    return Plan(fmt, t, c, list(stages), m1, m, P)


@functools.lru_cache(maxsize=4096)
def _search(name: str, t: Fraction, limit: int, arith: str = "plain", top=None, lo=None) -> tuple:
    """(stages, m1, m, P) for threshold t (c plays no part in them), remembered: one
    network asks for the same threshold many times."""
    fmt = parse_format(name)
    ar = ARITHS[arith]
    p = Plan(fmt, t, Fraction(1))
    U = fmt.Omega if top is None else top
    for _ in range(limit):
        # the final map scales t to just above P and must keep U below span·P: far above 3t it
        # cannot (a search shortcut only: every plan is checked, never trusted)
        got = _final(fmt, t, U, ar=ar, lo=lo) if U <= 8 * t else None
        if got is not None:
            return tuple(p.stages), p.m1, got[0], got[1]
        best = _best_stage(fmt, t, U, ar)
        if best is None or best[2] >= U:
            got = _final_fallback(fmt, t, U, ar, lo)
            if got is None:
                raise NoPlan(f"no gradient-threshold plan for t = {fmt.hex(fmt.round(t))} in {fmt.name} "
                             f"(the staircase stops at |u| <= {float(U):g}; the final map's fallback "
                             f"search runs for M <= {FALLBACK_M})")
            return tuple(p.stages), got[0], got[1], got[2]
        p.stages.append(best)
        U = best[2]
    raise NoPlan(f"no gradient-threshold plan for t = {float(t):g} in {fmt.name} within {limit} stages")


# ------------------------------------------------------------------ the backward program
# a step: per new unit, its sources (index into the step's input units, weight) in row order


def _gadget_steps(fmt: Format, P: Fraction) -> list:
    """Exponents of the factors taking u to ω·1[u > P] (|u| < 3P): the last is −(M+1)."""
    j = floor_log2(2 * P / fmt.omega)  # u · 2^-j = u·ω/(2P)
    return powers(fmt, -(j - fmt.M - 1)) + [-(fmt.M + 1)]


def _up_steps(fmt: Format, target: Fraction) -> tuple:
    """(exponents taking ω to 2^e, the remaining significand) for |target| = sig·2^e."""
    e = floor_log2(abs(target))
    return powers(fmt, e - (fmt.e_min - fmt.M)), abs(target) / pow2(e)


def stage_steps(fmt: Format, P: Fraction, s: Fraction) -> list:
    """One staircase stage on units [u]: u ← u ⊕ (−s)·1[u > P] (through a unit G)."""
    down = _gadget_steps(fmt, P)
    ups, sig = _up_steps(fmt, s)
    steps = [[[(0, Fraction(1))], [(0, pow2(down[0]))]]]
    for k in down[1:] + ups:
        steps.append([[(0, Fraction(1))], [(1, pow2(k))]])
    steps.append([[(0, Fraction(1)), (1, -sig)]])
    return steps


def final_steps(p: Plan) -> list:
    """The final map, the gadget at P and ω taken to c, on units [u]."""
    f = p.fmt
    steps = [[[(0, m)]] for m in ([p.m1] if p.m1 != 1 else []) + [p.m]]
    ups, sig = _up_steps(f, p.c)
    for k in _gadget_steps(f, p.P) + ups:
        steps.append([[(0, pow2(k))]])
    steps.append([[(0, sig if p.c > 0 else -sig)]])
    return steps


def block_program(p: Plan) -> list:
    """The block as a list of steps on its units [u, G?]; it starts from one unit holding y
    and ends with one unit holding c·sign(y)·1[|y| ≥ t]: the stages, then the final map."""
    steps = []
    for P, s, _ in p.stages:
        steps += stage_steps(p.fmt, P, s)
    return steps + final_steps(p)


def eval_steps(steps: list, units: list, mul, add, const) -> list:
    """Run steps on unit values: each new unit the left-to-right rounded sum of its sources
    times their weights (``const(w)`` lifts a weight).  D^AD's fold at x = 0, where every
    ReLU' is 1 (g ⊗ 1 = g) — what the claims of proofs/gradient_threshold.py compute."""
    for step in steps:
        new = []
        for unit in step:
            acc = None
            for src, w in unit:
                term = mul(units[src], const(w))
                acc = term if acc is None else add(acc, term)
            new.append(acc)
        units = new
    return units


def simulate(p: Plan, y: Fraction) -> Fraction:
    """The block's program on y with exact rationals, each operation rounded once (an
    independent reading of the plan, for tests: not through :func:`eval_steps`)."""
    f = p.fmt
    u = rn(f, y)
    for P, s, _ in p.stages:
        g = u
        for k in _gadget_steps(f, P):
            g = rn(f, g * pow2(k))
        ups, sig = _up_steps(f, s)
        for k in ups:
            g = rn(f, g * pow2(k))
        u = rn(f, u + rn(f, g * -sig))
    u = rn(f, rn(f, u * p.m1) * p.m)
    ups, sig = _up_steps(f, p.c)
    for k in _gadget_steps(f, p.P) + ups:
        u = rn(f, u * pow2(k))
    return rn(f, u * (sig if p.c > 0 else -sig))


# ------------------------------------------------------------------ the network
def step_rows(step: list, n: int) -> list:
    """A step as the forward layer's rows: for each of its ``n`` source units, the (new
    unit, weight) pairs reading it, in column order (the forward fold's)."""
    rows = [[] for _ in range(n)]
    for col, unit in enumerate(step):
        for src, w in unit:
            rows[src].append((col, w))
    return [sorted(r) for r in rows]


def row_sum(fmt: Format, terms, h) -> Fraction | None:
    """The forward fold of (source, weight) terms at the values ``h`` (each product and
    partial sum rounded once); None for no term.  Overflow is refused (NoPlan)."""
    S = None
    for src, w in terms:
        term = rn(fmt, w * h[src])
        S = term if S is None or term is None else rn(fmt, S + term)
        if S is None:
            raise NoPlan(f"a forward row sum overflows in {fmt.name} at x = z")
    return S


def parallel(programs: list, final=None, one=Fraction(1)) -> list:
    """Programs side by side, each from the one unit y to one unit: their steps merged
    (each padded at its end by ×1 steps to the longest), then the step ``final`` on their
    outputs (units of (program index, weight) pairs; default: one unit summing every
    output in the order given, with weight 1).  ``one``: the weight of a ×1 step (4 where
    each term is (u ⊗ 1/4) ⊗ w, :data:`QUARTER`)."""
    depth = max(len(prog) for prog in programs)
    steps = []
    widths = [1] * len(programs)
    for k in range(depth):
        step, base = [], 0
        for prog, w in zip(programs, widths):
            own = prog[k] if k < len(prog) else [[(0, one)]]
            step += [[(base + i, wt) for i, wt in unit] for unit in own]
            base += w if k else 0  # the first step's every source is the output's y
        widths = [len(prog[k]) if k < len(prog) else 1 for prog in programs]
        steps.append(step)
    starts = [int(s) for s in np.cumsum([0] + widths[:-1])]
    if final is None:
        final = [[(i, one) for i in range(len(programs))]]
    steps.append([[(starts[i], Fraction(w)) for i, w in unit] for unit in final])
    return steps


def _program_network(fmt: Format, steps: list) -> Network:
    """The ReLU network whose D^AD at x = 0 runs ``steps`` from the output (one unit, y) to
    the input, with biases keeping every hidden neuron active at x = 0 and f(0) = +0."""
    widths = [1] + [len(step) for step in steps]  # units before each step; the last is x
    L = len(steps)
    h = [Fraction(0)]  # x = 0
    layers = []
    for li in range(L):  # forward layer li is backward step k = L-1-li: rows = its source units
        k = L - 1 - li
        last = li == L - 1
        rows = step_rows(steps[k], widths[k])
        bias, post = [], []
        for r, terms in enumerate(rows):
            S = row_sum(fmt, terms, h)
            b = (-S if S else Fraction(0)) if last else gap_bias(fmt, S)
            z = rn(fmt, (S or 0) + b)
            if z is None or (not last and z <= 0):
                raise InputError(f"neuron {r} of layer {li}: pre-activation {z} at x = 0")
            bias.append(b)
            post.append(z)
        cols = [(r, c, w) for r, terms in enumerate(rows) for c, w in terms]
        layers.append(Layer(widths[k], widths[k + 1], [r for r, _, _ in cols], [c for _, c, _ in cols],
                            [fmt.round(w) for _, _, w in cols], [fmt.round(b) for b in bias],
                            "identity" if last else hidden()))
        h = post
    return Network(fmt, layers)


def network(fmt, blocks) -> tuple:
    """(network, plans) for blocks [(t, c), …]: D(y) = Σ c_i·sign(y)·1[|y| ≥ t_i] summed in
    the order given (each term rounded once into the running sum), f(0) = +0."""
    fmt = parse_format(fmt)
    if not blocks:
        raise InputError("a gradient-threshold network needs at least one block")
    plans = [plan(fmt, t, c) for t, c in blocks]
    return _program_network(fmt, parallel([block_program(p) for p in plans])), plans


def smallest_case(fmt="e4m2") -> tuple:
    """BRIEF §9's smallest case: D(y) = ±1 exactly at y = ±1, a zero for every other
    finite y: 1[|y| ≥ 1] minus 1[|y| ≥ 1⁺]."""
    fmt = parse_format(fmt)
    return network(fmt, [(1, 1), (_val(fmt, fmt.next_up(fmt.one_bits)), -1)])


def target(fmt, blocks, y: Fraction) -> Fraction:
    """The intended D(y) for blocks [(t, c), …]: the running sum, each term rounded in."""
    fmt = parse_format(fmt)
    out = None
    for t, c in blocks:
        term = Fraction(c) * (1 if y > 0 else -1) if abs(y) >= Fraction(t) else Fraction(0)
        out = term if out is None else rn(fmt, out + term)
    return out


# ------------------------------------------------------------------ checking
def finite_values(fmt) -> list:
    """Every finite pattern of ``fmt`` (formats of at most 16 bits)."""
    fmt = parse_format(fmt)
    if fmt.nbits > 16:
        raise InputError(f"{fmt.name} has {fmt.nbits} bits: every finite y is enumerated up to 16 bits only")
    return [b for b in range(1 << fmt.nbits) if fmt.is_finite(b)]


def mismatches(fmt, net: Network, blocks, ys=None, xs=None, z=0) -> list:
    """Run ``net`` by the executor at every input x of ``xs`` (patterns; default x = +0)
    and every upstream y of ``ys`` (default: every finite y), and compare with the target:
    :func:`target` at x = z, a zero elsewhere.  [(x, y, what, got, wanted)] as patterns,
    where f(x) is not a zero or D(y) is not the target (a zero target is met by either
    zero)."""
    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import run
    fmt = parse_format(fmt)
    ys = finite_values(fmt) if ys is None else list(ys)
    xs = [fmt.zero_bits()] if xs is None else list(xs)
    A = concrete(fmt)
    X = np.repeat(np.array(xs, dtype=fmt.uint_dtype), len(ys)).reshape(-1, 1)
    Y = np.tile(np.array(ys, dtype=fmt.uint_dtype), len(xs)).reshape(-1, 1)
    tr = run(A, net, A.const(X), A.const(Y))
    outs = A.to_bits(tr.out).ravel().tolist()
    grads = A.to_bits(tr.grad).ravel().tolist()
    zq = Fraction(z)
    wanted = {}
    bad = []
    for xb, yb, ob, gb in zip(X.ravel().tolist(), Y.ravel().tolist(), outs, grads):
        if not fmt.is_zero(int(ob)):
            bad.append((xb, yb, "f(x)", int(ob), fmt.zero_bits()))
        if fmt.to_fraction(xb) == zq:
            if yb not in wanted:
                wanted[yb] = target(fmt, blocks, fmt.to_fraction(yb))
            want = wanted[yb]
        else:
            want = Fraction(0)
        if not fmt.is_finite(int(gb)) or fmt.to_fraction(int(gb)) != want:
            bad.append((xb, yb, "D(y)", int(gb), fmt.round(want)))
    return bad


def domain(fmt) -> list:
    """ReLU's X = [−2^(e_max−2), 2^(e_max−2)] as patterns (formats of at most 16 bits)."""
    fmt = parse_format(fmt)
    top = constants(fmt).M_sigma
    return [b for b in finite_values(fmt) if abs(fmt.to_fraction(b)) <= top]


# ------------------------------------------------------------------ gated to one point of X
def gap_bias(fmt: Format, S):
    """The bias making a row's pre-activation the gap between its sum S and the
    neighbouring float (exact by Sterbenz, > 0), or ω where S is a zero."""
    if S is None or S == 0:
        return fmt.omega
    if S > 0:
        return -next_down(fmt, S)
    b = _next_up(fmt, -S)
    if b is None:
        raise InputError(f"no bias keeps a neuron active in {fmt.name} (row sum {float(S):g})")
    return b


def gap_neuron(fmt: Format, ins, h, where: str) -> tuple:
    """(B, value): a chain neuron's gap bias (:func:`gap_bias`) and its value at x = z for
    the (source, weight) terms ``ins`` at the values ``h``; refused (NoPlan, naming
    ``where``) where the pre-activation is not finite and positive."""
    S = row_sum(fmt, ins, h)
    B = gap_bias(fmt, S)
    post = rn(fmt, (S or 0) + B)
    if post is None or post <= 0:
        raise NoPlan(f"{where} in {fmt.name}: the forward pre-activation is "
                     f"{'not finite' if post is None else 'not positive'}")
    return B, post


def shrink_chain(fmt: Format, z: Fraction, rows_of, values, identity) -> None:
    """Where the next layer's rows ``rows_of()`` at the chain's forward values ``values()``
    (x = z) would take a row past 2^(e_max−1) (the chain's ups to c, 2^e_max and more), add
    identity layers (``identity()``: one ×1 step of the program, exact backward; each gap
    bias leaves about S·2^-M of a row sum S) until none does, towards ω; NoPlan where they
    do not shrink."""
    cap = pow2(fmt.e_max - 1)
    for _ in range(10 * (fmt.e_max - fmt.e_min + fmt.M)):
        h = values()
        if not any(sum(abs(w) * h[src] for src, w in ins) >= cap for ins in rows_of()):
            return
        identity()
    raise NoPlan(f"the gated network's forward values at z = {float(z):g} do not shrink in {fmt.name}")


def gated_network(fmt, z, blocks) -> tuple:
    """(network, plans): the blocks [(t, c), …] gated to the point ``z`` of ReLU's X: the
    Theorem 3.1 gradient atom's gate (relu.gate_plan: layers 1–7, R = d = z − z⁻ at x = z and
    dead elsewhere, killers G1, G2 = 0 at z and 2^e_max on one side), then the blocks'
    steps as layers whose every neuron also subtracts k·(G1 + G2), k = 2^-e_max or more where
    its bias is >= 1 (so it is dead at x ≠ z), and has the gap bias at x = z, then an output
    row cancelled by N = relu(−G1 − G2 ⊕ |S|) (f = +0 at z and elsewhere).  At x = z, D(y) = Σ c_i·sign(y)·1[|y| >= t_i]; at x ≠ z a
    zero for every finite y.  Where the forward values would grow past 2^(e_max−1), identity
    layers (exact backward) shrink them first (:func:`gated_program`)."""
    fmt = parse_format(fmt)
    zq = Fraction(z)
    zb = fmt.round(zq)
    if not fmt.is_finite(zb) or fmt.to_fraction(zb) != zq or abs(zq) > constants(fmt).M_sigma:
        raise InputError(f"z = {z} is not a value of ReLU's X = [-2^{fmt.e_max - 2}, 2^{fmt.e_max - 2}] in {fmt.name}")
    plans = [plan(fmt, t, c) for t, c in blocks]
    return gated_program(fmt, zq, parallel([block_program(p) for p in plans])), plans


def gated_program(fmt: Format, z: Fraction, steps: list, layout: list | None = None) -> Network:
    """The network of :func:`gated_network` for any backward program ``steps`` from the
    output's one unit to one unit (R's gradient): D(y) at x = z is the program's value on
    y, and a zero at every other x of X; f = +0 on X.  ``layout`` (a list, filled): per
    layer after the gate's, in forward order, ("step", k) — its first rows are the source
    units of backward step k, its inputs' first columns the step's new units — or
    ("damp", k): an identity on the new units of step k (proofs/theorem_3_2_relu.py)."""
    from fpsmt.constructions import relu as R
    zq = Fraction(z)
    zb = fmt.round(zq)
    L = len(steps)
    widths = [1] + [len(step) for step in steps]
    # each chain neuron subtracts 2^-e_max·G1 and 2^-e_max·G2: 1 at x ≠ z (G = 2^e_max there),
    # more than any chain bias; D^AD sends G1, G2 only tiny sums (weight −1 would send them
    # sums of large gradients, which can overflow, and ∞ ⊗ ReLU'(0) is NaN)
    kill = Fraction(2) ** -fmt.e_max
    # forward, the chain starts from R = d = z − z⁻ at x = z, and each gap bias leaves about
    # S·2^-M of a row sum S; identity layers shrink the values where needed (shrink_chain)
    layers = []
    h = {"R": zq - next_down(fmt, zq), "G1": Fraction(0), "G2": Fraction(0)}
    prev = ["R"]

    def kill_weight(B, what):
        """The killers' weight for a neuron of bias B: 2^-e_max·G is 1 at x ≠ z, and a
        larger bias needs a larger one (the least power of two that still kills it: a
        weight near 1 would send G1, G2 large gradient sums, which can overflow)."""
        kw = max(kill, pow2(floor_log2(B) + 1 - fmt.e_max)) if B > 0 else kill
        if not B < kw * 2 ** fmt.e_max:
            raise InputError(f"{what} {float(B):g} would not be killed at x ≠ z in {fmt.name}")
        return kw

    def add(rows, tag):
        nonlocal h, prev
        i = len(layers)
        neurons, post = [], {}
        for r, ins in enumerate(rows):
            name = f"{tag}{i}_{r}"
            # the killers add ±0 at x = z
            B, post[name] = gap_neuron(fmt, ins, h, f"chain layer {i} of the gated network at z = {float(zq):g}")
            kw = kill_weight(B, "a chain bias")
            neurons.append((name, ins + [("G1", -kw), ("G2", -kw)], B))
        neurons += R.carried(["G1", "G2"])
        h = {**post, "G1": Fraction(0), "G2": Fraction(0)}
        prev = [n for n, _, _ in neurons if n not in ("G1", "G2")]
        layers.append(neurons)

    def damp(rows_of, k):
        def identity():
            add([[(u, Fraction(1))] for u in prev], "d")
            if layout is not None:
                layout.append(("damp", k))
        shrink_chain(fmt, zq, rows_of, lambda: h, identity)

    for k in range(L - 1, 0, -1):  # hidden chain layers: backward step k, its source units
        rows_of = lambda k=k: [[(prev[c], w) for c, w in terms] for terms in step_rows(steps[k], widths[k])]  # noqa: E731
        damp(rows_of, k)
        add(rows_of(), "n")
        if layout is not None:
            layout.append(("step", k))
    out_of = lambda: [[(prev[j], w) for j, unit in enumerate(steps[0]) for src, w in unit]]  # noqa: E731
    damp(out_of, 0)
    # the output row: backward step 0 (its units are the last hidden layer's), then ⊕ (−sgn)·N
    out_terms, = out_of()
    S = row_sum(fmt, out_terms, h) or Fraction(0)
    nbias = abs(S) if S != 0 else fmt.omega
    nw = (-1 if S > 0 else 1) if S != 0 else Fraction(0)
    # N is killed as the chain neurons are (weight −1 would send G1, G2 the output's upstream
    # gradient whole, and with the chain's share the sum can overflow for |y| near Ω)
    nkw = kill_weight(nbias, "the output's killer bias")
    layers[-1].append(("N", [("G1", -nkw), ("G2", -nkw)], nbias))
    layers.append([("out", out_terms + [("N", nw)], R.NEG0)])
    if layout is not None:
        layout.append(("step", 0))

    def builder(s, zz):
        P = R.gate_plan(s.fmt)
        params = {**R.step_params(s, "ge", zz), **R.step_params(s, "le", -zz)}
        for layer in layers:
            P.add(layer)
        return P.network(), params
    return R.concrete(builder, fmt, zb)
