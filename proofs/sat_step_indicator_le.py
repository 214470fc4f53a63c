"""Step indicator 1[x <= z] of the ``saturating`` family: the 1[x >= z] block at −z fed −x
(first layer σ(z⁺ ⊖ x)).  For all z, x of X and every finite upstream y: out = 1[x <= z]
(1 or +0) and D^AD(y) = ±0."""

from fpsmt.proofs.sat_common import step_lemma

LEMMA = step_lemma("le")
