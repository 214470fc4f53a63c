"""Step indicator 1[x >= z] of the ``rectifying`` family (fpsmt.constructions.rectifying.step):
σ(x ⊖ z⁻), amplification layers (flips σ(β ⊖ a) and products σ(K ⊗ a)), then two kill
layers.  For all z, x of X and every finite upstream y: out = I (σ's identity threshold)
for x >= z, a zero otherwise, and D^AD(y) = ±0.  One claim, decided with σ's correctly
rounded values."""

from fpsmt.proofs.rect_common import step_lemma

LEMMA = step_lemma("ge")
