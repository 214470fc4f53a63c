"""The indicator of z = 0, 1[x = 0] (x = −0 included): z = 0 lies in X but BRIEF §5.1's
released formulas need a_z and e_z, which 0 does not have.

released — the released point-indicator formulas evaluated at z = +0 as they stand
(exponent field e_min, significand 0): what the released maths computes there.
repaired — fpsmt.constructions.relu.point at z = +0 (z = 0 is an ordinary z of the repaired step
indicators: z⁻ = −ω, d = ω); D^AD = ±0 for every finite y; proved by the point
indicator's stages.
"""

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, forall
from fpsmt.proofs.common import FINITE, X, indicator, steps_and_top, whole, xdesc
from fpsmt.proof.lemmas import Lemma


def _lemma(variant):
    def build(fmt):
        def goal(s):
            net, P = C.point(s, s.const(0), variant)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            want = [out[0].same(indicator(s, s.x.eq(0)))]
            return want + ([grad[0].eq(0)] if variant == C.REPAIRED else [])
        c = forall(f"zero_indicator.{variant}", {"x": X(), "y": Float(finite=True)}, goal=goal)
        extra = " and D^AD(y) = ±0" if variant == C.REPAIRED else ""
        return [c], f"for all x in {xdesc(fmt)} and every finite upstream y: out = 1[x = 0] (1 or +0){extra}"
    return build


def repaired(fmt):
    """Staged as the point indicator (the step lemmas hold for every z, z = 0 included)."""
    from fpsmt.proofs.point_indicator import CASES, top
    return steps_and_top(fmt, "point_indicator", top, CASES), (
        f"for all x in {xdesc(fmt)} and every finite upstream y: out = 1[x = 0] (1 or +0) and D^AD(y) = ±0; "
        "proved as the point indicator's stages (the step indicators hold for every z of X, z = 0 included)")


def _one(s):
    net, P = C.point(s, s.const(0), C.REPAIRED)
    return net, P, [s.x], [s.y]


WHOLE = whole("zero_indicator", {"x": X(), "y": FINITE}, _one,
              lambda s, out, grad: [out[0].same(indicator(s, s.x.eq(0))), grad[0].eq(0)],
              lambda fmt: C.concrete(C.point, fmt, 0),
              lambda fmt: f"for all x in {xdesc(fmt)} and every finite upstream y: out = 1[x = 0] (1 or +0) and "
                          "D^AD(y) = ±0")

LEMMA = Lemma("zero_indicator", "BRIEF §5.1 (z = 0 is in X)", {"released": _lemma(C.RELEASED), "repaired": repaired},
              order=30, whole=WHOLE)
