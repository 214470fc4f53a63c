"""Value atom v·1[x = z] of the ``saturating`` family (fpsmt.constructions.saturating.value_atom):
the point indicator's p in 2^(T−1) copies, q = σ(p_1 ⊕ … ⊕ p_n ⊕ n) (1 at x = z, +0
elsewhere), output v ⊗ q.  For all z, x of X, every v with |v| <= V = Ω/H (a power of two,
fpsmt.constructions.saturating.piece_bound) and every upstream |y| <= H: out = v at x = z
(bit for bit), a zero elsewhere, and D^AD(y) = ±0.  Values above V are sums of such atoms
at one z; their sums are verified per network by ``construct``, not stated here."""

from fpsmt.constructions import saturating as S
from fpsmt.proof.claims import forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs.sat_common import H, X, formats, within, xdesc


def V(fmt):
    return S.piece_bound(fmt, H(fmt))


def repaired(fmt):
    def goal(s):
        net, P = S.value_atom(s, s.z, s.v)
        out, grad = s.run(net, [s.x], [s.y], params=P)
        at = s.x.eq(s.z)
        return [at.implies(out[0].same(s.v)), (~at).implies(out[0].is_zero()), grad[0].eq(0)]
    c = forall("sat_value_atom", {"z": X(), "x": X(), "v": within(V), "y": within(H)}, goal=goal)
    return [c], (f"for all z, x in {xdesc(fmt)}, every v with |v| <= Omega/H = {S._show(V(fmt))} and every upstream "
                 f"|y| <= H = {S._show(H(fmt))}: out = v at x = z (bit for bit), ±0 elsewhere, and D^AD(y) = ±0")


LEMMA = Lemma("sat_value_atom", "Lemma 3.4's atom for a saturating σ (BRIEF §9, reconstructed)",
              {"repaired": repaired}, formats=formats, order=540, family="saturating", construction=True)
