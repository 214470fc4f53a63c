"""Theorem 3.2 for the rectifying family (ELU, GELU, Swish): the point's gated network
(fpsmt.constructions.gated_rect) computes its backward program (proofs/rect_theorem_3_2.py
``chain_root``): one claim per layer after the gate at x = ±0 for every finite upstream
gradient on the layer (a zero on the carried step indicators), one for the gate's layers;
in offset mode (GELU, Swish) the facts that join the capped program it runs to the
program; and at four other points of X (±ω, 1, −M_σ) a zero D^AD for every finite y.  A
row of its own, as ReLU's: it has a claim per layer."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.rect_theorem_3_2 import applies, network_row

LEMMA = Lemma("rect_theorem_3_2_network",
              "Theorem 3.2 (BRIEF §3, §9) for the rectifying family: the gated network computes the program",
              {"repaired": network_row}, formats=applies, order=711, family="rectifying", only=("repaired",))
