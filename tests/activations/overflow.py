"""An activation that overflows at every input of any format: 2^(2^20) + x^2."""


def huge(x, m):
    return m.mpf(2) ** (2 ** 20) + x * x


def huge_prime(x, m):
    return 2 * x
