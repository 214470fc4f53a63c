"""Point indicator 1[x = z] of the ``saturating`` family (fpsmt.constructions.saturating.point):
p = σ(2^T ⊗ u_ge ⊕ 2^T ⊗ u_le ⊖ 2^T) on the two step indicators' ±1, which is 2^T at
x = z and −2^T elsewhere, both beyond the saturation point; then 0.5 ⊗ p ⊕ 0.5.  For all
z, x of X and every finite upstream y: out = 1[x = z] (1 or +0) and D^AD(y) = ±0."""

from fpsmt.constructions import saturating as S
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.sat_common import X, formats, indicator, xdesc


def repaired(fmt):
    def goal(s):
        net, P = S.point(s, s.z)
        out, grad = s.run(net, [s.x], [s.y], params=P)
        return [out[0].same(indicator(s, s.x.eq(s.z))), grad[0].eq(0)]
    c = forall("sat_point_indicator", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
    return [c], f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or +0) and D^AD(y) = ±0"


LEMMA = Lemma("sat_point_indicator", "Theorem 3.1's point indicator for a saturating σ (BRIEF §9, reconstructed)",
              {"repaired": repaired}, formats=formats, order=530, family="saturating", construction=True)
