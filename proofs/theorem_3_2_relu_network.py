"""Theorem 3.2 for ReLU: the point's gated network computes its backward program
(proofs/theorem_3_2_relu.py ``chain_nodes``): one claim per layer after the gate at x = ±0
for every finite upstream gradient on the layer, and one for the gate's layers; and at four
other points of X (±ω, 1, −2^(e_max−2)) a zero D^AD for every finite y (``killed_nodes``).
A row of its own: it has a claim per layer (about 800 per zero sign in bfloat16 and
float32)."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.theorem_3_2_relu import applies, network_row

LEMMA = Lemma("theorem_3_2_relu_network", "Theorem 3.2 (BRIEF §3, §9): the gated network computes the program",
              {"repaired": network_row}, formats=applies, order=211, only=("repaired",))
