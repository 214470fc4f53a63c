"""The executor earns its trust: +, −, ×, ÷, next_up, next_down and the field
decomposition against an independent integer implementation of RNE (:mod:`fpsmt.semantics.arith.intrne`).

Default suite: every pair of every 8-bit format, ÷ (and +, −, ×) on sampled pairs and all
pairs of special values in every format, and every pattern of the 16-bit formats for the
unary operations.  Slow suite: every pair of bfloat16 and of float16 for +, −, ×, ÷
(about 4.3·10^9 pairs per operation; ``benchmarks/executor_rne.py`` prints the figures)."""

import numpy as np
import pytest

from conftest import NAMED_FORMATS, specials
from executor_pairs import OPS, all_pairs, executor_op, first_mismatch
from fpsmt.semantics.arith import concrete
from fpsmt.semantics.formats import Format, parse_format
from fpsmt.semantics.arith.intrne import IntRNE

BF16, F16 = parse_format("bfloat16"), parse_format("float16")
CUSTOM = [Format(6, 3), Format(9, 20), Format(2, 1), Format(3, 2), Format(12, 60), Format(15, 112)]
SMALL = [f for f in NAMED_FORMATS + CUSTOM if f.nbits <= 8]
WIDE = [f for f in NAMED_FORMATS + CUSTOM if f.nbits > 8]


def _patterns(fmt, n, rng):
    """Patterns spread over the exponent fields (tiny, huge, near 1, any), Python ints."""
    f = fmt
    out = []
    for lo, hi in ((0, 3), (f.exp_all_ones - 3, f.exp_all_ones), (max(0, f.bias - 12), f.bias + 12),
                   (0, f.exp_all_ones)):
        for _ in range(n):
            e = int(rng.integers(lo, hi + 1))
            m = int(rng.integers(0, 1 << min(f.M, 62))) << max(0, f.M - 62) | int(rng.integers(0, 1 << min(f.M, 8)))
            out.append(f.from_fields(int(rng.integers(0, 2)), e, m & f.frac_mask))
    return out


def _arrays(fmt, a, b):
    dt = np.uint64 if fmt.nbits <= 64 else object
    return np.asarray(a, dtype=object).astype(dt), np.asarray(b, dtype=object).astype(dt)


def _check(fmt, op, a, b, run=None):
    a, b = _arrays(fmt, a, b)
    got = (run or executor_op(fmt, op))(a, b)
    R = IntRNE(fmt.E, fmt.M)
    if fmt.nbits > 62:  # object patterns: compared one by one
        want = R.canonical(getattr(R, op)(a, b))
        got = [fmt.canonical(int(v)) for v in np.ravel(got)]
        bad = [i for i, (g, w) in enumerate(zip(got, np.ravel(want))) if g != int(w)]
        return None if not bad else (f"{fmt.name} {op}({fmt.hex(int(a[bad[0]]))}, {fmt.hex(int(b[bad[0]]))}): the "
                                     f"executor gives {fmt.hex(got[bad[0]])}, the reference {fmt.hex(int(want[bad[0]]))}")
    return first_mismatch(fmt, op, a, b, got, getattr(R, op)(a, b))


# ------------------------------------------------------------------ the reference itself
def test_reference_on_values_worked_by_hand():
    R = IntRNE(8, 7)  # bfloat16
    one, half_ulp, ulp = 0x3F80, 0x3B80, 0x3C00  # 1, 2^-8, 2^-7
    assert R.add(one, half_ulp) == one  # 1 + 2^-8: a tie, to the even 1
    assert R.add(0x3F81, half_ulp) == 0x3F82  # 1 + 2^-7 + 2^-8: a tie, to the even 1 + 2^-6
    assert R.add(one, ulp) == 0x3F81
    assert R.add(one, 0x3B81) == 0x3F81  # just above the tie
    assert R.mul(0x0001, 0x3F00) == 0x0000  # least subnormal · 1/2: a tie, to the even 0
    assert R.mul(0x0001, 0x3F40) == 0x0001  # · 3/4: above the tie
    assert R.mul(0x8001, 0x3F00) == 0x8000  # −0 keeps its sign
    assert R.div(0x3F80, 0x4040) == 0x3EAB  # 1/3 = 0x3EAAAB in float32, 0x3EAB in bfloat16
    assert R.div(0x3F80, 0x0000) == 0x7F80 and R.div(0xBF80, 0x0000) == 0xFF80
    assert R.div(0x0000, 0x0000) == R.nan and R.mul(0x7F80, 0x0000) == R.nan
    assert R.add(0x7F80, 0xFF80) == R.nan and R.sub(0x7F80, 0x7F80) == R.nan
    assert R.add(0x8000, 0x8000) == 0x8000 and R.add(0x8000, 0x0000) == 0x0000
    assert R.sub(one, one) == 0x0000
    assert R.add(0x7F7F, 0x7F7F) == 0x7F80  # the largest finite doubled overflows
    assert R.add(0x7F7F, 0x7B00) == 0x7F80  # plus half its ulp (2^119): a tie, the odd max rounds up to inf
    assert R.add(0x7F7F, 0x7AFF) == 0x7F7F  # just below the tie: stays
    assert R.next_up(0x8001) == 0x8000 and R.next_up(0x8000) == 0x0001 and R.next_up(0x7F7F) == 0x7F80
    assert R.next_down(0x0000) == 0x8001 and R.next_up(0x7F80) == 0x7F80 and R.next_down(0xFF80) == 0xFF80
    F = IntRNE(5, 10)  # float16
    assert F.mul(0x3C01, 0x3C01) == 0x3C02  # (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: above nothing, 1 + 2^-9
    assert F.add(0x7BFF, 0x4C00) == 0x7C00  # 65504 + 16: the tie at 65520 goes to even, 2^16: overflow
    assert F.add(0x7BFF, 0x4BFF) == 0x7BFF  # 65504 + 15.99: below the tie


def test_the_check_fails_on_a_wrong_executor():
    """A bfloat16 'executor' that truncates instead of rounding, and one that rounds twice
    (float32 division, then bfloat16 through ml_dtypes' float32 path): both are caught."""
    import ml_dtypes
    A = concrete(BF16)

    def truncating(a, b):
        x = (A.const(a).astype(np.float32) / A.const(b).astype(np.float32)).view(np.uint32)
        return (x >> 16).astype(np.uint64)

    rng = np.random.default_rng(5)
    pats = _patterns(BF16, 200, rng)
    msg = _check(BF16, "div", pats, pats[::-1], run=truncating)
    assert msg is not None and "the executor gives" in msg and "div(0x" in msg

    def mul_via_float16(a, b):  # a product rounded to float16, then to bfloat16: twice
        with np.errstate(all="ignore"):
            x = (A.const(a).astype(np.float32) * A.const(b).astype(np.float32)).astype(np.float16)
        return x.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint64)
    msg = _check(BF16, "mul", pats, pats[::-1], run=mul_via_float16)
    assert msg is not None


# --------------------------------------------------------------- default suite
@pytest.mark.parametrize("fmt", SMALL, ids=str)
def test_every_pair_of_the_small_formats(fmt):
    for op, (found, pairs, _, _) in all_pairs(fmt, workers=1).items():
        assert found is None, found
        assert pairs == 1 << (2 * fmt.nbits), op


def test_the_all_pairs_check_fails_on_a_wrong_subtraction():
    """The reference's a − b is read from its a + b at −b: an executor subtraction that
    gets −0 wrong (x − x = −0) is caught there."""
    fmt = parse_format("float8_e4m3")
    A = concrete(fmt)

    def run(op):
        if op != "sub":
            return executor_op(fmt, op)

        def sub(a, b):
            r = np.asarray(A.to_bits(A.sub(A.const(a), A.const(b))))
            return np.where(np.broadcast_to(a == b, r.shape) & (r == 0), np.uint64(fmt.sign_bit), r)
        return sub
    got = all_pairs(fmt, ("add", "sub"), run=run, workers=1)
    assert got["add"][0] is None and "sub(0x00, 0x00): the executor gives 0x80, the integer reference 0x00" in got["sub"][0]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("fmt", WIDE, ids=str)
def test_sampled_and_special_pairs(fmt, op):
    """Division among them in every format: the transfer weights come from a division."""
    rng = np.random.default_rng(2026 + len(op))
    a = _patterns(fmt, 1000, rng)
    b = [a[i] for i in rng.permutation(len(a))]
    sp = specials(fmt)
    sa = [x for x in sp for _ in sp]
    sb = [y for _ in sp for y in sp]
    msg = _check(fmt, op, a + sa, b + sb)
    assert msg is None, msg


@pytest.mark.parametrize("fmt", [f for f in NAMED_FORMATS + CUSTOM if f.nbits <= 16], ids=str)
def test_every_pattern_next_up_next_down_and_fields(fmt):
    n = 1 << fmt.nbits
    R, A = IntRNE(fmt.E, fmt.M), concrete(fmt)
    pats = np.arange(n, dtype=np.uint64)
    v = A.const(pats)
    for op in ("next_up", "next_down"):
        got = R.canonical(np.asarray(A.to_bits(getattr(A, op)(v))).astype(np.int64))
        want = R.canonical(getattr(R, op)(pats))
        bad = np.flatnonzero(got != want)
        assert not len(bad), (f"{op}({fmt.hex(int(pats[bad[0]]))}): executor {fmt.hex(int(got[bad[0]]))}, "
                              f"reference {fmt.hex(int(want[bad[0]]))}")
    finite = np.flatnonzero(~np.asarray(A.is_nan(v)))
    s, e, m = (np.asarray(x).astype(np.int64) for x in A.fields(v[finite]))
    rs, re, rm = R.split(pats[finite].astype(np.int64))
    assert np.array_equal(s, rs) and np.array_equal(e, re) and np.array_equal(m, rm)
    back = np.asarray(A.to_bits(A.from_fields(rs, re, rm))).astype(np.int64)
    assert np.array_equal(back, pats[finite].astype(np.int64))
    normal = (re != 0) & (re != R.emax_field)
    assert np.array_equal(np.asarray(A.exponent(v[finite]))[normal], (re - R.bias)[normal])
    assert np.array_equal(np.asarray(A.significand_odd(v[finite])).astype(bool), (rm & 1) == 1)


# ------------------------------------------------------------------ slow suite
@pytest.mark.slow
@pytest.mark.parametrize("fmt", [BF16, F16], ids=str)
def test_every_pair_of_the_16_bit_formats(fmt):
    for op, (found, pairs, _, _) in all_pairs(fmt).items():
        assert found is None, found
        assert pairs == 1 << 32, op


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2", "bfloat16"])
def test_is_pow2_in_every_arithmetic(name):
    """``is_pow2`` (a positive power of two, subnormal ones included) in the executor, the
    exact reference and Z3 against the values as Fractions, at every pattern (Z3: every
    pattern of the 8-bit formats, every 61st of bfloat16)."""
    import z3

    from fpsmt.semantics.arith import ExactArith, Z3Arith
    fmt = parse_format(name)
    pats = [p for p in range(1 << fmt.nbits)]

    def truth(p):
        if not fmt.is_finite(p):
            return False
        v = fmt.to_fraction(p)
        return v > 0 and v.numerator & (v.numerator - 1) == 0 and v.denominator & (v.denominator - 1) == 0
    want = [truth(p) for p in pats]
    assert sum(want) == fmt.e_max - (fmt.e_min - fmt.M) + 1
    A = concrete(fmt)
    assert list(np.asarray(A.is_pow2(A.const(np.asarray(pats, dtype=np.uint64))))) == want
    X = ExactArith(fmt)
    assert list(np.asarray(X.is_pow2(X.const(np.asarray(pats, dtype=object))))) == want
    Z = Z3Arith(fmt)
    for p in pats[::1 if fmt.nbits == 8 else 61]:
        got = z3.simplify(Z.is_pow2(Z.const(p))[()])  # a constant's fields fold: no side constraints
        assert z3.is_true(got) == want[p] and not Z.side, fmt.hex(p)


def test_a_pow2_domain_restricts_claims_and_enumerations():
    """A ``pow2`` float domain: in float32 an enumeration takes only the powers of two of
    its range; a claim true only at powers of two is PROVED over it by z3 and REFUTED over
    the plain range (1.5 is in [1, 4])."""
    from fractions import Fraction

    from fpsmt.proof.claims import Float, forall
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.exhaustive import space
    f32 = parse_format("float32")
    c = forall("pow2_space", {"p": Float(range=(0.125, 32), pow2=True)}, goal=lambda s: s.p.is_finite())
    (ax,) = space(c, f32, ["p"])
    assert [f32.to_fraction(int(p)) for p in ax] == [Fraction(2) ** k for k in range(-3, 6)]

    def claim(pow2):
        return forall(f"pow2_{pow2}", {"p": Float(range=(1, 4), pow2=pow2)},
                      goal=lambda s: s.p.same(1) | s.p.same(2) | s.p.same(4))
    for pow2, want in ((True, "PROVED"), (False, "REFUTED")):
        c = claim(pow2)
        assert Engine(solver="z3", timeout=60).prove(c, f32, {c.name: c}).status == want
