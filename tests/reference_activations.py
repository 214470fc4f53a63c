"""An independent evaluation of the built-in activations, rounded once to a format.

Written apart from fpsmt's own (``fpsmt.semantics.activations.realfun`` and
``rounding``): other formulas for σ and σ' (gelu through erf instead of erfc, swish and
sigmoid as quotients of exponentials, mish through (1 + e^x)², tanh' from cosh), its
own Ziv loop and its own rounding of an exact dyadic on the integers of a format's
fields.  It shares only Arb (python-flint), a widely tested library of rigorous ball
arithmetic: every value comes from a ball that certainly holds the exact one, and is
final only when both exact ends of the ball round to the same float.

At an input where the exact value is itself a float's midpoint (σ(0) = 1/2 and the
like) no ball decides; those are the few rational points of each activation, stated
here as ``EXACT`` from the definitions.  ``near_tie`` measures how close to a midpoint
the exact value lies, in units of the format's quantum: the inputs the default suite
checks first.
"""

from __future__ import annotations

from fractions import Fraction

import flint

A = flint.arb
SLOPE = Fraction(1, 100)
SELU_ALPHA = Fraction("1.6732632423543772848170429916717")
SELU_SCALE = Fraction("1.0507009873554804934193349852946")
GELU_TANH_C = Fraction("0.044715")


def q(v: Fraction) -> flint.arb:
    """A ball holding v: exactly when v is dyadic (a float's value), else at the working
    precision."""
    d = v.denominator
    if d & (d - 1):
        return A(flint.fmpq(v.numerator, d))
    saved = flint.ctx.prec
    flint.ctx.prec = max(saved, abs(v.numerator).bit_length() + 2)
    try:
        return A(flint.fmpz(v.numerator)) / A(flint.fmpz(d))  # exact at this precision
    finally:
        flint.ctx.prec = saved


def sqrt2pi_inv():
    return 1 / (2 * A.pi()).sqrt()


def _erfc_pos(t):
    """erfc(t), t > 0; far in the tail, where Arb's ball is [0 ± tiny], the asymptotic
    bounds e^(−t²)/(t√π)·(1 − 1/(2t²)) < erfc(t) < e^(−t²)/(t√π)."""
    y = t.erfc()
    if y > 0:
        return y
    hi = (-(t * t)).exp() / (t * A.pi().sqrt())
    return (hi * (1 - 1 / (2 * t * t))).union(hi)


def _erf_phi(x):  # Φ(x) = (1 + erf(x/√2)) / 2, or erfc(|x|/√2)/2 below 0 (no cancellation)
    if x < 0:
        return _erfc_pos(-x / A(2).sqrt()) / 2
    return (1 + (x / A(2).sqrt()).erf()) / 2


def _logistic(x):
    # e^x / (1 + e^x) for x <= 0, 1 / (1 + e^-x) otherwise: no huge intermediate
    if x < 0:
        e = x.exp()
        return e / (1 + e)
    return 1 / (1 + (-x).exp())


def _softplus(x):
    return x + (-x).exp().log1p() if x > 0 else x.exp().log1p()


def _mish_t(x):  # tanh(softplus(x)) = ((1 + e^x)^2 - 1) / ((1 + e^x)^2 + 1) = (e^2x + 2e^x)/(e^2x + 2e^x + 2)
    if x > 0:  # divide through by e^2x
        u = (-x).exp()
        return (1 + 2 * u) / (1 + 2 * u + 2 * u * u)
    e = x.exp()
    n = e * e + 2 * e
    return n / (n + 2)


def _elu(alpha, scale):
    a, s = q(alpha), q(scale)
    return ((lambda x: s * x if x > 0 else s * a * x.expm1()),
            (lambda x: s if x > 0 else s * a * x.exp()))


def _half_one_plus_tanh(u):  # (1 + tanh u)/2, as e^(2u)/(1 + e^(2u)) for u < 0 (no cancellation)
    if u < 0:
        e = (2 * u).exp()
        return e / (1 + e)
    return (1 + u.tanh()) / 2


def _gelu_tanh_u(x):
    return (2 / A.pi()).sqrt() * (x + q(GELU_TANH_C) * x * x * x)


FUNCTIONS = {
    "relu": (lambda x: x if x > 0 else A(0), lambda x: A(1) if x > 0 else A(0)),
    "leaky_relu": (lambda x: x if x > 0 else q(SLOPE) * x, lambda x: A(1) if x > 0 else q(SLOPE)),
    "elu": _elu(Fraction(1), Fraction(1)),
    "selu": _elu(SELU_ALPHA, SELU_SCALE),
    "gelu": (lambda x: x * _erf_phi(x),
             lambda x: _erf_phi(x) + x * (-(x * x) / 2).exp() * sqrt2pi_inv()),
    "gelu_tanh": (lambda x: x * _half_one_plus_tanh(_gelu_tanh_u(x)),
                  lambda x: _half_one_plus_tanh(_gelu_tanh_u(x)) + x / (2 * _gelu_tanh_u(x).cosh() ** 2)
                  * (2 / A.pi()).sqrt() * (1 + 3 * q(GELU_TANH_C) * x * x)),
    "swish": (lambda x: x * _logistic(x),
              lambda x: _logistic(x) + x * _logistic(x) * _logistic(-x)),
    "mish": (lambda x: x * _mish_t(x),
             lambda x: _mish_t(x) + x * (1 - _mish_t(x) ** 2) * _logistic(x)),
    "sigmoid": (_logistic, lambda x: _logistic(x) * _logistic(-x)),
    "tanh": (lambda x: x.tanh(), lambda x: 1 / (x.cosh() ** 2) if abs(x) < 1000 else 4 * (-2 * abs(x)).exp()
             / (1 + (-2 * abs(x)).exp()) ** 2),
    "softplus": (_softplus, _logistic),
    "sin": (lambda x: x.sin(), lambda x: x.cos()),
    "cos": (lambda x: x.cos(), lambda x: -x.sin()),
}

#: the rational values at rational points, from the definitions: (activation, which, x) -> value
EXACT = {
    ("relu", 0): (Fraction(0), Fraction(0)), ("leaky_relu", 0): (Fraction(0), SLOPE),
    ("elu", 0): (Fraction(0), Fraction(1)), ("selu", 0): (Fraction(0), SELU_SCALE * SELU_ALPHA),
    ("gelu", 0): (Fraction(0), Fraction(1, 2)), ("gelu_tanh", 0): (Fraction(0), Fraction(1, 2)),
    ("swish", 0): (Fraction(0), Fraction(1, 2)), ("mish", 0): (Fraction(0), Fraction(3, 5)),
    ("sigmoid", 0): (Fraction(1, 2), Fraction(1, 4)), ("tanh", 0): (Fraction(0), Fraction(1)),
    ("softplus", 0): (None, Fraction(1, 2)), ("sin", 0): (Fraction(0), Fraction(1)),
    ("cos", 0): (Fraction(1), Fraction(0)),
}
PIECEWISE_LINEAR = {"relu": (lambda v: max(v, Fraction(0)), lambda v: Fraction(1 if v > 0 else 0)),
                    "leaky_relu": (lambda v: v if v > 0 else SLOPE * v, lambda v: Fraction(1) if v > 0 else SLOPE)}
#: limits at ±∞: (σ, σ') per sign, None for NaN, "inf" / "-inf"
LIMITS = {
    "relu": {1: ("inf", 1), -1: (0, 0)}, "leaky_relu": {1: ("inf", 1), -1: ("-inf", SLOPE)},
    "elu": {1: ("inf", 1), -1: (-1, 0)}, "selu": {1: ("inf", SELU_SCALE), -1: (-SELU_SCALE * SELU_ALPHA, 0)},
    "gelu": {1: ("inf", 1), -1: (0, 0)}, "gelu_tanh": {1: ("inf", 1), -1: (0, 0)},
    "swish": {1: ("inf", 1), -1: (0, 0)}, "mish": {1: ("inf", 1), -1: (0, 0)},
    "sigmoid": {1: (1, 0), -1: (0, 0)}, "tanh": {1: (1, 0), -1: (-1, 0)},
    "softplus": {1: ("inf", 1), -1: (0, 0)}, "sin": {1: (None, None), -1: (None, None)},
    "cos": {1: (None, None), -1: (None, None)},
}


class Fmt:
    """A format as its fields: E exponent bits, M fraction bits (IEEE style)."""

    def __init__(self, E, M):
        self.E, self.M = E, M
        self.bias = (1 << (E - 1)) - 1
        self.qmin = 1 - self.bias - M
        self.sign = 1 << (E + M)
        self.inf = ((1 << E) - 1) << M
        self.nan = self.inf | (1 << (M - 1))

    def value(self, b):
        """('nan' | 'inf' | '-inf' | Fraction) of a pattern."""
        s, e, f = b >> (self.E + self.M), (b >> self.M) & ((1 << self.E) - 1), b & ((1 << self.M) - 1)
        if e == (1 << self.E) - 1:
            return "nan" if f else ("-inf" if s else "inf")
        v = Fraction(f if e == 0 else f | (1 << self.M)) * Fraction(2) ** (self.qmin if e == 0 else
                                                                           e - self.bias - self.M)
        return -v if s else v

    def round_dyadic(self, n: int, e: int, negative_zero=False) -> int:
        """RNE of n · 2^e; magnitudes far outside the format go to ±0 or ±inf without
        forming 2^e (an end of a ball around e^(−3·10^38) has an exponent of 4·10^38)."""
        top = e + abs(n).bit_length()  # |v| < 2^top
        if n != 0 and top < self.qmin - 1:  # below a quarter of the least subnormal: a signed zero
            return (self.sign if n < 0 else 0)
        if top > (1 << (self.E - 1)) + 2:
            return self.inf | (self.sign if n < 0 else 0)
        return self.round(Fraction(n) * Fraction(2) ** e, negative_zero)

    def round(self, v: Fraction, negative_zero=False) -> int:
        """RNE of an exact rational, on integers: the quantum of its binade (or of the
        subnormals), the quotient and remainder, ties to the even quotient."""
        s = 1 if v < 0 or (v == 0 and negative_zero) else 0
        v = abs(v)
        if v == 0:
            return s * self.sign
        k = v.numerator.bit_length() - v.denominator.bit_length()  # 2^(k-1) < v < 2^(k+1)
        if Fraction(2) ** k > v:
            k -= 1  # now 2^k <= v < 2^(k+1)
        quantum = max(k - self.M, self.qmin)
        scaled = v / Fraction(2) ** quantum
        n, r = divmod(scaled.numerator, scaled.denominator)
        twice = 2 * r
        if twice > scaled.denominator or (twice == scaled.denominator and n % 2 == 1):
            n += 1
        if n >> (self.M + 1):  # carried into the next binade
            n >>= 1
            quantum += 1
        if n >> self.M:
            e = quantum - self.qmin + 1
            bits = self.inf if e >= (1 << self.E) - 1 else (e << self.M) | (n - (1 << self.M))
        else:
            bits = n
        return s * self.sign | bits


def _ball_ends(y, lowest):
    """Ends (n, e) of an interval holding the ball y = mid ± rad.  A ball of one sign wholly
    below 2^lowest gives ±2^(lowest − 1) (it rounds to a signed zero either way); otherwise
    mid and rad are read on a grid of 2^g, g a few thousand bits below the ball's top,
    mid rounded down and rad up by two grid steps, so the interval holds the ball and no
    integer of 10^38 bits (erfc's tail far out) is ever formed."""
    (mm, me), (rm, re) = ((int(m), int(e)) for m, e in (y.mid().man_exp(), y.rad().man_exp()))
    top = max(me + mm.bit_length(), re + rm.bit_length())
    if top < lowest and (y > 0 or y < 0):
        return ((1, lowest - 1),) * 2 if y > 0 else ((-1, lowest - 1),) * 2
    g = top - 4096

    def below(n, e):  # floor(n · 2^(e − g)), without forming 2^(g − e) when that is astronomical
        if n == 0 or e >= g:
            return n * 2 ** (e - g)
        return n // 2 ** (g - e) if g - e <= n.bit_length() + 1 else (0 if n > 0 else -1)
    mid = below(mm, me)
    rad = below(rm, re) + 3  # rounded up, and widened
    return (mid - rad, g), (mid + rad, g)


def enclose(name, which, x: Fraction, prec: int, lowest: int):
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        y = FUNCTIONS[name][which](q(x))
        return _ball_ends(y, lowest) if y.is_finite() else None
    except (ArithmeticError, ValueError):
        return None
    finally:
        flint.ctx.prec = saved


def reference(name: str, fmt: Fmt, bits: int, which: int) -> int:
    """RNE(σ(x)) (which 0) or RNE(σ'(x)) (which 1) at the pattern ``bits``, rounded once."""
    x = fmt.value(bits)
    if x == "nan":
        return fmt.nan
    if isinstance(x, str):
        lim = LIMITS[name][-1 if x == "-inf" else 1][which]
        if lim is None:
            return fmt.nan
        if isinstance(lim, str):
            return fmt.inf | (fmt.sign if lim == "-inf" else 0)
        return fmt.round(Fraction(lim))
    if x == 0 and (name, 0) in EXACT and EXACT[(name, 0)][which] is not None:
        return fmt.round(EXACT[(name, 0)][which])
    if name in PIECEWISE_LINEAR:
        return fmt.round(PIECEWISE_LINEAR[name][which](x))
    prec = fmt.M + 30
    while prec <= 1 << 14:
        got = enclose(name, which, x, prec, fmt.qmin - 3)
        if got is not None:
            lo, hi = (fmt.round_dyadic(n, e) for n, e in got)
            if lo == hi:
                return lo
        prec *= 2
    raise AssertionError(f"{name} {'σ' if which == 0 else 'σ′'} at {bits:#x}: undecided at {prec // 2} bits")


def near_tie(name: str, fmt: Fmt, bits: int, which: int) -> Fraction | None:
    """How far the exact value lies from the nearest rounding boundary (a midpoint between
    two floats), in quanta of its binade; None where it is not a finite nonzero value."""
    x = fmt.value(bits)
    if isinstance(x, str) or x == 0 or name in PIECEWISE_LINEAR:
        return None
    got = enclose(name, which, x, 96, fmt.qmin - 3)
    if got is None:
        return None
    (n, e), _ = got
    if e + abs(n).bit_length() < fmt.qmin - 2 or e + abs(n).bit_length() > (1 << (fmt.E - 1)) + 2:
        return None  # far below the least subnormal, or above the largest float
    v = abs(Fraction(n) * Fraction(2) ** e)
    if v == 0:
        return None
    k = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** k > v:
        k -= 1
    scaled = v / Fraction(2) ** max(k - fmt.M, fmt.qmin)
    frac = scaled - (scaled.numerator // scaled.denominator)
    return abs(frac - Fraction(1, 2))
