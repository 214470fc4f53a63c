"""Step indicator 1[x <= z], the mirror of 1[x >= z] (BRIEF §5.1: the released block
starts with ReLU(x ⊖ 2^e_z) and has its own B1, B2, S).

released — BRIEF §5.1's mirrored block, z != 0 (both signs).
repaired — fpsmt.constructions.relu.step_le: the repaired 1[x >= z] block at −z fed −x, with
D^AD = ±0 for every finite upstream gradient.  The statements: proofs/common.py (the repaired one a stage whose
guarantee is the predicate STEP_GE / STEP_LE that the blocks built on it assume).

The released claim (two floats) is decided by enumerating every (z, x) pair in the
executor where that is at most 2^33 pairs — bfloat16 and float16 (about 3.5 minutes on
2 cores), the 8-bit formats — and by the solvers in wider formats.
"""

from fpsmt.proofs.common import step_lemma

LEMMA = step_lemma("le")
