"""Value atom v·1[x = z] of the ``logistic`` family (fpsmt.constructions.logistic.value_atom),
at the depth the theorem's network uses (:func:`fpsmt.constructions.logistic.depth`): the
step indicators, p (carried), the output v ⊗ p.

For all z, x of X, every v with |v| <= V = Ω/H (a power of two) and every upstream
|y| <= H: out = v at x = z (bit for bit; a zero v by either zero), a zero elsewhere, and
D^AD(y) = ±0.  Values above V are sums of such atoms at one z (proofs/logi_theorem_3_1.py).

A proof tree:

* ``logi_value_atom.point`` — the network up to the point indicator's p (every layer σ):
  p is 1 at x = z and +0 elsewhere (LOGI_POINT), and D^AD = ±0 for every finite upstream u;
  besides, every term of D^AD's sum over the first layer is a zero and every hidden value
  and gradient is finite (for the theorem's join);
* ``logi_value_atom.carry`` — the layers that carry p (absent where the atom is at its least
  depth), on p, decided at p = 1 and p = +0 (``cases``): the carried value is p, and the
  gradient into p is finite for every finite upstream u;
* ``logi_value_atom.top`` — the output layer v ⊗ p, decided at p = 1 and p = +0: out as
  stated, its one term v at x = z and a zero elsewhere, and the gradient into p (y ⊗ v) is
  finite — the u of the stages below, so the backward pass through all of them is
  D^AD = ±0.
"""

from fpsmt.constructions import logistic as LG
from fpsmt.constructions.relu import PADDING_MAX
from fpsmt.constructions.registry import show_bound
from fpsmt.proof.claims import Float
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Pred, sequence, stage
from fpsmt.proofs.common import family_value_whole, finite_inside
from fpsmt.proofs.logi_common import TITLE, H, X, formats, xdesc
from fpsmt.proofs.sat_common import value_padding_node, within
from fpsmt.semantics.network import Network

X_DOM = X()
LOGI_POINT = Pred("logi.point", {"z": X_DOM, "x": X_DOM, "p": Float()},
                  lambda s: s.p.same(s.where(s.x.eq(s.z), 1, 0)), doc="p = 1 at x = z, +0 elsewhere")


def point_stage(name, build):
    """The stage ``name``: the layers up to the point indicator's p of the block ``build(s)``
    -> (network, params) (the step indicators, then p; every layer σ), for all z, x of X
    and every finite upstream u into p: p = 1 at x = z and +0 elsewhere (LOGI_POINT), D^AD =
    ±0, every term of D^AD's sum over the first layer a zero and every hidden value and
    gradient finite (for the theorem's join)."""
    def run(s):
        net, P = build(s)
        lower = Network(s.fmt, net.layers[:LG.block_constants(s.fmt).step_depth + 1])
        return s.run(lower, [s.x], [s.u], params=P, trace=True) + (lower, P)

    def side(s):
        _, grad, trace, lower, P = run(s)
        return [grad[0].eq(0)] + [t.is_zero() for t in s.input_terms(lower, P, trace)] + finite_inside(*trace[1:3])
    return stage(name, {"z": X_DOM, "x": X_DOM, "u": Float(finite=True)}, LOGI_POINT,
                 lambda s: {"p": run(s)[0][0]}, side=side)


def V(fmt):
    return LG.piece_bound(fmt, H(fmt))


def repaired(fmt, variant=None):
    """The tree at the depth of the theorem's network (``variant``: with the shallow
    gradient atoms, :func:`shallow`)."""
    kw = {} if variant is None else {"variant": variant}
    c = LG.block_constants(fmt)
    cut = c.step_depth + 1  # the layers up to the point indicator's p

    def atom(s, v):  # the atom at the theorem's depth; its layers' shape does not depend on v
        return LG.value_atom(s, s.z, v, depth=LG.depth(s.fmt, **kw))

    stages = [point_stage("logi_value_atom.point", lambda s: atom(s, s.const(0)))]
    carried = LG.depth(fmt, **kw) > c.value_depth
    if carried:
        stages.append(value_padding_node("logi_value_atom", LG, fmt, kw, LOGI_POINT, ("1", "+0")))

        def carry_run(s):
            net, P = atom(s, s.const(0))
            return s.run(Network(s.fmt, net.layers[cut:-1]), [s.p], [s.u], params=P, trace=True)

        def carry_side(s):
            _, grad, trace = carry_run(s)
            return [grad[0].is_finite()] + finite_inside(*trace[1:3])
        stages.append(stage("logi_value_atom.carry" if variant is None else f"logi_value_atom.{variant}.carry", {"u": Float(finite=True)}, LOGI_POINT,
                            lambda s: {"p": carry_run(s)[0][0]}, LOGI_POINT, side=carry_side, cases={"p": [1, 0]}))

    out_pred = Pred("logi.value_atom.out", {"z": X_DOM, "x": X_DOM, "v": within(V), "out": Float()},
                    lambda s: [s.x.eq(s.z).implies(s.out.same(s.v) | (s.out.is_zero() & s.v.is_zero())),
                               (~s.x.eq(s.z)).implies(s.out.is_zero())],
                    doc="out = v at x = z (a zero v by either zero), a zero elsewhere")

    def top_run(s):
        net, P = atom(s, s.v)
        top = Network(s.fmt, net.layers[-1:])
        return s.run(top, [s.p], [s.y], params=P, trace=True) + (top, P)

    def top_side(s):  # the output term and finiteness, for the theorem's join
        _, grad, trace, top, P = top_run(s)
        (t1,) = s.row_terms(top, 0, "forward", [s.p], P)
        at = s.x.eq(s.z)
        return [grad[0].is_finite(), at.implies(t1.same(s.v) | (t1.is_zero() & s.v.is_zero())),
                (~at).implies(t1.is_zero())] + finite_inside(*trace[1:3])
    top = stage("logi_value_atom.top", {"v": within(V), "y": within(H)}, out_pred, lambda s: {"out": top_run(s)[0][0]},
                LOGI_POINT, side=top_side, cases={"p": [1, 0]})
    return sequence("logi_value_atom", stages + [top], kind="lemma"), (
        f"for all z, x in {xdesc(fmt)}, every v with |v| <= Omega/H = {show_bound(V(fmt))} and every upstream "
        f"|y| <= H = {show_bound(H(fmt))}: out = v at x = z (bit for bit; a zero v by either zero), a zero elsewhere, "
        "and D^AD(y) = ±0; proved as a tree: the point indicator's p (1 at z, +0 elsewhere, D^AD = ±0 for any finite "
        "upstream, every first-layer term of D^AD a zero), its carries at p = 1 and p = +0 (p again, a finite "
        "gradient into p for any finite upstream), then the output layer v ⊗ p at p = 1 and p = +0 (its term v at z, "
        f"a zero elsewhere; a finite gradient into p); depth {LG.depth(fmt, **kw)}"
        + (f", or any depth up to {PADDING_MAX} more (padding: by induction, any number of carries of p keep it "
           "and give a finite gradient for a finite upstream)" if carried else ""))



def shallow(fmt):
    """At the depth of the network with the shallow gradient atoms (the carry stage has fewer
    layers; the point indicator's and the top's stages are the repaired variant's)."""
    return repaired(fmt, "shallow")


#: the atom as one claim about its whole block (at the theorem's depth), for any semantics profile
WHOLE = family_value_whole(
    "logi_value_atom", LG,
    {"z": X(), "x": X(), "v": within(V), "y": within(H)},
    lambda fmt: (
        f"for all z, x in {xdesc(fmt)}, every v with |v| <= Omega/H = {show_bound(V(fmt))} and every "
        f"upstream |y| <= H = {show_bound(H(fmt))}: out = v at x = z (bit for bit; a zero v by either "
        f"zero), a zero elsewhere, and D^AD(y) = ±0 (as one claim about the whole block)"
    ))

LEMMA = Lemma("logi_value_atom", f"Lemma 3.4's atom for a logistic σ {TITLE}",
              {"repaired": repaired, "shallow": shallow}, formats=formats, order=740, family="logistic",
              construction=True, whole=WHOLE)
