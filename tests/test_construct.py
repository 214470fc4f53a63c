"""The ReLU construction (fpsmt.constructions.relu) and its lemmas (proofs/, fpsmt reproduce).

Independent of the solver: in 8-bit formats the repaired lemmas are decided by
enumeration of all their variables (the executor, --solver exhaustive; slow suite) and
must agree with the SMT answer; in bfloat16 the executor runs the blocks for every x of
X at a set of z that includes the extremes, and for every z at a set of x.
"""

import json
from fractions import Fraction

import numpy as np
import pytest

from fpsmt.constructions import relu as C
from fpsmt.semantics.arith import concrete as executor
from fpsmt.proof.engine import Engine
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run
from fpsmt.proof.lemmas import lemma_names

def _rows(name, variant, fmt, solver, store=None):
    from fpsmt.proof.lemmas import run
    return run(Engine(solver=solver, timeout=7200, store=store), [name], [variant], [fmt])


@pytest.fixture(scope="module")
def stage_store(tmp_path_factory):
    """One results store for the module's runs: a stage shared by two lemmas (the
    theorem re-uses the gradient atom's) is decided once per back end, as in
    ``fpsmt reproduce``."""
    from fpsmt.proof.store import Store
    return Store(tmp_path_factory.mktemp("stages") / "results.sqlite")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["float8_e4m3", "float8_e3m4", "float8_e5m2"])
@pytest.mark.parametrize("variant", ["released", "repaired"])
@pytest.mark.parametrize("name", lemma_names())
def test_every_lemma_8_bit_enumeration_agrees_with_smt(name, variant, fmt, stage_store):
    """Every lemma row (and the block-count rows) decided by enumerating every stage's
    whole space in the executor, against the solvers.  The gradient atom's gate_top and
    layer stages (four floats each) take the longest: tens of minutes per format.  Nodes
    that enumeration cannot decide — an operation left uninterpreted (the gradient atom's
    congruence of ⊗, the theorem's approx.congruence), or more points than it takes — are
    UNKNOWN there, saying so, and must be PROVED by the solvers; every other node agrees."""
    from fpsmt.proof.tree import walk_json
    by_enum = _rows(name, variant, fmt, "exhaustive", stage_store)
    by_smt = _rows(name, variant, fmt, "portfolio", stage_store)
    for e, s in zip(by_enum, by_smt):
        smt_nodes = {n["name"]: n for n in walk_json(s.get("tree") or {}) if "status" in n}
        big = [n for n in walk_json(e.get("tree") or {})  # the row's reason names each UNKNOWN node's
               if n.get("status") == "UNKNOWN" and f"{n['name']}: the space of" in (e.get("reason") or "")]
        for n in big:
            assert smt_nodes[n["name"]]["status"] == "PROVED", (n, smt_nodes[n["name"]])
        if big:
            assert e["status"] == "UNKNOWN", e
            for n in walk_json(e["tree"]):
                if "status" in n and n not in big:
                    assert n["status"] == smt_nodes[n["name"]]["status"] or smt_nodes[n["name"]]["status"] == "UNKNOWN", n
            continue
        assert e["status"] != "UNKNOWN", e["reason"]
        if s["status"] == "UNKNOWN":
            # float8_e5m2: only cvc5's experimental mode takes it; an UNSAT of it that no other
            # back end can confirm, on a space too large to enumerate on the way, stays UNKNOWN
            assert "cannot confirm" in s["reason"] and "--solver exhaustive decides it" in s["reason"], s
            assert e["status"] == "PROVED", (e, s)
            continue
        assert e["status"] == s["status"], (e, s)
        if e["status"] == "REFUTED":
            assert e["counterexample"]  # replayed by the engine
    # the repaired blocks hold in these formats except the cancellation block where e_max < p
    if variant == "repaired" and by_enum[0]["status"] != "UNKNOWN":
        bad = (name in ("cancellation_block",) and fmt == "float8_e3m4")
        assert by_enum[0]["status"] == ("REFUTED" if bad else "PROVED"), by_enum[0]


from conftest import x_domain as _x_domain  # noqa: E402


def _run(f, net, xs, y_bits):
    A = executor(f)
    t = run(A, net, A.const(xs)[:, None], A.const(np.full((len(xs), 1), y_bits, dtype=np.uint64)))
    return np.ravel(A.to_bits(t.out)), np.ravel(A.to_bits(t.grad))


def _zero(f, bits):
    return np.array([f.is_finite(int(b)) and f.to_fraction(int(b)) == 0 for b in bits])


def _extreme_zs(f, xs, rng, n):
    top = f.round(Fraction(2) ** (f.e_max - 2))
    special = [0, f.sign_bit, 1, f.sign_bit | 1, 1 << f.M, (1 << f.M) - 1, top, top | f.sign_bit, f.one_bits,
               f.next_down(f.one_bits), f.next_down(top)]
    return special + [int(z) for z in rng.choice(xs, n)]


@pytest.mark.parametrize("builder,truth", [
    (C.step_ge, lambda x, z: x >= z), (C.step_le, lambda x, z: x <= z), (C.point, lambda x, z: x == z)])
def test_bfloat16_repaired_indicators_every_x(builder, truth):
    f = parse_format("bfloat16")
    xs = _x_domain(f)
    xv = np.array([f.to_fraction(int(b)) for b in xs])
    for z in _extreme_zs(f, xs, np.random.default_rng(7), 6):
        out, grad = _run(f, C.concrete(builder, f, z), xs, f.max_bits)  # y = Ω: the largest upstream
        want = np.where(truth(xv, f.to_fraction(z)), f.one_bits, 0).astype(np.uint64)
        assert (out == want).all(), f.show(z)
        assert _zero(f, grad).all(), f.show(z)


@pytest.mark.parametrize("n", [pytest.param(12), pytest.param(3000, marks=pytest.mark.slow)])
def test_bfloat16_repaired_indicators_all_x_at_many_z_and_all_z_at_many_x(n):
    """The executor, independently of every solver: the three repaired indicators of
    bfloat16 at n random z for every x of X, and at n random x for every z of X (one
    network per z, run with per-sample weights), value exact and D^AD(Ω) = ±0; likewise
    the values of the released step indicators for z ≠ 0 (their rows are decided by
    enumerating every (z, x) pair through the claim machinery; this is a second,
    simpler path through the executor)."""
    from fpsmt.proof.claims import F, Scope
    f = parse_format("bfloat16")
    A = executor(f)
    s = Scope(A, f, {})
    X = _x_domain(f)
    rng = np.random.default_rng(n)
    omega = A.const(np.uint64(f.max_bits))
    Z = X[[not f.is_zero(int(b)) for b in X]]
    cases = [(C.step_ge, np.greater_equal, C.REPAIRED, X), (C.step_le, np.less_equal, C.REPAIRED, X),
             (C.point, np.equal, C.REPAIRED, X), (C.step_ge, np.greater_equal, C.RELEASED, Z),
             (C.step_le, np.less_equal, C.RELEASED, Z)]
    for builder, truth, variant, Zs in cases:
        for zs, xs in ((rng.choice(Zs, n, replace=False), X), (Zs, rng.choice(X, n, replace=False))):
            for i in range(0, len(zs), max(1, (1 << 21) // len(xs))):
                zc = zs[i:i + max(1, (1 << 21) // len(xs))]
                net, P = builder(s, F(s, A.const(zc[:, None])), variant)
                t = run(A, net, A.const(xs)[None, :, None], np.broadcast_to(omega, (len(zc), len(xs), 1)),
                        params={k: v.v for k, v in P.items()})
                xv, zv = np.asarray(A.const(xs), dtype=np.float64), np.asarray(A.const(zc), dtype=np.float64)
                want = np.where(truth(xv[None, :], zv[:, None]), f.one_bits, 0)
                assert (np.asarray(A.to_bits(t.out))[..., 0] == want).all(), (builder.__name__, variant)
                if variant == C.REPAIRED:
                    assert (np.asarray(A.to_bits(t.grad))[..., 0] & ~np.uint64(f.sign_bit) == 0).all(), builder.__name__


def test_bfloat16_repaired_point_indicator_every_z():
    f = parse_format("bfloat16")
    zs = _x_domain(f)
    for x in _extreme_zs(f, zs, np.random.default_rng(3), 8):
        A = executor(f)
        for z in zs[:: 997]:
            out, grad = _run(f, C.concrete(C.point, f, int(z)), np.asarray([x], dtype=np.uint64), f.max_bits)
            assert out[0] == (f.one_bits if f.to_fraction(int(z)) == f.to_fraction(x) else 0)
            assert _zero(f, grad).all()
        del A


@pytest.mark.parametrize("v", [-1e30, -0.0, "max"])
def test_bfloat16_zero_gradient_atom(v):
    f = parse_format("bfloat16")
    vb = f.max_bits if v == "max" else f.from_float(v)
    xs = _x_domain(f)
    for z in _extreme_zs(f, xs, np.random.default_rng(11), 1)[::2]:
        out, grad = _run(f, C.concrete(C.zero_gradient_atom, f, z, vb), xs, f.max_bits)
        at = np.array([f.to_fraction(int(x)) == f.to_fraction(z) for x in xs])
        assert (out[at] == vb).all() and _zero(f, out[~at]).all() and _zero(f, grad).all(), f.show(z)


def test_released_atom_gives_nan_for_large_v():
    """BRIEF §5.1: y ⊗ v = ∞ meets ReLU'(0) = 0 — the executor shows the NaN directly."""
    f = parse_format("bfloat16")
    net = C.concrete(C.zero_gradient_atom, f, f.from_float(3.0), f.from_float(3.5), variant="released")
    _, grad = _run(f, net, np.asarray([0], dtype=np.uint64), f.max_bits)
    assert f.is_nan(int(grad[0]))


def test_concrete_networks_have_no_params():
    f = parse_format("float32")
    net = C.concrete(C.zero_gradient_atom, f, f.from_float(0.75), f.from_float(-2.0))
    assert net.params() == [] and net.depth == 8


# ------------------------------------------------------------------ fpsmt reproduce
from conftest import fpsmt  # noqa: E402


def test_reproduce_json_and_report(tmp_path):
    report = tmp_path / "r.md"
    r = fpsmt("reproduce", "--format", "float8_e4m3", "--lemma", "step_indicator_ge,multiplication_transfer",
              "--variant", "repaired", "--json", "--store", str(tmp_path / "s.sqlite"), "--report", str(report))
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["lemma"], x["status"]) for x in rows] == [("step_indicator_ge", "PROVED"),
                                                          ("multiplication_transfer", "PROVED")]
    for x in rows:
        assert set(x) == {"lemma", "activation", "variant", "format", "semantics", "status", "statement",
                          "counterexample", "solver", "seconds", "confirmed", "tree"}
        assert x["semantics"] == "order=left,backward=paper,activation=correct"
        assert x["statement"].startswith(("for all", "for every"))
        assert x["confirmed"]["stages"] >= 1 and x["confirmed"]["unconfirmed"] == []  # confirmation is the default
    assert "| step_indicator_ge | relu | repaired | float8_e4m3 | PROVED" in report.read_text()


def test_reproduce_no_confirm_leaves_the_unsat_answers_unconfirmed(tmp_path):
    r = fpsmt("reproduce", "--format", "float8_e4m3", "--lemma", "multiplication_transfer", "--variant", "repaired",
              "--no-confirm", "--json", "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"))
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row["status"] == "PROVED" and row["confirmed"]["unconfirmed"]  # nobody checked them


def test_reproduce_confirm_reports_which_unsat_answers_a_second_back_end_checked(tmp_path):
    report = tmp_path / "r.md"
    r = fpsmt("reproduce", "--format", "float8_e4m3", "--lemma", "multiplication_transfer", "--json",
              "--store", str(tmp_path / "s.sqlite"), "--report", str(report))
    assert r.returncode == 0, r.stderr
    released, repaired = json.loads(r.stdout)
    assert released["status"] == "REFUTED" and released["confirmed"]["stages"] == 0
    assert repaired["status"] == "PROVED" and repaired["confirmed"]["stages"] >= 1
    assert repaired["confirmed"]["unconfirmed"] == [] and repaired["confirmed"]["by"]
    n = repaired["confirmed"]["stages"]
    assert f"| {n}/{n} by " in report.read_text() and "confirmed |" in report.read_text()


def test_reproduce_released_atom_is_refuted_with_a_counterexample(tmp_path):
    r = fpsmt("reproduce", "--format", "float8_e4m3", "--lemma", "zero_gradient_atom", "--variant", "released",
              "--json", "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"))
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row["status"] == "REFUTED" and set(row["counterexample"]) == {"z", "x", "v", "y"}


@pytest.mark.parametrize("fmt,n", [("float8_e4m3", 5), pytest.param("float8_e5m2", 3, marks=pytest.mark.slow)])
def test_reproduce_block_count_rows(tmp_path, fmt, n):
    """The smallest repair of the released zero-gradient atom's block count: n − 1 blocks
    REFUTED with a replayed counterexample, n blocks PROVED (all (v, y) enumerated)."""
    from fpsmt.proofs.cancellation_block import blocks_needed
    assert blocks_needed(parse_format(fmt)) == n
    r = fpsmt("reproduce", "--format", fmt, "--lemma", "cancellation_block", "--json",
              "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"))
    assert r.returncode == 0, r.stderr
    rows = [x for x in json.loads(r.stdout) if "cancellation blocks then" in x["statement"]]
    assert [(x["variant"], x["status"], x["statement"].split(" ")[0]) for x in rows] == [
        ("released", "REFUTED", str(n - 1)), ("repaired", "PROVED", str(n))]
    assert set(rows[0]["counterexample"]) == {"v", "y"}


def test_reproduce_takes_variants_as_a_list(tmp_path):
    """--variant, like --format and --lemma, repeats or separates with commas."""
    r = fpsmt("reproduce", "--format", "float8_e4m3", "--lemma", "multiplication_transfer", "--variant",
              "released,repaired", "--json", "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"))
    assert r.returncode == 0, r.stderr
    assert [(x["variant"], x["status"]) for x in json.loads(r.stdout)] == [("released", "REFUTED"),
                                                                           ("repaired", "PROVED")]


@pytest.mark.parametrize("args,word", [
    (["--lemma", "nope"], "unknown lemma"), (["--variant", "both"], "unknown variant"),
    (["--variant", "repaired,both"], "unknown variant"), (["--variant", ","], "--variant names nothing"),
    (["--format", "float7"], "unknown format")])
def test_reproduce_bad_input(tmp_path, args, word):
    r = fpsmt("reproduce", *args, "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"))
    assert r.returncode == 2 and word in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "r.md").exists()


def test_trace_gives_each_layers_upstream_gradient():
    """s.run(..., trace=True): the gradient reaching the last layer is y itself, and the
    one reaching layer k's output is what layer k+1's backward step received."""
    from fpsmt.proof.claims import Scope
    f = parse_format("bfloat16")
    A = executor(f)
    s = Scope(A, f, {})
    net = C.concrete(C.point, f, f.from_float(1.5))
    out, grad, (pre, post, up) = s.run(net, [s.const(1.5)], [s.const(-3.0)], trace=True)
    assert len(pre) == len(post) == len(up) == net.depth
    assert int(A.to_bits(up[-1][0].v)) == f.from_float(-3.0)
    assert [int(A.to_bits(v.v)) for v in post[4]] == [f.one_bits, f.one_bits]  # 1[x >= z], 1[x <= z] at x = z
    assert [int(A.to_bits(v.v)) for v in up[4]] == [f.from_float(-3.0)] * 2  # y ⊗ 1 into both step blocks
    assert int(A.to_bits(out[0].v)) == f.one_bits and f.to_fraction(int(A.to_bits(grad[0].v))) == 0
