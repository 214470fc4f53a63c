"""``construct --verify atoms``: each point's value and D^AD from the atoms built for it,
every other atom's zeros from the PROVED lemma rows — linear in the number of points; it
agrees with the full evaluation, and it catches a wrong atom."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import cli_in_process, fpsmt, grid_targets_nd, targets_csv_nd, x_domain

from fpsmt.commands import targets
from fpsmt.constructions import relu
from fpsmt.constructions.blockrun import copy_layout, own_blocks
from fpsmt.errors import InputError
from fpsmt.semantics.arith import concrete
from fpsmt.semantics.formats import parse_format


def _points(fmt, xs):
    """f* = sin x, g* = −cos x, with upstreams of both signs and some zero gradients (no
    gradient atom there), every value rounded once."""
    r = lambda v: fmt.round(Fraction(v))  # noqa: E731
    pts = []
    for i, x in enumerate(xs):
        xf = float(fmt.to_fraction(x))
        g = 0.0 if i % 7 == 3 else -math.cos(xf)
        pts.append((x, r(math.sin(xf)), r(1.0) if i % 3 else r(-0.5), r(g)))
    return pts


def _domain(fmt):
    return [int(b) for b in x_domain(fmt) if b != fmt.sign_bit]  # +0 and −0 are one point


def _spread(fmt, n):
    xs = _domain(fmt)
    return [xs[round(i * (len(xs) - 1) / (n - 1))] for i in range(n)]


@pytest.mark.parametrize("fmt_name,n", [("float8_e4m3", None), ("float8_e5m2", None), ("bfloat16", 300),
                                        ("float16", 200)])
def test_atoms_agree_with_the_full_evaluation(fmt_name, n):
    """Mid-sized domains (every x of X in the 8-bit formats): both evaluations meet every
    target, and give the same value and D^AD at every point, up to the sign of a zero
    (the other atoms' zeros are left out)."""
    fmt = parse_format(fmt_name)
    pts = _points(fmt, _domain(fmt) if n is None else _spread(fmt, n))
    net = relu.theorem_network(fmt, pts)
    bad_full, f_full, g_full = targets.verify(fmt, net, pts)
    bad_atoms, f_atoms, g_atoms = targets.verify_atoms(fmt, net, pts, net, relu.atom_kinds(fmt, pts))
    assert bad_full == [] and bad_atoms == []
    for a, b in zip(np.concatenate([f_full, g_full]), np.concatenate([f_atoms, g_atoms])):
        assert a == b or (fmt.is_zero(int(a)) and fmt.is_zero(int(b))), (fmt.hex(int(a)), fmt.hex(int(b)))


def _corrupt_output_weight(net, k):
    """The output row's k-th entry (in entry order) one bit off."""
    last = net.layers[-1]
    last.weights[k] = int(last.weights[k]) ^ 0x1
    return net


def test_atoms_catch_a_wrong_atom():
    """One zero-gradient atom's output weight one bit off: the atoms' evaluation reports
    that point and only that point, as the full evaluation does."""
    fmt = parse_format("bfloat16")
    pts = _points(fmt, _spread(fmt, 40))
    net = relu.theorem_network(fmt, pts)
    kinds = relu.atom_kinds(fmt, pts)
    n_ga = len(kinds[0][1])
    order = np.argsort(net.layers[-1].cols, kind="stable")
    j = 17  # the point whose zero-gradient atom is changed: its output entry comes after the GA pairs
    _corrupt_output_weight(net, int(order[2 * n_ga + j]))
    bad_atoms = targets.verify_atoms(fmt, net, pts, net, kinds)[0]
    bad_full = targets.verify(fmt, net, pts)[0]
    assert [b["x"] for b in bad_atoms] == [b["x"] for b in bad_full] == [fmt.hex(pts[j][0])]


def test_atoms_catch_a_wrong_gradient_atom():
    """A gradient atom's first output weight one bit off (its pair no longer cancels at its
    point): its point's value misses, in both evaluations."""
    fmt = parse_format("bfloat16")
    pts = _points(fmt, _spread(fmt, 30))
    net = relu.theorem_network(fmt, pts)
    kinds = relu.atom_kinds(fmt, pts)
    order = np.argsort(net.layers[-1].cols, kind="stable")
    c = 5  # the sixth gradient atom
    _corrupt_output_weight(net, int(order[2 * c]))
    want = [fmt.hex(pts[kinds[0][1][c]][0])]
    assert [b["x"] for b in targets.verify_atoms(fmt, net, pts, net, kinds)[0]] == want
    assert [b["x"] for b in targets.verify(fmt, net, pts)[0]] == want


def test_the_written_network_must_be_the_built_one(tmp_path):
    """JSON writes small layers dense (explicit +0 entries): still the same network.  One
    weight changed in the file: refused, before any evaluation."""
    from fpsmt.commands import netio
    fmt = parse_format("float8_e4m3")
    pts = _points(fmt, _domain(fmt)[:20])
    net = relu.theorem_network(fmt, pts)
    netio.save_network(net, tmp_path / "n.json")
    written = netio.load_network(tmp_path / "n.json")
    assert sum(len(L.weights) for L in written.layers) > sum(len(L.weights) for L in net.layers)  # dense layers
    assert targets.same_network(written, net)
    assert targets.verify_atoms(fmt, written, pts, net, relu.atom_kinds(fmt, pts))[0] == []
    _corrupt_output_weight(written, 0)
    assert not targets.same_network(written, net)
    with pytest.raises(InputError, match="differs from the network built"):
        targets.verify_atoms(fmt, written, pts, net, relu.atom_kinds(fmt, pts))


def test_copy_layout_refuses_what_is_not_the_copies():
    fmt = parse_format("bfloat16")
    pts = _points(fmt, _spread(fmt, 10))
    net = relu.theorem_network(fmt, pts)
    kinds = relu.atom_kinds(fmt, pts)
    with pytest.raises(InputError, match="copies"):
        copy_layout(net, [(T, len(o) - 1) for T, o in kinds])  # one copy too few of each kind
    with pytest.raises(InputError, match="copies"):
        copy_layout(net, [(kinds[1][0], len(kinds[1][1])), (kinds[0][0], len(kinds[0][1]))])  # kinds swapped
    A = concrete(fmt)
    x = A.const(np.asarray([p[0] for p in pts], dtype=np.uint64))
    with pytest.raises(InputError, match="not one of the 10 points"):
        own_blocks(A, net, [(kinds[0][0], [10] * len(kinds[0][1])), kinds[1]], x, x)


def _in_process(args, monkeypatch=None, patch=None):
    if patch:
        patch(monkeypatch)
    return cli_in_process(args)


def _targets_file(tmp_path):
    p = tmp_path / "t.py"
    p.write_text("import math\n"
                 "def domain():\n"
                 "    return [k / 4 for k in range(-16, 17)]\n"
                 "def f_star(x): return math.sin(x)\n"
                 "def h_star(x): return 1 if x > 0 else -0.5\n"
                 "def g_star(x): return 0 if x == 0.25 else -math.cos(x)\n")
    return p


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_construct_verify_atoms_end_to_end(tmp_path):
    """float8_e4m3: the lemma rows proved into an empty store, named in the output; every
    point verified from its own atoms; the file written."""
    out = tmp_path / "n.safetensors"
    r = fpsmt("construct", "--targets", str(_targets_file(tmp_path)), "--format", "float8_e4m3", "--verify", "atoms",
              "--out", str(out), "--store", str(tmp_path / "s.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verify"] == "atoms" and doc["verified"] == doc["points"] == 33 and doc["mismatches"] == []
    assert [(x["lemma"], x["status"]) for x in doc["lemmas"]] == [(n, "PROVED") for n in relu.ATOM_LEMMAS]
    assert all(x["keys"] for x in doc["lemmas"]) and out.exists()
    assert "each from its own atoms and the PROVED lemma rows" in r.stderr


def test_construct_verify_atoms_refuses_without_proved_lemmas(tmp_path, monkeypatch):
    """A lemma row that is not PROVED: one line naming it, exit 2, nothing built or
    written."""
    from fpsmt.proof import lemmas

    def unknown(eng, names, *a, **kw):
        return [{"lemma": n, "status": "UNKNOWN" if n == "gradient_atom" else "PROVED", "reason": "timeout",
                 "keys": ["k"], "confirmed": {"unconfirmed": [], "stages": 1, "by": []}} for n in names]
    out = tmp_path / "n.json"
    code, stdout, err = _in_process(["construct", "--targets", str(_targets_file(tmp_path)), "--format", "float8_e4m3",
                                     "--verify", "atoms", "--out", str(out), "--store", str(tmp_path / "s.sqlite")],
                                    monkeypatch, lambda mp: mp.setattr(lemmas, "run", unknown))
    assert code == 2 and "--verify atoms: gradient_atom is UNKNOWN in float8_e4m3; use --verify full" in err
    assert "building" not in err and not out.exists()


@pytest.mark.parametrize("extra,word", [
    (["--activation", "tanh"], "built for the relu family's networks"),
    (["--semantics", "order=reversed"], "--semantics needs --verify full"),
])
def test_construct_verify_atoms_refusals(tmp_path, extra, word):
    r = fpsmt("construct", "--targets", str(_targets_file(tmp_path)), "--format", "bfloat16", "--verify", "atoms",
              "--out", str(tmp_path / "n.json"), "--store", str(tmp_path / "s.sqlite"), *extra)
    assert r.returncode == 2 and word in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_construct_verify_atoms_refuses_more_atoms_than_the_lemmas_cover(tmp_path, monkeypatch):
    """The lemma rows' inductions cover at most SLOTS atoms and first-layer neurons: with
    the bound lowered to 40, 33 points (66 atoms) are refused in one line before the
    lemmas are looked up."""
    from fpsmt.proof import approx
    code, _, err = _in_process(["construct", "--targets", str(_targets_file(tmp_path)), "--format", "float8_e4m3",
                                "--verify", "atoms", "--out", str(tmp_path / "n.json"),
                                "--store", str(tmp_path / "s.sqlite")],
                               monkeypatch, lambda mp: mp.setattr(approx, "SLOTS", 40))
    assert code == 2 and "cover at most 40 of each; use --verify full" in err and "rests on" not in err, err


# ---------------------------------------------------------------- d-dimensional inputs
def _full_nd(fmt, net, pts):
    from fpsmt.commands import construct_nd
    return construct_nd.verify(fmt, net, pts)


@pytest.mark.parametrize("fmt_name,d,grid", [("bfloat16", 2, [-1.5, -0.0, 0.25, 3.0, 5.0]),
                                             ("float8_e4m3", 3, [-1.0, 0.5, 2.0])])
def test_atoms_nd_agree_with_the_full_evaluation(fmt_name, d, grid):
    """d = 2 and 3: both evaluations meet every target, and give the same value and the
    same D^AD in every component at every point, up to the sign of a zero."""
    from fpsmt.constructions import relu_nd
    fmt = parse_format(fmt_name)
    pts = grid_targets_nd(fmt, d, grid)
    net = relu_nd.theorem_network(fmt, pts)
    bad_full, f_full, g_full = _full_nd(fmt, net, pts)
    bad_atoms, f_atoms, g_atoms = targets.verify_atoms(fmt, net, pts, net, relu_nd.atom_kinds(fmt, pts))
    assert bad_full == [] and bad_atoms == [] and g_atoms.shape == (len(pts), d)
    for a, b in zip(np.concatenate([f_full, g_full.ravel()]), np.concatenate([f_atoms, g_atoms.ravel()])):
        assert a == b or (fmt.is_zero(int(a)) and fmt.is_zero(int(b))), (fmt.hex(int(a)), fmt.hex(int(b)))


def test_atoms_nd_catch_a_wrong_gradient_atom():
    """One GA_2 copy's first-layer weight into T (its last first-layer entry) one bit off:
    its point's value and second gradient component miss, and only that point is
    reported, with the same values, by both evaluations."""
    from fpsmt.constructions import relu_nd
    fmt = parse_format("bfloat16")
    pts = grid_targets_nd(fmt, 2, [-1.5, -0.0, 0.25, 3.0, 5.0])
    net = relu_nd.theorem_network(fmt, pts)
    kinds = relu_nd.atom_kinds(fmt, pts)
    (T0, own0), (T1, own1) = kinds[0], kinds[1]
    e0, e1 = len(T0.layers[0].rows), len(T1.layers[0].rows)
    c = 3  # the fourth copy of GA_2 (gradient atoms on input 2)
    first = net.layers[0]
    entry = int(np.lexsort((first.cols, first.rows))[len(own0) * e0 + c * e1 + e1 - 1])
    assert first.cols[entry] == 1 and first.weights[entry] == fmt.from_float(1.0)  # T = relu(x2 ⊖ z2⁻)
    first.weights[entry] = int(first.weights[entry]) ^ 0x1
    bad_atoms = targets.verify_atoms(fmt, net, pts, net, kinds)[0]
    bad_full = _full_nd(fmt, net, pts)[0]
    assert bad_atoms == bad_full and [b["x"] for b in bad_atoms] == [[fmt.hex(b) for b in pts[own1[c]][0]]]
    assert bad_atoms[0]["grad"][1] != bad_atoms[0]["g_target"][1]


def test_atoms_nd_catch_a_wrong_zero_gradient_atom():
    """One zero-gradient atom's output weight one bit off: that point alone, in both."""
    from fpsmt.constructions import relu_nd
    fmt = parse_format("float8_e4m3")
    pts = grid_targets_nd(fmt, 2, [-2.0, 0.0, 1.0, 3.0])
    net = relu_nd.theorem_network(fmt, pts)
    kinds = relu_nd.atom_kinds(fmt, pts)
    n_ga = sum(len(o) for _, o in kinds[:-1])
    order = np.argsort(net.layers[-1].cols, kind="stable")
    j = 9
    _corrupt_output_weight(net, int(order[2 * n_ga + j]))  # a gradient atom has two output entries, a ZGA one
    bad_atoms = targets.verify_atoms(fmt, net, pts, net, kinds)[0]
    assert bad_atoms == _full_nd(fmt, net, pts)[0] and [b["x"] for b in bad_atoms] == [[fmt.hex(b) for b in pts[j][0]]]


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_construct_nd_verify_atoms_end_to_end(tmp_path):
    """float8_e4m3, d = 2, from the CSV: the d-dimensional lemma rows proved into an empty
    store and named; every point verified from its own atoms; the file written and,
    read back, meeting every target in the full evaluation too."""
    from fpsmt.commands import netio
    from fpsmt.constructions import relu_nd
    fmt = parse_format("float8_e4m3")
    pts = grid_targets_nd(fmt, 2, [-2.0, 0.0, 1.0, 3.0])
    p = targets_csv_nd(tmp_path, fmt, pts)
    out = tmp_path / "n.safetensors"
    r = fpsmt("construct", "--targets", str(p), "--format", "float8_e4m3", "--verify", "atoms", "--out", str(out),
              "--store", str(tmp_path / "s.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verify"] == "atoms" and doc["dimension"] == 2 and doc["verified"] == doc["points"] == 16
    assert [(x["lemma"], x["status"]) for x in doc["lemmas"]] == [(n, "PROVED") for n in relu_nd.LEMMAS]
    assert "each from its own atoms and the PROVED lemma rows" in r.stderr
    assert _full_nd(fmt, netio.load_network(out), pts)[0] == []


def test_construct_nd_verify_atoms_refuses_a_dimension_the_lemmas_do_not_state(tmp_path, monkeypatch):
    """The rows are stated for d <= D_MAX (the induction's bound): with D_MAX lowered to
    1, d = 2 is refused in one line before the lemmas are looked up."""
    from fpsmt.constructions import relu_nd
    from fpsmt.proofs import coordinates_nd
    assert relu_nd.D_MAX == coordinates_nd.TERMS_MAX // 2  # two killer terms per coordinate
    fmt = parse_format("float8_e4m3")
    p = targets_csv_nd(tmp_path, fmt, grid_targets_nd(fmt, 2, [0.0, 1.0]))
    code, _, err = _in_process(["construct", "--targets", str(p), "--format", "float8_e4m3", "--verify", "atoms",
                                "--out", str(tmp_path / "n.json"), "--store", str(tmp_path / "s.sqlite")],
                               monkeypatch, lambda mp: mp.setattr(relu_nd, "D_MAX", 1))
    assert code == 2 and "stated for d <= 1, the targets have d = 2; use --verify full" in err and "rests on" not in err
    assert not (tmp_path / "n.json").exists()
