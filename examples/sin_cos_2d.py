"""Two-input targets for ``fpsmt construct`` (ReLU, d = 2): a 17 × 17 grid of [−2, 2]²,
f*(x1, x2) = sin x1 · cos x2, h* = 1, and the gradient g* = (−cos x1, 2 x2) — not the
gradient of f* (Theorem 3.1 sets values and gradients independently).  Every grid point
(multiples of 1/4) is exact in the 8-bit and wider formats; the values are math.sin's and
math.cos's float64 results, rounded once to the format.

    fpsmt construct --targets example:sin_cos_2d.py --format bfloat16 --out sin_cos.safetensors --plot sin_cos.png
"""

import math

GRID = [k / 4 for k in range(-8, 9)]


def domain():
    return [(a, b) for a in GRID for b in GRID]


def f_star(x):
    return math.sin(x[0]) * math.cos(x[1])


def h_star(x):
    return 1


def g_star(x):
    return (-math.cos(x[0]), 2 * x[1])
