"""Builders of the Theorem 3.1 construction for activations with levels {0, 1}: σ(±0) = 1/2
with σ'(±0) = 1/4, σ(t) = 1 and σ(t) = +0 with σ'(t) a zero beyond ±2^T (after rounding),
σ non-decreasing (sigmoid; the requirements are family ``logistic`` of
``specs/requirements.py``).

Every hidden layer applies σ, the output layer is the identity.  Sigmoid has no identity
region and rounds to 1/2 on a whole interval around 0 (|t| <= 2^−(M+1)): a first layer
``σ(x ⊖ z⁻)`` cannot tell x = z from x = z⁻ where their spacing is small.  So:

* step indicator u ∈ {1, +0} for 1[x >= z] (``kind`` "ge"; "le" for 1[x <= z], fed −x at
  −z): layer 1 ``σ(w ⊗ x ⊖ w ⊗ z⁻)`` with the per-point weight w = max(1, D / (z − z⁻)), a
  power of two <= 2^e_max, D = 2^e_max·ω (:func:`first_weight`): the pre-activation is <= 0
  for x <= z⁻ and >= D for x >= z (monotone rounding; w ⊗ x may overflow to ±∞, where
  σ(±∞) is 1 or +0).  So the two sides are a <= σ(0) and a >= σ(D), and R.step states
  σ(D) > σ(0).  Then *separation* layers ``σ(K ⊗ a ⊖ K ⊗ c)``, K = 2^e_max, c a float
  strictly between the two sides' bounds (or the lower bound, when the two are adjacent),
  computed with σ's correctly rounded values from the bounds (σ non-decreasing,
  R.monotone), until the sides' pre-activations are beyond ±2^T: u = 1 or +0, saturated,
  σ' = 0, and the backward pass dies in that layer for every finite upstream.
* point indicator p = 1[x = z] = ``σ(2^(T+1) ⊗ u_ge ⊕ 2^(T+1) ⊗ u_le ⊖ 3·2^T)`` (pre-
  activation +2^T at x = z, −2^T elsewhere, exact) and its complement
  np = ``σ(−2^(T+1) ⊗ u_ge ⊖ 2^(T+1) ⊗ u_le ⊕ 3·2^T)``; both carried by
  ``σ(2^(T+1) ⊗ a ⊖ 2^T)`` (1 and +0 stay, saturated).
* value atom v·1[x = z]: output ``v ⊗ p``; the upstream y meets v, then p's σ' = 0: finite
  for |y ⊗ v| <= Ω, so one atom carries |v| <= V = Ω/H (a power of two); larger values are
  sums of atoms (:func:`fpsmt.constructions.saturating.pieces`).
* gradient atom (value ±0 on X; D^AD(h) = g at x = z, ±0 elsewhere for |y| <= H): a path
  ``r0 = σ(w_x ⊗ x ⊖ w_x ⊗ z)`` (pre-activation +0 at x = z: r0 = 1/2, σ' = 1/4), carried by
  ``σ(4 ⊗ r ⊖ 2)`` beside the step layers and np (the gate: no parameter but z's and w_x's,
  so that the lemma's tree states it once for all h), then one layer
  ``r = σ(c ⊗ r ⊖ c/2)`` per chain weight c (again +0, 1/2, 1/4 at x = z), the top gated:
  ``σ(−G ⊗ np ⊕ c ⊗ r ⊖ c/2)`` (the same at x = z, beyond −2^T elsewhere: G = 2^(T+1),
  T >= 2, the top's weight c <= 4), beside it N = ``σ(−G ⊗ np)`` (1/2 at x = z, a zero
  elsewhere), output ``4 ⊗ top ⊕ (−4) ⊗ N``: a zero everywhere.  At x = z the backward pass
  is h ⊗ 4, then (⊗ 1/4, ⊗ c) per chain neuron, then ⊗ 1/4 ⊗ w_x at r0.  The chain weights
  are transfer weights times 4, carrying 4h to ±2^E exactly.  Up to float32 they are
  ReLU's (:func:`fpsmt.constructions.relu.transfer_weights`, its significand route): every
  value they meet is a multiple of 4ω (4h is; the route's later values are products of it
  with powers of two, or at least 1/2), so each ⊗ 1/4 is exact and (u ⊗ 1/4) ⊗ 4c is the
  ReLU chain's u ⊗ c.  Beyond, :func:`route`'s quarter route passes through ±ω or ±2ω one
  ⊗ 1/4 after its one rounding.  The last two factors give g = (±2^E ⊗ 1/4) ⊗ w_x, with
  w_x = m_g·2^k (m_g g's significand) and k = max(0, e_g + 2 − e_max), so that 2^E is
  finite.  Where w_x ⊗ z would
  overflow (|g| in the top binade, |z| near M_σ), three atoms at z share g
  (:func:`gradient_pieces`).  At x = z the branch through N meets h·G <= H·2^(T+1), finite,
  and dies at np.
* the shallow gradient atom (``variant="shallow"``): the same layers, fewer chain layers:
  the transfer's weights up to 2^(e_max − 2) (:func:`shallow_cap`) and ±m_g one weight.
* the Theorem 3.1 network: the gradient atoms of the points with g* ≠ 0, then the value
  atoms' pieces, side by side at one depth, one output row
  (:func:`fpsmt.constructions.saturating.atoms_network`).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fpsmt.constructions import relu as R
from fpsmt.constructions.registry import Construction, HiddenActivation
from fpsmt.constructions import saturating as S
from fpsmt.constructions.saturating import atoms_network, sigma_bits, theorem_constants
from fpsmt.errors import InputError
from fpsmt.semantics.formats import floor_log2, pow2
from fpsmt.semantics.network import Param

FAMILY = "logistic"
NEG0 = R.NEG0

#: σ of the hidden layers while a construction of this family is active (default sigmoid)
hidden = HiddenActivation("sigmoid")
hidden_activation = hidden.using

#: separation layers at most
MAX_STAGES = 8


@dataclass(frozen=True)
class BlockConstants:
    activation: str
    T: int  # σ(t) = 1, σ(−t) a zero, σ'(±t) zeros for t >= 2^T (R.saturation's witness; at least 2)
    D: int  # pattern of 2^e_max·ω, the least first-layer pre-activation on the side x >= z
    stages: tuple  # (c pattern, ...): one separation layer σ(K ⊗ a ⊖ K ⊗ c) each, K = 2^e_max

    @property
    def step_depth(self):
        return 1 + len(self.stages)

    @property
    def value_depth(self):
        """The steps, p, the output."""
        return self.step_depth + 2


def _f(fmt, bits):
    return fmt.to_fraction(bits)


def saturation_exponent(fmt, name):
    """The least T >= 1 with σ(2^T) = 1, σ(−2^T) a zero and σ'(±2^T) zeros, or None
    (R.saturation proves it for every |t| >= 2^T)."""
    return S.saturation_exponent(fmt, name, low=0, start=1)


def least_margin(fmt):
    """D = 2^e_max·ω: the first layer's pre-activation at x = z where z − z⁻ = ω."""
    return fmt.round(Fraction(2) ** fmt.e_max * fmt.to_fraction(1))


def _mul(fmt, a, b):
    return fmt.round(_f(fmt, a) * _f(fmt, b))


def _add(fmt, a, b):
    return fmt.round(_f(fmt, a) + _f(fmt, b))


@functools.lru_cache(maxsize=None)
def _constants(name, fmt_name):
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(fmt_name)
    T = saturation_exponent(fmt, name)
    if T is None or T + 2 > fmt.e_max:
        raise InputError(f"{name} does not reach 1 and +0 with a zero derivative beyond some ±2^T with 2^(T+2) "
                         f"finite in {fmt.name}: the {FAMILY} construction needs it (requirement R.saturation)")
    T = max(T, 2)  # the gate G = 2^(T+1) leaves the top beyond −2^T for T >= 2
    half, d0 = sigma_bits(fmt, name, 0)
    if _f(fmt, half) != Fraction(1, 2) or _f(fmt, d0) != Fraction(1, 4):
        raise InputError(f"{name}(0) is not 1/2 with derivative 1/4 in {fmt.name} (requirement R.zero)")
    D = least_margin(fmt)
    lo, hi = half, sigma_bits(fmt, name, D)[0]  # a <= σ(0) where x <= z⁻, a >= σ(D) where x >= z
    if not _f(fmt, hi) > _f(fmt, lo):
        raise InputError(f"{name}(2^e_max·ω) = {fmt.show(hi)} is not above {name}(0) in {fmt.name}: a step indicator's "
                         "first layer cannot separate x = z from x = z⁻ (requirement R.step)")
    K = fmt.round(Fraction(2) ** fmt.e_max)
    big = Fraction(2) ** T
    stages = []
    while True:
        if len(stages) >= MAX_STAGES:
            raise InputError(f"{name} in {fmt.name}: {MAX_STAGES} separation layers do not reach ±2^{T}")
        mid = fmt.round((_f(fmt, lo) + _f(fmt, hi)) / 2)
        c = mid if _f(fmt, lo) < _f(fmt, mid) < _f(fmt, hi) else lo
        bias = fmt.round(-_f(fmt, K) * _f(fmt, c))
        pre_hi = _add(fmt, _mul(fmt, K, hi), bias)
        pre_lo = _add(fmt, _mul(fmt, K, lo), bias)
        stages.append(c)
        if _f(fmt, pre_hi) >= big and _f(fmt, pre_lo) <= -big:
            break
        hi, lo = sigma_bits(fmt, name, pre_hi)[0], sigma_bits(fmt, name, pre_lo)[0]
    return BlockConstants(name, T, D, tuple(stages))


def block_constants(fmt, name=None) -> BlockConstants:
    """The blocks' constants for σ (default: the active one) in ``fmt``."""
    return _constants(name or hidden(), fmt.name)


def check_format(fmt):
    block_constants(fmt)


def _pow2(k):
    return Fraction(2) ** k


# ------------------------------------------------------------------ step and point indicators
def first_weight(s, z):
    """w = max(1, D ⊘ (z − z⁻)) for 1[x >= z]: a power of two <= 2^e_max (z − z⁻ >= ω, a
    power of two, exact), so that w·(z − z⁻) >= D and w ⊗ z⁻ is finite."""
    f = s.fmt
    gap = z - z.next_down()
    q = s.lift(f.to_fraction(least_margin(f))) / gap
    return s.where(q > 1, q, 1)


def step_params(s, z, kind):
    """The first layer's weight and bias: ``ge``: w(z), −(w ⊗ z⁻); ``le`` (−x at −z):
    −w(−z), w(−z) ⊗ z⁺."""
    if kind == "ge":
        w = first_weight(s, z)
        return {"ge_w": w, "ge_b": -(w * z.next_down())}
    w = first_weight(s, -z)
    return {"le_w": -w, "le_b": w * z.next_up()}


def step_neurons(fmt, kind, tag=None):
    """The layers of one step indicator as Plan neurons (one per layer), on input x."""
    c = block_constants(fmt)
    tag = tag or kind
    K = _pow2(fmt.e_max)
    out = [[(f"{tag}0", [("x", Param(f"{kind}_w"))], Param(f"{kind}_b"))]]
    for i, cb in enumerate(c.stages):
        out.append([(f"{tag}{i + 1}", [(f"{tag}{i}", K)], -K * fmt.to_fraction(cb))])
    return out


def _plan(fmt):
    return R.Plan(fmt, activation=hidden())


def step(s, z, kind):
    """1[x >= z] ("ge") or 1[x <= z] ("le") alone: the block, then ``1 ⊗ u ⊕ −0``."""
    return R.block_alone(_plan(s.fmt), step_neurons(s.fmt, kind), 1, NEG0), step_params(s, z, kind)


def both_params(s, z):
    return {**step_params(s, z, "ge"), **step_params(s, z, "le")}


def _indicators(fmt, P, want, carries=0, side=None):
    """The two step indicators side by side, then ``want`` ⊆ {"p", "np"} (p = 1[x = z], np its
    complement), carried ``carries`` layers further.  ``side(k)`` adds neurons beside layer k."""
    c = block_constants(fmt)
    ge, le = step_neurons(fmt, "ge"), step_neurons(fmt, "le")
    layers = [ge[k] + le[k] for k in range(c.step_depth)]
    ug, ul = ge[-1][0][0], le[-1][0][0]
    K, T3 = _pow2(c.T + 1), 3 * _pow2(c.T)
    made = {"p": ("p", [(ug, K), (ul, K)], -T3), "np": ("np", [(ug, -K), (ul, -K)], T3)}
    layers.append([made[w] for w in want])
    for _ in range(carries):
        layers.append([(w, [(w, K)], -_pow2(c.T)) for w in want])
    for k, layer in enumerate(layers):
        P.add(layer + (side(k) if side else []))


def point(s, z):
    """1[x = z] alone: the steps, p, then ``1 ⊗ p ⊕ −0``."""
    f = s.fmt
    P = _plan(f)
    _indicators(f, P, ["p"])
    P.add([("out", [("p", 1)], NEG0)])
    return P.network(), both_params(s, z)


# ------------------------------------------------------------------ value atom
def value_atom(s, z, v, depth=None):
    """v·1[x = z] with D^AD = ±0 for |y ⊗ v| <= Ω; ``depth`` (>= :attr:`BlockConstants.value_depth`)
    by carrying p longer."""
    f = s.fmt
    c = block_constants(f)
    depth = R.atom_depth(depth, c.value_depth, "value atom")
    P = _plan(f)
    _indicators(f, P, ["p"], carries=depth - c.value_depth)
    P.add([("out", [("p", Param("v"))], NEG0)])
    return P.network(), {**both_params(s, z), "v": v}


def piece_bound(fmt, H) -> Fraction:
    """V = Ω/H rounded down to a power of two: |y ⊗ v| <= Ω for |y| <= H, |v| <= V."""
    return pow2(floor_log2(fmt.Omega / Fraction(H)))


# ------------------------------------------------------------------ gradient atom
def route(fmt):
    """The transfer chain's route (how 4h reaches sign(h)·1):

    * ``"significand"`` where ReLU takes it (M <= 23, up to float32): ReLU's weights
      (:func:`fpsmt.constructions.relu.normalize_weights`), each step (u ⊗ 1/4) ⊗ 4c being
      ReLU's u ⊗ c; its significand stage is decided by enumerating the 2^M significands;
    * ``"quarter"`` beyond (float64, where 2^52 significands cannot be enumerated and no
      back end decides the product of two symbolic ones): ReLU's subnormal route moved up
      by a factor 4, since ±ω and ±2ω die at the next ⊗ 1/4.  The weight ``down`` takes
      the chain's value into ±[4ω, 8ω) (one rounding, to a multiple of ω in ±[4ω, 8ω]),
      the next step's ⊗ 1/4 rounds that to ±ω or ±2ω, and its 4c (c >= 1) lifts it
      before the ⊗ 1/4 after; then powers of two up to ±1 (:func:`normalize_weights`)."""
    return "significand" if fmt.M <= R.SIGNIFICAND_ROUTE_BITS else "quarter"


#: the quarter route's ``down`` takes the chain into ±[2^DOWN_LIFT·ω, 2^(DOWN_LIFT+1)·ω): 4ω,
#: so that the ⊗ 1/4 after leaves ±ω or ±2ω (with 0, ReLU's ±[ω, 2ω), that ⊗ 1/4 gives ±0)
DOWN_LIFT = 2


def chain_step(s, u, c):
    """One backward step of the chain: (u ⊗ 1/4) ⊗ (4 ⊗ c), c the transfer's weight (the
    network's weight is 4c; σ'(±0) = 1/4)."""
    return (u * s.lift(Fraction(1, 4))) * (s.const(4) * c)


def normalize_weights(s, u, q=None):
    """(w_out, mids): the transfer's weights carrying u = 4h (finite, a nonzero multiple of
    4ω) to sign(h)·1 through :func:`chain_step`, by :func:`route`.  Quarter route: w_out, a
    power of two <= 1, takes u to ±[2^e, 2^(e+1)), e <= 0 (exact); ``down`` =
    2^(e_min − M + 2 − e) takes it into ±[4ω, 8ω) (the one rounding), the next ⊗ 1/4 to ±ω
    or ±2ω; the ups (:func:`fpsmt.constructions.relu.ups_to_one`, from that value's
    exponent) carry it on to ±1."""
    f = s.fmt
    if route(f) == "significand":
        return R.normalize_weights(s, u, "significand", q)
    e = R.true_exponent(s, u)
    w_out = s.iwhere(e > 0, -e, 0).pow2()
    down = (f.e_min - f.M + DOWN_LIFT - s.iwhere(e > 0, 0, e)).pow2()
    r = chain_step(s, chain_step(s, u, w_out), down) * s.lift(Fraction(1, 4))  # ±ω or ±2ω
    return w_out, [down] + R.ups_to_one(s, s.iwhere(r.is_zero(), 0, -R.true_exponent(s, r) - 2), q)

#: the gradient atom's output weight: h ⊗ 4 is a multiple of 4ω, so h ⊗ 4 ⊗ 1/4 = h exactly
W_OUT = 4


def input_weight(s, g):
    """(w_x, E): w_x = m_g·2^k with k = max(0, e_g + 2 − e_max), and E = e_g + 2 − k, so that
    (±2^E ⊗ 1/4) ⊗ w_x = g exactly."""
    f = s.fmt
    m, e = R.significand(s, g)
    k = s.iwhere(e + 2 > f.e_max, e + 2 - f.e_max, 0)
    return m * k.pow2(), e + 2 - k


def shallow_cap(fmt):
    """q of the shallow gradient atom's transfer: e_max − 2, so that every network weight
    4c (c <= 2^q) is finite.  A chain layer σ(4c ⊗ r ⊖ 2c) takes r = 1/2 to σ(+0) = 1/2 for
    every finite 4c (4c ⊗ 1/2 is exact), and elsewhere r is in [0, 1]: no reset bounds the
    weight further (the repaired chain's cap is ReLU's 2^min(p, e_max))."""
    return fmt.e_max - 2


def _transfer(fmt, variant):
    """(q, merge_sign) of ``variant``'s transfer (:func:`fpsmt.constructions.relu.transfer_length`)."""
    return (shallow_cap(fmt), True) if variant == R.SHALLOW else (None, False)


def chain(s, h, g, variant=R.REPAIRED):
    """(w_x, [c_L, …, c_1]): the backward weights of the gradient atom's path after the
    output weight W_OUT, output side first (see the module docstring).  ``variant="shallow"``:
    the transfer's powers of two up to 2^(e_max − 2) (:func:`shallow_cap`) and the sign and
    g's significand one weight ±m_g."""
    q, merge = _transfer(s.fmt, variant)
    w_x, E = input_weight(s, g)
    target = s.where(g.is_negative(), -E.pow2(), E.pow2())
    w_out, mids = normalize_weights(s, h * W_OUT, q)
    t = h * W_OUT
    for c in [w_out] + mids:
        t = chain_step(s, t, c)  # sign(h)·1
    sgn, m, exps = R.target_weights(s, target, t, q)
    return w_x, [4 * w for w in [w_out] + mids + ([sgn * m] if merge else [sgn, m]) + exps]


def chain_length(fmt, variant=R.REPAIRED):
    q, merge = _transfer(fmt, variant)
    return 1 + R.transfer_length(fmt, route=route(fmt), q=q, merge_sign=merge)


def gradient_depth(fmt, variant=R.REPAIRED):
    """r0, one layer σ(4 ⊗ r ⊖ 2) beside each step layer and np (the gate: constants only,
    so that its lemma stage does not depend on h), one per chain weight (the last one the
    gated top), the output."""
    return block_constants(fmt).step_depth + chain_length(fmt, variant) + 2


def gradient_layers(fmt, depth=None, variant=R.REPAIRED):
    """(gate, top): the gate's last layer index (np and r) and the top's (r, N)."""
    depth = R.atom_depth(depth, gradient_depth(fmt, variant), "gradient atom")
    return block_constants(fmt).step_depth, depth - 2


def chain_neuron(k):
    """A chain layer's path neuron r = σ(c_k ⊗ r ⊖ c_k/2) (parameters ``c{k}``, ``bc{k}``)."""
    return ("r", [("r", Param(f"c{k}"))], Param(f"bc{k}"))


def gradient_network(fmt, depth=None, variant=R.REPAIRED):
    """The gradient atom's network with its parameters named (:func:`gradient_atom` gives
    their values): layers 0 … s (s the step depth) are the gate — the step indicators and
    np beside r0 = σ(w_x ⊗ x ⊖ w_x ⊗ z), then r = σ(4 ⊗ r ⊖ 2) — then one chain layer (np
    carried, :func:`chain_neuron`) per chain weight before the top, the gated top with N,
    the output ``4 ⊗ top ⊕ (−4) ⊗ N``.  The shallow variant has the same layers, fewer of
    them (:func:`chain_length`)."""
    c = block_constants(fmt)
    gate, top = gradient_layers(fmt, depth, variant)
    G = _pow2(c.T + 1)

    def side(k):
        if k == 0:
            return [("r", [("x", Param("wx"))], Param("bx"))]
        if k <= gate:
            return [("r", [("r", 4)], -2)]
        return [chain_neuron(k)]
    P = _plan(fmt)
    _indicators(fmt, P, ["np"], carries=top - 1 - c.step_depth, side=side)  # layers 0 … top − 1
    P.add([("r", [("np", -G), ("r", Param(f"c{top}"))], Param(f"bc{top}")), ("N", [("np", -G)], NEG0)])
    P.add([("out", [("r", W_OUT), ("N", -W_OUT)], NEG0)])
    return P.network()


def gradient_atom(s, z, h, g, depth=None, variant=R.REPAIRED):
    """Value ±0 on X; D^AD(h) = g at x = z; D^AD(y) = ±0 elsewhere for |y| <= H (h, g finite
    nonzero, within :func:`check_points`' ranges).  See the module docstring and
    :func:`gradient_network`: the chain weights (input side first) are c_{s+1} … c_top, after
    weights 4 when the atom is deeper than its least depth.  ``variant="shallow"``: the
    shallow transfer's weights (:func:`chain`)."""
    f = s.fmt
    net = gradient_network(f, depth, variant)
    gate, top = gradient_layers(f, depth, variant)
    w_x, cs = chain(s, h, g, variant)
    ws = list(reversed(cs))  # forward order: input side first
    ws = [s.const(4)] * (top - gate - len(ws)) + ws  # (u ⊗ 1/4) ⊗ 4 = u
    params = {**both_params(s, z), "wx": w_x, "bx": -(w_x * z)}
    half = s.lift(Fraction(1, 2))
    for i, w in enumerate(ws):
        k = gate + 1 + i
        params[f"c{k}"], params[f"bc{k}"] = w, -(w * half)
    return net, params


def reached(s, z, g):
    """Whether one gradient atom at z gives g: its weight on x, w_x = m_g·2^k
    (:func:`input_weight`), times z is finite (the gradient atom lemma's hypothesis)."""
    w_x, _ = input_weight(s, g)
    return (w_x * z).is_finite()


#: the split's share: its first two parts are g ⊗ RN(3/10)
SHARE = Fraction(3, 10)


def split(s, g):
    """(a, b) with a = g ⊗ RN(3/10) (one rounding of g times the format's constant) and
    b = g ⊖ (a ⊕ a): three atoms at z give a, a, b, summed left to right.  Where this is used
    (|g| in the top binade), a ⊕ a is exact and within [g/2, 2g], so b is exact (Sterbenz)
    and (a ⊕ a) ⊕ b = g; each part is about 0.3–0.4·|g| (claim ``logi_gradient_split``)."""
    a = g * s.const(s.fmt.hex(s.fmt.round(SHARE)))
    return a, g - (a + a)


def split_holds(s, z, g):
    """What the three-atom split guarantees: (a ⊕ a) ⊕ b = g, a and b nonzero and each
    reached by one atom at z."""
    a, b = split(s, g)
    return [((a + a) + b).same(g), ~a.is_zero(), ~b.is_zero(), reached(s, z, a), reached(s, z, b)]


def _scalar(fmt, *bits):
    """A concrete scope and the floats of ``bits`` in it (the builders' code on one point)."""
    from fpsmt.proof.claims import F, Scope
    from fpsmt.semantics.arith import concrete as executor
    A = executor(fmt)
    s = Scope(A, fmt, {})
    return s, [F(s, A.const(np.asarray(b, dtype=np.uint64))) for b in bits]


def _true(b):
    return bool(np.all(b.v))


def _reaches(fmt, z, g):
    s, (zz, gg) = _scalar(fmt, z, g)
    return _true(reached(s, zz, gg))


def gradient_pieces(fmt, z, g):
    """The parts of g that gradient atoms side by side at z give, in the order their
    first-layer terms are summed: [g] when one atom reaches it (:func:`reached`); else
    [a, a, b] of :func:`split`, when :func:`split_holds` — where |g| is near Ω and |x| near
    M_σ, one atom's w_x ⊗ x would overflow.  An InputError naming x and g* when neither
    works."""
    s, (zz, gg) = _scalar(fmt, z, g)
    if _true(reached(s, zz, gg)):
        return [g]
    if all(_true(c) for c in split_holds(s, zz, gg)):
        a, b = (int(np.ravel(s.A.to_bits(v.v))[0]) for v in split(s, gg))
        return [a, a, b]
    raise InputError(f"at x = {fmt.show(z)}: g* = {fmt.show(g)} is out of the {FAMILY} gradient atoms' reach in "
                     f"{fmt.name}: the first-layer weight on x that gives it (or a third of it) times x is not finite")


# ------------------------------------------------------------------ Theorem 3.1
def theorem_network(fmt, points, variant=R.REPAIRED, depth=None):
    """``variant="shallow"``: the shallow gradient atoms (:func:`shallow_cap`).  ``depth``: at
    least :func:`least_depth` (:func:`theorem_depth`): the gradient atoms' chains begin with
    network weights 4 (w = 1: (t ⊗ 1/4) ⊗ 4, which keeps PATH(t)), the value atoms carry p
    longer."""
    cons = _construction()
    cons.check_points(fmt, points)
    return atoms_network(fmt, points, piece_bound(fmt, cons.constants(fmt).H_sigma), value_atom,
                         functools.partial(gradient_atom, variant=variant), block_constants(fmt).value_depth,
                         gradient_depth(fmt, variant), gradient_pieces=gradient_pieces,
                         depth=theorem_depth(fmt, depth, variant))


def value_atoms(fmt, points):
    return S.count_value_atoms(fmt, points, piece_bound(fmt, _construction().constants(fmt).H_sigma))


def check_points(fmt, points):
    """The blocks' hypotheses (:func:`fpsmt.constructions.relu.check_points`), the pieces a
    value needs, and the gradient atoms' weight on x times x finite (:func:`gradient_pieces`)."""
    R.check_points(fmt, points)
    theorem = _construction().constants(fmt)
    inside = [p for p in points if abs(fmt.to_fraction(p[0])) <= theorem.M_sigma]  # the rest: refused next, naming X
    S.check_pieces(fmt, inside, piece_bound(fmt, theorem.H_sigma))
    for z, _, _, g in inside:
        if not fmt.is_zero(g):
            gradient_pieces(fmt, z, g)


def depth(fmt, variant=R.REPAIRED):
    return max(gradient_depth(fmt, variant), block_constants(fmt).value_depth)


def least_depth(fmt, variant=R.REPAIRED):
    """The theorem's network's least depth (``construct --depth`` pads above it)."""
    return depth(fmt, variant)


def theorem_depth(fmt, depth=None, variant=R.REPAIRED):
    """``depth`` checked (None: the least): at least :func:`least_depth`, and at most
    :data:`fpsmt.constructions.relu.PADDING_MAX` above it, which the value atom's padding
    induction and the gradient atom's chain and padding inductions cover
    (proofs/logi_value_atom.py, proofs/logi_gradient_atom.py); one error line otherwise."""
    return S.padded_depth(fmt, depth, least_depth(fmt, variant), block_constants(fmt).value_depth, hidden(),
                          "logi_value_atom.padding, logi_gradient_atom's chain inductions and padding")


#: the gradient atoms this family builds (``construct --variant``)
ATOM_VARIANTS = (R.REPAIRED, R.SHALLOW)


CONSTRUCTIONS = [Construction("sigmoid", FAMILY, sys.modules[__name__], theorem_constants("sigmoid"),
                              paper_depth="a few more than 7")]


def _construction():
    from fpsmt.constructions.registry import constructions
    return constructions()[hidden()]
