"""Targets for ``fpsmt construct``: every point of bfloat16's domain X, f* = sin x with a
misleading gradient.

X = [−2^125, 2^125] for ReLU in bfloat16 (M_σ = 2^(e_max−2)): its 64,513 floats, +0 and −0
being one point (the domain lists +0).  f*(x) = sin x, h*(x) = 1, g*(x) = −cos x, each
math.sin's and math.cos's float64 value rounded once to bfloat16.  Every x is exact in
float64, so ``domain()`` returns floats.  Meant for bfloat16: in a format with fewer
floats, two of them round to one x and the targets are refused.

    fpsmt construct --targets example:sin_whole_domain.py --format bfloat16 --verify atoms --out sin_whole.safetensors
"""

import math


def domain():
    """The bfloat16 floats of [−2^125, 2^125]: 127 subnormals m·2^−133, the normals
    (1 + m/128)·2^e for e = −126 … 124, and 2^125, with their negatives, and +0."""
    pos = [m * 2.0 ** -133 for m in range(1, 128)]
    pos += [(1 + m / 128) * 2.0 ** e for e in range(-126, 125) for m in range(128)]
    pos.append(2.0 ** 125)
    return [0.0] + pos + [-x for x in pos]


def f_star(x):
    return math.sin(x)


def h_star(x):
    return 1


def g_star(x):
    return -math.cos(x)
