"""Theorem 3.2 targets for ``fpsmt construct``: a network whose reverse-mode gradient is
the *sign* of the upstream gradient, scaled by a per-point factor.

On 8 points x = k/2 (k = -4 … 3), f*(x) = -x and g*(x, y) = sign(y) · k(x), k(x) = x - 1/4
(a zero at y = ±0): signSGD's update from one network's AD, for every finite y.

    fpsmt construct --targets example:sign_gradient.py --format bfloat16 --out sign.json
"""

from fractions import Fraction


def domain():
    return [k / 2 for k in range(-4, 4)]


def f_star(x):
    return -x


def g_star(x, y):
    if y == 0:
        return 0
    return (Fraction(x) - Fraction(1, 4)) * (1 if y > 0 else -1)
