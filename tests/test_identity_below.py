"""rounding.identity_below: the enclosure that σ_F(t) = t and σ'_F(t) = 1 on (0, I) (the
rectifying family's gap mode in formats wider than 16 bits): it shows ELU's and refuses
GELU's (σ'(0) = 1/2); on held-out σ(t) = t + c·t³ what it shows holds at every float16 t
(exact rationals rounded once), and where it refuses, a t of the binade it names fails.""" 

from fractions import Fraction

from fpsmt.semantics.activations import get_activation
from fpsmt.semantics.activations.rounding import identity_below
from fpsmt.semantics.formats import parse_format


class Cubic:
    """t + c·t³ (its own real function, not a shipped activation)."""

    def __init__(self, c):
        self.c = c

    def _c(self, m):
        return m.mpf(self.c.numerator) / self.c.denominator

    def f(self, x, m):
        return x + x ** 3 * self._c(m)

    def fprime(self, x, m):
        return 1 + 3 * x ** 2 * self._c(m)


def test_shipped():
    for f in ("float16", "float32", "float64"):
        fmt = parse_format(f)
        assert identity_below(get_activation("elu").real, fmt, Fraction(1)) is None
        assert identity_below(get_activation("gelu").real, fmt, Fraction(1)) == Fraction(1, 2)


def _holds(fmt, c):
    """Every float16 t in (0, 1) with rn(t + c·t³) = t and rn(1 + 3c·t²) = 1, exactly."""
    ts = [fmt.to_fraction(b) for b in range(1, fmt.round(Fraction(1)))]
    return [t for t in ts if fmt.round(t + c * t ** 3) != fmt.round(t) or fmt.round(1 + 3 * c * t ** 2) != fmt.round(1)]


def test_held_out_cubics_float16():
    """c = 2^−40: shown (None), and every t holds; c = 1/8: refused at the top binade
    [1/2, 1], where some t does not hold."""
    fmt = parse_format("float16")
    tiny, big = Fraction(1, 2 ** 40), Fraction(1, 8)
    assert identity_below(Cubic(tiny), fmt, Fraction(1)) is None
    assert _holds(fmt, tiny) == []
    assert identity_below(Cubic(big), fmt, Fraction(1)) == Fraction(1, 2)
    assert any(t >= Fraction(1, 2) for t in _holds(fmt, big))
