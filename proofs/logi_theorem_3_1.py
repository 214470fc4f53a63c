"""Theorem 3.1 for a logistic σ (sigmoid) on a 1-D domain, from the atoms of
fpsmt.constructions.logistic (logi_value_atom, logi_gradient_atom; V = Ω/H): the statement,
the tree and the argument are proofs/family_theorem.py's.  A value atom has one output
term, v ⊗ p.  A gradient atom's lemma covers the g that one atom reaches at z; every other
g* is given by three atoms a, a, b (logi_gradient_split: (a ⊕ a) ⊕ b = g*, each part
reached), and layer 1's gradient induction is the split one (``split_gradient``: g* from one
atom's term or from three, in order).  The shallow variant is the same join over the atoms'
shallow rows (the split is about g and z only: its one claim serves both)."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.family_theorem import theorem_row
from fpsmt.proofs.logi_common import FAMILY, TITLE, formats

LEMMA = Lemma("logi_theorem_3_1", f"Theorem 3.1 for a logistic σ {TITLE}",
              {v: theorem_row("logi_theorem_3_1", ("logi_value_atom", "logi_gradient_atom"), False, FAMILY,
                              "fpsmt.constructions.logistic.theorem_network", split="logi_gradient_split", variant=v)
               for v in ("repaired", "shallow")},
              formats=formats, order=790, family="logistic", construction=True, network=True)
