"""The zero-gradient atom v·1[x = z] of Lemma 3.4 (f1, the value network, is a sum of
them): value v at x = z and 0 elsewhere on X, D^AD = 0 for every admissible upstream
gradient (|y| <= H_σ = Ω for ReLU).

released — BRIEF §5.1: point indicator → three cancellation blocks → weight v (the
backward pass meets v first: for |v| > 1 and y near Ω, y ⊗ v = ∞ and ∞ ⊗ ReLU'(0) = NaN).
repaired — fpsmt.construct.zero_gradient_atom (8 layers, no cancellation block): the
value comes from a bias gated by two ReLUs whose pre-activation is exactly 0 where the
gradient must die, and no weight of magnitude > 1 is met while the gradient is alive;
so it holds for every finite v and every finite y.
"""

from fpsmt import construct as C
from fpsmt.claims import Float, forall
from fpsmt.proofs._common import X, xdesc
from fpsmt.reproduce import Lemma


def _lemma(variant):
    def build(fmt):
        def goal(s):
            net, P = C.zero_gradient_atom(s, s.z, s.v, variant)
            out, grad = s.run(net, [s.x], [s.y], params=P)
            at = s.x.eq(s.z)
            return [at.implies(out[0].same(s.v)), (~at).implies(out[0].eq(0)), grad[0].eq(0)]
        c = forall(f"zero_gradient_atom.{variant}",
                   {"z": X(nonzero=variant == C.RELEASED), "x": X(), "v": Float(finite=True), "y": Float(finite=True)},
                   goal=goal)
        zs = "z != 0 in X" if variant == C.RELEASED else "z in X"
        return [c], (f"for all {zs}, x in {xdesc(fmt)}, every finite v and every finite y (|y| <= Omega): "
                     "out = v at x = z (bit for bit) and ±0 elsewhere, D^AD(y) = ±0")
    return build


LEMMA = Lemma("zero_gradient_atom", "Lemma 3.4 (BRIEF §5, §5.1)",
              {"released": _lemma(C.RELEASED), "repaired": _lemma(C.REPAIRED)})
