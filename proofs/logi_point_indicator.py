"""Point indicator 1[x = z] of the ``logistic`` family (fpsmt.constructions.logistic.point):
p = σ(2^(T+1) ⊗ u_ge ⊕ 2^(T+1) ⊗ u_le ⊖ 3·2^T) on the two step indicators' {1, 0}: 2^T at
x = z, −2^T elsewhere, both beyond the saturation point; then 1 ⊗ p ⊕ −0.  For all z, x of
X and every finite upstream y: out = 1 at x = z, a zero elsewhere, and D^AD(y) = ±0."""

from fpsmt.constructions import logistic as LG
from fpsmt.constructions.relu import concrete
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.common import whole
from fpsmt.proofs.logi_common import TITLE, X, formats, xdesc


VARIABLES = {"z": X(), "x": X(), "y": Float(finite=True)}


def _one(s):
    net, P = LG.point(s, s.z)
    return net, P, [s.x], [s.y]


def _expect(s, out, grad):
    at = s.x.eq(s.z)
    return [at.implies(out[0].same(1)), (~at).implies(out[0].is_zero()), grad[0].eq(0)]


def _statement(fmt):
    return f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or a zero) and D^AD(y) = ±0"


def repaired(fmt):
    def goal(s):
        net, P, xs, ys = _one(s)
        return _expect(s, *s.run(net, xs, ys, params=P))
    return [forall("logi_point_indicator", VARIABLES, goal=goal)], _statement(fmt)


#: the block as one claim for any semantics profile (the repaired claim is one already)
WHOLE = whole("logi_point_indicator", VARIABLES, _one, _expect, lambda fmt: concrete(LG.point, fmt, 0), _statement)


LEMMA = Lemma("logi_point_indicator", f"Theorem 3.1's point indicator for a logistic σ {TITLE}",
              {"repaired": repaired}, formats=formats, order=730, family="logistic", construction=True,
              whole=WHOLE)
