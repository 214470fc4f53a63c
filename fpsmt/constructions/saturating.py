"""Builders of the Theorem 3.1 construction for odd activations that saturate: σ(t) = ±1
and σ'(t) = 0 exactly (after rounding) for |t| >= 2^T, σ(±0) a zero and σ'(±0) = 1
(tanh; a user's activation with the same requirements, ``specs/requirements.py``).

Every hidden layer applies σ, the output layer is the identity.  The constants come from
the format and from σ's values (:func:`block_constants`): T is the witness of the
saturation requirement, the amplification from σ(ω) (ω the least subnormal).  Blocks:

* step indicator u = ±1 for 1[x >= z] (``kind`` "ge"; "le" for 1[x <= z]): layer 1
  ``σ(x ⊖ z⁻)`` (> 0 exactly for x >= z, <= 0 for x <= z⁻, by monotone rounding);
  ``n_amp`` layers ``σ(2^e_max ⊗ a)`` take the least positive value, σ(ω), up; a last layer
  ``σ(2^W ⊗ a ⊖ 2^T)`` lands beyond ±2^T: u = +1 or −1, saturated, so σ' = 0 there and the
  backward pass dies in that layer for every finite upstream (all weights below are finite).
  1[x <= z] is the same block fed −x at −z (first layer ``σ(z⁺ ⊖ x)``).
* point indicator p = ±1 for 1[x = z]: ``σ(2^T ⊗ u_ge ⊕ 2^T ⊗ u_le ⊖ 2^T)``: +2^T at x = z,
  −2^T elsewhere (exact), saturated both ways.  Carried on by ``σ(2^T ⊗ p)`` (again ±1,
  saturated).
* value atom v·1[x = z]: ``q = σ(W ⊗ p_1 ⊕ … ⊕ W ⊗ p_n ⊕ n·W)`` over n copies of p with
  n·W = 2^(T−1) (n at most 2^FAN_BITS; W = 1 for tanh): q = 1 at x = z (pre-activation
  2^T, saturated) and q = σ(+0) = +0 elsewhere (pre-activation exactly +0); output
  ``v ⊗ q``.  The upstream y meets v first, then q alive (σ'(+0) = 1 at x ≠ z), then W:
  |y ⊗ v ⊗ W| <= Ω for |v| <= V = Ω/(H·W) (:func:`piece_bound`), and the gradient dies at
  p's σ' = 0.  A value above V is the sum of several atoms at the same z (:func:`pieces`),
  each at most V.
* gradient atom (value ±0 on X; D^AD(h) = g at x = z, ±0 elsewhere for every finite y):
  a path ``r0 = σ(x ⊖ z)`` (exactly +0 at x = z, where σ' = 1), carried by ``σ(1 ⊗ r)``
  beside the step indicators and p (the gate: its layers hold no parameter but z's, so
  that the lemma's tree states them once for all h and g), then one layer
  ``σ(c ⊗ r)`` per transfer weight c (:func:`fpsmt.constructions.relu.transfer_weights`,
  proved by proofs/multiplication_transfer.py): at x = z every value of the path is a zero
  and every σ' is 1, so the backward pass computes h ⊗ w_out ⊗ c_top ⊗ … = g.  The top
  layer is gated: ``σ(c ⊗ r ⊕ G ⊗ p ⊖ G)`` is exactly ±0 at x = z and beyond −2^T elsewhere
  (saturated: the path is dead there), with a neighbour ``N = σ(−G ⊗ p ⊕ G)`` (0 at z, 1
  elsewhere) so that the output ``w_out ⊗ r_top ⊕ w_out ⊗ N`` is a zero everywhere.  The
  gradient that reaches p at x = z is at most 2·G (the chain's output side is within
  [1, 2) after w_out), so it stays finite, and dies at p's σ' = 0.
* the shallow gradient atom (``variant="shallow"``, :func:`chain_length`): the compact
  transfer (:func:`fpsmt.constructions.relu.compact_weights`: h to ±1 in three weights,
  then ±|g| one weight; r is a zero at x = z and in [−1, 1] elsewhere: no finite weight
  overflows it), under a top of the constant weight 1 whose gate is 2^T
  (:func:`gate_exponent`).
* the Theorem 3.1 network: the gradient atoms of the points with g* ≠ 0, then the value
  atoms' pieces, side by side at one depth (value atoms carry p longer), one output row
  summing every term in that order.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fpsmt.constructions import relu as R
from fpsmt.constructions.registry import Construction, HiddenActivation
from fpsmt.constructions.registry import show_bound
from fpsmt.errors import InputError
from fpsmt.semantics.formats import floor_log2, pow2
from fpsmt.semantics.network import Param

FAMILY = "saturating"
NEG0 = R.NEG0

# ------------------------------------------------------------------ the hidden activation
#: σ of the hidden layers while a construction of this family is active (default tanh)
hidden = HiddenActivation("tanh")
hidden_activation = hidden.using


# ------------------------------------------------------------------ constants from σ and the format
@dataclass(frozen=True)
class BlockConstants:
    activation: str
    T: int  # σ(±t) = ±1 and σ'(±t) = 0 for |t| >= 2^T (the saturation requirement's witness)
    n_amp: int  # layers σ(2^e_max ⊗ a) in a step indicator
    final: int  # the step indicator's last weight is 2^final
    gate: int  # the gradient atom's gate weight G = 2^gate
    fan: int  # copies of p feeding a value atom's q (2^(T−1), at most 2^FAN_BITS)
    fan_weight: int  # each copy's weight in q, 2^(T−1)/fan (1 unless T − 1 > FAN_BITS)

    @property
    def step_depth(self):
        return self.n_amp + 2

    @property
    def value_depth(self):
        """Layers of a value atom at its least depth: the steps, p, q, the output."""
        return self.step_depth + 3


def sigma_bits(fmt, name, bits):
    """(σ(x), σ'(x)) as bit patterns, correctly rounded, in the executor."""
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.arith import concrete
    A = concrete(fmt)
    act = get_activation(name)
    x = A.const(np.asarray([bits], dtype=fmt.uint_dtype if fmt.nbits <= 64 else object))
    return int(np.ravel(A.to_bits(act.value(A, x)))[0]), int(np.ravel(A.to_bits(act.derivative(A, x)))[0])


def saturation_exponent(fmt, name, low=-1, start=0):
    """The least T >= ``start`` with σ(2^T) = 1, σ(−2^T) = ``low`` (−1; 0: a zero of either
    sign) and σ'(±2^T) = 0, or None.  The requirement R.saturation (specs/requirements.py)
    proves it for every |t| >= 2^T."""
    one = fmt.round(Fraction(1))
    low_is = (lambda b: fmt.is_zero(b)) if low == 0 else (lambda b: b == fmt.round(Fraction(low)))
    for T in range(start, fmt.e_max):
        hi, lo = sigma_bits(fmt, name, fmt.round(Fraction(2) ** T)), sigma_bits(fmt, name, fmt.round(-Fraction(2) ** T))
        if hi[0] == one and low_is(lo[0]) and fmt.is_zero(hi[1]) and fmt.is_zero(lo[1]):
            return T
    return None


#: a value atom's q sums at most 2^FAN_BITS copies of p; beyond, each copy has weight
#: 2^(T−1−FAN_BITS) and one piece carries that much less (:func:`piece_bound`)
FAN_BITS = 8


@functools.lru_cache(maxsize=None)
def _constants(name, fmt_name):
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(fmt_name)
    T = saturation_exponent(fmt, name)
    if T is None or T < 1:
        raise InputError(f"{name} does not saturate at ±1 with a zero derivative beyond some 2^T >= 2 in "
                         f"{fmt.name}: the {FAMILY} construction needs it (requirement R.saturation)")
    s, _ = sigma_bits(fmt, name, 1)  # σ(ω): the least positive value the first layer gives
    if not (fmt.is_finite(s) and not fmt.is_zero(s) and not fmt.is_negative(s)):
        raise InputError(f"{name}(ω) is not positive in {fmt.name}: a step indicator cannot see x ⊖ z⁻ = ω "
                         "(requirement R.sign)")
    need = Fraction(2) ** (T + 1)
    top = Fraction(2) ** fmt.e_max
    amp = fmt.round(top)
    n_amp = 0
    while need / fmt.to_fraction(s) > top:
        if n_amp >= 8:
            raise InputError(f"{name} in {fmt.name}: σ(ω) is not carried beyond 2^{T} by 8 layers σ(2^e_max ⊗ a)")
        from fpsmt.semantics.arith import concrete
        A = concrete(fmt)
        prod = int(np.ravel(A.to_bits(A.mul(A.const(np.asarray([amp], dtype=fmt.uint_dtype)),
                                              A.const(np.asarray([s], dtype=fmt.uint_dtype)))))[0])
        s, _ = sigma_bits(fmt, name, prod)
        n_amp += 1
    ratio = need / fmt.to_fraction(s)
    final = max(0, (ratio.numerator + ratio.denominator - 1) // ratio.denominator - 1).bit_length()
    q = R.step_cap(fmt)
    gate = max(q, T)
    if gate + 1 > fmt.e_max:
        raise InputError(f"{name} in {fmt.name}: the gradient atom's gate 2·2^{gate} is not finite "
                         f"(e_max = {fmt.e_max})")
    fan = 1 << min(T - 1, FAN_BITS)
    return BlockConstants(name, T, n_amp, final, gate, fan, (1 << (T - 1)) // fan)


def block_constants(fmt, name=None) -> BlockConstants:
    """The blocks' constants for σ (default: the active one) in ``fmt``."""
    name = name or hidden()
    return _constants(name, fmt.name)


def piece_bound(fmt, H) -> Fraction:
    """V = Ω / (H·W) rounded down to a power of two, W the weight of q's copies of p
    (:attr:`BlockConstants.fan_weight`, 1 for tanh): |y ⊗ v ⊗ W| <= Ω for |y| <= H, |v| <= V —
    at x ≠ z the backward pass crosses q alive (σ'(0) = 1) and meets W before it dies at p."""
    return pow2(floor_log2(fmt.Omega / (Fraction(H) * block_constants(fmt).fan_weight)))


# ------------------------------------------------------------------ blocks
def _pow2(k):
    return Fraction(2) ** k


def step_neurons(fmt, kind, tag=None):
    """The layers of one step indicator as Plan neurons (one per layer), on input x."""
    c = block_constants(fmt)
    tag = tag or kind
    first = (f"{tag}0", [("x", 1 if kind == "ge" else -1)], Param(f"{tag}_b"))
    out = [[first]]
    for i in range(c.n_amp):
        out.append([(f"{tag}{i + 1}", [(f"{tag}{i}", _pow2(fmt.e_max))], NEG0)])
    out.append([(f"{tag}{c.n_amp + 1}", [(f"{tag}{c.n_amp}", _pow2(c.final))], -_pow2(c.T))])
    return out


def _plan(fmt):
    return R.Plan(fmt, activation=hidden())


def step(s, z, kind):
    """1[x >= z] ("ge") or 1[x <= z] ("le") alone: the block, then ``0.5 ⊗ u ⊕ 0.5`` (1 or +0)."""
    return R.block_alone(_plan(s.fmt), step_neurons(s.fmt, kind), Fraction(1, 2), Fraction(1, 2)), \
        {f"{kind}_b": first_bias(s, z, kind)}


def first_bias(s, z, kind):
    return -(z.next_down()) if kind == "ge" else z.next_up()


def step_biases(s, z):
    """The two step indicators' first biases, as the blocks built on both name them."""
    return {"ge_b": first_bias(s, z, "ge"), "le_b": first_bias(s, z, "le")}


def _steps_and_point(fmt, P, copies=1, carries=0, side=None):
    """The two step indicators side by side, then the point indicator p (``copies`` of it
    after ``carries`` carry layers).  ``side(k)`` adds neurons beside layer k (k = 0 …)."""
    c = block_constants(fmt)
    ge, le = step_neurons(fmt, "ge"), step_neurons(fmt, "le")
    K = _pow2(c.T)
    layers = [ge[k] + le[k] for k in range(c.step_depth)]
    ug, ul = ge[-1][0][0], le[-1][0][0]
    point = lambda name: (name, [(ug, K), (ul, K)], -K)  # noqa: E731
    carry = lambda name: (name, [("p", K)], NEG0)  # noqa: E731
    names = [f"p{i}" for i in range(copies)] if copies > 1 else ["p"]
    if carries == 0:
        layers.append([point(n) for n in names])
    else:
        layers.append([point("p")])
        for j in range(carries):
            layers.append([carry(n) for n in (names if j == carries - 1 else ["p"])])
    for k, layer in enumerate(layers):
        P.add(layer + (side(k) if side else []))
    return names


def point(s, z):
    """1[x = z] alone: the steps, p, then ``0.5 ⊗ p ⊕ 0.5``."""
    f = s.fmt
    P = _plan(f)
    _steps_and_point(f, P)
    P.add([("out", [("p", Fraction(1, 2))], Fraction(1, 2))])
    return P.network(), step_biases(s, z)


def value_atom(s, z, v, depth=None):
    """v·1[x = z] with D^AD = ±0 for |y| ⊗ |v| <= Ω (one piece, see :func:`pieces`);
    ``depth`` (>= the least, :attr:`BlockConstants.value_depth`) by carrying p longer."""
    f = s.fmt
    c = block_constants(f)
    depth = R.atom_depth(depth, c.value_depth, "value atom")
    P = _plan(f)
    names = _steps_and_point(f, P, copies=c.fan, carries=depth - c.value_depth)
    P.add([("q", [(n, c.fan_weight) for n in names], Fraction(c.fan * c.fan_weight))])
    P.add([("out", [("q", Param("v"))], NEG0)])
    return P.network(), {**step_biases(s, z), "v": v}


def gradient_depth(fmt, variant=R.REPAIRED):
    """Layers of a gradient atom: r0, one layer of weight 1 beside each step layer and p (the
    gate: constants only, so that its lemma stage does not depend on h or g), one per transfer
    weight (the last one gated by p), the output.  ``variant="shallow"``: one per weight of
    the compact transfer with ±|g| one weight (:func:`chain_length`), then the gated top
    with the constant weight 1."""
    return block_constants(fmt).step_depth + chain_length(fmt, variant) + 2


def chain_length(fmt, variant=R.REPAIRED):
    """The gradient atom's layers between the gate and the output: the transfer's weights
    (repaired: the last one is the gated top's), or (shallow) the compact transfer's with
    ±|g| one weight (:func:`fpsmt.constructions.relu.compact_weights`), then the gated top
    of weight 1.  A chain weight c only scales r, which is a zero at x = z and in
    [−1, 1] elsewhere, so c ⊗ r is finite for every finite c: nothing bounds the weights
    but the top's gate, which must saturate c_top ⊗ r ⊕ G ⊗ p ⊖ G at x ≠ z — hence the
    shallow top's weight 1 (and its smaller G, :func:`gate_exponent`)."""
    if variant == R.SHALLOW:
        return R.compact_length(fmt, merge_sign=True) + 1
    return R.transfer_length(fmt)


def gradient_network(fmt, depth=None, variant=R.REPAIRED):
    """The gradient atom's network with its parameters named (:func:`gradient_atom` gives
    their values): layers 0 … step_depth are the gate (the step indicators and p beside the
    path r0 = σ(x ⊖ z), then r = σ(1 ⊗ r)), then one chain layer (p carried, r = σ(c_i ⊗ r))
    per weight c_i before the top, the gated top with N, the output.  The shallow top's
    weight is the constant 1 (:func:`chain_length`)."""
    gate, top = gradient_layers(fmt, depth, variant)  # p's layer (the gate's last) and the top's (r0 is layer 0)
    G = _pow2(gate_exponent(fmt, variant))

    def side(k):
        if k == 0:
            return [("r", [("x", 1)], Param("zn"))]
        if k <= gate:
            return [("r", [("r", 1)], NEG0)]
        return [chain_neuron(f"c{k}")]
    P = _plan(fmt)
    _steps_and_point(fmt, P, carries=top - 1 - gate, side=side)  # layers 0 … top − 1
    c_top = 1 if variant == R.SHALLOW else Param(f"c{top}")
    P.add([("r", [("r", c_top), ("p", G)], -G), ("N", [("p", -G)], G)])
    P.add([("out", [("r", Param("w_out")), ("N", Param("w_out"))], NEG0)])
    return P.network()


def gate_exponent(fmt, variant=R.REPAIRED):
    """The top's gate weight G = 2^this: the block constants' (it must saturate c_top ⊗ r ⊕
    G ⊗ p ⊖ G at x ≠ z for every c_top in K, up to 2^q), or T for the shallow top, whose
    weight is 1: 1 − 2·2^T <= −2^T.  The smaller G keeps the gradient the top sends into p
    at x = z, y ⊗ w_out ⊗ G for every |y| <= H, finite where H·2^gate is not (float16:
    H = 2^8, 2^gate = 2^10)."""
    return block_constants(fmt).T if variant == R.SHALLOW else block_constants(fmt).gate


def chain_neuron(name):
    """A chain layer's path neuron r = σ(c ⊗ r) (c the parameter ``name``)."""
    return ("r", [("r", Param(name))], NEG0)


def gradient_layers(fmt, depth=None, variant=R.REPAIRED):
    """(gate, top): the gate's last layer index (p and r) and the top's (r, N)."""
    c = block_constants(fmt)
    depth = R.atom_depth(depth, gradient_depth(fmt, variant), "gradient atom")
    return c.step_depth, depth - 2


def gradient_atom(s, z, h, g, depth=None, variant=R.REPAIRED):
    """Value ±0 on X; D^AD(h) = g at x = z; D^AD(y) = ±0 elsewhere for every finite y
    (h, g finite nonzero).  See the module docstring and :func:`gradient_network`: the
    transfer weights (input side first) are c_{gate+1} … c_top (shallow: … c_{top−1}, the
    compact transfer with ±|g| one weight); when the atom is deeper than its
    least depth, weights 1 come first."""
    f = s.fmt
    net = gradient_network(f, depth, variant)
    gate, top = gradient_layers(f, depth, variant)
    if variant == R.SHALLOW:
        w_out, chain = R.compact_weights(s, h, g, merge_sign=True)
        last = top - 1
    else:
        w_out, chain = R.transfer_weights(s, h, g)
        last = top
    weights = list(reversed(chain))  # forward order: input side first
    ws = [s.const(1)] * (last - gate - len(weights)) + weights
    params = {**step_biases(s, z), "zn": -z, "w_out": w_out}
    params.update({f"c{gate + 1 + i}": w for i, w in enumerate(ws)})
    return net, params


# ------------------------------------------------------------------ values above V: pieces
MAX_PIECES = 4096


def pieces(fmt, v, V):
    """Floats a_1, …, a_n of v's sign, each |a_i| <= V, whose left-to-right float sum is v
    (bit patterns); [v] when |v| <= V.  Greedy: the largest step that does not pass v."""
    target = abs(fmt.to_fraction(v))
    neg = fmt.is_negative(v)
    if target <= V:
        return [v]
    vbits = fmt.round(Fraction(V))
    out, s = [], Fraction(0)
    while s != target:
        rem = target - s
        cand = fmt.round(rem) if rem <= V else vbits
        if fmt.to_fraction(cand) > rem:  # rounded up past v: step down
            cand = fmt.next_down(cand)
        nxt = fmt.to_fraction(fmt.round(s + fmt.to_fraction(cand)))
        while nxt > target:
            cand = fmt.next_down(cand)
            nxt = fmt.to_fraction(fmt.round(s + fmt.to_fraction(cand)))
        if nxt == s:
            raise InputError(f"f* = {fmt.show(v)} is not a sum of pieces of at most {V} in {fmt.name}")
        out.append(cand)
        s = nxt
        if len(out) > MAX_PIECES:
            raise InputError(f"f* = {fmt.show(v)} needs more than {MAX_PIECES} output pieces of at most "
                             f"{show_bound(V)} each (so that h ⊗ piece stays finite for |h| <= H)")
    return [fmt.round(-fmt.to_fraction(a)) if neg else a for a in out]


# ------------------------------------------------------------------ Theorem 3.1
def theorem_network(fmt, points, variant=R.REPAIRED, depth=None):
    """f = f2 ⊞ f1 for ``points`` = [(z, f*, h*, g*)] (bit patterns): the gradient atoms of
    the points with g* ≠ 0, then the value atoms' pieces (nonzero f* only), at one depth.
    ``variant="shallow"``: the shallow gradient atoms (:func:`chain_length`; the rows'
    shallow variant).  ``depth``: at least :func:`least_depth` (:func:`theorem_depth`): the
    gradient atoms' chains begin with weights 1, the value atoms carry p longer."""
    cons = _construction()
    cons.check_points(fmt, points)
    return atoms_network(fmt, points, piece_bound(fmt, cons.constants(fmt).H_sigma),
                         value_atom, functools.partial(gradient_atom, variant=variant),
                         block_constants(fmt).value_depth, gradient_depth(fmt, variant),
                         depth=theorem_depth(fmt, depth, variant))


def atoms_network(fmt, points, V, value_atom, gradient_atom, value_depth, gradient_depth, later_piece=None,
                  gradient_pieces=None, depth=None):
    """The gradient atoms of the points with g* ≠ 0, then the value atoms of the pieces of
    at most V of each nonzero f* (one atom of value +0 when every f* is zero), at one depth
    (the larger of the two kinds' least depths, with or without gradient atoms: the depth
    the family's lemmas state), one output row: a family's Theorem 3.1 network
    from its builders (``value_atom(s, z, v, depth=)``, ``gradient_atom(s, z, h, g, depth=)``);
    ``later_piece``: the least magnitude of a value's pieces after its first that the family's
    theorem covers (proofs/family_theorem.py), checked; ``gradient_pieces(fmt, z, g)``: the
    parts of g that atoms side by side at z give, in order (default [g]); ``depth``: a greater
    depth (checked by the family's ``theorem_depth``), every atom padded by its builder."""
    split = gradient_pieces or (lambda f, z, g: [g])
    ga = [(z, h, a) for z, _, h, g in points if not fmt.is_zero(g) for a in split(fmt, z, g)]
    va = []
    for z, v, _, _ in points:
        ps = pieces(fmt, v, V) if not fmt.is_zero(v) else []
        small = [a for a in ps[1:] if later_piece is not None and abs(fmt.to_fraction(a)) < later_piece]
        if small:  # what the family's theorem takes of every piece but a value's first
            raise AssertionError(f"f* = {fmt.show(v)}: a piece {fmt.show(small[0])} after the first is below "
                                 f"{later_piece}, which the theorem's join does not cover")
        va += [(z, a) for a in ps]
    # one depth whether or not a gradient atom is built: the depth the atoms' lemmas state
    depth = depth or max(gradient_depth, value_depth)
    kinds = []
    if ga:
        kinds.append(R.block_copies(functools.partial(gradient_atom, depth=depth), fmt, list(map(list, zip(*ga))), depth))
    if va:
        kinds.append(R.block_copies(functools.partial(value_atom, depth=depth), fmt, list(map(list, zip(*va))), depth))
    if not kinds:  # every target zero: one value atom of value +0
        kinds.append(R.block_copies(functools.partial(value_atom, depth=depth), fmt, [[points[0][0]], [0]], depth))
    return R.boxplus_copies(fmt, kinds)


def value_atoms(fmt, points):
    """How many value atoms :func:`theorem_network` builds: one per piece of each nonzero
    f* (one atom of value +0 when every f* is zero)."""
    return count_value_atoms(fmt, points, piece_bound(fmt, _construction().constants(fmt).H_sigma))


def count_value_atoms(fmt, points, V):
    """One value atom per piece of at most V of each nonzero f* (one when every f* is zero)."""
    return sum(len(pieces(fmt, v, V)) for _, v, _, _ in points if not fmt.is_zero(v)) or 1


def check_points(fmt, points):
    """The blocks' hypotheses (:func:`fpsmt.constructions.relu.check_points`) and the number
    of output pieces each value needs (at most :data:`MAX_PIECES`).  That σ has the
    constants is the requirements' business (``construct`` decides them next)."""
    R.check_points(fmt, points)
    check_pieces(fmt, points, piece_bound(fmt, _construction().constants(fmt).H_sigma))


def check_pieces(fmt, points, V):
    """Every f* needs at most :data:`MAX_PIECES` output pieces of at most V (one error line
    naming x)."""
    for z, v, _, _ in points:
        need = abs(fmt.to_fraction(v)) / V
        if need > MAX_PIECES:
            raise InputError(f"at x = {fmt.show(z)}: f* = {fmt.show(v)} needs about {math.ceil(need)} output pieces "
                             f"(at most {show_bound(V)} each, so that h ⊗ piece stays finite for |h| <= H); this build "
                             f"makes at most {MAX_PIECES}")


def check_format(fmt):
    """The blocks' constants exist in ``fmt`` (one line naming what fails, e.g. a gate weight
    that is not finite where e_max is small)."""
    block_constants(fmt)


def depth(fmt, variant=R.REPAIRED):
    """The depth of the theorem's network with a gradient atom (of ``variant``)."""
    return max(gradient_depth(fmt, variant), block_constants(fmt).value_depth)


def least_depth(fmt, variant=R.REPAIRED):
    """The theorem's network's least depth (``construct --depth`` pads above it)."""
    return depth(fmt, variant)


def theorem_depth(fmt, depth=None, variant=R.REPAIRED):
    """``depth`` checked (None: the least): at least :func:`least_depth`, and at most
    :data:`fpsmt.constructions.relu.PADDING_MAX` above it, which the value atom's padding
    induction (proofs/sat_value_atom.py) and the gradient atom's chain and padding
    inductions cover; one error line otherwise."""
    return padded_depth(fmt, depth, least_depth(fmt, variant), block_constants(fmt).value_depth, hidden(),
                        "sat_value_atom.padding, sat_gradient_atom's chain inductions and padding")


def padded_depth(fmt, depth, least, value_depth, activation, lemmas):
    """A family's ``theorem_depth`` (its σ ``activation``): ``depth`` (None: ``least``) refused
    below ``least`` and more than PADDING_MAX above it (``lemmas``: what covers the padding,
    named in the error),
    and refused above ``least`` where the value atom is not carried at ``least`` (its least
    depth ``value_depth``): its padding is inserted between its carries."""
    if depth is not None and depth > least and least <= value_depth:
        raise InputError(f"--depth {depth}: the {activation} value atom in {fmt.name} is not carried at the least "
                         f"depth {least}, so its padding lemma does not apply")
    return R.theorem_depth(fmt, depth, least=least, activation=activation, most=R.PADDING_MAX,
                           lemma=f"the padding ({lemmas})")


#: the gradient atoms this family builds (``construct --variant``)
ATOM_VARIANTS = (R.REPAIRED, R.SHALLOW)


# ------------------------------------------------------------------ the construction
def theorem_constants(name):
    def constants(fmt):
        import importlib
        return importlib.import_module("fpsmt.specs.theorems").constants(name, fmt)
    return constants


def _user_constants(name):
    def constants(fmt):
        import importlib
        m, h = importlib.import_module("fpsmt.specs.requirements").THEOREM[FAMILY](fmt)
        return importlib.import_module("fpsmt.specs.theorems").stated(name, fmt, m, h)
    return constants


def user_construction(activation):
    """This family's construction for an activation without one of its own (a user's
    ``FILE.py:NAME``, or a built-in one): X and H are the paper's for the six it names
    (specs/theorems.py), else from the family's requirements (specs/requirements.py
    ``THEOREM``); built only in a format where every requirement is PROVED (``construct``
    decides them first)."""
    import importlib
    from fpsmt.semantics.activations import get_activation
    theorems = importlib.import_module("fpsmt.specs.theorems")
    name = get_activation(activation).name
    if name in theorems.FIRST_FOUR + theorems.SATURATING:
        return Construction(activation, FAMILY, sys.modules[__name__], theorem_constants(name),
                            paper_depth=7 if name in theorems.FIRST_FOUR else "a few more than 7")
    return Construction(activation, FAMILY, sys.modules[__name__], _user_constants(activation), paper_depth=None)


CONSTRUCTIONS = [Construction("tanh", FAMILY, sys.modules[__name__], theorem_constants("tanh"),
                              paper_depth="a few more than 7")]


def _construction():
    """The active construction of this family (its theorem constants: X, H)."""
    from fpsmt.constructions.registry import constructions
    return constructions()[hidden()]
