"""Point indicator 1[x = z]: the atom of Lemma 3.4's value network and of Lemma 3.5's
gradient network (paper §3; BRIEF §5.1).

released — BRIEF §5.1: ReLU(1[x >= z] − 1[x >= z⁺]) from released step indicators (4 layers).  Its composition divides
by the indicator's AD derivative at x = z, which BRIEF gives as 2^(p − e_z) (2^(p + 1 − e_z)
for a power of two); the statement asks for exactly that, finite.  BRIEF: for tiny z
(|z| < 2^(p − e_max)) it exceeds Ω.  z = 0 is not covered (see zero_indicator).
repaired — fpsmt.construct.point: 1[x >= z] + 1[x <= z] − 1 from the repaired step
indicators (6 layers), any z of X, D^AD = ±0 for every finite y.
"""

from fpsmt import construct as C
from fpsmt.claims import Float, forall
from fpsmt.proofs._common import X, indicator, xdesc
from fpsmt.reproduce import Lemma


def released(fmt):
    def goal(s):
        net, P = C.point(s, s.z, C.RELEASED)
        out, grad = s.run(net, [s.x], [1], params=P)
        d = C.released_point_derivative(s, s.z)
        return [out[0].same(indicator(s, s.x.eq(s.z))),
                s.x.eq(s.z).implies(grad[0].eq(d) & d.is_finite())]
    c = forall("point_indicator.released", {"z": X(nonzero=True), "x": X()}, goal=goal)
    return [c], (f"for all z in {xdesc(fmt)} with z != 0 and all x in X: out = 1[x = z] (1 or +0), and at x = z "
                 "D^AD(1) = 2^(p - e_z) (2^(p + 1 - e_z) for a power of two), finite")


def repaired(fmt):
    def goal(s):
        net, P = C.point(s, s.z, C.REPAIRED)
        out, grad = s.run(net, [s.x], [s.y], params=P)
        return [out[0].same(indicator(s, s.x.eq(s.z))), grad[0].eq(0)]
    c = forall("point_indicator.repaired", {"z": X(), "x": X(), "y": Float(finite=True)}, goal=goal)
    return [c], (f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or +0) "
                 "and D^AD(y) = ±0")


LEMMA = Lemma("point_indicator", "BRIEF §5.1 (Lemma 3.4 / 3.5 atoms)", {"released": released, "repaired": repaired})
