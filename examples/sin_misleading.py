"""Targets for ``fpsmt construct``: the value round(sin x) with a misleading gradient.

500 points x = k/64, k = -250 … 249 (about [-3.9, 3.9]; every one exact in bfloat16 and
float32), target value f*(x) = sin x, upstream gradient h*(x) = 1 and target gradient
g*(x) = -cos x: the network computes sin at every point, and reverse-mode AD on it
returns minus the true derivative — the gradient manipulation the paper warns about.
fpsmt rounds each returned float64 once, to nearest even, in the format asked for: the
targets are math.sin's and math.cos's float64 values rounded, not correctly rounded sin and
cos (any finite targets will do for the theorem).

    fpsmt construct --targets example:sin_misleading.py --format bfloat16 --out sin_bf16.json --plot sin_bf16.png
"""

import math


def domain():
    return [k / 64 for k in range(-250, 250)]


def f_star(x):
    return math.sin(x)


def h_star(x):
    return 1


def g_star(x):
    return -math.cos(x)


def df_star(x):
    """The true derivative of f* (used only by --plot)."""
    return math.cos(x)
