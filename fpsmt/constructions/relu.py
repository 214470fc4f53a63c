"""Builders of the ReLU construction (BRIEF §5, §5.1) as true networks of the IR.

Every builder takes a claim :class:`~fpsmt.proof.claims.Scope` and the block's own parameters
(z, v, …) as values of that scope, and returns ``(network, params)``: a network whose
weights and biases are :class:`~fpsmt.semantics.network.Param` where they depend on the parameters,
and the values of those Params computed *in the scope* — so one builder gives the
symbolic network a proof quantifies over (Z3 scope) and the concrete network a user
runs (executor scope, see :func:`concrete`).  Constants are biases or constant neurons
(zero input weights), never extra inputs.

Two variants (and a third for the gradient atom alone):

``released``
    the authors' maths as BRIEF §5.1 states it (their released float32 code,
    float-generic): step indicators with the k/u0/c_z formulas, the point indicator as a
    difference of two step indicators, the cancellation block of left-to-right
    ``⊕ a_k⁺ ⊖ a_k⁺`` stages, and the zero-gradient atom point indicator → cancellation
    blocks → weight v.
``repaired``
    this project's construction, built to hold on the full statement:

    * step indicator 1[x >= z], any z of X (either sign, subnormal, zero), 5 layers:
      ``a = relu(x ⊖ z⁻)`` is 0 for x <= z⁻ and >= d = z − z⁻ (exact) for x >= z, by
      monotone rounding; ``b = relu(d ⊖ a)`` is d or 0; two exact power-of-two scalings
      take d to 1 (one may be 1; 1/d can exceed Ω); ``out = relu(1 ⊖ b'')``.  Every weight the
      backward pass meets before the first inactive ReLU has magnitude 1, so D^AD is ±0
      for every finite upstream gradient.  1[x <= z] is the same block at −z fed −x.
    * point indicator 1[x = z] = 1[x >= z] + 1[x <= z] − 1 (6 layers; the two step
      indicators side by side are the 5-layer block :func:`step_pair`; z = 0 is an
      ordinary z).
    * zero-gradient atom v·1[x = z] (8 layers): ``G1 = relu(b − b·1[x>=z])`` is b for
      x < z and 0 otherwise, ``G2 = relu(b − b·1[x<=z])`` is b for x > z; ``N = relu(b − G1
      − G2)`` is b = |v| at z and 0 elsewhere; output ``±N``.  At x = z the backward pass
      reaches G1, G2 through weight −1 and dies at their ReLUs (pre-activation 0);
      elsewhere it dies at N's.  No weight of magnitude > 1 is met while the gradient is
      alive, so D^AD = ±0 for every finite y and every finite v — no cancellation blocks.
    * the cancellation block is the released block with its s-range stated (proved, not
      assumed); the repaired construction does not need it.
    * gradient atom (value +0; D^AD(h) = g at x = z, ±0 elsewhere for |y| <= Ω): a gate
      alive only at x = z, then a chain whose every neuron is reset to exactly 1 at x = z
      by its bias, so the backward pass can multiply h by the transfer weights
      (:func:`transfer_weights`) while no forward value grows; see
      :func:`repaired_gradient_atom`.  Depth 7 + shrinks + chain + 1 (65 in bfloat16, 30
      in float32): each weight is at most 2^min(p, e_max), the output weight at most 1.
    * ⊞ (:func:`boxplus`) and the Theorem 3.1 network (:func:`theorem_network`).
``shallow``
    the repaired construction with :func:`shallow_gradient_atom` in place of the repaired
    gradient atom: a constant neuron K beside R cancels c ⊗ R exactly, so the chain's
    weights may be any finite c >= −2 (c ≠ 0) and the chain is five weights (backwards:
    h to ±1 in three, |g|, the sign); the killers read the step blocks' fourth layer and the
    gate's row takes the sign: the network has 11 layers in every format.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np

from fpsmt.constructions.registry import Construction, HiddenActivation
from fpsmt.errors import InputError
from fpsmt.semantics.network import Layer, Network, Param

RELEASED, REPAIRED, SHALLOW = "released", "repaired", "shallow"
VARIANTS = (RELEASED, REPAIRED)
#: the gradient atoms the Theorem 3.1 network can be built with (``construct --variant``)
ATOM_VARIANTS = (REPAIRED, SHALLOW)


# ------------------------------------------------------------------ the hidden activation
#: ``relu``, or another name for ReLU made active by a construction of this family
hidden = HiddenActivation("relu")
hidden_activation = hidden.using


def _check_variant(variant):
    if variant not in VARIANTS:
        raise InputError(f"unknown variant {variant!r}: use released or repaired")


def _layer(rows_cols_weights, n_out, n_in, bias, act=None):
    """A layer from (row, column, weight) entries; ``act`` defaults to the hidden activation."""
    rows = [r for r, _, _ in rows_cols_weights]
    cols = [c for _, c, _ in rows_cols_weights]
    return Layer(n_out, n_in, rows, cols, [w for _, _, w in rows_cols_weights], bias, act or hidden())


NEG0 = "neg0"  # marker: the −0 bias (⊕'s identity: "no bias")


def _b(fmt, entries):
    return [fmt.sign_bit if e == NEG0 else (e if isinstance(e, Param) else fmt.round(Fraction(e))) for e in entries]


def _w(fmt, entries):
    return [(r, c, w if isinstance(w, Param) else fmt.round(Fraction(w))) for r, c, w in entries]


# ------------------------------------------------------------------ exponents
def true_exponent(s, z):
    """floor(log2 |z|) for a finite nonzero z, subnormals included (an Int of the scope)."""
    f = s.fmt
    e = z.exponent()
    az = abs(z)
    for k in range(f.e_min - 1, f.e_min - f.M - 1, -1):  # subnormal binades, top down
        e = s.iwhere(az < s.int_pow2(k + 1), k, e)
    return e


def _scale_to_one(s, d):
    """(s1, s2), powers of two with s1·d <= 1 exact and s2·(s1·d) = 1: 1/d in two factors."""
    f = s.fmt
    j = true_exponent(s, d)  # d is a power of two
    big = -j > f.e_max
    s1 = s.where(big, (-j - f.e_max).pow2(), 1)
    s2 = s.where(big, s.int_pow2(f.e_max), (-j).pow2())
    return s1, s2


# ------------------------------------------------------------------ repaired step indicators
def _step_layers(fmt, tag, sign, col, row_base=0):
    """The five layers of a repaired step indicator as (entries, bias) per layer, for
    stacking several side by side; ``col`` is the input column, ``row_base`` its row."""
    r = row_base
    return [
        ([(r, col, sign)], [Param(f"{tag}_nzm")]),
        ([(r, r, -1)], [Param(f"{tag}_d")]),
        ([(r, r, Param(f"{tag}_s1"))], [NEG0]),
        ([(r, r, Param(f"{tag}_s2"))], [NEG0]),
        ([(r, r, -1)], [1]),
    ]


def step_params(s, tag, z):
    zm = z.next_down()
    d = z - zm
    s1, s2 = _scale_to_one(s, d)
    return {f"{tag}_nzm": -zm, f"{tag}_d": d, f"{tag}_s1": s1, f"{tag}_s2": s2}


def _stack(fmt, parts, n_in, last_act="identity"):
    """Side-by-side blocks of equal depth, each a list of (entries, bias) per layer, into
    Network layers; a layer's width is the number of biases its blocks give."""
    depth = len(parts[0])
    layers = []
    for k in range(depth):
        entries, bias = [], []
        for layer in (p[k] for p in parts):
            entries += layer[0]
            bias += layer[1]
        layers.append(_layer(_w(fmt, entries), len(bias), n_in, _b(fmt, bias),
                             hidden() if k < depth - 1 else (last_act or hidden())))
        n_in = len(bias)
    return layers


def step_ge(s, z, variant=REPAIRED):
    """1[x >= z] for every z of X (repaired) — see the module docstring; the released
    variant is :func:`released_step` (positive normal and subnormal z, mirrored for z < 0)."""
    _check_variant(variant)
    if variant == RELEASED:
        return released_step(s, z, "ge")
    return step_network(s.fmt, "ge"), step_params(s, "ge", z)


def step_le(s, z, variant=REPAIRED):
    """1[x <= z] = 1[−x >= −z]: the same block at −z, fed −x."""
    _check_variant(variant)
    if variant == RELEASED:
        return released_step(s, z, "le")
    return step_network(s.fmt, "le"), step_params(s, "le", -z)


def step_network(fmt, kind):
    """The repaired step block 1[x >= z] (``kind`` "ge") or 1[x <= z] ("le") alone: five
    layers of width 1, its parameters named by :func:`step_params`."""
    return Network(fmt, _stack(fmt, [_step_layers(fmt, kind, 1 if kind == "ge" else -1, 0)], 1, last_act=None))


def step_pair(s, z):
    """[1[x >= z], 1[x <= z]] side by side (5 layers, width 2): the first layers of the
    repaired point indicator and zero-gradient atom."""
    f = s.fmt
    layers = _stack(f, [_step_layers(f, "ge", 1, 0, 0), _step_layers(f, "le", -1, 0, 1)], 1, last_act=None)
    return Network(f, layers), {**step_params(s, "ge", z), **step_params(s, "le", -z)}


def point(s, z, variant=REPAIRED):
    """1[x = z] = 1[x >= z] + 1[x <= z] − 1 (for z = 0 this is the zero indicator)."""
    _check_variant(variant)
    if variant == RELEASED:
        return released_point(s, z)
    f = s.fmt
    pair, params = step_pair(s, z)
    layers = pair.layers + [_layer(_w(f, [(0, 0, 1), (0, 1, 1)]), 1, 2, _b(f, [-1]), "identity")]
    return Network(f, layers), params


def zero_gradient_atom(s, z, v, variant=REPAIRED, blocks=3):
    """v·1[x = z] with D^AD = 0 (Lemma 3.4's atom)."""
    _check_variant(variant)
    if variant == RELEASED:
        return released_zero_gradient_atom(s, z, v, blocks)
    f = s.fmt
    pair, params = step_pair(s, z)
    b = Param("b")
    layers = pair.layers + [
        _layer(_w(f, [(0, 0, Param("nb")), (1, 1, Param("nb"))]), 2, 2, [b, b]),  # G1 = b·[x<z], G2 = b·[x>z]
        _layer(_w(f, [(0, 0, -1), (0, 1, -1)]), 1, 2, [b]),                       # N = b·[x=z]
        _layer(_w(f, [(0, 0, Param("sgn"))]), 1, 1, _b(f, [NEG0]), "identity")]
    params.update(b=abs(v), nb=-abs(v), sgn=s.where(v.is_negative(), -1, 1))
    return Network(f, layers), params


# ------------------------------------------------------------------ released (BRIEF §5.1)
def _released_fields(s, z):
    """For z > 0: (e_z, a_z, c_z, u0, ũ0, c̃, k) of BRIEF §5.1 (true exponent for subnormals)."""
    f = s.fmt
    p, e0 = f.M, 2 ** (f.E - 2) - 1
    a, e = significand(s, z)  # a_z in [1, 2), e_z
    sub = z.is_subnormal()
    cz = s.iwhere(sub, -e + f.e_min, 0)
    u0 = (cz - p).pow2()
    smallest = z.eq(s.omega)
    tilde = a.eq(1) & ~smallest
    ut = s.where(tilde, u0 * 0.5, 0)
    ct = s.iwhere(tilde, 1, 0)
    k = s.iwhere(e > 0, -p + e0, -cz + (3 - p - e0))
    return e, a, cz, u0, ut, ct, k


def _released_step_params(s, tag, z, kind):
    """Weights of 1[x >= z] (kind "ge") or 1[x <= z] ("le") for z > 0, as BRIEF §5.1."""
    f = s.fmt
    p = f.M
    e, a, cz, u0, ut, ct, k = _released_fields(s, z)
    pk = (k + p).pow2()
    if kind == "ge":
        first_b = (2 - u0) * e.pow2()
        B1, B2 = ((2 - a) - ut) * pk, ((2 - a) - u0) * pk
        S = (ct - cz - k).pow2()
    else:
        first_b = -e.pow2()
        B1, B2 = ((a - 1) + u0) * pk, (a - 1) * pk
        S = (-cz - k).pow2()
    negA = -((-e + k + p).pow2())
    return {f"{tag}_b0": first_b, f"{tag}_negA": negA, f"{tag}_B1": B1, f"{tag}_B2": B2,
            f"{tag}_S": S, f"{tag}_negS": -S}


def _released_step_layers(tag, col, row):
    """3 layers; width 2 in the middle (h1, h2).  Rows: ``row`` (g), ``2row, 2row+1`` (h)."""
    return [
        ([(row, col, Param(f"{tag}_w"))], [Param(f"{tag}_b0")]),
        ([(2 * row, row, Param(f"{tag}_negA")), (2 * row + 1, row, Param(f"{tag}_negA"))],
         [Param(f"{tag}_B1"), Param(f"{tag}_B2")]),
        ([(row, 2 * row, Param(f"{tag}_S")), (row, 2 * row + 1, Param(f"{tag}_negS"))], [NEG0]),
    ]


def _released_step_any_sign(s, tag, z, kind):
    """Released 1[x >= z] / 1[x <= z] for z ≠ 0 of either sign: for z < 0 the mirrored
    block at |z| fed −x (1[x >= z] = 1[−x <= |z|]).  At z = 0 the formulas are evaluated
    as they stand (z = 0 is not covered by the released maths)."""
    neg = z.is_negative()
    az = abs(z)
    mine = _released_step_params(s, tag, az, kind)
    other = _released_step_params(s, tag, az, "le" if kind == "ge" else "ge")
    params = {n: s.where(neg, other[n], mine[n]) for n in mine}
    params[f"{tag}_w"] = s.const(-1 if kind == "ge" else 1)  # the mirrored block is fed −x: same sign
    return params


def released_step(s, z, kind):
    f = s.fmt
    layers = _stack(f, [_released_step_layers(kind, 0, 0)], 1)
    return Network(f, layers), _released_step_any_sign(s, kind, z, kind)


def released_point(s, z):
    """ReLU(step_z(x) − step_(z⁺)(x)) (4 layers)."""
    f = s.fmt
    parts = [_released_step_layers("at", 0, 0), _released_step_layers("up", 0, 1)]
    layers = _stack(f, parts, 1)
    layers.append(_layer(_w(f, [(0, 0, 1), (0, 1, -1)]), 1, 2, _b(f, [NEG0])))
    params = {**_released_step_any_sign(s, "at", z, "ge"), **_released_step_any_sign(s, "up", z.next_up(), "ge")}
    return Network(f, layers), params


def released_point_derivative(s, z):
    """The D^AD of the released point indicator at x = z, upstream 1 (BRIEF §5.1):
    2^(p − e_z) for normal z not a power of two, 2^(p + 1 − e_z) for a power of two."""
    f = s.fmt
    e, a = _released_fields(s, abs(z))[:2]
    return s.where(a.eq(1), (-e + f.M + 1).pow2(), (-e + f.M).pow2())


# ------------------------------------------------------------------ cancellation block
def cancellation_constants(fmt):
    """a_k⁺ = (2^k)⁺ for k = p … e_max, as bit patterns."""
    return [fmt.next_up(fmt.round(Fraction(2) ** k)) for k in range(fmt.M, fmt.e_max + 1)]


def cancellation_layers(fmt, blocks, n_in=1):
    """``blocks`` cancellation blocks on input column 0: per block, a layer with s and the
    constant neurons (a_k⁺ twice each: bias only), then one neuron summing left to right
    ``s ⊕ a_p⁺ ⊖ a_p⁺ ⊕ a_(p+1)⁺ ⊖ …`` with unit weights; the scaling 2^(p − e_max) of a
    block is the input weight of the next block's first layer, and a last layer after the
    final block."""
    consts = cancellation_constants(fmt)
    n = len(consts)
    scale = Fraction(2) ** (fmt.M - fmt.e_max)
    sums = [(0, 0, 1)] + [(0, 1 + 2 * k + t, (1, -1)[t]) for k in range(n) for t in (0, 1)]
    layers = []
    for i in range(blocks):
        layers.append(_layer(_w(fmt, [(0, 0, scale if i else 1)]), 1 + 2 * n, n_in if i == 0 else 1,
                             [fmt.sign_bit] + [c for c in consts for _ in (0, 1)]))
        layers.append(_layer(_w(fmt, sums), 1, 1 + 2 * n, _b(fmt, [NEG0])))
    layers.append(_layer(_w(fmt, [(0, 0, scale)]), 1, 1, _b(fmt, [NEG0])))
    return layers


def cancellation(s, blocks=1, variant=REPAIRED):
    """``blocks`` cancellation blocks as a network of one input s (BRIEF §5.1)."""
    _check_variant(variant)
    layers = cancellation_layers(s.fmt, blocks)
    layers[-1].activation = "identity"
    return Network(s.fmt, layers), {}


def suppression_layers(fmt, blocks):
    """``blocks`` cancellation blocks then the weight Param("v"): the released zero-gradient
    atom after its indicator."""
    return cancellation_layers(fmt, blocks) + [_layer(_w(fmt, [(0, 0, Param("v"))]), 1, 1, _b(fmt, [NEG0]),
                                                      "identity")]


def released_zero_gradient_atom(s, z, v, blocks=3):
    """Point indicator → ``blocks`` cancellation blocks → weight v (BRIEF §5.1)."""
    pnet, params = released_point(s, z)
    params["v"] = v
    return Network(s.fmt, list(pnet.layers) + suppression_layers(s.fmt, blocks)), params


# ------------------------------------------------------------------ concrete networks
def concrete_params(builder, fmt, *args, **kw):
    """(network, {name: bit pattern}): the builder run on concrete block parameters (bit
    patterns, or numbers exactly representable in ``fmt``)."""
    from fpsmt.semantics.arith import concrete as executor
    from fpsmt.proof.claims import F, Scope
    A = executor(fmt)
    s = Scope(A, fmt, {})

    def lift(x):
        if isinstance(x, int) and not isinstance(x, bool):
            return F(s, A.const(np.asarray(x, dtype=fmt.uint_dtype if fmt.nbits <= 64 else object)))
        return s.const(x)
    net, params = builder(s, *(lift(a) for a in args), **kw)
    return net, {k: int(np.ravel(A.to_bits(v.v))[0]) for k, v in params.items()}


def concrete(builder, fmt, *args, **kw):
    """The builder's network with every Param replaced by its bit pattern, for concrete
    block parameters (bit patterns, or numbers exactly representable in ``fmt``)."""
    net, values = concrete_params(builder, fmt, *args, **kw)
    return net.bound(values)


# ------------------------------------------------------------------ named-neuron plans
def carried(names):
    """Neurons carried one layer on: relu(1 ⊗ a) = a for a >= 0 (exact)."""
    return [(n, [(n, 1)], NEG0) for n in names]


class Plan:
    """A network written neuron by neuron: each layer is a list of ``(name, [(source,
    weight), …], bias)``; a row's terms are summed in the order of the previous layer's
    neurons (the fold is over columns), so the order a layer lists its neurons in is the
    summation order of every row of the next layer."""

    def __init__(self, fmt, inputs=("x",), activation=None):
        self.fmt = fmt
        self.names = [list(inputs)]
        self.layers = []
        self.activation = activation  # of the hidden layers; default: the active construction's (:func:`hidden`)

    def add(self, neurons):
        self.layers.append(list(neurons))
        self.names.append([n for n, _, _ in neurons])
        if len(set(self.names[-1])) != len(self.names[-1]):
            raise ValueError("duplicate neuron name in a layer")

    def network(self, last_act="identity"):
        f = self.fmt
        layers = []
        for k, neurons in enumerate(self.layers):
            col = {n: j for j, n in enumerate(self.names[k])}
            entries = [(i, col[src], w) for i, (_, ins, _) in enumerate(neurons) for src, w in ins]
            hid = self.activation or hidden()
            act = hid if k < len(self.layers) - 1 else (last_act or hid)
            layers.append(_layer(_w(f, entries), len(neurons), len(col), _b(f, [b for _, _, b in neurons]), act))
        return Network(f, layers)


def atom_depth(depth, least, what):
    """``depth`` (None: ``least``), refused below the block's least depth."""
    depth = depth or least
    if depth < least:
        raise InputError(f"a {what} needs {least} layers, not {depth}")
    return depth


def block_alone(P, layers, weight, bias):
    """A block's network alone: its ``layers`` (Plan neurons), then one output neuron
    ``weight ⊗ (the last layer's first neuron) ⊕ bias``."""
    for layer in layers:
        P.add(layer)
    P.add([("out", [(layers[-1][0][0], weight)], bias)])
    return P.network()


# ------------------------------------------------------------------ multiplication transfer
def significand(s, x):
    """(|x| / 2^e_x, e_x) for finite nonzero x: a float in [1, 2) (exact) and the true
    exponent (subnormals included).  Two exact scalings, as 2^(−e_x) may not be finite."""
    e = true_exponent(s, x)
    ax = abs(x)
    q = step_cap(s.fmt)
    return s.where(e >= 0, ax * (-e).pow2(), (ax * s.int_pow2(q)) * (-e - q).pow2()), e


def step_cap(fmt):
    """q = min(p, e_max): the largest power-of-two weight 2^q of a chain (2^p itself is not
    finite where e_max < p, e.g. float8_e3m4); 1 − 2^q is exact."""
    return min(fmt.M, fmt.e_max)


def shallow_cap(fmt):
    """q of the shallow gradient atom's chain (:func:`shallow_gradient_atom`): e_max.  Its
    layers cancel c ⊗ R against c ⊗ K exactly, so no reset bounds the weight; the killers
    enter its rows with weight −1/2, so that −c ⊕ (−C/2) stays finite where the chain is
    killed (C = 2^e_max)."""
    return fmt.e_max


def transfer_slots(fmt, q=None):
    """(U_h, U_g): the number of power-of-two weights (each at most 2^q, default
    :func:`step_cap`) that carry the least subnormal ω = 2^(e_min − M) up to [1, 2), and 1
    up to any |g|."""
    q = step_cap(fmt) if q is None else q
    return -(-(fmt.M - fmt.e_min) // q), -(-fmt.e_max // q)


SIGNIFICAND_ROUTE_BITS = 23


def transfer_route(fmt):
    """How the chain takes h to sign(h)·1 (:func:`normalize_weights`).

    ``"significand"`` (M <= 23: every format up to float32): h goes to ±m_h in [1, 2)
    exactly and two weights a ≈ 1/m, b take m to 1, no value of the chain subnormal unless
    h is.  The stage ∀ m ∈ [1, 2): (m ⊗ a) ⊗ b = 1 multiplies two symbolic significands;
    it is decided by enumerating the 2^M values of m, which is out of reach beyond
    float32's 2^23.
    ``"subnormal"`` (M > 23, e.g. float64): h goes into [ω, 2ω) (ω the least subnormal),
    where one rounding leaves ±ω or ±2ω, then up to ±1 by powers of two: no product has two
    operands of more than one significant bit, and solvers decide it (float64: seconds).
    Its price is gradual underflow on every backward pass: an arithmetic that flushes
    subnormals to zero (as bfloat16 matrix kernels do) loses the gradient, which is why it
    is not the route where the other one is proved."""
    return "significand" if fmt.M <= SIGNIFICAND_ROUTE_BITS else "subnormal"


def normalize_weights(s, h, route=None, q=None):
    """Backward weights carrying h (finite, nonzero) to sign(h)·1 exactly: ``(w_out,
    mids)``, ``w_out`` a power of two <= 1 (the output weight: it meets every upstream
    gradient), then ``mids`` by :func:`transfer_route`:

    * significand: powers of two <= 2^q (:func:`step_cap`) taking h ⊗ w_out to ±m_h,
      m_h ∈ [1, 2), exactly, then two weights in (1/2, 1] (:func:`significand_weights` of
      |±m_h|);
    * subnormal: ``down`` = 2^(e_min − M − e), where |h| ⊗ w_out ∈ [2^e, 2^(e+1)), e <= 0
      (exact): the one rounding of the chain lands on ±ω or ±2ω; then powers of two <= 2^q
      up to ±1.

    The significand weights (from |v|) and the ups after ``down`` (from the exponent of
    ±ω or ±2ω) are computed from the signed value the chain has reached, so the stages of
    proofs/multiplication_transfer.py compute exactly these weights."""
    f = s.fmt
    e = true_exponent(s, h)
    w_out = s.iwhere(e > 0, -e, 0).pow2()
    v = h * w_out
    if (route or transfer_route(f)) == "significand":
        ups = ups_to_one(s, s.iwhere(e < 0, -e, 0), q)  # |v| = |h| 2^-e for e > 0, h itself otherwise
        for w in ups:
            v = v * w
        return w_out, ups + significand_weights(s, abs(v))
    down = (f.e_min - f.M - s.iwhere(e > 0, 0, e)).pow2()
    v = v * down  # ±ω or ±2ω
    return w_out, [down] + ups_to_one(s, -true_exponent(s, v), q)


def ups_to_one(s, rem, q=None):
    """Powers of two <= 2^q (:func:`transfer_slots`' U_h of them, trailing ones 1) whose
    product is 2^rem (0 <= rem <= M − e_min), each at most 2^q (default :func:`step_cap`)."""
    q = step_cap(s.fmt) if q is None else q
    ups = []
    for _ in range(transfer_slots(s.fmt, q)[0]):
        k = s.iwhere(rem > q, q, rem)
        ups.append(k.pow2())
        rem = rem - k
    return ups


def significand_weights(s, m):
    """Two weights a, b in (1/2, 1] with (m ⊗ a) ⊗ b = 1 for m in [1, 2): a = RN(1/m) or a
    neighbour of it when one hits 1 (then b = 1), else a with m ⊗ a = 1 + 2^−p (always
    reachable) and b = 1 − 2^(−p−1)."""
    p = s.fmt.M

    def hit(t):
        c = s.lift(t) / m
        lo, hi = c.next_down(), c.next_up()
        return s.where((m * c).eq(t), c, s.where((m * lo).eq(t), lo, hi)), s.any((m * c).eq(t), (m * lo).eq(t),
                                                                                  (m * hi).eq(t))
    t1 = 1 + s.int_pow2(-p)
    direct, ok = hit(1)
    via, _ = hit(t1)
    return [s.where(ok, direct, via), s.where(ok, 1, 1 - s.int_pow2(-p - 1))]


def target_weights(s, g, sign, q=None):
    """Backward weights carrying ``sign``·1 (sign ±1) to g (finite, nonzero) exactly:
    ``sgn`` (±1), g's significand m_g ∈ [1, 2), then ``exps`` powers of two: up to 2^q each
    for e_g > 0, or one 2^e_g (exact, also into the subnormals) for e_g < 0."""
    f = s.fmt
    q = step_cap(f) if q is None else q
    m, e = significand(s, g)
    sgn = s.where(_same_sign(s, g, sign), 1, -1)
    rem = s.iwhere(e > 0, e, 0)
    exps = []
    for j in range(transfer_slots(f, q)[1]):
        k = s.iwhere(rem > q, q, rem)
        if j == 0:
            k = s.iwhere(e < 0, e, k)
        exps.append(k.pow2())
        rem = rem - s.iwhere(e < 0, 0, k)
    return sgn, m, exps


def _same_sign(s, a, b):
    return (a.is_negative() & b.is_negative()) | (~a.is_negative() & ~b.is_negative())


def transfer_weights(s, h, g, route=None, q=None, merge_sign=False):
    """The whole backward chain h → g: (w_out, [weights after it in backward order]).  The
    target weights are computed from the ±1 the first part reaches (its sign is h's).
    ``route``: :func:`transfer_route`'s (default) or one named; ``q``: the cap 2^q of the
    power-of-two weights (default :func:`step_cap`); ``merge_sign``: the sign and g's
    significand as one weight ±m_g (exact: ±1 ⊗ ±m_g), the shallow chain's (its weights
    may be negative)."""
    w_out, mids = normalize_weights(s, h, route, q)
    t = h * w_out
    for w in mids:
        t = t * w
    sgn, m, exps = target_weights(s, g, t, q)
    return w_out, mids + ([sgn * m] if merge_sign else [sgn, m]) + exps


# ------------------------------------------------------------------ gradient atom (repaired)
def shrink_count(fmt):
    """Reset layers that take the gate's forward value d = z − z⁻ (a power of two up to
    2^(e_max − 2 − p)) to exactly 1: each divides by 2^(p+1) while d > 2^q, the last sets 1."""
    p, q = fmt.M, step_cap(fmt)
    top = fmt.e_max - 2 - p
    return max(0, -(-(top - q) // (p + 1))) + 1


def reset_bias(s, P):
    """The bias that resets a chain neuron whose weighted input is P (a power of two, or a
    chain weight times 1): 1 ⊖ P where |P| <= 2^q (the neuron is then exactly 1), else
    −P⁻ (the neuron is then P − P⁻, P's spacing below: 2^(p+1) times smaller)."""
    return s.where(abs(P) <= s.int_pow2(step_cap(s.fmt)), 1 - P, -(P.next_down()))


def gradient_atom(s, z, h, g, variant=REPAIRED):
    """Lemma 3.5's atom: value +0 on X; at x = z, D^AD(h) = g; elsewhere D^AD(y) = ±0 for
    every |y| <= Ω (h ≠ 0, |h| <= Ω, g ≠ 0 finite).  See :func:`repaired_gradient_atom`
    (and ``variant="shallow"``: :func:`shallow_gradient_atom`, the gradient atom only)."""
    if variant == SHALLOW:
        return shallow_gradient_atom(s, z, h, g)
    _check_variant(variant)
    if variant == RELEASED:
        return released_gradient_atom(s, z, h, g)
    return repaired_gradient_atom(s, z, h, g)


def repaired_gradient_atom(s, z, h, g):
    """The repaired gradient atom (depth 7 + shrinks + chain + 1; :func:`gradient_atom_depth`).

    * layers 1–5: the step pair 1[x >= z], 1[x <= z]; T = relu(x ⊖ z⁻) (the first neuron of
      1[x >= z]) is carried along: d = z − z⁻ at x = z, 0 for x < z, at most 2^(e_max−1).
    * layer 6: killers G1 = relu(C ⊖ C·1[x>=z]) (C for x < z), G2 likewise for x > z, with
      C = 2^e_max; both are exactly 0 at x = z, where their ReLU is dead (pre-activation 0).
    * layer 7: the gate Q = relu(T − G1 − G2): d at x = z, dead elsewhere.
    * chain: R = relu(c ⊗ R_prev − G1 − G2 ⊕ B) per weight c, first the shrinks (c = 1)
      that take d to 1, then the transfer weights (:func:`transfer_weights`, input side
      first); every bias B resets the neuron to exactly 1 at x = z (:func:`reset_bias`),
      and is <= 2 <= C, so every chain neuron is dead at x ≠ z.
    * last hidden layer also holds N = relu(−G1 − G2 ⊕ w_out) (w_out at x = z, dead elsewhere).
    * output: w_out ⊗ R_last ⊕ (−1) ⊗ N: w_out ⊖ w_out = +0 at z, ±0 elsewhere.

    At x = z the backward pass meets w_out (<= 1), the transfer weights (h becomes g,
    exactly), then weights 1 down to x; every side branch (killers, N, the indicators)
    has a finite upstream and dies at a ReLU whose pre-activation is exactly 0.  At x ≠ z
    it meets w_out or −1 (finite for |y| <= Ω) and dies at R_last or N.
    """
    P = gate_plan(s.fmt)
    params = {**step_params(s, "ge", z), **step_params(s, "le", -z)}
    params.update(chain_and_output(s, P, z, h, g))
    return P.network(), params


def chain_and_output(s, P, z, h, g):
    """Add the gradient atom's chain and output layers to the plan P, whose last layer holds
    the gate (R, G1, G2) with R = d = z − z⁻ at x = z: the shrinks (weight 1) and the
    transfer weights (input side first), each bias resetting R (:func:`reset_chain`), N in
    the last, then :data:`OUTPUT_LAYER`.  Returns their params (c_i, B_i, w_out)."""
    w_out, chain = transfer_weights(s, h, g)
    weights = [s.const(1)] * shrink_count(s.fmt) + list(reversed(chain))  # forward order
    params = reset_chain(s, P, z - z.next_down(), weights, with_n=True)  # the gate gives d at x = z
    params["w_out"] = w_out
    P.add(OUTPUT_LAYER)
    return params


def killer_constant(fmt):
    """C = 2^e_max: above every T = x ⊖ z⁻ of X (at most 2^(e_max−1)) and every chain bias."""
    return Fraction(2) ** fmt.e_max


def gate_plan(fmt):
    """Layers 1–7 of the repaired gradient atom (a :class:`Plan` on input x): the step
    pair, and beside it T = relu(x ⊖ z⁻) carried by copies (its own neuron, so that the
    step blocks are exactly the step-indicator lemmas' networks); layer 6 the killers G1,
    G2; layer 7 the gate R = relu(T − G1 − G2).  Layer 6 lists ``T, G1, G2`` and layer 7
    ``R, G1, G2``: the column order of the next layers' sums."""
    P = _steps_and_t(fmt, 5)
    for layer in gate_top(fmt):
        P.add(layer)
    return P


def _steps_and_t(fmt, n):
    """A :class:`Plan` on x with the first ``n`` layers of the step blocks 1[x >= z] (``ge``)
    and 1[x <= z] (``le``) side by side and T beside them (:func:`t_carry`)."""
    P = Plan(fmt)
    ge, le = _step_layers(fmt, "ge", 1, 0), _step_layers(fmt, "le", -1, 0)
    srcs = {"ge": "x", "le": "x"}
    for k in range(n):
        layer = []
        for tag, (entries, bias) in (("ge", ge[k]), ("le", le[k])):
            layer.append((f"{tag}{k}", [(srcs[tag], w) for _, _, w in entries], bias[0]))
            srcs[tag] = f"{tag}{k}"
        layer.append(t_carry(k))
        P.add(layer)
    return P


def t_carry(k):
    """T in layer k + 1 of the gate: relu(x ⊖ z⁻) in layer 1 (the bias of 1[x >= z]'s first
    neuron), then carried."""
    return ("T", [("x", 1)], Param("ge_nzm")) if k == 0 else carried(["T"])[0]


def reset_chain(s, P, F, weights, with_n=False):
    """Add one :func:`chain_layer` per weight to the plan P, input side first; each bias
    resets its neuron (:func:`reset_bias`) given the value F entering the chain at x = z.
    Returns the layers' params (c_i, B_i)."""
    params = {}
    for i, c in enumerate(weights):
        Pin = c * F
        params[f"c{i}"], params[f"B{i}"] = c, reset_bias(s, Pin)
        F = Pin + params[f"B{i}"]
        P.add(chain_layer(f"c{i}", f"B{i}", with_n=with_n and i == len(weights) - 1))
    return params


def gate_top(fmt):
    """Layers 6 and 7 of the gate on columns (ge, le, T) = layer 5's (ge4, le4, T)."""
    C = killer_constant(fmt)
    top = [("R", [("T", 1), ("G1", -1), ("G2", -1)], NEG0)]
    return ([t_carry(5), ("G1", [("ge4", -C)], C), ("G2", [("le4", -C)], C)], top + carried(["G1", "G2"]))


def chain_layer(c, B, with_n=False):
    """One chain layer on columns (R, G1, G2): R = relu(c ⊗ R ⊕ (−1)⊗G1 ⊕ (−1)⊗G2 ⊕ B), the
    killers carried; ``with_n`` adds N = relu((−1)⊗G1 ⊕ (−1)⊗G2 ⊕ w_out) (the last one)."""
    layer = [("R", [("R", Param(c)), ("G1", -1), ("G2", -1)], Param(B))] + carried(["G1", "G2"])
    if with_n:
        layer.append(("N", [("G1", -1), ("G2", -1)], Param("w_out")))
    return layer


OUTPUT_LAYER = [("out", [("R", Param("w_out")), ("N", -1)], NEG0)]


def transfer_length(fmt, route=None, q=None, merge_sign=False):
    """The number of weights :func:`transfer_weights` gives after w_out (the same for every
    h and g): the normalising part, sgn and m (one weight ±m with ``merge_sign``), the
    exponents."""
    U_h, U_g = transfer_slots(fmt, q)
    mids = U_h + (2 if (route or transfer_route(fmt)) == "significand" else 1)
    return mids + (1 if merge_sign else 2) + U_g


def chain_length(fmt, variant=REPAIRED):
    """The gradient atom's chain layers after its 7-layer gate: the shrinks and the
    transfer's weights (repaired), or the compact chain's five (shallow:
    :func:`compact_weights`; the sign is in the 1-D gate's row, and on a layer of its own
    in the d-dimensional atom)."""
    if variant == SHALLOW:
        return compact_length(fmt)
    return shrink_count(fmt) + transfer_length(fmt)


def gradient_atom_depth(fmt, variant=REPAIRED):
    """7 gate layers, the chain, the output (repaired); the shallow atom's gate is 6 layers
    whose last is also its first chain layer (:func:`shallow_gate_plan`)."""
    if variant == SHALLOW:
        return SHALLOW_STEP_LAYERS + 2 + chain_length(fmt, variant) - 1 + 1
    return 7 + chain_length(fmt, variant) + 1


# ------------------------------------------------------------------ gradient atom (shallow)
def compact_binade(fmt):
    """B = 1 − M: the binade where the shallow chain's scale puts h (significand route).
    From the least subnormal 2^(e_min − M) it is 2^(1 − e_min) = 2^e_max away, one weight
    of the cap; the significand weight a' = a·2^(M − 1) then lands the product near 1."""
    return 1 - fmt.M


def compact_normalize(s, h, route=None):
    """The shallow chain's backward weights carrying h (finite, nonzero) to sign(h)·1
    exactly: ``(w_out, mids)``, ``w_out`` a power of two in (0, 1] (the output weight), then
    ``mids`` by :func:`transfer_route`:

    * significand: ``up`` = 2^(B − e_v) <= 2^e_max (B = :func:`compact_binade`, e_v the
      exponent of v = h ⊗ w_out, which w_out = 2^min(0, B − e_h) brings to at most B), so
      that |v ⊗ up| is in [2^B, 2^(B+1)), exactly; then a' = a·2^(M − 1) and b from the
      significand m = |v ⊗ up|·2^(−B) (:func:`significand_weights`): (v ⊗ up ⊗ a') ⊗ b =
      sign(h)·1;
    * subnormal: the repaired route's ``down`` into ±ω or ±2ω (the one rounding), then
      powers of two up to 2^e_max each (two in float64) to ±1."""
    f = s.fmt
    if (route or transfer_route(f)) == "subnormal":
        return normalize_weights(s, h, "subnormal", q=shallow_cap(f))
    B = compact_binade(f)
    e = true_exponent(s, h)
    w_out = s.iwhere(e > B, B - e, 0).pow2()
    v = h * w_out
    ev = true_exponent(s, v)
    up = s.iwhere(ev < B, B - ev, 0).pow2()
    v = v * up
    a, b = significand_weights(s, abs(v) * s.int_pow2(-B))
    return w_out, [up, a * s.int_pow2(f.M - 1), b]


def compact_target(s, g, t, merge_sign=False):
    """The shallow chain's weights from t = ±1 to g (finite, nonzero): |g|, then the sign
    ±1 (1 where g and t agree): (t ⊗ |g|) ⊗ sign = g, both products exact.  ``merge_sign``:
    one weight ±|g| (|g| where g and t agree), for a chain whose weights may be negative
    below −2 (tanh's: :mod:`fpsmt.constructions.saturating`)."""
    if merge_sign:
        return [s.where(_same_sign(s, g, t), abs(g), -abs(g))]
    return [abs(g), s.where(_same_sign(s, g, t), 1, -1)]


def compact_weights(s, h, g, route=None, merge_sign=False):
    """The whole shallow chain h → g: (w_out, [weights after it in backward order]):
    :func:`compact_normalize`, then :func:`compact_target` from the ±1 it reaches
    (``merge_sign``: ±|g| one weight)."""
    w_out, mids = compact_normalize(s, h, route)
    t = h * w_out
    for w in mids:
        t = t * w
    return w_out, mids + compact_target(s, g, t, merge_sign)


def compact_length(fmt, route=None, merge_sign=False):
    """The number of weights :func:`compact_weights` gives after w_out: up, a', b (or down
    and the ups of the subnormal route), |g| and the sign (±|g| with ``merge_sign``)."""
    tail = 1 if merge_sign else 2
    if (route or transfer_route(fmt)) == "subnormal":
        return 1 + transfer_slots(fmt, shallow_cap(fmt))[0] + tail
    return 3 + tail


def killer_weight(s, c):
    """The weight of both killers in a shallow chain layer of weight c: −1/2 where c <= 1
    (at x ≠ z the killer C = 2^e_max is what makes −c ⊕ ... ⊕ 1 negative), +0 where c > 1
    (there −c ⊕ 1 < 0 already, and −c ⊕ (−C/2) could overflow: c may be up to Ω)."""
    return s.where(c <= 1, Fraction(-1, 2), 0)


def shallow_chain_layer(c, nc, k, with_n=False):
    """One shallow chain layer on columns (R, K, G1, G2): R = relu(c ⊗ R ⊕ (−c) ⊗ K ⊕
    k ⊗ G1 ⊕ k ⊗ G2 ⊕ 1), K = relu(1) (a constant neuron: no inputs), the killers
    carried; ``with_n`` adds N = relu((−1)⊗G1 ⊕ (−1)⊗G2 ⊕ w_out) (the last one).  At x = z,
    where R = K and G1 = G2 = 0, c ⊗ R ⊕ (−c) ⊗ K = +0 exactly (one product, negated), so R
    is exactly 1 whatever the weight c (c ⊗ R finite); at x ≠ z, R = 0 and one killer is C
    = 2^e_max, so the pre-activation is −c ⊕ k ⊗ C ⊕ 1 < 0 for every finite c >= −2, c ≠ 0,
    with k = :func:`killer_weight` (finite: at least −Ω)."""
    layer = [("R", [("R", Param(c)), ("K", Param(nc)), ("G1", Param(k)), ("G2", Param(k))], 1), ("K", [], 1)]
    layer += carried(["G1", "G2"])
    if with_n:
        layer.append(("N", [("G1", -1), ("G2", -1)], Param("w_out")))
    return layer


#: the step blocks' layers the shallow gate builds: their fourth values are 1[x < z] and
#: 1[x > z], which the killers read (:func:`shallow_gate_plan`)
SHALLOW_STEP_LAYERS = 4


def shallow_gate_plan(fmt):
    """Layers 1–6 of the shallow gradient atom (a :class:`Plan` on input x), the gate and its
    first chain layer in one:

    * layers 1–4: the first four layers of the step blocks 1[x >= z] and 1[x <= z], whose
      fourth values are 1[x < z] and 1[x > z] (``ge3``, ``le3``), and T = relu(x ⊖ z⁻),
      carried;
    * layer 5: T carried, K = relu(d) (a constant neuron, d = z − z⁻), the killers
      G1 = relu(C ⊗ ge3), G2 = relu(C ⊗ le3): C below z and above z, +0 at z (C = 2^e_max);
    * layer 6: R = relu(c0 ⊗ T ⊕ n0 ⊗ K ⊕ (−1) ⊗ G1 ⊕ (−1) ⊗ G2 ⊕ 1) with c0 = ±1 the chain's
      sign and n0 = −c0, K = relu(1), the killers carried.  At x = z, T = K = d, so
      c0 ⊗ T ⊕ n0 ⊗ K is +0 and R = 1; elsewhere one killer is C >= T + 1, so R is dead.

    Layer 5 lists ``T, K, G1, G2``, layer 6 ``R, K, G1, G2``: the column order of the next
    layers' sums."""
    P = _steps_and_t(fmt, SHALLOW_STEP_LAYERS)
    C = killer_constant(fmt)
    last = SHALLOW_STEP_LAYERS - 1
    P.add([t_carry(SHALLOW_STEP_LAYERS), ("K", [], Param("d")), ("G1", [(f"ge{last}", C)], NEG0),
           ("G2", [(f"le{last}", C)], NEG0)])
    P.add([("R", [("T", Param("c0")), ("K", Param("n0")), ("G1", -1), ("G2", -1)], 1), ("K", [], 1)]
          + carried(["G1", "G2"]))
    return P


def shallow_weights(s, h, g):
    """(w_out, the chain's weights in forward order): :func:`compact_weights` reversed.  The
    first is the sign ±1, the weight of the layer that meets (d, d) — the 1-D gate's row on
    (T, K), the d-dimensional atom's first chain layer — where d ⊗ c must be finite, which
    |c| = 1 keeps."""
    w_out, chain = compact_weights(s, h, g)
    return w_out, list(reversed(chain))


def shallow_gradient_atom(s, z, h, g):
    """The shallow gradient atom (depth 6 + 4 + 1 = 11 in every format, where the repaired
    one has 65 in bfloat16, 30 in float32 and 71 in float64).

    * layers 1–6: :func:`shallow_gate_plan`: the step blocks' first four layers and T, the
      killers read from their fourth (C ⊗ 1[x < z], C ⊗ 1[x > z]) beside a constant neuron
      K = relu(d), d = z − z⁻; layer 6 is the gate and the chain's first layer at once:
      R = relu(c0 ⊗ T ⊕ (−c0) ⊗ K ⊖ G1 ⊖ G2 ⊕ 1) with c0 the chain's sign, so (R, K, G1, G2)
      = (1, 1, 0, 0) at x = z, (0, 1, C, 0) below, (0, 1, 0, C) above.
    * chain: :func:`shallow_chain_layer` per further weight (:func:`shallow_weights`): at
      x = z each takes (1, 1, 0, 0) to (1, 1, 0, 0) — the forward value never grows, whatever
      the weight — and passes the gradient (u ⊗ ReLU'(1)) ⊗ c to R; K's gradient
      (u ⊗ 1) ⊗ (−c) is finite and stops there (K reads nothing).  At x ≠ z every R is
      dead.  So a weight may be any finite c >= −2 (c ≠ 0): the chain is, backwards, up
      (or down), a', b (or two ups): h to ±1; |g|; the sign, in the gate's row.
    * output: w_out ⊗ R ⊕ (−1) ⊗ N, as the repaired atom's.
    """
    P = shallow_gate_plan(s.fmt)
    params = {**step_params(s, "ge", z), **step_params(s, "le", -z), "d": z - z.next_down()}
    params.update(shallow_chain_and_output(s, P, h, g, merged=True))
    return P.network(), params


def shallow_chain_and_output(s, P, h, g, merged=False):
    """Add the shallow atom's chain (:func:`shallow_chain_layer` per weight of
    :func:`shallow_weights`, N in the last) and the output layer to the plan P, whose last
    layer holds (R, K, G1, G2); returns their params (c_i, n_i = −c_i, k_i, w_out).
    ``merged``: the plan's last layer is :func:`shallow_gate_plan`'s, whose R row takes the
    first weight (the sign: c0, n0), so the chain layers begin with the second.  The
    d-dimensional shallow atom has a chain layer for the sign (:mod:`fpsmt.constructions.relu_nd`)."""
    w_out, weights = shallow_weights(s, h, g)
    params = {}
    for i, c in enumerate(weights):
        params[f"c{i}"], params[f"n{i}"] = c, -c
        if merged and i == 0:
            continue
        params[f"k{i}"] = killer_weight(s, c)
        P.add(shallow_chain_layer(f"c{i}", f"n{i}", f"k{i}", with_n=i == len(weights) - 1))
    params["w_out"] = w_out
    P.add(OUTPUT_LAYER)
    return params


# ------------------------------------------------------------------ ⊞
def _renamed(net, params, prefix):
    """The network with every Param renamed ``prefix + name`` (and its params dict)."""
    if not prefix:
        return net, dict(params)
    ren = lambda e: Param(prefix + e.name) if isinstance(e, Param) else e  # noqa: E731
    layers = [Layer(L.n_out, L.n_in, L.rows, L.cols, [ren(w) for w in L.weights], [ren(b) for b in L.bias],
                    L.activation) for L in net.layers]
    return Network(net.fmt, layers), {prefix + k: v for k, v in params.items()}


def _padded(net, depth):
    """``net`` made ``depth`` layers deep by copies of its last hidden layer, inserted before
    the output layer: relu(1 ⊗ a) = a for a >= 0.  Values are unchanged; so is D^AD, up to
    the sign of zeros (a copy multiplies by ReLU'(a) = 0 only where a = 0, where a's own
    ReLU' was 0 already)."""
    extra = depth - net.depth
    if extra <= 0:
        return net
    if net.depth < 2:
        raise InputError("a one-layer network has no hidden layer to carry")
    f = net.fmt
    copy = padding_layer(f, net.layers[-2].n_out)
    return Network(f, net.layers[:-1] + [copy] * extra + net.layers[-1:])


def padding_layer(fmt, n):
    """The layer :func:`_padded` inserts: n neurons relu(1 ⊗ a_i ⊕ −0) (proofs/boxplus_neutrality.py
    proves a stack of any number of them changes no value, and no gradient but the sign of
    a zero)."""
    return _layer([(i, i, fmt.round(Fraction(1))) for i in range(n)], n, n, [fmt.sign_bit] * n)


def boxplus(parts):
    """⊞ of ``parts`` = [(network, params), …] (each one input, one output whose bias is
    −0): side by side on the shared input, padded to equal depth (:func:`_padded`), and one
    output row that sums every part's output terms left to right, **in the order of the
    parts** (the theorem puts f2's atoms before f1's).  Params are prefixed ``p{i}_``."""
    if not parts:
        raise InputError("⊞ of no networks")
    f = parts[0][0].fmt
    depth = max(n.depth for n, _ in parts)
    kinds, params = [], {}
    for i, (net, P) in enumerate(parts):
        if net.n_in != 1 or net.n_out != 1:
            raise InputError("⊞ joins networks of one input and one output")
        if net.layers[-1].bias[0] != f.sign_bit:
            raise InputError("⊞ needs each part's output bias to be −0")
        net, P = _renamed(net, P, f"p{i}_" if len(parts) > 1 else "")
        kinds.append(one_copy(net, depth))
        params.update(P)
    return boxplus_copies(f, kinds), params


def one_copy(net, depth):
    """``net`` padded to ``depth`` (:func:`_padded`) as a kind of one copy for
    :func:`boxplus_copies`: per layer its weights and biases (ints and Params) as 1 × n."""
    net = _padded(net, depth)
    one = lambda entries: np.array([list(entries)], dtype=object)  # noqa: E731
    return net, [(one(L.weights), one(L.bias)) for L in net.layers]


# ------------------------------------------------------------------ released gradient atom
def released_gradient_atom(s, z, h, g):
    """BRIEF §5.1: ``relu(v ⊗ relu((1/d) ⊗ Ind_z(x)))`` beside a released zero-gradient atom
    of value −v/d, summed (d: the released point indicator's D^AD at z).  The authors
    take v = the target gradient at upstream 1; for an upstream h this block is used with
    v = g ⊘ h (the natural reading: AD gives y ⊗ v)."""
    f = s.fmt
    pnet, params = released_point(s, z)
    d = released_point_derivative(s, z)
    v = g / h
    layers = list(pnet.layers) + [
        _layer(_w(f, [(0, 0, Param("inv_d"))]), 1, 1, _b(f, [NEG0])),
        _layer(_w(f, [(0, 0, Param("v"))]), 1, 1, _b(f, [NEG0])),
        _layer(_w(f, [(0, 0, 1)]), 1, 1, _b(f, [NEG0]), "identity")]
    branch_a = Network(f, layers)
    params.update(inv_d=1 / d, v=v)
    zga, zp = released_zero_gradient_atom(s, z, -(v / d))
    return boxplus([(branch_a, params), (zga, zp)])


# ------------------------------------------------------------------ Theorem 3.1 (ReLU, d = 1)
def least_depth(fmt, variant=REPAIRED):
    """The Theorem 3.1 network's least depth in ``fmt``: its gradient atom's (``variant``:
    repaired, or shallow: :func:`shallow_gradient_atom`)."""
    return gradient_atom_depth(fmt, variant)


def theorem_depth(fmt, depth=None, least=None, variant=REPAIRED, activation="relu", most=None, lemma=None):
    """``depth`` (None: the least, ``least`` or :func:`least_depth`), refused in one line
    below the least; above it, every atom is padded by copies of its last hidden layer,
    which boxplus_neutrality.padding proves for any number of copies up to its slot bound
    (another family: ``most`` layers above the least at most, by its padding ``lemma``)."""
    least = least or least_depth(fmt, variant)
    if depth is None:
        return least
    if most is None:
        from fpsmt.proof.approx import SLOTS
        most, lemma = SLOTS, "the padding lemma (boxplus_neutrality.padding)"
    if depth < least:
        raise InputError(f"--depth {depth}: the {activation} network in {fmt.name} needs at least {least} layers")
    if depth - least > most:
        raise InputError(f"--depth {depth}: {lemma} covers at most {most} layers above the least depth {least}")
    return depth


#: the most layers a family's padding adds above its least depth (``construct --depth``): its
#: value atoms' padding induction and its gradient atoms' chain induction cover that many
PADDING_MAX = 1 << 11


def theorem_network(fmt, points, depth=None, variant=REPAIRED):
    """f = f2 ⊞ f1 for targets on a finite domain: ``points`` = [(z, f*, h*, g*), …] as bit
    patterns (distinct z in X, |h*| <= Ω, g* = 0 where h* = 0).  f2 is the ⊞ of the
    repaired gradient atoms of the points with g* ≠ 0, f1 the ⊞ of the repaired
    zero-gradient atoms of every point; f2's terms come first in the output row
    (proofs/boxplus_neutrality.py, proofs/theorem_3_1_relu.py).  ``depth``: at least
    :func:`least_depth` (default), every atom padded to it (:func:`theorem_depth`).
    ``variant="shallow"``: the shallow gradient atoms (:func:`shallow_gradient_atom`; the
    row theorem_3_1_relu's shallow variant)."""
    CONSTRUCTIONS[0].check_points(fmt, points)  # the theorem's hypotheses and the blocks'
    depth = theorem_depth(fmt, depth, variant=variant)
    return boxplus_copies(fmt, [block_copies(b, fmt, args, depth) for b, args, _ in _kinds(fmt, points, variant)])


def _kinds(fmt, points, variant=REPAIRED):
    """The network's blocks kind by kind, in its order: (builder, one list of bit patterns
    per builder argument, the points — indices into ``points`` — the copies are built
    for): the gradient atoms of the points with g* ≠ 0, then every point's zero-gradient atom."""
    own = [k for k, p in enumerate(points) if not fmt.is_zero(p[3])]
    ga = shallow_gradient_atom if variant == SHALLOW else repaired_gradient_atom
    kinds = [(ga, [[points[k][i] for k in own] for i in (0, 2, 3)], own)] if own else []
    kinds.append((zero_gradient_atom, [[p[0] for p in points], [p[1] for p in points]], list(range(len(points)))))
    return kinds


def atom_kinds(fmt, points, depth=None, variant=REPAIRED) -> list:
    """The kinds of :func:`theorem_network`'s blocks, in its order, as
    :func:`fpsmt.constructions.blockrun.own_blocks` takes them: (template, the point — an
    index into ``points`` — each copy was built for).  The templates are the builders'
    (for the first point of each kind: only their shape is read).  ``depth``: the
    network's (:func:`theorem_network`)."""
    depth = theorem_depth(fmt, depth, variant=variant)
    return [(block_copies(b, fmt, [a[:1] for a in args], depth)[0], own)
            for b, args, own in _kinds(fmt, points, variant)]


#: the lemma rows that make the atoms' evaluation (construct --verify atoms) a verification:
#: away from its point every atom gives value ±0 and D^AD ±0 (the atoms' lemmas), the zeros
#: change no sum (⊞'s), and the network is the atoms side by side (the theorem's joins)
ATOM_LEMMAS = ("zero_gradient_atom", "gradient_atom", "boxplus_neutrality", "theorem_3_1_relu")


def check_points(fmt, points):
    """The blocks' own hypotheses on targets, each violation one error line naming x: a
    non-empty domain of distinct finite x, finite values, g* = 0 where h* = 0.  The
    theorem's (x in X, |h*| <= H) are the construction's
    (:meth:`~fpsmt.constructions.registry.Construction.check_points`, which calls this)."""
    if not points:
        raise InputError("the domain is empty")
    seen = set()
    for z, v, h, g in points:
        at = f"at x = {fmt.show(z)}"
        for what, b in (("x", z), ("f*", v), ("h*", h), ("g*", g)):
            if not fmt.is_finite(b):
                raise InputError(f"{at}: {what} = {fmt.show(b)} is not finite")
        if fmt.to_fraction(z) in seen:
            raise InputError(f"{at}: x appears twice (+0 and -0 are one point)")
        seen.add(fmt.to_fraction(z))
        if fmt.is_zero(h) and not fmt.is_zero(g):
            raise InputError(f"{at}: h* = 0 but g* = {fmt.show(g)}: a zero upstream gradient gives a zero gradient")


def block_copies(builder, fmt, args, depth):
    """The builder's network for many parameter tuples at once (``args``: one list of bit
    patterns per argument): the template (with Params), padded to ``depth``
    (:func:`_padded`), and per layer its weights (copies × entries) and biases (copies ×
    neurons) as bit patterns — the same bits as :func:`concrete` gives copy by copy (the
    test suite compares them)."""
    from fpsmt.semantics.arith import concrete as executor
    from fpsmt.proof.claims import F, Scope
    A = executor(fmt)
    s = Scope(A, fmt, {})
    n = len(args[0])
    net, params = builder(s, *(F(s, A.const(np.asarray(a, dtype=np.uint64))) for a in args))
    values = {k: np.broadcast_to(np.ravel(A.to_bits(v.v)).astype(np.uint64), (n,)) for k, v in params.items()}
    column = lambda e: values[e.name] if isinstance(e, Param) else np.full(n, e, dtype=np.uint64)  # noqa: E731
    net = _padded(net, depth)
    return net, [(np.stack([column(w) for w in L.weights], axis=1).reshape(n, len(L.weights)),
                  np.stack([column(b) for b in L.bias], axis=1)) for L in net.layers]


def boxplus_copies(fmt, kinds):
    """The layers of ⊞ (:func:`boxplus`) for ``kinds`` = [(template network, per layer
    (weights: copies × entries, biases: copies × neurons)), …]: every copy of every kind
    side by side, kind after kind, and one output row summing their terms in that order;
    built with array operations.  :func:`block_copies` makes a kind of many copies, boxplus a
    kind of one copy per part."""
    layers = []
    depth = kinds[0][0].depth
    for k in range(depth):
        last = k == depth - 1
        rows, cols, ws, bias = [], [], [], []
        r0 = c0 = 0
        for net, values in kinds:
            L, (W, B) = net.layers[k], values[k]
            i = np.arange(len(W))[:, None]
            rows.append(np.zeros(W.size, dtype=np.int64) if last else (r0 + i * L.n_out + L.rows[None, :]).ravel())
            cols.append(L.cols[None, :].repeat(len(W), 0).ravel() if k == 0 else (c0 + i * L.n_in + L.cols[None, :]).ravel())
            ws.append(W.ravel())
            bias.append(B.ravel())
            r0 += len(W) * L.n_out
            c0 += len(W) * L.n_in
        bias = [fmt.sign_bit] if last else np.concatenate(bias).tolist()
        layers.append(Layer(1 if last else r0, kinds[0][0].n_in if k == 0 else c0, np.concatenate(rows), np.concatenate(cols),
                            np.concatenate(ws).tolist(), bias, kinds[0][0].layers[k].activation))
    return Network(fmt, layers)


# ------------------------------------------------------------------ the construction
def constants(fmt):
    import importlib
    return importlib.import_module("fpsmt.specs.theorems").constants("relu", fmt)


CONSTRUCTIONS = [Construction("relu", "relu", sys.modules[__name__], constants, paper_depth=7)]
