"""Theorem 3.2's gated network for an activation of the logistic family (sigmoid; a user's
σ with the family's requirements): D^AD(y) = g*(z, y) at x = z for every |y| <= H_σ, a
zero at every other x of X, f = f* on X.

What the family gives (:mod:`fpsmt.constructions.logistic`): σ(±0) = 1/2 with σ'(±0) = 1/4,
σ(t) = 1 and σ(−t) = +0 with σ' a zero for t >= 2^T, σ non-decreasing.  So a chain neuron
whose pre-activation is +0 at x = z multiplies the gradient through it by 1/4: every
backward term is (u ⊗ 1/4) ⊗ W.  For a multiple u of 4ω that is u ⊗ (W/4), exactly ReLU's
and tanh's term; for the subnormal values a threshold program lives on it is not (ω ⊗ 1/4
is +0).  The programs here are written for that arithmetic (``quarter``):

* **the scale**: the program's input is 4y (the top hands it down: 4 ⊗ t, t's σ' = 1/4,
  t's weight 4 on d), and its first step, d's weight 2^(m+2), makes Y = 2^(m+2)·y exactly
  (:func:`scale_exponent`: the largest m with 2^(m+2)·H <= 2^(e_max−1)).  Y, and every value
  the programs compute from it before a gadget, is a multiple of 4ω, so their ⊗ 1/4 are
  exact.
* **the gadget** (:func:`gadget_weights`) decides |u| > P for a power of two P and every
  |u| < 11P/5, where every |u| > P is a multiple of 4ω (a stage's u is; the final map's
  product is where its factors are powers of two >= 1, or where P >= 2^(e_min+2)): powers of two take u exactly to 2^(e_min+2)·u/P, then
  the weight 5·2^(−M−1) gives RN(2.5ω·u/P): at most 2ω for |u| <= P, and 3ω to 5ω for
  P < |u| < 11P/5 (one rounding, ties to even at 2.5ω).  The next ⊗ 1/4 rounds
  those to +0 and to ω — the gadget's nonlinearity is that second rounding — and the
  same step's weight 2^b (b >= 2) lifts ω to a multiple of 4ω before any other ⊗ 1/4.
  Rounding is monotone and odd, so this holds for every u of either sign.
* **blocks, staircases, final maps**: :mod:`fpsmt.constructions.threshold`'s plans,
  searched with this gadget's span and least P (:data:`threshold.QUARTER`), on Y's range
  and lattice; every ×1 step is (u ⊗ 1/4) ⊗ 4.
* **pieces** (:func:`point_program`): a constant piece c on [a, b) is the blocks
  4c·sign(y)·1[|y| >= a] and −4c·sign(y)·1[|y| >= b]; a linear piece y ⊗ k on [a, b) is
  A ⊕ Z ⊖ Z with A = Y·2^−j (exact on the piece), Z = 2^e_max·sign(y)·1[|y| >= ·] absorbing
  A above each end, below(b) ⊖ below(a) (as ReLU's, :mod:`fpsmt.constructions.theorem32`),
  then ×2^p, and k is applied last.  At every y at most one piece is nonzero.
* **paths**: the constant pieces' sum ends on one path r_0 = σ(x ⊖ z) (weight 1 on x: the
  last step (4c ⊗ 1/4) ⊗ 1 = c); each linear piece on its own path r_i = σ(w_i ⊗ x ⊖ w_i ⊗ z)
  with w_i = k·2^(j−m−p) (:func:`path_weight`: below 2 where it can be, so that w_i ⊗ z is
  finite), so that D's last rounding is the only one: (A·2^p ⊗ 1/4) ⊗ w_i = RN(y·k),
  subnormal results included.  D^AD at x sums the paths' terms, all but one of
  them exact zeros.

The network, for one point z (:func:`gated_program`): layer 0 the paths r_i beside the two
step indicators' first layers; one layer per program step, each neuron σ(Σ W ⊗ h ⊕ b) with
b = −(Σ W ⊗ 1/2) so that its pre-activation is +0 at x = z (σ = 1/2, σ' = 1/4); beside
them the gate (the step indicators, np = 1[x != z], carried); the top
t = σ(−G ⊗ np ⊕ 4 ⊗ d ⊕ −2) and N = σ(−G ⊗ np ⊕ −0), G = 2^(T+1); the output
4 ⊗ t ⊕ (−4) ⊗ N ⊕ −0.  At x = z: t = N = 1/2, the output is +0, and the backward pass
is the program on 4y; np's upstream is G ⊗ y's two terms, finite for |y| <= H, and its σ'
is 0.  Elsewhere t and N are saturated (σ = +0, σ' = 0): the output is +0 and every
gradient below them is a zero.

Nothing here is assumed: the executor checks the written network at every (x, y) with
|y| <= H_σ (:func:`fpsmt.constructions.theorem32.verify`), and proofs/logi_theorem_3_2.py
states that the program (:func:`network_program`) gives g for every |y| <= H_σ (by
enumerating y up to 16 bits, by proofs/logi_program_tree.py's tree above) and that the
network's layers compute it (:func:`layout`): ``reproduce`` rows ``logi_theorem_3_2*``,
``construct --prove-network``.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from fpsmt.constructions import logistic as L
from fpsmt.constructions import relu as R
from fpsmt.constructions import saturating as S
from fpsmt.constructions import theorem32 as M
from fpsmt.constructions import threshold as T
from fpsmt.constructions.theorem32 import last_end
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, floor_log2, pow2
from fpsmt.semantics.network import Param

NEG0 = R.NEG0
FOUR = Fraction(4)


def y_bound(fmt: Format) -> Fraction:
    """H_σ: the largest |y| the network is built for (sigmoid's 2^(M−1))."""
    from fpsmt.constructions.registry import get_construction
    return Fraction(get_construction(L.hidden()).constants(fmt).H_sigma)


def gate_weight(fmt: Format) -> Fraction:
    """G = 2^(T+1): the top's pre-activation −G ⊕ 4d ⊕ −2 <= −2^T at x != z (d in [0, 1])."""
    return pow2(L.block_constants(fmt).T + 1)


def scale_exponent(fmt: Format) -> int:
    """m: Y = 2^(m+2)·y with 2^(m+2)·H <= 2^(e_max−1) (the programs' room above Y)."""
    return max(0, fmt.e_max - 1 - 2 - floor_log2(y_bound(fmt)))


def y_scale(fmt: Format) -> Fraction:
    return pow2(scale_exponent(fmt) + 2)


def check_format(fmt: Format):
    """The family's block constants in ``fmt`` (refused, one line, where they do not exist),
    and G ⊗ H finite (np's upstream at x = z is (−G ⊗ y) ⊕ (G ⊗ y), an exact zero)."""
    c = L.block_constants(fmt)
    if gate_weight(fmt) * y_bound(fmt) > fmt.Omega:
        raise InputError(f"{c.activation} in {fmt.name}: the gate's G·H = 2^{c.T + 1}·{float(y_bound(fmt)):g} is not "
                         "finite")
    return c


# ------------------------------------------------------------------ the quarter programs
def _scaled(fmt: Format, total: int) -> list:
    """Weights 4·2^d of exact ×2^d steps (each (u ⊗ 1/4) ⊗ 4·2^d, u a multiple of 4ω),
    multiplying by 2^total."""
    return [4 * pow2(d) for d in T.chunks(total, fmt.e_min - fmt.M - 2, fmt.e_max - 2)]


def gadget_weights(fmt: Format, P: Fraction, e_out: int) -> list:
    """The weights of the one-unit steps taking u to sign(u)·2^e_out·1[|u| > P] for every
    |u| < 11P/5 where every |u| > P is a multiple of 4ω (module docstring):
    the exact scaling to 2^(e_min+2)·u/P, the weight 5·2^(−M−1), then 2^b and the ups from ω
    to 2^e_out (2^e_out >= 4ω)."""
    up = e_out - (fmt.e_min - fmt.M)
    if up < 2:
        raise T.NoPlan(f"a gadget's output 2^{e_out} is below 4ω in {fmt.name}")
    b = min(up, fmt.e_max)
    return (_scaled(fmt, fmt.e_min + 2 - floor_log2(P)) + [5 * pow2(-fmt.M - 1), pow2(b)]
            + _scaled(fmt, up - b))


def _sig(v: Fraction) -> tuple:
    e = floor_log2(abs(v))
    return e, abs(v) / pow2(e)


def stage_steps(fmt: Format, P: Fraction, s: Fraction) -> list:
    """One staircase stage on units [u, G]: u ← u ⊕ (−s)·sign(u)·1[|u| > P]."""
    e, sig = _sig(s)
    g = gadget_weights(fmt, P, e)
    steps = [[[(0, FOUR)], [(0, g[0])]]] + [[[(0, FOUR)], [(1, w)]] for w in g[1:]]
    return steps + [[[(0, FOUR), (1, -4 * sig)]]]


def final_steps(p: T.Plan) -> list:
    """The final map (×m1, ×m), the gadget at P, the output's significand (c·sign(u))."""
    f = p.fmt
    steps = [[[(0, 4 * m)]] for m in ([p.m1] if p.m1 != 1 else []) + [p.m]]
    e, sig = _sig(p.c)
    steps += [[[(0, w)]] for w in gadget_weights(f, p.P, e)]
    return steps + [[[(0, 4 * sig if p.c > 0 else -4 * sig)]]]


def block_program(p: T.Plan) -> list:
    """The block on the one unit Y: c·sign(y)·1[|y| >= t], the stages, then the final map."""
    steps = []
    for P, s, _ in p.stages:
        steps += stage_steps(p.fmt, P, s)
    return steps + final_steps(p)


def _lo(fmt: Format, t: Fraction) -> Fraction:
    """Y of the float below the threshold t (y units): the largest Y below Y(t)."""
    below = T.next_down(fmt, t) if t > fmt.omega else Fraction(0)
    return y_scale(fmt) * below


def _top(fmt: Format) -> Fraction:
    return y_scale(fmt) * y_bound(fmt)


def _thresholds(fmt: Format, t: Fraction) -> list:
    """The thresholds on Y that decide |y| >= t, largest first: Y(t), the powers of two
    between, and the least float above Y(t⁻) that is a multiple of 4ω.  Every value a block
    reads is a multiple of 4ω and Y takes no value strictly between Y(t⁻) and Y(t), so each
    decides the same; a larger one needs fewer staircase stages, a smaller one leaves the
    final map more room."""
    lo, top = _lo(fmt, t), y_scale(fmt) * t
    least = max(T.rn(fmt, lo + 4 * fmt.omega), T._next_up(fmt, lo))
    out = [top]
    k = floor_log2(top) - (1 if top == pow2(floor_log2(top)) else 0)
    while pow2(k) > least:
        out.append(pow2(k))
        k -= 1
    return out + ([least] if least < top else [])


@functools.lru_cache(maxsize=4096)
def _plan(name: str, t: Fraction):
    """(threshold on Y, stages, m1, m, P) of the first of :func:`_thresholds` that has a plan."""
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(name)
    why = None
    for th in _thresholds(fmt, t):
        try:
            p = T.plan(fmt, th, 1, ar=T.QUARTER, top=_top(fmt), lo=_lo(fmt, t))
        except T.NoPlan as e:
            why = why or e
            continue
        return th, p
    raise T.NoPlan(f"no threshold plan for |y| >= {fmt.hex(fmt.round(t))} ({float(t):g}) in the logistic "
                   f"family's arithmetic (u ⊗ 1/4) ⊗ w in {fmt.name}: {why}")


def plan(fmt: Format, t: Fraction, C: Fraction) -> T.Plan:
    """The plan of the block C·sign(y)·1[|y| >= t] on Y (t in y units, C the output)."""
    if T.rn(fmt, C) != C or T.rn(fmt, C / 4) != C / 4:
        raise InputError(f"a block's output {float(C):g} is not a multiple of 4ω within {fmt.name}'s range")
    th, p = _plan(fmt.name, Fraction(t))
    return T.Plan(fmt, th, Fraction(C), list(p.stages), p.m1, p.m, p.P)


def _staircase(fmt: Format, t: Fraction) -> list:
    return T.staircase(fmt, y_scale(fmt) * t, ar=T.QUARTER, top=_top(fmt))


def _high(fmt: Format, t) -> Fraction:
    """The bound on |Y| after the staircase of t (the top without stages)."""
    st = _staircase(fmt, t) if t is not None else []
    return st[-1][2] if st else _top(fmt)


def _absorbed(fmt: Format, t, j: int) -> bool:
    """A = Y·2^−j is absorbed by ±2^e_max wherever |y| >= t (checked at its largest, through
    the steps that compute it: rounding is monotone)."""
    if t is None:
        return True
    Z = M._swamp(fmt)
    A = scaled_bound(fmt, _high(fmt, t), j)
    return A is not None and T.rn(fmt, Z + A) == Z and T.rn(fmt, Z - A) == Z


def scale_steps(fmt: Format, j: int) -> list:
    """The weights of below(·)'s steps taking u to u·2^−j (one ×1 step where j = 0)."""
    return _scaled(fmt, -j) or [FOUR]


def scaled_bound(fmt: Format, U: Fraction, j: int):
    """|A| for |u| = U through :func:`scale_steps` (rounding is monotone: the bound on |A|
    where |u| <= U), or None where it overflows."""
    for W in scale_steps(fmt, j):
        U = T.quarter_term(fmt, U, W)
        if U is None:
            return None
    return U


def _exact_j(fmt: Format, a: Fraction) -> int:
    """The largest j with Y·2^−j a multiple of 4ω for every float |y| >= a."""
    q = max(fmt.omega, pow2(floor_log2(a) - fmt.M))  # the spacing of the floats from a on
    return floor_log2(y_scale(fmt) * q / (4 * fmt.omega))


def _below(fmt: Format, b, j: int) -> list:
    """Y·2^−j for |y| < b and a zero at |y| >= b (b None: everywhere)."""
    prog = []
    for P, s, _ in (_staircase(fmt, b) if b is not None else []):
        prog += stage_steps(fmt, P, s)
    prog += [[[(0, w)]] for w in scale_steps(fmt, j)]
    if b is None:
        return prog
    z = block_program(plan(fmt, b, M._swamp(fmt)))
    steps = T.parallel([prog, z, z], final=[[(0, FOUR)], [(1, FOUR)], [(2, FOUR)]], one=FOUR)
    # (A ⊕ Z) ⊖ Z as two steps of at most two terms (the second Z carried): a step of three
    # would be split by theorem32.binary_sums across the whole body, inserting a ×1 carry
    # into every other part's running program (in this arithmetic not the identity on a
    # gadget's values); written here, the part's program is its own
    return steps + [[[(0, FOUR), (1, FOUR)], [(2, FOUR)]], [[(0, FOUR), (1, -FOUR)]]]


def linear_parts(fmt: Format, a: Fraction, b, k: Fraction) -> list:
    """The linear piece y ⊗ k on a <= |y| < b as parts [(a_i, b_i, j_i)], each at the least
    scale 2^−j_i that ±2^e_max absorbs above both its ends, exact from a_i on (split where
    no one scale does both)."""
    out = []
    while True:
        top = _exact_j(fmt, a)
        j = next((j for j in range(top + 1) if _absorbed(fmt, a, j) and _absorbed(fmt, b, j)), None)
        if j is not None:
            return out + [(a, b, j)]
        j = top  # split: the longest part from a that this scale absorbs at its end (none if not at a)
        hi = (fmt.round(b) - 1) if b is not None else fmt.round(y_bound(fmt))
        good = last_end(fmt, fmt.round(a) + 1, hi, lambda e: _absorbed(fmt, e, j)) if _absorbed(fmt, a, j) else None
        if good is None:
            raise InputError(f"the linear piece y ⊗ {float(k):g} from |y| = {float(a):g} cannot be built for "
                             f"{L.hidden()} in {fmt.name}: Y·2^-{j} (exact there) is not absorbed by 2^{fmt.e_max}")
        out.append((a, fmt.to_fraction(good), j))
        a = fmt.to_fraction(good)


def path_weight(fmt: Format, k: Fraction, j: int) -> tuple:
    """(p, w): the path of a linear part at scale 2^−j ends with ×2^p (p <= j, exact: the
    part's value is Y·2^−j, a multiple of 4ω) and its weight on x is w = k·2^(j−m−p), exact,
    and below 2 where it can be (so that w ⊗ z is finite on X)."""
    m = scale_exponent(fmt)
    p = min(j, max(0, floor_log2(abs(k)) + j - m))
    while p >= 0:
        w = k * pow2(j - m - p)
        if T.rn(fmt, w) == w:
            return p, w
        p -= 1
    raise InputError(f"the linear piece y ⊗ {float(k):g}: its weight on x, k·2^{j - m}, is not a float of {fmt.name}")


def linear_program(fmt: Format, a: Fraction, b, j: int) -> list:
    """Y·2^−j for a <= |y| < b, an exact zero at every other y: below(b) ⊖ below(a)."""
    if a > fmt.omega:
        return T.parallel([_below(fmt, b, j), _below(fmt, a, j)], final=[[(0, FOUR), (1, -FOUR)]], one=FOUR)
    return _below(fmt, b, j)


def point_program(fmt: Format, pieces: list) -> tuple:
    """(steps, weights): the backward program of one point, from the unit 4y to the input x,
    and the paths' weights on x (module docstring), or None where every piece is 0."""
    body = point_body(fmt, pieces)
    if body is None:
        return None
    steps, weights = body
    return [[[(0, y_scale(fmt))]]] + M.binary_sums(steps, one=FOUR), weights


def point_body(fmt: Format, pieces: list) -> tuple:
    """(body, weights): :func:`point_program` before its first step (Y from 4y) and before
    theorem32.binary_sums splits its sums of more than two terms, or None."""
    consts, paths = [], []
    for i, p in enumerate(pieces):
        nxt = pieces[i + 1].t if i + 1 < len(pieces) else None
        if p.c == 0:
            continue
        if p.kind == "const":
            parts = [block_program(plan(fmt, p.t, 4 * p.c))]
            if nxt is not None:
                parts.append(block_program(plan(fmt, nxt, -4 * p.c)))
            consts.append(parts[0] if len(parts) == 1 else T.parallel(parts, one=FOUR))
        else:
            for a, b, j in linear_parts(fmt, p.t, nxt, p.c):
                up, w = path_weight(fmt, p.c, j)
                paths.append((linear_program(fmt, a, b, j) + [[[(0, W)]] for W in _scaled(fmt, up)], w))
    if consts:
        paths.insert(0, (M.tree_sum(consts, one=FOUR) if len(consts) > 1 else consts[0], Fraction(1)))
    if not paths:
        return None
    body = T.parallel([p for p, _ in paths], final=[[(i, FOUR)] for i in range(len(paths))], one=FOUR)
    return body, [w for _, w in paths]


def eval_program(fmt: Format, steps: list, weights: list, y: Fraction) -> Fraction:
    """The program on y with exact rationals, each ⊗ and ⊕ rounded once: what D^AD at x = z
    computes (an independent reading for tests)."""
    mul = functools.partial(T.quarter_term, fmt)
    add = lambda a, b: T.rn(fmt, a + b)  # noqa: E731
    units = T.eval_steps(steps, [4 * y], mul, add, lambda w: w)
    return T.eval_steps([[[(i, w) for i, w in enumerate(weights)]]], units, mul, add, lambda w: w)[0]


# ------------------------------------------------------------------ the network
def chain_layers(steps: list, weights: list) -> list:
    """Per forward layer (the program's last step first: the paths, reading x): [(name,
    [(source, weight)])]; the last layer is [d]."""
    full = steps + [[[(i, w) for i, w in enumerate(weights)]]]
    n = len(full)
    widths = [1] + [len(st) for st in full]
    layers, prev = [], ["x"]
    for k in range(n - 1, -1, -1):
        rows = T.step_rows(full[k], widths[k])
        names = ["d"] if k == 0 else ([f"r{i}" for i in range(len(rows))] if k == n - 1 else
                                      [f"c{n - 1 - k}_{i}" for i in range(len(rows))])
        layers.append([(nm, [(prev[c], w) for c, w in terms]) for nm, terms in zip(names, rows)])
        prev = names
    return layers


def least_depth(fmt: Format, chain: list) -> int:
    """The chain's layers (at least the gate's: the step indicators, then np), the top, the
    output."""
    return max(len(chain), L.block_constants(fmt).step_depth + 1) + 2


def padded(chain: list, depth: int) -> list:
    """The chain with ×1 carries of the paths (σ(4 ⊗ r ⊕ −2)) after layer 0, to ``depth``."""
    pad = depth - 2 - len(chain)
    paths = [nm for nm, _ in chain[0]]
    carries = [[(nm, [(nm, FOUR)]) for nm in paths] for _ in range(pad)]
    return chain[:1] + carries + chain[1:]


def network_program(fmt: Format, steps: list, weights: list, depth: int | None = None) -> list:
    """The program the gated network at ``depth`` runs (backward order, from the unit 4y the
    top hands down): the point's steps, a ×1 step (u ⊗ 1/4) ⊗ 4 per carry layer of the
    paths (:func:`padded`), then the paths' weights on x.  The claims state this program,
    at the network's own depth, so nothing is argued about the carries."""
    chain = chain_layers(steps, weights)
    pad = (least_depth(fmt, chain) if depth is None else depth) - 2 - len(chain)
    carry = [[(i, FOUR)] for i in range(len(weights))]
    return steps + [carry] * max(0, pad) + [[[(i, w) for i, w in enumerate(weights)]]]


def layout(fmt: Format, steps: list, weights: list, depth: int | None = None) -> tuple:
    """(entries, program): where :func:`network_program`'s steps sit in
    :func:`gated_program`'s network, one entry (kind, k, rows, cols, zrows, zcols) per chain
    layer (layers 0 … depth − 3), as proofs/theorem_3_2_relu.py's ``network_nodes`` reads
    them.  Layer i runs step len(program) − 1 − i (layer 0: the paths' weights, reading x).
    Each layer lists the gate's neurons first — two step indicators' (``zrows`` below their
    last layer: only the next indicator layer reads them, and it gets a zero), then np and
    its carries — and every input column of the gate's is a ``zcols`` (a zero gradient: the
    indicators' last layer, np and its carries are saturated at x = z, σ' = 0)."""
    c = L.block_constants(fmt)
    chain = chain_layers(steps, weights)
    depth = least_depth(fmt, chain) if depth is None else depth
    chain = padded(chain, depth)
    prog = network_program(fmt, steps, weights, depth)
    if len(prog) != len(chain):
        raise AssertionError(f"the program has {len(prog)} steps, the chain {len(chain)} layers")
    entries, prev = [], None
    for i, layer in enumerate(chain):
        side = 2 if i < c.step_depth else 1
        rows = [side + j for j in range(len(layer))]
        cols = [0] if prev is None else [prev[0] + j for j in range(prev[1])]
        entries.append(("step", len(prog) - 1 - i, rows, cols, [0, 1] if i + 1 < c.step_depth else [],
                        [] if prev is None else list(range(prev[0]))))
        prev = (side, len(layer))
    return entries, prog


def gated_program(fmt: Format, z: Fraction, steps: list, weights: list, depth: int | None = None):
    """The gated network of the program at the point ``z`` (module docstring), at ``depth``
    layers (refused below the least)."""
    c = check_format(fmt)
    chain = chain_layers(steps, weights)
    least = least_depth(fmt, chain)
    depth = least if depth is None else depth
    if depth < least:
        raise InputError(f"the gated network needs {least} layers, not {depth}")
    chain = padded(chain, depth)
    for nm, ((_, w),) in chain[0]:
        if T.rn(fmt, w * Fraction(z)) is None:
            raise InputError(f"at x = {float(z):g}: a path's weight on x, {float(w):g}, times x is not finite in "
                             f"{fmt.name} (a linear piece's slope too large for this point)")
    G = gate_weight(fmt)
    half = {nm: Fraction(1, 2) for layer in chain for nm, _ in layer}
    biases = []
    for i, layer in enumerate(chain):
        row = []
        for nm, ins in layer:
            if i == 0:
                row.append(Param(f"b_{nm}"))
                continue
            S_ = T.row_sum(fmt, ins, half)
            row.append(-S_ if S_ else Fraction(0))
        biases.append(row)

    def side(k):
        return [(nm, ins, b) for (nm, ins), b in zip(chain[k], biases[k])]

    def builder(s, zv):
        P = L._plan(fmt)
        L._indicators(fmt, P, ["np"], carries=len(chain) - 1 - c.step_depth, side=side)
        P.add([("t", [("np", -G), ("d", FOUR)], Fraction(-2)), ("N", [("np", -G)], NEG0)])
        P.add([("out", [("t", FOUR), ("N", -FOUR)], NEG0)])
        params = {f"b_{nm}": -(s.const(w) * zv) for nm, ((_, w),) in chain[0]}
        return P.network(), {**L.both_params(s, zv), **params}
    with L.hidden_activation(c.activation):
        net = R.concrete(builder, fmt, fmt.round(Fraction(z)))
    if net.depth != depth:
        raise AssertionError(f"the gated network has {net.depth} layers, not {depth}")
    return net


def theorem_network(fmt: Format, points: list, programs: list, progress=None):
    """The Theorem 3.2 network for ``points`` = [(x, f*, pieces)] with each point's
    :func:`point_program` (None: no gradient): the gated network of every point with a
    program, then the family's value atoms (v·1[x = z], D^AD = ±0 for |y| <= H_σ) of the
    pieces of each nonzero f*, at one depth, one output row, gated terms first."""
    c = check_format(fmt)
    with L.hidden_activation(c.activation):
        gated = []
        for n, ((z, _, _), prog) in enumerate(zip(points, programs)):
            if prog is not None:
                steps, weights = prog
                gated.append((fmt.to_fraction(z), steps, weights, chain_layers(steps, weights)))
            if progress is not None:
                progress(n + 1, len(points))
        depth = max([least_depth(fmt, ch) for *_, ch in gated] + [c.value_depth])
        kinds = [R.one_copy(gated_program(fmt, z, st, ws, depth), depth) for z, st, ws, _ in gated]
        V = L.piece_bound(fmt, y_bound(fmt))
        va = [(z, a) for z, v, _ in points if not fmt.is_zero(v) for a in S.pieces(fmt, v, V)] or [(points[0][0], 0)]
        kinds.append(R.block_copies(functools.partial(L.value_atom, depth=depth), fmt,
                                    [list(t) for t in zip(*va)], depth))
        return R.boxplus_copies(fmt, kinds)
