"""``fpsmt construct``: targets in, a verified Theorem 3.1 network out (CSV and Python
targets, bad targets rejected with one line and exit 2)."""

import json

import pytest
from conftest import cli_in_process, fpsmt, read_back_one_bit_off

from fpsmt.semantics.formats import parse_format
from fpsmt.commands.netio import load_network


def _csv(tmp_path, rows, fmt="bfloat16"):
    f = parse_format(fmt)
    p = tmp_path / "t.csv"
    lines = ["x,f,h,g"] + [",".join(f.hex(f.from_float(v)) if not isinstance(v, str) else v for v in r)
                           for r in rows]
    p.write_text("\n".join(lines) + "\n")
    return p


def _check_written(path, csv_path, fmt):
    """Re-run the network as written with the exact reference (exact rationals rounded once
    per operation) at every target point: value and D^AD(h*) meet the targets — nothing
    taken from the command's own report."""
    import numpy as np

    from fpsmt.commands.targets import load_targets, meets
    from fpsmt.semantics.arith import ExactArith
    from fpsmt.semantics.network import run
    f = parse_format(fmt)
    pts = load_targets(csv_path, f)
    A = ExactArith(f)
    t = run(A, load_network(path), A.const(np.asarray([[p[0]] for p in pts], dtype=object)),
            A.const(np.asarray([[p[2]] for p in pts], dtype=object)))
    for p, o, g in zip(pts, np.ravel(A.to_bits(t.out)), np.ravel(A.to_bits(t.grad))):
        assert meets(f, int(o), p[1]) and meets(f, int(g), p[3]), (f.hex(p[0]), f.hex(int(o)), f.hex(int(g)))


ROWS = [(-1.5, -3.0, 2.0, -0.25), (0.0, 1e30, -1e-30, 7.0), (0.5, -0.0, 0.0, 0.0), (1.0, 2.5, -3e38, 1e-38),
        (2.0, -7.0, 1.0, 0.0)]


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
def test_construct_csv_targets_bit_exact(tmp_path, fmt):
    rows = ROWS if fmt == "bfloat16" else ROWS[:3] + [(1.0, 2.5, -3e38, 1e-38)]
    out = tmp_path / "net.json"
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, rows, fmt)), "--format", fmt, "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verified"] == doc["points"] == len(rows) and doc["mismatches"] == []
    assert doc["gradient_atoms"] == sum(1 for x in rows if x[3] != 0)
    net = load_network(out)
    assert net.depth == doc["depth"] and out.stat().st_size == doc["bytes"]
    _check_written(out, tmp_path / "t.csv", fmt)


def test_construct_python_targets(tmp_path):
    p = tmp_path / "t.py"
    p.write_text("import math\n"
                 "def domain(): return [i / 2 - 2 for i in range(6)] + ['0x0001']\n"
                 "def f_star(x): return round(math.sin(x), 3)\n"
                 "def h_star(x): return -1.0 if x < 0 else 0.5\n"
                 "def g_star(x): return -math.cos(x)\n")
    r = fpsmt("construct", "--targets", str(p), "--format", "bfloat16", "--out", str(tmp_path / "n.json"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["verified"] == 7
    _check_written(tmp_path / "n.json", p, "bfloat16")


@pytest.mark.parametrize("rows,word", [
    ([(1.0, 2.0, 0.0, 1.0)], "h* = 0"),
    ([(1.0, 2.0, 1.0, 1.0), (1.0, 3.0, 1.0, 1.0)], "twice"),
    ([(0.0, 2.0, 1.0, 1.0), ("0x8000", "0x3f80", "0x3f80", "0x3f80")], "twice"),
    ([(1e38, 2.0, 1.0, 1.0)], "outside X"),
    ([(1.0, "0x7fc0", "0x3f80", "0x3f80")], "not finite"),
    ([(1.0, 2.0, "0x7f80", "0x3f80")], "not finite"),
])
def test_construct_rejects_bad_targets(tmp_path, rows, word):
    out = tmp_path / "n.json"
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, rows)), "--format", "bfloat16", "--out", str(out))
    assert r.returncode == 2 and word in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not out.exists()


def test_construct_bad_header_and_missing_file(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,b,c,d\n0x0,0x0,0x0,0x0\n")
    r = fpsmt("construct", "--targets", str(p), "--format", "bfloat16", "--out", str(tmp_path / "n.json"))
    assert r.returncode == 2 and "header" in r.stderr
    r = fpsmt("construct", "--targets", str(tmp_path / "nope.csv"), "--format", "bfloat16", "--out",
              str(tmp_path / "n.json"))
    assert r.returncode == 2 and "does not exist" in r.stderr


@pytest.mark.parametrize("fmt,n", [("bfloat16", 30), ("float32", 20), ("float8_e4m3", 25)])
def test_blockwise_evaluation_equals_the_whole_network(fmt, n):
    """The block-aware evaluation used by the verification gives the IR's bits exactly."""
    import numpy as np
    from test_atoms import _theorem_points

    from fpsmt.constructions import relu as C
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import run
    from fpsmt.constructions.blockrun import blockwise
    f = parse_format(fmt)
    A = concrete(f)
    pts = _theorem_points(f, n, 4)
    net = C.theorem_network(f, pts)
    rng = np.random.default_rng(0)
    xs = np.asarray([p[0] for p in pts] + [int(v) for v in rng.integers(0, 1 << f.nbits, 40)], dtype=np.uint64)
    ys = np.asarray([p[2] for p in pts] + [int(v) for v in rng.integers(0, 1 << f.nbits, 40)], dtype=np.uint64)
    t = run(A, net, A.const(xs)[:, None], A.const(ys)[:, None])
    out, grad = blockwise(A, net, A.const(xs), A.const(ys))
    assert (np.ravel(A.to_bits(t.out)) == np.ravel(A.to_bits(out))).all()
    assert (np.ravel(A.to_bits(t.grad)) == np.ravel(A.to_bits(grad))).all()


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
def test_construct_example_sin_with_misleading_gradient(tmp_path, fmt):
    """The shipped example: 500 points, f* = sin x, g* = −cos x, every point bit-exact."""
    r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", fmt, "--out",
              str(tmp_path / "n.json"), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["points"] == doc["verified"] == doc["gradient_atoms"] == 500 and doc["mismatches"] == []


@pytest.mark.parametrize("fmt", ["bfloat16", "float32", "float64", "float16"])
def test_construct_torch_scalar_module_is_bit_exact(tmp_path, fmt):
    """--torch: the module of scalar operations, differentiated by torch.autograd, meets
    every target bit for bit; the nn.Linear stack is reported point by point."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]
    rows = [r for r in ROWS if fmt != "float16" or abs(r[1]) < 6e4 and abs(r[2]) < 6e4 and abs(r[3]) < 6e4]
    rows = [r for r in rows if fmt not in ("float32", "float16") or abs(r[2]) < 3e38]
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, rows, fmt)), "--format", fmt, "--out",
              str(tmp_path / "n.json"), "--torch", "--json")
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)["torch"]
    assert t["dtype"] == fmt and t["scalar"]["bit_exact"] == t["scalar"]["points"] == len(rows)
    lin = t["linear"]
    assert lin["bit_exact"] + len(lin["differences"]) == lin["points"] == len(rows)
    assert "nn.Linear" in r.stderr and "Traceback" not in r.stderr


def test_construct_torch_refuses_formats_without_torch_arithmetic(tmp_path):
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, ROWS[:1], "float8_e4m3")), "--format", "float8_e4m3",
              "--out", str(tmp_path / "n.json"), "--torch")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "float8_e4m3" in r.stderr
    assert not (tmp_path / "n.json").exists()


def test_torch_scalar_module_agrees_with_the_executor_off_the_domain():
    """The scalar module is the IR's arithmetic: at inputs that are not domain points
    (every atom off its point) its value and autograd gradient equal the executor's."""
    torch = pytest.importorskip("torch")
    import numpy as np
    from test_atoms import _theorem_points

    from fpsmt.constructions import relu as C
    from fpsmt.commands import torch_export as T
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import run
    f = parse_format("bfloat16")
    A = concrete(f)
    pts = _theorem_points(f, 12, 9)
    net = C.theorem_network(f, pts)
    rng = np.random.default_rng(3)
    xs = np.asarray([int(b) for b in rng.integers(0, 1 << 16, 300) if f.is_finite(int(b))
                     and abs(f.to_fraction(int(b))) <= 2 ** (f.e_max - 2)], dtype=np.uint64)
    ys = np.full(len(xs), f.from_float(-3.0), dtype=np.uint64)
    out, grad = T.run(T.scalar_network(net), f, xs, ys)
    t = run(A, net, A.const(xs)[:, None], A.const(ys)[:, None])
    num = lambda b: f.to_fraction(int(b))  # noqa: E731  (zeros of either sign: relu's backward selects)
    assert [num(v) for v in out] == [num(v) for v in np.ravel(A.to_bits(t.out))]
    assert [num(v) for v in grad] == [num(v) for v in np.ravel(A.to_bits(t.grad))]
    assert torch.is_grad_enabled()


@pytest.mark.slow
@pytest.mark.soundness
def test_construct_certify_needs_every_unsat_confirmed_and_links_proved_lemmas(tmp_path):
    """--certify proves the repaired lemmas the network rests on (float8_e4m3) and records
    them in the store.  With --no-confirm on an empty store every lemma is PROVED but its
    UNSAT answers are unchecked: not certified, and the summary says why.  On that store
    with confirmation (the default) every stored UNSAT answer is confirmed by a second
    back end or by enumeration: certified; a third run links them without solving.  (One
    store for the three runs: the lemmas are solved once.)"""
    store = tmp_path / "store.sqlite"
    args = ["construct", "--targets", str(_csv(tmp_path, [(0.5, 2.0, 1.0, -3.0), (1.0, -1.0, 2.0, 0.25)],
                                               "float8_e4m3")),
            "--format", "float8_e4m3", "--out", str(tmp_path / "n.json"), "--certify", "--store", str(store), "--json"]
    r = fpsmt(*args, "--no-confirm")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert all(c["status"] == "PROVED" for c in doc["certificates"]) and doc["certified"] is False
    assert "NOT certified" in r.stderr and "--no-confirm skipped confirmation" in r.stderr
    r = fpsmt(*args)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["certified"] is True
    from fpsmt.proof.lemmas import construction_lemmas
    assert [c["lemma"] for c in doc["certificates"]] == construction_lemmas()
    assert all(c["status"] == "PROVED" and c["keys"] and all(k["key"] for k in c["keys"]) for c in doc["certificates"])
    assert all(c["confirmed"]["stages"] and not c["confirmed"]["unconfirmed"] for c in doc["certificates"])
    again = json.loads(fpsmt(*args).stdout)
    assert again["certified"] is True and all(c["seconds"] == 0 for c in again["certificates"])
    assert [c["keys"] for c in again["certificates"]] == [c["keys"] for c in doc["certificates"]]


def test_construct_plot(tmp_path):
    pytest.importorskip("matplotlib")  # the optional extra fpsmt[examples]
    png = tmp_path / "p.png"
    r = fpsmt("construct", "--targets", str(_csv(tmp_path, ROWS)), "--format", "bfloat16", "--out",
              str(tmp_path / "n.json"), "--plot", str(png))
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_blockwise_keeps_the_irs_order_when_blocks_interleave():
    """Blocks whose first-layer rows interleave (not a ⊞ network): the gradient's sum over
    rows must keep the row order, so the evaluation equals the whole-network run."""
    import numpy as np

    from fpsmt.semantics.arith import concrete
    from fpsmt.constructions.blockrun import _blocks, blockwise
    from fpsmt.semantics.network import Layer, Network, run
    f = parse_format("float32")
    A = concrete(f)
    one, big = f.from_float(1.0), f.from_float(2.0 ** 30)
    # at 0 < x < 2^10 all three rows are alive: row order gives (2^30·u ⊕ u') ⊖ 2^30·u, block order (2^30·u ⊖ 2^30·u) ⊕ u'
    net = Network(f, [Layer(3, 1, [0, 1, 2], [0, 0, 0], [big, one, f.sign_bit | big], [0, 0, f.from_float(2.0 ** 40)],
                            "relu"),
                      Layer(2, 3, [0, 0, 1], [0, 2, 1], [one, one, one], [f.sign_bit] * 2, "relu"),
                      Layer(1, 2, [0, 0], [0, 1], [one, one], [f.sign_bit], "identity")])
    assert _blocks(net) == [[[0, 2], [0]], [[1], [1]]]
    xs = A.const(np.asarray([f.from_float(v) for v in (1.0, -1.0, 3.0, 1e-30)], dtype=np.uint64))
    ys = A.const(np.asarray([f.from_float(v) for v in (1.0, -2.0, 1e-30, 3.0)], dtype=np.uint64))
    t = run(A, net, xs[:, None], ys[:, None])
    out, grad = blockwise(A, net, xs, ys)
    assert (np.ravel(A.to_bits(t.out)) == np.ravel(A.to_bits(out))).all()
    assert (np.ravel(A.to_bits(t.grad)) == np.ravel(A.to_bits(grad))).all()


def _construct_in_process(tmp_path, monkeypatch, patch):
    patch(monkeypatch)
    out = tmp_path / "n.json"
    code, stdout, stderr = cli_in_process(["construct", "--targets", str(_csv(tmp_path, ROWS)), "--format", "bfloat16",
                                           "--out", str(out), "--json"])
    return code, json.loads(stdout), stderr, out


def test_construct_wrong_executor_result_is_a_mismatch_and_writes_nothing(tmp_path, monkeypatch):
    """The verification is a real check: an executor whose D^AD is one ulp off at one point
    is caught (exit 1, the point named) and no network is left at --out."""
    from fpsmt.constructions import blockrun
    real = blockrun.blockwise

    def off_by_one_ulp(A, net, x, y, sem=None):
        v, g = real(A, net, x, y) if sem is None else real(A, net, x, y, sem)
        bits = A.to_bits(g).astype("uint64")
        bits[0] += 1
        return v, A.const(bits)

    code, doc, err, out = _construct_in_process(tmp_path, monkeypatch,
                                                lambda mp: mp.setattr(blockrun, "blockwise", off_by_one_ulp))
    assert code == 1 and len(doc["mismatches"]) == 1 and doc["verified"] == len(ROWS) - 1
    assert "MISMATCH at x = 0xbfc0" in err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_construct_corrupted_network_is_a_mismatch_and_writes_nothing(tmp_path, monkeypatch):
    """The network is verified as written: one output weight changed in the file read back
    gives a mismatch, exit 1, and no file at --out."""
    code, doc, err, out = _construct_in_process(tmp_path, monkeypatch, read_back_one_bit_off)
    assert code == 1 and doc["mismatches"] and "MISMATCH" in err
    assert not out.exists()


def test_construct_writes_safetensors_that_eval_and_torch_read(tmp_path):
    """--out NET.safetensors: written, read back and verified as written; the exact
    reference meets every target on the file; ``eval`` gives the same lines on it as on the
    JSON of the same targets; --torch runs the file's network; torch's own safetensors
    reader gives the weights as bfloat16 tensors with the file's bits."""
    torch = pytest.importorskip("torch")  # the optional extra fpsmt[torch]
    from safetensors.torch import load_file
    csv_path = _csv(tmp_path, ROWS)
    st, js = tmp_path / "n.safetensors", tmp_path / "n.json"
    r = fpsmt("construct", "--targets", str(csv_path), "--format", "bfloat16", "--out", str(st), "--torch", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verified"] == len(ROWS) and doc["out"] == str(st) and st.stat().st_size == doc["bytes"]
    assert doc["torch"]["scalar"]["bit_exact"] == len(ROWS)
    _check_written(st, csv_path, "bfloat16")
    assert fpsmt("construct", "--targets", str(csv_path), "--format", "bfloat16", "--out", str(js)).returncode == 0
    f = parse_format("bfloat16")
    pts = tmp_path / "p.csv"
    pts.write_text("".join(f"{f.hex(f.from_float(x))},{f.hex(f.from_float(h))}\n" for x, _, h, _ in ROWS))
    a, b = fpsmt("eval", str(st), "--points", str(pts)), fpsmt("eval", str(js), "--points", str(pts))
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout and len(a.stdout.splitlines()) == len(ROWS)
    net, tensors = load_network(st), load_file(str(st))
    L = net.layers[-1]
    got = tensors[f"layers.{net.depth - 1}.bias"]
    assert got.dtype == torch.bfloat16 and got.view(torch.int16).tolist() == [
        b - (1 << 16) if b >> 15 else b for b in L.bias]


def test_construct_bad_safetensors_network_is_one_line(tmp_path):
    p = tmp_path / "n.safetensors"
    p.write_bytes(b"junk")
    pts = tmp_path / "p.csv"
    pts.write_text("0x3f80,0x3f80\n")
    r = fpsmt("eval", str(p), "--points", str(pts))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "not a safetensors file" in r.stderr
