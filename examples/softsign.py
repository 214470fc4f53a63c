"""A user's activation: softsign x / (1 + |x|), written with the mpmath context m.

No monotone pieces are declared: fpsmt infers them (softsign' > 0 everywhere, proved by
interval arithmetic) and says so.  Softsign is odd, saturates at ±1 and has σ'(0) = 1, so
the saturating construction family's requirements hold in bfloat16, float16, float32
and float64, and ``fpsmt construct --activation example:softsign.py:softsign`` builds
its Theorem 3.1 network (see the README).
"""


def softsign(x, m):
    return x / (1 + abs(x))


def softsign_prime(x, m):
    return 1 / ((1 + abs(x)) * (1 + abs(x)))


def softsign_torch(x, torch):
    """For ``construct --torch``: torch's own softsign."""
    return torch.nn.functional.softsign(x)
