"""Multiplication transfer (Lemma B.7 of the authors' transformer paper; BRIEF §5, §5.1):
a chain of rounded multiplications by fixed weights carries a nonzero h to a target g.

The gradient atom needs it backwards: the upstream gradient h meets the output weight,
then the chain's weights, and must arrive at g exactly.

released — the one-weight reading of BRIEF §5.1 ("AD gives y ⊗ v"): v = g ⊘ h, claim
h ⊗ v = g.  Rounding twice breaks it.
repaired — fpsmt.constructions.relu.transfer_weights, proved in stages joined at the exact
value ±1 (h ↦ sign(h)·1, then ±1 ↦ g), by the route of
fpsmt.constructions.relu.transfer_route:

* significand route (M <= 23: up to float32): scale (∀ h: h ⊗ w_out ⊗ up_1 ⊗ … ⊗ up_U = v
  with |v| in [1, 2)) and significand (∀ v with |v| in [1, 2), decided by enumeration:
  float32's 2^24 values: (v ⊗ a) ⊗ b = ±1, a and b from |v|), with w_out a power
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

compact (the shallow gradient atoms of ReLU and tanh; fpsmt.constructions.relu.compact_weights,
:data:`COMPACT_CHAIN`, :data:`SIGNED_CHAIN`): w_out and one power of two up to 2^e_max put h
into the binade 1 − M (``scale``), a' = a·2^(M−1) and b take it to ±1 (``significand``, by
enumeration), then |g| and the sign, or ±|g| one weight (``target``); in float64 the
subnormal route's stage with the ups up to 2^e_max.

All partial products are finite and nonzero (stated).  Bounding each weight by 2^q is
what lets the gradient atom reset its forward values to exactly 1 after every weight
(gradient_atom).
"""

from fractions import Fraction

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Pred, sequence, stage


def _weights_ok(s, ws, weight=None):
    """Each weight in K (the predicate CHAIN_WEIGHT, or ``weight``, which the gradient atom's
    chain assumes)."""
    return [(weight or CHAIN_WEIGHT).holds(s, c=w) for w in ws]


def _chain(v, ws):
    partial = []
    for w in ws:
        v = v * w
        partial.append(v)
    return v, partial


def _nonzero(partial):
    return [q.is_finite() & ~q.is_zero() for q in partial]


NONZERO = Float(finite=True, nonzero=True)
#: the interfaces of the stages (fpsmt.proof.tree): what one guarantees, the next assumes
H = Pred("transfer.h", {"h": NONZERO}, lambda s: s.true(), doc="h finite and nonzero")
SIGNIFICAND = Pred("transfer.significand", {"v": Float(magnitude=(1, lambda f: f.hex(f.next_down(f.round(2)))))},
                   lambda s: s.true(), doc="|v| in [1, 2)")
UNIT = Pred("transfer.unit", {"t": Float()}, lambda s: s.t.eq(1) | s.t.eq(-1), doc="t = ±1")
UNITS = [1, -1]
REACHES = Pred("transfer.reaches_g", {"g": NONZERO, "out": Float()}, lambda s: s.out.same(s.g), doc="out = g")
#: what the transfer states of its output weight and the gradient atom's output stage
#: assumes of it (the same predicate: one term hash in both trees)
W_OUT = Pred("transfer.w_out", {"w": Float(finite=True)},
             lambda s: [s.w > 0, s.w <= 1, s.w.same(C.true_exponent(s, s.w).pow2())],
             doc="w a power of two in (0, 1]")


#: a weight of the chain: in K = {−1} ∪ (0, 2^q], q = min(p, e_max).  The transfer's stages
#: state it of every weight they make; the gradient atom's chain layers assume it
CHAIN_WEIGHT = Pred("transfer.chain_weight", {"c": Float(finite=True)},
                    lambda s: s.c.eq(-1) | ((s.c > 0) & (s.c <= s.int_pow2(C.step_cap(s.fmt)))), doc="c in K")
#: a weight of ReLU's shallow chain, the compact one: any finite c >= −2, c ≠ 0
#: (fpsmt.constructions.relu.compact_weights: up to 2^e_max, a' up to 2^(M − 1), |g| up to Ω,
#: the sign −1; its layers' killers enter with weight −1/2 where c <= 1 and +0 above)
COMPACT_WEIGHT = Pred("transfer.compact_weight", {"c": Float(finite=True)},
                      lambda s: (s.c >= -2) & ~s.c.is_zero(), doc="c in K'' = [-2, 0) ∪ (0, Ω]")


#: a weight of tanh's shallow chain (proofs/sat_gradient_atom.py): any finite c ≠ 0 (it only
#: scales a path in [−1, 1]; fpsmt.constructions.relu.compact_weights with ±|g| one weight)
SIGNED_WEIGHT = Pred("transfer.signed_weight", {"c": Float(finite=True)}, lambda s: ~s.c.is_zero(),
                     doc="c finite and nonzero")


class Chain:
    """Which chain a transfer tree is for: the stages' name prefix, the cap 2^q of its
    power-of-two weights (None: relu.step_cap) and the predicate its weights satisfy."""

    def __init__(self, prefix, q=None, weight=CHAIN_WEIGHT, merge_sign=False, compact=False):
        self.prefix, self.q, self.weight, self.merge_sign = prefix, q, weight, merge_sign
        #: the compact transfer of ReLU's and tanh's shallow chains
        #: (fpsmt.constructions.relu.compact_weights): h to ±1 through the binade 1 − M (or
        #: the subnormal route's ±ω), then |g| and the sign (±|g| with ``merge_sign``)
        self.compact = compact

    def cap(self, fmt):
        return self.q(fmt) if self.q else C.step_cap(fmt)


REPAIRED_CHAIN = Chain("multiplication_transfer")
SIGNED_CHAIN = Chain("multiplication_transfer.signed", C.shallow_cap, SIGNED_WEIGHT, merge_sign=True, compact=True)
COMPACT_CHAIN = Chain("multiplication_transfer.compact", C.shallow_cap, COMPACT_WEIGHT, compact=True)


def _normalized(s, chain=REPAIRED_CHAIN):
    if chain.compact:
        w_out, mids = C.compact_normalize(s, s.h)
    else:
        w_out, mids = C.normalize_weights(s, s.h, q=chain.cap(s.fmt))
    return w_out, mids, _chain(s.h, [w_out] + mids)


def scale_stage(fmt, chain=REPAIRED_CHAIN):
    """h ⊗ w_out ⊗ ups lands in ±[1, 2) (significand route)."""
    def side(s):
        w_out, mids, (_, partial) = _normalized(s, chain)
        ups = mids[:-2]
        return [W_OUT.holds(s, w=w_out)] + _weights_ok(s, ups, chain.weight) + _nonzero(partial[:len(ups) + 1])
    def out(s):
        w_out, mids, _ = _normalized(s, chain)
        return {"v": _chain(s.h, [w_out] + mids[:-2])[0]}
    return stage(f"{chain.prefix}.scale", {}, SIGNIFICAND, out, H, side=side, states=[W_OUT, chain.weight])


def significand_stage(fmt, chain=REPAIRED_CHAIN):
    """(v ⊗ a) ⊗ b = ±1 for every v in ±[1, 2), a and b from |v| (decided by enumeration)."""
    def out(s):
        a, b = C.significand_weights(s, abs(s.v))
        return {"t": (s.v * a) * b}

    def side(s):
        a, b = C.significand_weights(s, abs(s.v))
        return ([(a > 0.5) & (a <= 1), (b > 0.5) & (b <= 1), _nonzero([s.v * a])[0]]
                + _weights_ok(s, [a, b], chain.weight))
    return stage(f"{chain.prefix}.significand", {}, UNIT, out, SIGNIFICAND, side=side, enumerate=True,
                 states=[chain.weight])


def subnormal_stage(fmt, chain=REPAIRED_CHAIN):
    """h ⊗ w_out ⊗ down ⊗ ups = ±1, through ±ω or ±2ω (subnormal route)."""
    def side(s):
        f = s.fmt
        w_out, mids, (_, partial) = _normalized(s, chain)
        r = abs(partial[1])
        return ([r.eq(s.int_pow2(f.e_min - f.M)) | r.eq(s.int_pow2(f.e_min - f.M + 1)), W_OUT.holds(s, w=w_out)]
                + _weights_ok(s, mids, chain.weight) + _nonzero(partial))
    return stage(f"{chain.prefix}.subnormal", {}, UNIT, lambda s: {"t": _normalized(s, chain)[2][0]}, H,
                 side=side, states=[W_OUT, chain.weight])


def target_stage(fmt, name=None, target=None, reaches=REACHES, extra=None, chain=REPAIRED_CHAIN):
    """±1 ⊗ sgn ⊗ m_g ⊗ exps = g, the weights from g and the ±1.  A gradient atom whose path
    below the chain multiplies further (fpsmt.constructions.rectifying) names its own
    ``target(s)`` (the chain's value, from g), ``reaches`` (its guarantee over g, out and
    the variables ``extra(s)`` gives, terms of g)."""
    def weights(s):
        sgn, m, exps = C.target_weights(s, target(s) if target else s.g, s.t, q=chain.cap(s.fmt))
        return (sgn, m, exps), _chain(s.t, ([sgn * m] if chain.merge_sign else [sgn, m]) + exps)

    def side(s):
        (sgn, m, exps), (_, partial) = weights(s)
        ws = ([sgn * m] if chain.merge_sign else [sgn, m]) + exps
        return ([sgn.eq(1) | sgn.eq(-1), (m >= 1) & (m < 2)] + _weights_ok(s, ws, chain.weight)
                + _nonzero(partial))
    return stage(name or f"{chain.prefix}.target", {"g": NONZERO}, reaches,
                 lambda s: {"out": weights(s)[1][0], **(extra(s) if extra else {})},
                 UNIT, side=side, cases={"t": UNITS}, states=[chain.weight])


def _binade(lo):
    return lambda f: f.hex(f.round(Fraction(2) ** (C.compact_binade(f) + lo)))


#: the compact chain's scale lands h ⊗ w_out ⊗ up here: |v| in [2^B, 2^(B+1)), B = 1 − M
BINADE = Pred("transfer.binade", {"v": Float(magnitude=(_binade(0), lambda f: f.hex(f.next_down(
    f.round(Fraction(2) ** (C.compact_binade(f) + 1))))))}, lambda s: s.true(), doc="|v| in [2^(1-M), 2^(2-M))")


def compact_scale_stage(fmt, chain):
    """h ⊗ w_out ⊗ up lands in ±[2^B, 2^(B+1)), B = 1 − M, exactly (the compact chain)."""
    def side(s):
        w_out, mids, (_, partial) = _normalized(s, chain)
        return [W_OUT.holds(s, w=w_out)] + _weights_ok(s, mids[:1], chain.weight) + _nonzero(partial[:2])
    return stage(f"{chain.prefix}.scale", {}, BINADE, lambda s: {"v": _normalized(s, chain)[2][1][1]}, H,
                 side=side, states=[W_OUT, chain.weight])


def compact_significand_stage(fmt, chain):
    """(v ⊗ a') ⊗ b = ±1 for every v in ±[2^B, 2^(B+1)), a' = a·2^(M − 1) and b from v's
    significand |v|·2^(−B) (decided by enumeration)."""
    def weights(s):
        a, b = C.significand_weights(s, abs(s.v) * s.int_pow2(-C.compact_binade(s.fmt)))
        return a * s.int_pow2(s.fmt.M - 1), b

    def side(s):
        a, b = weights(s)
        return [_nonzero([s.v * a])[0]] + _weights_ok(s, [a, b], chain.weight)
    def out(s):
        a, b = weights(s)
        return {"t": (s.v * a) * b}
    return stage(f"{chain.prefix}.significand", {}, UNIT, out, BINADE, side=side, enumerate=True,
                 states=[chain.weight])


def compact_target_stage(fmt, chain):
    """(±1 ⊗ |g|) ⊗ sign = g, sign = ±1 from g and the ±1 (the compact chain), or ±1 ⊗ (±|g|)
    = g (``chain.merge_sign``)."""
    def weights(s):
        ws = C.compact_target(s, s.g, s.t, chain.merge_sign)
        return ws, _chain(s.t, ws)

    def side(s):
        ws, (_, partial) = weights(s)
        sign = [] if chain.merge_sign else [ws[1].eq(1) | ws[1].eq(-1)]
        return sign + _weights_ok(s, ws, chain.weight) + _nonzero(partial)
    return stage(f"{chain.prefix}.target", {"g": NONZERO}, REACHES, lambda s: {"out": weights(s)[1][0]}, UNIT,
                 side=side, cases={"t": UNITS}, states=[chain.weight])


def transfer_tree(fmt, target=None, chain=REPAIRED_CHAIN):
    """The repaired transfer h → ±1 → g as a proof tree (fpsmt.proof.tree): the route's
    stages (fpsmt.constructions.relu.transfer_route), then the target stage (``target``:
    another one, :func:`target_stage`); each stage's guarantee is the next one's hypothesis
    (the same predicate), so no join is needed.  ``chain``: :data:`COMPACT_CHAIN` for ReLU's
    shallow gradient atom (h to ±1 through the binade 1 − M, then |g| and the sign),
    :data:`SIGNED_CHAIN` for tanh's (the same with ±|g| one weight)."""
    if chain.compact and C.transfer_route(fmt) == "significand":
        first = [compact_scale_stage(fmt, chain), compact_significand_stage(fmt, chain)]
    elif C.transfer_route(fmt) == "significand":
        first = [scale_stage(fmt, chain), significand_stage(fmt, chain)]
    else:
        first = [subnormal_stage(fmt, chain)]
    last = target or (compact_target_stage(fmt, chain) if chain.compact else target_stage(fmt, chain=chain))
    return sequence(chain.prefix, first + [last], kind="lemma")


def repaired(fmt):
    U, V = C.transfer_slots(fmt)
    if C.transfer_route(fmt) == "significand":
        route = (f"h -> +-m in [1, 2) ({U} powers of two), +-m -> +-1 (two significand weights, from |m|)", U + 2)
    else:
        route = (f"h -> +-w or +-2w (w the least subnormal; the one rounding) -> +-1 ({U + 1} powers of two)",
                 U + 1)
    return transfer_tree(fmt), (
        f"for every finite h != 0 and every finite g != 0: h * w_out * c_1 * ... * c_{route[1] + 2 + V} = g exactly "
        f"(left to right), with w_out a power of two in (0, 1], every c_i = +-1, a power of two <= 2^{C.step_cap(fmt)} "
        f"or in (1/2, 2), every partial product finite and nonzero; proved as a tree of stages, each assuming what "
        f"the one before guarantees: {route[0]}, +-1 -> g ({V} powers of two; the weights from g and the +-1)")


def released(fmt):
    def goal(s):
        return (s.h * (s.g / s.h)).same(s.g)
    c = forall("multiplication_transfer.released", {"h": Float(finite=True, nonzero=True),
                                                     "g": Float(finite=True, nonzero=True)}, goal=goal)
    return [c], "for every finite h != 0 and g != 0: h * (g / h) = g (one weight v = g / h, both rounded)"


LEMMA = Lemma("multiplication_transfer", "Lemma B.7 (BRIEF §5, §5.1)", {"released": released, "repaired": repaired},
              order=60, construction=True,
              profile_free="its claims are about products of weights in the format, no network: no summation "
                           "order, backward formula or activation enters them")
