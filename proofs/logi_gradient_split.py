"""The three-atom split of the ``logistic`` family's gradient targets
(fpsmt.constructions.logistic.split): where one gradient atom at z does not reach g (its
weight on x, w_x = m_g·2^k, times z overflows: |g| in the top binade, |z| near M_σ), three
atoms at z give a, a, b with a = g ⊗ RN(3/10) and b = g ⊖ (a ⊕ a).

Claim, for all z in X and every finite g != 0 that one atom does not reach at z:
(a ⊕ a) ⊕ b = g (bit for bit), a and b are nonzero, and one atom reaches each of them
(w_x(a) ⊗ z and w_x(b) ⊗ z finite) — so the gradient atom's lemma, whose hypothesis is
exactly that, holds of each of the three atoms, and the Theorem 3.1 join sums their
first-layer terms a, a, b (in that order, with zeros between) to g
(proofs/family_theorem.py, ``split_gradient_node``).  The claim computes the parts with the
builder's own code (the same function builds the networks)."""

from fpsmt.constructions import logistic as LG
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.logi_common import TITLE, X, formats, xdesc


def claim(fmt):
    return forall("logi_gradient_split", {"z": X(), "g": Float(finite=True, nonzero=True)},
                  given=lambda s: ~LG.reached(s, s.z, s.g), goal=lambda s: LG.split_holds(s, s.z, s.g))


def repaired(fmt):
    return [claim(fmt)], (f"for all z in {xdesc(fmt)} and every finite g != 0 that one gradient atom does not reach "
                          "at z (w_x ⊗ z not finite): with a = g ⊗ RN(3/10) and b = g ⊖ (a ⊕ a), (a ⊕ a) ⊕ b = g, a "
                          "and b are nonzero and one atom at z reaches each")


LEMMA = Lemma("logi_gradient_split", f"the three-atom split of a gradient target for a logistic σ {TITLE}",
              {"repaired": repaired}, formats=formats, order=760, family="logistic", construction=True)
