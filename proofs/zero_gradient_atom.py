"""The zero-gradient atom v·1[x = z] of Lemma 3.4 (f1, the value network, is a sum of
them): value v at x = z and 0 elsewhere on X, D^AD = 0 for every admissible upstream
gradient (|y| <= H_σ = Ω for ReLU).

released — BRIEF §5.1: point indicator → three cancellation blocks → weight v (the
backward pass meets v first: for |v| > 1 and y near Ω, y ⊗ v = ∞ and ∞ ⊗ ReLU'(0) = NaN).
repaired — fpsmt.constructions.relu.zero_gradient_atom (8 layers, no cancellation block): the
value comes from a bias gated by two ReLUs whose pre-activation is exactly 0 where the
gradient must die, and no weight of magnitude > 1 is met while the gradient is alive;
so it holds for every finite v and every finite y.  Proved in stages: the step
indicators 1[x >= z], 1[x <= z] (their lemmas: exact 0/1 values, D^AD = ±0 for every
finite upstream), and ``top``, layers 6–8 as a network on (1[x >= z], 1[x <= z]) for the
three cases x = z (1, 1), x < z (0, 1), x > z (1, 0): out = v, ±0, ±0, with finite
gradients into the indicators, for every finite v and y.  Joined: layer 1's gradient
w.r.t. x is a sum of the two blocks' ±0 (boxplus_neutrality's ``gradient`` induction).
"""

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, forall
from fpsmt.proofs.common import FINITE, X, steps_and_top, whole, xdesc
from fpsmt.semantics.network import Network
from fpsmt.proof.lemmas import Lemma


def _statement(fmt, variant):
    zs = "z != 0 in X" if variant == C.RELEASED else "z in X"
    return (f"for all {zs}, x in {xdesc(fmt)}, every finite v and every finite y (|y| <= Omega): "
            "out = v at x = z (bit for bit) and ±0 elsewhere, D^AD(y) = ±0")


def released(fmt):
    def goal(s):
        net, P = C.zero_gradient_atom(s, s.z, s.v, C.RELEASED)
        out, grad = s.run(net, [s.x], [s.y], params=P)
        at = s.x.eq(s.z)
        return [at.implies(out[0].same(s.v)), (~at).implies(out[0].eq(0)), grad[0].eq(0)]
    c = forall("zero_gradient_atom.released",
               {"z": X(nonzero=True), "x": X(), "v": Float(finite=True), "y": Float(finite=True)}, goal=goal)
    # BRIEF §5.1: the backward pass meets v first; |v| > 1 and y = Ω overflow, and
    # ∞ ⊗ ReLU'(0) = NaN where the indicator is off
    hint = {"z": fmt.round(1), "x": fmt.round(0), "v": fmt.round(4), "y": fmt.max_bits}
    return [c], _statement(fmt, C.RELEASED), {c.name: [hint]}


def top(s):
    net, P = C.zero_gradient_atom(s, s.const(1), s.v)  # layers 6–8 do not depend on z
    return Network(s.fmt, net.layers[5:]), P


CASES = {(1, 1): lambda s, out: [out[0].same(s.v)], (0, 1): lambda s, out: [out[0].is_zero()],
         (1, 0): lambda s, out: [out[0].is_zero()]}


def repaired(fmt):
    return steps_and_top(fmt, "zero_gradient_atom", top, CASES, {"v": Float(finite=True)}), (_statement(fmt, C.REPAIRED) + "; proved as a tree: the two step indicators, a join "
                                      "to their pair, the top layers on that pair")


def _one(s):
    net, P = C.zero_gradient_atom(s, s.z, s.v, C.REPAIRED)
    return net, P, [s.x], [s.y]


def _expect(s, out, grad):
    at = s.x.eq(s.z)
    return [at.implies(out[0].same(s.v)), (~at).implies(out[0].eq(0)), grad[0].eq(0)]


WHOLE = whole("zero_gradient_atom", {"z": X(), "x": X(), "v": FINITE, "y": FINITE}, _one, _expect,
              lambda fmt: C.concrete(C.zero_gradient_atom, fmt, 0, 0), lambda fmt: _statement(fmt, C.REPAIRED))

LEMMA = Lemma("zero_gradient_atom", "Lemma 3.4 (BRIEF §5, §5.1)", {"released": released, "repaired": repaired},
              order=70, construction=True, whole=WHOLE)
