"""Step indicator 1[x <= z] of the ``rectifying`` family: the 1[x >= z] block fed −x at −z
(first layer σ(z⁺ ⊖ x)).  Same statement with x <= z."""

from fpsmt.proofs.rect_common import step_lemma

LEMMA = step_lemma("le")
