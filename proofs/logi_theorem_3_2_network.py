"""Theorem 3.2 for the logistic family (sigmoid): the point's gated network
(fpsmt.constructions.gated_logi) computes its backward program (proofs/logi_theorem_3_2.py
``chain_root``): at x = ±0 the top's claim for every |y| <= H_σ, one claim per chain layer
(or per layer of a repeating run) for every finite upstream, layer 0's giving x's
gradient; and at four other points of X (±ω, 1, −M_σ) a zero D^AD for every |y| <= H_σ."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.logi_theorem_3_2 import applies, network_row

LEMMA = Lemma("logi_theorem_3_2_network",
              "Theorem 3.2 (BRIEF §3, §9) for the logistic family: the gated network computes the program",
              {"repaired": network_row}, formats=applies, order=771, family="logistic", only=("repaired",))
