"""Gradient atom of the ``saturating`` family (fpsmt.constructions.saturating.gradient_atom),
at the depth the theorem's network uses: value ±0 on X; at x = z, D^AD(h) = g; elsewhere
D^AD(y) = ±0.  The path r0 = σ(x ⊖ z), then one layer σ(c ⊗ r) per transfer weight
(fpsmt.constructions.relu.transfer_weights, those of proofs/multiplication_transfer.py),
is a zero with σ' = 1 at x = z; its top layer is gated by the point indicator's p and
saturates at x ≠ z; the output w_out ⊗ r_top ⊕ w_out ⊗ N is a zero everywhere.

One claim over z, x, h, g, y, decided with the weights computed from h and g in the claim
(so the transfer is part of what is decided, not assumed).  It is not yet split into
stages: the 8-bit formats decide it in seconds to minutes; wider formats are left to the
solvers' limit (a proof tree with the multiplication transfer's guarantee as a premise is
the next step).  For the theorem's join (proofs/sat_theorem_3_1.py) it also states: the
output row's two terms sum to a zero; D^AD's terms over the first layer are zeros but one,
g, at x = z with upstream h, and all zeros elsewhere; every hidden value and gradient is
finite."""

from fpsmt.constructions import saturating as S
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.sat_common import H, X, formats, theorem_facts, within, xdesc


def repaired(fmt):
    def goal(s):
        net, P = S.gradient_atom(s, s.z, s.h, s.g, depth=S.depth(s.fmt))
        out, grad, trace = s.run(net, [s.x], [s.y], params=P, trace=True)
        at = s.x.eq(s.z)
        mine = at & s.y.same(s.h)
        return [out[0].is_zero(), mine.implies(grad[0].same(s.g)), (~at).implies(grad[0].eq(0))] \
            + theorem_facts(s, net, P, trace, mine, ~at)
    c = forall("sat_gradient_atom", {"z": X(), "x": X(), "h": within(H, nonzero=True),
                                     "g": Float(finite=True, nonzero=True), "y": within(H)}, goal=goal)
    return [c], (f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {S.show_bound(H(fmt))}, every finite g != 0 "
                 "and every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0; "
                 "the two output terms sum to a zero, D^AD's first-layer terms are one g and zeros at z, zeros "
                 "elsewhere; every hidden value and gradient finite")


LEMMA = Lemma("sat_gradient_atom", "Lemma 3.5's atom for a saturating σ (BRIEF §9, reconstructed)",
              {"repaired": repaired}, formats=formats, order=550, family="saturating", construction=True)
