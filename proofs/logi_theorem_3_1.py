"""Theorem 3.1 for a logistic σ (sigmoid) on a 1-D domain, from the atoms of
fpsmt.constructions.logistic (logi_value_atom, logi_gradient_atom; V = Ω/H): the statement,
the tree and the argument are proofs/family_theorem.py's.  A value atom has one output
term, v ⊗ p.  The join covers the points whose g* one gradient atom reaches (the gradient
atom's hypothesis); the three-atom split of the rest is verified per network by
``construct``."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.family_theorem import theorem_row
from fpsmt.proofs.logi_common import FAMILY, TITLE, formats

LEMMA = Lemma("logi_theorem_3_1", f"Theorem 3.1 for a logistic σ {TITLE}",
              {"repaired": theorem_row("logi_theorem_3_1", ("logi_value_atom", "logi_gradient_atom"), False, FAMILY,
                                       "fpsmt.constructions.logistic.theorem_network")},
              formats=formats, order=790, family="logistic", construction=True)
