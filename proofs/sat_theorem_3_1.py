"""Theorem 3.1 for a saturating σ (tanh, and any activation that passes the family's
requirements) on a 1-D domain, from the atoms of fpsmt.constructions.saturating
(sat_value_atom, sat_gradient_atom; V = Ω/(H·W)): the statement, the tree and the argument
are proofs/family_theorem.py's.  A value atom has one output term, v ⊗ q.  The shallow
variant is the same join over the atoms' shallow rows (the network with the shallow
gradient atoms, 11–12 layers)."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.family_theorem import theorem_row
from fpsmt.proofs.sat_common import FAMILY, formats

LEMMA = Lemma("sat_theorem_3_1", "Theorem 3.1 for a saturating σ (tanh; BRIEF §9, reconstructed)",
              {v: theorem_row("sat_theorem_3_1", ("sat_value_atom", "sat_gradient_atom"), False, FAMILY,
                              "fpsmt.constructions.saturating.theorem_network", variant=v)
               for v in ("repaired", "shallow")},
              formats=formats, order=590, family="saturating", construction=True, network=True)
