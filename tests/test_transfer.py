"""A Theorem 3.1 row carried to a profile that keeps the paper's order and changes only how
activations are computed — backward formulas, implementations given as tables
(fpsmt.proof.transfer): its claims, where they fail, and the row in ``reproduce``."""

import json

import numpy as np
import pytest

from fpsmt.proof import transfer
from fpsmt.proof.engine import Engine
from fpsmt.semantics.activations import get_activation
from fpsmt.semantics.arith import concrete
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import PAPER, paper_backward, parse_semantics

from conftest import fpsmt

E4M3 = parse_format("float8_e4m3")


def _decide(activation, spec, fmt=E4M3):
    sem = parse_semantics(spec)
    claims = transfer.claims([activation], sem)
    registry = {c.name: c for c in claims}
    eng = Engine(solver="z3", timeout=120)
    return {c.name: eng.prove(c, fmt, registry) for c in claims}


def test_only_profiles_with_the_paper_s_order_and_one_implementation_transfer():
    assert transfer.applies(parse_semantics("backward=torch"))
    assert transfer.applies(parse_semantics("backward=jax"))
    assert transfer.applies(parse_semantics("backward=torch,activation=numpy"))
    assert not transfer.applies(PAPER)
    assert not transfer.applies(parse_semantics("order=reversed"))
    assert not transfer.applies(parse_semantics("order=reversed,backward=torch"))
    assert not transfer.applies(parse_semantics("activation=ulp:1"))  # every implementation: a choice
    assert not transfer.applies(parse_semantics("activation=ulp:1,step=relu:value:0x0:+1"))
    # the implementation's σ is claimed equal to the correctly rounded one only where it is another
    names = [c.name for c in transfer.claims(["relu"], parse_semantics("activation=numpy"))]
    assert names[0] == "transfer.value.relu" and "transfer.value.relu" not in [
        c.name for c in transfer.claims(["relu"], parse_semantics("backward=torch"))]


@pytest.mark.parametrize("spec", ["backward=torch", "backward=jax"])
def test_relu_s_framework_backward_steps_keep_the_relation(spec):
    """PyTorch's and JAX's ReLU backward (selects) against u ⊗ ReLU'(z): every claim PROVED
    in float8_e4m3 (for every z, u, u' of the format)."""
    got = _decide("relu", spec)
    assert {n: r.status for n, r in got.items()} == {n: "PROVED" for n in got}
    assert set(got) == {"transfer.step.relu", "transfer.step.identity", "transfer.add", "transfer.mul",
                        "transfer.conclusion"}


def test_a_relation_without_its_zero_clause_is_refuted(monkeypatch):
    """R without "both zeros": torch's relu backward gives +0 where u ⊗ 0 is −0 (u < 0, z <= 0),
    so the step claim is REFUTED — the check fails on a wrong relation."""
    monkeypatch.setattr(transfer, "related", lambda a, b: a.is_nan() | a.same(b))
    got = _decide("relu", "backward=torch")
    r = got["transfer.step.relu"]
    assert r.status == "REFUTED"
    mine, other = _steps("relu", "backward=torch", r.witness_json())
    assert E4M3.is_zero(mine) and E4M3.is_zero(other) and mine != other


def _steps(activation, spec, witness):
    """The paper's backward step at the witness (u) and the profile's (u'), in the executor."""
    w = {k: np.asarray([int(v, 16)], dtype=np.uint64) for k, v in witness.items()}
    A = concrete(E4M3)
    act = get_activation(activation)
    z, u, u2 = (A.const(w[k]) for k in ("z", "u", "u2"))
    y = act.value(A, z)
    mine = int(np.ravel(A.to_bits(paper_backward(A, act, u, z, y)))[0])
    other = int(np.ravel(A.to_bits(parse_semantics(spec).backward_formula(act)(A, act, u2, z, y)))[0])
    return mine, other


@pytest.mark.parametrize("activation, spec", [("sigmoid", "backward=torch"), ("tanh", "backward=jax")])
def test_a_rounding_backward_formula_does_not_transfer(activation, spec):
    """PyTorch's sigmoid backward (g ⊗ (1 ⊖ y)) ⊗ y and JAX's tanh rule change values: the
    step claim is REFUTED, and at its witness the executor's two backward steps differ
    beyond a zero's sign (u = u')."""
    got = _decide(activation, spec)
    r = got[f"transfer.step.{activation}"]
    assert r.status == "REFUTED"
    mine, other = _steps(activation, spec, r.witness_json())
    assert not E4M3.is_nan(mine)
    assert mine != other and not (E4M3.is_zero(mine) and E4M3.is_zero(other))


def _row(*args):
    p = fpsmt("reproduce", "--format", "float8_e4m3", "--json", *args)
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(p.stdout)
    return row


def test_a_theorem_row_under_a_rounding_backward_formula_says_why_nothing_transfers(tmp_path):
    row = _row("--activation", "sigmoid", "--lemma", "logi_theorem_3_1", "--semantics", "backward=torch",
               "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"))
    assert row["status"] == "UNKNOWN"
    assert "the transfer from the paper's semantics does not apply: transfer.step.sigmoid is REFUTED" in row["statement"]


@pytest.mark.slow  # about a minute: the paper's tree of theorem_3_1_relu in float8_e4m3
def test_theorem_3_1_relu_is_proved_under_torch_s_backward(tmp_path):
    """The row PROVED under backward=torch: its tree is the paper's tree of theorem_3_1_relu
    and the transfer's five claims, every UNSAT confirmed."""
    row = _row("--activation", "relu", "--lemma", "theorem_3_1_relu", "--semantics", "backward=torch",
               "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"))
    assert row["status"] == "PROVED" and not row["confirmed"]["unconfirmed"]
    assert row["semantics"] == "order=left,backward=torch,activation=correct"
    kids = [k["name"] for k in row["tree"]["children"]]
    assert kids == ["theorem_3_1_relu", "transfer"]
    assert [k["status"] for k in row["tree"]["children"][1]["children"]] == ["PROVED"] * 5


def _hypothesis(tmp_path, *args):
    p = fpsmt("counterexample", "hypothesis", "--drop", "backward", "--format", "float8_e4m3", "--points", "4",
              "--store", str(tmp_path / "s.sqlite"), "--json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_hypothesis_search_says_why_a_theorem_row_does_not_transfer(tmp_path):
    """counterexample hypothesis --drop backward takes the Theorem 3.1 row as a lemma entry:
    under sigmoid's framework formulas the step claim is REFUTED, so the row is decided by
    its network, which meets its targets: UNKNOWN, saying both."""
    entries = _hypothesis(tmp_path, "--activation", "sigmoid", "--lemma", "logi_theorem_3_1")
    rows = [e for e in entries if e["lemma"] == "logi_theorem_3_1"]
    assert [e["semantics"] for e in rows] == ["order=left,backward=torch,activation=correct",
                                              "order=left,backward=jax,activation=correct"]
    for e in rows:
        assert e["status"] == "UNKNOWN" and e["hypothesis"] == "backward"
        assert "transfer.step.sigmoid is REFUTED" in e["reason"] and "a check, not a proof" in e["reason"]
    assert {e["lemma"] for e in entries} == {"construct", "logi_theorem_3_1", "necessity.zero_upstream",
                                             "necessity.odd"}


@pytest.mark.slow  # about half a minute: the paper's tree of theorem_3_1_relu in float8_e4m3
def test_the_hypothesis_search_proves_relu_s_theorem_under_both_frameworks(tmp_path):
    """Where no break exists the answer is a proof: theorem_3_1_relu PROVED under
    backward=torch and backward=jax by transfer, for every target, not only the construct
    entry's points."""
    entries = _hypothesis(tmp_path, "--activation", "relu", "--lemma", "theorem_3_1_relu")
    rows = [e for e in entries if e["lemma"] == "theorem_3_1_relu"]
    assert [(e["semantics"].split(",")[1], e["status"]) for e in rows] == [("backward=torch", "PROVED"),
                                                                           ("backward=jax", "PROVED")]
    assert all(e["method"].startswith("transfer from the paper's semantics") for e in rows)


def _value_claim(activation, spec, fmt):
    (c,) = [c for c in transfer.claims([activation], parse_semantics(spec)) if c.name == f"transfer.value.{activation}"]
    return Engine(solver="z3", timeout=120).prove(c, fmt, {c.name: c})


def test_an_implementation_that_changes_a_value_does_not_transfer():
    """NumPy's tanh in float8_e4m3 differs from the correctly rounded tanh (a model the
    executor replays): transfer.value.tanh is REFUTED; NumPy's relu is ReLU at every
    pattern: PROVED."""
    got = _value_claim("tanh", "activation=numpy", E4M3)
    assert got.status == "REFUTED"
    z = int(got.witness_json()["z"], 16)
    A = concrete(E4M3)
    act = get_activation("tanh")
    impl = parse_semantics("activation=numpy").act_of(act)
    zz = A.const(np.asarray([z], dtype=np.uint64))
    assert int(A.to_bits(impl.value(A, zz))[0]) != int(A.to_bits(act.value(A, zz))[0])
    assert _value_claim("relu", "activation=numpy", E4M3).status == "PROVED"


def test_torch_s_relu_changes_the_sign_of_a_zero():
    """PyTorch's relu in bfloat16 gives −0 at −0, where the correctly rounded ReLU gives
    +0: transfer.value.relu is REFUTED there."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]
    got = _value_claim("relu", "activation=torch", parse_format("bfloat16"))
    assert got.status == "REFUTED" and got.witness_json() == {"z": "0x8000"}
