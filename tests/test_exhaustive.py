"""The enumeration back end: pieces as open meshes, threads, the first hit, powers of two."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpsmt.proof import exhaustive as E
from fpsmt.semantics.arith import concrete
from fpsmt.proof.claims import Float, Int, Scope, forall
from fpsmt.proof.encoding import conjunction, parts
from fpsmt.semantics.formats import parse_format, pow2


@settings(max_examples=60, deadline=None)
@given(lens=st.lists(st.integers(1, 7), min_size=0, max_size=4), chunk=st.integers(1, 40))
def test_pieces_cover_the_space_once_in_order(lens, chunk):
    axes = [np.arange(n, dtype=np.uint64) * 10 + i for i, n in enumerate(lens)]
    names = [f"v{i}" for i in range(len(lens))]
    old, E.CHUNK = E.CHUNK, chunk
    try:
        seen = []
        for values, shape in E._chunks(names, axes):
            cols = [np.broadcast_to(values[n], shape).ravel() for n in names]
            seen += list(zip(*[c.tolist() for c in cols])) if names else [()]
    finally:
        E.CHUNK = old
    assert seen == list(itertools.product(*[a.tolist() for a in axes]))


def _first_by_brute_force(f, names, holds):
    pats = [b for b in range(1 << f.nbits) if not f.is_nan(b) or b == f.nan_bits]
    for combo in itertools.product(pats, repeat=len(names)):
        if holds(*combo):
            return dict(zip(names, combo))
    return None


@pytest.mark.parametrize("chunk,workers", [(1 << 20, 2), (1000, 3), (7, 1)])
def test_first_counterexample_is_the_first_in_order_whatever_the_pieces(chunk, workers, monkeypatch):
    """(a ⊕ b) ⊖ b = a fails; enumeration must return the lexicographically first failure
    (an exact-rational brute force finds it independently), for any piece size and threads."""
    from fpsmt.semantics.arith import exact
    f = parse_format("float8_e4m3")
    monkeypatch.setattr(E, "CHUNK", chunk)
    monkeypatch.setattr(E, "WORKERS", workers)
    c = forall("undo", {"a": Float(finite=True), "b": Float(finite=True)}, goal=lambda s: ((s.a + s.b) - s.b).same(s.a))
    got = E.decide(c, f, conjunction(parts(c, "forall")), {}, ["a", "b"])

    def fails(a, b):
        if not (f.is_finite(a) and f.is_finite(b)):
            return False
        return exact.add(f, exact.add(f, a, b), b ^ f.sign_bit) != a
    assert got == ("sat", _first_by_brute_force(f, ["a", "b"], fails))


def test_a_true_claim_is_unsat_and_a_too_large_space_is_refused():
    f = parse_format("float8_e5m2")
    c = forall("comm", {"a": Float(), "b": Float()}, goal=lambda s: (s.a + s.b).same(s.b + s.a))
    assert E.decide(c, f, conjunction(parts(c, "forall")), {}, ["a", "b"]) == ("unsat", None)
    assert E.decide(c, f, conjunction(parts(c, "forall")), {}, ["a", "b"], limit=1000) is None


def test_int_and_float_axes_mix():
    f = parse_format("float8_e4m3")
    c = forall("scale", {"k": Int(-3, 3), "a": Float(range=(1, 2))},
               goal=lambda s: ((s.a * s.k.pow2()) * (-s.k).pow2()).same(s.a))
    assert E.decide(c, f, conjunction(parts(c, "forall")), {}, ["k", "a"]) == ("unsat", None)


@pytest.mark.parametrize("fmt", ["float8_e4m3", "float8_e5m2", "bfloat16", "float16", "float32", "float64",
                                 "e15m112"])
def test_pow2_table_is_2_to_the_k_rounded(fmt):
    """The executor's 2^k (one table lookup) against exact rounding of 2^k, for every k
    from below the zero threshold to above overflow."""
    f = parse_format(fmt)
    A = concrete(f)
    s = Scope(A, f, {})
    lo, hi = f.e_min - f.M - 3, f.e_max + 3
    if f.nbits > 64:
        ks = np.array([lo, lo + 1, lo + 2, f.e_min, 0, f.e_max, hi], dtype=object)
    else:
        ks = np.arange(lo, hi + 1, dtype=np.int64)
    got = np.ravel(A.to_bits(s.pow2(ks).v))
    for k, b in zip(ks, got):
        want = f.inf_bits() if k > f.e_max else f.round(pow2(int(k)))
        assert int(b) == want, (fmt, k)
    assert f.round(Fraction(1, 2) * pow2(f.e_min - f.M)) == 0  # the tie below the least subnormal


def test_enumeration_stops_at_the_deadline_with_unknown(tmp_path):
    import time

    from fpsmt.proof.engine import UNKNOWN, Engine
    from fpsmt.proof.store import Store
    f = parse_format("float8_e4m3")
    c = forall("comm3", {"a": Float(), "b": Float(), "c": Float()},
               goal=lambda s: ((s.a + s.b) + s.c).same((s.b + s.a) + s.c), enumerate=True)
    with pytest.raises(E.TimeUp, match="time limit reached after enumerating"):
        E.decide(c, f, conjunction(parts(c, "forall")), {}, ["a", "b", "c"], deadline=time.monotonic() - 1)
    store = Store(tmp_path / "s.sqlite")
    r = Engine(solver="exhaustive", timeout=1e-3, store=store).prove(c, f, {c.name: c})
    assert r.status == UNKNOWN and "time limit reached after enumerating" in r.reason
    assert store.con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0


def test_the_integer_executor_stops_at_the_deadline_after_one_small_piece():
    """The integer executor (which confirms an enumeration's answer) is slow, and a run's
    deadline is checked between pieces: its pieces hold at most ARITH_CHUNK points, so
    a run past its deadline stops after the first of them, not after 2^20 points."""
    import time

    from fpsmt.semantics.arith.integer import IntegerArith
    f = parse_format("float8_e4m3")
    c = forall("comm3", {"a": Float(), "b": Float(), "c": Float()},
               goal=lambda s: ((s.a + s.b) + s.c).same((s.b + s.a) + s.c), enumerate=True)
    total = int(np.prod([len(a) for a in E.space(c, f, ["a", "b", "c"], E.CLAIM_LIMIT)]))
    with pytest.raises(E.TimeUp) as e:
        E.decide(c, f, conjunction(parts(c, "forall")), {}, ["a", "b", "c"], limit=E.CLAIM_LIMIT,
                 deadline=time.monotonic() - 1, arith=IntegerArith(f))
    assert 0 < e.value.done * total <= E.ARITH_CHUNK < E.CHUNK


def test_enumeration_stops_early_when_its_rate_projects_past_the_deadline(monkeypatch):
    """Every (a, b) of bfloat16 (2^32 points) against a deadline of a few seconds: once the
    rate is measured (here after the first piece: PROJECT_AFTER = 0) the projected end is
    far past the deadline, so it stops there and says so; a space that fits its deadline
    is enumerated to the end under the same setting."""
    import time
    monkeypatch.setattr(E, "PROJECT_AFTER", 0.0)
    f = parse_format("bfloat16")
    c = forall("comm2", {"a": Float(), "b": Float()}, goal=lambda s: (s.a + s.b).same(s.b + s.a))
    with pytest.raises(E.TimeUp, match="would take about") as e:
        E.decide(c, f, conjunction(parts(c, "forall")), {}, ["a", "b"], limit=E.CLAIM_LIMIT,
                 deadline=time.monotonic() + 3)
    assert e.value.done < 1 and e.value.projected > 3
    small = forall("comm1", {"a": Float()}, goal=lambda s: (s.a + 1).same(1 + s.a))
    assert E.decide(small, f, conjunction(parts(small, "forall")), {}, ["a"],
                    deadline=time.monotonic() + 600) == ("unsat", None)


def test_a_wide_space_is_refused_before_anything_is_built(monkeypatch):
    """float32's X has about 2^32 patterns per variable: below CLAIM_LIMIT alone, far above
    it as a pair.  space() must refuse without building an axis of more than LIMIT values
    (a regression: it once built a 32 GB axis first)."""
    from fpsmt.proofs.common import X
    built = []
    real = np.arange

    def counting(*a, **k):
        r = real(*a, **k)
        built.append(r.size)
        return r
    monkeypatch.setattr(E.np, "arange", counting)
    f = parse_format("float32")
    c = forall("pair", {"z": X(), "x": X()}, goal=lambda s: s.x.same(s.x))
    assert E.space(c, f, ["z", "x"], E.CLAIM_LIMIT) is None
    assert max(built, default=0) <= E.LIMIT
    c = forall("huge", {"k": Int(-(1 << 19), 1 << 19), "j": Int(-(1 << 19), 1 << 19)}, goal=lambda s: s.k.eq(s.k))
    assert E.space(c, f, ["k", "j"], 1 << 20) is None


@pytest.mark.parametrize("chunk", [1 << 20, 37])
def test_hypotheses_on_one_variable_narrow_its_axis_and_keep_the_first_hit(chunk, monkeypatch):
    """A hypothesis on one variable (a > 1) cuts that variable's axis before anything is
    enumerated; one on two variables (a < b) is left to the pieces.  The first
    counterexample is the same as a brute force over the whole space finds."""
    from fpsmt.semantics.arith import exact
    f = parse_format("float8_e4m3")
    monkeypatch.setattr(E, "CHUNK", chunk)
    c = forall("undo_given", {"a": Float(finite=True), "b": Float(finite=True)},
               given=lambda s: [s.a > 1, s.a < s.b], goal=lambda s: ((s.a + s.b) - s.b).same(s.a))
    cond = conjunction(parts(c, "forall"))
    axes = E.space(c, f, ["a", "b"])
    narrowed = E._narrow(c, f, concrete(f), cond.hypotheses, {}, ["a", "b"], axes, {})
    assert narrowed[0].tolist() == [a for a in axes[0].tolist() if f.to_fraction(a) > 1]
    assert narrowed[1].tolist() == axes[1].tolist()

    def fails(a, b):
        if not (f.is_finite(a) and f.is_finite(b)):
            return False
        if not 1 < f.to_fraction(a) < f.to_fraction(b):
            return False
        return exact.add(f, exact.add(f, a, b), b ^ f.sign_bit) != a
    assert E.decide(c, f, cond, {}, ["a", "b"]) == ("sat", _first_by_brute_force(f, ["a", "b"], fails))


def test_a_hypothesis_false_everywhere_leaves_nothing_to_enumerate():
    f = parse_format("float8_e5m2")
    c = forall("vacuous", {"a": Float(finite=True), "b": Float()}, given=lambda s: s.a.is_nan(),
               goal=lambda s: s.a.eq(s.b))
    cond = conjunction(parts(c, "forall"))
    assert E._narrow(c, f, concrete(f), cond.hypotheses, {}, ["a", "b"], E.space(c, f, ["a", "b"]), {})[0].size == 0
    assert E.decide(c, f, cond, {}, ["a", "b"]) == ("unsat", None)
