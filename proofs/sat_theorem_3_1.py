"""Theorem 3.1 for a saturating σ (tanh, and any activation that passes the family's
requirements) on a 1-D domain, from the atoms of fpsmt.constructions.saturating.

Statement.  Let D ⊆ X = [−M_σ, M_σ] be a set of floats (distinct as numbers), f*: D →
finite floats, h*: D → floats with |h*| <= H_σ, g*: D → finite floats with h*(x) = 0 ⇒
g*(x) = 0.  The network of fpsmt.constructions.saturating.theorem_network — a gradient atom
GA(z, h*(z), g*(z)) for every z with g*(z) ≠ 0, then a value atom VA(z, a) for every piece
a of every nonzero f*(z) (pieces of at most V = Ω/(H·W), whose left-to-right sum is
f*(z)), all at the depth :func:`fpsmt.constructions.saturating.depth`, one output row —
has f(x) = f*(x) (a zero target met by +0 or −0) and D^AD_(f,x)(h*(x)) = g*(x) at every x
of D.

The tree: the two atoms' lemmas (sat_value_atom, sat_gradient_atom: each states, besides
its value and gradient, its output terms, its first-layer gradient terms and that its
hidden values and gradients are finite), the output row's induction over the atoms with the
pieces (proofs/family_theorem.py), layer 1's gradient induction
(``boxplus_neutrality.gradient``; ``.start``: a sum is the sum started from −0;
``.times``: +0 times a finite value is a zero) and ``approx.congruence`` over σ and the
identity (each atom computes in the whole what it computes alone, up to the signs of
zeros).  Joined by the argument in proofs/family_theorem.py; the facts it takes from the
code are tested (tests/test_family_theorem.py): the output row and layer 1's column have
no absent entries and the pieces of a value sum to it.  A value atom has one output term,
v ⊗ q."""

from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.family_theorem import theorem_row
from fpsmt.proofs.sat_common import FAMILY, formats

LEMMA = Lemma("sat_theorem_3_1", "Theorem 3.1 for a saturating σ (tanh; BRIEF §9, reconstructed)",
              {"repaired": theorem_row("sat_theorem_3_1", ("sat_value_atom", "sat_gradient_atom"), False, FAMILY,
                                       "fpsmt.constructions.saturating.theorem_network")},
              formats=formats, order=590, family="saturating", construction=True)
