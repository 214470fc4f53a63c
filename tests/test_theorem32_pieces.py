"""Theorem 3.2 with g* given as pieces (``g_pieces(x)``, any format) and the ∀y proof tree
of one point's backward program (proofs/theorem_3_2_relu.py): the tree's stages make up
the program at every y of the 8-bit formats, the tree is PROVED and fails on wrong
programs, the float32 and float64 networks meet the pieces in an independent executor, and
every bad pieces file is one line with exit 2 and nothing written."""

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from fpsmt.commands import construct32, netio
from fpsmt.constructions import theorem32 as M
from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.semantics.arith.concrete import concrete
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run


def _fpsmt(*args, cwd):
    from conftest import fpsmt
    return fpsmt(*args, cwd=cwd)


def _random_pieces(fmt, rng, n):
    """n pieces at random breakpoints (some zero, some constant, some linear) that the
    construction can build."""
    pos = [fmt.to_fraction(int(b)) for b in M.positive_ys(fmt)]
    while True:
        ts = sorted(rng.sample(pos, n))
        pcs = []
        for t in ts:
            r = rng.random()
            if r < 0.2:
                pcs.append(M.Piece(t, "const", Fraction(0)))
            elif r < 0.6:
                pcs.append(M.Piece(t, "const", Fraction(rng.choice([-3, -1, 1, 2, 5]), rng.choice([1, 4]))))
            else:
                pcs.append(M.Piece(t, "linear", Fraction(rng.choice([-5, -1, 1, 3]), rng.choice([1, 2, 8]))))
        if M.overflowing_piece(fmt, pcs) is not None:
            continue
        try:
            M.piece_programs(fmt, pcs)
        except InputError:
            continue
        if PT.segments(pcs):
            return pcs


# ------------------------------------------------------------------ the tree is the program
@pytest.mark.parametrize("name,sizes", [("e4m2", (3, 6)), ("float8_e4m3", (5,)), ("float8_e5m2", (5,)),
                                        pytest.param("float8_e5m2", (3, 6, 9), marks=pytest.mark.slow)])
def test_tree_stages_make_up_the_program_at_every_y(name, sizes):
    """The tree's stages, run one after the other (PT.Exact: each operation rounded once),
    give what the point's program (binary_sums(tree_sum(piece_programs))) gives, run by
    threshold.eval_steps, and what the pieces define — at every finite y."""
    fmt = parse_format(name)
    rng = random.Random(7)
    ex = PT.Exact(fmt)
    for pcs in [PT.builtin_pieces()] + [_random_pieces(fmt, rng, n) for n in sizes]:
        _, _, model = PT.point_tree(fmt, pcs)
        prog = M.binary_sums(M.tree_sum(M.piece_programs(fmt, pcs)))
        for b in T.finite_values(fmt):
            y = fmt.to_fraction(b)
            want = M.piece_value(fmt, pcs, y)
            assert model(ex, y) == want == T.eval_steps(prog, [y], ex.mul, ex.add, ex.const)[0], (pcs, y)


def test_grouping_is_tree_sums():
    """grouping(n) pairs outputs as tree_sum does (checked on the sums' sources)."""
    for n in range(1, 12):
        g = PT.grouping(n)
        leaves = PT._leaves(g)
        assert leaves == list(range(n))
        progs = [[[[(0, Fraction(i + 1))]]] for i in range(n)]
        steps = M.tree_sum(progs)
        assert len(steps) - 2 == _depth(g)  # the programs' one step, the outputs ⊗ 1, then the levels


def _depth(g):
    return 0 if isinstance(g, int) else 1 + max(_depth(g[0]), _depth(g[1]))


# ------------------------------------------------------------------ the tree decided
def _decide(fmt, pieces):
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import decide_tree
    root, _ = PT.point_root(fmt, pieces, "t")
    return decide_tree(Engine(solver="exhaustive", timeout=600), "t", root, "test", fmt)


def test_tree_proved_in_e4m2_and_refuted_on_wrong_programs(monkeypatch):
    """PROVED by enumeration in E4M2; with a staircase stage's shift one ulp too large, or a
    linear piece left unscaled so that ±2^e_max cannot absorb A, a stage is REFUTED with a
    replayed counterexample: the claims can fail."""
    fmt = parse_format("e4m2")
    row = _decide(fmt, PT.builtin_pieces())
    assert row["status"] == "PROVED" and len(row["keys"]) > 20, row["statement"]
    real = T.staircase

    def wrong(fmt_, t, limit=100_000):
        st = list(real(fmt_, t, limit))
        P, s, U = st[0]
        st[0] = (P, fmt_.to_fraction(fmt_.next_up(fmt_.round(s))), U)
        return st
    monkeypatch.setattr(T, "staircase", wrong)
    row = _decide(fmt, PT.builtin_pieces())
    assert row["status"] == "REFUTED" and row["counterexample"] and ".stage1" in row["statement"], row["statement"]
    monkeypatch.setattr(T, "staircase", real)
    split = M.linear_split
    # unscaled (j = 0): A = u ⊗ 3 reaches 48 above |y| = 4, which 2^e_max = 128 does not absorb
    monkeypatch.setattr(M, "linear_split", lambda f, a, b, k: [(a2, b2, 0) for a2, b2, _ in split(f, a, b, k)])
    row = _decide(fmt, PT.builtin_pieces())
    assert row["status"] == "REFUTED" and row["counterexample"] and ".cancel" in row["statement"], row["statement"]


def test_lemma_row_in_e4m2():
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import run as run_lemmas
    rows = run_lemmas(Engine(solver="exhaustive", timeout=600), ["theorem_3_2_relu"], ["repaired"], ["e4m2"])
    assert [r["status"] for r in rows] == ["PROVED"], rows
    assert "2^(E+1) + 2M + 9 = 45" in rows[0]["statement"] and rows[0]["tree"]["kind"] == "lemma"


@pytest.mark.slow
def test_lemma_row_by_the_solvers_every_unsat_confirmed():
    """The row in float8_e5m2 and float16 by the solver portfolio: PROVED, every UNSAT
    answer confirmed by a second back end or an enumeration."""
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import run as run_lemmas
    rows = run_lemmas(Engine(solver="portfolio", timeout=600, confirm=True), ["theorem_3_2_relu"], ["repaired"],
                      ["float8_e5m2", "float16"])
    assert [r["status"] for r in rows] == ["PROVED", "PROVED"], [r["statement"] for r in rows]
    assert all(r["confirmed"]["unconfirmed"] == [] and r["confirmed"]["stages"] > 100 for r in rows)


def test_lemma_row_not_stated_where_the_pieces_cannot_be_built():
    assert "cannot be built in float8_e3m4" in PT.applies(parse_format("float8_e3m4"))
    assert PT.applies(parse_format("float32")) is None


# ------------------------------------------------------------------ fpsmt construct with g_pieces
def _independent(fmt, path, k_of):
    """The written network run whole (semantics.network.run) at y = ±0, 1 and its
    neighbours, the least subnormal, the least normal, Ω and 40 random y of both signs,
    against clipping computed with NumPy's own arithmetic in the format (one rounding per
    product): k·y for |y| < 1, k·sign(y) from 1."""
    net = netio.load_network(path)
    A = concrete(fmt)
    dt = np.float32 if fmt.nbits == 32 else np.float64
    ut = np.uint32 if fmt.nbits == 32 else np.uint64
    rng = np.random.default_rng(3)
    one = fmt.one_bits
    pos = [1, one - 1, one, one + 1, fmt.round(fmt.min_normal), fmt.round(fmt.Omega)]
    pos += [int(b) for b in rng.integers(1, fmt.round(fmt.Omega), 40, dtype=np.uint64)]
    ys = np.asarray([0, fmt.sign_bit] + pos + [b | fmt.sign_bit for b in pos], dtype=np.uint64)
    yf = ys.astype(ut).view(dt)
    bad = checked = 0
    for x, k in k_of.items():
        xb = fmt.round(Fraction(x))
        tr = run(A, net, A.const(np.full((len(ys), 1), xb, dtype=np.uint64)), A.const(ys.reshape(-1, 1)))
        got = A.to_bits(tr.grad).ravel().astype(ut).view(dt)
        kk = dt(k)
        with np.errstate(over="ignore"):  # k·y where |y| >= 1 is computed and not used
            want = np.where(np.abs(yf) < 1, kk * yf, np.where(yf > 0, kk, -kk)) if k else np.zeros_like(yf)
        bad += int((got != want).sum())  # IEEE comparison: a zero target met by either zero
        f = A.to_bits(tr.out).ravel().astype(ut).view(dt)
        bad += int((f != 1).sum())
        checked += len(ys)
    return bad, checked


@pytest.mark.parametrize("name", ["float32", pytest.param("float64", marks=pytest.mark.slow)])
def test_construct_pieces_float32_float64_independent_check(tmp_path, name):
    fmt = parse_format(name)
    r = _fpsmt("construct", "--targets", f"example:clipping_pieces_{name}.py", "--format", name, "--out", "n.json",
               "--no-prove", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["given"] == "pieces" and rep["executor"] == "breakpoints" and rep["mismatches"] == []
    assert rep["claims"] is None and "not decided (--no-prove)" in r.stderr
    bad, checked = _independent(fmt, tmp_path / "n.json", {-1: 2, 0: 1, 0.5: -3, 2: 0})
    assert checked == 4 * 94 and bad == 0


PIECES_FILE = """
def domain():
    return [0, 1, -0.5]


def f_star(x):
    return x


def g_pieces(x):
    if x == 1:
        return []
    if x == 0:
        return [({eighth!r}, "linear", {two!r}), ({half!r}, "const", {one!r})]   # y ⊗ 2 from 1/8, ±1 from 1/2
    return [({half!r}, "const", {minus_one!r})]                              # -sign(y) from 1/2
"""


def _pieces_file(name):
    fmt = parse_format(name)
    h = lambda v: fmt.hex(fmt.round(Fraction(v)))  # noqa: E731
    return PIECES_FILE.format(eighth=h(Fraction(1, 8)), two=h(2), half=h(Fraction(1, 2)), one=h(1), minus_one=h(-1))


def test_construct_pieces_proved_in_e4m2(tmp_path):
    """In E4M2 the pieces network is checked at every finite y and each point's ∀y claims
    are decided (by enumeration): PROVED, the point without pieces has no program."""
    (tmp_path / "t.py").write_text(_pieces_file("e4m2"))
    r = _fpsmt("construct", "--targets", "t.py", "--format", "e4m2", "--out", "n.json", "--solver", "exhaustive",
               "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["executor"] == "every finite y" and rep["mismatches"] == [] and rep["pairs"] == 3 * 120
    assert [c["status"] for c in rep["claims"]] == ["PROVED", "NO PROGRAM", "PROVED"], rep["claims"]
    assert (tmp_path / "n.json").exists()


def test_executor_check_fails_on_a_wrong_network():
    fmt = parse_format("float32")
    pcs = [M.Piece(Fraction(1, 4), "linear", Fraction(3)), M.Piece(Fraction(2), "const", Fraction(5))]
    other = [M.Piece(Fraction(1, 4), "linear", Fraction(3)), M.Piece(Fraction(2), "const", Fraction(6))]
    x0 = fmt.round(Fraction(0))
    pts = [(x0, fmt.round(Fraction(1)))]
    net = M.network(fmt, [(x0, pts[0][1], pcs)])
    assert construct32.check_points_at(fmt, net, construct32._sampled(fmt, pts, [pcs])) == []
    bad = construct32.check_points_at(fmt, net, construct32._sampled(fmt, pts, [other]))
    assert bad and {b[2] for b in bad} == {"D(y)"}
    assert {fmt.to_fraction(y & ~fmt.sign_bit) >= 2 for _, y, *_ in bad} == {True}


HEAD = "def domain():\n    return [0, 1]\n\ndef f_star(x):\n    return x\n\n"
BAD_PIECES = {
    "both": ("def g_star(x, y):\n    return 0\n\ndef g_pieces(x):\n    return []\n", "both g_star and g_pieces"),
    "not_hex": ("def g_pieces(x):\n    return [(1.0, 'const', '0x1c')]\n", "hex bit patterns"),
    "bad_hex": ("def g_pieces(x):\n    return [('0xzz', 'const', '0x1c')]\n", "not a hex bit pattern"),
    "too_wide": ("def g_pieces(x):\n    return [('0x1ff', 'const', '0x1c')]\n", "piece 1"),
    "kind": ("def g_pieces(x):\n    return [('0x1c', 'square', '0x1c')]\n", "neither 'const' nor 'linear'"),
    "zero_t": ("def g_pieces(x):\n    return [('0x00', 'const', '0x1c')]\n", "not a positive finite value"),
    "order": ("def g_pieces(x):\n    return [('0x1c', 'const', '0x1c'), ('0x18', 'const', '0x20')]\n",
              "does not increase"),
    "inf_c": ("def g_pieces(x):\n    return [('0x1c', 'const', '0x7c')]\n", "is not finite"),
    "shape": ("def g_pieces(x):\n    return [('0x1c', 'const')]\n", "is not (t_hex, kind, c_hex)"),
    "number": ("def g_pieces(x):\n    return 3\n", "not a list"),
    "overflow": ("def g_pieces(x):\n    return [('0x1c', 'linear', '0x3b')]\n", "overflows at |y|"),
}


@pytest.mark.parametrize("case", sorted(BAD_PIECES))
def test_bad_pieces_one_line_exit_2(tmp_path, case):
    body, what = BAD_PIECES[case]
    (tmp_path / "t.py").write_text(HEAD + body)
    r = _fpsmt("construct", "--targets", "t.py", "--format", "e4m2", "--out", "net.json", cwd=tmp_path)
    assert r.returncode == 2 and what in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "net.json").exists() and not list(tmp_path.glob(".net.json*"))


@pytest.mark.parametrize("extra,what", [(["--max-pieces", "1"], "gives 2 pieces"),
                                        (["--format", "float8_e3m4"], "cannot be built in float8_e3m4"),
                                        (["--store", "bad.sqlite"], "bad.sqlite"),
                                        (["--certify", "--no-prove"], "cannot be combined with --no-prove"),
                                        (["--prove-network", "--no-prove"], "cannot be combined with --no-prove")])
def test_pieces_refusals_one_line_exit_2(tmp_path, extra, what):
    (tmp_path / "t.py").write_text(_pieces_file("float8_e3m4" if "--format" in extra else "e4m2"))
    (tmp_path / "bad.sqlite").write_text("not a database")
    fmt = ["--format", "e4m2"] if "--format" not in extra else []
    r = _fpsmt("construct", "--targets", "t.py", *fmt, "--out", "net.json", *extra, cwd=tmp_path)
    assert r.returncode == 2 and what in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "net.json").exists()


@pytest.mark.slow
def test_construct_pieces_certified_in_float16(tmp_path):
    """``--certify`` in float16: each point with a program has its program's claims and its
    gated network's (every layer at x, a zero D at the other two points) PROVED, Theorem
    3.1's lemmas are linked, every UNSAT answer confirmed: certified; the JSON says so per
    point.  (About 10 minutes on 2 cores from an empty store.)"""
    (tmp_path / "t.py").write_text(_pieces_file("float16"))
    r = _fpsmt("construct", "--targets", "t.py", "--format", "float16", "--out", "n.json", "--certify",
               "--store", "s.sqlite", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert [c["status"] for c in rep["claims"]] == ["PROVED", "NO PROGRAM", "PROVED"], rep["claims"]
    nets = [c.get("network") for c in rep["claims"]]
    assert nets[1] is None and all(n["status"] == "PROVED" and n["stages"] > 100 for n in (nets[0], nets[2])), nets
    assert rep["certified"] is True and {c["lemma"] for c in rep["certificates"]} >= {
        "zero_gradient_atom", "gradient_atom", "boxplus_neutrality", "theorem_3_1_relu"}


@pytest.mark.slow
def test_construct_g_star_network_claims_in_float16(tmp_path):
    """A g_star(x, y) target with ``--prove-network``: the pieces fpsmt found get the same
    program and network claims, PROVED, after the executor's check at every (x, y)."""
    (tmp_path / "t.py").write_text("def domain():\n    return [0.5, -1]\n\ndef f_star(x):\n    return 1\n\n"
                                   "def g_star(x, y):\n    return (2 if y > 0 else -2) if x == 0.5 and abs(y) >= 1 "
                                   "else 0\n")
    r = _fpsmt("construct", "--targets", "t.py", "--format", "float16", "--out", "n.json", "--prove-network",
               "--store", "s.sqlite", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["mismatches"] == [] and [c["status"] for c in rep["claims"]] == ["PROVED", "NO PROGRAM"], rep["claims"]
    assert rep["claims"][0]["network"]["status"] == "PROVED"


def test_torch_autograd_meets_the_pieces_in_float32():
    """The float32 pieces network as PyTorch scalar operations, torch.autograd with
    grad_outputs = y at the sampled y of both signs: every pair bit-exact — and the
    comparison fails against other pieces."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    fmt = parse_format("float32")
    pcs = [M.Piece(Fraction(1, 4), "linear", Fraction(-3)), M.Piece(Fraction(2), "const", Fraction(5))]
    pts = [(fmt.round(Fraction(1, 2)), fmt.round(Fraction(1)))]
    net = M.network(fmt, [(pts[0][0], pts[0][1], pcs)])
    rep = construct32._torch_pieces(fmt, net, pts, [pcs])
    assert rep["pairs"] > 100 and rep["bit_exact"] == rep["pairs"], rep["differences"][:3]
    other = [M.Piece(Fraction(1, 4), "linear", Fraction(-3)), M.Piece(Fraction(2), "const", Fraction(4))]
    assert construct32._torch_pieces(fmt, net, pts, [other])["bit_exact"] < rep["pairs"]


def _numpy_g(pcs, yf, dt):
    """The pieces' g at float32/float64 y by NumPy's own arithmetic (one rounding per
    product): an independent reading of piece_value."""
    out = np.zeros_like(yf)
    a = np.abs(yf)
    with np.errstate(over="ignore"):
        for i, p in enumerate(pcs):
            hi = pcs[i + 1].t if i + 1 < len(pcs) else None
            inside = (a >= dt(p.t)) & ((a < dt(hi)) if hi is not None else True)
            val = np.where(yf > 0, dt(p.c), -dt(p.c)) if p.kind == "const" else yf * dt(p.c)
            out = np.where(inside, val, out)
    return out


def test_random_float32_pieces_meet_numpy(tmp_path):
    """Random pieces over the float32 binades — constants, zeros and linear pieces, slopes
    from 2^-20 to 2^20 — built as one point's network, run whole by semantics.network.run at
    the breakpoints, their neighbours and random y of both signs, against g computed with
    NumPy float32 products: every D bit-exact (a zero met by either zero)."""
    fmt = parse_format("float32")
    rng = random.Random(11)
    A = concrete(fmt)
    for trial in range(3):
        while True:
            ts = sorted({Fraction(2) ** rng.randint(-140, 120) * rng.choice([1, 3, 5]) for _ in range(5)})
            pcs = []
            for t in ts:
                r = rng.random()
                c = Fraction(rng.choice([-1, 1]) * rng.choice([1, 3, 7]), 1) * Fraction(2) ** rng.randint(-20, 20)
                pcs.append(M.Piece(t, "const", Fraction(0) if r < 0.2 else c) if r < 0.5 else M.Piece(t, "linear", c))
            if M.overflowing_piece(fmt, pcs) is None:
                try:
                    progs = M.piece_programs(fmt, pcs)
                    break
                except InputError:
                    continue
        z = fmt.round(Fraction(rng.choice([0, 1, -3])))
        net = M.point_network(fmt, fmt.to_fraction(z), progs)
        pos = sorted({fmt.round(p.t) + d for p in pcs for d in (-1, 0, 1)} | {1, fmt.round(fmt.Omega)}
                     | {int(b) for b in np.random.default_rng(trial).integers(1, fmt.round(fmt.Omega), 40)})
        ys = np.asarray([0] + pos + [b | fmt.sign_bit for b in pos], dtype=np.uint64)
        tr = run(A, net, A.const(np.full((len(ys), 1), z, dtype=np.uint64)), A.const(ys.reshape(-1, 1)))
        got = A.to_bits(tr.grad).ravel().astype(np.uint32).view(np.float32)
        want = _numpy_g(pcs, ys.astype(np.uint32).view(np.float32), np.float32)
        assert np.array_equal(got, want), [(hex(int(y)), g, w) for y, g, w in zip(ys, got, want) if g != w][:5]


# ------------------------------------------------------------------ the network computes the program
def _one(fmt, node):
    from fpsmt.proof.engine import Engine
    return Engine(solver="portfolio", timeout=300, confirm=False).prove(node.claim, fmt, {node.claim.name: node.claim})


def _double_a_weight(monkeypatch, k):
    """Networks built from now on get, in program step k, its first unit with a weight
    other than 1 with those weights doubled."""
    real = T.gated_program

    def wrong(fmt_, z, steps_, layout_=None):
        bad = [list(map(list, st)) for st in steps_]
        u = next(j for j, unit in enumerate(bad[k]) if any(w != 1 for _, w in unit))
        bad[k][u] = [(src, w * 2 if w != 1 else w) for src, w in bad[k][u]]
        return real(fmt_, z, bad, layout_)
    monkeypatch.setattr(T, "gated_program", wrong)


def test_chain_claims_fail_on_a_network_with_one_wrong_weight(monkeypatch):
    """The layer claims compare the network as built with the program: a network built
    from a program whose step k has one weight doubled is REFUTED at that layer (with a
    replayed counterexample), while the true network's claim for the same layer, and the
    gate's, are PROVED."""
    fmt = parse_format("float8_e5m2")
    steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, PT.builtin_pieces())))
    nodes, net, layout = PT.chain_nodes(fmt, 3, steps)
    k = next(k for kind, k in layout if kind == "step" and k > 2 and any(w != 1 for u in steps[k] for _, w in u))
    i = layout.index(("step", k))
    name = nodes[1 + i].name
    assert name.endswith(f"layer{len(net.layers) - len(layout) + i}")
    assert _one(fmt, nodes[0]).status == "PROVED"  # the gate
    assert _one(fmt, nodes[1 + i]).status == "PROVED"
    _double_a_weight(monkeypatch, k)
    nodes2, _, _ = PT.chain_nodes(fmt, 3, steps)
    r = _one(fmt, nodes2[1 + i])
    assert r.status == "REFUTED" and r.witness, r.reason


def test_killed_claims_fail_where_a_chain_neuron_stays_alive():
    """At another domain point the gated network's D must be a zero for every finite y:
    PROVED for the network as built, REFUTED (replayed) once the last hidden layer's first
    chain neuron gets a bias of 4, which the killers (1 at x ≠ z) no longer cancel."""
    import dataclasses

    from fpsmt.semantics.network import Network
    fmt = parse_format("float8_e5m2")
    steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, PT.builtin_pieces())))
    _, net, _ = PT.chain_nodes(fmt, 3, steps)
    one = fmt.round(Fraction(1))
    good, = PT.killed_nodes(fmt, 3, net, [one])
    assert good.name.endswith(f"killed.x{fmt.hex(one)}")
    assert _one(fmt, good).status == "PROVED"
    hidden = net.layers[-2]
    bias = list(hidden.bias)
    bias[0] = fmt.round(Fraction(4))
    wrong = Network(fmt, net.layers[:-2] + [dataclasses.replace(hidden, bias=bias), net.layers[-1]])
    bad, = PT.killed_nodes(fmt, 3, wrong, [one])
    r = _one(fmt, bad)
    assert r.status == "REFUTED" and r.witness, r.reason


# ------------------------------------------------------------------ --certify
def test_forward_finiteness_ground_check_fails_on_an_overflowing_network(monkeypatch):
    """The certification's ground fact (each gated network alone has finite values at every
    domain point) holds for the networks as built, and names the point, the network and
    the layer when a first-layer weight is made large enough to overflow."""
    import dataclasses

    from fpsmt.semantics.network import Network
    fmt = parse_format("float16")
    pts = [(fmt.round(Fraction(1, 2)), fmt.round(Fraction(1))), (fmt.round(Fraction(-1)), fmt.round(Fraction(0)))]
    pcs = [[M.Piece(Fraction(1), "const", Fraction(2))], []]
    assert construct32._forward_not_finite(fmt, pts, pcs) == []
    real = M.point_network

    def wrong(fmt_, z, programs):
        net = real(fmt_, z, programs)
        if net is None:
            return None
        first = net.layers[0]
        big = fmt.round(Fraction(60000))
        return Network(fmt_, [dataclasses.replace(first, weights=[big] * len(first.weights))] + net.layers[1:])
    monkeypatch.setattr(M, "point_network", wrong)
    bad = construct32._forward_not_finite(fmt, pts, pcs)
    assert bad and {(z, x) for z, x, _ in bad} <= {(pts[0][0], x) for x, _ in pts}, bad


def test_certify_needs_every_point_proved_and_confirmed(monkeypatch):
    """construct32._certify: certified only when Theorem 3.1's lemmas are and every point
    with a program has PROVED program and network claims with every UNSAT confirmed; each
    failing part is named."""
    from types import SimpleNamespace

    from fpsmt.commands import certify
    fmt = parse_format("float16")
    pts = [(fmt.round(Fraction(1, 2)), fmt.round(Fraction(1))), (fmt.round(Fraction(-1)), fmt.round(Fraction(0)))]
    pcs = [[M.Piece(Fraction(1), "const", Fraction(2))], []]
    monkeypatch.setattr(certify, "link_lemmas", lambda *a, **k: ([], True))
    args = SimpleNamespace(confirm=True)
    ok = {"status": "PROVED", "confirmed": {"unconfirmed": []}}

    def row(net):
        return {**ok, **({"network": net} if net is not None else {})}
    assert construct32._certify(args, fmt, None, pts, pcs, [row(ok), None])[1] is True
    assert construct32._certify(args, fmt, None, pts, pcs, [row(None), None])[1] is False
    assert construct32._certify(args, fmt, None, pts, pcs, [row({**ok, "status": "UNKNOWN"}), None])[1] is False
    assert construct32._certify(args, fmt, None, pts, pcs,
                                [row({**ok, "confirmed": {"unconfirmed": ["a"]}}), None])[1] is False
    monkeypatch.setattr(certify, "link_lemmas", lambda *a, **k: ([], False))
    assert construct32._certify(args, fmt, None, pts, pcs, [row(ok), None])[1] is False


# ------------------------------------------------------------------ the staircase by induction
def test_stair_runs_are_the_program_stage_for_stage():
    """Every run that an induction proves is a run of halving stages whose programs are the
    template's at each index, weight for weight (an independent reading: 2^(E_j + d_j·i)
    against threshold.stage_steps); float64's staircase of 4 is 1,023 stages, nearly all
    in runs."""
    fmt = parse_format("float64")
    st = T.staircase(fmt, Fraction(4))
    bounds = [fmt.Omega] + [after for _, _, after in st]
    runs = PT.stair_runs(fmt, st, bounds)
    assert len(st) == 1023 and sum(b - a + 1 for a, b, _ in runs) > 950
    for a, b, (E, d) in runs:
        for k in range(a, b + 1):
            P, s, after = st[k]
            assert P == s == after and bounds[k] == 2 * P
            steps = T.stage_steps(fmt, P, s)
            got = [step[1][0][1] for step in steps[:-1]]
            assert got == [Fraction(2) ** (e + dj * (k - a)) for e, dj in zip(E, d)]


def test_stair_induction_step_fails_on_a_wrong_template(monkeypatch):
    """The induction's step over float32's longest run of the staircase of 4 is PROVED; with
    the template's first varying weight one power of two too large it is REFUTED, with a
    replayed counterexample."""
    fmt = parse_format("float32")
    st = T.staircase(fmt, Fraction(4))
    bounds = [fmt.Omega] + [after for _, _, after in st]
    a, b, tpl = max(PT.stair_runs(fmt, st, bounds), key=lambda r: r[1] - r[0])
    items, invs, _ = PT._stairs(fmt, "t", Fraction(4), st)

    def step_of(nodes):
        found = [n for n in nodes if n.kind == "induction" and n.name == f"t.stages{a + 1}to{b + 1}"]
        step, = [c for c in found[0].children if c.kind == "step"]
        return step
    step = step_of(items)
    assert _one(fmt, step).status == "PROVED"
    real = PT._template_steps

    def wrong(s, base, E, d, i):
        j = next(j for j, dj in enumerate(d) if dj)
        return real(s, base, [e + (1 if n == j else 0) for n, e in enumerate(E)], d, i)
    monkeypatch.setattr(PT, "_template_steps", wrong)
    items2, _, _ = PT._stairs(fmt, "t", Fraction(4), st)
    r = _one(fmt, step_of(items2))
    assert r.status == "REFUTED" and r.witness, r.reason


# ------------------------------------------------------------------ the network's layers by runs
def _span(name):
    """(first, last, period) of a run claim's layers, from its name (…layersAtoBbyP)."""
    a, rest = name.split(".layers")[1].split("to")
    b, p = rest.split("by")
    return int(a), int(b), int(p)


def _chain(fmt):
    steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, PT.builtin_pieces())))
    return steps, PT.chain_nodes(fmt, 0, steps)


def test_layer_runs_are_the_network_layer_for_layer():
    """Every run of layers one claim covers repeats its first period weight for weight: an
    independent reading of the built network (its weights as rationals, and the program
    steps they compute) against 2^(d·i) times the first period's; bfloat16's 813 layers
    after the gate take 99 claims per x instead."""
    fmt = parse_format("bfloat16")
    steps, (nodes, net, layout) = _chain(fmt)
    first = len(net.layers) - len(layout)
    seen = 0
    for node in nodes:
        if ".layers" not in node.name:
            continue
        li, last, p = _span(node.name)
        base = [fmt.to_fraction(int(w)) for w in net.layers[li].weights]
        kind, k0 = layout[li - first]
        prog0 = [w for u in steps[k0] for _, w in u] if kind == "step" else []
        for i, lj in enumerate(range(li + p, last + 1, p), start=1):
            got = [fmt.to_fraction(int(w)) for w in net.layers[lj].weights]
            assert len(got) == len(base) and layout[lj - first][0] == kind
            ratios = {g / b for g, b in zip(got, base) if b} | ({1} if not any(base) else set())
            assert ratios <= {Fraction(2) ** i, Fraction(1), Fraction(2) ** -i}, (node.name, lj)
            assert all((g == 0) == (b == 0) for g, b in zip(got, base))
            if kind == "step":
                prog = [w for u in steps[layout[lj - first][1]] for _, w in u]
                assert {g / b for g, b in zip(prog, prog0) if b} <= {Fraction(2) ** i, Fraction(1), Fraction(2) ** -i}
            seen += 1
    assert seen > 650
    assert len([n for n in nodes if n.name.startswith("chain.x0x0000.")]) < 120


def test_layer_run_claim_fails_on_a_wrong_template(monkeypatch):
    """A run's claim over a symbolic i (float8_e5m2) is PROVED; with the layer's moving
    weights read one power of two too large (the program's as they are) it is REFUTED,
    with a replayed counterexample."""
    import dataclasses
    fmt = parse_format("float8_e5m2")
    _, (nodes, _, _) = _chain(fmt)
    node = next(n for n in nodes if ".layers" in n.name and n.name.startswith("chain.x0x00.") and " 0 weights" not in n.doc)
    assert _one(fmt, node).status == "PROVED"
    real = PT._form

    def shifted(fmt_, layer, *rest, **kw):
        form = real(fmt_, layer, *rest, **kw)
        n = len(layer.weights)
        return dataclasses.replace(form, exps=[x + 1 if x is not None and j < n else x for j, x in enumerate(form.exps)])
    monkeypatch.setattr(PT, "_form", shifted)
    _, (nodes2, _, _) = _chain(fmt)
    bad = next(n for n in nodes2 if n.name == node.name)
    r = _one(fmt, bad)
    assert r.status == "REFUTED" and r.witness, r.reason


def test_a_wrong_weight_inside_a_run_is_refuted(monkeypatch):
    """One weight doubled in a layer in the middle of a run (float8_e5m2): the run no
    longer covers that layer as it is, and the claim that covers it is REFUTED."""
    fmt = parse_format("float8_e5m2")
    steps, (nodes, net, layout) = _chain(fmt)
    first = len(net.layers) - len(layout)
    node = next(n for n in nodes if ".layers" in n.name and n.name.startswith("chain.x0x00."))
    li, last, p = _span(node.name)
    mid = li + p * ((last - li) // p // 2)
    kind, k = layout[mid - first]
    assert kind == "step" and any(w != 1 for u in steps[k] for _, w in u)
    _double_a_weight(monkeypatch, k)
    nodes2, _, _ = PT.chain_nodes(fmt, 0, steps)

    def covers(name):
        if name.endswith(f".layer{mid}"):
            return True
        if ".layers" not in name:
            return False
        a, b, q = _span(name)
        return a <= mid <= b and (mid - a) % q == 0
    cover = [n for n in nodes2 if n.name.startswith("chain.x0x00.") and covers(n.name)]
    assert len(cover) == 1 and cover[0].name != node.name
    r = _one(fmt, cover[0])
    assert r.status == "REFUTED" and r.witness, r.reason
