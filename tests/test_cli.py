"""The command line, as a user runs it: results on stdout, one-line errors, exit codes."""

import json
import os
from pathlib import Path

import pytest
from conftest import fpsmt as run_fpsmt

from fpsmt.semantics.formats import parse_format

ENV = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")


def fpsmt(*args, timeout=300):
    """The shared runner (conftest), with a time limit and without bytecode files."""
    return run_fpsmt(*args, timeout=timeout, env=ENV)


def test_eval_builtin_example():
    r = fpsmt("eval", "example:decoupling_bf16.json", "--points", "example:decoupling_bf16_points.csv")
    assert r.returncode == 0, r.stderr
    f = parse_format("bfloat16")
    w = f.from_float(2.0 ** -10)
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    pts = Path(__file__).resolve().parents[1] / "examples" / "decoupling_bf16_points.csv"
    ys = [f.parse_hex(line.split(",")[1]) for line in pts.read_text().split()]
    assert len(rows) == len(ys)
    for row, y in zip(rows, ys):
        assert row["f"] == ["0x0000"]
        assert row["grad"] == [f.hex(f.round(f.to_fraction(y) * f.to_fraction(w)))]


@pytest.mark.parametrize("fmt", ["bfloat16", "float16", "float32", "float64", "float8_e5m2", "float8_e4m3",
                                 "float8_e3m4", "E6M3"])
def test_eval_every_named_format(tmp_path, fmt):
    f = parse_format(fmt)
    one, two = f.one_bits, f.from_float(2.0)
    net = {"format": f.to_json(), "layers": [
        {"weights": [[f.hex(one)], [f.hex(one ^ f.sign_bit)]], "bias": [f.hex(0), f.hex(0)], "activation": "relu"},
        {"weights": {"shape": [1, 2], "entries": [[0, 0, f.hex(two)], [0, 1, f.hex(two)]]}, "bias": [f.hex(0)],
         "activation": "identity"}]}
    (tmp_path / "n.json").write_text(json.dumps(net))
    (tmp_path / "p.csv").write_text(f"{f.hex(two)},{f.hex(one)}\n{f.hex(two ^ f.sign_bit)},{f.hex(one)}\n")
    r = fpsmt("eval", str(tmp_path / "n.json"), "--points", str(tmp_path / "p.csv"))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    four = f.from_float(4.0)
    assert rows[0] == {"f": [f.hex(four)], "grad": [f.hex(two)]}  # relu(2)*2; grad 2*1*1
    assert rows[1] == {"f": [f.hex(four)], "grad": [f.hex(two ^ f.sign_bit)]}  # relu(-(-2))*2; grad 2*1*(-1)


def test_counterexample_associativity_float16():
    r = fpsmt("counterexample", "associativity", "--format", "float16")
    assert r.returncode == 0, r.stderr
    assert "replayed" in r.stdout
    f = parse_format("float16")
    r = fpsmt("counterexample", "associativity", "--format", "float16", "--json")
    doc = json.loads(r.stdout)
    a, b, c = (f.parse_hex(doc["witness"][k]) for k in "abc")
    A = lambda x, y: f.round(f.to_fraction(x) * f.to_fraction(y))  # noqa: E731
    assert f.to_fraction(A(A(a, b), c)) != f.to_fraction(A(a, A(b, c)))
    assert doc["replayed"] is True


def test_counterexample_proportionality_bfloat16():
    r = fpsmt("counterexample", "proportionality", "--format", "bfloat16", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    f = parse_format("bfloat16")
    q = {k: f.to_fraction(f.parse_hex(v)) for k, v in {**doc["witness"], **doc["values"]}.items()}
    assert q["D(y2)"] * q["y1"] != q["D(y1)"] * q["y2"]
    assert q["y1"] != 0 and q["y2"] != 0
    assert doc["replayed"] is True


@pytest.mark.parametrize("args,word", [
    (["counterexample", "associativity", "--format", "E0M3"], "impossible format"),
    (["counterexample", "associativity", "--format", "float7"], "unknown format"),
    (["eval", "nope.json", "--points", "nope.csv"], "no such file"),
    (["eval", "example:nope.json", "--points", "x.csv"], "no shipped file"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_one_line_exit_2(args, word):
    r = fpsmt(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "Traceback" not in r.stderr


def test_bad_network_and_points(tmp_path):
    (tmp_path / "bad.json").write_text('{"format": "bf16", "layers": [{"weights": [["0x10000"]], "bias": ["0x0"]}]}')
    (tmp_path / "p.csv").write_text("0x3f80,0x3f80\n")
    r = fpsmt("eval", str(tmp_path / "bad.json"), "--points", str(tmp_path / "p.csv"))
    assert r.returncode == 2 and "does not fit" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = fpsmt("eval", "example:decoupling_bf16.json", "--points", str(tmp_path / "p.csv"))
    assert r.returncode == 0
    (tmp_path / "p.csv").write_text("0x3f80,0x3f80,0x0\n")
    r = fpsmt("eval", "example:decoupling_bf16.json", "--points", str(tmp_path / "p.csv"))
    assert r.returncode == 2 and "expected 2 patterns" in r.stderr


def test_json_stdout_is_only_json():
    r = fpsmt("formats", "--json")
    assert r.returncode == 0
    assert [d["format"] for d in json.loads(r.stdout)][:2] == ["float64", "float32"]


def test_shipped_folders_are_found():
    """specs/, proofs/ and examples/ ship as package data; in CI (a non-editable install,
    tests run against it) they must be found inside the installed package."""
    r = fpsmt("paths", "--json")
    assert r.returncode == 0
    paths = json.loads(r.stdout)
    for name in ("specs", "proofs", "examples"):
        assert Path(paths[name]).is_dir()
    assert (Path(paths["examples"]) / "decoupling_bf16.json").is_file()
    if os.environ.get("FPSMT_EXPECT_INSTALLED"):
        import fpsmt as package
        repo = Path(__file__).resolve().parents[1]
        assert Path(package.__file__).resolve().parent != repo / "fpsmt", package.__file__
        import importlib
        for init in (repo / "fpsmt").rglob("__init__.py"):  # every subpackage was installed
            importlib.import_module(".".join(init.parent.relative_to(repo).parts))
        for name in ("specs", "proofs", "examples"):
            assert Path(paths[name]).resolve() != repo / name, paths[name]
            assert Path(paths[name]).resolve().parent == Path(package.__file__).resolve().parent
