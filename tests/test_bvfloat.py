"""fpsmt's own floating-point encoding over bit-vectors (the ``bitwuzla-bv`` back end).

Each operation is checked against the independent integer implementation of RNE
(:mod:`fpsmt.semantics.arith.intrne`): every pair of two small formats, sampled and
special pairs of the 16-, 32- and 64-bit formats; and proved equal to Z3's own
floating-point semantics for *every* pair by an UNSAT miter (float8_e4m3 in the default
suite, bfloat16 in the slow one).  A deliberately wrong rounding is caught by both
checks.  The translation of whole queries is checked by deciding claims both ways."""

import numpy as np
import pytest
import z3

from conftest import specials
from fpsmt.proof.solve import backends, plan_for
from fpsmt.proof.solve.bvfloat import FloatBV, Unsupported, to_bitvectors
from fpsmt.semantics.arith.intrne import IntRNE
from fpsmt.semantics.formats import Format, parse_format

OPS = ("add", "sub", "mul", "div")


def _expr(f: FloatBV, op, a, b):
    return {"add": f.add, "mul": f.mul, "div": f.div, "sub": lambda x, y: f.add(x, f.neg(y))}[op](a, b)


def _mismatches(fmt: Format, op, pairs, f: FloatBV | None = None, first_only=True):
    """(a, b, encoding, reference) where the encoding evaluated at the pair differs from IntRNE."""
    f = f or FloatBV(fmt.E, fmt.M)
    a, b = z3.BitVecs("a b", fmt.nbits)
    e = _expr(f, op, a, b)
    R = IntRNE(fmt.E, fmt.M)
    xs = np.array([p[0] for p in pairs], dtype=object)
    ys = np.array([p[1] for p in pairs], dtype=object)
    if fmt.nbits <= 62:
        xs, ys = xs.astype(np.int64), ys.astype(np.int64)
    want = [int(v) for v in np.ravel(R.canonical(getattr(R, op)(xs, ys)))]
    bad = []
    for (x, y), w in zip(pairs, want):
        got = z3.simplify(z3.substitute(e, (a, z3.BitVecVal(x, fmt.nbits)), (b, z3.BitVecVal(y, fmt.nbits))))
        if got.as_long() != w:
            bad.append((fmt.hex(x), fmt.hex(y), fmt.hex(got.as_long()), fmt.hex(w)))
            if first_only:
                break
    return bad


def _samples(fmt: Format, n, seed=0):
    rng = np.random.default_rng(seed)
    pats = [int(v) for v in specials(fmt)]
    f = fmt
    for lo, hi in ((0, 3), (f.exp_all_ones - 3, f.exp_all_ones), (max(0, f.bias - 12), f.bias + 12),
                   (0, f.exp_all_ones)):
        for _ in range(n):
            e = int(rng.integers(lo, hi + 1))
            m = int(rng.integers(0, 1 << min(f.M, 62))) << max(0, f.M - 62)
            pats.append(f.from_fields(int(rng.integers(0, 2)), e, m & f.frac_mask))
    pairs = [(x, y) for x in pats[:24] for y in pats[:24]]
    pairs += [(pats[i], pats[-1 - i]) for i in range(len(pats))]
    # near-cancellations and near-ties: a value against its neighbours, halves and doubles
    for x in pats[24:24 + n]:
        for d in (1, -1, 1 << max(0, f.M - 1)):
            y = (x + d) % (1 << f.nbits)
            pairs += [(x, y), (x, y ^ (1 << (f.nbits - 1)))]
    return pairs


def _differs(E, M, op, f: FloatBV | None = None):
    """The formula: on the pair (a, b) the encoding's op and the SMT-LIB floats' differ."""
    f = f or FloatBV(E, M)
    n = 1 + E + M
    a, b = z3.BitVecs("a b", n)
    S = z3.FPSort(E, M + 1)
    fa, fb = z3.fpBVToFP(a, S), z3.fpBVToFP(b, S)
    ref = {"add": z3.fpAdd, "sub": z3.fpSub, "mul": z3.fpMul, "div": z3.fpDiv}
    if op in ref:
        return z3.Not(z3.fpBVToFP(_expr(f, op, a, b), S) == ref[op](z3.RNE(), fa, fb))
    mine = {"lt": f.lt, "leq": f.leq, "eq": f.feq}[op](a, b)
    return mine != {"lt": z3.fpLT, "leq": z3.fpLEQ, "eq": z3.fpEQ}[op](fa, fb)


def _miter(E, M, op, f: FloatBV | None = None):
    """Z3's answer to: is there a pair on which the encoding and Z3's floats differ?"""
    s = z3.SolverFor("QF_FPBV")
    s.add(_differs(E, M, op, f))
    return s.check()


class TiesAway(FloatBV):
    """A wrong rounding: ties away from zero instead of to even."""

    @staticmethod
    def increment(half, below, odd):
        return half


# ---------------------------------------------------------------------------- operations
@pytest.mark.parametrize("op", OPS)
def test_every_pair_of_a_six_bit_format(op):
    fmt = Format(3, 2)
    pairs = [(x, y) for x in range(64) for y in range(64)]
    assert _mismatches(fmt, op, pairs) == []


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_sampled_and_special_pairs(name, op):
    fmt = parse_format(name)
    assert _mismatches(fmt, op, _samples(fmt, 6)) == []


@pytest.mark.parametrize("op", OPS + ("lt", "leq", "eq"))
def test_equal_to_z3_on_every_pair_of_float8_e4m3(op):
    assert _miter(4, 3, op) == z3.unsat


def test_conversions_equal_to_z3():
    for (E1, M1), (E2, M2) in (((8, 23), (8, 7)), ((5, 10), (4, 3)), ((4, 3), (11, 52)), ((8, 7), (5, 10))):
        src, dst = FloatBV(E1, M1), FloatBV(E2, M2)
        a = z3.BitVec("a", 1 + E1 + M1)
        mine = dst.convert(src, a)
        ref = z3.fpToFP(z3.RNE(), z3.fpBVToFP(a, z3.FPSort(E1, M1 + 1)), z3.FPSort(E2, M2 + 1))
        s = z3.Solver()
        s.add(z3.Not(z3.fpBVToFP(mine, z3.FPSort(E2, M2 + 1)) == ref))
        assert s.check() == z3.unsat, ((E1, M1), (E2, M2), s.model())


def test_a_wrong_rounding_is_caught_by_both_checks():
    fmt = Format(3, 2)
    wrong = TiesAway(3, 2)
    pairs = [(x, y) for x in range(64) for y in range(64)]
    bad = _mismatches(fmt, "add", pairs, f=wrong)
    assert bad, "ties away from zero went unnoticed"
    assert _miter(4, 3, "mul", f=TiesAway(4, 3)) == z3.sat


@pytest.mark.slow
@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2"])
@pytest.mark.parametrize("op", OPS)
def test_every_pair_of_the_8_bit_formats(name, op):
    fmt = parse_format(name)
    pairs = [(x, y) for x in range(256) for y in range(256)]
    assert _mismatches(fmt, op, pairs) == []


@pytest.mark.slow
@pytest.mark.soundness
@pytest.mark.parametrize("op", OPS + ("lt", "leq", "eq"))
def test_equal_to_z3_on_every_pair_of_bfloat16(op):
    assert _miter(8, 7, op) == z3.unsat


def _bitwuzla_miter(E, M, f: FloatBV | None = None):
    """Bitwuzla's answer to: is there a pair on which the encoding's sum and Bitwuzla's own
    floating-point sum (SymFPU) differ?"""
    return backends.run_bitwuzla(_text([_differs(E, M, "add", f)]), {})[0]


@pytest.mark.slow
def test_sum_equal_to_bitwuzlas_floats_on_every_pair_of_float16():
    """The adder (its alignment with guard bits and a jammed sticky bit) against a third
    implementation, on all 2^32 pairs (about a minute); ties away from zero is caught."""
    assert _bitwuzla_miter(5, 10) == "unsat"
    assert _bitwuzla_miter(5, 10, f=TiesAway(5, 10)) == "sat"


# ---------------------------------------------------------------------------- whole queries
def _text(assertions):
    s = z3.Solver()
    s.add(*assertions)
    return s.sexpr()


def test_queries_decided_like_z3():
    """Claims over bfloat16 written with Z3's floats, rewritten and decided by Bitwuzla's
    bit-vector engine: the same verdicts as Z3's floats, a SAT model that satisfies them."""
    S = z3.FPSort(8, 8)
    x, y = z3.BitVecs("x y", 16)
    fx, fy = z3.fpBVToFP(x, S), z3.fpBVToFP(y, S)
    rne = z3.RNE()
    one = z3.FPVal(1.0, S)
    fin = z3.Not(z3.Or(z3.fpIsNaN(fx), z3.fpIsInf(fx)))
    cases = {
        "x*1 != x for a finite x": ([fin, z3.Not(z3.fpMul(rne, fx, one) == fx)], "unsat"),
        "(x+y)-y != x, finite": ([fin, z3.Not(z3.fpIsNaN(z3.fpSub(rne, z3.fpAdd(rne, fx, fy), fy))),
                                  z3.Not(z3.fpSub(rne, z3.fpAdd(rne, fx, fy), fy) == fx)], "sat"),
        "x/x != 1 for finite nonzero x": ([fin, z3.Not(z3.fpIsZero(fx)), z3.Not(z3.fpDiv(rne, fx, fx) == one)],
                                          "unsat"),
        "x+x = 2x breaks": ([z3.Not(z3.fpAdd(rne, fx, fx) == z3.fpMul(rne, fx, z3.FPVal(2.0, S)))], "unsat"),
        "x < y and y < x": ([z3.fpLT(fx, fy), z3.fpLT(fy, fx)], "unsat"),
        "-0 = +0 as fp.eq, not as =": ([z3.fpEQ(fx, fy), z3.Not(fx == fy), z3.Not(z3.fpIsNaN(fx))], "sat"),
    }
    for name, (asserts, want) in cases.items():
        text = _text(asserts)
        ref = z3.Solver()
        ref.add(*asserts)
        assert str(ref.check()) == want, name
        status, model, reason = backends.run_bitwuzla_bv(text, {"x": 16, "y": 16})
        assert status == want, (name, status, reason)
        if status == "sat":
            check = z3.Solver()
            check.add(*asserts, x == model["x"], y == model["y"])
            assert check.check() == z3.sat, (name, model)


def test_uninterpreted_functions_of_floats():
    """σ uninterpreted over floats: congruence holds on values (every NaN is one value)."""
    S = z3.FPSort(8, 8)
    x, y = z3.BitVecs("x y", 16)
    s = z3.Function("s", S, S)
    fx, fy = z3.fpBVToFP(x, S), z3.fpBVToFP(y, S)
    both_nan = [z3.fpIsNaN(fx), z3.fpIsNaN(fy), z3.Not(s(fx) == s(fy))]  # one NaN: s agrees
    assert backends.run_bitwuzla_bv(_text(both_nan), {"x": 16, "y": 16})[0] == "unsat"
    zeros = [z3.fpIsZero(fx), z3.fpIsZero(fy), z3.Not(s(fx) == s(fy))]  # +0 and -0 differ
    assert backends.run_bitwuzla_bv(_text(zeros), {"x": 16, "y": 16})[0] == "sat"


def test_other_rounding_modes_are_declined():
    S = z3.FPSort(8, 8)
    x = z3.BitVec("x", 16)
    fx = z3.fpBVToFP(x, S)
    text = _text([z3.Not(z3.fpAdd(z3.RTZ(), fx, fx) == fx)])
    with pytest.raises(Unsupported, match="rounding mode"):
        to_bitvectors(text)
    status, _, reason = backends.run_bitwuzla_bv(text, {"x": 16})
    assert status == "unknown" and "roundTowardZero" in reason


def test_the_portfolio_takes_it_where_bitwuzla_does_not():
    """bitwuzla-bv races where Bitwuzla's own layer refuses the format; an experimental
    mode races only where fewer than two back ends take the format outside one;
    confirmations take every back end."""
    bf16, e5m2, f32 = (parse_format(n) for n in ("bfloat16", "float8_e5m2", "float32"))
    assert plan_for("portfolio", bf16) == {"z3": False, "bitwuzla-bv": False}
    assert plan_for("portfolio", e5m2) == {"cvc5": True, "bitwuzla-bv": False}  # z3 refuses E > M + 1
    assert plan_for("portfolio", f32) == {"z3": False, "cvc5": False, "bitwuzla": False}
    assert plan_for("portfolio", bf16, exclude=("z3",), confirming=True) == {"cvc5": True, "bitwuzla-bv": False}
    assert "bitwuzla-bv" in plan_for("portfolio", f32, confirming=True)
    assert backends.version("bitwuzla-bv").startswith(backends.version("bitwuzla") + "+bv.")
