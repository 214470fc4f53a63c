"""Theorem 3.2 targets for ``fpsmt construct``: one network whose reverse-mode gradient
clips the upstream gradient.

A ``g_star`` of two parameters (x, y) asks for D^AD(y) = g*(x, y) at every finite upstream
gradient y, not at one h*(x).  Here, on 8 points x = k/4 (k = -4 … 3), f*(x) = x² and

    g*(x, y) = k(x) · clamp(y, -1, 1),   k(x) = 1 + |x|:

y ⊗ k(x) for |y| <= 1 (rounded once from y·k(x)), and ±k(x) beyond.  In exact arithmetic
a network's gradient is proportional to y; in floating point, rounding lets it clip.
Returned as exact Fractions, so each value is rounded once (a float64 product would be
rounded twice).

    fpsmt construct --targets example:gradient_clipping.py --format float16 --out clip.json --plot clip.png
"""

from fractions import Fraction


def domain():
    return [k / 4 for k in range(-4, 4)]


def f_star(x):
    return Fraction(x) ** 2


def g_star(x, y):
    k = 1 + abs(Fraction(x))
    return k * max(Fraction(-1), min(Fraction(1), Fraction(y)))
