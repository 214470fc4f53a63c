"""``fpsmt counterexample hypothesis``, ``eval --semantics`` and ``construct --semantics``:
breaks found under a dropped hypothesis are replayed (the exact reference inside, ``fpsmt
eval`` on the written files here), and the necessity checker fails on a broken formula."""

import csv
import json
import re

import pytest

from fpsmt.commands import hypothesis as H
from fpsmt.proof.engine import Engine
from fpsmt.semantics import network as N
from fpsmt.semantics.formats import parse_format

from conftest import fpsmt


def test_a_reversed_order_breaks_the_relu_network_and_the_files_replay(tmp_path):
    out_dir = tmp_path / "breaks"  # created by the command (its parent exists)
    r = fpsmt("counterexample", "hypothesis", "--drop", "order", "--semantics", "order=reversed",
              "--format", "float8_e4m3", "--store", str(tmp_path / "s.sqlite"), "--timeout", "120",
              "--lemma", "step_indicator_ge,cancellation_block,boxplus_neutrality", "--json", "--out", str(out_dir))
    assert r.returncode == 0, r.stderr
    entries = json.loads(r.stdout)
    by = {e["lemma"]: e for e in entries}
    assert {"construct", "necessity.zero_upstream", "necessity.odd", "step_indicator_ge",
            "boxplus_neutrality"} <= set(by)
    c = by["construct"]
    assert c["status"] == "REFUTED" and c["replayed"] is True
    assert c["semantics"] == "order=reversed,backward=paper,activation=correct"
    assert c["expected"] != c["obtained"]
    assert by["necessity.zero_upstream"]["status"] == "PROVED"
    assert by["necessity.odd"]["status"] == "PROVED"
    refuted = [e for e in entries if e["status"] == "REFUTED"]
    assert refuted[0] is not None and refuted[0]["lemma"] == "construct"
    assert {e["lemma"] for e in refuted} >= {"construct", "boxplus_neutrality"}  # (v ⊕ −w) ⊕ w ≠ v
    assert by["step_indicator_ge"]["status"] == "PROVED"
    n = len(refuted)
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(f"{i}.{x}" for i in range(n) for x in ("csv", "json"))
    rows = list(csv.reader((out_dir / "0.csv").read_text().splitlines()))
    assert rows[0] == [c["counterexample"]["x"], c["counterexample"]["y"]]  # the break's point first
    for i, e in enumerate(refuted):  # every written break replays in `fpsmt eval`, both semantics
        assert e["replayed"] is True and e["files"] == [str(out_dir / f"{i}.json"), str(out_dir / f"{i}.csv")]
        for spec, want in (("order=reversed", e["obtained"]), (None, e["expected"])):
            args = ["eval", str(out_dir / f"{i}.json"), "--points", str(out_dir / f"{i}.csv")] + \
                (["--semantics", spec] if spec else [])
            ev = fpsmt(*args)
            assert ev.returncode == 0, ev.stderr
            got = json.loads(ev.stdout.splitlines()[0])
            assert got["f"][:len(want["f"])] == want["f"], (e["lemma"], got, want)
            if want["grad"]:
                assert got["grad"][:1] == want["grad"], (e["lemma"], got, want)


def test_library_gelu_breaks_the_gelu_network(tmp_path):
    """NumPy's GELU in bfloat16 (ml_dtypes, float32 steps) overflows where the construction
    relies on the correctly rounded one: every point of the network breaks."""
    r = fpsmt("counterexample", "hypothesis", "--drop", "activation", "--semantics", "activation=numpy",
              "--activation", "gelu", "--format", "bfloat16", "--store", str(tmp_path / "s.sqlite"),
              "--timeout", "10", "--lemma", "none", "--json")  # the lemma entries: tests/test_survival.py
    assert r.returncode == 0, r.stderr
    c = next(e for e in json.loads(r.stdout) if e["lemma"] == "construct")
    assert c["status"] == "REFUTED" and c["replayed"] and c["broken_points"] == 16
    assert c["semantics"] == "order=left,backward=paper,activation=numpy"


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_the_necessity_checker_refutes_a_broken_backward_formula(monkeypatch):
    """A backward formula that adds 1 to the gradient makes D(±0) nonzero and D not odd: both
    necessities are REFUTED, with counterexamples the executor replays."""
    formulas = dict(N.BACKWARD_FORMULAS)
    formulas["test_plus_one"] = lambda A, act, g, z, y: A.add(g, A.one())
    monkeypatch.setattr(N, "BACKWARD_FORMULAS", formulas)
    fmt = parse_format("float8_e4m3")
    sem = N.Semantics(backward=(("*", "test_plus_one"),))
    entries = H.necessity_entries(Engine(solver="z3", timeout=120), fmt, "relu", [sem], "backward")
    assert [(e["lemma"], e["status"], e["replayed"]) for e in entries] == [
        ("necessity.zero_upstream", "REFUTED", True), ("necessity.odd", "REFUTED", True)]
    # and the paper's formula keeps both
    ok = H.necessity_entries(Engine(solver="z3", timeout=120), fmt, "relu", [N.PAPER], "backward")
    assert [e["status"] for e in ok] == ["PROVED", "PROVED"]


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_construct_reports_the_points_a_profile_breaks(tmp_path):
    r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", "bfloat16",
              "--out", str(tmp_path / "n.json"), "--semantics", "order=reversed", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verified"] == doc["points"] and doc["out"]  # built and verified for the paper's semantics
    s = doc["semantics"]
    assert s["spec"] == "order=reversed,backward=paper,activation=correct"
    assert s["broken"] and s["met"] + len(s["broken"]) == doc["points"]
    # each broken point, run by fpsmt eval under the profile, gives what the report says
    (tmp_path / "p.csv").write_text("".join(f"{b['x']},0x3f80\n" for b in s["broken"]))  # h* = 1
    e = fpsmt("eval", str(tmp_path / "n.json"), "--points", str(tmp_path / "p.csv"), "--semantics", "order=reversed")
    assert [json.loads(ln) for ln in e.stdout.splitlines()] == [{"f": [b["f"]], "grad": [b["grad"]]} for b in s["broken"]]


@pytest.mark.parametrize("args,word", [
    (["counterexample", "hypothesis", "--drop", "exponent", "--format", "bfloat16"], "has E = 8"),
    (["counterexample", "hypothesis", "--drop", "gradient-bound", "--format", "bfloat16"], "no finite |y| exceeds it"),
    (["counterexample", "hypothesis", "--drop", "domain", "--semantics", "order=reversed", "--format", "bfloat16"],
     "keeps the paper's semantics"),
    (["counterexample", "hypothesis", "--drop", "activation", "--format", "float32"], "no activation profile applies"),
    (["counterexample", "hypothesis", "--format", "bfloat16"], "needs --drop"),
    (["counterexample", "hypothesis", "--drop", "order", "--semantics", "backward=torch", "--format", "bfloat16"],
     "does not drop the order hypothesis"),
    (["counterexample", "hypothesis", "--drop", "backward", "--activation", "gelu", "--format", "bfloat16"],
     "no backward profile applies to gelu"),
    (["counterexample", "hypothesis", "--drop", "order", "--shape", "2-1", "--format", "bfloat16"], "--shape"),
    (["counterexample", "hypothesis", "--drop", "order", "--format", "bfloat16", "--out", "/nonexistent/d"],
     "does not exist"),
    (["counterexample", "associativity", "--drop", "order", "--format", "bfloat16"], "options of counterexample"),
    (["counterexample", "hypothesis", "--drop", "order", "--format", "bfloat16", "--lemma", "rect_theorem_3_1"],
     "whole-block claim or its Theorem 3.1 row"),
    (["eval", "example:decoupling_bf16.json", "--points", "example:decoupling_bf16_points.csv",
      "--semantics", "order=sideways"], "unknown summation order"),
    (["eval", "example:decoupling_bf16.json", "--points", "example:decoupling_bf16_points.csv",
      "--semantics", "order=wide:float8_e4m3"], "wider than bfloat16"),
])
def test_bad_input_is_one_line_and_exit_2(args, word, tmp_path):
    r = fpsmt(*args, "--store", str(tmp_path / "s.sqlite")) if args[0] == "counterexample" else fpsmt(*args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and word in lines[0], r.stderr
    assert r.stdout == ""


class _Identity:
    """A stand-in construction whose network is x ↦ x: it meets targets f* = x, g* = 1 at
    h* = 1, and is not silent beyond X — the domain entry must say so."""

    activation = "identity-test"

    def constants(self, fmt):
        from fractions import Fraction
        return type("C", (), {"M_sigma": Fraction(4), "H_sigma": Fraction(4)})()

    def network(self, fmt, points):
        from fpsmt.semantics.network import Layer, Network
        return Network(fmt, [Layer.dense([[fmt.one_bits]], [fmt.sign_bit], "relu"),
                             Layer.dense([[fmt.one_bits]], [fmt.sign_bit], "identity")])


def test_the_input_hypotheses_refute_a_network_that_is_not_silent():
    f = parse_format("bfloat16")
    base = [(f.from_float(v), f.from_float(v), f.one_bits, f.one_bits) for v in (1.0, 2.0, 3.0)]
    e, _, _ = H.input_entry("domain", f, _Identity(), base)
    assert e["status"] == "REFUTED" and e["replayed"]
    assert e["counterexample"] == {"x": "0x4081", "y": f.hex(f.one_bits)}  # 4.03125, the next float above M = 4
    assert e["expected"] == {"f": ["0x0000"], "grad": ["0x0000"]}
    assert e["obtained"] == {"f": ["0x4081"], "grad": [f.hex(f.one_bits)]}


class _Tiny(_Identity):
    """x ↦ (x ⊗ 2^-120) ⊗ 2^-20: zero value, and D(y) = (y ⊗ 2^-20) ⊗ 2^-120 underflows to
    ±0 for every |y| < 64 but not for the largest floats."""

    def network(self, fmt, points):
        from fpsmt.semantics.network import Layer, Network
        return Network(fmt, [Layer.dense([[fmt.from_float(2.0 ** -120)]], [fmt.sign_bit], "relu"),
                             Layer.dense([[fmt.from_float(2.0 ** -20)]], [fmt.sign_bit], "identity")])


def test_the_gradient_bound_entry_refutes_a_network_silent_only_below_the_bound():
    f = parse_format("bfloat16")
    base = [(f.from_float(v), 0, f.one_bits, 0) for v in (1.0, 2.0, 3.0)]
    g, _, _ = H.input_entry("gradient-bound", f, _Tiny(), base)
    assert g["status"] == "REFUTED" and g["replayed"]
    assert g["counterexample"]["y"] in (f.hex(f.max_bits), f.hex(f.max_bits | f.sign_bit))
    assert g["obtained"]["grad"] != ["0x0000"] and g["expected"]["grad"] == ["0x0000"]
    assert H.input_entry("gradient-bound", f, _Tiny(), base[:0] + [base[0]])[0]["broken_points"] == 2  # ±max only


CLAIMS_WITH_PROFILES = '''from fpsmt.proof.claims import Float, forall
from fpsmt.semantics.network import Layer, Network


def _goal(s):
    f = s.fmt
    w = [f.from_float(v) for v in (256.0, 1.0, 1.0)]
    net = Network(f, [Layer.dense([w], [f.sign_bit], "identity")])
    out, _ = s.run(net, [s.x, s.x, s.x], [s.const(1)])
    return [s.x.eq(1).implies(out[0].eq(258))]


sum_left = forall("sum_left", {"x": Float(finite=True)}, goal=_goal)
sum_reversed = forall("sum_reversed", {"x": Float(finite=True)}, goal=_goal, semantics="order=reversed")
'''


def test_a_claim_names_its_profile(tmp_path):
    """256·x ⊕ x ⊕ x at x = 1 in bfloat16: 256 left to right (REFUTED, replayed at x = 1),
    258 right to left (PROVED) — the same goal, two profiles, two answers."""
    (tmp_path / "c.py").write_text(CLAIMS_WITH_PROFILES)
    r = fpsmt("prove", str(tmp_path / "c.py"), "--format", "bfloat16", "--store", str(tmp_path / "s.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    got = {d["claim"]: d for d in json.loads(r.stdout)}
    assert got["sum_left"]["status"] == "REFUTED" and got["sum_left"]["witness"] == {"x": "0x3f80"}
    assert got["sum_left"]["semantics"] == "order=left,backward=paper,activation=correct"
    assert got["sum_reversed"]["status"] == "PROVED"
    assert got["sum_reversed"]["semantics"] == "order=reversed,backward=paper,activation=correct"
    # prove --semantics gives the claims that name no profile that one; the others keep theirs
    r = fpsmt("prove", str(tmp_path / "c.py"), "--format", "bfloat16", "--store", str(tmp_path / "s.sqlite"),
              "--semantics", "order=pairwise", "--json")
    assert r.returncode == 0, r.stderr
    got = {d["claim"]: d for d in json.loads(r.stdout)}
    assert got["sum_left"]["semantics"] == "order=pairwise,backward=paper,activation=correct"
    assert got["sum_left"]["status"] == "PROVED"  # 256 ⊕ (1 ⊕ 1) = 258: the pairwise split at ⌊3/2⌋ = 1
    assert got["sum_reversed"]["semantics"] == "order=reversed,backward=paper,activation=correct"
    for bad_spec, msg in (("order=wide:float8_e4m3", "wider than bfloat16"), ("order=sideways", "unknown summation")):
        b = fpsmt("prove", str(tmp_path / "c.py"), "--format", "bfloat16", "--semantics", bad_spec)
        assert b.returncode == 2 and msg in b.stderr and len(b.stderr.strip().splitlines()) == 1, b.stderr
    (tmp_path / "bad.py").write_text(CLAIMS_WITH_PROFILES.replace("order=reversed", "order=sideways"))
    b = fpsmt("prove", str(tmp_path / "bad.py"), "--format", "bfloat16", "--store", str(tmp_path / "s.sqlite"))
    assert b.returncode == 2 and "unknown summation order" in b.stderr and len(b.stderr.strip().splitlines()) == 1


def test_a_replay_that_disagrees_names_both_values():
    from fpsmt.errors import FpsmtError
    f = parse_format("bfloat16")
    net = _Identity().network(f, [])
    x = f.from_float(2.0)
    assert H.exact_replay(net, x, f.one_bits, N.PAPER, (x, f.one_bits)) == (x, f.one_bits)
    with pytest.raises(FpsmtError, match="f = 0x4040, D = 0x3f80; the exact reference f = 0x4000, D = 0x3f80"):
        H.exact_replay(net, x, f.one_bits, N.PAPER, (f.from_float(3.0), f.one_bits))


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_necessities_hold_for_every_order(tmp_path):
    """Under order=any the permutations of the 1-3-1 network's three-term sums are ∀
    variables of the necessity claims: both PROVED for every order; the construct network,
    whose rows are far too wide to encode every order of, runs order=reversed, one of them,
    and misses (REFUTED, the entry naming order=reversed)."""
    r = fpsmt("counterexample", "hypothesis", "--drop", "order", "--semantics", "order=any", "--shape", "1-3-1",
              "--format", "float8_e4m3", "--store", str(tmp_path / "s.sqlite"), "--timeout", "300",
              "--lemma", "zero_gradient_atom,boxplus_neutrality", "--json")
    assert r.returncode == 0, r.stderr
    by = {e["lemma"]: e for e in json.loads(r.stdout)}
    # the zero-gradient atom survives every order; the ⊞ row does not (an order may split w, −w around v)
    assert by["zero_gradient_atom"]["status"] == "PROVED"
    assert by["boxplus_neutrality"]["status"] == "REFUTED" and by["boxplus_neutrality"]["replayed"]
    assert by["construct"]["status"] == "REFUTED" and by["construct"]["semantics"].startswith("order=reversed,")
    assert by["necessity.zero_upstream"]["status"] == "PROVED"
    assert by["necessity.odd"]["status"] == "PROVED"


STAIRCASE = """from fractions import Fraction as Fr
def domain():
    return [Fr(0), Fr(1)]
def f_star(x):
    return Fr(0)
def g_star(x, y):
    a, s = abs(y), (1 if y > 0 else -1)
    if a < Fr(1, 2):
        return Fr(0)
    if a < 4:
        return s * Fr(1, 2)
    if a < 64:
        return s * 12
    return s * Fr(1, 4)
"""


def test_construct_under_a_profile_for_theorem_3_2_targets(tmp_path):
    """A Theorem 3.2 network in float8_e4m3 (three thresholds), built and verified for the
    paper's semantics, checked again at every (x, y) under a profile: wide:float32 breaks
    pairs (the staircase's steps round in the format, not in float32) — each listed pair
    recomputed by `fpsmt eval` (a whole-network run, not the block-aware one) under the
    profile gives the listed value, and the paper's semantics the target; reversed keeps
    every pair (two-term sums)."""
    (tmp_path / "t.py").write_text(STAIRCASE)
    runs = {}
    for spec in ("order=wide:float32", "order=reversed"):
        r = fpsmt("construct", "--targets", str(tmp_path / "t.py"), "--format", "float8_e4m3", "--out",
                  str(tmp_path / "n.json"), "--semantics", spec, "--json")
        assert r.returncode == 0, r.stderr
        runs[spec] = json.loads(r.stdout)["semantics"]
    assert runs["order=reversed"]["met"] == runs["order=reversed"]["pairs"] == 480
    wide = runs["order=wide:float32"]
    assert 0 < wide["met"] < wide["pairs"] and wide["broken"]
    rows = [[b["x"], b["y"]] for b in wide["broken"] if b["what"] == "D(y)"][:5]
    with open(tmp_path / "p.csv", "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    for spec, key in (("order=wide:float32", "got"), (None, "want")):
        e = fpsmt("eval", str(tmp_path / "n.json"), "--points", str(tmp_path / "p.csv"),
                  *(["--semantics", spec] if spec else []))
        assert e.returncode == 0, e.stderr
        got = [json.loads(line)["grad"][0] for line in e.stdout.splitlines()]
        want = [b[key] for b in wide["broken"] if b["what"] == "D(y)"][:5]
        assert got == want, (spec, got, want)


def test_one_implementation_within_one_ulp_breaks_the_network_and_eval_replays_it(tmp_path):
    """Under activation=ulp:1 the construct entry is a search for one implementation (σ or
    σ' moved one float at one input, a function): the entry names it in its semantics
    (step=…), and fpsmt eval with that semantics gives what the entry obtained, without it
    what the paper's semantics gives.  The necessities are decided over every
    implementation within one ulp."""
    out_dir = tmp_path / "breaks"
    r = fpsmt("counterexample", "hypothesis", "--drop", "activation", "--semantics", "activation=ulp:1",
              "--format", "float8_e4m3", "--store", str(tmp_path / "s.sqlite"), "--lemma", "none", "--json",
              "--out", str(out_dir))
    assert r.returncode == 0, r.stderr
    by = {e["lemma"]: e for e in json.loads(r.stdout)}
    c = by["construct"]
    assert c["status"] == "REFUTED" and c["replayed"] is True
    assert c["semantics"].startswith("order=left,backward=paper,activation=ulp:1,step=relu:")
    assert by["necessity.zero_upstream"]["status"] == "PROVED" and by["necessity.odd"]["status"] == "PROVED"
    pts = str(out_dir / "0.csv")
    got = fpsmt("eval", str(out_dir / "0.json"), "--points", pts, "--semantics", c["semantics"])
    assert json.loads(got.stdout.splitlines()[0]) == c["obtained"]
    paper = fpsmt("eval", str(out_dir / "0.json"), "--points", pts)
    assert json.loads(paper.stdout.splitlines()[0]) == c["expected"] != c["obtained"]


def test_a_stepped_implementation_moves_one_input_only():
    """SteppedAt: σ at the named pattern moved k floats, every other input correctly
    rounded — checked on every float8_e4m3 pattern against the activation itself, in the
    executor and the exact reference."""
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.arith.exact import ExactArith
    import numpy as np
    fmt = parse_format("float8_e4m3")
    act = get_activation("tanh")
    sem = N.parse_semantics("activation=ulp:2,step=tanh:derivative:0x38:-2")
    assert sem.spec == "order=left,backward=paper,activation=ulp:2,step=tanh:derivative:0x38:-2"
    assert N.parse_semantics(sem.spec) == sem and not sem.chooses
    every = np.arange(1 << fmt.nbits, dtype=np.uint64)
    for A in (concrete(fmt), ExactArith(fmt)):
        z = A.const(np.asarray(every, dtype=object) if isinstance(A, ExactArith) else every)
        right = np.asarray(A.to_bits(act.derivative(A, z)), dtype=np.int64)
        given = np.asarray(A.to_bits(sem.act_of(act).derivative(A, z)), dtype=np.int64)
        values = np.asarray(A.to_bits(sem.act_of(act).value(A, z)), dtype=np.int64)
        assert (values == np.asarray(A.to_bits(act.value(A, z)), dtype=np.int64)).all()
        moved = np.flatnonzero(right != given)
        assert moved.tolist() == [0x38]
        assert fmt.to_fraction(int(given[0x38])) < fmt.to_fraction(int(right[0x38]))  # two floats down
        assert int(right[0x38]) - int(given[0x38]) == 2  # a positive σ': two patterns down


@pytest.mark.parametrize("spec,word", [
    ("step=relu:value:0x0:+1", "needs activation=ulp:K"),
    ("activation=ulp:1,step=relu:val:0x0:+1", "not ACTIVATION:value|derivative"),
    ("activation=ulp:1,step=relu:value:0x0:+2", "not within 1 ulps"),
    ("activation=ulp:1,step=relu:value:0x1ffff:+1", "not a pattern of bfloat16"),
    ("activation=ulp:1", "step=ACTIVATION"),
])
def test_a_bad_step_is_one_line_and_exit_2(spec, word):
    r = fpsmt("eval", "example:decoupling_bf16.json", "--points", "example:decoupling_bf16_points.csv",
              "--semantics", spec)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and word in lines[0], r.stderr
    assert r.stdout == ""


def test_a_theorem_row_is_refuted_under_ulp_1_by_one_implementation(tmp_path):
    """reproduce's Theorem 3.1 row under activation=ulp:1: REFUTED by one implementation
    within one ulp.  The row's network (the construct network on the one target it names)
    is rebuilt here and run by fpsmt eval under that implementation: the f and D^AD the row
    reports, and under the paper's semantics the targets."""
    from fpsmt.commands.netio import write_network
    from fpsmt.constructions.registry import get_construction
    r = fpsmt("reproduce", "--activation", "relu", "--lemma", "theorem_3_1_relu", "--format", "float8_e4m3",
              "--semantics", "activation=ulp:1", "--store", str(tmp_path / "s.sqlite"),
              "--report", str(tmp_path / "r.md"), "--json")
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row["status"] == "REFUTED" and "the one target" in row["statement"]
    cex = row["counterexample"]
    spec = re.search(r"fpsmt eval --semantics (\S+)\)", row["statement"]).group(1)
    assert spec.startswith("order=left,backward=paper,activation=ulp:1,step=relu:")
    fmt = parse_format("float8_e4m3")
    cons = get_construction("relu")
    (point,) = [p for p in H.targets_for(H.NETWORK_TARGETS, fmt, cons, H.NETWORK_POINTS) if fmt.hex(p[0]) == cex["x"]]
    write_network(cons.network(fmt, [point]), tmp_path / "n.json")
    (tmp_path / "p.csv").write_text(f"{cex['x']},{cex['y']}\n")
    got = fpsmt("eval", str(tmp_path / "n.json"), "--points", str(tmp_path / "p.csv"), "--semantics", spec)
    assert json.loads(got.stdout) == {"f": [cex["f"]], "grad": [cex["D"]]}
    paper = json.loads(fpsmt("eval", str(tmp_path / "n.json"), "--points", str(tmp_path / "p.csv")).stdout)
    assert paper["f"] == [cex["f*"]] and paper != {"f": [cex["f"]], "grad": [cex["D"]]}


def test_order_any_refutes_the_theorem_row_by_the_reversed_order(tmp_path):
    """Under order=any the Theorem 3.1 row runs one of its orders, order=reversed: the row
    is REFUTED with the point the reversed network misses, and the hypothesis search's
    construct entry names order=reversed, which fpsmt eval replays from the written files."""
    r = fpsmt("reproduce", "--activation", "relu", "--lemma", "theorem_3_1_relu", "--format", "float8_e4m3",
              "--semantics", "order=any", "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"),
              "--json")
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row["semantics"] == "order=any,backward=paper,activation=correct" and row["status"] == "REFUTED"
    assert "order=reversed,backward=paper,activation=correct, one of order=any" in row["statement"]
    out_dir = tmp_path / "breaks"
    h = fpsmt("counterexample", "hypothesis", "--drop", "order", "--semantics", "order=any", "--format",
              "float8_e4m3", "--store", str(tmp_path / "s.sqlite"), "--lemma", "none", "--json", "--out", str(out_dir))
    assert h.returncode == 0, h.stderr
    c = next(e for e in json.loads(h.stdout) if e["lemma"] == "construct")
    assert c["status"] == "REFUTED" and c["semantics"] == "order=reversed,backward=paper,activation=correct"
    got = fpsmt("eval", str(out_dir / "0.json"), "--points", str(out_dir / "0.csv"), "--semantics", c["semantics"])
    assert json.loads(got.stdout.splitlines()[0]) == c["obtained"] != c["expected"]


def test_a_named_implementation_is_a_profile_claims_are_decided_under(tmp_path):
    """step=… names one implementation: reproduce decides a whole-block claim under it (no
    step variables: the claim is about that one function) — relu(+0) moved to the least
    subnormal breaks the step indicator (the model replayed in the executor), relu'(1)
    moved one float down does not touch it; the Theorem 3.1 row runs its network."""
    r = fpsmt("reproduce", "--activation", "relu", "--lemma", "step_indicator_ge,theorem_3_1_relu", "--format",
              "float8_e4m3", "--semantics", "activation=ulp:1,step=relu:value:0x0:+1", "--semantics",
              "activation=ulp:1,step=relu:derivative:0x38:-1", "--store", str(tmp_path / "s.sqlite"),
              "--report", str(tmp_path / "r.md"), "--json")
    assert r.returncode == 0, r.stderr
    rows = {(x["lemma"], x["semantics"].rsplit("step=", 1)[1]): x for x in json.loads(r.stdout)}
    broken = rows[("step_indicator_ge", "relu:value:0x0:+1")]
    assert broken["status"] == "REFUTED" and not any(k.startswith("ulp") for k in broken["counterexample"])
    assert rows[("step_indicator_ge", "relu:derivative:0x38:-1")]["status"] == "PROVED"
    assert rows[("theorem_3_1_relu", "relu:value:0x0:+1")]["status"] == "REFUTED"
