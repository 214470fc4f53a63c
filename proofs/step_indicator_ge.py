"""Step indicator 1[x >= z]: the first block of the point indicators behind Lemma 3.4
(paper §3 and its appendix; BRIEF §5.1).

released — BRIEF §5.1's three-layer block (u0, ũ0, c_z, k as stated there; the code's
first k-formula for every e_z > 0), mirrored for negative z.  The released maths does not
define z = 0, so its statement excludes it (the zero_indicator lemma covers z = 0).
repaired — fpsmt.constructions.relu.step_ge (5 layers), with D^AD = ±0 for every finite upstream
gradient, which the zero-gradient atom relies on.  The statements: proofs/common.py (the repaired one a stage whose
guarantee is the predicate STEP_GE / STEP_LE that the blocks built on it assume).

The released claim (two floats) is decided by enumerating every (z, x) pair in the
executor where that is at most 2^33 pairs — bfloat16 and float16 (about 3.5 minutes on
2 cores), the 8-bit formats — and by the solvers in wider formats.
"""

from fpsmt.proofs.common import step_lemma

LEMMA = step_lemma("ge")
