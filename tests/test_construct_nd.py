"""``fpsmt construct`` with d-dimensional targets (ReLU): every domain point of F^d meets its
value and every gradient component, checked on the file by the exact reference; ``eval``
runs the d-input network; bad targets and options are one line, exit 2."""

import json
import re

import numpy as np
import pytest
from conftest import cli_in_process, fpsmt, grid_targets_nd as _rows, read_back_one_bit_off, targets_csv_nd as _csv

from fpsmt.commands import netio, targets
from fpsmt.constructions import relu_nd
from fpsmt.errors import InputError
from fpsmt.semantics.arith import ExactArith
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run


def _exact_check(fmt, path, pts):
    """The network as written, run by the exact reference (rationals rounded once per
    operation): the points where it misses its value or a gradient component."""
    A = ExactArith(fmt)
    t = run(A, netio.load_network(path), A.const(np.asarray([list(p[0]) for p in pts], dtype=object)),
            A.const(np.asarray([[p[2]] for p in pts], dtype=object)))
    out, grad = A.to_bits(t.out), A.to_bits(t.grad)
    return [p for p, o, g in zip(pts, out, grad)
            if not (targets.meets(fmt, int(o[0]), p[1]) and all(targets.meets(fmt, int(a), b) for a, b in zip(g, p[3])))]


@pytest.mark.parametrize("fmt_name,d,grid,exact", [("bfloat16", 2, [-1.5, -0.0, 0.25, 3.0], False),
                                                   ("float8_e4m3", 2, [-2.0, 0.0, 1.0], True),
                                                   ("float8_e4m3", 3, [-1.0, 2.0], True)])
def test_construct_nd_meets_every_component(tmp_path, fmt_name, d, grid, exact):
    """The command's verification, and (8-bit formats: the exact reference's run takes
    seconds there, minutes in bfloat16) the exact reference on the file at every point;
    bfloat16 is checked independently by torch.autograd in the --torch test."""
    fmt = parse_format(fmt_name)
    pts = _rows(fmt, d, grid)
    out = tmp_path / "n.json"
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, fmt, pts)), "--format", fmt_name, "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["dimension"] == d and doc["verified"] == doc["points"] == len(pts) and doc["mismatches"] == []
    assert doc["gradient_atoms"] == [sum(1 for p in pts if not fmt.is_zero(p[3][i])) for i in range(d)]
    assert netio.load_network(out).n_in == d
    if exact:
        assert _exact_check(fmt, out, pts) == []


def test_eval_runs_a_d_input_network(tmp_path):
    fmt = parse_format("float8_e4m3")
    pts = _rows(fmt, 3, [-1.0, 2.0])
    out = tmp_path / "n.safetensors"
    assert fpsmt("construct", "--targets", str(_csv(tmp_path, fmt, pts)), "--format", "float8_e4m3",
                 "--out", str(out)).returncode == 0
    p = tmp_path / "p.csv"
    p.write_text("".join(",".join([fmt.hex(b) for b in z] + [fmt.hex(h)]) + "\n" for z, _, h, _ in pts))
    r = fpsmt("eval", str(out), "--points", str(p))
    assert r.returncode == 0, r.stderr
    for line, (z, v, h, g) in zip(r.stdout.splitlines(), pts):
        got = json.loads(line)
        assert targets.meets(fmt, int(got["f"][0], 16), v)
        assert len(got["grad"]) == 3 and all(targets.meets(fmt, int(a, 16), b) for a, b in zip(got["grad"], g))


def test_python_targets_in_two_dimensions(tmp_path):
    p = tmp_path / "t.py"
    p.write_text("import math\n"
                 "def domain():\n"
                 "    return [(a / 2, b / 2) for a in range(-1, 2) for b in range(-1, 2)]\n"
                 "def f_star(x): return x[0] * x[1]\n"
                 "def h_star(x): return -1\n"
                 "def g_star(x): return (x[1], 0 if x[0] == 0 else x[0])\n")
    out = tmp_path / "n.json"
    r = fpsmt("construct", "--targets", str(p), "--format", "float8_e4m3", "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["dimension"] == 2 and doc["verified"] == 9 and doc["gradient_atoms"] == [6, 6]
    fmt = parse_format("float8_e4m3")
    pts = targets.load_targets_nd(p, fmt)
    assert pts[0] == ((fmt.from_float(-0.5), fmt.from_float(-0.5)), fmt.from_float(0.25), fmt.from_float(-1.0),
                      (fmt.from_float(-0.5), fmt.from_float(-0.5)))
    assert _exact_check(fmt, out, pts) == []


def test_a_wrong_d_dimensional_network_is_a_mismatch(tmp_path, monkeypatch):
    """One output weight one bit off in the file read back: a mismatch, exit 1, nothing
    written — the verification compares every component."""
    fmt = parse_format("float8_e4m3")
    pts = _rows(fmt, 2, [-2.0, 0.0, 0.5, 1.0])
    read_back_one_bit_off(monkeypatch)
    out = tmp_path / "n.json"
    code, stdout, stderr = cli_in_process(["construct", "--targets", str(_csv(tmp_path, fmt, pts)), "--format",
                                           "float8_e4m3", "--out", str(out), "--json"])
    assert code == 1 and json.loads(stdout)["mismatches"] and not out.exists()
    assert "MISMATCH at x = (" in stderr


def test_bad_d_dimensional_targets_are_one_line(tmp_path):
    fmt = parse_format("bfloat16")
    pts = _rows(fmt, 2, [0.0, 1.0])
    cases = [
        (pts + [((fmt.sign_bit, pts[0][0][1]),) + pts[0][1:]], "x appears twice"),
        ([((fmt.from_float(2.0 ** 126), 0),) + pts[0][1:]], "x1 is outside X"),
        ([(pts[0][0], pts[0][1], 0, (fmt.from_float(1.0), 0))], "h* = 0 but g* is not zero"),
    ]
    for rows, word in cases:
        with pytest.raises(InputError, match=re.escape(word)):
            relu_nd.check_points(fmt, rows)
        r = fpsmt("construct", "--targets", str(_csv(tmp_path, fmt, rows)), "--format", "bfloat16",
                  "--out", str(tmp_path / "n.json"))
        assert r.returncode == 2 and word in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    p = tmp_path / "t.py"
    p.write_text("def domain(): return [(0.0, 1.0)]\n"
                 "def f_star(x): return 1\n"
                 "def h_star(x): return 1\n"
                 "def g_star(x): return 1\n")
    r = fpsmt("construct", "--targets", str(p), "--format", "bfloat16", "--out", str(tmp_path / "n.json"))
    assert r.returncode == 2 and "g_star(x) returned 1, not 2 values" in r.stderr


def test_d_dimensional_refusals(tmp_path):
    fmt = parse_format("bfloat16")
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, fmt, _rows(fmt, 2, [0.0, 1.0]))), "--format", "bfloat16",
              "--out", str(tmp_path / "n.json"), "--store", str(tmp_path / "s.sqlite"), "--activation", "tanh")
    assert r.returncode == 2 and "built for relu only" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "n.json").exists()


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_d_dimensional_network_under_another_semantics(tmp_path):
    """--semantics order=reversed on a 2-D float8_e4m3 network (built and verified for the
    paper's rows): the points it reports broken there are exactly those where the exact
    reference, run on the file under the same profile, misses a target."""
    from fpsmt.semantics.network import parse_semantics
    fmt = parse_format("float8_e4m3")
    pts = _rows(fmt, 2, [-2.0, 0.0, 1.0, 3.0])
    out = tmp_path / "n.json"
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, fmt, pts)), "--format", "float8_e4m3", "--out", str(out),
              "--semantics", "order=reversed", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verified"] == len(pts) and doc["semantics"]["spec"] == parse_semantics("order=reversed").spec
    sem = parse_semantics("order=reversed")
    A = ExactArith(fmt)
    t = run(A, netio.load_network(out), A.const(np.asarray([list(p[0]) for p in pts], dtype=object)),
            A.const(np.asarray([[p[2]] for p in pts], dtype=object)), sem=sem)
    exact = [[fmt.hex(b) for b in p[0]] for p, o, g in zip(pts, A.to_bits(t.out), A.to_bits(t.grad))
             if not (targets.meets(fmt, int(o[0]), p[1]) and all(targets.meets(fmt, int(a), b) for a, b in zip(g, p[3])))]
    assert [b["x"] for b in doc["semantics"]["broken"]] == exact
    assert doc["semantics"]["met"] == len(pts) - len(exact)


def test_construct_nd_torch_and_plot(tmp_path):
    """--torch: the scalar-operation module on two inputs, by torch.autograd, meets every
    point; --plot draws the heat maps."""
    pytest.importorskip("torch")  # the optional extras fpsmt[torch] and fpsmt[examples]
    pytest.importorskip("matplotlib")
    fmt = parse_format("bfloat16")
    pts = _rows(fmt, 2, [-1.5, 0.0, 0.25, 3.0])
    png = tmp_path / "p.png"
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, fmt, pts)), "--format", "bfloat16",
              "--out", str(tmp_path / "n.json"), "--torch", "--plot", str(png), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["torch"]["scalar"]["bit_exact"] == len(pts) and png.stat().st_size > 10_000


def test_the_shipped_two_input_example_is_met_at_every_point(tmp_path):
    """examples/sin_cos_2d.py (the README's d = 2 example), in float8_e4m3: every one of
    the 289 grid points meets its value and both gradient components."""
    out = tmp_path / "n.safetensors"
    r = fpsmt("construct", "--targets", "example:sin_cos_2d.py", "--format", "float8_e4m3", "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["dimension"] == 2 and summary["points"] == 289 and summary["verified"] == 289, summary
    assert summary["depth"] == relu_nd.depth(parse_format("float8_e4m3")) and out.exists()


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_d_dimensional_certify_links_the_nd_lemma_rows(tmp_path):
    """--certify on a 2-D network (E3M2): the rows it rests on — the d-dimensional atoms'
    trees, ⊞'s and the theorem's — PROVED with every UNSAT answer confirmed, their own rows
    only (not the whole-block cross-checks)."""
    fmt = parse_format("E3M2")
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, fmt, _rows(fmt, 2, [-1.0, 0.0, 1.0]))), "--format", "E3M2",
              "--out", str(tmp_path / "n.json"), "--store", str(tmp_path / "s.sqlite"), "--certify", "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["verified"] == 9 and summary["certified"] is True, r.stderr
    certs = summary["certificates"]
    assert [c["lemma"] for c in certs] == list(relu_nd.LEMMAS) and all(c["status"] == "PROVED" for c in certs)
    assert all("every d" in c["statement"] or c["lemma"] == "boxplus_neutrality" for c in certs)
    assert "certified: every lemma the network rests on is PROVED" in r.stderr
