"""Step indicator 1[x <= z] of the ``logistic`` family: the ``ge`` block fed −x at −z (see
proofs/logi_step_indicator_ge.py)."""

from fpsmt.proofs.logi_common import step_lemma

LEMMA = step_lemma("le")
