"""Value atom v·1[x = z] of the ``rectifying`` family (fpsmt.constructions.rectifying.value_atom),
at the depth the theorem's network uses (:func:`fpsmt.constructions.rectifying.depth`):
the step indicators (carried), the killers G1 = σ(G ⊖ W ⊗ u_ge), G2 likewise, then
N1 = σ(−G1 − G2 ⊕ n1), N2 = σ(−G1 − G2 ⊕ n2) and the output w1 ⊗ N1 ⊕ w2 ⊗ N2, every
output weight of magnitude <= 1.

For all z, x of X, every v with |v| <= V = 2^(e_max−1) and every finite upstream y:
out = v at x = z (bit for bit), a zero elsewhere, and D^AD(y) = ±0.  Values above V are
sums of such atoms at one z; their sums are verified per network by ``construct``.  One
claim, not yet split into stages."""

from fpsmt.constructions import rectifying as RC
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.rect_common import X, formats, xdesc
from fpsmt.constructions.registry import show_bound


def V(fmt):
    return RC.piece_bound(fmt)


def repaired(fmt):
    def goal(s):
        net, P = RC.value_atom(s, s.z, s.v, depth=RC.depth(s.fmt))
        out, grad = s.run(net, [s.x], [s.y], params=P)
        at = s.x.eq(s.z)
        return [at.implies(out[0].same(s.v) | (out[0].is_zero() & s.v.is_zero())), (~at).implies(out[0].is_zero()),
                grad[0].eq(0)]
    bound = lambda f: f.hex(f.round(V(f)))  # noqa: E731
    c = forall("rect_value_atom", {"z": X(), "x": X(), "v": Float(range=(lambda f: f.hex(f.round(-V(f))), bound)),
                                   "y": Float(finite=True)}, goal=goal)
    return [c], (f"for all z, x in {xdesc(fmt)}, every v with |v| <= {show_bound(V(fmt))} and every finite upstream y: "
                 "out = v at x = z (bit for bit; a zero v by either zero), a zero elsewhere, and D^AD(y) = ±0")


LEMMA = Lemma("rect_value_atom", "Lemma 3.4's atom for a rectifying σ (GELU, Swish; reconstructed)",
              {"repaired": repaired}, formats=formats, order=640, family="rectifying", construction=True)
