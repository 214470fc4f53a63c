"""Theorem 3.2 targets for ``fpsmt construct``: a dead zone in the gradient.

On 4 points x in {-1, 0, 1/2, 2}, f*(x) = 1 and g*(x, y) = 0 for |y| < 1/16, y ⊗ 3 for
1/16 <= |y| < 4 (rounded once), and ±2 from 4 on: three pieces over |y| (a zero, a linear
and a constant one), the same at every x but the last, where the gradient is 0 for every y.

    fpsmt construct --targets example:dead_zone.py --format float8_e5m2 --out dz.json --plot dz.png
"""

from fractions import Fraction


def domain():
    return [-1, 0, 0.5, 2]


def f_star(x):
    return 1


def g_star(x, y):
    a = abs(Fraction(y))
    s = 1 if y > 0 else -1
    if x == 2 or a < Fraction(1, 16):
        return 0
    if a < 4:
        return 3 * Fraction(y)
    return 2 * s
