"""Value atom v·1[x = z] of the ``logistic`` family (fpsmt.constructions.logistic.value_atom),
at the depth the theorem's network uses (:func:`fpsmt.constructions.logistic.depth`): the
step indicators, p (carried), the output v ⊗ p.

For all z, x of X, every v with |v| <= V = Ω/H (a power of two) and every upstream
|y| <= H: out = v at x = z (bit for bit; a zero v by either zero), a zero elsewhere, and
D^AD(y) = ±0.  Values above V are sums of such atoms at one z (proofs/logi_theorem_3_1.py).
For the theorem's join the claim also states: the output row's one term is v at z and a
zero elsewhere; every term of D^AD's sum over the first layer is a zero; every hidden value
and gradient is finite.  One claim, not split into stages."""

from fpsmt.constructions import logistic as LG
from fpsmt.constructions.registry import show_bound
from fpsmt.proof.claims import forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.common import finite_inside
from fpsmt.proofs.logi_common import TITLE, H, X, formats, xdesc
from fpsmt.proofs.sat_common import within


def V(fmt):
    return LG.piece_bound(fmt, H(fmt))


def repaired(fmt):
    def goal(s):
        net, P = LG.value_atom(s, s.z, s.v, depth=LG.depth(s.fmt))
        out, grad, trace = s.run(net, [s.x], [s.y], params=P, trace=True)
        at = s.x.eq(s.z)
        (t1,) = s.row_terms(net, len(net.layers) - 1, "forward", trace[1][-2], P)
        return [at.implies(out[0].same(s.v) | (out[0].is_zero() & s.v.is_zero())), (~at).implies(out[0].is_zero()),
                grad[0].eq(0), at.implies(t1.same(s.v) | (t1.is_zero() & s.v.is_zero())),
                (~at).implies(t1.is_zero())] + [t.is_zero() for t in s.input_terms(net, P, trace)] \
            + finite_inside(*trace[1:3])
    c = forall("logi_value_atom", {"z": X(), "x": X(), "v": within(V), "y": within(H)}, goal=goal)
    return [c], (f"for all z, x in {xdesc(fmt)}, every v with |v| <= Omega/H = {show_bound(V(fmt))} and every upstream "
                 f"|y| <= H = {show_bound(H(fmt))}: out = v at x = z (bit for bit; a zero v by either zero), a zero "
                 "elsewhere, and D^AD(y) = ±0; its output term is v at x = z and a zero elsewhere, every term of D^AD "
                 "is a zero, every hidden value and gradient finite")


LEMMA = Lemma("logi_value_atom", f"Lemma 3.4's atom for a logistic σ {TITLE}",
              {"repaired": repaired}, formats=formats, order=740, family="logistic", construction=True)
