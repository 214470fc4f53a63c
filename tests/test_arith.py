"""The interpretations of the arithmetic agree bit for bit: executor, exact rationals, Z3."""

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from fpsmt.semantics.arith import ExactArith, HostArith, NativeArith, Z3Arith, concrete, fold_bits
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, parse_format

from conftest import NAMED_FORMATS, bits, uarr

CUSTOM = [Format(6, 3), Format(9, 20), Format(2, 1), Format(3, 2), Format(12, 60), Format(15, 112)]
ALL = NAMED_FORMATS + CUSTOM
BINARY = ["add", "mul", "sub"]
PRED = ["lt", "le", "eq", "gt", "ge"]
UNARY_PRED = ["is_nan", "is_inf", "is_zero", "signbit", "is_finite"]


def _canon(fmt, arr):
    return [fmt.canonical(int(v)) for v in np.ravel(arr)]


def test_strategy_choice():
    assert isinstance(concrete(parse_format("float32")), NativeArith)
    assert isinstance(concrete(parse_format("float64")), NativeArith)
    for n in ("bfloat16", "float16", "e5m2", "e4m3", "e3m4"):
        a = concrete(parse_format(n))
        assert isinstance(a, HostArith) and a.dtype == np.float32
    assert isinstance(concrete(Format(9, 20)), HostArith) and concrete(Format(9, 20)).dtype == np.float64
    assert isinstance(concrete(Format(12, 60)), ExactArith)


@pytest.mark.parametrize("fmt", [f for f in NAMED_FORMATS if f.nbits == 8] + [Format(3, 2), Format(2, 1)], ids=str)
def test_small_formats_exhaustively(fmt):
    """Every pair of patterns: the executor equals exact rounding for +, −, × and compares."""
    n = 1 << fmt.nbits
    a, b = (x.ravel() for x in np.meshgrid(np.arange(n, dtype=np.uint64), np.arange(n, dtype=np.uint64)))
    A, X = concrete(fmt), ExactArith(fmt)
    ca, cb = A.const(a), A.const(b)
    xa, xb = X.const(a.astype(object)), X.const(b.astype(object))
    for op in BINARY:
        assert _canon(fmt, A.to_bits(getattr(A, op)(ca, cb))) == _canon(fmt, X.to_bits(getattr(X, op)(xa, xb))), op
    for op in PRED:
        assert np.array_equal(getattr(A, op)(ca, cb), getattr(X, op)(xa, xb)), op
    for op in UNARY_PRED:
        assert np.array_equal(getattr(A, op)(ca), getattr(X, op)(xa)), op
    assert _canon(fmt, A.to_bits(A.next_up(ca))) == [fmt.next_up(int(v)) for v in a]


def _field_sample(fmt, n, rng):
    """Patterns spread over exponent fields: tiny, huge, around 1 and anything."""
    f = fmt
    e = np.concatenate([rng.integers(0, 4, n), rng.integers(f.exp_all_ones - 3, f.exp_all_ones + 1, n),
                        rng.integers(max(0, f.bias - 10), f.bias + 10, n), rng.integers(0, f.exp_all_ones + 1, n)])
    m = rng.integers(0, f.frac_mask + 1, 4 * n, dtype=np.uint64)
    s = rng.integers(0, 2, 4 * n)
    return (s.astype(np.uint64) << np.uint64(f.E + f.M)) | (e.astype(np.uint64) << np.uint64(f.M)) | m


@pytest.mark.parametrize("fmt", [f for f in ALL if f.nbits > 8 and f.nbits <= 64], ids=str)
def test_executor_against_exact_sampled(fmt):
    rng = np.random.default_rng(2026)
    a = _field_sample(fmt, 1500, rng)
    b = np.concatenate([_field_sample(fmt, 1500, rng)[rng.permutation(6000)]])
    A, X = concrete(fmt), ExactArith(fmt)
    ca, cb = A.const(a), A.const(b)
    xa, xb = X.const(a.astype(object)), X.const(b.astype(object))
    for op in BINARY:
        got, want = _canon(fmt, A.to_bits(getattr(A, op)(ca, cb))), _canon(fmt, X.to_bits(getattr(X, op)(xa, xb)))
        bad = [i for i in range(len(got)) if got[i] != want[i]]
        assert not bad, f"{op}({fmt.hex(int(a[bad[0]]))}, {fmt.hex(int(b[bad[0]]))}): " \
                        f"{fmt.hex(got[bad[0]])} != {fmt.hex(want[bad[0]])}"
    for op in PRED:
        assert np.array_equal(getattr(A, op)(ca, cb), getattr(X, op)(xa, xb)), op


@pytest.mark.parametrize("fmt", ALL, ids=str)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_z3_folds_like_exact(fmt, data):
    if fmt.M < 2:
        with pytest.raises(InputError):
            Z3Arith(fmt)
        return
    a, b = data.draw(bits(fmt)), data.draw(bits(fmt))
    Z, X = Z3Arith(fmt), ExactArith(fmt)
    za, zb = Z.const(a), Z.const(b)
    xa, xb = X.const(a), X.const(b)
    for op in BINARY:
        assert fold_bits(fmt, getattr(Z, op)(za, zb)[()]) == fmt.canonical(int(getattr(X, op)(xa, xb))), op
    for op in PRED:
        assert z3.is_true(z3.simplify(getattr(Z, op)(za, zb)[()])) == bool(getattr(X, op)(xa, xb)), op
    for op in UNARY_PRED:
        assert z3.is_true(z3.simplify(getattr(Z, op)(za)[()])) == bool(getattr(X, op)(xa)), op
    assert fold_bits(fmt, Z.next_up(za)[()]) == fmt.next_up(a)
    assert fold_bits(fmt, Z.next_down(za)[()]) == fmt.next_down(a)


@pytest.mark.parametrize("fmt", ALL, ids=str)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_fields_roundtrip(fmt, data):
    b = data.draw(bits(fmt).filter(lambda v: not fmt.is_nan(v)))
    s, e, m = fmt.fields(b)
    for A in (concrete(fmt), ExactArith(fmt)):
        v = A.const(uarr(fmt, [b]))
        fs = [int(np.ravel(x)[0]) for x in A.fields(v)]
        assert fs == [s, e, m]
        assert int(np.ravel(A.to_bits(A.from_fields([s], [e], [m])))[0]) == b
    if fmt.M < 2:
        return  # Z3 has no sort for M = 1 (test_z3_folds_like_exact checks the refusal)
    Z = Z3Arith(fmt)
    zs = Z.fields(Z.const(b))
    assert [z3.simplify(x[()]).as_long() for x in zs] == [s, e, m]
    assert fold_bits(fmt, Z.from_fields(s, e, m)[()]) == b


def test_symbolic_fields_build_weights():
    """A weight computed from a symbolic z's fields (2^(e_z) as a float), solved and checked."""
    fmt = parse_format("bfloat16")
    Z = Z3Arith(fmt)
    z = Z.var("z")
    s, e, m = Z.fields(z)
    p2 = Z.from_fields(z3.BitVecVal(0, 1), e[()], z3.BitVecVal(0, fmt.M))  # 2^(e_z) for normal z
    sol = z3.Solver()
    sol.add(z3.fpIsNormal(z[()]), z3.fpIsPositive(z[()]), z3.Not(z3.fpEQ(p2[()], z[()])), *Z.side)
    sol.add(z3.fpGT(z[()], Z.const(fmt.from_float(3.0))[()]))
    assert sol.check() == z3.sat
    zb = sol.model().eval(Z.vars["z"]).as_long()
    got = fold_bits(fmt, sol.model().eval(p2[()], model_completion=True))
    assert fmt.to_fraction(got) == 2 ** fmt.exponent(zb)


def test_next_up_of_a_computed_term_uses_a_side_definition():
    fmt = parse_format("float16")
    Z = Z3Arith(fmt)
    x = Z.var("x")
    t = Z.add(x, x)
    u = Z.next_up(t)
    assert len(Z.side) == 1
    sol = z3.Solver()
    sol.add(*Z.side, z3.fpEQ(x[()], Z.const(fmt.from_float(1.5))[()]))
    assert sol.check() == z3.sat
    assert fold_bits(fmt, sol.model().eval(u[()], model_completion=True)) == fmt.next_up(fmt.from_float(3.0))


def _rewrites(fmt, A):
    """(the Z3 interpretation's x ⊗ c, fp.mul(x, c)) for x a free float and each constant c
    it writes without a multiplier (±1, ±0, NaN), for an if-then-else of such constants
    (ReLU's σ'), and for 2 (left to fp.mul); both factor orders."""
    x = z3.fpBVToFP(z3.BitVec("x", fmt.nbits), A.sort)
    p, q = z3.Bools("p q")
    consts = [A.const1(b) for b in (fmt.one_bits, fmt.one_bits | fmt.sign_bit, 0, fmt.sign_bit, fmt.nan_bits,
                                    fmt.round(2))]
    relu_prime = z3.If(p, consts[0], z3.If(q, consts[4], consts[2]))
    out = []
    for c in consts + [relu_prime]:
        out += [(A._mul1(x, c), z3.fpMul(A.rm, x, c)), (A._mul1(c, x), z3.fpMul(A.rm, c, x))]
    return out


@pytest.mark.parametrize("fmt", [f for f in ALL if f.M >= 2], ids=str)
def test_sums_with_negative_zero_are_fp_add(fmt):
    """Z3Arith writes x ⊕ −0 and −0 ⊕ x as x: Z3 proves each equal (SMT-LIB =, NaN
    included) to fp.add for a free x (every x where Z3 gives up on the sort); the same
    rewrite for +0 would be wrong at x = −0; any other constant is left to fp.add."""
    A = Z3Arith(fmt)
    x = z3.fpBVToFP(z3.BitVec("x", fmt.nbits), A.sort)
    neg0, pos0 = A.const1(fmt.sign_bit), A.const1(0)
    for mine, theirs in ((A._add1(x, neg0), z3.fpAdd(A.rm, x, neg0)), (A._add1(neg0, x), z3.fpAdd(A.rm, neg0, x))):
        assert mine.eq(x)
        s = z3.Solver()
        s.add(z3.Not(mine == theirs))
        got = s.check()
        if got == z3.unknown and fmt.nbits <= 10:  # Z3 gives up on some narrow sorts: every x instead
            bv = z3.BitVec("x", fmt.nbits)
            got = z3.unsat
            for b in range(1 << fmt.nbits):
                at = [(bv, z3.BitVecVal(b, fmt.nbits))]
                if fold_bits(fmt, z3.simplify(z3.substitute(mine, *at))) != fold_bits(
                        fmt, z3.simplify(z3.substitute(theirs, *at))):
                    got = z3.sat
        assert got == z3.unsat
    assert z3.is_app_of(A._add1(x, pos0), z3.Z3_OP_FPA_ADD)
    at = (z3.BitVec("x", fmt.nbits), z3.BitVecVal(fmt.sign_bit, fmt.nbits))  # x = −0: −0 ⊕ +0 = +0, not x
    assert fold_bits(fmt, z3.simplify(z3.substitute(z3.fpAdd(A.rm, x, pos0), at))) == 0
    assert fold_bits(fmt, z3.simplify(z3.substitute(x, at))) == fmt.sign_bit


@pytest.mark.parametrize("fmt", [f if f.name != "E15M112" else pytest.param(f, marks=(pytest.mark.slow, pytest.mark.soundness)) for f in ALL if f.M >= 2],
                         ids=str)
def test_products_by_exact_constants_are_fp_mul(fmt):
    """Z3Arith writes x ⊗ ±1, x ⊗ ±0, x ⊗ NaN (and an if-then-else of them) without fp.mul:
    Z3 proves each equal (SMT-LIB =, NaN included) to fp.mul, for a free x; a wrong
    rewrite (x ⊗ −1 written as x) is caught."""
    A = Z3Arith(fmt)
    for mine, theirs in _rewrites(fmt, A):
        s = z3.Solver()
        s.add(z3.Not(mine == theirs))
        assert s.check() == z3.unsat, (mine, theirs)
    x = z3.fpBVToFP(z3.BitVec("x", fmt.nbits), A.sort)
    assert z3.is_app_of(A._mul1(x, A.const1(fmt.round(2))), z3.Z3_OP_FPA_MUL)
    assert not z3.is_app_of(A._mul1(x, A.const1(fmt.one_bits)), z3.Z3_OP_FPA_MUL)
    s = z3.Solver()
    s.add(z3.Not(x == z3.fpMul(A.rm, x, A.const1(fmt.one_bits | fmt.sign_bit))))
    assert s.check() == z3.sat


def _scaled_pair(fmt):
    """(the interpretation, x ⊗ 2^k written by scaling for a free x and a free k, fp.mul of
    the same) — 2^k made by pow2."""
    A = Z3Arith(fmt)
    x = A.bv_term(z3.BitVec("x", fmt.nbits))
    p = A.pow2(z3.BitVec("k", 32))[()]
    return A, A._by_special(x, p, True), z3.fpMul(A.rm, x, p)


@pytest.mark.parametrize("fmt", ["float8_e4m3", "float8_e5m2", "float8_e3m4", "float16", "bfloat16",
                                 pytest.param("float32", marks=(pytest.mark.slow, pytest.mark.soundness))])
def test_products_by_a_symbolic_power_of_two_are_fp_mul(fmt):
    """x ⊗ 2^k for a symbolic k (pow2) written by moving x's exponent, rounding only into
    the subnormals (Z3Arith._scaled), not by a multiplier: Z3 proves it equal to fp.mul
    (SMT-LIB =, NaN included) for every x and every k of 32 bits (2^k then +inf, a normal,
    a subnormal or +0), and for −2^k and an if-then-else of 2^k and −1.  The product
    operation uses it from SCALE_FROM_M fraction bits on (float32 here), fp.mul below."""
    from fpsmt.semantics.arith.symbolic import SCALE_FROM_M
    f = parse_format(fmt)
    A, mine, theirs = _scaled_pair(f)
    assert "fp.mul" not in mine.sexpr()
    x = A.bv_term(z3.BitVec("x", f.nbits))
    p = A.pow2(z3.BitVec("k", 32))[()]
    assert ("fp.mul" in A._mul1(x, p).sexpr()) == (f.M < SCALE_FROM_M)
    c = z3.Bool("c")
    neg1 = A.const1(f.one_bits | f.sign_bit)
    pairs = [(mine, theirs), (A._by_special(x, z3.fpNeg(p), True), z3.fpMul(A.rm, z3.fpNeg(p), x)),
             (A._by_special(x, z3.If(c, p, neg1), True), z3.fpMul(A.rm, x, z3.If(c, p, neg1)))]
    for a, b in pairs:
        s = z3.Solver()
        s.add(A.side)
        s.add(z3.Not(a == b))
        assert s.check() == z3.unsat, fmt


@pytest.mark.slow
@pytest.mark.soundness
def test_products_by_a_symbolic_power_of_two_are_fp_mul_in_float64():
    """As above in float64 (about two minutes of Z3)."""
    f = parse_format("float64")
    A, mine, theirs = _scaled_pair(f)
    s = z3.Solver()
    s.add(A.side)
    s.add(z3.Not(mine == theirs))
    assert s.check() == z3.unsat


def test_a_wrong_scaling_is_caught(monkeypatch):
    """The check above fails on a wrong rewrite: rounding ties away from zero in the
    subnormals (instead of to even) gives a model in float8_e4m3."""
    monkeypatch.setattr(Z3Arith, "_round_up", staticmethod(lambda rest, half, q: z3.UGE(rest, half)))
    A, mine, theirs = _scaled_pair(parse_format("float8_e4m3"))
    s = z3.Solver()
    s.add(A.side)
    s.add(z3.Not(mine == theirs))
    assert s.check() == z3.sat
