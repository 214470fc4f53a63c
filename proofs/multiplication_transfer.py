"""Multiplication transfer (Lemma B.7 of the authors' transformer paper; BRIEF §5, §5.1):
a chain of rounded multiplications by fixed weights carries a nonzero h to a target g.

The gradient atom needs it backwards: the upstream gradient h meets the output weight,
then the chain's weights, and must arrive at g exactly.

released — the one-weight reading of BRIEF §5.1 ("AD gives y ⊗ v"): v = g ⊘ h, claim
h ⊗ v = g.  Rounding twice breaks it.
repaired — fpsmt.constructions.relu.transfer_weights, proved in stages joined at the exact
value ±1 (h ↦ sign(h)·1, then ±1 ↦ g), by the route of
fpsmt.constructions.relu.transfer_route:

* significand route (M <= 23: up to float32): scale (∀ h) and significand (∀ m ∈ [1, 2),
  decided by enumeration: float32's 2^23 values): h ⊗ w_out ⊗ up_1 ⊗ … ⊗ up_U =
  sign(h)·m_h and (m ⊗ a) ⊗ b = 1, so h ↦ sign(h)·1 (RNE is symmetric), with w_out a power
  of two in (0, 1] (the output weight: it is the only weight every upstream gradient
  meets, so |w_out| <= 1 keeps y ⊗ w_out finite for |y| <= Ω), up_i powers of two <= 2^q
  (q = min(p, e_max)), a, b in (1/2, 1] (m ⊗ a = 1, or m ⊗ a = 1 + 2^−p and then
  ⊗ (1 − 2^(−p−1)) = 1).  Every product but the significand step is exact.
* subnormal route (M > 23, e.g. float64), one claim ∀ h: h ⊗ w_out ⊗ down ⊗ up_1 ⊗ … ⊗
  up_U = sign(h)·1, where down (a power of two <= 1) takes h ⊗ w_out ∈ ±[2^e, 2^(e+1)),
  e <= 0, into ±[ω, 2ω) (ω the least subnormal) and the product rounds to ±ω or ±2ω.
  Every product but ⊗ down is exact, and none has two operands of more than one
  significant bit: the significand stage multiplies two symbolic 53-bit significands in
  float64, which no back end decided in 30 minutes, and 2^52 values cannot be enumerated.
* target (∀ g, from ±1): t ⊗ sgn ⊗ m_g ⊗ e_1 ⊗ … ⊗ e_V = g for t = ±1, with sgn = ±1,
  m_g ∈ [1, 2) and e_j powers of two <= 2^q.

All partial products are finite and nonzero (stated).  Bounding each weight by 2^q is
what lets the gradient atom reset its forward values to exactly 1 after every weight
(gradient_atom).
"""

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma


def _weights_ok(s, ws):
    top = s.int_pow2(C.step_cap(s.fmt))
    return [(w.eq(1) | w.eq(-1) | ((w > 0) & (w <= top))) for w in ws]


def _chain(v, ws):
    partial = []
    for w in ws:
        v = v * w
        partial.append(v)
    return v, partial


def scale_claim(fmt):
    def goal(s):
        w_out, mids = C.normalize_weights(s, s.h)
        ups = mids[:-2]
        v, partial = _chain(s.h, [w_out] + ups)
        m, _ = C.significand(s, s.h)
        return ([v.same(s.where(s.h.is_negative(), -m, m)), (m >= 1) & (m < 2), (w_out > 0) & (w_out <= 1)]
                + _weights_ok(s, ups) + [q.is_finite() & ~q.is_zero() for q in partial])
    return forall("multiplication_transfer.scale", {"h": Float(finite=True, nonzero=True)}, goal=goal)


def significand_claim(fmt):
    def goal(s):
        a, b = C.significand_weights(s, s.m)
        return [((s.m * a) * b).same(1), (a > 0.5) & (a <= 1), (b > 0.5) & (b <= 1)]
    return forall("multiplication_transfer.significand", {"m": Float(range=(1, lambda f: f.hex(f.next_down(
        f.round(2)))))}, goal=goal, enumerate=True)


def subnormal_claim(fmt):
    def goal(s):
        w_out, mids = C.normalize_weights(s, s.h)
        v, partial = _chain(s.h, [w_out] + mids)
        f = s.fmt
        r = abs(partial[1])
        return ([v.same(s.where(s.h.is_negative(), -1, 1)), r.eq(s.int_pow2(f.e_min - f.M))
                 | r.eq(s.int_pow2(f.e_min - f.M + 1)), (w_out > 0) & (w_out <= 1)]
                + _weights_ok(s, mids) + [q.is_finite() & ~q.is_zero() for q in partial])
    return forall("multiplication_transfer.subnormal", {"h": Float(finite=True, nonzero=True)}, goal=goal)


def normalize_claims(fmt):
    """h ↦ sign(h)·1 by the route of :func:`fpsmt.constructions.relu.transfer_route`:
    significand — h ⊗ w_out ⊗ ups = ±m (scale, ∀ h) and (m ⊗ a) ⊗ b = 1 (significand,
    ∀ m ∈ [1, 2)), joined by RNE's symmetry ((−m) ⊗ a = −(m ⊗ a)); subnormal — one claim,
    ∀ h, through ±ω or ±2ω."""
    if C.transfer_route(fmt) == "significand":
        return [scale_claim(fmt), significand_claim(fmt)]
    return [subnormal_claim(fmt)]


def target_claim(fmt):
    def goal(s):
        out = []
        for t in (1, -1):
            sgn, m, exps = C.target_weights(s, s.g, s.const(t))
            v, partial = _chain(s.const(t), [sgn, m] + exps)
            out += [v.same(s.g), sgn.eq(1) | sgn.eq(-1), (m >= 1) & (m < 2)] + _weights_ok(s, exps)
            out += [q.is_finite() & ~q.is_zero() for q in partial]
        return out
    return forall("multiplication_transfer.target", {"g": Float(finite=True, nonzero=True)}, goal=goal)


def repaired(fmt):
    U, V = C.transfer_slots(fmt)
    if C.transfer_route(fmt) == "significand":
        route = (f"h -> sign(h)*m_h ({U} powers of two), m -> 1 for every m in [1, 2) (two significand weights)", U + 2)
    else:
        route = (f"h -> +-w or +-2w (w the least subnormal; the one rounding) -> sign(h)*1 ({U + 1} powers of two)",
                 U + 1)
    return normalize_claims(fmt) + [target_claim(fmt)], (
        f"for every finite h != 0 and every finite g != 0: h * w_out * c_1 * ... * c_{route[1] + 2 + V} = g exactly "
        f"(left to right), with w_out a power of two in (0, 1], every c_i = +-1, a power of two <= 2^{C.step_cap(fmt)} "
        f"or in (1/2, 2), every partial product finite and nonzero; proved in stages joined at exact values: "
        f"{route[0]}, +-1 -> g ({V} powers of two)")


def released(fmt):
    def goal(s):
        return (s.h * (s.g / s.h)).same(s.g)
    c = forall("multiplication_transfer.released", {"h": Float(finite=True, nonzero=True),
                                                     "g": Float(finite=True, nonzero=True)}, goal=goal)
    return [c], "for every finite h != 0 and g != 0: h * (g / h) = g (one weight v = g / h, both rounded)"


LEMMA = Lemma("multiplication_transfer", "Lemma B.7 (BRIEF §5, §5.1)", {"released": released, "repaired": repaired},
              order=60, construction=True)
