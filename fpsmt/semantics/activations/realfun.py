"""Exact real activations σ and σ', written once over an mpmath-like context ``m``.

Each definition is called with ``m = mpmath.mp`` (values) or with :data:`IV`, a
rigorous interval context: mpmath's ``iv`` plus the functions it lacks (``tanh``,
``erf``, ``erfc``, ``sigmoid``), built here from rigorous parts — monotone compositions
of ``iv.exp``/``iv.expm1``/``iv.log1p``, the Taylor series of erf with its alternating
remainder, and the Laplace continued fraction of erfc, whose successive convergents
bracket the value.  Arguments are always points (exact floats), so an expression that
uses x twice loses nothing to interval dependency.

Kink conventions (BRIEF §3, PyTorch): relu'(0) = 0; leaky_relu'(0) = slope;
elu'(0) and selu'(0) use the left branch (α e^0, λ α e^0), as PyTorch does.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

iv = mpmath.iv


# ------------------------------------------------------------ the interval context
def _point_fn(f_point, increasing=True):
    """Lift a rigorous point enclosure to intervals of a monotone function."""
    def fn(x):
        x = iv.mpf(x)
        lo, hi = f_point(iv.mpf(x.a)), f_point(iv.mpf(x.b))
        if not increasing:
            lo, hi = hi, lo
        return iv.mpf([lo.a, hi.b])
    return fn


def _tanh_point(p):
    if p.a >= 0:
        e = iv.expm1(2 * p)
        return e / (e + 2)
    return -_tanh_point(-p)


def _sigmoid_point(p):
    return 1 / (1 + iv.exp(-p))


def _erf_taylor(p):
    """erf(p) for |p| <= 2: Taylor series, alternating remainder bounded by the next term."""
    s = iv.mpf(0)
    term = p  # p^(2n+1) / n!
    n = 0
    x2 = p * p
    while True:
        t = term / (2 * n + 1)
        s += t if n % 2 == 0 else -t
        n += 1
        term = term * x2 / n
        nxt = term / (2 * n + 1)
        # terms decrease from n > x^2 on; then the tail is bounded by the next term
        if n > 8 and iv.mpf(n) > x2 and abs(nxt).b < mpmath.mpf(2) ** (-iv.prec - 8):
            tail = abs(nxt).b
            return 2 / iv.sqrt(iv.pi) * (s + iv.mpf([-tail, tail]))


def _erfc_cf(t):
    """erfc(t) for t >= 1/2: Laplace's continued fraction; successive convergents bracket it."""
    n = max(8, int(4 * iv.prec / max(mpmath.mpf(1), mpmath.mpf(t.a) ** 2)) + 8)
    hull = None
    while True:
        vals = []
        for N in (n, n + 1):
            v = t  # evaluate 1/(t + (1/2)/(t + (2/2)/(t + …)))
            for k in range(N, 0, -1):
                v = t + iv.mpf(k) / 2 / v
            vals.append(1 / v)
        lo = min(vals[0].a, vals[1].a)
        hi = max(vals[0].b, vals[1].b)
        hull = iv.mpf([lo, hi])
        if hull.delta <= abs(hull.a) * mpmath.mpf(2) ** (-iv.prec + 4) or n > 20000:
            return iv.exp(-t * t) / iv.sqrt(iv.pi) * hull
        n *= 2


def _erf_point(p):
    if abs(p).b <= 2:
        # one series at the midpoint, widened by |erf'| <= 2/sqrt(pi) times the radius
        mid = iv.mpf(p.mid)
        r = iv.mpf(p.delta) / 2
        return _erf_taylor(mid) + iv.mpf([-1, 1]) * r * 2 / iv.sqrt(iv.pi)
    if p.a > 0:
        return 1 - _erfc_cf(p)
    return -(1 - _erfc_cf(-p))


def _erfc_point(p):
    if p.a >= iv.mpf(0.5).a:
        return _erfc_cf(p)
    return 1 - _erf_point(p)


class _IVContext:
    """mpmath.iv with rigorous tanh, erf, erfc and sigmoid added."""

    tanh = staticmethod(_point_fn(_tanh_point))
    erf = staticmethod(_point_fn(_erf_point))
    erfc = staticmethod(_point_fn(_erfc_point, increasing=False))
    sigmoid = staticmethod(_point_fn(_sigmoid_point))
    rigorous = True

    def __getattr__(self, name):
        return getattr(iv, name)


class _MPContext:
    """mpmath.mp with the same additions (for values, not enclosures)."""

    rigorous = False

    @staticmethod
    def sigmoid(x):
        return 1 / (1 + mpmath.exp(-x))

    def __getattr__(self, name):
        return getattr(mpmath.mp, name)


IV = _IVContext()
MP = _MPContext()


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
    alpha = Fraction("1.6732632423543772848170429916717")
    scale = Fraction("1.0507009873554804934193349852946")


class Gelu(RealActivation):
    """x·Φ(x), Φ(x) = (1 + erf(x/√2))/2 = erfc(−x/√2)/2; one turning point, at the
    unique negative zero of σ' (located rigorously when a piece is needed)."""

    name = "gelu"
    limits = {1: (INF, Fraction(1)), -1: (Fraction(0), Fraction(0))}
    turning = -0.7517916

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
