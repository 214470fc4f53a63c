"""Exact real activations σ and σ', written once over an mpmath-like context ``m``.

Each definition is called with ``m = mpmath.mp`` (:data:`MP`: values), with :data:`ARB`,
a rigorous context on python-flint's Arb ball arithmetic (a ball that certainly
contains the exact value; ``exp``, ``expm1``, ``log1p``, ``erf``, ``erfc``, ``tanh``,
``sin``, ``cos``, ``sqrt`` are Arb's own, ``sigmoid`` is built from ``exp``), or with
:data:`IV`, mpmath's interval arithmetic with the functions it lacks (``tanh``, ``erf``,
``erfc``, ``sigmoid``, all monotone) taken from Arb at the interval's exact ends.

The correctly rounded values use :data:`ARB` at exact points (:func:`arbprec` sets the
working precision).  A declared monotone piece of a user's activation is checked with
:data:`IV`: an interval of mpmath has exact ends, while an Arb ball's radius is rounded
up, so a ball over [0, 1] reaches below 0 and σ' = 2x on it is never certainly >= 0.

Kink conventions (BRIEF §3, PyTorch): relu'(0) = 0; leaky_relu'(0) = slope;
elu'(0) and selu'(0) use the left branch (α e^0, λ α e^0), as PyTorch does.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import flint
import mpmath


# ------------------------------------------------------------ the rigorous context
def arb(x) -> flint.arb:
    """A ball holding ``x`` exactly where ``x`` is an int, a float, a dyadic Fraction or an
    mpmath number; otherwise (a non-dyadic Fraction, a decimal string) a ball around it
    at the working precision."""
    if isinstance(x, flint.arb):
        return x
    if isinstance(x, bool):
        x = int(x)
    if isinstance(x, int):
        return flint.arb(flint.fmpz(x))
    if isinstance(x, Fraction):
        d = x.denominator
        if d & (d - 1) == 0:  # dyadic: exact
            return _dyadic(x.numerator, 1 - d.bit_length())
        return flint.arb(flint.fmpq(x.numerator, d))
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            return flint.arb(str(x))
        return _dyadic(*mpf_dyadic(x))
    return flint.arb(x)


def mpf_dyadic(x) -> tuple:
    """(man, exp) with x = man · 2^exp exactly, man signed — mpmath's ``man_exp`` gives
    |man| (the sign is apart in ``_mpf_``): arb(−3) once came out +3 that way, so that the
    interval versions of tanh, erf, erfc and sigmoid were evaluated at |end|."""
    sign, man, exp, _ = x._mpf_
    return (-int(man) if sign else int(man)), int(exp)


def _dyadic(man: int, exp: int) -> flint.arb:
    """man · 2^exp as an exact ball (Arb rounds a product to the working precision, so
    the product is formed at a precision that holds man)."""
    if man == 0:
        return flint.arb(0)
    with arbprec(max(flint.ctx.prec, abs(man).bit_length() + 2)):
        return flint.arb(flint.fmpz(man)) * flint.arb(2) ** exp


@contextlib.contextmanager
def arbprec(prec: int):
    """Arb's working precision (bits) inside the block."""
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        yield
    finally:
        flint.ctx.prec = saved


def _unary(name):
    return staticmethod(lambda x: getattr(arb(x), name)())


class _ArbContext:
    """The mpmath-like names over Arb balls (python-flint)."""

    rigorous = True
    mpf = staticmethod(arb)
    exp, expm1, log, log1p = _unary("exp"), _unary("expm1"), _unary("log"), _unary("log1p")
    tanh, sqrt = _unary("tanh"), _unary("sqrt")
    sin, cos, sinh, cosh, atan = _unary("sin"), _unary("cos"), _unary("sinh"), _unary("cosh"), _unary("atan")

    @staticmethod
    def sigmoid(x):
        """1/(1 + e^−x), and e^x/(1 + e^x) for x < 0: there e^−x is beyond Arb's finite
        balls far out (x = −2^1000), while e^x is a finite ball near 0."""
        x = arb(x)
        if x < 0:
            e = x.exp()
            return e / (1 + e)
        return 1 / (1 + (-x).exp())

    @staticmethod
    def erfc(x):
        """Arb's erfc, except far in the right tail, where Arb's ball is [0 ± tiny] and says
        nothing of the sign: there the bracket of Abramowitz & Stegun 7.1.13,
        2e^(−x²)/√π / (x + √(x² + 2)) < erfc(x) <= 2e^(−x²)/√π / (x + √(x² + 4/π)), x >= 0."""
        x = arb(x)
        y = x.erfc()
        if x > 0 and not y > 0:
            pi = flint.arb.pi()
            c = 2 * (-(x * x)).exp() / pi.sqrt()
            y = (c / (x + (x * x + 2).sqrt())).union(c / (x + (x * x + 4 / pi).sqrt()))
        return y

    @classmethod
    def erf(cls, x):
        """erf(x) = −1 + erfc(−x) far in the left tail (a ball of −1 ± tiny says nothing of
        1 + erf there); Arb's erf elsewhere."""
        x = arb(x)
        return -1 + cls.erfc(-x) if x < -4 else x.erf()

    @property
    def pi(self):
        return flint.arb.pi()

    @property
    def e(self):
        return flint.arb(1).exp()


class _MPContext:
    """mpmath.mp with the same additions (for values, not enclosures)."""

    rigorous = False

    @staticmethod
    def sigmoid(x):
        return 1 / (1 + mpmath.exp(-x))

    def __getattr__(self, name):
        return getattr(mpmath.mp, name)


def _iv_monotone(name, increasing=True):
    """An mpmath interval function from Arb's at the interval's exact ends (the function
    is monotone), its ends rounded outward."""
    iv = mpmath.iv

    def at(end, lower):
        with arbprec(iv.prec + 16):
            y = getattr(ARB, name)(arb(end))  # ARB's own: erfc's far tail keeps its sign
        lo, hi = ends_of(y)
        man, exp = lo if lower else hi
        with mpmath.workprec(max(53, abs(man).bit_length() + 1)):
            exact = mpmath.mpf((man, exp))
        return iv.mpf(exact)  # rounded outward to the interval precision

    def fn(x):
        x = iv.mpf(x)
        a, b = mpmath.mpf(x.a), mpmath.mpf(x.b)
        if not increasing:
            a, b = b, a
        return iv.mpf([at(a, True).a, at(b, False).b])
    return fn


def ends_of(ball, floor=None) -> tuple:
    """Exact ends (man, exp) of an enclosure of a finite Arb ball: mid ∓ rad from its exact
    midpoint and radius (Arb's ``lower()``/``upper()`` round them to the working precision),
    on a grid of 2^cut, the ends pushed outward (so still an enclosure), with cut some 2·64
    bits below the ball's magnitude: a ball with a tiny midpoint and a large radius, or the
    reverse, is never written as an integer of 10^38 bits.

    ``floor``: a ball of one sign lying wholly below 2^floor in magnitude (e^(−10^38) and
    the like, where a rounding sees only the sign) gets the ends ±2^(floor − 2)."""
    if not ball.is_finite():
        raise ArithmeticError("Arb gives no finite enclosure")
    (mm, me), (rm, re) = ((int(m), int(e)) for m, e in (ball.mid().man_exp(), ball.rad().man_exp()))
    if rm == 0:
        return (mm, me), (mm, me)
    top = max(me + mm.bit_length(), re + rm.bit_length())  # |mid| + rad < 2^(top + 1)
    if floor is not None and top + 1 < floor and (ball > 0 or ball < 0):
        s = 1 if ball > 0 else -1
        return (s, floor - 2), (s, floor - 2)
    cut = top - 2 * max(mm.bit_length(), 64) - 64
    if mm and cut - 512 <= me < cut:
        cut = me  # the midpoint stays exact when it is not far below the ball's magnitude
    mid = mm << (me - cut) if me >= cut else mm >> (cut - me)  # floor: mid in [mid, mid + 1)·2^cut
    rad = (rm << (re - cut) if re >= cut else (rm >> (cut - re)) + 1) + 1
    return (mid - rad, cut), (mid + rad, cut)


class _IVContext:
    """mpmath.iv with tanh, erf, erfc and sigmoid from Arb (rigorous)."""

    tanh = staticmethod(_iv_monotone("tanh"))
    erf = staticmethod(_iv_monotone("erf"))
    erfc = staticmethod(_iv_monotone("erfc", increasing=False))
    sigmoid = staticmethod(_iv_monotone("sigmoid"))
    rigorous = True

    def __getattr__(self, name):
        return getattr(mpmath.iv, name)


ARB = _ArbContext()
MP = _MPContext()
IV = _IVContext()


# ------------------------------------------------------------ the definitions
INF, NAN = "inf", "nan"


class RealActivation:
    """σ and σ' over the reals, their limits at ±∞ and their monotone pieces.

    ``limits = {+1: (σ(+∞), σ'(+∞)), -1: (σ(−∞), σ'(−∞))}`` with Fractions, ``"inf"``,
    ``"-inf"`` or ``"nan"``.  ``pieces`` are (lo, hi, +1 | −1) on which σ is monotone
    (non-decreasing / non-increasing), with exactly known turning points; None when σ has
    infinitely many (sin, cos).  ``exact(q)`` / ``exact_prime(q)`` give the value at a
    rational point where it is rational (piecewise-linear σ, special points), else None.
    """

    name = ""
    limits: dict = {}
    pieces = None
    #: monotone pieces of σ' (same form as ``pieces``), where known
    prime_pieces = None
    #: roughly where σ has its single critical point (σ non-increasing before it, non-decreasing
    #: after it: a fact of analysis for gelu, swish, mish); located exactly per format by
    #: :func:`fpsmt.semantics.activations.rounding.value_pieces`
    turning = None
    piecewise_linear = False
    #: add the tails where σ_F (σ'_F) is constant, found by enclosures per format, to the
    #: pieces the Z3 interpretation uses (:func:`~fpsmt.semantics.activations.rounding.constant_tails`)
    infer_tails = False
    #: symmetry of σ and of σ' ("odd", "even" or None); RNE is odd, so σ_F inherits it
    symmetry = (None, None)
    cacheable = True  # tables may be kept on disk under :attr:`key`

    @property
    def key(self) -> str:
        return self.name.replace(":", "_").replace("/", "_")

    def f(self, x, m):
        raise NotImplementedError

    def fprime(self, x, m):
        raise NotImplementedError

    def exact(self, q: Fraction):
        return None

    def exact_prime(self, q: Fraction):
        return None


class Relu(RealActivation):
    name = "relu"
    limits = {1: (INF, Fraction(1)), -1: (Fraction(0), Fraction(0))}
    pieces = [(None, None, 1)]
    piecewise_linear = True

    def f(self, x, m):
        return x if x > 0 else 0 * x

    def fprime(self, x, m):
        return m.mpf(1) if x > 0 else m.mpf(0)

    def exact(self, q):
        return q if q > 0 else Fraction(0)

    def exact_prime(self, q):
        return Fraction(1 if q > 0 else 0)


class LeakyRelu(RealActivation):
    piecewise_linear = True

    def __init__(self, slope="0.01"):
        self.slope = Fraction(slope)
        if self.slope < 0:
            raise ValueError("leaky_relu slope must be >= 0")
        self.name = "leaky_relu" if self.slope == Fraction("0.01") else f"leaky_relu:{slope}"
        self.limits = {1: (INF, Fraction(1)), -1: ("-inf" if self.slope > 0 else Fraction(0), self.slope)}
        self.pieces = [(None, None, 1)]

    def f(self, x, m):
        return x if x > 0 else x * m.mpf(self.slope.numerator) / self.slope.denominator

    def fprime(self, x, m):
        return m.mpf(1) if x > 0 else m.mpf(self.slope.numerator) / self.slope.denominator

    def exact(self, q):
        return q if q > 0 else q * self.slope

    def exact_prime(self, q):
        return Fraction(1) if q > 0 else self.slope


class Elu(RealActivation):
    name = "elu"
    alpha = Fraction(1)
    scale = Fraction(1)
    pieces = [(None, None, 1)]
    infer_tails = True  # the identity and dead (−1) tails the rectifying construction stands on

    def __init__(self):
        a, s = self.alpha, self.scale
        self.limits = {1: (INF, s), -1: (-s * a, Fraction(0))}

    def _c(self, m, q):
        return m.mpf(q.numerator) / q.denominator

    def f(self, x, m):
        if x > 0:
            return self._c(m, self.scale) * x
        return self._c(m, self.scale) * self._c(m, self.alpha) * m.expm1(x)

    def fprime(self, x, m):
        if x > 0:
            return self._c(m, self.scale)
        return self._c(m, self.scale) * self._c(m, self.alpha) * m.exp(x)

    def exact(self, q):
        return Fraction(0) if q == 0 else None

    def exact_prime(self, q):
        return self.scale * self.alpha if q == 0 else None


class Selu(Elu):
    name = "selu"
    infer_tails = False
    alpha = Fraction("1.6732632423543772848170429916717")
    scale = Fraction("1.0507009873554804934193349852946")


class Gelu(RealActivation):
    """x·Φ(x), Φ(x) = (1 + erf(x/√2))/2 = erfc(−x/√2)/2; one turning point, at the
    unique negative zero of σ' (located rigorously when a piece is needed)."""

    name = "gelu"
    limits = {1: (INF, Fraction(1)), -1: (Fraction(0), Fraction(0))}
    turning = -0.7517916
    infer_tails = True  # the identity and dead tails the rectifying construction stands on

    def Phi(self, x, m):
        return m.erfc(-x / m.sqrt(2)) / 2

    def phi(self, x, m):
        return m.exp(-x * x / 2) / m.sqrt(2 * m.pi)

    def f(self, x, m):
        return x * self.Phi(x, m)

    def fprime(self, x, m):
        return self.Phi(x, m) + x * self.phi(x, m)

    def exact(self, q):
        return Fraction(0) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(1, 2) if q == 0 else None


class GeluTanh(RealActivation):
    name = "gelu_tanh"
    limits = {1: (INF, Fraction(1)), -1: (Fraction(0), Fraction(0))}
    C = Fraction("0.044715")

    def _u(self, x, m):
        c = m.mpf(self.C.numerator) / self.C.denominator
        return m.sqrt(2 / m.pi) * (x + c * x * x * x)

    def f(self, x, m):
        return x * m.sigmoid(2 * self._u(x, m))  # (1 + tanh u)/2 = sigmoid(2u): no cancellation

    def fprime(self, x, m):
        c = m.mpf(self.C.numerator) / self.C.denominator
        u = self._u(x, m)
        s, sn = m.sigmoid(2 * u), m.sigmoid(-2 * u)  # (1 ± tanh u)/2
        return s + 2 * x * s * sn * m.sqrt(2 / m.pi) * (1 + 3 * c * x * x)

    def exact(self, q):
        return Fraction(0) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(1, 2) if q == 0 else None


class Swish(RealActivation):
    name = "swish"
    limits = {1: (INF, Fraction(1)), -1: (Fraction(0), Fraction(0))}
    turning = -1.2784645
    infer_tails = True

    def f(self, x, m):
        return x * m.sigmoid(x)

    def fprime(self, x, m):
        return m.sigmoid(x) * (1 + x * m.sigmoid(-x))  # s (1 + x (1 − s))

    def exact(self, q):
        return Fraction(0) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(1, 2) if q == 0 else None


class Mish(RealActivation):
    name = "mish"
    limits = {1: (INF, Fraction(1)), -1: (Fraction(0), Fraction(0))}
    turning = -1.1923785

    def f(self, x, m):
        return x * m.tanh(m.log1p(m.exp(x)))

    def fprime(self, x, m):
        sp = m.log1p(m.exp(x))
        sech2 = 4 * m.sigmoid(2 * sp) * m.sigmoid(-2 * sp)  # 1 − tanh², without cancellation
        return m.tanh(sp) + x * sech2 * m.sigmoid(x)

    def exact(self, q):
        return Fraction(0) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(3, 5) if q == 0 else None  # tanh(ln 2) = 3/5


class Sigmoid(RealActivation):
    name = "sigmoid"
    limits = {1: (Fraction(1), Fraction(0)), -1: (Fraction(0), Fraction(0))}
    pieces = [(None, None, 1)]
    prime_pieces = [(None, Fraction(0), 1), (Fraction(0), None, -1)]  # σ' = s(1 − s) peaks at 0
    infer_tails = True  # the tails at 1 and +0 the logistic construction stands on

    def f(self, x, m):
        return m.sigmoid(x)

    def fprime(self, x, m):
        return m.sigmoid(x) * m.sigmoid(-x)  # s (1 − s)

    def exact(self, q):
        return Fraction(1, 2) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(1, 4) if q == 0 else None


class Tanh(RealActivation):
    name = "tanh"
    symmetry = ("odd", "even")
    limits = {1: (Fraction(1), Fraction(0)), -1: (Fraction(-1), Fraction(0))}
    pieces = [(None, None, 1)]
    prime_pieces = [(None, Fraction(0), 1), (Fraction(0), None, -1)]  # 1 − tanh² peaks at 0

    def f(self, x, m):
        return m.tanh(x)

    def fprime(self, x, m):
        return 4 * m.sigmoid(2 * x) * m.sigmoid(-2 * x)  # 1 − tanh², without cancellation

    def exact(self, q):
        return Fraction(0) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(1) if q == 0 else None


class Softplus(RealActivation):
    name = "softplus"
    limits = {1: (INF, Fraction(1)), -1: (Fraction(0), Fraction(0))}
    pieces = [(None, None, 1)]

    def f(self, x, m):
        return m.log1p(m.exp(x))

    def fprime(self, x, m):
        return m.sigmoid(x)

    def exact_prime(self, q):
        return Fraction(1, 2) if q == 0 else None


class Sin(RealActivation):
    name = "sin"
    symmetry = ("odd", "even")
    limits = {1: (NAN, NAN), -1: (NAN, NAN)}

    def f(self, x, m):
        return m.sin(x)

    def fprime(self, x, m):
        return m.cos(x)

    def exact(self, q):
        return Fraction(0) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(1) if q == 0 else None


class Cos(RealActivation):
    name = "cos"
    symmetry = ("even", "odd")
    limits = {1: (NAN, NAN), -1: (NAN, NAN)}

    def f(self, x, m):
        return m.cos(x)

    def fprime(self, x, m):
        return -m.sin(x)

    def exact(self, q):
        return Fraction(1) if q == 0 else None

    def exact_prime(self, q):
        return Fraction(0) if q == 0 else None


BUILTIN = {a.name: a for a in (Relu(), LeakyRelu(), Elu(), Selu(), Gelu(), GeluTanh(), Swish(), Mish(), Sigmoid(),
                               Tanh(), Softplus(), Sin(), Cos())}
ALIASES = {"silu": "swish", "gelu_erf": "gelu", "logistic": "sigmoid"}
