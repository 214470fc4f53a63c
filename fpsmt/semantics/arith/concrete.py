"""The bit-exact executor: concrete IEEE arithmetic, vectorised over many inputs.

Three strategies, chosen by :func:`concrete` per format, all exact:

* :class:`NativeArith` — float32 and float64 with NumPy's own IEEE operations.
* :class:`HostArith` — every format whose operations a float32 or float64 computation
  followed by one rounding reproduces exactly: precision p = M + 1 with 2p + 2 <= 24
  (or 53), so the double rounding of +, −, × is innocuous (Figueroa 1995), and an
  exponent range the host covers (:func:`host_dtype`).  This covers bfloat16, float16,
  the 8-bit formats and custom formats with E <= 9, M <= 24.  The second rounding is
  done here, in NumPy (ties to even), never with ml_dtypes' ``astype`` from float64:
  older ml_dtypes releases round that conversion through float32 (a double rounding),
  and the executor must not depend on which release is installed.
* :class:`~fpsmt.semantics.arith.exact.ExactArith` — everything else, per element on exact
  rationals (correct for any format, slower).

Values are float arrays (or object arrays of patterns for the exact strategy);
:meth:`to_bits` gives the bit patterns, with every NaN as the canonical NaN.
"""

from __future__ import annotations

import numpy as np

from fpsmt.semantics.formats import Format, convert_patterns
from fpsmt.semantics.arith.base import Arith, ConcreteOps
from fpsmt.semantics.arith.exact import ExactArith


def _errstate():
    return np.errstate(all="ignore")


def host_dtype(fmt: Format):
    """The hardware type in which one operation plus one rounding is exact for ``fmt``, or None.

    float32 serves when 2p + 2 <= 24 (p = M + 1) and either every product of two values
    stays in float32's normal range, or the format has float32's exponent range with
    M <= 7 (bfloat16): then a product that lands in the subnormal range has at most 2p
    significant bits above 2^-149 and is exact in float32, and float32's overflow
    threshold lies above the format's.  float64 serves likewise when 2p + 2 <= 53.
    """
    p = fmt.M + 1
    if 2 * p + 2 <= 24 and ((fmt.E == 8 and fmt.M <= 7)
                            or (2 * (fmt.e_min - fmt.M) >= -126 and 2 * fmt.e_max + 2 <= 127)):
        return np.dtype(np.float32)
    if 2 * p + 2 <= 53 and 2 * (fmt.e_min - fmt.M) >= -1022 and 2 * fmt.e_max + 2 <= 1023:
        return np.dtype(np.float64)
    return None


def host_ok(fmt: Format) -> bool:
    """Whether a hardware float type plus one rounding emulates ``fmt`` exactly for +, −, ×."""
    return host_dtype(fmt) is not None


class FloatArrayArith(ConcreteOps, Arith):
    """Shared part of the float-array executors (values: NumPy float arrays)."""

    dtype: np.dtype

    def _round(self, v):
        return v

    def _check(self, bits):
        """Bit patterns as a uint64 array, each checked to fit the format."""
        arr = np.asarray(bits)
        if arr.dtype == object:
            for b in arr.ravel():
                self.fmt.check_bits(int(b))
            return arr.astype(np.uint64)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"bit patterns must be integers, got dtype {arr.dtype}")
        if arr.size:
            lo, hi = int(arr.min()), int(arr.max())
            self.fmt.check_bits(lo)
            self.fmt.check_bits(hi)
        return arr.astype(np.uint64)

    def full(self, shape, bits: int):
        return self.const(np.full(shape, self.fmt.check_bits(bits), dtype=np.uint64))

    def add(self, a, b):
        with _errstate():
            return self._round(np.add(a, b))

    def mul(self, a, b):
        with _errstate():
            return self._round(np.multiply(a, b))

    def neg(self, a):
        return np.negative(a)

    def div(self, a, b):
        with _errstate():
            return self._round(np.divide(a, b))


    def lt(self, a, b):
        with _errstate():
            return np.less(a, b)

    def le(self, a, b):
        with _errstate():
            return np.less_equal(a, b)

    def eq(self, a, b):
        with _errstate():
            return np.equal(a, b)

    def is_nan(self, a):
        return np.isnan(a)

    def is_inf(self, a):
        return np.isinf(a)

    def is_finite(self, a):
        return np.isfinite(a)

    def is_zero(self, a):
        return np.equal(a, 0)

    def signbit(self, a):
        return np.signbit(a) & ~np.isnan(a)

    def where(self, cond, a, b):
        return np.where(cond, a, b).astype(self.dtype, copy=False)

    def fields(self, a):
        b = self.to_bits(a).astype(np.uint64)
        f = self.fmt
        return (b >> np.uint64(f.E + f.M)), (b >> np.uint64(f.M)) & np.uint64(f.exp_all_ones), \
            b & np.uint64(f.frac_mask)

    def from_fields(self, sign, exponent, fraction):
        f = self.fmt
        s, e, m = (np.asarray(v, dtype=np.uint64) for v in (sign, exponent, fraction))
        return self.const((s << np.uint64(f.E + f.M)) | (e << np.uint64(f.M)) | m)

    def next_up(self, a):
        f = self.fmt
        b = self.to_bits(a).astype(np.uint64)
        neg = (b & np.uint64(f.sign_bit)) != 0
        zero = (b & ~np.uint64(f.sign_bit)) == 0
        with _errstate():
            r = np.where(neg, b - np.uint64(1), b + np.uint64(1))
        r = np.where(zero, np.uint64(1), r)
        r = np.where(b == np.uint64(f.inf_bits()), b, r)
        r = np.where(np.isnan(a), np.uint64(f.nan_bits), r)
        return self.const(r)

    def _new_sibling(self, fmt: Format) -> Arith:
        return concrete(fmt)

    def convert(self, src: Arith, a):
        """Host values convert exactly into a host type at least as wide, then round once
        to the format (:meth:`_round`); a wider host type is rounded from directly."""
        if not isinstance(src, FloatArrayArith):
            return self.const(convert_patterns(src.fmt, self.fmt, src.to_bits(a)))
        x = np.asarray(a)
        if x.dtype.itemsize <= self.dtype.itemsize:
            return self._round(x.astype(self.dtype))
        if isinstance(self, HostArith):  # narrowing from float64: one rounding, then an exact cast
            return self._round_via(x, x.dtype).astype(self.dtype)
        with _errstate():
            return x.astype(self.dtype)  # float64 -> float32: one IEEE rounding

    def absent_zero_sum(self, v, pattern):
        """As :meth:`Arith.absent_zero_sum`, by counting: absent = all − present."""
        nonfinite = ~np.isfinite(v)
        nonneg = ~np.signbit(v)
        r, c = pattern.present
        inc = np.zeros((v.shape[-1], pattern.n_rows), dtype=np.float32)
        np.add.at(inc, (c, r), 1)
        pnf = nonfinite.astype(np.float32) @ inc  # counts: small integers, exact in float32
        ppos = nonneg.astype(np.float32) @ inc
        rows = pattern.absent_rows
        anf = nonfinite.sum(-1, keepdims=True) - pnf[..., rows]
        apos = nonneg.sum(-1, keepdims=True) - ppos[..., rows]
        return np.where(anf > 0, np.nan, np.where(apos > 0, 0.0, -0.0)).astype(self.dtype)


class NativeArith(FloatArrayArith):
    """float32 / float64 with NumPy's IEEE operations (values: float32/float64 arrays)."""

    def __init__(self, fmt: Format):
        super().__init__(fmt)
        self.dtype = np.dtype(np.float32 if fmt.nbits == 32 else np.float64)
        self._udtype = np.dtype(np.uint32 if fmt.nbits == 32 else np.uint64)

    def const(self, bits):
        return np.asarray(self._check(bits).astype(self._udtype).view(self.dtype))

    def to_bits(self, x):
        b = np.asarray(x, dtype=self.dtype).view(self._udtype)
        return np.where(np.isnan(x), self._udtype.type(self.fmt.nan_bits), b)


class HostArith(FloatArrayArith):
    """Formats emulated exactly in float32 or float64 (see :func:`host_dtype`).

    Values are arrays of the host type holding exact values of the format.  Formats with
    float32's exponent field (E = 8, e.g. bfloat16) are rounded and coded on the float32
    bit pattern directly (RNE at bit 23 − M); others through frexp / rint / ldexp.
    """

    def __init__(self, fmt: Format):
        host = host_dtype(fmt)
        if host is None:
            raise ValueError(f"{fmt} cannot be emulated exactly in float32 or float64")
        super().__init__(fmt)
        self.dtype = host
        self._truncated = host == np.float32 and fmt.E == 8  # the format is float32 cut short
        self._shift = np.uint32(23 - fmt.M)
        self._Omega = host.type(fmt.Omega)
        self._min_normal = host.type(fmt.min_normal)
        self._table = None  # the value of every pattern, for formats of up to 16 bits

    def _round(self, r):
        """Round host values (exact-enough results of one operation) to the format, RNE."""
        if self._truncated:
            u = r.view(np.uint32)
            s = self._shift
            with _errstate():
                lsb = (u >> s) & np.uint32(1)
                u2 = (u + ((np.uint32(1) << (s - np.uint32(1))) - np.uint32(1)) + lsb) & ~((np.uint32(1) << s) - np.uint32(1))
            return np.where(np.isnan(r), r, u2.view(np.float32))
        return self._round_via(r, self.dtype)  # frexp / rint (ties to even) / ldexp, all exact

    def div(self, a, b):
        """Quotients are computed in float64 (whose range holds every quotient of the format,
        with 2p + 2 <= 53 bits) and rounded once to the format."""
        with _errstate():
            q = np.divide(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
            return self._round_via(q, np.dtype(np.float64)).astype(self.dtype)

    def _round_via(self, r, dtype):
        f = self.fmt
        with _errstate():
            a = np.abs(r)
            _, e = np.frexp(a)
            qe = np.maximum(e - 1, f.e_min) - f.M
            out = np.ldexp(np.rint(np.ldexp(a, -qe)), qe)
            out = np.where(out > dtype.type(f.Omega), dtype.type(np.inf), out)
            out = np.copysign(out, r)
            return np.where(np.isfinite(r), out, r).astype(dtype, copy=False)

    def const(self, bits):
        b = self._check(bits)
        if self._truncated:
            return np.asarray((b.astype(np.uint32) << self._shift).view(np.float32))
        if self.fmt.nbits <= 16:  # every pattern decoded once: one lookup
            if self._table is None:
                self._table = self._decode(np.arange(1 << self.fmt.nbits, dtype=np.uint64))
            return np.asarray(self._table[b.astype(np.intp)])
        return self._decode(b)

    def _decode(self, b):
        f = self.fmt
        s = (b >> np.uint64(f.E + f.M)) & np.uint64(1)
        be = ((b >> np.uint64(f.M)) & np.uint64(f.exp_all_ones)).astype(np.int64)
        fr = (b & np.uint64(f.frac_mask)).astype(self.dtype)
        with _errstate():
            v = np.where(be == 0, np.ldexp(fr, f.e_min - f.M),
                         np.ldexp(fr + self.dtype.type(2.0 ** f.M), be - f.bias - f.M))
            v = np.where(be == f.exp_all_ones, np.where(fr == 0, np.inf, np.nan), v)
        return np.asarray(np.where(s == 1, -v, v), dtype=self.dtype)

    def to_bits(self, x):
        f = self.fmt
        v = np.asarray(x, dtype=self.dtype)
        if self._truncated:
            bits = v.view(np.uint32) >> self._shift
            return np.where(np.isnan(v), f.nan_bits, bits).astype(f.uint_dtype)
        with _errstate():
            sign = np.signbit(v).astype(np.uint64)
            a = np.where(np.isfinite(v), np.abs(v), 0.0).astype(self.dtype)
            _, e = np.frexp(a)
            e1 = e - 1
            normal = a >= self._min_normal
            frac = np.where(normal, np.ldexp(a, -(e1 - f.M)) - self.dtype.type(2.0 ** f.M),
                            np.ldexp(a, -(f.e_min - f.M)))
            biased = np.where(normal, e1 + f.bias, 0)
            bits = (sign << np.uint64(f.E + f.M)) | (biased.astype(np.uint64) << np.uint64(f.M)) \
                | frac.astype(np.uint64)
            bits = np.where(np.isinf(v), (sign << np.uint64(f.E + f.M)) | np.uint64(f.inf_bits()), bits)
            bits = np.where(np.isnan(v), np.uint64(f.nan_bits), bits)
        return bits.astype(f.uint_dtype)


def concrete(fmt: Format) -> Arith:
    """The fastest exact executor for ``fmt``."""
    if (fmt.E, fmt.M) in ((8, 23), (11, 52)):
        return NativeArith(fmt)
    if host_ok(fmt):
        return HostArith(fmt)
    return ExactArith(fmt)
