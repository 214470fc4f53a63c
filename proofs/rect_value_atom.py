"""Value atom v·1[x = z] of the ``rectifying`` family (fpsmt.constructions.rectifying.value_atom),
at the depth the theorem's network uses (:func:`fpsmt.constructions.rectifying.depth`):
the step indicators (carried), the killers G1 = σ(G ⊖ W ⊗ u_ge), G2 likewise, then
N1 = σ(−G1 − G2 ⊕ n1), N2 = σ(−G1 − G2 ⊕ n2) and the output w1 ⊗ N1 ⊕ w2 ⊗ N2, every
output weight of magnitude <= 1.

For all z, x of X, every v with |v| <= V = 2^(e_max−1) and every finite upstream y:
out = v at x = z (bit for bit), a zero elsewhere, and D^AD(y) = ±0.  Values above V are
sums of such atoms at one z (proofs/rect_theorem_3_1.py).  For the theorem's join the claim
also states: the output row's two terms t1 = w1 ⊗ N1, t2 = w2 ⊗ N2 have t1 ⊕ t2 ≈ v at z
(the same float, or both zeros), are (v, a zero) there when |v| >= L (no cap), and are two
zeros elsewhere; every term of D^AD's sum over the first layer (gradient w.r.t. a
neuron's pre-activation times its weight) is a zero; and every hidden value and gradient is
finite.  One claim, not yet split into stages."""

from fpsmt.constructions import rectifying as RC
from fpsmt.proof.approx import approx
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.common import finite_inside
from fpsmt.proofs.rect_common import X, formats, xdesc
from fpsmt.constructions.registry import show_bound


def V(fmt):
    return RC.piece_bound(fmt)


def L(fmt):
    """The least |v| whose atom's output terms are (v, a zero): below it the value is made
    of two nonzero terms (fpsmt.constructions.rectifying.value_params, ``capped``)."""
    return RC.uncapped_bound(fmt)


def repaired(fmt):
    def goal(s):
        net, P = RC.value_atom(s, s.z, s.v, depth=RC.depth(s.fmt))
        out, grad, trace = s.run(net, [s.x], [s.y], params=P, trace=True)
        at = s.x.eq(s.z)
        t1, t2 = s.row_terms(net, len(net.layers) - 1, "forward", trace[1][-2], P)
        big = abs(s.v) >= s.const(L(s.fmt))
        return [at.implies(out[0].same(s.v) | (out[0].is_zero() & s.v.is_zero())), (~at).implies(out[0].is_zero()),
                grad[0].eq(0),
                # what the theorem's output row and layer-1 column need (proofs/rect_theorem_3_1.py)
                at.implies(approx(t1 + t2, s.v)), (at & big).implies(t1.same(s.v) & t2.is_zero()),
                (~at).implies(t1.is_zero() & t2.is_zero())] + [t.is_zero() for t in s.input_terms(net, P, trace)] \
            + finite_inside(*trace[1:3])
    bound = lambda f: f.hex(f.round(V(f)))  # noqa: E731
    c = forall("rect_value_atom", {"z": X(), "x": X(), "v": Float(range=(lambda f: f.hex(f.round(-V(f))), bound)),
                                   "y": Float(finite=True)}, goal=goal)
    return [c], (f"for all z, x in {xdesc(fmt)}, every v with |v| <= {show_bound(V(fmt))} and every finite upstream y: "
                 "out = v at x = z (bit for bit; a zero v by either zero), a zero elsewhere, and D^AD(y) = ±0; its two output "
                 f"terms are (v, ±0) at x = z when |v| >= {show_bound(L(fmt))} and two zeros elsewhere, every term of "
                 "D^AD is a zero, every hidden value and gradient finite")


LEMMA = Lemma("rect_value_atom", "Lemma 3.4's atom for a rectifying σ (GELU, Swish, ELU; reconstructed)",
              {"repaired": repaired}, formats=formats, order=640, family="rectifying", construction=True)
