"""Example claims, each decided per format by `fpsmt prove examples/claims.py --format F`.

Read the shapes as they are stated: `exists` finds a witness, `forall` proves
(or refutes with a counterexample), `exists_forall` runs the counterexample-guided loop.
"""

from fpsmt.proof.claims import Float, exists, exists_forall, forall

assoc_witness = exists(
    "assoc_witness",
    {"a": Float(finite=True), "b": Float(finite=True), "c": Float(finite=True)},
    such_that=lambda s: [((s.a * s.b) * s.c).is_finite(), (s.a * (s.b * s.c)).is_finite(),
                         ((s.a * s.b) * s.c).ne(s.a * (s.b * s.c))],
    doc="∃ finite a, b, c: (a⊗b)⊗c ≠ a⊗(b⊗c), both sides finite. Expected: PROVED.")

mul_one_identity = forall(
    "mul_one_identity",
    {"x": Float(finite=True)},
    goal=lambda s: (s.x * 1).same(s.x),
    doc="∀ finite x: x⊗1 = x, bit for bit (−0 included). Expected: PROVED.")

mul_assoc = forall(
    "mul_assoc",
    {"a": Float(finite=True), "b": Float(finite=True), "c": Float(finite=True)},
    goal=lambda s: ((s.a * s.b) * s.c).eq(s.a * (s.b * s.c)),
    doc="∀ finite a, b, c: (a⊗b)⊗c = a⊗(b⊗c). Expected: REFUTED with a counterexample.")

add_exact_small = exists_forall(
    "add_exact_small",
    {"d": Float(finite=True, nonzero=True)},
    {"x": Float(range=(1, 2))},
    goal=lambda s: [((s.x + s.d) - s.d).eq(s.x), (s.x + s.d).ne(s.x)],
    doc="∃ d ≠ 0 such that ∀ x in [1, 2]: x ⊕ d differs from x and (x ⊕ d) ⊖ d = x "
        "(d = −2^−M is one such). Needs the ∃∀ loop. Expected: PROVED.")
