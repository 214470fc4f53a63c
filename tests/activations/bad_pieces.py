"""A wrong declaration: x^2 is not non-decreasing on [-1, 1]."""


def square(x, m):
    return x * x


def square_prime(x, m):
    return 2 * x


square_pieces = [(-1, 1, +1)]
