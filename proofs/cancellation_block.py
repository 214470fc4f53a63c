"""The cancellation (gradient suppression) block (BRIEF §5.1): s ⊕ a_p⁺ ⊖ a_p⁺ ⊕ … ⊖ a_emax⁺
with unit weights (a_k⁺ = (2^k)⁺ from constant neurons), ReLU, weight 2^(p − e_max).

For s ∈ {0, 1} the forward map keeps s while AD sees only the weights: gradient factor
2^(p − e_max).  For general s the map is 1[s >= 1/2] only below a format-dependent bound,
so the lemma must state its s-range.
released — the statement an unwary reading makes: every s >= 0 of X.
repaired — the same block with the range stated: 0 <= s <= 2^(e_max − p) (found by
enumeration in the 16- and 8-bit formats — bfloat16 first fails near 2.7e36, float16 at
63.53, e4m3 at 36, e5m2 overflows from 20480 — and proved here per format).  In formats
with e_max < p (e3m4) the block has no stage at all and cannot work.
The repaired construction does not use this block (fpsmt.constructions.relu docstring).
"""

from fractions import Fraction

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proofs.common import FINITE, indicator, whole, x_ends
from fpsmt.semantics.network import Network
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, induction, sequence, stage


def _lemma(variant):
    def build(fmt):
        top = fmt.hex(x_ends(fmt)[1]) if variant == C.RELEASED else fmt.hex(fmt.round(Fraction(2) ** (fmt.e_max - fmt.M)))
        scale = fmt.hex(fmt.round(Fraction(2) ** (fmt.M - fmt.e_max)))

        def goal(s):
            net, _ = C.cancellation(s, 1)
            out, grad = s.run(net, [s.s], [s.y])
            on = s.s >= 0.5
            return [out[0].same(indicator(s, on)), on.implies(grad[0].same(s.y * s.const(scale))),
                    (~on).implies(grad[0].eq(0))]
        c = forall(f"cancellation_block.{variant}", {"s": Float(range=(0, top)), "y": Float(finite=True)}, goal=goal)
        hints = {}
        if variant == C.RELEASED:
            # the least failing s where every s can be run; else the top of X (2^(e_max − 2),
            # which the executor shows failing in bfloat16, float16, float32 and float64)
            first = first_failure(fmt) if fmt.nbits <= 16 else x_ends(fmt)[1]
            if first is not None:
                hints = {c.name: [{"s": first, "y": fmt.round(1)}]}
        rng = "every s >= 0 of X" if variant == C.RELEASED else f"0 <= s <= 2^{fmt.e_max - fmt.M}"
        if variant == C.REPAIRED and fmt.e_max <= fmt.M:  # no stage index: the block as one claim
            return [c], (f"one block, for {rng} and every finite y: out = 1[s >= 1/2] (1 or +0); D^AD(y) = "
                         f"y * 2^{fmt.M - fmt.e_max} (rounded) where s >= 1/2, ±0 elsewhere (e_max <= p: the row "
                         "has no stage to induct over)"), {}
        if variant == C.REPAIRED:
            return staged(fmt), (f"one block, for {rng} and every finite y: out = 1[s >= 1/2] (1 or +0); D^AD(y) = "
                                 f"y * 2^{fmt.M - fmt.e_max} (rounded) where s >= 1/2, ±0 elsewhere; proved as an "
                                 "induction on the stage index (base, step, conclusion), the exit, and the gradient for "
                                 "every s from the induction's conclusion"), {}
        return [c], (f"one block, for {rng} and every finite y: out = 1[s >= 1/2] (1 or +0); D^AD(y) = "
                     f"y * 2^{fmt.M - fmt.e_max} (rounded) where s >= 1/2, ±0 elsewhere"), hints
    return build


def _multiple(s, t, j):
    """t >= 0 is a multiple of 2^j (an Int of the scope, or an int, with j + p <= e_max):
    t >= 2^(j+p) (its ulp is then at least 2^j), or adding and removing C = 2^(j+p) leaves
    it unchanged."""
    C_ = s.int_pow2(j + s.fmt.M) if isinstance(j, int) else (j + s.fmt.M).pow2()
    return (t >= C_) | (((t + C_) - C_).eq(t))


def entry_value(s, x):
    """t_p = (relu(s) ⊕ a_p) ⊖ a_p, a_p = (2^p)⁺: the row after its first constant pair
    (relu(s): the block's first neuron, the activation as the block's layers name it)."""
    a = s.int_pow2(s.fmt.M).next_up()
    return (s.sigma(C.hidden(), x) + a) - a


def step_value(s, k, t):
    """t_(k+1) = (t_k ⊕ a_(k+1)) ⊖ a_(k+1), for an Int k of the scope or an int."""
    a = (s.int_pow2(k + 1) if isinstance(k, int) else (k + 1).pow2()).next_up()
    return (t + a) - a


def chain_value(s, x):
    """The row as the induction runs it: t_emax from s (entry, then every step)."""
    t = entry_value(s, x)
    for k in range(s.fmt.M, s.fmt.e_max):
        t = step_value(s, k, t)
    return t


def layer0_given(s):
    """The block's first-layer pre-activations as the ``fold`` stage takes them: s, then
    each constant a_k twice (its bias)."""
    return [s.s] + [s.const(s.fmt.hex(c)) for c in C.cancellation_constants(s.fmt) for _ in (0, 1)]


def _layer0(s):
    """The block's first-layer pre-activations at s (its first layer alone, a slice)."""
    net, _ = C.cancellation(s, 1)
    _, _, (pre, _, _) = s.run(Network(s.fmt, net.layers[:1]), [s.s], trace=True)
    return pre[0]


def _row_given(s):
    """The row's pre-activation, the first layer's pre-activations given as :func:`layer0_given`."""
    net, _ = C.cancellation(s, 1)
    _, _, (pre, _, _) = s.run(net, [s.s], trace=True, given_pre={0: layer0_given(s)})
    return pre[1][0]


def row_tree(S):
    """The row's fold is the induction's chain, as two stages on the block's own network:
    ``inputs`` (for every s of [0, T], the first layer's pre-activations are s and the
    constants a_k, each twice: its absent terms +0 ⊗ s are zeros) and ``fold`` (with those
    pre-activations given, the row's pre-activation, bias −0 included, is the chain
    t_p, …, t_emax of the value induction, bit for bit)."""
    inputs = Pred("cancellation.inputs", {"s": S.variables["s"]},
                  lambda s: [a.same(b) for a, b in zip(_layer0(s), layer0_given(s))],
                  doc="the block's first-layer pre-activations are s, a_p, a_p, …, a_emax, a_emax")
    fold = Pred("cancellation.fold", {"s": S.variables["s"], "r": Float()}, lambda s: s.r.same(chain_value(s, s.s)),
                doc="the row's pre-activation r is the chain t_emax of the value induction")
    return sequence("cancellation_block.row", [
        stage("cancellation_block.inputs", {}, inputs, lambda s: {}, S),
        stage("cancellation_block.fold", {}, fold, lambda s: {"r": _row_given(s)}, inputs)])


def staged(fmt):
    """The repaired block as a proof tree (fpsmt.proof.tree).  The row ``s ⊕ a_p ⊖ a_p ⊕ …
    ⊖ a_emax`` (a_k = (2^k)⁺) runs t_p = (relu(s) ⊕ a_p) ⊖ a_p, t_(k+1) = (t_k ⊕ a_(k+1)) ⊖ a_(k+1).

    * value: an induction on k from p to e_max with the invariant I(k, s, t): t = +0 where
      s < 1/2, else t is a multiple of 2^(k−p) in [2^(k−p), T], T = 2^(e_max−p) —
      ``entry`` (the base: t_p from s), ``stages.step`` (I(k) to I(k + 1) for a symbolic
      k), ``stages.conclusion`` (I(e_max) gives t = +0 or T exactly, by s), then ``exit``:
      relu(t) ⊗ 2^(p−e_max) is 1[s >= 1/2].
    * ``gradient``: D^AD w.r.t. s for every s of [0, T] and every finite y, run with the
      row's pre-activation given as the stage's variable t (``Scope.run(given_pre=...)``: the
      backward pass reads a layer's forward pass only through its pre- and
      post-activations), under the hypothesis that (s, t) is what the value induction
      concludes (the predicate ``cancellation.row``, the same term): y ⊗ 2^(p−e_max) (up to
      the sign of a zero) where s >= 1/2, ±0 elsewhere.  Exit and gradient are decided by
      cases t = +0 and t = T, with a claim that these cover the hypothesis.  The row's fold itself is not
      evaluated there, which is what makes the claim small.
    * ``row`` (:func:`row_tree`): that the row's fold is the chain t_p, …, t_emax of the
      induction, as claims on the block's own network: ``inputs`` (the first layer's
      pre-activations are s and the constants, its absent terms being zeros for every s of
      [0, T]) and ``fold`` (with those given, the row's pre-activation is
      :func:`chain_value`, the induction's base and steps composed — the same functions).
      The Z3 interpretation writes x ⊗ ±1 and x ⊕ −0 exactly, so the fold's terms are the
      chain's and the claim is small in every format; tests/test_tree.py also compares the
      two in the executor at every s of the 8- and 16-bit formats."""
    p = fmt.M
    T = Fraction(2) ** (fmt.e_max - p)
    Tx = fmt.hex(fmt.round(T))

    S = Pred("cancellation.s", {"s": Float(range=(0, Tx))}, lambda s: s.true(), doc="0 <= s <= T")

    def inv_fn(s):
        on = s.s >= 0.5
        return [(~on).implies(s.t.same(0)),
                on.implies((s.t >= (s.k - p).pow2()) & (s.t <= s.const(Tx)) & _multiple(s, s.t, s.k - p))]
    inv = Pred("cancellation.invariant", {"k": Int(p, fmt.e_max), "s": Float(range=(0, Tx)),
                                          "t": Float(range=(0, Tx))}, inv_fn,
               doc="after stage k: t = +0 where s < 1/2, else a multiple of 2^(k-p) in [2^(k-p), T]")
    done = Pred("cancellation.row", {"s": Float(range=(0, Tx)), "t": Float(range=(0, Tx))},
                lambda s: [(s.s < 0.5).implies(s.t.same(0)), (s.s >= 0.5).implies(s.t.eq(s.const(Tx)))],
                doc="the row's value r = +0 where s < 1/2, T where s >= 1/2")
    out_ok = Pred("cancellation.out", {"s": Float(range=(0, Tx)), "out": Float()},
                  lambda s: s.out.same(indicator(s, s.s >= 0.5)), doc="out = 1[s >= 1/2]")

    def entry(s):
        return {"k": p, "t": entry_value(s, s.s)}

    def step(s):
        return {"t": step_value(s, s.k, s.t)}

    def exit_(s):
        net, _ = C.cancellation(s, 1)
        out, _ = s.run(net, [s.s], given_pre={1: [s.t]})  # relu(r), then ⊗ 2^(p − e_max)
        return out[0]

    def gradient(s):
        """D^AD w.r.t. s for upstream y, with the row's pre-activation the stage's t."""
        net, _ = C.cancellation(s, 1)
        _, grad = s.run(net, [s.s], [s.y], given_pre={1: [s.t]})
        return {"g": grad[0]}

    def grad_fn(s):
        path = s.y * s.const(fmt.hex(fmt.round(1 / T)))
        on = s.s >= 0.5
        return [(on & ~path.is_zero()).implies(s.g.same(path)), (on & path.is_zero()).implies(s.g.is_zero()),
                (~on).implies(s.g.is_zero())]
    grad_ok = Pred("cancellation.gradient", {"s": Float(range=(0, Tx)), "y": Float(finite=True), "g": Float()},
                   grad_fn, doc=f"D^AD(y) = y * 2^{p - fmt.e_max} (up to the sign of a zero) where s >= 1/2, "
                                "±0 elsewhere")

    row_values = {"t": [0, Tx]}  # the row is +0 or T: both stages decided at each, with a cover claim
    base = stage("cancellation_block.entry", {}, inv, entry, S)
    value = sequence("cancellation_block.value", [
        induction("cancellation_block.stages", inv, "k", p, fmt.e_max, base, step, done),
        stage("cancellation_block.exit", {}, out_ok, lambda s: {"out": exit_(s)}, done, cases=row_values)])
    grad = stage("cancellation_block.gradient", {"y": Float(finite=True)}, grad_ok, gradient, done,
                 premise=[done], cases=row_values)  # the value induction's conclusion, for the same s and the row t
    return Node("lemma", "cancellation_block", None, [row_tree(S), value, grad])


def first_failure(fmt):
    """The least s >= 0 of X where one block's value is not 1[s >= 1/2] (executor, every s;
    formats of at most 16 bits), or None: the released row's hint."""
    import numpy as np

    from fpsmt.semantics.arith import concrete
    from fpsmt.proof.claims import Scope
    from fpsmt.semantics.network import run
    A = concrete(fmt)
    net, _ = C.cancellation(Scope(A, fmt, {}), 1)
    top = x_ends(fmt)[1]
    ss = np.asarray([b for b in range(top + 1) if fmt.is_finite(b)], dtype=np.uint64)
    out = np.ravel(A.to_bits(run(A, net, A.const(ss)[:, None]).out))
    want = np.where([fmt.to_fraction(int(b)) >= Fraction(1, 2) for b in ss], fmt.round(1), 0)
    bad = np.nonzero(out != want)[0]
    return int(ss[bad[0]]) if len(bad) else None


def blocks_needed(fmt):
    """The least n with Ω · 2^(n(p − e_max)) at most half the least subnormal: n blocks
    should round every upstream |y| <= Ω times |v| <= 1 to zero (a prediction; the rows
    decide it).  None where a block cannot work (e_max <= p)."""
    if fmt.e_max <= fmt.M:
        return None
    n = 1
    while fmt.Omega * Fraction(2) ** (n * (fmt.M - fmt.e_max)) > Fraction(2) ** (fmt.e_min - fmt.M - 1):
        n += 1
    return n


def suppression_claim(fmt, n):
    """n blocks then a weight v (:func:`fpsmt.constructions.relu.suppression_layers`): for
    s in {0, 1}, every v with |v| <= 1 and every finite y (|y| <= Ω): out = v ⊗ s and the
    gradient w.r.t. s is ±0."""
    def goal(s):
        net = Network(s.fmt, C.suppression_layers(s.fmt, n))
        res = []
        for sv in (0, 1):
            out, grad = s.run(net, [s.const(sv)], [s.y], params={"v": s.v})
            res += [out[0].eq(s.v * sv), grad[0].is_zero()]
        return res
    return forall(f"cancellation_block.suppression_{n}", {"v": Float(range=(-1, 1)), "y": Float(finite=True)},
                  goal=goal, enumerate=True)


def block_rows(fmt):
    """The smallest repair of the released zero-gradient atom's block count, as two rows:
    n − 1 blocks (released: expected REFUTED) and n blocks (repaired: expected PROVED),
    for float16 and the 8-bit formats (BRIEF §5.1: float16 needs nine blocks for y = Ω;
    the released atom has three)."""
    n = blocks_needed(fmt)
    if n is None or fmt.nbits > 16 or fmt.E > 5:
        return []
    rows = []
    for variant, k in ((C.RELEASED, n - 1), (C.REPAIRED, n)):
        if k < 1:
            continue
        rows.append((variant, [suppression_claim(fmt, k)], (
            f"{k} cancellation block{'s' if k > 1 else ''} then a weight v (the released zero-gradient atom after its "
            f"indicator; {n} predicted as the least that works, the released atom has 3): for s in {{0, 1}}, every "
            f"|v| <= 1 and every finite y (|y| <= Omega): out = v * s and the gradient w.r.t. s is ±0")))
    return rows


def _one(s):
    net, _ = C.cancellation(s, 1)
    return net, None, [s.s], [s.y]


def _expect(s, out, grad):
    on = s.s >= 0.5
    scale = s.fmt.hex(s.fmt.round(Fraction(2) ** (s.fmt.M - s.fmt.e_max)))
    path = s.y * s.const(scale)  # a zero path (y a zero, or underflow) gives a zero of either sign, as the tree states
    return [out[0].same(indicator(s, on)), (on & ~path.is_zero()).implies(grad[0].same(path)),
            (on & path.is_zero()).implies(grad[0].is_zero()), (~on).implies(grad[0].is_zero())]


WHOLE = whole("cancellation_block",
              {"s": Float(range=(0, lambda f: f.hex(f.round(Fraction(2) ** (f.e_max - f.M))))), "y": FINITE}, _one,
              _expect, lambda fmt: C.concrete(C.cancellation, fmt, blocks=1),
              lambda fmt: (f"one block, for 0 <= s <= 2^{fmt.e_max - fmt.M} and every finite y: out = 1[s >= 1/2] "
                           f"(1 or +0); D^AD(y) = y * 2^{fmt.M - fmt.e_max} (rounded; a zero of either sign where that is a "
                           "zero) where s >= 1/2, ±0 elsewhere"))

LEMMA = Lemma("cancellation_block", "BRIEF §5.1 (gradient suppression by rounding)",
              {"released": _lemma(C.RELEASED), "repaired": _lemma(C.REPAIRED)}, extra=block_rows, order=50,
              whole=WHOLE)
