"""IEEE-754-like binary floating-point formats, exactly.

A :class:`Format` is ``(E, M)``: E exponent bits, M stored mantissa bits, with the
IEEE-754 layout (sign, biased exponent, trailing significand), subnormals, signed
zeros, infinities and NaN.  Everything here is exact: values are
:class:`fractions.Fraction`, rounding is round-to-nearest-ties-to-even (RNE) of an
exact rational with IEEE overflow to infinity.

Bit patterns are the truth (ARCHITECTURE.md, principle 4).  They travel as Python
ints and are written as hex (``0x3f80``).  NaN is a single value in this project,
as in SMT-LIB: every NaN pattern means NaN, and values computed here are reported
with the canonical quiet NaN :attr:`Format.nan_bits` (sign 0, top fraction bit 1).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

from fpsmt.errors import InputError

E_RANGE = (2, 15)
M_RANGE = (1, 112)


@dataclass(frozen=True)
class Format:
    """A binary interchange format with ``E`` exponent and ``M`` stored mantissa bits."""

    E: int
    M: int
    name: str = field(default="", compare=False)

    def __post_init__(self):
        if not (isinstance(self.E, int) and isinstance(self.M, int)):
            raise InputError(f"format E and M must be integers, got E={self.E!r} M={self.M!r}")
        if not (E_RANGE[0] <= self.E <= E_RANGE[1]) or not (M_RANGE[0] <= self.M <= M_RANGE[1]):
            raise InputError(
                f"impossible format E{self.E}M{self.M}: need {E_RANGE[0]} <= E <= {E_RANGE[1]} "
                f"and {M_RANGE[0]} <= M <= {M_RANGE[1]}")
        if not self.name:
            object.__setattr__(self, "name", _canonical_name(self.E, self.M))

    # ----------------------------------------------------------------- constants
    @property
    def p(self) -> int:
        """The paper's p: the number of stored mantissa bits (= M)."""
        return self.M

    @property
    def precision(self) -> int:
        """Significand precision including the hidden bit (Z3's sbits): M + 1."""
        return self.M + 1

    @property
    def nbits(self) -> int:
        return 1 + self.E + self.M

    @property
    def bias(self) -> int:
        return (1 << (self.E - 1)) - 1

    @property
    def e_max(self) -> int:
        return self.bias

    @property
    def e_min(self) -> int:
        return 1 - self.bias

    @property
    def exp_all_ones(self) -> int:
        return (1 << self.E) - 1

    @property
    def frac_mask(self) -> int:
        return (1 << self.M) - 1

    @property
    def sign_bit(self) -> int:
        return 1 << (self.E + self.M)

    @cached_property
    def omega(self) -> Fraction:
        """Smallest positive subnormal, 2^(e_min - M)."""
        return pow2(self.e_min - self.M)

    @cached_property
    def Omega(self) -> Fraction:
        """Largest finite value, (2 - 2^-M) * 2^e_max."""
        return (2 - pow2(-self.M)) * pow2(self.e_max)

    @cached_property
    def min_normal(self) -> Fraction:
        return pow2(self.e_min)

    @property
    def unit_roundoff(self) -> Fraction:
        return pow2(-(self.M + 1))

    # -------------------------------------------------------- special patterns
    @property
    def nan_bits(self) -> int:
        """The canonical quiet NaN: sign 0, exponent all ones, top fraction bit set."""
        return (self.exp_all_ones << self.M) | (1 << (self.M - 1))

    def inf_bits(self, negative: bool = False) -> int:
        return (self.sign_bit if negative else 0) | (self.exp_all_ones << self.M)

    def zero_bits(self, negative: bool = False) -> int:
        return self.sign_bit if negative else 0

    @property
    def max_bits(self) -> int:
        """Bit pattern of +Omega."""
        return ((self.exp_all_ones - 1) << self.M) | self.frac_mask

    @property
    def one_bits(self) -> int:
        return self.bias << self.M

    # ------------------------------------------------------------ bit fields
    def check_bits(self, bits: int) -> int:
        if not isinstance(bits, int) or bits < 0 or bits >> self.nbits:
            raise InputError(f"bit pattern {_show(bits)} does not fit {self.name} ({self.nbits} bits)")
        return bits

    def fields(self, bits: int) -> tuple[int, int, int]:
        """(sign, biased exponent, trailing significand) of a pattern."""
        return bits >> (self.E + self.M), (bits >> self.M) & self.exp_all_ones, bits & self.frac_mask

    def from_fields(self, sign: int, exponent: int, fraction: int) -> int:
        if sign not in (0, 1) or not 0 <= exponent <= self.exp_all_ones or not 0 <= fraction <= self.frac_mask:
            raise InputError(f"fields ({sign}, {exponent}, {fraction}) do not fit {self.name}")
        return (sign << (self.E + self.M)) | (exponent << self.M) | fraction

    def is_nan(self, bits: int) -> bool:
        _, e, f = self.fields(bits)
        return e == self.exp_all_ones and f != 0

    def is_inf(self, bits: int) -> bool:
        _, e, f = self.fields(bits)
        return e == self.exp_all_ones and f == 0

    def is_finite(self, bits: int) -> bool:
        return self.fields(bits)[1] != self.exp_all_ones

    def is_zero(self, bits: int) -> bool:
        return bits & ~self.sign_bit == 0

    def is_subnormal(self, bits: int) -> bool:
        _, e, f = self.fields(bits)
        return e == 0 and f != 0

    def is_normal(self, bits: int) -> bool:
        _, e, _ = self.fields(bits)
        return 0 < e < self.exp_all_ones

    def is_negative(self, bits: int) -> bool:
        """The sign bit (true for -0 and -inf; NaN's sign is not modelled)."""
        return bool(bits & self.sign_bit)

    def canonical(self, bits: int) -> int:
        """The pattern with every NaN replaced by :attr:`nan_bits`."""
        return self.nan_bits if self.is_nan(bits) else bits

    # --------------------------------------------------------- exact values
    def to_fraction(self, bits: int) -> Fraction:
        """The exact value of a finite pattern (-0 gives 0)."""
        s, e, f = self.fields(self.check_bits(bits))
        if e == self.exp_all_ones:
            raise InputError(f"{self.hex(bits)} is {'NaN' if f else 'infinite'} in {self.name}, not a finite value")
        if e == 0:
            mag = f * self.omega
        else:
            mag = ((1 << self.M) + f) * pow2(e - self.bias - self.M)
        return -mag if s else mag

    def exponent(self, bits: int) -> int:
        """floor(log2 |x|) of a finite nonzero pattern (subnormals included)."""
        q = abs(self.to_fraction(bits))
        if q == 0:
            raise InputError("zero has no exponent")
        return floor_log2(q)

    def round(self, q, negative_zero: bool = False) -> int:
        """RNE rounding of an exact rational to this format, IEEE overflow to +-inf.

        ``q`` may be an int, a Fraction, or a finite Python float (taken exactly).
        A zero ``q`` gives -0 when ``negative_zero`` is set; a nonzero ``q`` that
        underflows to zero keeps its sign.
        """
        q = Fraction(q)
        d = q.denominator
        if not d & (d - 1):  # dyadic (every float, product and sum of floats): integers only
            return self.round_dyadic(q.numerator, 1 - d.bit_length(), negative_zero)
        return self.round_fraction(q, negative_zero)

    def round_fraction(self, q, negative_zero: bool = False) -> int:
        """:meth:`round` by rational arithmetic for any rational (the definition
        :meth:`round_dyadic` is tested against)."""
        q = Fraction(q)
        if q == 0:
            return self.zero_bits(negative_zero)
        neg = q < 0
        a = -q if neg else q
        qe = max(floor_log2(a), self.e_min) - self.M  # exponent of the quantum (ulp)
        scaled = a / pow2(qe)
        n = scaled.numerator // scaled.denominator
        rem = scaled - n
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1):
            n += 1
        return self._pack(neg, n, qe)

    def round_dyadic(self, man: int, exp: int, negative_zero: bool = False) -> int:
        """RNE rounding of the exact value man · 2^exp (integers) to this format, IEEE
        overflow to ±inf: :meth:`round` on integers only (the same results: a test compares
        them), for the ends of enclosures, which are dyadic and rounded by the million."""
        if man == 0:
            return self.zero_bits(negative_zero)
        neg = man < 0
        m = -man if neg else man
        qe = max(exp + m.bit_length() - 1, self.e_min) - self.M  # exponent of the quantum (ulp)
        shift = qe - exp
        if shift <= 0:
            n = m << -shift
        else:
            n = m >> shift
            rem = m & ((1 << shift) - 1)
            half = 1 << (shift - 1)
            if rem > half or (rem == half and n & 1):
                n += 1
        return self._pack(neg, n, qe)

    def _pack(self, neg: bool, n: int, qe: int) -> int:
        """The pattern of ±n·2^qe, n the rounded significand (at most 2^(M+1)) on the quantum
        2^qe of its binade (or of the subnormals): a carry into the next binade, overflow to
        ±inf, normal or subnormal."""
        if n >> (self.M + 1):  # rounding carried into the next binade
            n >>= 1
            qe += 1
        sign = self.sign_bit if neg else 0
        if n == 0:
            return sign
        if n >> self.M:  # normal
            biased = qe + self.M + self.bias
            if biased >= self.exp_all_ones:
                return sign | self.inf_bits()
            return sign | (biased << self.M) | (n & self.frac_mask)
        return sign | n  # subnormal: qe == e_min - M

    def from_float(self, x: float) -> int:
        """Round a Python float (taken as its exact binary value) to this format."""
        if x != x:
            return self.nan_bits
        if x in (float("inf"), float("-inf")):
            return self.inf_bits(x < 0)
        return self.round(Fraction(x), negative_zero=math.copysign(1.0, x) < 0)

    def to_float(self, bits: int) -> float:
        """The nearest Python float (exact whenever the format fits in float64)."""
        bits = self.check_bits(bits)
        s, e, f = self.fields(bits)
        if e == self.exp_all_ones:
            return float("nan") if f else (float("-inf") if s else float("inf"))
        v = float(self.to_fraction(bits))
        return -0.0 if (s and v == 0) else v

    def next_up(self, bits: int) -> int:
        """The least pattern above x (IEEE nextUp): +Omega -> +inf, -omega -> -0, NaN -> NaN."""
        s, e, f = self.fields(self.check_bits(bits))
        if e == self.exp_all_ones and f:
            return self.nan_bits
        if bits == self.inf_bits():
            return bits
        if self.is_zero(bits):
            return 1
        return bits + 1 if not s else bits - 1

    def next_down(self, bits: int) -> int:
        neg = bits ^ self.sign_bit
        up = self.next_up(neg)
        return up if self.is_nan(up) else up ^ self.sign_bit

    # --------------------------------------------------------------- text
    @property
    def hex_digits(self) -> int:
        return (self.nbits + 3) // 4

    def hex(self, bits: int) -> str:
        return f"0x{bits:0{self.hex_digits}x}"

    def parse_hex(self, text: str) -> int:
        """Parse ``0x…`` (any number of digits); the value must fit the format."""
        t = str(text).strip()
        if not re.fullmatch(r"0[xX][0-9a-fA-F]+", t):
            raise InputError(f"not a hex bit pattern: {text!r} (expected e.g. {self.hex(self.one_bits)})")
        return self.check_bits(int(t, 16))

    def describe(self, bits: int) -> str:
        """A decimal rendering for people (never parsed back)."""
        s, e, f = self.fields(bits)
        if e == self.exp_all_ones:
            return "nan" if f else ("-inf" if s else "inf")
        q = self.to_fraction(bits)
        if q == 0:
            return "-0.0" if s else "0.0"
        if self.E <= 11 and self.M <= 52:
            return repr(float(q))  # exact: the value is a float64
        import mpmath
        with mpmath.workdps(self.M * 0.302 + 3):
            return mpmath.nstr(mpmath.mpf(q.numerator) / q.denominator, int(self.M * 0.302) + 2)

    def show(self, bits: int) -> str:
        return f"{self.hex(bits)} ({self.describe(bits)})"

    # ------------------------------------------------------------ back ends
    @property
    def smtlib_sort(self) -> str:
        return f"(_ FloatingPoint {self.E} {self.M + 1})"

    @cached_property
    def np_dtype(self):
        """The NumPy / ml_dtypes dtype of this format, or None.

        Beware: ml_dtypes converts from float64 through float32 (double rounding);
        use :meth:`round` or the executor for exact conversions.
        """
        import numpy as np
        key = (self.E, self.M)
        if key == (11, 52):
            return np.dtype(np.float64)
        if key == (8, 23):
            return np.dtype(np.float32)
        if key == (5, 10):
            return np.dtype(np.float16)
        try:
            import ml_dtypes
        except ImportError:  # pragma: no cover - ml_dtypes is a dependency
            return None
        name = {(8, 7): "bfloat16", (5, 2): "float8_e5m2", (4, 3): "float8_e4m3",
                (3, 4): "float8_e3m4"}.get(key)
        return np.dtype(getattr(ml_dtypes, name)) if name and hasattr(ml_dtypes, name) else None

    @property
    def uint_dtype(self):
        """The unsigned integer dtype that holds one pattern, or object for > 64 bits."""
        import numpy as np
        for n, t in ((8, np.uint8), (16, np.uint16), (32, np.uint32), (64, np.uint64)):
            if self.nbits <= n:
                return np.dtype(t)
        return np.dtype(object)

    def __str__(self):
        return self.name

    def to_json(self):
        return self.name if self.name in NAMED else {"E": self.E, "M": self.M}


def pow2(k: int) -> Fraction:
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def floor_log2(q: Fraction) -> int:
    """floor(log2 q) for a positive rational."""
    q = Fraction(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if pow2(e) > q:
        e -= 1
    return e


def convert_bits(src: Format, dst: Format, bits: int) -> int:
    """A value of ``src`` in ``dst``, rounded once (RNE, IEEE overflow) from its exact value:
    NaN to NaN, ±inf and ±0 keep their sign."""
    bits = int(bits)
    if src.is_nan(bits):
        return dst.nan_bits
    neg = src.is_negative(bits)
    if src.is_inf(bits):
        return dst.inf_bits(neg)
    if src.is_zero(bits):
        return dst.zero_bits(neg)
    return dst.round(src.to_fraction(bits), negative_zero=neg)


def convert_patterns(src: Format, dst: Format, bits):
    """:func:`convert_bits` over an array of patterns (an object array of Python ints)."""
    import numpy as np
    arr = np.asarray(bits, dtype=object)
    out = np.frompyfunc(lambda b: convert_bits(src, dst, b), 1, 1)(arr) if arr.size else arr
    return np.asarray(out, dtype=object)


def contains(wide: Format, fmt: Format) -> bool:
    """Whether every value of ``fmt`` is a value of ``wide`` (subnormals included)."""
    return wide.M >= fmt.M and wide.e_max >= fmt.e_max and wide.e_min - wide.M <= fmt.e_min - fmt.M


def _show(bits) -> str:
    return hex(bits) if isinstance(bits, int) and bits >= 0 else repr(bits)


# (E, M) -> canonical name; the paper's and ml_dtypes' IEEE-like formats.
NAMED = {
    "float64": (11, 52), "float32": (8, 23), "float16": (5, 10), "bfloat16": (8, 7),
    "float8_e5m2": (5, 2), "float8_e4m3": (4, 3), "float8_e3m4": (3, 4),
}
_BY_SHAPE = {v: k for k, v in NAMED.items()}
ALIASES = {
    "fp64": "float64", "f64": "float64", "double": "float64", "binary64": "float64",
    "fp32": "float32", "f32": "float32", "single": "float32", "binary32": "float32",
    "fp16": "float16", "f16": "float16", "half": "float16", "binary16": "float16",
    "bf16": "bfloat16", "bfloat": "bfloat16",
    "e5m2": "float8_e5m2", "fp8_e5m2": "float8_e5m2", "f8e5m2": "float8_e5m2",
    "e4m3": "float8_e4m3", "fp8_e4m3": "float8_e4m3", "f8e4m3": "float8_e4m3",
    "e3m4": "float8_e3m4", "fp8_e3m4": "float8_e3m4", "f8e3m4": "float8_e3m4",
}
_NON_IEEE = re.compile(r".*(fn|fnuz|fnu|b11fnuz)$|.*e8m0.*")


def _canonical_name(E: int, M: int) -> str:
    return _BY_SHAPE.get((E, M), f"E{E}M{M}")


def parse_format(spec) -> Format:
    """A Format from a name (``bfloat16``), an alias (``bf16``), ``E8M23``, a
    ``{"E": 8, "M": 7}`` mapping or a Format."""
    if isinstance(spec, Format):
        return spec
    if isinstance(spec, dict):
        if set(spec) != {"E", "M"} or not all(isinstance(spec[k], int) for k in "EM"):
            raise InputError(f"a format object needs integer keys E and M, got {spec!r}")
        return Format(spec["E"], spec["M"])
    if not isinstance(spec, str):
        raise InputError(f"unknown format {spec!r}")
    key = spec.strip().lower()
    key = ALIASES.get(key, key)
    if key in NAMED:
        return Format(*NAMED[key], name=key)
    m = re.fullmatch(r"e(\d+)m(\d+)", key)
    if m:
        return Format(int(m.group(1)), int(m.group(2)))
    if _NON_IEEE.fullmatch(key):
        raise InputError(f"format {spec!r} is not IEEE-like (no infinities or a different NaN); "
                         "fpsmt supports IEEE-754-like formats only")
    raise InputError(f"unknown format {spec!r}: use one of {', '.join(NAMED)}, an alias such as "
                     "bf16/fp16/e4m3, or ExMy such as E8M23")
