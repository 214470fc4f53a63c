"""An activation that returns a non-real value."""


def root(x, m):
    return m.sqrt(m.mpc(x, 1))


def root_prime(x, m):
    return 1 / (2 * m.sqrt(m.mpc(x, 1)))
