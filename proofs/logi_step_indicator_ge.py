"""Step indicator 1[x >= z] of the ``logistic`` family (fpsmt.constructions.logistic.step):
σ(w ⊗ x ⊖ w ⊗ z⁻) with the per-point weight w, then the separation layers
σ(2^e_max ⊗ a ⊖ 2^e_max ⊗ c).  For all z, x of X and every finite upstream y: out = 1 for
x >= z, a zero otherwise, and D^AD(y) = ±0.  One claim, decided with σ's correctly rounded
values (the per-point weight is computed in the claim from z)."""

from fpsmt.proofs.logi_common import step_lemma

LEMMA = step_lemma("ge")
