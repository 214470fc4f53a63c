"""The integer executor (fpsmt.semantics.arith.integer) and the confirmation it gives: an
answer found by enumerating on the fast executor is enumerated again on the integer one.

Its + − × ÷ are the integer reference's, which test_executor_rne compares with the fast
executor; here, everything else it computes (comparisons, predicates, negation, fields,
next_up/next_down, powers of two) against the fast executor on every pair of an 8-bit
format, and the engine's use of it — including a broken fast executor, whose wrong UNSAT
the integer enumeration refutes."""

import numpy as np
import pytest

from fpsmt.errors import Disagreement
from fpsmt.proof import exhaustive
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.engine import INTEGER_ENUMERATION, Engine
from fpsmt.semantics.arith import concrete
from fpsmt.semantics.arith.concrete import HostArith
from fpsmt.semantics.arith.integer import IntegerArith
from fpsmt.semantics.formats import parse_format

E4M3, BF16, F32 = parse_format("float8_e4m3"), parse_format("bfloat16"), parse_format("float32")


def _pairs(fmt):
    n = 1 << fmt.nbits
    a, b = np.meshgrid(np.arange(n, dtype=np.uint64), np.arange(n, dtype=np.uint64), indexing="ij")
    return a.ravel(), b.ravel()


@pytest.mark.parametrize("fmt", [E4M3, parse_format("float8_e5m2")], ids=lambda f: f.name)
def test_every_pair_of_an_8_bit_format_against_the_fast_executor(fmt):
    A, B = concrete(fmt), IntegerArith(fmt)
    a, b = _pairs(fmt)
    xa, xb, ia, ib = A.const(a), A.const(b), B.const(a), B.const(b)
    for op in ("add", "sub", "mul", "div"):
        want, got = A.to_bits(getattr(A, op)(xa, xb)), B.to_bits(getattr(B, op)(ia, ib))
        assert np.array_equal(want.astype(np.uint64), got.astype(np.uint64)), op
    for op in ("lt", "le", "eq", "same"):
        assert np.array_equal(getattr(A, op)(xa, xb), getattr(B, op)(ia, ib)), op
    for op in ("is_nan", "is_inf", "is_zero", "signbit", "is_finite"):
        assert np.array_equal(getattr(A, op)(xa), getattr(B, op)(ia)), op
    for op in ("neg", "abs", "next_up", "next_down"):
        assert np.array_equal(A.to_bits(getattr(A, op)(xa)).astype(np.uint64),
                              B.to_bits(getattr(B, op)(ia)).astype(np.uint64)), op
    for x, y in zip(A.fields(xa), B.fields(ia)):
        assert np.array_equal(np.asarray(x).astype(np.int64), np.asarray(y).astype(np.int64))
    assert np.array_equal(A.exponent(xa), B.exponent(ia))
    k = np.arange(fmt.e_min - fmt.M - 3, fmt.e_max + 3)
    assert np.array_equal(A.to_bits(A.pow2(k)).astype(np.uint64), B.to_bits(B.pow2(k)).astype(np.uint64))


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_float32_values_near_the_edges():
    """float32 on the integer executor against NumPy's own float32 at sampled pairs."""
    rng = np.random.default_rng(7)
    pats = np.concatenate([rng.integers(0, 1 << 32, 20000, dtype=np.uint64),
                           np.asarray([0, 1, 0x007FFFFF, 0x00800000, 0x3F800000, 0x7F7FFFFF, 0x7F800000,
                                       0x80000000, 0xFF800000], dtype=np.uint64)])
    a, b = np.meshgrid(pats[:200], pats)
    A, B = concrete(F32), IntegerArith(F32)
    for op in ("add", "mul", "div"):
        want = A.to_bits(getattr(A, op)(A.const(a), A.const(b))).astype(np.uint64)
        got = B.to_bits(getattr(B, op)(B.const(a), B.const(b))).astype(np.uint64)
        assert np.array_equal(want, got), op


@pytest.mark.parametrize("fmt", [F32, parse_format("float64")], ids=lambda f: f.name)
def test_scalars_of_every_width(fmt):
    """One value (a 0-d array, as a stage with no free variable has) computes like an
    array of one: float64's patterns are object arrays, whose 0-d shifts are Python ints
    (this raised in float64 before); checked against the fast executor, and a wrong
    pattern differs."""
    A, B = concrete(fmt), IntegerArith(fmt)
    one, third, tiny = fmt.round(1), fmt.from_float(1 / 3), 1
    for x, y in ((one, third), (third, tiny), (fmt.sign_bit, one)):
        for op in ("add", "sub", "mul", "div"):
            want = int(np.asarray(A.to_bits(getattr(A, op)(A.const(np.asarray(x, dtype=fmt.uint_dtype)),
                                                           A.const(np.asarray(y, dtype=fmt.uint_dtype))))))
            got = int(np.asarray(B.to_bits(getattr(B, op)(B.const(np.asarray(x, dtype=object)),
                                                          B.const(np.asarray(y, dtype=object))))))
            assert got == want, (op, hex(x), hex(y), hex(got), hex(want))
        assert int(np.asarray(B.to_bits(B.mul(B.const(np.asarray(third, dtype=object)),
                                               B.const(np.asarray(one, dtype=object)))))) != third + 1
    a, xa = B.const(np.asarray(third, dtype=object)), A.const(np.asarray(third, dtype=fmt.uint_dtype))
    for op in ("neg", "abs", "next_up", "next_down"):
        got, want = int(np.asarray(B.to_bits(getattr(B, op)(a)))), int(np.asarray(A.to_bits(getattr(A, op)(xa))))
        assert got == want, (op, hex(got), hex(want))
    assert [int(v) for v in B.fields(a)] == [int(v) for v in A.fields(xa)]
    assert int(np.asarray(B.to_bits(B.from_fields(*B.fields(a))))) == third


#: true in every format: x ⊗ 1 = x for every non-NaN x
TIMES_ONE = forall("times_one", {"x": Float(not_nan=True)}, goal=lambda s: (s.x * 1).same(s.x), enumerate=True)
#: false: (x ⊗ 3) ⊘ 3 = x fails for some x in [1, 2] (rounding), so no honest enumeration says UNSAT
THIRDS = forall("thirds", {"x": Float(range=(1, 2))}, goal=lambda s: ((s.x * 3) / 3).same(s.x), enumerate=True)


def test_an_enumerated_proof_is_confirmed_by_the_integer_executor():
    r = Engine(solver="portfolio", timeout=60, confirm=True).prove(TIMES_ONE, BF16, {TIMES_ONE.name: TIMES_ONE})
    assert (r.status, r.solver, r.confirmed_by) == ("PROVED", "exhaustive", INTEGER_ENUMERATION)


def test_a_broken_fast_executor_is_caught(monkeypatch):
    """A fast executor that leaves × and ÷ unrounded (host products) computes (x ⊗ 3) ⊘ 3
    as x, so its enumeration says UNSAT for THIRDS; the integer enumeration finds the
    counterexample and the run stops with both answers named."""
    def lying(fmt):
        A = HostArith(fmt)
        A.mul = lambda a, b: np.asarray(a) * np.asarray(b)
        A.div = lambda a, b: np.asarray(a) / np.asarray(b)
        return A
    monkeypatch.setattr(exhaustive, "concrete", lying)
    eng = Engine(solver="portfolio", timeout=60, confirm=True)
    with pytest.raises(Disagreement) as e:
        eng.prove(THIRDS, BF16, {THIRDS.name: THIRDS})
    msg = str(e.value)
    assert "exhaustive said unsat" in msg and f"{INTEGER_ENUMERATION} says sat" in msg, msg


def test_without_the_lie_thirds_is_refuted():
    r = Engine(solver="portfolio", timeout=60, confirm=True).prove(THIRDS, BF16, {THIRDS.name: THIRDS})
    assert r.status == "REFUTED"
