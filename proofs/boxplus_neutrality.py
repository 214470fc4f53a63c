"""⊞-neutrality (paper §3, the composition f = f2 ⊞ f1; BRIEF §5): joining networks side by
side and adding their outputs left to right in a fixed order changes neither the value nor
the gradient the theorem needs.

fpsmt.constructions.relu.boxplus puts every part's output terms into one output row, in the order
of the parts, bias −0; the theorem network puts the gradient atoms (f2) first, then the
zero-gradient atoms (f1).  At an input x of the domain:

* value: each f2 atom contributes w ⊗ R and (−1) ⊗ N, both ±0 except at its own point,
  where they are w and −w; each f1 atom contributes ±0 except at its point, v.  So the
  row is a left-to-right sum of zeros, at most one adjacent pair (w, −w) and then at most
  one value v, and must come out as v (a zero when v is a zero: see below);
* gradient: at layer 1 the gradient w.r.t. x is the left-to-right sum over all atoms'
  rows of (upstream ⊗ weight): ±0 for every atom but x's own gradient atom, which
  gives g (its lemma); so a sum of zeros and at most one nonzero g.

The floating-point part is a proof tree (fpsmt.proof.tree) of two inductions over the
row's terms, each with a symbolic running sum r and a symbolic number of terms (up to
2^19 slots: atoms, or layer-1 neurons):

* ``start``: −0 ⊕ t = t for every t, so a left-to-right sum t1 ⊕ t2 ⊕ … is the sum
  started from r = −0 (the bases start there);
* ``value``: slots 0 … m−1 are the gradient atoms, each adding its pair of terms (w and
  −w at x's own atom, slot jw, or jw = −1 when x has none; two zeros elsewhere), slots
  m … m+n−1 the zero-gradient atoms, each adding one term (v at x's own atom, slot jv; a
  zero elsewhere).  The invariant: r is a zero up to slot jv, and v after it (a zero when
  v is one); the step holds for every slot index, every zero term and every r; the
  conclusion adds the output bias −0 at the end (index m + n);
* ``gradient``: the layer-1 terms (upstream ⊗ weight) of every atom's first-layer
  neurons: g at x's gradient atom's T neuron (slot jg, or none: jg = −1 when g*(x) = 0),
  a zero at every other (their lemmas); the invariant: r is a zero up to slot jg, and g
  after it;
* ``times``: a zero times a finite weight is a zero (the dense semantics' +0 ⊗ terms of
  other atoms' columns, and every zero upstream times a weight).

Zeros: when the target value is a zero, the row is +0 or −0.  A network of this form
cannot give −0 at one point and a positive value at another: the output row's terms
are w_j ⊗ a_j with a_j >= +0 (ReLU), a positive value needs some w_j > 0, and that term
is +0 or positive everywhere, while a left-to-right sum with a +0 or positive term is
never −0.  So the theorem compares zeros as numbers (+0 = −0), as the paper's
statement does for values in F.  Both variants are the same lemma (⊞ is not
changed by the repair).
"""

#: SLOTS: the most slots an induction covers (a network with more atoms is not covered):
#: the bound of approx.congruence's row induction too (a row's terms), one constant for both
from fpsmt.proof.approx import SLOTS
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, induction, stage
from fpsmt.proofs.common import lets, zero as zero_or_negative_zero


def zero_or(s, r, v):
    """r is v, or a zero when v is one."""
    return (v.is_zero() & r.is_zero()) | (~v.is_zero() & r.same(v))


_slot = Int(0, SLOTS)
VALUE_ROW = Pred("boxplus.value.row", {"m": _slot, "n": _slot, "jw": Int(-1, SLOTS), "jv": _slot,
                                       "w": Float(finite=True, nonzero=True), "v": Float(finite=True)},
                 lambda s: [s.jw < s.m, s.m <= s.jv, s.jv < s.m + s.n, s.m + s.n <= SLOTS],
                 doc="m gradient-atom slots (x's own at jw, or jw = -1), then n zero-gradient-atom slots "
                     "(x's own at jv)")
VALUE_INV = Pred("boxplus.value.invariant", {**VALUE_ROW.variables, "j": _slot, "r": Float()},
                 lambda s: [VALUE_ROW.holds(s), s.j <= s.m + s.n, (s.j <= s.jv).implies(s.r.is_zero()),
                            (s.j > s.jv).implies(zero_or(s, s.r, s.v))],
                 doc="after j slots: r is a zero up to x's zero-gradient atom, v (or a zero) after it")
VALUE_OUT = Pred("boxplus.value.out", {"r": Float(), "v": Float(finite=True)},
                 lambda s: zero_or(s, s.r + (-s.const(0)), s.v), doc="r ⊕ (−0) is v, or a zero when v is one")


def _value_step(s):
    pair = s.where(s.j.eq(s.jw), (s.r + s.w) + (-s.w), (s.r + s.a) + s.b)
    one = s.where(s.j.eq(s.jv), s.r + s.v, s.r + s.a)
    return {"r": s.where(s.j < s.m, pair, one)}


GRAD_ROW = Pred("boxplus.gradient.row", {"K": _slot, "jg": Int(-1, SLOTS), "g": Float(finite=True, nonzero=True)},
                lambda s: [s.jg < s.K], doc="K layer-1 terms: g at slot jg (or none: jg = -1), zeros elsewhere")
GRAD_INV = Pred("boxplus.gradient.invariant", {**GRAD_ROW.variables, "j": _slot, "r": Float()},
                lambda s: [GRAD_ROW.holds(s), s.j <= s.K, ((s.jg < 0) | (s.j <= s.jg)).implies(s.r.is_zero()),
                           ((s.jg >= 0) & (s.j > s.jg)).implies(s.r.same(s.g))],
                doc="after j terms: r is a zero up to slot jg, g after it")
GRAD_OUT = Pred("boxplus.gradient.out", {"r": Float(), "jg": Int(-1, SLOTS), "g": Float(finite=True, nonzero=True)},
                lambda s: [(s.jg >= 0).implies(s.r.same(s.g)), (s.jg < 0).implies(s.r.is_zero())],
                doc="the sum is g, or a zero when no term is g")


def start_node():
    """−0 ⊕ t = t for every t: a left-to-right sum is the sum started from r = −0."""
    start = forall("boxplus_neutrality.start", {"t": Float()}, goal=lambda s: ((-s.const(0)) + s.t).same(s.t))
    return Node("stage", start.name, start)


def gradient_node():
    """Layer 1's gradient w.r.t. x: K terms, g at one slot (or none), zeros elsewhere, sum to g."""
    return induction(
        "boxplus_neutrality.gradient", GRAD_INV, "j", 0, SLOTS,
        stage("boxplus_neutrality.gradient.base", {}, GRAD_INV, lambda s: {"j": 0, "r": -s.const(0)}, GRAD_ROW),
        lambda s: {"r": s.r + s.where(s.j.eq(s.jg), s.g, s.a)}, GRAD_OUT,
        step_vars={"a": zero_or_negative_zero()}, done=lambda s: s.j.eq(s.K),
        doc="layer 1's gradient w.r.t. x: the left-to-right sum of every first-layer neuron's term")


def times_node():
    """A zero times a finite weight is a zero."""
    times = forall("boxplus_neutrality.times", {"a": zero_or_negative_zero(), "w": Float(finite=True)},
                   goal=lambda s: (s.a * s.w).is_zero())
    return Node("stage", times.name, times)


def tree(fmt):
    zeros = {"a": zero_or_negative_zero(), "b": zero_or_negative_zero()}
    value = induction(
        "boxplus_neutrality.value", VALUE_INV, "j", 0, SLOTS,
        stage("boxplus_neutrality.value.base", {}, VALUE_INV, lambda s: {"j": 0, "r": -s.const(0)}, VALUE_ROW),
        _value_step, VALUE_OUT, step_vars=zeros, done=lambda s: s.j.eq(s.m + s.n),
        doc="the output row's left-to-right sum over the atoms' terms, then the bias −0")
    return Node("lemma", "boxplus_neutrality", None,
                [start_node(), value, gradient_node(), times_node(), padding_tree(fmt)],
                doc="the row sums by induction over their terms")


#: a hidden value a copy carries: a ReLU output (+0, −0 or positive), finite
_HIDDEN = Float(range=(0, lambda f: f.hex(f.max_bits)))
PAD_RUN = Pred("boxplus.padding.run", {"a": _HIDDEN, "n": _slot}, lambda s: s.true(),
               doc="a hidden value a >= 0 carried through n copies (any n up to the slot bound)")
PAD_FWD = Pred("boxplus.padding.forward", {**PAD_RUN.variables, "k": _slot, "v": Float()},
               lambda s: [s.k <= s.n, (s.a > 0).implies(s.v.same(s.a)), s.a.is_zero().implies(s.v.is_zero())],
               doc="after k copies the value is a (a zero when a is one)")
PAD_BWD = Pred("boxplus.padding.backward", {**PAD_RUN.variables, "y": Float(finite=True), "k": _slot,
                                            "u": Float()},
               lambda s: [s.k <= s.n, s.k.eq(0).implies(s.u.same(s.y)), (s.a > 0).implies(s.u.same(s.y)),
                          (s.a.is_zero() & (s.k > 0)).implies(s.u.is_zero())],
               doc="the gradient below k copies: the upstream y where a > 0, a zero where a is one (k > 0)")
PAD_OUT = Pred("boxplus.padding.out", {"a": _HIDDEN, "y": Float(finite=True), "u": Float()},
               lambda s: [(s.a > 0).implies(s.u.same(s.y)), s.a.is_zero().implies((s.u * 0).is_zero())],
               doc="what reaches the carried neuron: y where a > 0; where a is a zero, its own ReLU' = 0 "
                   "makes y and u alike a zero (u finite)")


def _copy(s, v, u=None):
    """One padding layer (fpsmt.constructions.relu.padding_layer, one neuron) at v, upstream u."""
    from fpsmt.constructions.relu import padding_layer
    from fpsmt.semantics.network import Network
    net = Network(s.fmt, [padding_layer(s.fmt, 1)])
    out, grad = s.run(net, [v], [u if u is not None else s.const(1)])
    return out[0], grad[0]


def padding_tree(fmt):
    """⊞ pads a shorter atom with copies of its last hidden layer: by induction over the
    number of copies, values are unchanged and gradients too, but for the sign of a zero."""
    fwd = induction(
        "boxplus_neutrality.padding.forward", PAD_FWD, "k", 0, SLOTS,
        stage("boxplus_neutrality.padding.forward.base", {}, PAD_FWD, lambda s: {"k": 0, "v": s.a}, PAD_RUN),
        lambda s: {"v": _copy(s, s.v)[0]}, PAD_FWD, done=lambda s: s.k.eq(s.n),
        doc="forward: relu(1 ⊗ v ⊕ −0) keeps a >= 0")
    bwd = induction(
        "boxplus_neutrality.padding.backward", PAD_BWD, "k", 0, SLOTS,
        stage("boxplus_neutrality.padding.backward.base", {"y": Float(finite=True)}, PAD_BWD,
              lambda s: {"k": 0, "u": s.y}, PAD_RUN),
        # every copy sees the forward value a, or a zero of either sign where a is one
        lambda s: {"u": _copy(s, s.where(s.a > 0, s.a, s.z0), s.u)[1]}, PAD_OUT,
        step_vars={"z0": zero_or_negative_zero()}, done=lambda s: s.k.eq(s.n),
        doc="backward: (u ⊗ ReLU'(1 ⊗ v ⊕ −0)) ⊗ 1, from the top copy down")
    return Node("lemma", "boxplus_neutrality.padding", None, [fwd, bwd],
                doc="padding an atom to the theorem's depth (fpsmt.constructions.relu._padded)")


def build(fmt):
    return tree(fmt), (
        f"for every row of up to {SLOTS} slots: a left-to-right sum starting at -0 (-0 + t = t), of m gradient-atom "
        "pairs (w, -w at x's own, zeros elsewhere) then n zero-gradient-atom terms (v at x's own, zeros elsewhere), "
        "then the bias -0, is v (a zero when v is a zero); a sum of K layer-1 terms, g at one slot and zeros "
        "elsewhere, is g (a zero when no slot is g); a zero times a finite weight is a zero — each by induction "
        "over the terms, with a symbolic running sum")


#: the ⊞ rows the whole-block claims state (``reproduce --semantics``): gradient-atom pairs,
#: then zero-gradient-atom terms, in the theorem network's order
WHOLE_PAIRS, WHOLE_SINGLES = 2, 2


def sum_row(fmt, n):
    """One ⊞ output row of ``n`` terms as one identity layer on them (weights 1: each product
    is its term, exactly, in every format and profile; bias −0, as
    :func:`fpsmt.constructions.relu.boxplus` builds it)."""
    from fpsmt.semantics.network import Layer, Network
    one, neg0 = fmt.round(1), fmt.zero_bits(True)
    return Network(fmt, [Layer(1, n, [0] * n, list(range(n)), [one] * n, [neg0], "identity")])


def _rows(fmt):
    """The output row of WHOLE_PAIRS gradient atoms and WHOLE_SINGLES zero-gradient atoms, as
    one identity layer on its terms (weights 1: each product is its term, exactly, in every
    format and profile; bias −0, as :func:`fpsmt.constructions.relu.boxplus` builds it), and
    the layer-1 gradient sum, as one identity layer of 2·WHOLE_PAIRS + WHOLE_SINGLES rows
    that all read the input (D^AD w.r.t. it sums the rows' upstream ⊗ 1)."""
    from fpsmt.semantics.network import Layer, Network
    n = 2 * WHOLE_PAIRS + WHOLE_SINGLES
    one, neg0 = fmt.round(1), fmt.zero_bits(True)
    value = sum_row(fmt, n)
    grad = Network(fmt, [Layer(n, 1, list(range(n)), [0] * n, [one] * n, [neg0] * n, "identity")])
    return value, grad


def _value_terms(s):
    """The value row's terms: pair k is (w, −w) where jw = k, v sits at single jv; zeros elsewhere."""
    terms = []
    for k in range(WHOLE_PAIRS):
        on = s.jw.eq(k)
        terms += [s.where(on, s.w, s[f"z{2 * k}"]), s.where(on, -s.w, s[f"z{2 * k + 1}"])]
    return terms + [s.where(s.jv.eq(k), s.v, s[f"z{2 * WHOLE_PAIRS + k}"]) for k in range(WHOLE_SINGLES)]


def _grad_ups(s):
    """The layer-1 rows' upstream gradients: g at slot jg, zeros elsewhere."""
    return [s.where(s.jg.eq(k), s.g, s[f"z{k}"]) for k in range(2 * WHOLE_PAIRS + WHOLE_SINGLES)]


def whole(fmt, sem):
    """⊞-neutrality as two claims about concrete ⊞ rows, for any profile (``order=any``: every
    order of the row's terms): the value row is v whatever slot v and the pair (w, −w) take,
    and the gradient sum is g whatever slot g takes."""
    from fpsmt.proof.claims import choice_variables
    from fpsmt.semantics.network import parse_semantics
    sem = parse_semantics(sem)
    value, grad = _rows(fmt)
    n = 2 * WHOLE_PAIRS + WHOLE_SINGLES
    zeros = {f"z{i}": zero_or_negative_zero() for i in range(n)}
    spec = None if sem.is_paper else sem.spec

    def value_goal(s):
        terms = _value_terms(s)
        out, _, hyp = s.chosen_run(value, terms)
        lets(s, out, None)
        has_v = s.jv >= 0
        return [hyp.implies(has_v.implies(zero_or(s, out[0], s.v))), hyp.implies((~has_v).implies(out[0].is_zero()))]

    def grad_goal(s):
        ups = _grad_ups(s)
        out, g, hyp = s.chosen_run(grad, [s.x], ups)
        lets(s, out, g)
        has_g = s.jg >= 0
        return [hyp.implies(has_g.implies(zero_or(s, g[0], s.g))), hyp.implies((~has_g).implies(g[0].is_zero()))]
    fin = Float(finite=True)
    c1 = forall("boxplus_neutrality.whole_value",
                {"w": fin, "v": fin, "jw": Int(-1, WHOLE_PAIRS - 1), "jv": Int(-1, WHOLE_SINGLES - 1), **zeros,
                 **choice_variables(value, sem)}, goal=value_goal, semantics=spec,
                doc="the ⊞ value row: pairs (w, −w) at most once, v at most once, zeros elsewhere")
    c2 = forall("boxplus_neutrality.whole_gradient",
                {"x": fin, "g": fin, "jg": Int(-1, n - 1), **zeros, **choice_variables(grad, sem)},
                goal=grad_goal, semantics=spec,
                doc="the layer-1 gradient sum: g at most once, zeros elsewhere")
    c1.block = lambda s: (value, None, _value_terms(s), None)
    c2.block = lambda s: (grad, None, [s.x], _grad_ups(s))
    return [c1, c2], (
        f"a ⊞ output row of {WHOLE_PAIRS} gradient-atom pairs (w, -w at x's own atom, zeros elsewhere) then "
        f"{WHOLE_SINGLES} zero-gradient-atom terms (v at x's own, zeros elsewhere), bias -0, is v (a zero when v is "
        f"one) for every finite w, v; a layer-1 gradient sum of {n} terms, g at one slot and zeros elsewhere, is g "
        "(a zero when no slot is g), for every finite g")


LEMMA = Lemma("boxplus_neutrality", "paper §3 (f = f2 ⊞ f1; BRIEF §5)", {"released": build, "repaired": build},
              order=90, construction=True, whole=whole)
