"""The Theorem 3.1 join shared by the construction families whose networks are
:func:`fpsmt.constructions.saturating.atoms_network`: gradient atoms first, then the value
atoms of the pieces of each f*, one output row (bias −0), every hidden layer σ.

Statement (a family's ``<family>_theorem_3_1`` row).  Let D ⊆ X = [−M_σ, M_σ] be a set of
floats (distinct as numbers), f*: D → finite floats, h*: D → floats with |h*| <= H_σ,
g*: D → finite floats with h*(x) = 0 ⇒ g*(x) = 0.  The family's ``theorem_network`` — a
gradient atom GA(z, h*(z), g*(z)) for every z with g*(z) ≠ 0, then a value atom VA(z, a)
for every piece a of every nonzero f*(z) (pieces of at most the family's V, whose
left-to-right sum is f*(z)), all at the family's ``depth``, one output row — has f(x) =
f*(x) (a zero target met by +0 or −0) and D^AD_(f,x)(h*(x)) = g*(x) at every x of D.

The tree: the two atoms' lemmas (each states, besides its value and gradient, its output
terms, its first-layer gradient terms and that its hidden values and gradients are
finite), ``pieces`` below, layer 1's gradient induction (``boxplus_neutrality.gradient``;
``.start``: a sum is the sum started from −0; ``.times``: +0 times a finite value is a
zero) and ``approx.congruence`` over σ and the identity.  The facts the argument takes from
the code are tested (tests/test_family_theorem.py).

The argument.
At an input x of the domain D, the output row is a left-to-right sum over the atoms'
output terms, in the atoms' order:

* every gradient atom adds its terms (t1, t2) with t1 ⊕ t2 a zero (its lemma, at its z
  and elsewhere); they all come before any value atom, so the running sum is a zero there;
* every value atom of another point adds zeros (its lemma, elsewhere);
* x's own value atoms (those at z = x: one per piece, or, when every f* is zero, the one
  atom of value +0 the builder adds at the first point — a piece +0 of its own point),
  consecutive (the pieces a_1, …, a_k of f*(x), whose left-to-right
  float sum is f*(x): :func:`fpsmt.constructions.saturating.pieces` stops only when its
  exactly rounded running sum is f*(x)), add terms whose own sum is ≈ a_1 for the first,
  and (a_i, a zero) for every later one (two terms per value atom, the rectifying family:
  its value atom's lemma states (a, a zero) for every |a| >= L, and the network builder
  refuses a later piece below L; one term, the saturating family: a_i itself).

``pieces`` is an induction over the slots with a symbolic running sum r and a symbolic sum
q of x's pieces so far: r ≈ q (the same float, or both zeros), and r a zero and q = −0 up to
x's first piece.  Its conclusion: r ⊕ (−0) (the bias) ≈ q, so f(x) ≈ f*(x).  The row has
no absent entries (every last hidden neuron of every atom has an output weight: tested),
so the sum is exactly this fold.

Layer 1's gradient w.r.t. x is the left-to-right sum over every first-layer neuron's term
(every first-layer neuron reads x: tested): zeros, and at x's own gradient atom one term g
(its lemma) — ``boxplus_neutrality.gradient``.  A family whose g* may need three atoms at one
point (the logistic family: ``theorem_row(split=…)`` names the lemma that the parts a, a, b
sum to g* and that each atom's lemma holds of its part) uses ``split_gradient`` instead:
zeros, and g from one atom or a, a, b from three, in that order.  The hidden layers between are the atoms side by
side in a dense network: ``approx.congruence`` (each atom computes what it computes alone,
up to the signs of zeros, given that every atom's hidden values and gradients are finite:
its lemma states them)."""

from fpsmt.proof.approx import SLOTS, approx
from fpsmt.proof.claims import Float, Int
from fpsmt.proof.tree import Pred, induction, stage

_slot = Int(0, SLOTS)

PIECE_ROW = Pred("pieces.row", {"m": _slot, "n": _slot, "jv": _slot, "k": _slot},
                 lambda s: [s.m <= s.jv, s.jv + s.k <= s.m + s.n, s.m + s.n <= SLOTS],
                 doc="m gradient-atom slots, then n value-atom slots; x's own pieces at slots jv … jv+k−1")
PIECE_INV = Pred("pieces.invariant", {**PIECE_ROW.variables, "j": _slot, "r": Float(), "q": Float()},
                 lambda s: [PIECE_ROW.holds(s), s.j <= s.m + s.n, approx(s.r, s.q),
                            (s.j <= s.jv).implies(s.q.same(-s.const(0)) & s.r.is_zero())],
                 doc="after j slots: the row's sum r ≈ q, the sum of x's pieces so far (−0 before the first)")
PIECE_OUT = Pred("pieces.out", {"r": Float(), "q": Float()}, lambda s: approx(s.r + (-s.const(0)), s.q),
                 doc="r ⊕ (−0), the row with its bias, ≈ q")


def pieces_node(name, two_terms, later_exact=True):
    """The output row's induction; ``two_terms``: a value atom has two output terms (else
    one).  ``later_exact=False`` drops the hypothesis that a later piece's terms are
    (a, a zero) — the step is then refuted (tests/test_family_theorem.py): r ⊕ t1 ⊕ t2 need not
    be r ⊕ (t1 ⊕ t2)."""

    def parts(s):
        ga = s.j < s.m
        mine = (s.jv <= s.j) & (s.j < s.jv + s.k)
        return ga, mine, s.j.eq(s.jv)

    def given(s):
        ga, mine, first = parts(s)
        if two_terms:
            own = [(mine & first).implies(approx(s.t1 + s.t2, s.a)),
                   (mine & ~first).implies(s.t1.same(s.a) & s.t2.is_zero() if later_exact
                                           else approx(s.t1 + s.t2, s.a)),
                   (~mine).implies(s.t1.is_zero() & s.t2.is_zero())]
        else:
            own = [mine.implies(s.t1.same(s.a)), (~mine).implies(s.t1.is_zero())]
        return [ga.implies((s.t1 + s.t2).is_zero())] + [(~ga).implies(c) for c in own]

    def step(s):
        ga, mine, _ = parts(s)
        value = (s.r + s.t1) + s.t2 if two_terms else s.r + s.t1
        return {"r": s.where(ga, (s.r + s.t1) + s.t2, value), "q": s.where(~ga & mine, s.q + s.a, s.q)}
    # the step by the term's kind: a gradient atom's pair, another point's zeros, x's first piece
    # (the running sums then constants: r = +0 or −0, q = −0, by the invariant), a later piece.
    # One claim over every kind stalls in float64 (Bitwuzla alone answered, at 1,800 s, no second
    # back end); each kind alone is one branch of the step.
    def first(sign):
        return lambda s: (~parts(s)[0] & parts(s)[1] & parts(s)[2] & s.r.same(s.const(0) if sign > 0 else -s.const(0))
                          & s.q.same(-s.const(0)))
    cases = [lambda s: parts(s)[0], lambda s: ~parts(s)[0] & ~parts(s)[1], first(1), first(-1),
             lambda s: ~parts(s)[0] & parts(s)[1] & ~parts(s)[2]]
    return induction(
        f"{name}.pieces", PIECE_INV, "j", 0, SLOTS,
        stage(f"{name}.pieces.base", {}, PIECE_INV, lambda s: {"j": 0, "r": -s.const(0), "q": -s.const(0)}, PIECE_ROW),
        step, PIECE_OUT, step_vars={"t1": Float(), "t2": Float(), "a": Float()}, step_given=given,
        done=lambda s: s.j.eq(s.m + s.n), step_cases=cases,
        doc="the output row over the atoms' terms (gradient atoms' pairs summing to a zero, other points' value "
            "atoms' zeros, x's pieces), then the bias −0: ≈ the sum of x's pieces")


def split_gradient_node(name="split_gradient", exact=True):
    """Layer 1's gradient w.r.t. x when x's g* may be given by three gradient atoms (a, a, b,
    the logistic family's split: proofs/logi_gradient_split.py) instead of one: K terms,
    zeros but for g at one slot, or a, a, b at three slots in that order; they sum to g.
    ``exact=False`` drops the hypothesis (a ⊕ a) ⊕ b = g: the step is then refuted (a test)."""
    from fpsmt.proofs.common import zero
    ints = {"K": _slot, "j1": Int(-1, SLOTS), "j2": _slot, "j3": _slot, "three": Int(0, 1)}
    floats = {"g": Float(finite=True, nonzero=True), "a": Float(), "b": Float()}

    def row(s):
        three = [s.j1 >= 0, s.j1 < s.j2, s.j2 < s.j3, s.j3 < s.K, ~s.a.is_zero(), ~s.b.is_zero()]
        if exact:
            three.append(((s.a + s.a) + s.b).same(s.g))
        return [s.j1 < s.K, s.three.eq(1).implies(s.all(*three))]
    ROW = Pred(f"{name}.row", {**ints, **floats}, row,
               doc="K layer-1 terms: g at slot j1 (or none: j1 = -1), zeros elsewhere; or (three = 1) a, a, b at "
                   "slots j1 < j2 < j3 with (a ⊕ a) ⊕ b = g, a and b nonzero")
    INV = Pred(f"{name}.invariant", {**ROW.variables, "j": _slot, "r": Float()},
               lambda s: [ROW.holds(s), s.j <= s.K,
                          ((s.j1 < 0) | (s.j <= s.j1)).implies(s.r.is_zero()),
                          (s.three.eq(0) & (s.j1 >= 0) & (s.j > s.j1)).implies(s.r.same(s.g)),
                          (s.three.eq(1) & (s.j > s.j1) & (s.j <= s.j2)).implies(s.r.same(s.a)),
                          (s.three.eq(1) & (s.j > s.j2) & (s.j <= s.j3)).implies(s.r.same(s.a + s.a)),
                          (s.three.eq(1) & (s.j > s.j3)).implies(s.r.same(s.g))],
               doc="after j terms: a zero up to the first part, then the parts' running sum (g, or a, a ⊕ a, g)")
    OUT = Pred(f"{name}.out", {"r": Float(), "j1": Int(-1, SLOTS), "g": Float(finite=True, nonzero=True)},
               lambda s: [(s.j1 >= 0).implies(s.r.same(s.g)), (s.j1 < 0).implies(s.r.is_zero())],
               doc="the sum is g, or a zero when no term is a part of g")

    def term(s):
        part = s.where(s.j.eq(s.j1), s.a, s.where(s.j.eq(s.j2), s.a, s.b))
        mine = s.j.eq(s.j1) | (s.three.eq(1) & (s.j.eq(s.j2) | s.j.eq(s.j3)))
        return s.where(mine, s.where(s.three.eq(1), part, s.g), s.z0)
    return induction(
        name, INV, "j", 0, SLOTS,
        stage(f"{name}.base", {}, INV, lambda s: {"j": 0, "r": -s.const(0)}, ROW),
        lambda s: {"r": s.r + term(s)}, OUT, step_vars={"z0": zero()}, done=lambda s: s.j.eq(s.K),
        doc="layer 1's gradient w.r.t. x: the left-to-right sum of every first-layer neuron's term, x's g* from "
            "one atom or three")


def padded():
    """What a family's theorem statement says of padding (``construct --depth``): every depth
    up to PADDING_MAX above the least (the atoms' trees cover their padded layers)."""
    from fpsmt.constructions.relu import PADDING_MAX
    return (f", or any depth up to {PADDING_MAX} more: the gradient atoms' chains begin with weights 1, the value "
            "atoms carry longer, both covered by the atoms' inductions")


def theorem_row(name, atoms, two_terms, fam, builder, split=None, variant="repaired"):
    """A family's Theorem 3.1 row (its repaired variant, or ``variant``: the atoms' lemmas
    in that variant, the network at its depth): ``atoms`` = (value atom lemma, gradient atom
    lemma), ``fam`` its :class:`fpsmt.proofs.sat_common.Family`, ``builder`` the dotted name
    of its ``theorem_network`` (for the statement)."""
    from fpsmt.constructions.registry import show_bound
    from fpsmt.proof import approx as AP
    from fpsmt.proof.lemmas import load, tree_node
    from fpsmt.proof.tree import Node
    from fpsmt.proofs import boxplus_neutrality as B

    def repaired(fmt):
        # the atoms in ``variant``; the split's one claim is about g and z, not a network
        parts = [tree_node(a, load(a).build(variant, fmt)[0]) for a in atoms]
        if split:
            parts.append(tree_node(split, load(split).build("repaired", fmt)[0]))
        gradient = split_gradient_node() if split else B.gradient_node()
        tree = Node("lemma", name, None,
                    parts + [B.start_node(), pieces_node(name, two_terms), gradient, B.times_node(),
                             AP.congruence_tree([fam.activation(), "identity"])],
                    doc="the atoms' lemmas, the output row's and layer 1's inductions, and approx.congruence")
        return tree, (
            f"for every domain D of distinct floats in {fam.xdesc(fmt)}, every finite f*, every h* with |h*| <= "
            f"{show_bound(fam.H(fmt))} and every finite g* with g* = 0 where h* = 0: the network of {builder}"
            f"{'' if variant == 'repaired' else f' (variant={variant!r})'} (depth "
            f"{fam.blocks.depth(fmt, **({} if variant == 'repaired' else {'variant': variant}))}"
            f"{padded()}) has f(x) = f*(x) and D^AD(h*(x)) = g*(x) at every x of D (a zero target met by "
            "+0 or -0); proved as the atoms' lemmas, the output row's and layer 1's inductions and the atoms' "
            "congruence beside each other, joined by the argument in proofs/family_theorem.py")
    return repaired
