"""Step indicator 1[x >= z] of the ``saturating`` family (fpsmt.constructions.saturating.step):
σ(x ⊖ z⁻), amplified, pushed beyond ±2^T where σ = ±1 and σ' = 0, then 0.5 ⊗ u ⊕ 0.5.
For all z, x of X and every finite upstream y: out = 1[x >= z] (1 or +0) and D^AD(y) = ±0.
One claim, decided with σ's correctly rounded values (a table up to 16 bits, lazily
refined true values above)."""

from fpsmt.proofs.sat_common import step_lemma

LEMMA = step_lemma("ge")
