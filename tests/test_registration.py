"""A construction is an addition: ReLU registered again under another name, from this
test-only module, gets ``reproduce`` rows and a ``construct`` network with no other file
changed — and while it runs, the name ``relu`` is unknown, so no block can fall back on it."""

import contextlib
import io
import json

import numpy as np
import pytest

from fpsmt.commands import cli, netio
from fpsmt.constructions import registry
from fpsmt.constructions import relu as relu_blocks
from fpsmt.semantics import activations
from fpsmt.semantics.activations import ReLU
from fpsmt.semantics.arith import ExactArith
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run


class ReluAgain(ReLU):
    name = "relu_again"


def _main(argv):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        code = cli.main([str(a) for a in argv])
    return code, o.getvalue(), e.getvalue()


@pytest.fixture
def relu_again(monkeypatch):
    monkeypatch.setattr(activations, "REGISTRY", dict(activations.REGISTRY))
    monkeypatch.setattr(registry, "_registered", dict(registry.constructions()))
    activations.register(ReluAgain())
    registry.register(registry.Construction("relu_again", "relu", relu_blocks, relu_blocks.constants, paper_depth=7))
    yield
    

@pytest.fixture
def without_relu(monkeypatch):
    """`relu` unknown: a layer built with that name fails, so every layer must use the alias."""
    reg = dict(activations.REGISTRY)
    reg.pop("relu")
    monkeypatch.setattr(activations, "REGISTRY", reg)


def test_reproduce_rows_for_a_registered_construction(relu_again, without_relu, tmp_path):
    code, out, err = _main(["reproduce", "--activation", "relu_again", "--format", "float8_e4m3",
                            "--lemma", "step_indicator_ge,step_indicator_le", "--variant", "repaired",
                            "--store", tmp_path / "s.sqlite", "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["lemma"], r["activation"], r["status"]) for r in rows] == [
        ("step_indicator_ge", "relu_again", "PROVED"), ("step_indicator_le", "relu_again", "PROVED")]


def test_construct_network_for_a_registered_construction(relu_again, tmp_path):
    f = parse_format("bfloat16")
    t = tmp_path / "t.csv"
    pts = [(0.5, 3.0, 1.0, -2.0), (1.0, 2.0 ** -20, 2.0, 0.25), (1.5, 5.0, 1.0, 0.0)]
    t.write_text("x,f,h,g\n" + "\n".join(",".join(f.hex(f.from_float(v)) for v in p) for p in pts))
    with contextlib.ExitStack() as stack:
        reg = dict(activations.REGISTRY)
        reg.pop("relu")
        stack.enter_context(pytest.MonkeyPatch.context()).setattr(activations, "REGISTRY", reg)
        code, out, err = _main(["construct", "--activation", "relu_again", "--targets", t, "--format", "bfloat16",
                                "--out", tmp_path / "n.json", "--json"])
        assert code == 0, err
        doc = json.loads((tmp_path / "n.json").read_text())
        assert {L["activation"] for L in doc["layers"]} == {"relu_again", "identity"}
        net = netio.load_network(tmp_path / "n.json")
        A = ExactArith(f)  # the written network, re-run by the exact reference
        xs = np.asarray([[f.from_float(p[0])] for p in pts], dtype=object)
        ys = np.asarray([[f.from_float(p[2])] for p in pts], dtype=object)
        tr = run(A, net, A.const(xs), A.const(ys))
        for p, o, g in zip(pts, np.ravel(A.to_bits(tr.out)), np.ravel(A.to_bits(tr.grad))):
            want_f, want_g = f.from_float(p[1]), f.from_float(p[3])
            assert int(o) == want_f or (f.is_zero(int(o)) and f.is_zero(want_f))
            assert int(g) == want_g or (f.is_zero(int(g)) and f.is_zero(want_g))
    assert json.loads(out)["activation"] == "relu_again"


@pytest.mark.parametrize("activation", ["cos"])
def test_an_activation_no_family_serves_is_refused_naming_the_requirement(tmp_path, activation):
    """No registered construction: the saturating family is offered, and refuses in one
    line naming the requirement σ fails (cos does not saturate; sigmoid, which saturates at
    0 and 1, has the logistic family's construction: tests/test_logistic.py)."""
    code, _, err = _main(["construct", "--activation", activation, "--targets", "example:sin_misleading.py",
                          "--format", "bfloat16", "--out", tmp_path / "n.json"])
    lines = [ln for ln in err.splitlines() if ln.startswith("fpsmt: error")]
    assert code == 2 and len(lines) == 1 and "requirement R.saturation" in lines[0] and activation in lines[0]
    assert not (tmp_path / "n.json").exists()
