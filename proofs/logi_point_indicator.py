"""Point indicator 1[x = z] of the ``logistic`` family (fpsmt.constructions.logistic.point):
p = σ(2^(T+1) ⊗ u_ge ⊕ 2^(T+1) ⊗ u_le ⊖ 3·2^T) on the two step indicators' {1, 0}: 2^T at
x = z, −2^T elsewhere, both beyond the saturation point; then 1 ⊗ p ⊕ −0.  For all z, x of
X and every finite upstream y: out = 1 at x = z, a zero elsewhere, and D^AD(y) = ±0.

A proof tree (the block as one claim took Bitwuzla 1,801 s in float64 and no second back
end confirmed it):

* ``logi_point_indicator.point`` — the layers up to p (the value atom's first stage,
  :func:`fpsmt.proofs.logi_value_atom.point_stage`): p = 1 at x = z and +0 elsewhere, and
  D^AD = ±0 for every finite upstream u into p;
* ``logi_point_indicator.top`` — the output layer 1 ⊗ p ⊕ −0, decided at p = 1 and p = +0:
  out = 1 at x = z, a zero elsewhere, and the gradient into p (the u of the stage below) is
  finite for every finite y, so the backward pass through both is D^AD = ±0.
"""

from fpsmt.constructions import logistic as LG
from fpsmt.constructions.relu import concrete
from fpsmt.proof.claims import Float
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Pred, sequence, stage
from fpsmt.proofs.common import finite_inside, whole
from fpsmt.proofs.logi_common import TITLE, X, formats, xdesc
from fpsmt.proofs.logi_value_atom import LOGI_POINT, X_DOM, point_stage
from fpsmt.semantics.network import Network


VARIABLES = {"z": X(), "x": X(), "y": Float(finite=True)}


def _one(s):
    net, P = LG.point(s, s.z)
    return net, P, [s.x], [s.y]


def _expect(s, out, grad):
    at = s.x.eq(s.z)
    return [at.implies(out[0].same(1)), (~at).implies(out[0].is_zero()), grad[0].eq(0)]


def _statement(fmt):
    return f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or a zero) and D^AD(y) = ±0"


OUT = Pred("logi.point_indicator.out", {"z": X_DOM, "x": X_DOM, "out": Float()},
           lambda s: [s.x.eq(s.z).implies(s.out.same(1)), (~s.x.eq(s.z)).implies(s.out.is_zero())],
           doc="out = 1 at x = z, a zero elsewhere")


def repaired(fmt):
    def top_run(s):
        net, P = LG.point(s, s.z)
        return s.run(Network(s.fmt, net.layers[-1:]), [s.p], [s.y], params=P, trace=True)

    def top_side(s):
        _, grad, trace = top_run(s)
        return [grad[0].is_finite()] + finite_inside(*trace[1:3])
    point = point_stage("logi_point_indicator.point", lambda s: LG.point(s, s.z))
    top = stage("logi_point_indicator.top", {"y": Float(finite=True)}, OUT, lambda s: {"out": top_run(s)[0][0]},
                LOGI_POINT, side=top_side, cases={"p": [1, 0]})
    return sequence("logi_point_indicator", [point, top], kind="lemma"), (
        _statement(fmt) + "; proved as a tree: the layers up to p (1 at z, +0 elsewhere, D^AD = ±0 for any finite "
        "upstream into p), then the output layer 1 ⊗ p ⊕ −0 at p = 1 and p = +0 (out as stated, a finite gradient "
        "into p for any finite y)")


#: the block as one claim for any semantics profile
WHOLE = whole("logi_point_indicator", VARIABLES, _one, _expect, lambda fmt: concrete(LG.point, fmt, 0), _statement)


LEMMA = Lemma("logi_point_indicator", f"Theorem 3.1's point indicator for a logistic σ {TITLE}",
              {"repaired": repaired}, formats=formats, order=730, family="logistic", construction=True,
              whole=WHOLE)
