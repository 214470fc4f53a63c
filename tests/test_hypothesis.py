"""``fpsmt counterexample hypothesis``, ``eval --semantics`` and ``construct --semantics``:
breaks found under a dropped hypothesis are replayed (the exact reference inside, ``fpsmt
eval`` on the written files here), and the necessity checker fails on a broken formula."""

import csv
import json

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
              "--json", "--out", str(out_dir))
    assert r.returncode == 0, r.stderr
    entries = json.loads(r.stdout)
    by = {e["lemma"]: e for e in entries}
    assert set(by) == {"construct", "necessity.zero_upstream", "necessity.odd"}
    c = by["construct"]
    assert c["status"] == "REFUTED" and c["replayed"] is True
    assert c["semantics"] == "order=reversed,backward=paper,activation=correct"
    assert c["expected"] != c["obtained"]
    assert by["necessity.zero_upstream"]["status"] == "PROVED"
    assert by["necessity.odd"]["status"] == "PROVED"
    assert sorted(p.name for p in out_dir.iterdir()) == ["0.csv", "0.json"]
    rows = list(csv.reader((out_dir / "0.csv").read_text().splitlines()))
    assert rows[0] == [c["counterexample"]["x"], c["counterexample"]["y"]]  # the break's point first
    for spec, want in (("order=reversed", c["obtained"]), (None, c["expected"])):
        args = ["eval", str(out_dir / "0.json"), "--points", str(out_dir / "0.csv")] + (["--semantics", spec] if spec else [])
        e = fpsmt(*args)
        assert e.returncode == 0, e.stderr
        assert json.loads(e.stdout.splitlines()[0]) == want


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
    (["counterexample", "hypothesis", "--drop", "activation", "--format", "bfloat16"], "not available yet"),
    (["counterexample", "hypothesis", "--format", "bfloat16"], "needs --drop"),
    (["counterexample", "hypothesis", "--drop", "order", "--semantics", "backward=torch", "--format", "bfloat16"],
     "does not drop the order hypothesis"),
    (["counterexample", "hypothesis", "--drop", "backward", "--activation", "gelu", "--format", "bfloat16"],
     "no backward profile applies to gelu"),
    (["counterexample", "hypothesis", "--drop", "order", "--shape", "2-1", "--format", "bfloat16"], "--shape"),
    (["counterexample", "hypothesis", "--drop", "order", "--format", "bfloat16", "--out", "/nonexistent/d"],
     "does not exist"),
    (["counterexample", "associativity", "--drop", "order", "--format", "bfloat16"], "options of counterexample"),
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
