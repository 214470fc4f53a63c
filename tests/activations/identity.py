"""The identity as a user activation (σ(x) = x, σ'(x) = 1): a negative control."""


def ident(x, m):
    return x


def ident_prime(x, m):
    return m.mpf(1)


ident_pieces = [(None, None, +1)]
