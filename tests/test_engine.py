"""The proof engine: statuses, replayed witnesses, back ends, store, timeouts, refusals."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from fpsmt.semantics.arith import exact

from fpsmt.proof.engine import PROVED, REFUTED, UNKNOWN, Engine, load_claims
from fpsmt.errors import InputError, ReplayMismatch
from fpsmt.semantics.formats import parse_format
from fpsmt.proof.solve import Answer, shutdown
from fpsmt.proof.solve.backends import accepts
from fpsmt.proof.store import Store

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "claims.py"
EXPECTED = {"assoc_witness": PROVED, "mul_one_identity": PROVED, "mul_assoc": REFUTED, "add_exact_small": PROVED}


def prove_all(path, fmt, solver="z3", store=None, **kw):
    claims = load_claims(path)
    eng = Engine(solver=solver, store=store, **kw)
    from fpsmt.proof.engine import order_by_assumptions
    return {c.name: eng.prove(c, parse_format(fmt), claims) for c in order_by_assumptions(list(claims.values()))}


def check_example_witnesses(f, res):
    """Check the witnesses with the exact-rational reference, independently of the engine."""
    a, b, c = (res["assoc_witness"].witness[k] for k in "abc")
    lhs, rhs = exact.mul(f, exact.mul(f, a, b), c), exact.mul(f, a, exact.mul(f, b, c))
    assert f.is_finite(lhs) and f.is_finite(rhs) and not exact.eq(f, lhs, rhs)
    a, b, c = (res["mul_assoc"].witness[k] for k in "abc")
    assert all(f.is_finite(v) for v in (a, b, c))
    assert not exact.eq(f, exact.mul(f, exact.mul(f, a, b), c), exact.mul(f, a, exact.mul(f, b, c)))
    d = res["add_exact_small"].witness["d"]
    X = [b for b in range(f.one_bits, f.from_float(2.0) + 1)] if f.nbits <= 16 else \
        [f.one_bits, f.one_bits + 1, f.from_float(2.0), f.from_float(2.0) - 1, f.from_float(1.5)]
    for x in X:  # every x in [1, 2] for the 16-bit formats
        s = f.round(f.to_fraction(x) + f.to_fraction(d))
        assert s != x and f.round(f.to_fraction(s) - f.to_fraction(d)) == x


@pytest.mark.parametrize("fmt", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("solver", ["z3", "cvc5", "bitwuzla", "portfolio"])
def test_examples_every_backend(fmt, solver):
    f = parse_format(fmt)
    if solver != "portfolio" and not accepts(solver, f.E, f.M)[0]:
        with pytest.raises(InputError, match="choose another"):
            prove_all(EXAMPLES, fmt, solver, timeout=30)
        return
    res = prove_all(EXAMPLES, fmt, solver, timeout=30)
    assert {k: r.status for k, r in res.items()} == EXPECTED
    check_example_witnesses(f, res)
    for r in res.values():
        assert r.solver and (solver == "portfolio" or r.solver == solver)


@pytest.mark.parametrize("fmt", ["float8_e4m3", "float8_e3m4", "float8_e5m2"])
def test_enumeration_agrees_with_solvers_in_8_bit_formats(fmt):
    f = parse_format(fmt)
    ex = prove_all(EXAMPLES, fmt, "exhaustive")
    pf = prove_all(EXAMPLES, fmt, "portfolio", timeout=30)
    assert {k: r.status for k, r in ex.items()} == EXPECTED == {k: r.status for k, r in pf.items()}
    check_example_witnesses(f, ex)
    check_example_witnesses(f, pf)


def test_staged_proof_and_int_variables(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    res = prove_all(HERE / "claims" / "staged.py", "bfloat16", "z3", store)
    assert {k: r.status for k, r in res.items()} == {
        "stage": PROVED, "chain": PROVED, "no_neutral": REFUTED, "pow2_inverse": PROVED, "pow2_normal": PROVED,
        "pow2_subnormal_or_zero": PROVED}
    assert res["chain"].assumed == ["stage"]
    k = res["pow2_inverse"].witness["k"]
    assert k != 0 and -20 <= k <= 20
    # a later run proves `chain` alone: its assumption is found in the store
    claims = load_claims(HERE / "claims" / "staged.py")
    r = Engine(store=store, recheck=True).prove(claims["chain"], parse_format("bfloat16"), claims)
    assert r.status == PROVED and not r.cached


def test_assuming_an_unproved_claim_is_refused(tmp_path):
    claims = load_claims(HERE / "claims" / "staged.py")
    eng = Engine(store=Store(tmp_path / "empty.sqlite"))
    with pytest.raises(InputError, match="assumes stage, but it is not proved in bfloat16"):
        eng.prove(claims["chain"], parse_format("bfloat16"), claims)


def test_store_answers_decided_claims_and_recheck_solves_again(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    first = prove_all(EXAMPLES, "float16", "z3", store)
    again = prove_all(EXAMPLES, "float16", "z3", store)
    assert all(not r.cached for r in first.values()) and all(r.cached for r in again.values())
    assert {k: r.witness for k, r in first.items()} == {k: r.witness for k, r in again.items()}
    forced = prove_all(EXAMPLES, "float16", "z3", store, recheck=True)
    assert all(not r.cached for r in forced.values())
    other = prove_all(EXAMPLES, "float16", "bitwuzla", store)  # another solver is another key
    assert all(not r.cached for r in other.values())
    row = store.con.execute("SELECT smt2, seconds, solver_version FROM results LIMIT 1").fetchone()
    assert b"" != row[0] and json.loads(row[1]) and row[2]


def test_timeout_gives_unknown_and_stores_nothing(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    res = prove_all(HERE / "claims" / "hard.py", "float64", "z3", store, timeout=2)
    r = res["sterbenz"]
    assert r.status == UNKNOWN and "no answer within" in r.reason
    assert store.con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0


def test_replay_catches_a_wrong_model():
    claims = load_claims(EXAMPLES)
    f = parse_format("float16")
    eng = Engine()
    one = f.one_bits
    bogus = Answer("sat", {"a": one, "b": one, "c": one}, "fake-solver", 0.0)
    with pytest.raises(ReplayMismatch, match="fake-solver.*not goal"):
        eng._replay(claims["mul_assoc"], f, claims, bogus, "forall")


def test_confirm_rechecks_unsat_with_a_second_solver():
    res = prove_all(EXAMPLES, "float32", "z3", confirm=True, timeout=30)
    assert res["mul_one_identity"].confirmed_by in ("cvc5", "bitwuzla", "bitwuzla-bv")
    res = prove_all(EXAMPLES, "float8_e5m2", "portfolio", confirm=True, timeout=30)
    r = res["mul_one_identity"]  # bitwuzla-bv or cvc5's experimental mode, and the other or the enumeration
    assert r.status == PROVED and r.confirmed_by in ("exhaustive", "cvc5 (experimental)", "bitwuzla-bv")
    assert r.confirmed_by != r.solver


def test_an_unconfirmable_experimental_unsat_says_how_to_decide_it(monkeypatch):
    """A format taken by cvc5's experimental mode only (float8_e5m2 with bitwuzla-bv
    refused, as when Z3 refuses it and the bit-vector encoding is not there): its UNSAT on a
    space too large to enumerate on the way stays UNKNOWN, and the reason names the back end
    that decides it."""
    from fpsmt.proof import solve as solve_mod
    from fpsmt.proof.claims import Float, forall
    ok, experimental, _ = accepts("cvc5", 5, 2)
    assert ok and experimental, "this cvc5 build does not take float8_e5m2 in its experimental mode"
    real = solve_mod.accepts
    monkeypatch.setattr(solve_mod, "accepts", lambda b, E, M: (False, False, "refused here") if b == "bitwuzla-bv"
                        else real(b, E, M))
    f = parse_format("float8_e5m2")
    c = forall("comm4", {n: Float(finite=True) for n in "abcd"},  # 248 finite values each
               goal=lambda s: ((s.a + s.b) + (s.c + s.d)).same((s.c + s.d) + (s.a + s.b)))
    r = Engine(solver="portfolio", timeout=60).prove(c, f, {c.name: c})
    assert r.status == UNKNOWN and "cannot confirm" in r.reason
    assert f"--solver exhaustive decides it by enumeration (at most {248 ** 4:.3g} points" in r.reason


def test_confirm_in_bfloat16_uses_a_second_back_end_and_reaches_stored_answers(tmp_path):
    """A Z3 UNSAT over a space too large to enumerate is checked, in bfloat16, by
    bitwuzla-bv or cvc5's experimental FP mode (the other back ends that take the
    format); one over a small space is enumerated first.  An answer stored without
    --confirm is checked when --confirm asks for it later, and the store records who
    confirmed it."""
    from fpsmt.proof.claims import Float, forall
    f = parse_format("bfloat16")
    seconds = ("bitwuzla-bv", "cvc5 (experimental)")
    comm = forall("comm", {"a": Float(), "b": Float()}, goal=lambda s: (s.a + s.b).same(s.b + s.a))  # 2^32 points
    store = Store(tmp_path / "s.sqlite")
    first = Engine(solver="z3", store=store, timeout=60).prove(comm, f, {"comm": comm})
    assert first.status == PROVED and not first.confirmed_by
    again = Engine(solver="z3", store=store, confirm=True, timeout=60).prove(comm, f, {"comm": comm})
    assert again.cached and again.confirmed_by in seconds
    assert store.get(again.key)["detail"]["confirmed_by"] == again.confirmed_by
    fresh = Engine(solver="z3", confirm=True, timeout=60).prove(comm, f, {"comm": comm})
    assert fresh.status == PROVED and fresh.confirmed_by in seconds
    one = prove_all(EXAMPLES, "bfloat16", "z3", confirm=True, timeout=60)["mul_one_identity"]  # 2^16 points
    assert one.status == PROVED and one.confirmed_by == "exhaustive"


# ------------------------------------------------------------ the CLI
SCRIPT = Path(sys.executable).parent / "fpsmt"


from conftest import fpsmt  # noqa: E402


def test_prove_json(tmp_path):
    r = fpsmt("prove", str(EXAMPLES), "--format", "bfloat16", "--json", "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["claim"], x["status"]) for x in rows] == list(EXPECTED.items())
    for x in rows:
        assert set(x) >= {"claim", "format", "status", "witness", "solver", "seconds", "cached"}
        assert all(v.startswith("0x") for v in x["witness"].values())
    r = fpsmt("prove", f"{EXAMPLES}:mul_assoc", "--format", "float16", "--json", "--store", str(tmp_path / "s.sqlite"))
    assert [x["status"] for x in json.loads(r.stdout)] == ["REFUTED"]


@pytest.mark.parametrize("args,word", [
    (["prove", "nope.py", "--format", "bf16"], "claim file nope.py does not exist"),
    (["prove", str(EXAMPLES) + ":nope", "--format", "bf16"], "no claim named 'nope'"),
    (["prove", str(EXAMPLES), "--format", "bf16", "--solver", "yices"], "unknown solver"),
    (["prove", str(EXAMPLES), "--format", "float7"], "unknown format"),
    (["prove", str(EXAMPLES), "--format", "e5m2", "--solver", "z3"], "choose another --solver"),
    (["prove", str(HERE / "claims" / "staged.py") + ":chain", "--format", "bf16"], "prove stage first"),
])
def test_prove_bad_input(tmp_path, args, word):
    r = fpsmt(*args, "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2, r.stderr
    assert word in r.stderr and "Traceback" not in r.stderr and r.stdout == ""


def test_claim_files_that_are_wrong(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import nonexistent_module_xyz\n")
    r = fpsmt("prove", str(bad), "--format", "bf16", "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2 and "does not import" in r.stderr
    bad.write_text("from fpsmt.proof.claims import forall\nx = forall('x', {'v': 'float'}, goal=lambda s: s.v > 0)\n")
    r = fpsmt("prove", str(bad), "--format", "bf16", "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2 and "unsupported domain" in r.stderr
    bad.write_text("X = 1\n")
    r = fpsmt("prove", str(bad), "--format", "bf16", "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2 and "defines no claims" in r.stderr
    bad.write_text("from fpsmt.proof.claims import Float, forall\n"
                   "x = forall('x', {'v': Float()}, goal=lambda s: s.v > 0.1)\n")
    r = fpsmt("prove", str(bad), "--format", "bf16", "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2 and "not representable" in r.stderr


def test_missing_solver_is_bad_input(monkeypatch, capsys):
    import fpsmt.proof.solve as solve
    from fpsmt.commands.cli import main
    monkeypatch.setattr(solve, "installed", lambda name: name != "cvc5")
    assert main(["prove", str(EXAMPLES), "--format", "float32", "--solver", "cvc5"]) == 2
    assert "cvc5 is not installed" in capsys.readouterr().err


def _children(pid):
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        out |= {int(c) for c in (task / "children").read_text().split()}
    return out


def test_killed_run_leaves_the_store_consistent(tmp_path):
    db = tmp_path / "s.sqlite"
    fpsmt("prove", str(EXAMPLES) + ":mul_one_identity", "--format", "float16", "--store", str(db))
    cmd = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "fpsmt.commands.cli"]
    p = subprocess.Popen([*cmd, "prove", str(HERE / "claims" / "hard.py"), "--format", "float64",
                          "--timeout", "120", "--store", str(db)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
    deadline = time.monotonic() + 60
    workers = set()
    while time.monotonic() < deadline and not workers:  # wait until the solver works
        time.sleep(0.3)
        workers = _children(p.pid)
    assert workers, "the solver worker never started"
    time.sleep(1.0)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    con = sqlite3.connect(str(db))
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert [r[0] for r in con.execute("SELECT claim FROM results")] == ["mul_one_identity"]
    con.close()
    time.sleep(2.5)  # workers notice their parent is gone
    assert not [w for w in workers if Path(f"/proc/{w}").exists() and
                "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]]
    r = fpsmt("prove", str(EXAMPLES), "--format", "float16", "--store", str(db), "--json")
    assert r.returncode == 0 and [x["cached"] for x in json.loads(r.stdout)] == [False, True, False, False]


@pytest.mark.parametrize("backend", ["cvc5", "bitwuzla", "z3"])
def test_a_solver_busy_in_a_query_dies_with_its_killed_parent(backend):
    """cvc5's and Bitwuzla's bindings hold the GIL while solving, so a worker cannot
    watch its parent from a thread; the kernel must kill it (a regression: orphaned
    workers went on solving after ``fpsmt`` was killed)."""
    from fpsmt.proof.solve.backends import installed
    assert installed(backend), f"{backend} is a required dependency and is not installed"
    cmd = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "fpsmt.commands.cli"]
    p = subprocess.Popen([*cmd, "prove", str(HERE / "claims" / "hard.py"), "--format", "float64",
                          "--solver", backend, "--timeout", "300"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    busy, deadline = [], time.monotonic() + 60
    while time.monotonic() < deadline and not busy:  # a child using the CPU: the worker solving
        time.sleep(0.3)
        for c in _children(p.pid):
            try:
                fields = Path(f"/proc/{c}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[11]) + int(fields[12]) > 20:  # utime + stime, clock ticks
                busy.append(c)
    assert busy, "no solver worker started working"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    time.sleep(1.5)
    alive = [w for w in busy if Path(f"/proc/{w}").exists() and
             Path(f"/proc/{w}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not alive, f"{backend} worker {alive} outlived its parent"


def teardown_module():
    shutdown()


@pytest.mark.parametrize("fmt", ["float64", "bfloat16"])
def test_int_pow2_reaches_subnormals_of_wide_formats(fmt):
    """2^k of an Int variable, symbolic: the subnormal branch shifts up to bit M − 1 (51 in
    float64, wider than the 32-bit integers); every k of the subnormal and normal range."""
    from fpsmt.proof.claims import Int, forall
    f = parse_format(fmt)
    c = forall("pow2", {"k": Int(f.e_min - f.M, f.e_max)},
               goal=lambda s: (s.k.pow2() > 0) & s.k.pow2().is_finite()
               & (s.k >= f.e_min).implies(s.k.pow2().exponent().eq(s.k))
               & (s.k < f.e_min).implies(s.k.pow2().is_subnormal()))
    r = Engine(timeout=120).prove(c, f, {"pow2": c})
    assert r.status == "PROVED", r.reason


def test_range_values_of_wide_and_narrow_ranges():
    """The patterns a ranged float enumerates: a superset of the range, every pattern once;
    None (not a crash) where the range is too large — float64's [0, 2^1021] was once
    counted with a negative run and allocated."""
    from fpsmt.proof.claims import Float
    from fpsmt.proof.exhaustive import _range_values
    from fpsmt.semantics.formats import parse_format
    f = parse_format("bfloat16")
    for lo, hi in ((0, 1), (-1, 1), (-2, -1), (1, 2), (0, 0)):
        got = _range_values(f, Float(range=(lo, hi)))
        assert len(set(got.tolist())) == len(got)
        inside = {b for b in range(1 << 16) if f.is_finite(b) and lo <= f.to_fraction(b) <= hi}
        assert inside <= set(got.tolist()) and all(f.is_finite(int(b)) for b in got)
        assert len(got) == len(inside)
    for name in ("float64", "float32"):
        g = parse_format(name)
        assert _range_values(g, Float(range=(0, g.hex(g.max_bits)))) is None


def test_a_changed_fingerprint_decides_the_answer_again(tmp_path, monkeypatch):
    """Answers depend on the executor and encoder code, not only on the query text: with
    another fingerprint (as after a change to the semantics layer) the store's answer is
    not served and the claim is decided again; an assumed claim no longer counts as proved."""
    from fpsmt.proof import store as store_module
    store = Store(tmp_path / "s.sqlite")
    first = prove_all(EXAMPLES, "float16", "z3", store)
    again = prove_all(EXAMPLES, "float16", "z3", store)
    assert all(r.cached for r in again.values())
    stmt = store.con.execute("SELECT statement FROM results WHERE status = 'PROVED' LIMIT 1").fetchone()[0]
    assert store.proved(stmt)
    monkeypatch.setattr(store_module, "_fingerprint", ["another"])
    assert not store.proved(stmt)
    changed = prove_all(EXAMPLES, "float16", "z3", store)
    assert all(not r.cached for r in changed.values())
    assert {k: r.status for k, r in changed.items()} == {k: r.status for k, r in first.items()}
