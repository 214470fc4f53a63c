"""Point indicator 1[x = z]: the atom of Lemma 3.4's value network and of Lemma 3.5's
gradient network (paper §3; BRIEF §5.1).

released — BRIEF §5.1: ReLU(1[x >= z] − 1[x >= z⁺]) from released step indicators (4 layers).  Its composition divides
by the indicator's AD derivative at x = z, which BRIEF gives as 2^(p − e_z) (2^(p + 1 − e_z)
for a power of two); the statement asks for exactly that, finite.  BRIEF: for tiny z
(|z| < 2^(p − e_max)) it exceeds Ω.  z = 0 is not covered (see zero_indicator).
repaired — fpsmt.constructions.relu.point: 1[x >= z] + 1[x <= z] − 1 from the repaired step
indicators (6 layers), any z of X, D^AD = ±0 for every finite y.  Proved in stages: the
step-indicator lemmas and the last layer on the pairs (1, 1) at x = z, (0, 1) below and
(1, 0) above (the step lemmas fix which pair each x gives), joined at layer 1 by
boxplus_neutrality's ``gradient`` induction (two zero terms) (the gradient w.r.t. x sums the two blocks' ±0).
"""

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import forall
from fpsmt.semantics.network import Network
from fpsmt.proofs.common import FINITE, X, indicator, steps_and_top, whole, xdesc
from fpsmt.proof.lemmas import Lemma


def released(fmt):
    def goal(s):
        net, P = C.point(s, s.z, C.RELEASED)
        out, grad = s.run(net, [s.x], [1], params=P)
        d = C.released_point_derivative(s, s.z)
        return [out[0].same(indicator(s, s.x.eq(s.z))),
                s.x.eq(s.z).implies(grad[0].eq(d) & d.is_finite())]
    c = forall("point_indicator.released", {"z": X(nonzero=True), "x": X()}, goal=goal)
    # Candidate breaks (they only steer the search): the smallest subnormal (BRIEF: tiny z),
    # and the largest float below 2 (found here in bfloat16: value 1, but D^AD 0 at z).
    below_two = fmt.next_down(fmt.round(2))
    hints = [{"z": 1, "x": 1}, {"z": below_two, "x": below_two}]
    return [c], (f"for all z in {xdesc(fmt)} with z != 0 and all x in X: out = 1[x = z] (1 or +0), and at x = z "
                 "D^AD(1) = 2^(p - e_z) (2^(p + 1 - e_z) for a power of two), finite"), {c.name: hints}


def top(s):
    net, P = C.point(s, s.const(1), C.REPAIRED)  # the last layer does not depend on z
    return Network(s.fmt, net.layers[5:]), P


CASES = {(1, 1): lambda s, out: [out[0].same(1)], (0, 1): lambda s, out: [out[0].same(0)],
         (1, 0): lambda s, out: [out[0].same(0)]}


def repaired(fmt):
    return steps_and_top(fmt, "point_indicator", top, CASES), (
        f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or +0) and D^AD(y) = ±0; "
        "proved as a tree: the step indicators 1[x >= z], 1[x <= z] (exact 0/1, D^AD = ±0 for every finite "
        "upstream), a join to their pair, and the last layer 1[x >= z] + 1[x <= z] - 1 on that pair")


def _one(s):
    net, P = C.point(s, s.z, C.REPAIRED)
    return net, P, [s.x], [s.y]


WHOLE = whole("point_indicator", {"z": X(), "x": X(), "y": FINITE}, _one,
              lambda s, out, grad: [out[0].same(indicator(s, s.x.eq(s.z))), grad[0].eq(0)],
              lambda fmt: C.concrete(C.point, fmt, 0),
              lambda fmt: f"for all z, x in {xdesc(fmt)} and every finite upstream y: out = 1[x = z] (1 or +0) and "
                          "D^AD(y) = ±0")

LEMMA = Lemma("point_indicator", "BRIEF §5.1 (Lemma 3.4 / 3.5 atoms)", {"released": released, "repaired": repaired},
              order=40, construction=True, whole=WHOLE)
