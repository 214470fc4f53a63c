"""Builders of the ReLU construction (BRIEF §5, §5.1) as true networks of the IR.

Every builder takes a claim :class:`~fpsmt.claims.Scope` and the block's own parameters
(z, v, …) as values of that scope, and returns ``(network, params)``: a network whose
weights and biases are :class:`~fpsmt.network.Param` where they depend on the parameters,
and the values of those Params computed *in the scope* — so one builder gives the
symbolic network a proof quantifies over (Z3 scope) and the concrete network a user
runs (executor scope, see :func:`concrete`).  Constants are biases or constant neurons
(zero input weights), never extra inputs.

Two variants:

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
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .errors import InputError
from .network import Layer, Network, Param

RELEASED, REPAIRED = "released", "repaired"
VARIANTS = (RELEASED, REPAIRED)


def _check_variant(variant):
    if variant not in VARIANTS:
        raise InputError(f"unknown variant {variant!r}: use released or repaired")


def _layer(rows_cols_weights, n_out, n_in, bias, act="relu"):
    rows = [r for r, _, _ in rows_cols_weights]
    cols = [c for _, c, _ in rows_cols_weights]
    return Layer(n_out, n_in, rows, cols, [w for _, _, w in rows_cols_weights], bias, act)


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


def _step_params(s, tag, z):
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
                             "relu" if k < depth - 1 or last_act == "relu" else last_act))
        n_in = len(bias)
    return layers


def step_ge(s, z, variant=REPAIRED):
    """1[x >= z] for every z of X (repaired) — see the module docstring; the released
    variant is :func:`released_step` (positive normal and subnormal z, mirrored for z < 0)."""
    _check_variant(variant)
    if variant == RELEASED:
        return released_step(s, z, "ge")
    f = s.fmt
    net = Network(f, _stack(f, [_step_layers(f, "ge", 1, 0)], 1, last_act="relu"))
    return net, _step_params(s, "ge", z)


def step_le(s, z, variant=REPAIRED):
    """1[x <= z] = 1[−x >= −z]: the same block at −z, fed −x."""
    _check_variant(variant)
    if variant == RELEASED:
        return released_step(s, z, "le")
    f = s.fmt
    net = Network(f, _stack(f, [_step_layers(f, "le", -1, 0)], 1, last_act="relu"))
    return net, _step_params(s, "le", -z)


def step_pair(s, z):
    """[1[x >= z], 1[x <= z]] side by side (5 layers, width 2): the first layers of the
    repaired point indicator and zero-gradient atom."""
    f = s.fmt
    layers = _stack(f, [_step_layers(f, "ge", 1, 0, 0), _step_layers(f, "le", -1, 0, 1)], 1, last_act="relu")
    return Network(f, layers), {**_step_params(s, "ge", z), **_step_params(s, "le", -z)}


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
        _layer(_w(f, [(0, 0, Param("nb")), (1, 1, Param("nb"))]), 2, 2, [b, b], "relu"),  # G1 = b·[x<z], G2 = b·[x>z]
        _layer(_w(f, [(0, 0, -1), (0, 1, -1)]), 1, 2, [b], "relu"),                       # N = b·[x=z]
        _layer(_w(f, [(0, 0, Param("sgn"))]), 1, 1, _b(f, [NEG0]), "identity")]
    params.update(b=abs(v), nb=-abs(v), sgn=s.where(v.is_negative(), -1, 1))
    return Network(f, layers), params


# ------------------------------------------------------------------ released (BRIEF §5.1)
def _released_fields(s, z):
    """For z > 0: (e_z, a_z, c_z, u0, ũ0, c̃, k) of BRIEF §5.1 (true exponent for subnormals)."""
    f = s.fmt
    p, e0 = f.M, 2 ** (f.E - 2) - 1
    e = true_exponent(s, z)
    sub = z.is_subnormal()
    cz = s.iwhere(sub, -e + f.e_min, 0)
    a = (z * (-e - p).pow2()) * s.int_pow2(p)  # a_z in [1, 2): two exact scalings (2^−e may overflow)
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
    layers = _stack(f, [_released_step_layers(kind, 0, 0)], 1, "relu")
    return Network(f, layers), _released_step_any_sign(s, kind, z, kind)


def released_point(s, z):
    """ReLU(step_z(x) − step_(z⁺)(x)) (4 layers)."""
    f = s.fmt
    parts = [_released_step_layers("at", 0, 0), _released_step_layers("up", 0, 1)]
    layers = _stack(f, parts, 1, "relu")
    layers.append(_layer(_w(f, [(0, 0, 1), (0, 1, -1)]), 1, 2, _b(f, [NEG0]), "relu"))
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
                             [fmt.sign_bit] + [c for c in consts for _ in (0, 1)], "relu"))
        layers.append(_layer(_w(fmt, sums), 1, 1 + 2 * n, _b(fmt, [NEG0]), "relu"))
    layers.append(_layer(_w(fmt, [(0, 0, scale)]), 1, 1, _b(fmt, [NEG0]), "relu"))
    return layers


def cancellation(s, blocks=1, variant=REPAIRED):
    """``blocks`` cancellation blocks as a network of one input s (BRIEF §5.1)."""
    _check_variant(variant)
    layers = cancellation_layers(s.fmt, blocks)
    layers[-1].activation = "identity"
    return Network(s.fmt, layers), {}


def released_zero_gradient_atom(s, z, v, blocks=3):
    """Point indicator → ``blocks`` cancellation blocks → weight v (BRIEF §5.1)."""
    f = s.fmt
    pnet, params = released_point(s, z)
    layers = list(pnet.layers) + cancellation_layers(f, blocks)
    layers.append(_layer(_w(f, [(0, 0, Param("v"))]), 1, 1, _b(f, [NEG0]), "identity"))
    params["v"] = v
    return Network(f, layers), params


# ------------------------------------------------------------------ concrete networks
def concrete(builder, fmt, *args, **kw):
    """The builder's network with every Param replaced by its bit pattern, for concrete
    block parameters (bit patterns, or numbers exactly representable in ``fmt``)."""
    from .arith import concrete as executor
    from .claims import F, Scope
    A = executor(fmt)
    s = Scope(A, fmt, {})

    def lift(x):
        if isinstance(x, int) and not isinstance(x, bool):
            return F(s, A.const(np.asarray(x, dtype=fmt.uint_dtype if fmt.nbits <= 64 else object)))
        return s.const(x)
    net, params = builder(s, *(lift(a) for a in args), **kw)
    values = {k: int(np.ravel(A.to_bits(v.v))[0]) for k, v in params.items()}
    layers = []
    for L in net.layers:
        sub = lambda e: values[e.name] if isinstance(e, Param) else e  # noqa: E731
        layers.append(Layer(L.n_out, L.n_in, L.rows, L.cols, [sub(w) for w in L.weights],
                            [sub(b) for b in L.bias], L.activation))
    return Network(fmt, layers)
