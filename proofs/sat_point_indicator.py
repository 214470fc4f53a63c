"""Point indicator 1[x = z] of the ``saturating`` family (fpsmt.constructions.saturating.point):
p = σ(2^T ⊗ u_ge ⊕ 2^T ⊗ u_le ⊖ 2^T) on the two step indicators' ±1, which is 2^T at
x = z and −2^T elsewhere, both beyond the saturation point; then 0.5 ⊗ p ⊕ 0.5.  For all
z, x of X and every finite upstream y: out = 1[x = z] (1 or +0) and D^AD(y) = ±0."""

from fpsmt.constructions import saturating as S
from fpsmt.constructions.relu import concrete
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.common import whole
from fpsmt.proofs.sat_common import X, formats, indicator, xdesc


VARIABLES = {"z": X(), "x": X(), "y": Float(finite=True)}


def _one(s):
    net, P = S.point(s, s.z)
    return net, P, [s.x], [s.y]


def _expect(s, out, grad):
    return [out[0].same(indicator(s, s.x.eq(s.z))), grad[0].eq(0)]


def _statement(fmt):
    return f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or +0) and D^AD(y) = ±0"


def repaired(fmt):
    def goal(s):
        net, P, xs, ys = _one(s)
        return _expect(s, *s.run(net, xs, ys, params=P))
    return [forall("sat_point_indicator", VARIABLES, goal=goal)], _statement(fmt)


#: the block as one claim for any semantics profile (the repaired claim is one already)
WHOLE = whole("sat_point_indicator", VARIABLES, _one, _expect, lambda fmt: concrete(S.point, fmt, 0), _statement)


LEMMA = Lemma("sat_point_indicator", "Theorem 3.1's point indicator for a saturating σ (BRIEF §9, reconstructed)",
              {"repaired": repaired}, formats=formats, order=530, family="saturating", construction=True,
              whole=WHOLE)
