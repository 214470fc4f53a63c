"""Theorem 3.2 for the saturating family (tanh): the point's gated network
(fpsmt.constructions.gated_sat) computes its backward program (proofs/sat_theorem_3_2.py
``chain_root``): the fact pad, one claim per layer after layer 0 at x = ±0 (the top layer
for every upstream within ±H_σ, the others for every finite upstream), one for layer 0;
and at four other points of X (±ω, 1, −M_σ) a zero D^AD for every finite y.  A row of its
own, as ReLU's and the rectifying family's: it has a claim per layer."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.sat_theorem_3_2 import applies, network_row

LEMMA = Lemma("sat_theorem_3_2_network",
              "Theorem 3.2 (BRIEF §3, §9) for the saturating family: the gated network computes the program",
              {"repaired": network_row}, formats=applies, order=611, family="saturating", only=("repaired",))
