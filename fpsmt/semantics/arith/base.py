"""The arithmetic interface every interpretation implements.

Values are NumPy arrays whose element type belongs to the interpretation (float
arrays or Python-int bit patterns for the executor, Z3 terms in object arrays for
the encoding).  Shapes broadcast as in NumPy, and the semantics indexes values
with ordinary NumPy indexing (``x[..., cols]``), so one program serves every
interpretation (ARCHITECTURE.md, principle 1).

All operations are IEEE-754 with round-to-nearest-ties-to-even.  Booleans and
integers are the interpretation's own (NumPy bool and int arrays, or Z3 Bool and
bit-vector terms); the interface has every operation the layers above need — float
arithmetic and predicates, bit fields, bounded integers, known functions applied to a
float (:mod:`.functions`: activations as tables or as functions known by true facts),
variables, and reading a concrete or ground boolean — so nothing above it asks which
interpretation it holds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from fpsmt.errors import FpsmtError
from fpsmt.semantics.formats import Format, pow2

INT_BITS = 32  # width of the signed bit-vectors that encode integers symbolically
INT_LIMIT = 1 << 20  # integer bounds stay well inside INT_BITS, so sums cannot wrap


#: the operations a symbolic interpretation can leave uninterpreted (:attr:`fpsmt.proof.claims.Claim.uninterpreted`)
#: ("act": every known function — an activation's σ and σ' — as a unary function of one float
#: per function, so that congruence a = b → σ(a) = σ(b) is logic, not σ's circuit)
UNINTERPRETABLE = frozenset({"mul", "add", "act"})


class ConcreteOps:
    """Booleans as NumPy bool arrays and integers as NumPy int arrays (the concrete
    interpretations: the executor and the exact reference)."""

    def and_(self, a, b):
        return np.logical_and(a, b)

    def or_(self, a, b):
        return np.logical_or(a, b)

    def not_(self, a):
        return np.logical_not(a)

    def truth(self, b):
        return np.asarray(b, dtype=bool)

    # ------------------------------------------------------------ integers
    def int_const(self, k):
        return np.asarray(k, dtype=np.int64) if np.ndim(k) else int(k)

    def int_add(self, a, b):
        return a + b

    def int_sub(self, a, b):
        return a - b

    def int_neg(self, a):
        return -a

    def int_cmp(self, op, a, b):
        return np.asarray({"lt": lambda: a < b, "le": lambda: a <= b, "eq": lambda: a == b}[op]())

    def int_where(self, cond, a, b):
        return np.where(np.asarray(cond), a, b)

    def exponent(self, a):
        _, e, _ = self.fields(a)
        e = np.asarray(e).astype(np.int64)
        return np.maximum(e, 1) - self.fmt.bias

    def significand_odd(self, a):
        _, _, m = self.fields(a)
        return np.asarray((np.asarray(m).astype(np.uint64) & np.uint64(1)) == 1)

    def is_pow2(self, a):
        s, e, m = (np.asarray(x).astype(np.uint64) for x in self.fields(a))
        finite = e != np.uint64((1 << self.fmt.E) - 1)
        one_bit = (m != 0) & ((m & (m - np.uint64(1))) == 0)
        return np.asarray((s == 0) & finite & np.where(e == 0, one_bit, m == 0))

    def pow2(self, k):
        """2^k rounded to the format (+inf above e_max, +0 below half the least subnormal),
        by one table of the format's powers of two indexed with k."""
        f = self.fmt
        lo = f.e_min - f.M - 1
        table = _pow2_table(f, lo)
        k = np.asarray(k)
        i = np.clip((k if k.dtype == object else k.astype(np.int64)) - (lo - 1), 0, len(table) - 1)
        return self.const(table[i.astype(np.int64)])

    def products_equal(self, a, b, c, d):
        f = self.fmt
        q = np.frompyfunc(lambda x: f.to_fraction(int(x)) if f.is_finite(int(x)) else None, 1, 1)
        qa, qb, qc, qd = (q(np.asarray(self.to_bits(v), dtype=object)) for v in (a, b, c, d))
        eq = np.frompyfunc(lambda w, x, y, z: None not in (w, x, y, z) and w * x == y * z, 4, 1)
        return np.asarray(eq(qa, qb, qc, qd), dtype=bool)

    def apply(self, fn, a):
        """A known function (:class:`.functions.KnownFunction`) at a: its table or true values."""
        return self.const(np.asarray(fn.values(np.asarray(self.to_bits(a)))).astype(
            np.uint64 if self.fmt.nbits <= 64 else object))


_POW2 = {}


def _pow2_table(f, lo):
    """[0, 2^lo, …, 2^e_max, +inf] as patterns (index 0: every k below lo)."""
    t = _POW2.get(f)
    if t is None:
        t = _POW2[f] = np.asarray([0] + [f.round(pow2(k)) for k in range(lo, f.e_max + 1)]
                                  + [f.inf_bits()], dtype=object if f.nbits > 64 else np.uint64)
    return t


class Arith(ABC):
    """One interpretation of floating-point arithmetic in one format."""

    fmt: Format

    def __init__(self, fmt: Format):
        self.fmt = fmt

    # ------------------------------------------------------------- variables
    def var(self, name: str):
        """A fresh float variable (symbolic interpretations only)."""
        raise FpsmtError(f"{type(self).__name__} has no variables: give {name!r} a value")

    def int_var(self, name: str):
        """A fresh integer variable (symbolic interpretations only)."""
        raise FpsmtError(f"{type(self).__name__} has no variables: give {name!r} a value")

    @abstractmethod
    def truth(self, b):
        """A boolean of this interpretation as Python/NumPy bools (a symbolic one only when
        it is ground)."""

    @abstractmethod
    def to_bits(self, a):
        """The bit patterns of values (a symbolic value only when it is ground); NaN canonical."""

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

    @abstractmethod
    def products_equal(self, a, b, c, d):
        """Whether a·b = c·d in exact arithmetic, all four finite (no rounding at all)."""

    @abstractmethod
    def apply(self, fn, a):
        """The known function ``fn`` (:class:`.functions.KnownFunction`) at a."""

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

    # ------------------------------------------------------------ integers
    # Bounded integers (claims keep them below INT_LIMIT in magnitude: exact everywhere).
    @abstractmethod
    def int_const(self, k):
        """An integer constant (an int, or an array of ints)."""

    @abstractmethod
    def int_add(self, a, b): ...

    @abstractmethod
    def int_sub(self, a, b): ...

    @abstractmethod
    def int_neg(self, a): ...

    @abstractmethod
    def int_cmp(self, op, a, b):
        """``op`` in "lt", "le", "eq"."""

    @abstractmethod
    def int_where(self, cond, a, b): ...

    @abstractmethod
    def exponent(self, a):
        """The unbiased exponent field as an integer: floor(log2 |a|) for a normal a, e_min
        for subnormals and zeros (meaningless for infinities and NaN)."""

    @abstractmethod
    def significand_odd(self, a):
        """Whether the last stored significand bit is 1."""

    @abstractmethod
    def is_pow2(self, a):
        """Whether a is a positive power of two (2^k, e_min − M <= k <= e_max): a fraction
        field of 0 under a nonzero, finite exponent field, or one fraction bit set under
        the subnormals' zero field."""

    @abstractmethod
    def pow2(self, k):
        """The float RNE(2^k) of an integer k: exact for e_min − M <= k <= e_max, +inf
        above, +0 below."""

    @abstractmethod
    def next_up(self, a):
        """IEEE nextUp: the least value above a (+inf stays, NaN stays, -omega -> -0)."""

    def next_down(self, a):
        return self.neg(self.next_up(self.neg(a)))

    # ------------------------------------------------ other formats (wide accumulation)
    def sibling(self, fmt: Format) -> "Arith":
        """The same interpretation in another format (one per format, kept): where a
        semantics profile computes in a wider format (``Semantics.wide``, a framework's
        float32 backward) before one rounding to this one."""
        cache = self.__dict__.setdefault("_siblings", {})
        if (fmt.E, fmt.M) not in cache:
            cache[fmt.E, fmt.M] = self._new_sibling(fmt)
        return cache[fmt.E, fmt.M]

    def _new_sibling(self, fmt: Format) -> "Arith":
        from fpsmt.errors import InputError
        raise InputError(f"{type(self).__name__} does not compute in a second format "
                         f"({fmt.name}): this semantics profile is not available here")

    def convert(self, src: "Arith", a):
        """Values ``a`` of ``src`` (this interpretation's :meth:`sibling` in another format)
        in this format, each rounded once (RNE, IEEE overflow) from its exact value."""
        from fpsmt.errors import InputError
        raise InputError(f"{type(self).__name__} cannot convert between formats")

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
