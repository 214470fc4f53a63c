"""Value atom v·1[x = z] of the ``saturating`` family (fpsmt.constructions.saturating.value_atom),
at the depth the theorem's network uses (:func:`fpsmt.constructions.saturating.depth`):
the step indicators and the point indicator's p, carried, in n copies; then
q = σ(W ⊗ p_1 ⊕ … ⊕ W ⊗ p_n ⊕ n·W), n·W = 2^(T−1) (1 at x = z, +0 elsewhere) and the
output v ⊗ q.

For all z, x of X, every v with |v| <= V = Ω/(H·W) (a power of two,
fpsmt.constructions.saturating.piece_bound) and every upstream |y| <= H: out = v at x = z
(bit for bit), a zero elsewhere, and D^AD(y) = ±0.  Values above V are sums of such atoms
at one z; their sums are verified per network by ``construct``, not stated here.

A proof tree:

* ``sat_value_atom.point`` — the network up to the point indicator's p (every layer σ):
  p is 1 at x = z and −1 elsewhere (SAT_POINT), and D^AD = ±0 for every finite upstream u;
* ``sat_value_atom.carry`` — the layers that carry p and copy it, on p, decided at p = 1
  and p = −1 (``cases``): every copy is p, and the gradient into p is finite for every
  finite upstream u given to all copies alike (where the atom is at its least depth, p
  is made in copies and this stage is absent: the first stage has the copies);
* ``sat_value_atom.top`` — the last two layers on (p, …, p), decided at p = 1 and p = −1
  (``cases``; SAT_POINT allows no other value): out as stated, and the gradients it sends
  into the copies are one finite value, all alike — the u of the stage below, so the
  backward pass through both is D^AD = ±0.
"""

from fpsmt.constructions import saturating as S
from fpsmt.constructions.relu import PADDING_MAX
from fpsmt.proof.claims import Float
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Pred, sequence, stage
from fpsmt.proofs.common import family_value_whole, finite_inside
from fpsmt.proofs.sat_common import H, X, formats, value_padding_node, within, xdesc
from fpsmt.semantics.network import Network

X_DOM = X()
SAT_POINT = Pred("sat.point", {"z": X_DOM, "x": X_DOM, "p": Float()},
                 lambda s: s.p.same(s.where(s.x.eq(s.z), 1, -1)), doc="p = 1 at x = z, −1 elsewhere")


def V(fmt):
    return S.piece_bound(fmt, H(fmt))



def repaired(fmt, variant=None):
    """The tree at the depth of the theorem's network (``variant``: with the shallow
    gradient atoms, :func:`shallow`)."""
    kw = {} if variant is None else {"variant": variant}
    c = S.block_constants(fmt)
    n = c.fan
    cut = c.step_depth + 1  # the layers up to the point indicator's p (one neuron when p is carried)

    def atom(s, v):  # the atom at the theorem's depth; its layers' shape does not depend on v
        return S.value_atom(s, s.z, v, depth=S.depth(s.fmt, **kw))
    carried = S.depth(fmt, **kw) > c.value_depth  # p is carried, then copied (at the theorem's depth)

    def point_run(s):
        net, P = atom(s, s.const(0))
        lower = Network(s.fmt, net.layers[:cut] if carried else net.layers[:-2])
        return s.run(lower, [s.x], [s.u] * (1 if carried else n), params=P, trace=True) + (lower, P)

    def point_side(s):  # with the first-layer terms of D^AD and finiteness, for the theorem's join
        out, grad, trace, lower, P = point_run(s)
        return [o.same(out[0]) for o in out[1:]] + [grad[0].eq(0)] \
            + [t.is_zero() for t in s.input_terms(lower, P, trace)] + finite_inside(*trace[1:3])
    stages = [stage("sat_value_atom.point", {"z": X_DOM, "x": X_DOM, "u": Float(finite=True)}, SAT_POINT,
                    lambda s: {"p": point_run(s)[0][0]}, side=point_side)]
    if carried:
        def carry_run(s):
            net, P = atom(s, s.const(0))
            return s.run(Network(s.fmt, net.layers[cut:-2]), [s.p], [s.u] * n, params=P, trace=True)

        def carry_side(s):
            out, grad, trace = carry_run(s)
            return [o.same(out[0]) for o in out[1:]] + [grad[0].is_finite()] + finite_inside(*trace[1:3])
        stages.append(value_padding_node("sat_value_atom", S, fmt, kw, SAT_POINT, ("1", "-1")))
        stages.append(stage("sat_value_atom.carry" if variant is None else f"sat_value_atom.{variant}.carry", {"u": Float(finite=True)}, SAT_POINT,
                            lambda s: {"p": carry_run(s)[0][0]}, SAT_POINT, side=carry_side, cases={"p": [1, -1]}))

    out_pred = Pred("sat.value_atom.out", {"z": X_DOM, "x": X_DOM, "v": within(V), "out": Float()},
                    lambda s: [s.x.eq(s.z).implies(s.out.same(s.v)), (~s.x.eq(s.z)).implies(s.out.is_zero())],
                    doc="out = v at x = z, a zero elsewhere")

    def top_run(s):
        net, P = atom(s, s.v)
        top = Network(s.fmt, net.layers[-2:])
        return s.run(top, [s.p] * n, [s.y], params=P, trace=True) + (top, P)

    def top_side(s):  # with the output term (v at z, a zero elsewhere) and finiteness, for the theorem's join
        _, grad, trace, top, P = top_run(s)
        (t1,) = s.row_terms(top, 1, "forward", trace[1][0], P)
        return [g.same(grad[0]) for g in grad[1:]] + [grad[0].is_finite(), s.x.eq(s.z).implies(t1.same(s.v)),
                                                       (~s.x.eq(s.z)).implies(t1.is_zero())] \
            + finite_inside(*trace[1:3])
    top = stage("sat_value_atom.top", {"v": within(V), "y": within(H)}, out_pred, lambda s: {"out": top_run(s)[0][0]},
                SAT_POINT, side=top_side, cases={"p": [1, -1]})
    return sequence("sat_value_atom", stages + [top], kind="lemma"), (
        f"for all z, x in {xdesc(fmt)}, every v with |v| <= Omega/(H*W) = {S.show_bound(V(fmt))} and every upstream "
        f"|y| <= H = {S.show_bound(H(fmt))}: out = v at x = z (bit for bit), ±0 elsewhere, and D^AD(y) = ±0; "
        "proved as a tree: the point indicator's p (1 at z, -1 elsewhere, D^AD = ±0 for any finite upstream), "
        "its carries into copies at p = 1 and p = -1 (copies equal to p, a finite gradient into p for any finite "
        f"upstream alike on all), then the last two layers at p = 1 and p = -1; depth {S.depth(fmt, **kw)}"
        + (f", or any depth up to {PADDING_MAX} more (padding: by induction, any number of carries of p keep it "
           "and give a finite gradient for a finite upstream)" if carried else ""))



def shallow(fmt):
    """At the depth of the network with the shallow gradient atoms (the carry stage has fewer
    layers; the point indicator's and the top's stages are the repaired variant's)."""
    return repaired(fmt, "shallow")


#: the atom as one claim about its whole block (at the theorem's depth), for any semantics profile
WHOLE = family_value_whole(
    "sat_value_atom", S,
    {"z": X(), "x": X(), "v": within(V), "y": within(H)},
    lambda fmt: (
        f"for all z, x in {xdesc(fmt)}, every v with |v| <= Omega/(H*W) = {S.show_bound(V(fmt))} and "
        f"every upstream |y| <= H = {S.show_bound(H(fmt))}: out = v at x = z (bit for bit), ±0 elsewhere, "
        f"and D^AD(y) = ±0 (as one claim about the whole block)"
    ), zero_v=False)

LEMMA = Lemma("sat_value_atom", "Lemma 3.4's atom for a saturating σ (BRIEF §9, reconstructed)",
              {"repaired": repaired, "shallow": shallow}, formats=formats, order=540, family="saturating", construction=True, whole=WHOLE)
