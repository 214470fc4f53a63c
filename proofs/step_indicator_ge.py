"""Step indicator 1[x >= z]: the first block of the point indicators behind Lemma 3.4
(paper §3 and its appendix; BRIEF §5.1).

released — BRIEF §5.1's three-layer block (u0, ũ0, c_z, k as stated there; the code's
first k-formula for every e_z > 0), mirrored for negative z.  The released maths does not
define z = 0, so its statement excludes it (the zero_indicator lemma covers z = 0).
repaired — fpsmt.construct.step_ge (5 layers), with D^AD = ±0 for every finite upstream
gradient, which the zero-gradient atom relies on.  The statements: proofs/_common.py.
"""

from fpsmt.proofs._common import step_lemma

LEMMA = step_lemma("ge")
