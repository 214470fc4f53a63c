"""Claims for the engine's tests: one too hard for a short time limit."""

from fpsmt.proof.claims import Float, forall

sterbenz = forall(
    "sterbenz", {"x": Float(finite=True, sign="+"), "y": Float(finite=True, sign="+")},
    given=lambda s: [s.y * 0.5 <= s.x, s.x <= s.y * 2],
    goal=lambda s: ((s.x - s.y) + s.y).eq(s.x),
    doc="Sterbenz: y/2 <= x <= 2y makes x ⊖ y exact, so (x ⊖ y) ⊕ y = x.  True; in float64 it "
        "takes a bit-blasting solver far longer than a few seconds.")
