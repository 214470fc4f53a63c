"""Gradient atom of the ``logistic`` family (fpsmt.constructions.logistic.gradient_atom), at
the depth the theorem's network uses: value ±0 on X; at x = z, D^AD(h) = g; elsewhere
D^AD(y) = ±0.  The path r0 = σ(w_x ⊗ x ⊖ w_x ⊗ z), then σ(c ⊗ r ⊖ c/2) per chain weight, is
1/2 with σ' = 1/4 at x = z; the top is gated by np and saturates at x ≠ z; the output
4 ⊗ top ⊕ (−4) ⊗ N is a zero everywhere.

Two claims (proofs/sat_common.py ``gradient_claims``, as the rectifying family's): ``at_z``
over z, h, g and ``elsewhere`` over z, x ≠ z, h, g, y, decided with the weights computed
from h and g in the claim (the transfer is part of what is decided).  Its hypothesis on g is the builder's: one atom
reaches g at z (w_x ⊗ z finite, :func:`fpsmt.constructions.logistic.gradient_pieces`);
where it does not (|g| in the top binade at |z| near M_σ), three atoms share g, each part
reached (``logi_gradient_split``), and the theorem's join sums their terms.  For the join it also states: the
output row's two terms sum to a zero; D^AD's first-layer terms are one g and zeros at
x = z with upstream h, all zeros elsewhere; every hidden value and gradient is finite."""

from fpsmt.constructions import logistic as LG
from fpsmt.constructions.registry import show_bound
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.logi_common import TITLE, H, X, formats, xdesc
from fpsmt.proofs.sat_common import gradient_claims


def repaired(fmt):
    claims = gradient_claims("logi_gradient_atom",
                             lambda s: LG.gradient_atom(s, s.z, s.h, s.g, depth=LG.depth(s.fmt)), X, H,
                             given=lambda s: LG.reached(s, s.z, s.g))
    return claims, (f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite "
                    "g != 0 that one atom reaches at z (w_x ⊗ z finite) and every upstream |y| <= H: out = ±0; at x = z, "
                    "D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0; the two output terms sum to a zero, D^AD's "
                    "first-layer terms are one g and zeros at z, zeros elsewhere; every hidden value and gradient finite")


LEMMA = Lemma("logi_gradient_atom", f"Lemma 3.5's atom for a logistic σ {TITLE}",
              {"repaired": repaired}, formats=formats, order=750, family="logistic", construction=True)
