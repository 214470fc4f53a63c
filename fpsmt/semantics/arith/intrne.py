"""An independent reference for IEEE binary arithmetic with round-to-nearest-even: integer
operations only, on the fields of the bit patterns.

It shares no code with the rest of fpsmt (no Format, no executor, no Fraction): the
tests compare the executor with it on every pair of the 16-bit formats, and
:class:`~fpsmt.semantics.arith.integer.IntegerArith` enumerates with it to confirm an
answer the executor's enumeration gave.  A format is its exponent width E and trailing-significand width M, IEEE 754 style (infinities, NaNs,
subnormals).  Each operand is decoded to a signed integer significand and a quantum
exponent; the exact result is formed as an integer n · 2^k, or as n · 2^k < |v| < (n + 1)
· 2^k with a sticky bit (+ and − once the quanta are more than M + 3 apart: the smaller
operand is then below one unit of the larger one shifted left 3 bits; ÷ as a quotient
with 2M + 3 extra bits and its remainder), and rounded once, ties to even.  Results are
bit patterns, every NaN as the one pattern ``nan`` (sign 0, exponent all ones, leading
fraction bit set).

Integers are int32 where every intermediate of the operation fits, int64 where it fits
in 52 bits (bit lengths are read from float64 exponents), Python ints (object arrays,
slow) otherwise: the 8- and 16-bit formats run vectorised at machine speed.
"""

from __future__ import annotations

import numpy as np


class IntRNE:
    def __init__(self, E: int, M: int):
        self.E, self.M = E, M
        self.bias = (1 << (E - 1)) - 1
        self.emax_field = (1 << E) - 1
        self.sign = 1 << (E + M)
        self.inf = self.emax_field << M
        self.nan = self.inf | (1 << (M - 1))
        self.qmin = 1 - self.bias - M  # the quantum exponent of subnormals and of [2^emin, 2^(emin+1))
        self.far = M + 3  # quanta further apart than this: the smaller addend is a sticky bit
        self.guard = 3
        self.extra = 2 * M + 3  # quotient bits beyond the dividend's
        self.pdt = np.int64 if 1 + E + M <= 62 else object  # the type of bit patterns
        if self.pdt is object:  # constants that np.where must not squeeze into a C long
            self.sign, self.inf, self.nan = (np.array(v, dtype=object) for v in (self.sign, self.inf, self.nan))

    def _dtype(self, bits):
        """The integer type for intermediates of up to ``bits`` bits (sign excluded)."""
        if bits <= 30:
            return np.int32
        if bits <= 52:
            return np.int64
        return object

    # ----------------------------------------------------------------- fields
    def split(self, b):
        """(sign, biased exponent, fraction) of patterns."""
        return b >> (self.E + self.M), (b >> self.M) & self.emax_field, b & ((1 << self.M) - 1)

    def decode(self, bits, dtype):
        """(sign, significand, quantum exponent, is_nan, is_inf, is_zero) of patterns."""
        b = np.asarray(bits).astype(self.pdt)
        s, e, f = self.split(b)
        sig = np.where(e == 0, f, f | (1 << self.M)).astype(dtype)
        q = np.where(e == 0, self.qmin, e - self.bias - self.M).astype(dtype if dtype is not object else np.int64)
        special = e == self.emax_field
        return s.astype(dtype if dtype is not object else np.int64), sig, q, special & (f != 0), \
            special & (f == 0), (e == 0) & (f == 0)

    # ------------------------------------------------------------------ rounding
    @staticmethod
    def _bitlength(n):
        if n.dtype == object:
            return np.vectorize(lambda v: int(v).bit_length(), otypes=[np.int64])(n)
        # 2^(L-1) <= n < 2^L has the float64 exponent field L - 1 + 1023 (exact below 2^53); 0 -> below 0
        return ((n.astype(np.float64).view(np.int64) >> 52) - 1022).astype(n.dtype)

    def round_pack(self, s, n, k, sticky=None):
        """The pattern of (−1)^s · v rounded to nearest, ties to even, where v = n · 2^k
        exactly (no sticky) or n · 2^k < v < (n + 1) · 2^k (sticky true); n >= 0 has at
        least two bits below the format's quantum wherever sticky is set."""
        M = self.M
        nb = self._bitlength(n)
        Q = np.maximum(k + nb - 1 - M, self.qmin)  # the quantum of the result
        sh = Q - k
        up = np.maximum(-sh, 0)  # an exact value with fewer bits than the quantum allows
        # a value below a quarter of the quantum rounds to zero whatever the shift: the shift
        # is cut there, so no shift reaches the width of the integer type
        sh = np.minimum(np.maximum(sh, 0), np.maximum(nb, 0) + 2)
        one = np.ones_like(n)
        r = (n << up) >> sh
        half = (one << sh) >> 1  # 0 where sh = 0 (nothing is cut)
        rem = n & ((one << sh) - 1)
        odd = (r & 1) == 1
        if sticky is None:
            up_ = (rem > half) | ((rem == half) & (half > 0) & odd)
        else:
            up_ = (rem > half) | ((rem == half) & (half > 0) & (odd | sticky))
        r = r + up_.astype(r.dtype)
        carry = (r >> (M + 1)) != 0
        r = np.where(carry, r >> 1, r)
        Q = Q + carry.astype(Q.dtype)
        normal = (r >> M) != 0
        e = np.where(normal, Q - self.qmin + 1, 0)  # biased exponent field
        pat = np.where(e >= self.emax_field, self.inf,
                       (e.astype(self.pdt) << M) | (r.astype(self.pdt) & ((1 << M) - 1)))
        return (np.asarray(s).astype(self.pdt) << (self.E + M)) | pat

    def _finish(self, out, nan, inf, inf_sign, zero=None, zero_sign=None):
        shift = self.E + self.M
        out = np.where(inf, (np.asarray(inf_sign).astype(self.pdt) << shift) | self.inf, out)
        if zero is not None:
            out = np.where(zero, np.asarray(zero_sign).astype(self.pdt) << shift, out)
        return np.where(nan, self.nan, out)

    # ------------------------------------------------------------ operations
    def add(self, a, b):
        M, T, g = self.M, self.far, self.guard
        dt = self._dtype(2 * M + 5)
        sa, ma, qa, na, ia, za = self.decode(a, dt)
        sb, mb, qb, nb_, ib, zb = self.decode(b, dt)
        sma, smb = np.where(sa == 1, -ma, ma), np.where(sb == 1, -mb, mb)
        d = qa - qb
        far = np.abs(d) > T
        dc = np.clip(d, -T, T)  # exact when |d| <= T: both significands aligned on the smaller quantum
        exact = (sma << np.maximum(dc, 0)) + (smb << np.maximum(-dc, 0))
        n = np.abs(exact)
        s = (exact < 0).astype(sa.dtype)
        k = np.minimum(qa, qb)
        sticky = None
        if np.any(far):  # the operand of the larger quantum, shifted left g bits, and a sticky bit
            a_big = d > 0
            m_big = np.where(a_big, ma, mb) << g
            m_small = np.where(a_big, mb, ma)
            s_big = np.where(a_big, sa, sb)
            s_small = np.where(a_big, sb, sa)
            with_small = (m_small != 0) & (s_small != s_big)
            n = np.where(far, m_big - with_small.astype(m_big.dtype), n)
            s = np.where(far, s_big, s)
            k = np.where(far, np.maximum(qa, qb) - g, k)
            sticky = far & (m_small != 0)
        out = self.round_pack(s, n, k, sticky)
        # an exact zero sum is +0, and −0 only for (−0) + (−0)
        out = np.where(~far & (exact == 0), np.where(za & zb & (sa == 1) & (sb == 1), self.sign, 0), out)
        nan = na | nb_ | (ia & ib & (sa != sb))
        return self._finish(out, nan, (ia | ib) & ~nan, np.where(ia, sa, sb))

    def sub(self, a, b):
        b = np.asarray(b).astype(self.pdt)
        _, e, f = self.split(b)
        return np.where((e == self.emax_field) & (f != 0), self.nan, self.add(a, b ^ self.sign))

    def mul(self, a, b):
        dt = self._dtype(2 * self.M + 2)
        sa, ma, qa, na, ia, za = self.decode(a, dt)
        sb, mb, qb, nb_, ib, zb = self.decode(b, dt)
        s = sa ^ sb
        out = self.round_pack(s, ma * mb, qa + qb)
        nan = na | nb_ | (ia & zb) | (ib & za)
        return self._finish(out, nan, (ia | ib) & ~nan, s)

    def div(self, a, b):
        S = self.extra
        dt = self._dtype(self.M + 1 + S)
        sa, ma, qa, na, ia, za = self.decode(a, dt)
        sb, mb, qb, nb_, ib, zb = self.decode(b, dt)
        s = sa ^ sb
        num = ma << S
        den = np.where(mb == 0, 1, mb)
        n = num // den
        out = self.round_pack(s, n, qa - qb - S, (num - n * den) != 0)
        nan = na | nb_ | (ia & ib) | (za & zb)
        inf = ~nan & (ia | (zb & ~za))
        zero = ~nan & ~inf & (za | ib)
        return self._finish(out, nan, inf, s, zero, s)

    def next_up(self, a):
        a = np.asarray(a).astype(self.pdt)
        s, e, f = self.split(a)
        out = np.where(s == 1, a - 1, a + 1)
        out = np.where((a & (self.sign - 1)) == 0, 1, out)  # ±0 -> the least subnormal
        out = np.where(a == (self.sign | 1), self.sign, out)  # −(least subnormal) -> −0
        out = np.where(a == self.inf, a, out)
        return np.where((e == self.emax_field) & (f != 0), self.nan, out)

    def next_down(self, a):
        a = np.asarray(a).astype(self.pdt)
        _, e, f = self.split(a)
        return np.where((e == self.emax_field) & (f != 0), self.nan, self.next_up(a ^ self.sign) ^ self.sign)

    def canonical(self, bits):
        b = np.asarray(bits).astype(self.pdt)
        _, e, f = self.split(b)
        return np.where((e == self.emax_field) & (f != 0), self.nan, b)
