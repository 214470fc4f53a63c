"""A second executor on integer bit patterns: + − × ÷ rounded by the integer reference
:class:`~fpsmt.semantics.arith.intrne.IntRNE`, comparisons and predicates on the fields.

Values are int64 arrays of bit patterns (object arrays of Python ints for formats of more
than 62 bits), every NaN the reference's one pattern.  Nothing here computes with a
hardware float or with :mod:`fpsmt.semantics.arith.concrete`'s rounding: an enumeration
run on this executor and on the fast one agrees only if both round every operation
correctly (or both wrongly in the same way, through independent code).  It is the
confirmation of an answer that the fast executor's enumeration gave
(:func:`fpsmt.proof.exhaustive.decide` with ``arith=``), where no solver decides the
query, e.g. float32's significand stage (2^24 values, no solver within 600 s).  What
both executors share is the claim's own program (the same functions of a scope), the
table of powers of two and the activation tables.
"""

from __future__ import annotations

import numpy as np

from fpsmt.semantics.arith.base import Arith, ConcreteOps
from fpsmt.semantics.arith.intrne import IntRNE
from fpsmt.semantics.formats import Format


class IntegerArith(ConcreteOps, Arith):
    def __init__(self, fmt: Format):
        super().__init__(fmt)
        self.R = IntRNE(fmt.E, fmt.M)
        self.dt = self.R.pdt
        self.mag = (1 << (fmt.E + fmt.M)) - 1  # every bit but the sign

    def _a(self, x):
        return np.asarray(x).astype(self.dt)

    # ------------------------------------------------------------ values
    def const(self, bits):
        b = np.asarray(bits)
        if b.dtype.kind not in "iuO":
            raise TypeError(f"bit patterns must be integers, got dtype {b.dtype}")
        if b.size:
            for v in (int(b.min()), int(b.max())):
                self.fmt.check_bits(v)
        return self._op(self.R.canonical, b)

    def to_bits(self, a):
        b = self._a(a)
        return b.astype(self.fmt.uint_dtype) if self.dt is not object else b

    # ------------------------------------------------ other formats (wide accumulation)
    def _new_sibling(self, fmt: Format) -> "IntegerArith":
        return IntegerArith(fmt)

    def convert(self, src: Arith, a):
        """Patterns of ``src``'s format (an integer executor) in this one, each rounded once
        (RNE, IEEE overflow) from its exact value: the source's significand and quantum
        exponent, packed by this format's integer rounding — no floating-point arithmetic.
        (``tests/test_semantics_profiles.py`` compares it with the rationals'
        :func:`fpsmt.semantics.formats.convert_patterns` at every pattern of the 8-bit
        formats, both ways.)"""
        R, S = self.R, src.R
        dt = R._dtype(max(S.M, R.M) + 2)
        s, sig, q, nan, inf, zero = S.decode(src.to_bits(a), dt)
        out = R.round_pack(s, sig, q)
        return R._finish(out, nan, inf & ~nan, s, zero, s)

    # ------------------------------------------------------------ arithmetic
    def _op(self, fn, *args):
        """``fn`` of the reference on patterns, computed on at least one dimension (NumPy
        turns 0-d results into scalars, and 0-d object arrays into Python ints, which the
        reference's array code does not take) and given back in the operands' shape."""
        args = [self._a(a) for a in args]
        shape = np.broadcast_shapes(*[a.shape for a in args])
        return np.asarray(fn(*[np.atleast_1d(a) for a in args])).astype(self.dt).reshape(shape)

    def add(self, a, b):
        return self._op(self.R.add, a, b)

    def sub(self, a, b):
        return self._op(self.R.sub, a, b)

    def mul(self, a, b):
        return self._op(self.R.mul, a, b)

    def div(self, a, b):
        return self._op(self.R.div, a, b)

    def neg(self, a):
        return self._op(lambda v: np.where(self.is_nan(v), self.R.nan, v ^ self.R.sign), a)

    # ------------------------------------------------------------ predicates
    def is_nan(self, a):
        a = self._a(a)
        return np.asarray((a & self.mag) > self.R.inf)

    def is_inf(self, a):
        return np.asarray((self._a(a) & self.mag) == self.R.inf)

    def is_zero(self, a):
        return np.asarray((self._a(a) & self.mag) == 0)

    def signbit(self, a):
        a = self._a(a)
        return np.asarray(((a & self.R.sign) != 0) & ~self.is_nan(a))

    def _key(self, a):
        """A key that orders the non-NaN patterns as their values (±0 equal)."""
        a = self._a(a)
        m = a & self.mag
        return np.where((a & self.R.sign) != 0, -m, m)

    def lt(self, a, b):
        return np.asarray((self._key(a) < self._key(b)) & ~self.is_nan(a) & ~self.is_nan(b))

    def le(self, a, b):
        return np.asarray((self._key(a) <= self._key(b)) & ~self.is_nan(a) & ~self.is_nan(b))

    def eq(self, a, b):
        return np.asarray((self._key(a) == self._key(b)) & ~self.is_nan(a) & ~self.is_nan(b))

    def where(self, cond, a, b):
        return np.where(np.asarray(cond), self._a(a), self._a(b)).astype(self.dt)

    # ------------------------------------------------------------ fields
    def fields(self, a):
        s, e, f = self.R.split(self._a(a))
        return s, e, f

    def from_fields(self, sign, exponent, fraction):
        f = self.fmt
        s, e, m = (np.asarray(v).astype(self.dt) for v in (sign, exponent, fraction))
        return self._op(self.R.canonical, (s << (f.E + f.M)) | (e << f.M) | m)

    def next_up(self, a):
        return self._op(self.R.next_up, a)

    def next_down(self, a):
        return self._op(self.R.next_down, a)
