"""A lemma proved in stages: `stage` for every x, then `chain` from two instances of it."""

from fpsmt.proof.claims import Float, Int, exists, exists_forall, forall

stage = forall(
    "stage", {"x": Float(finite=True)},
    goal=lambda s: (s.x * 1).same(s.x))

chain = forall(
    "chain", {"x": Float(finite=True)},
    given=lambda s: [s.instance("stage", x=s.x), s.instance("stage", x=s.x * 1)],
    goal=lambda s: ((s.x * 1) * 1).same(s.x),
    assumes=["stage"])

no_neutral = exists_forall(
    "no_neutral", {"d": Float(finite=True, nonzero=True)}, {"x": Float(finite=True)},
    goal=lambda s: (s.x + s.d).same(s.x),
    doc="∃ d ≠ 0 with x ⊕ d = x for every finite x: false (x = 0), so REFUTED.")

pow2_inverse = exists(
    "pow2_inverse", {"k": Int(-20, 20)},
    such_that=lambda s: [~s.k.eq(0), (s.k.pow2() * (-s.k).pow2()).eq(1)])

pow2_normal = forall(
    "pow2_normal", {"k": Int(lambda f: f.e_min, lambda f: f.e_max)},
    goal=lambda s: s.k.pow2().is_normal() & (s.k.pow2() > 0))

pow2_subnormal_or_zero = forall(
    "pow2_subnormal_or_zero", {"k": Int(-200, lambda f: f.e_min - 1)},
    goal=lambda s: s.k.pow2().is_subnormal() | s.k.pow2().is_zero(),
    doc="Below e_min, 2^k is subnormal or (below e_min − M − 1) zero.")
