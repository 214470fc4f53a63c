"""Point indicator 1[x = z] of the ``logistic`` family (fpsmt.constructions.logistic.point):
p = σ(2^(T+1) ⊗ u_ge ⊕ 2^(T+1) ⊗ u_le ⊖ 3·2^T) on the two step indicators' {1, 0}: 2^T at
x = z, −2^T elsewhere, both beyond the saturation point; then 1 ⊗ p ⊕ −0.  For all z, x of
X and every finite upstream y: out = 1 at x = z, a zero elsewhere, and D^AD(y) = ±0."""

from fpsmt.constructions import logistic as LG
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.logi_common import TITLE, X, formats, xdesc


def repaired(fmt):
    def goal(s):
        net, P = LG.point(s, s.z)
        out, grad = s.run(net, [s.x], [s.y], params=P)
        at = s.x.eq(s.z)
        return [at.implies(out[0].same(1)), (~at).implies(out[0].is_zero()), grad[0].eq(0)]
    c = forall("logi_point_indicator", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
    return [c], f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or a zero) and D^AD(y) = ±0"


LEMMA = Lemma("logi_point_indicator", f"Theorem 3.1's point indicator for a logistic σ {TITLE}",
              {"repaired": repaired}, formats=formats, order=730, family="logistic", construction=True)
