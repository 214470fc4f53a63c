"""Formats: names, constants, exact decoding and RNE rounding."""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, parse_format, pow2

from conftest import NAMED_FORMATS, bits


@pytest.mark.parametrize("text,shape", [
    ("float64", (11, 52)), ("fp64", (11, 52)), ("double", (11, 52)), ("float32", (8, 23)), ("F32", (8, 23)),
    ("E8M23", (8, 23)), ("e8m23", (8, 23)), ("float16", (5, 10)), ("fp16", (5, 10)), ("half", (5, 10)),
    ("bfloat16", (8, 7)), ("bf16", (8, 7)), ("float8_e5m2", (5, 2)), ("e5m2", (5, 2)),
    ("float8_e4m3", (4, 3)), ("e4m3", (4, 3)), ("E4M3", (4, 3)), ("float8_e3m4", (3, 4)), ("e3m4", (3, 4)),
    ("E15M112", (15, 112)), ("E2M1", (2, 1)), ("E6M3", (6, 3)),
])
def test_parse(text, shape):
    f = parse_format(text)
    assert (f.E, f.M) == shape


def test_canonical_names():
    assert parse_format("bf16").name == "bfloat16"
    assert parse_format("E8M23").name == "float32"
    assert parse_format("E6M3").name == "E6M3"
    assert parse_format({"E": 8, "M": 7}).name == "bfloat16"


@pytest.mark.parametrize("text", ["E0M3", "E1M3", "E16M3", "E5M0", "E5M113", "float7", "", "e4m3fn",
                                  "float8_e4m3fnuz", "float8_e8m0fnu", "E-1M2"])
def test_parse_rejects(text):
    with pytest.raises(InputError):
        parse_format(text)


@pytest.mark.parametrize("fmt", NAMED_FORMATS, ids=str)
def test_constants_match_numpy(fmt):
    fi = ml_dtypes.finfo(fmt.np_dtype) if fmt.nbits <= 16 and fmt.name != "float16" else np.finfo(fmt.np_dtype)
    assert fmt.Omega == Fraction(float(fi.max))
    assert fmt.min_normal == Fraction(float(fi.smallest_normal))
    assert fmt.omega == Fraction(float(fi.smallest_subnormal))
    assert fmt.e_max == fi.maxexp - 1 and fmt.e_min == fi.minexp
    assert fmt.omega == pow2(fmt.e_min - fmt.M)


@pytest.mark.parametrize("fmt", [f for f in NAMED_FORMATS if f.nbits <= 16], ids=str)
def test_decode_every_pattern_matches_dtype(fmt):
    """Every pattern of the 8- and 16-bit formats decodes as NumPy/ml_dtypes reads it."""
    pats = np.arange(1 << fmt.nbits, dtype=np.uint64)
    with np.errstate(invalid="ignore"):
        vals = pats.astype(np.uint16 if fmt.nbits == 16 else np.uint8).view(fmt.np_dtype).astype(np.float64)
    for b, v in zip(pats.tolist(), vals.tolist()):
        if fmt.is_nan(b):
            assert v != v
        else:
            got = fmt.to_float(b)
            assert got == v and np.signbit(got) == np.signbit(v), fmt.hex(b)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_round_inverts_decode(data):
    E = data.draw(st.integers(2, 15))
    M = data.draw(st.integers(1, 112))
    f = Format(E, M)
    b = data.draw(bits(f))
    if f.is_finite(b):
        assert f.round(f.to_fraction(b), negative_zero=f.is_negative(b)) == b


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_round_is_nearest_even(data):
    """RNE against a brute-force definition: the neighbours of a value bracket it."""
    E = data.draw(st.integers(2, 11))
    M = data.draw(st.integers(1, 30))
    f = Format(E, M)
    lo = data.draw(bits(f).filter(lambda b: f.is_finite(b) and not f.is_negative(b) and b != f.max_bits))
    hi = f.next_up(lo)
    a, c = f.to_fraction(lo), f.to_fraction(hi)
    t = data.draw(st.fractions(min_value=0, max_value=1))
    q = a + (c - a) * t
    r = f.round(q)
    if q - a < c - q or (q - a == c - q and lo % 2 == 0):
        assert r == lo
    else:
        assert r == hi
    assert f.round(-q, negative_zero=True) == r ^ f.sign_bit


@pytest.mark.parametrize("fmt", NAMED_FORMATS + [Format(15, 112), Format(2, 1), Format(6, 3)], ids=str)
def test_overflow_threshold(fmt):
    half_ulp = pow2(fmt.e_max - fmt.M - 1)
    assert fmt.round(fmt.Omega + half_ulp - Fraction(1, 10 ** 400)) == fmt.max_bits
    assert fmt.round(fmt.Omega + half_ulp) == fmt.inf_bits()  # tie goes to even = 2^(e_max+1) = inf
    assert fmt.round(-(fmt.Omega + half_ulp)) == fmt.inf_bits(True)
    assert fmt.round(fmt.omega / 2) == 0  # tie to even: 0
    assert fmt.round(-fmt.omega / 2) == fmt.sign_bit  # underflow keeps the sign
    assert fmt.round(fmt.omega * Fraction(3, 4)) == 1


def test_brief_double_rounding_example():
    """BRIEF §1: float64 1 + 2^-8 + 2^-40 rounds to bfloat16 1.0078125; through float32
    first it is 1.0 (the float32 step drops 2^-40 and leaves a tie).  Some ml_dtypes
    releases' float64 astype went through float32 and said 1.0; 0.7.0 does not."""
    f = parse_format("bfloat16")
    x = 1 + 2.0 ** -8 + 2.0 ** -40
    assert f.to_float(f.from_float(x)) == 1.0078125
    assert float(np.array([x]).astype(np.float32).astype(ml_dtypes.bfloat16)[0]) == 1.0


@pytest.mark.parametrize("fmt", NAMED_FORMATS, ids=str)
def test_next_up_down(fmt):
    f = fmt
    assert f.next_up(0) == 1 and f.next_up(f.sign_bit) == 1
    assert f.next_up(f.sign_bit | 1) == f.sign_bit  # -omega -> -0
    assert f.next_up(f.max_bits) == f.inf_bits()
    assert f.next_up(f.inf_bits()) == f.inf_bits()
    assert f.next_up(f.inf_bits(True)) == f.max_bits | f.sign_bit
    assert f.next_down(0) == f.sign_bit | 1
    assert f.is_nan(f.next_up(f.nan_bits))
    for b in (1, f.one_bits, f.max_bits - 1, f.frac_mask):
        assert f.to_fraction(f.next_up(b)) > f.to_fraction(b)
        assert f.round((f.to_fraction(b) + f.to_fraction(f.next_up(b))) / 2) in (b, f.next_up(b))


def test_hex():
    f = parse_format("bfloat16")
    assert f.hex(0x3f80) == "0x3f80"
    assert f.parse_hex("0x3F80") == 0x3f80
    assert f.parse_hex("0x00003f80") == 0x3f80
    for bad in ("0x10000", "3f80", "0x", "1.0", "-0x1"):
        with pytest.raises(InputError):
            f.parse_hex(bad)


def test_z3_sort():
    from fpsmt.semantics.arith.symbolic import sort_of
    f = parse_format("float32")
    s = sort_of(f)
    assert (s.ebits(), s.sbits()) == (8, 24)


@pytest.mark.parametrize("name", NAMED_FORMATS)
@settings(max_examples=400, deadline=None)
@given(man=st.integers(-(1 << 80), 1 << 80), exp=st.integers(-1200, 1100), neg_zero=st.booleans())
def test_round_dyadic_is_round(name, man, exp, neg_zero):
    """The integer-only rounding of man · 2^exp gives the rational rounding's pattern
    (:meth:`Format.round` takes the integer path for dyadic values)."""
    fmt = parse_format(name)
    assert fmt.round_dyadic(man, exp, neg_zero) == fmt.round_fraction(Fraction(man) * pow2(exp), neg_zero)


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3", "float32"])
def test_round_dyadic_at_ties_and_edges(name):
    """Exact ties (even and odd), the carry into the next binade, the subnormal boundary,
    half of ω, and overflow: integer-only rounding against the Fraction rounding."""
    fmt = parse_format(name)
    cases = []
    for b in range(0, fmt.max_bits + 1, max(1, fmt.max_bits // 4000)):
        for sign in (1, -1):
            q = sign * fmt.to_fraction(b)
            nxt = fmt.to_fraction(fmt.next_up(b)) if b < fmt.max_bits else q + fmt.omega
            for v in (q, (q + sign * nxt) / 2 if sign > 0 else (q - abs(nxt)) / 2, q + sign * fmt.omega / 4):
                v = Fraction(v)
                e = v.denominator.bit_length() - 1
                assert v.denominator == 1 << e
                cases.append((v.numerator, -e))
    cases += [(1, fmt.e_min - fmt.M - 1), (3, fmt.e_min - fmt.M - 2), (1, fmt.e_max + 1), ((1 << (fmt.M + 2)) - 1,
                                                                                            fmt.e_max - fmt.M - 1)]
    for man, exp in cases:
        assert fmt.round_dyadic(man, exp) == fmt.round_fraction(Fraction(man) * pow2(exp)), (name, man, exp)
