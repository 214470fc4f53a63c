"""The solver-free evaluator of Conditions 1–3 against the solver (issue 5, item 7).

8-bit formats: every condition decided over every input (all pairs) must agree with the
solver, and every solver witness must pass the evaluator.  16-bit: the solver's witnesses
are re-checked with C1's ∀ clauses over every input (default suite), and the full pair
decisions agree with the solver (bfloat16 by default, float16 slow-marked).  float32 and
float64: every witness is re-checked (its quantifier-free clauses, exactly).
"""

import importlib
from pathlib import Path

import numpy as np
import pytest

from fpsmt.proof import crosscheck as cc
from fpsmt.semantics.activations import PAPER_SIX, get_activation
from fpsmt.proof.conditions import run
from fpsmt.proof.engine import Engine
from fpsmt.semantics.formats import parse_format

HERE = Path(__file__).resolve().parent
conditions = importlib.import_module("fpsmt.specs.conditions")


def solver_rows(acts, fmt):
    return run(Engine(solver="portfolio", timeout=120), acts, [fmt])


def agree(rows, values_of):
    for r in rows:
        f = parse_format(r["format"])
        V = values_of(r["activation"], f)
        v = cc.decide(r["activation"], f, r["condition"], V)
        assert v.holds == (r["status"] == "PROVED"), (r, v)
        if r["status"] == "PROVED":
            w = {k: (f.parse_hex(x) if isinstance(x, str) else x) for k, x in r["witness"].items()}
            bad, forall_checked = cc.check_witness(r["activation"], f, r["condition"], w, r["branch"], V)
            assert bad == [] and forall_checked, (r, bad)


def _values_cache():
    cache = {}

    def values_of(a, f):
        if (a, f) not in cache:
            cache[(a, f)] = cc.Values(get_activation(a), f)
        return cache[(a, f)]
    return values_of


@pytest.mark.parametrize("fmt", ["float8_e4m3", "float8_e3m4", "float8_e5m2"])
def test_8_bit_all_inputs_agree_with_the_solver(fmt):
    agree(solver_rows(list(PAPER_SIX), fmt), _values_cache())


@pytest.mark.slow
@pytest.mark.soundness
def test_bfloat16_agrees_with_the_solver():
    agree(solver_rows(list(PAPER_SIX), "bfloat16"), _values_cache())


@pytest.mark.slow
@pytest.mark.soundness
def test_float16_witnesses_with_forall_clauses_over_every_input():
    """The default-suite share of float16: three activations, every witness re-checked with
    C1's ∀ clauses over all 63,488 finite inputs (the one-variable parts)."""
    rows = solver_rows(["relu", "sigmoid", "tanh"], "float16")
    vals = _values_cache()
    for r in rows:
        f = parse_format(r["format"])
        assert r["status"] == "PROVED", r
        w = {k: (f.parse_hex(x) if isinstance(x, str) else x) for k, x in r["witness"].items()}
        assert cc.check_witness(r["activation"], f, r["condition"], w, r["branch"],
                                vals(r["activation"], f)) == ([], True)


@pytest.mark.slow
def test_float16_all_pairs_agree_with_the_solver():
    agree(solver_rows(list(PAPER_SIX), "float16"), _values_cache())


@pytest.mark.parametrize("fmt", ["float32", pytest.param("float64", marks=pytest.mark.slow)])
def test_wide_format_witnesses_recheck(fmt):
    """relu and sigmoid in the default suite (the others are in the slow test below)."""
    _wide(["relu", "sigmoid"], fmt)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["float32", "float64"])
def test_wide_format_witnesses_recheck_all_six(fmt):
    _wide(list(PAPER_SIX), fmt)


def _wide(acts, fmt):
    f = parse_format(fmt)
    for r in solver_rows(acts, fmt):
        if r["status"] != "PROVED":
            continue
        w = {k: (f.parse_hex(x) if isinstance(x, str) else x) for k, x in r["witness"].items()}
        bad, complete = cc.check_witness(r["activation"], f, r["condition"], w, r["branch"])
        assert bad == [] and complete == (r["condition"] != "C1"), (r, bad)  # C1's ∀ clauses: 2^32+ inputs


# ------------------------------------------------------------ the evaluator can say no
def test_negative_controls_by_enumeration():
    """Same findings as the solver's (tests/test_specs.py), by the independent route, in an
    8-bit and a 16-bit format: identity fails C2 only; cosine fails C1 only; σ ≡ 1 fails all."""
    ident = str(HERE / "activations" / "identity.py") + ":ident"
    for fmt in ("float8_e4m3", "bfloat16"):
        f = parse_format(fmt)
        for act, want in ((ident, (True, False, True)), ("cos", (False, True, True))):
            V = cc.Values(get_activation(act), f)
            assert tuple(cc.decide(act, f, c, V).holds for c in ("C1", "C2", "C3")) == want, (act, fmt)


def test_constant_activation_fails_everything(tmp_path):
    src = tmp_path / "const.py"
    src.write_text("def one(x, m):\n    return m.mpf(1)\n\n\ndef one_prime(x, m):\n    return m.mpf(0)\n")
    f = parse_format("float8_e4m3")
    act = f"{src}:one"
    V = cc.Values(get_activation(act), f)
    assert [cc.decide(act, f, c, V).holds for c in ("C1", "C2", "C3")] == [False, False, False]
    claim = conditions.C2(act)
    assert Engine(timeout=60).prove(claim, f, {"C2": claim}).status == "REFUTED"


def test_a_wrong_witness_is_caught():
    f = parse_format("bfloat16")
    V = cc.Values(get_activation("relu"), f)
    good = cc.decide("relu", f, "C2", V).witness
    assert cc.check_witness("relu", f, "C2", good, values=V) == ([], True)
    swapped = {**good, "d0": good["d1"], "d1": good["d0"]}
    assert cc.check_witness("relu", f, "C2", swapped, values=V)[0]
    assert cc.check_witness("relu", f, "C2", {**good, "eta1": good["eta1"] + 200}, values=V)[0]
    c1 = cc.decide("relu", f, "C1", V).witness
    assert cc.check_witness("relu", f, "C1", {**c1, "c1": f.one_bits}, values=V)[0]


def test_forall_clause_sees_a_single_bad_input():
    """Break σ at one input strictly between c1 and c2: the ∀ clause of C1(a) must notice."""
    f = parse_format("bfloat16")
    V = cc.Values(get_activation("relu"), f)
    w = cc.decide("relu", f, "C1", V).witness
    lo, hi = sorted((f.to_fraction(w["c1"]), f.to_fraction(w["c2"])))
    inside = [i for i, x in enumerate(V.x) if lo < x < hi and x != 0]
    assert inside
    V.s = V.s.copy()
    V.s[inside[len(inside) // 2]] = 100.0
    assert "between" in " ".join(cc.check_witness("relu", f, "C1", w, values=V)[0])


def test_decode_matches_the_format():
    f = parse_format("float16")
    bits = np.arange(1 << 16, dtype=np.uint64)
    got = cc.decode(f, bits)
    for b in (0, 1, 0x3C00, 0x7BFF, 0x8001, 0xFC00, 0x7E00, 0x0400):
        want = f.to_float(b)
        assert (np.isnan(want) and np.isnan(got[b])) or got[b] == want
