"""The arithmetic interface every interpretation implements.

Values are NumPy arrays whose element type belongs to the interpretation (float
arrays or Python-int bit patterns for the executor, Z3 terms in object arrays for
the encoding).  Shapes broadcast as in NumPy, and the semantics indexes values
with ordinary NumPy indexing (``x[..., cols]``), so one program serves every
interpretation (ARCHITECTURE.md, principle 1).

All operations are IEEE-754 with round-to-nearest-ties-to-even.  Booleans are
the interpretation's own (NumPy bool arrays, or Z3 Bool terms).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from fpsmt.semantics.formats import Format


class NumpyBooleans:
    """Booleans as NumPy bool arrays (the concrete interpretations)."""

    def and_(self, a, b):
        return np.logical_and(a, b)

    def or_(self, a, b):
        return np.logical_or(a, b)

    def not_(self, a):
        return np.logical_not(a)


class Arith(ABC):
    """One interpretation of floating-point arithmetic in one format."""

    fmt: Format
    #: True when values are concrete (an executor), False for symbolic terms.
    concrete: bool = True

    def __init__(self, fmt: Format):
        self.fmt = fmt

    # ------------------------------------------------------------- values
    @abstractmethod
    def const(self, bits):
        """Values from bit patterns (an int or an array of ints)."""

    def full(self, shape, bits: int):
        return self.const(np.full(shape, bits, dtype=object))

    def zero(self, negative: bool = False):
        return self.const(self.fmt.zero_bits(negative))

    def one(self):
        return self.const(self.fmt.one_bits)

    def nan(self):
        return self.const(self.fmt.nan_bits)

    # --------------------------------------------------------- arithmetic
    @abstractmethod
    def add(self, a, b): ...

    @abstractmethod
    def mul(self, a, b): ...

    @abstractmethod
    def neg(self, a): ...

    @abstractmethod
    def div(self, a, b): ...

    def activation(self, act, which: str, z):
        """A correctly rounded activation (``which``: "value" or "derivative") at z."""
        raise NotImplementedError

    def sub(self, a, b):
        """a ⊖ b, which IEEE-754 defines as a ⊕ (−b) (signs of zero included)."""
        return self.add(a, self.neg(b))

    def abs(self, a):
        return self.where(self.signbit(a), self.neg(a), a)

    # -------------------------------------------------------- predicates
    @abstractmethod
    def lt(self, a, b): ...

    @abstractmethod
    def le(self, a, b): ...

    def gt(self, a, b):
        return self.lt(b, a)

    def ge(self, a, b):
        return self.le(b, a)

    @abstractmethod
    def eq(self, a, b):
        """IEEE equality: -0 == +0, NaN equals nothing."""

    @abstractmethod
    def is_nan(self, a): ...

    @abstractmethod
    def is_inf(self, a): ...

    @abstractmethod
    def is_zero(self, a): ...

    @abstractmethod
    def signbit(self, a):
        """The sign bit (true for -0 and -inf; false for NaN, whose sign is not modelled)."""

    def is_finite(self, a):
        return self.not_(self.or_(self.is_nan(a), self.is_inf(a)))

    def same(self, a, b):
        """Bit identity up to NaN: the SMT-LIB ``=`` on floats."""
        return self.or_(self.and_(self.is_nan(a), self.is_nan(b)),
                        self.and_(self.eq(a, b), self.eq_bool(self.signbit(a), self.signbit(b))))

    # ------------------------------------------------------------ booleans
    @abstractmethod
    def where(self, cond, a, b): ...

    @abstractmethod
    def and_(self, a, b): ...

    @abstractmethod
    def or_(self, a, b): ...

    @abstractmethod
    def not_(self, a): ...

    def eq_bool(self, a, b):
        return self.or_(self.and_(a, b), self.and_(self.not_(a), self.not_(b)))

    def any_(self, conds):
        """Disjunction of a non-empty list of booleans."""
        out = conds[0]
        for c in conds[1:]:
            out = self.or_(out, c)
        return out

    def all_(self, conds):
        out = conds[0]
        for c in conds[1:]:
            out = self.and_(out, c)
        return out

    # ------------------------------------------------------- bit fields
    @abstractmethod
    def fields(self, a):
        """(sign, biased exponent, trailing significand) as the interpretation's integers.

        NaN's fields are unspecified (SMT-LIB has a single NaN)."""

    @abstractmethod
    def from_fields(self, sign, exponent, fraction):
        """A value from (possibly symbolic) sign, biased-exponent and significand fields."""

    @abstractmethod
    def next_up(self, a):
        """IEEE nextUp: the least value above a (+inf stays, NaN stays, -omega -> -0)."""

    def next_down(self, a):
        return self.neg(self.next_up(self.neg(a)))

    # ------------------------------------------------------- the semantics' helpers
    def absent_zero_sum(self, v, pattern):
        """The exact ⊕-sum of the products +0 ⊗ v[j] over the absent columns j of each
        row of ``pattern`` that has any (:attr:`Pattern.absent_rows`).

        Such products are ±0 or NaN, and a sum of ±0/NaN terms does not depend on
        the order: it is NaN if some v[j] is ±inf or NaN, −0 if every v[j] has its
        sign bit set, +0 otherwise.  Returns values of shape ``v.shape[:-1] + (rows,)``.
        """
        out = []
        for cols in pattern.absent_cols():
            col = [v[..., j] for j in cols]
            nonfinite = self.any_([self.not_(self.is_finite(c)) for c in col])
            all_neg = self.all_([self.signbit(c) for c in col])
            shape = np.shape(v)[:-1]
            out.append(self.where(nonfinite, self.full(shape, self.fmt.nan_bits),
                                  self.where(all_neg, self.full(shape, self.fmt.zero_bits(True)),
                                             self.full(shape, 0))))
        return np.stack(out, axis=-1) if out else None
