"""Gradient atom of the ``rectifying`` family (fpsmt.constructions.rectifying.gradient_atom),
at the depth the theorem's network uses: value ±0 on X; at x = z, D^AD(h) = g; elsewhere
D^AD(y) = ±0.  The path r0 = σ(w_x ⊗ x ⊖ w_x ⊗ z) (+0 at z, σ' = 2^k0), r1 = σ(r0 ⊕ I)
carried, the gate R = σ(−G1 − G2 ⊕ r), then one reset layer per transfer weight
(fpsmt.constructions.relu.transfer_weights, to t = g/(w_x·2^k0)), every σ' on the path 1 at
x = z; the output w_out ⊗ R ⊕ (−w_out) ⊗ N is a zero everywhere.

Two claims, with the weights computed from h and g in the claim (the transfer is part of
what is decided): ``at_z`` over z, h, g (x = z, y = h: out = ±0 and D^AD(h) = g) and
``elsewhere`` over z, x ≠ z, h, g, y (out = ±0, D^AD(y) = ±0).  Together they are the
lemma; split so that the first has no x and no y.  For the theorem's join
(proofs/rect_theorem_3_1.py) both also state: the output row's two terms sum to a zero;
D^AD's terms over the first layer are zeros but one, g, at z, and
all zeros elsewhere; every hidden value and gradient is finite.  Not yet split into stages."""

from fpsmt.constructions import rectifying as RC
from fpsmt.constructions.registry import show_bound
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.rect_common import H, X, formats, xdesc
from fpsmt.proofs.sat_common import gradient_claims


def repaired(fmt):
    c1, c2 = gradient_claims("rect_gradient_atom", lambda s: RC.gradient_atom(s, s.z, s.h, s.g, depth=RC.depth(s.fmt)),
                             X, H)
    return [c1, c2], (f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite g != 0 "
                 "and every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0; "
                 "the two output terms sum to a zero, D^AD's first-layer terms are one g and zeros at z, zeros "
                 "elsewhere; every hidden value and gradient finite")


LEMMA = Lemma("rect_gradient_atom", "Lemma 3.5's atom for a rectifying σ (GELU, Swish, ELU; reconstructed)",
              {"repaired": repaired}, formats=formats, order=650, family="rectifying", construction=True)
