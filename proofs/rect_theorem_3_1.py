"""Theorem 3.1 for a rectifying σ (GELU, Swish, ELU, and any activation that passes the family's
requirements) on a 1-D domain, from the atoms of fpsmt.constructions.rectifying
(rect_value_atom, rect_gradient_atom; V = 2^(e_max−1)): the statement, the tree and the
argument are proofs/family_theorem.py's.  A value atom has two output terms; every piece
of a value but its first is at least L (fpsmt.constructions.rectifying.uncapped_bound:
checked as the network is built), where the value atom's lemma states the terms (a, a
zero)."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.family_theorem import theorem_row
from fpsmt.proofs.rect_common import FAMILY, formats

LEMMA = Lemma("rect_theorem_3_1", "Theorem 3.1 for a rectifying σ (GELU, Swish, ELU; reconstructed)",
              {v: theorem_row("rect_theorem_3_1", ("rect_value_atom", "rect_gradient_atom"), True, FAMILY,
                              "fpsmt.constructions.rectifying.theorem_network", variant=v)
               for v in ("repaired", "shallow")},
              formats=formats, order=690, family="rectifying", construction=True, network=True)
