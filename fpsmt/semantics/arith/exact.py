"""Exact-rational IEEE arithmetic on bit patterns, one scalar at a time.

Each operation decodes its operands to exact rationals, computes exactly and
rounds once (RNE, IEEE overflow) with :meth:`Format.round`.  This is the
independent reference the tests compare the fast executor and the Z3 encoding
with, and the executor of last resort for formats no hardware type can emulate
exactly (:class:`ExactArith`, values are object arrays of Python-int patterns).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fpsmt.semantics.formats import Format, convert_patterns
from fpsmt.semantics.arith.base import Arith, ConcreteOps


def _key(fmt: Format, x: int):
    """A total-order key on non-NaN patterns (±0 equal)."""
    if fmt.is_inf(x):
        return (-1 if fmt.is_negative(x) else 1, Fraction(0))
    return (0, fmt.to_fraction(x))


def add(fmt: Format, a: int, b: int) -> int:
    if fmt.is_nan(a) or fmt.is_nan(b):
        return fmt.nan_bits
    ia, ib = fmt.is_inf(a), fmt.is_inf(b)
    if ia and ib:
        return a if a == b else fmt.nan_bits
    if ia or ib:
        return a if ia else b
    if fmt.is_zero(a) and fmt.is_zero(b):
        return fmt.zero_bits(fmt.is_negative(a) and fmt.is_negative(b))
    return fmt.round(fmt.to_fraction(a) + fmt.to_fraction(b))  # exact zero sum -> +0 (RNE)


def mul(fmt: Format, a: int, b: int) -> int:
    if fmt.is_nan(a) or fmt.is_nan(b):
        return fmt.nan_bits
    neg = fmt.is_negative(a) != fmt.is_negative(b)
    if fmt.is_inf(a) or fmt.is_inf(b):
        if fmt.is_zero(a) or fmt.is_zero(b):
            return fmt.nan_bits
        return fmt.inf_bits(neg)
    q = fmt.to_fraction(a) * fmt.to_fraction(b)
    return fmt.round(q, negative_zero=neg)


def div(fmt: Format, a: int, b: int) -> int:
    if fmt.is_nan(a) or fmt.is_nan(b):
        return fmt.nan_bits
    neg_ = fmt.is_negative(a) != fmt.is_negative(b)
    ia, ib, za, zb = fmt.is_inf(a), fmt.is_inf(b), fmt.is_zero(a), fmt.is_zero(b)
    if (ia and ib) or (za and zb):
        return fmt.nan_bits
    if ia or zb:
        return fmt.inf_bits(neg_)
    if ib or za:
        return fmt.zero_bits(neg_)
    return fmt.round(fmt.to_fraction(a) / fmt.to_fraction(b), negative_zero=neg_)


def neg(fmt: Format, a: int) -> int:
    return fmt.nan_bits if fmt.is_nan(a) else a ^ fmt.sign_bit


def lt(fmt: Format, a: int, b: int) -> bool:
    return not (fmt.is_nan(a) or fmt.is_nan(b)) and _key(fmt, a) < _key(fmt, b)


def le(fmt: Format, a: int, b: int) -> bool:
    return not (fmt.is_nan(a) or fmt.is_nan(b)) and _key(fmt, a) <= _key(fmt, b)


def eq(fmt: Format, a: int, b: int) -> bool:
    return not (fmt.is_nan(a) or fmt.is_nan(b)) and _key(fmt, a) == _key(fmt, b)


class ExactArith(ConcreteOps, Arith):
    """The executor on exact rationals: object arrays of Python-int bit patterns."""

    def __init__(self, fmt: Format):
        super().__init__(fmt)
        f = fmt
        self._add = np.frompyfunc(lambda a, b: add(f, a, b), 2, 1)
        self._mul = np.frompyfunc(lambda a, b: mul(f, a, b), 2, 1)
        self._neg = np.frompyfunc(lambda a: neg(f, a), 1, 1)
        self._div = np.frompyfunc(lambda a, b: div(f, a, b), 2, 1)
        self._lt = np.frompyfunc(lambda a, b: lt(f, a, b), 2, 1)
        self._le = np.frompyfunc(lambda a, b: le(f, a, b), 2, 1)
        self._eq = np.frompyfunc(lambda a, b: eq(f, a, b), 2, 1)
        self._isnan = np.frompyfunc(f.is_nan, 1, 1)
        self._isinf = np.frompyfunc(f.is_inf, 1, 1)
        self._iszero = np.frompyfunc(f.is_zero, 1, 1)
        self._sign = np.frompyfunc(lambda a: f.is_negative(a) and not f.is_nan(a), 1, 1)
        self._next_up = np.frompyfunc(f.next_up, 1, 1)

    @staticmethod
    def _b(x):
        return np.asarray(x, dtype=bool)

    def const(self, bits):
        arr = np.asarray(bits, dtype=object)
        return np.vectorize(lambda b: self.fmt.canonical(self.fmt.check_bits(int(b))), otypes=[object])(arr) \
            if arr.size else arr

    def to_bits(self, x):
        return np.asarray(x, dtype=object)

    def add(self, a, b):
        return np.asarray(self._add(a, b), dtype=object)

    def mul(self, a, b):
        return np.asarray(self._mul(a, b), dtype=object)

    def neg(self, a):
        return np.asarray(self._neg(a), dtype=object)

    def div(self, a, b):
        return np.asarray(self._div(a, b), dtype=object)


    def lt(self, a, b):
        return self._b(self._lt(a, b))

    def le(self, a, b):
        return self._b(self._le(a, b))

    def eq(self, a, b):
        return self._b(self._eq(a, b))

    def is_nan(self, a):
        return self._b(self._isnan(a))

    def is_inf(self, a):
        return self._b(self._isinf(a))

    def is_zero(self, a):
        return self._b(self._iszero(a))

    def signbit(self, a):
        return self._b(self._sign(a))

    def where(self, cond, a, b):
        return np.asarray(np.where(cond, a, b), dtype=object)

    def fields(self, a):
        f = self.fmt
        a = np.asarray(a, dtype=object)
        return a >> (f.E + f.M), (a >> f.M) & f.exp_all_ones, a & f.frac_mask

    def from_fields(self, sign, exponent, fraction):
        f = self.fmt
        return self.const((np.asarray(sign, dtype=object) << (f.E + f.M))
                          | (np.asarray(exponent, dtype=object) << f.M) | np.asarray(fraction, dtype=object))

    def next_up(self, a):
        return np.asarray(self._next_up(a), dtype=object)

    def _new_sibling(self, fmt: Format) -> "ExactArith":
        return ExactArith(fmt)

    def convert(self, src: Arith, a):
        return convert_patterns(src.fmt, self.fmt, src.to_bits(a))
