"""Theorem 3.2 targets given as pieces, for float32: gradient clipping.

g*(x, y) = k(x)·clamp(y, −1, 1) on 4 points x in {-1, 0, 1/2, 2}: over |y| a linear piece
y ⊗ k from the least subnormal, then the constant k·sign(y) from |y| = 1; at x = 2 the
gradient is 0 for every y (no piece).  f*(x) = 1.  Breakpoints and values are float32 bit
patterns; fpsmt builds the network, checks it in the executor at every breakpoint and its
neighbours, and decides each point's ∀y claims:

    fpsmt construct --targets example:clipping_pieces_float32.py --format float32 --out clip32.json
"""

K = {-1.0: "0x40000000", 0.0: "0x3f800000", 0.5: "0xc0400000"}  # k = 2, 1, -3


def domain():
    return [-1, 0, 0.5, 2]


def f_star(x):
    return 1


def g_pieces(x):
    if x not in K:
        return []
    k = K[x]
    return [("0x00000001", "linear", k), ("0x3f800000", "const", k)]
