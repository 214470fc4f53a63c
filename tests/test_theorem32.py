"""Theorem 3.2 for ReLU (fpsmt.constructions.theorem32, ``fpsmt construct`` with a two-parameter
g_star): pieces found from a tabulated g*, the linear piece's program at every y, the whole
network verified at every (x, y) — by the construction's block-aware check and, here,
independently by the whole-network executor against targets computed from the file —
and every refusal one line with exit 2 and nothing written."""

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from fpsmt.commands import netio
from fpsmt.constructions import theorem32 as M
from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.semantics.arith.concrete import concrete
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run


def _fpsmt(*args, cwd):
    from conftest import fpsmt
    return fpsmt(*args, cwd=cwd)


def _table(fmt, g):
    """g(y) (exact rationals) at every finite y in all_ys order, each rounded once."""
    return np.array([fmt.round(Fraction(g(fmt.to_fraction(int(y))))) for y in M.all_ys(fmt)], dtype=np.uint64)


def _random_g(fmt, rng, n_pieces):
    """A random odd g over |y>: breakpoints, each piece 0, a constant or y·k (as exact
    rationals, rounded by the caller)."""
    pos = [fmt.to_fraction(int(b)) for b in M.positive_ys(fmt)]
    cuts = sorted(rng.sample(range(1, len(pos)), n_pieces - 1))
    starts = [pos[0]] + [pos[c] for c in cuts]
    kinds = []
    for _ in starts:
        r = rng.random()
        kinds.append(("zero", 0) if r < 0.2 else ("const", Fraction(rng.choice([-3, -1, 1, 2, 5]), rng.choice([1, 4])))
                     if r < 0.6 else ("linear", Fraction(rng.choice([-5, -1, 1, 3]), rng.choice([1, 2, 8]))))

    def g(y):
        if y == 0:
            return 0
        a, s = abs(y), (1 if y > 0 else -1)
        i = max(j for j, t in enumerate(starts) if t <= a)
        kind, c = kinds[i]
        return 0 if kind == "zero" else c * s if kind == "const" else y * c
    return g


# ------------------------------------------------------------------ pieces
@pytest.mark.parametrize("name", ["e4m2", "float8_e4m3", "float8_e5m2"])
def test_find_pieces_reproduce_g_at_every_y(name):
    """The pieces found from a table give back the table at every positive y (read by
    piece_value, not by the finder), and a random g of n pieces needs at most n."""
    fmt = parse_format(name)
    rng = random.Random(7)
    for n in (1, 2, 3, 5, 8):
        g = _random_g(fmt, rng, n)
        tab = _table(fmt, g)
        if not all(fmt.is_finite(int(b)) for b in tab):
            continue
        half = len(tab) // 2
        pieces = M.find_pieces(fmt, tab[1:half])
        assert len(pieces) <= n
        again = [fmt.round(M.piece_value(fmt, pieces, fmt.to_fraction(int(y)))) for y in M.positive_ys(fmt)]
        assert (M.canon(fmt, again) == M.canon(fmt, tab[1:half])).all()


def test_find_pieces_stops_after_the_limit():
    fmt = parse_format("e4m2")
    alternating = np.array([fmt.round(Fraction((-1) ** i)) for i in range(fmt.max_bits)], dtype=np.uint64)
    assert len(M.find_pieces(fmt, alternating, limit=5)) == 6
    assert M.count_pieces(fmt, alternating) == fmt.max_bits


# ------------------------------------------------------------------ the linear piece's program
def _program_at_every_y(fmt, steps):
    A = concrete(fmt)
    ys = M.all_ys(fmt)
    out, = T.eval_steps(steps, [A.const(ys)], A.mul, A.add,
                        lambda w: A.const(np.full(len(ys), fmt.round(Fraction(w)), dtype=np.uint64)))
    return M.canon(fmt, A.to_bits(out))


@pytest.mark.parametrize("name", ["e4m2", "float8_e5m2"])
def test_linear_piece_program_every_y(name):
    """y ⊗ k on [a, b), a zero elsewhere, at every finite y: the program run on y (each
    operation rounded once, as D^AD at x = z computes it) against the exact target."""
    fmt = parse_format(name)
    pos = [fmt.to_fraction(int(b)) for b in M.positive_ys(fmt)]
    rng = random.Random(3)
    for _ in range(12):
        ia = rng.randrange(len(pos) - 1)
        ib = rng.choice([None, rng.randrange(ia + 1, len(pos))])
        a, b = pos[ia], (pos[ib] if ib is not None else None)
        k = Fraction(rng.choice([-3, 1, 5]), rng.choice([1, 8]))
        if not fmt.is_finite(fmt.round((b or fmt.Omega) * k)):
            continue
        steps = T.parallel([M.linear_program(fmt, aa, bb, k, j) for aa, bb, j in M.linear_split(fmt, a, b, k)])
        pieces = [M.Piece(pos[0], "const", Fraction(0)), M.Piece(a, "linear", k)] + \
            ([M.Piece(b, "const", Fraction(0))] if b is not None else [])
        want = _table(fmt, lambda y: M.piece_value(fmt, pieces, y))
        got = _program_at_every_y(fmt, steps)
        assert (got == M.canon(fmt, want)).all(), (a, b, k)


def test_linear_piece_program_check_fails_on_a_wrong_scale():
    """The same check on a program scaled wrongly (2^j without the 2^-j) finds mismatches."""
    fmt = parse_format("e4m2")
    a, b, k = Fraction(1, 4), Fraction(2), Fraction(3)
    (aa, bb, j), = M.linear_split(fmt, a, b, k)
    assert j > 0
    wrong = M.linear_program(fmt, aa, bb, k, j) + [[[(0, Fraction(2))]]]
    pieces = [M.Piece(fmt.omega, "const", Fraction(0)), M.Piece(a, "linear", k), M.Piece(b, "const", Fraction(0))]
    want = M.canon(fmt, _table(fmt, lambda y: M.piece_value(fmt, pieces, y)))
    assert (_program_at_every_y(fmt, wrong) != want).any()


def test_linear_piece_refused_where_nothing_absorbs_it():
    """float8_e3m4's 2^e_max absorbs values up to 1/8 only: a clipping slope is refused
    with a reason, not built wrong."""
    fmt = parse_format("float8_e3m4")
    with pytest.raises(InputError, match="cannot be built in float8_e3m4"):
        M.linear_split(fmt, Fraction(1, 4), Fraction(1), Fraction(1))


# ------------------------------------------------------------------ the network
def _independent_check(fmt, net_path, targets_mod, bound=None):
    """The written network run whole (semantics.network.run, not the block-aware check) at
    every (x, y) of the example (every finite y, or every |y| <= ``bound``), against f* and
    g* computed here from the file's functions with exact rationals, each rounded once."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("t32_example", targets_mod)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    net = netio.load_network(net_path)
    A = concrete(fmt)
    ys = M.all_ys(fmt)
    if bound is not None:
        ys = np.asarray([y for y in ys if abs(fmt.to_fraction(int(y))) <= bound], dtype=np.uint64)
    bad = 0
    for x in mod.domain():
        xb = fmt.round(Fraction(x))
        xf = float(fmt.to_fraction(xb))
        f_want = M.canon(fmt, [fmt.round(Fraction(mod.f_star(xf)))])
        for lo in range(0, len(ys), 8192):  # the whole trace of a deep network at every y would not fit in memory
            part = ys[lo:lo + 8192]
            tr = run(A, net, A.const(np.full((len(part), 1), xb, dtype=np.uint64)), A.const(part.reshape(-1, 1)))
            f_got = M.canon(fmt, A.to_bits(tr.out).ravel())
            g_got = M.canon(fmt, A.to_bits(tr.grad).ravel())
            g_want = M.canon(fmt, [fmt.round(Fraction(mod.g_star(xf, float(fmt.to_fraction(int(y))))))
                                   for y in part])
            bad += int((f_got != f_want[0]).sum()) + int((g_got != g_want).sum())
    return bad


@pytest.mark.parametrize("example,name", [("gradient_clipping", "e4m2"),
                                          pytest.param("sign_gradient", "e4m2", marks=pytest.mark.slow),
                                          ("dead_zone", "float8_e5m2"),
                                          pytest.param("gradient_clipping", "float8_e4m3", marks=pytest.mark.slow),
                                          pytest.param("dead_zone", "float16", marks=pytest.mark.slow)])
def test_construct_examples_every_x_every_y(tmp_path, example, name):
    from fpsmt.resources import resolve
    fmt = parse_format(name)
    r = _fpsmt("construct", "--targets", f"example:{example}.py", "--format", name, "--out", "net.json", "--json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["theorem"] == "3.2" and rep["mismatches"] == [] and rep["verified"] == rep["pairs"]
    assert rep["pairs"] == len(rep["pieces"]) * len(M.all_ys(fmt))
    assert _independent_check(fmt, tmp_path / "net.json", resolve(f"example:{example}.py")) == 0


def test_verify_catches_a_wrong_network_and_a_wrong_target():
    """The check the command runs fails on a network built for other pieces and on a
    target changed at one y."""
    fmt = parse_format("e4m2")
    x0 = fmt.round(Fraction(1))
    g = lambda y: 0 if y == 0 else (2 if y > 0 else -2) if abs(y) >= 1 else y * 3  # noqa: E731
    tab = _table(fmt, g)
    pieces = M.find_pieces(fmt, tab[1:len(tab) // 2])
    net = M.network(fmt, [(x0, fmt.round(Fraction(5)), pieces)])
    assert M.verify(fmt, net, [(x0, fmt.round(Fraction(5)))], [tab])[0] == []
    wrong = [M.Piece(p.t, p.kind, p.c * 2 if p.kind == "const" else p.c) for p in pieces]
    bad, _, _ = M.verify(fmt, M.network(fmt, [(x0, fmt.round(Fraction(5)), wrong)]), [(x0, fmt.round(Fraction(5)))], [tab])
    assert bad and all(w == "D(y)" for _, _, w, _, _ in bad)
    tab2 = tab.copy()
    j = int(np.flatnonzero(M.all_ys(fmt) == fmt.round(Fraction(3, 4)))[0])
    tab2[j] = fmt.round(Fraction(7))
    bad, _, _ = M.verify(fmt, net, [(x0, fmt.round(Fraction(5)))], [tab2])
    assert [(y, w) for _, y, w, _, _ in bad] == [(fmt.round(Fraction(3, 4)), "D(y)")]


def test_far_point_large_values():
    """A point at the edge of X (R = an ulp of 2^(e_max−2) forward) with pieces of large
    values: the forward pass stays finite (identity layers shrink it) and D meets g*."""
    fmt = parse_format("float8_e5m2")
    z = R_top = M.R.constants(fmt).M_sigma
    g = lambda y: 0 if y == 0 else (1 if y > 0 else -1) * (Fraction(40000) if abs(y) >= 2 else Fraction(3, 4))  # noqa: E731
    tab = _table(fmt, g)
    pieces = M.find_pieces(fmt, tab[1:len(tab) // 2])
    pts = [(fmt.round(z), fmt.round(Fraction(-2))), (fmt.round(-R_top), 0)]
    zero = _table(fmt, lambda y: 0)
    net = M.network(fmt, [(pts[0][0], pts[0][1], pieces), (pts[1][0], pts[1][1], [])])
    assert M.verify(fmt, net, pts, [tab, zero])[0] == []


# ------------------------------------------------------------------ refusals
BAD_TARGETS = {
    "not_odd": ("def g_star(x, y):\n    return 1 if y > 0 else 0\n", "is not odd"),
    "zero": ("def g_star(x, y):\n    return 1 if y >= 0 else -1\n", "is not a zero"),
    "inf": ("def g_star(x, y):\n    return y * 1e6\n", "not finite"),
}
HEAD = "def domain():\n    return [0, 1]\n\ndef f_star(x):\n    return x\n\n"


@pytest.mark.parametrize("case", sorted(BAD_TARGETS))
def test_bad_targets_one_line_exit_2(tmp_path, case):
    body, what = BAD_TARGETS[case]
    (tmp_path / "t.py").write_text(HEAD + body)
    r = _fpsmt("construct", "--targets", "t.py", "--format", "e4m2", "--out", "net.json", cwd=tmp_path)
    assert r.returncode == 2 and what in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "net.json").exists() and not list(tmp_path.glob(".net.json*"))


def test_first_non_odd_point_named(tmp_path):
    (tmp_path / "t.py").write_text(HEAD + "def g_star(x, y):\n    return 1 if x == 1 and y == -0.5 else 0\n")
    r = _fpsmt("construct", "--targets", "t.py", "--format", "e4m2", "--out", "net.json", cwd=tmp_path)
    assert r.returncode == 2 and "at x = 0x1c (1.0), y = 0x18 (0.5): g* is not odd" in r.stderr, r.stderr


@pytest.mark.parametrize("extra,what", [(["--max-pieces", "1"], "has 2 pieces"),
                                        (["--format", "float32"], "at most 16 bits"),
                                        (["--activation", "sigmoid", "--prove-network", "--no-prove"],
                                         "cannot be combined with --no-prove"),
                                        (["--torch"], "PyTorch has no IEEE arithmetic for E4M2"),
                                        (["--max-pieces", "0"], "--max-pieces"),
                                        (["--format", "float8_e3m4"], "cannot be built in float8_e3m4")])
def test_refusals_one_line_exit_2(tmp_path, extra, what):
    fmt = ["--format", "e4m2"] if "--format" not in extra else []
    r = _fpsmt("construct", "--targets", "example:gradient_clipping.py", *fmt, "--out", "net.json", *extra,
               cwd=tmp_path)
    assert r.returncode == 2 and what in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "net.json").exists()


# ------------------------------------------------------------------ sums of two terms, and PyTorch
def test_binary_sums_same_values_two_terms_each():
    """binary_sums leaves every value at every y as it was, and no unit sums more than
    two terms."""
    fmt = parse_format("e4m2")
    g = _random_g(fmt, random.Random(11), 6)
    tab = _table(fmt, g)
    pieces = M.find_pieces(fmt, tab[1:len(tab) // 2])
    steps = T.parallel(M.piece_programs(fmt, pieces))
    assert max(len(u) for step in steps for u in step) > 2
    binary = M.binary_sums(steps)
    assert max(len(u) for step in binary for u in step) <= 2
    assert (_program_at_every_y(fmt, binary) == _program_at_every_y(fmt, steps)).all()
    assert (_program_at_every_y(fmt, binary) == M.canon(fmt, tab)).all()


def _torch_case(monkeypatch, binary, cache={}):  # noqa: B006  (the table is the same both times)
    from fpsmt.commands import construct32
    fmt = parse_format("float16")
    if not binary:
        monkeypatch.setattr(M, "binary_sums", lambda steps: steps)
    if not cache:
        g = lambda y: 0 if y == 0 else (3 if y > 0 else -3) if abs(y) >= 2 else y * Fraction(5, 4)  # noqa: E731
        cache["tab"] = tab = _table(fmt, g)
        cache["pieces"] = M.find_pieces(fmt, tab[1:len(tab) // 2])
    tab, pieces = cache["tab"], cache["pieces"]
    pts = [(fmt.round(Fraction(1, 2)), fmt.round(Fraction(-1)))]
    net = M.network(fmt, [(pts[0][0], pts[0][1], pieces)])
    return construct32.torch_check(fmt, net, pts, [tab], [pieces])


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_torch_autograd_meets_g_star(monkeypatch):
    """The network as PyTorch scalar operations, torch.autograd with grad_outputs = y, meets
    g* at every pair checked — and, without binary_sums, PyTorch's own accumulation order
    changes D at some y (the check fails on that network)."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    rep = _torch_case(monkeypatch, binary=True)
    assert rep["pairs"] > 100 and rep["bit_exact"] == rep["pairs"]
    rep = _torch_case(monkeypatch, binary=False)
    assert rep["bit_exact"] < rep["pairs"]


def test_domain_checked_before_g_star_is_called(tmp_path):
    """x outside X (or twice) is refused before g* is tabulated: g_star here would raise."""
    for dom, what in (("[0, 64]", "is not in relu's X = [-2^5, 2^5]"), ("[0.5, 0.5]", "appears twice")):
        (tmp_path / "t.py").write_text(f"def domain():\n    return {dom}\n\ndef f_star(x):\n    return x\n\n"
                                       "def g_star(x, y):\n    raise RuntimeError('called')\n")
        r = _fpsmt("construct", "--targets", "t.py", "--format", "e4m2", "--out", "net.json", cwd=tmp_path)
        assert r.returncode == 2 and what in r.stderr and "called" not in r.stderr, r.stderr
