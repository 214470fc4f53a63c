"""Theorem 3.2 for tanh (fpsmt.constructions.gated_sat): the gated network of a backward
program, checked by the executor at every x of tanh's X and every finite |y| <= H; the
checks failing on a wrong network; ``fpsmt construct --activation tanh`` with a
two-parameter g_star, checked again by the whole-network executor against targets
computed from the file; and the refusals."""

import json
from fractions import Fraction

import pytest

from fpsmt.constructions import gated_sat as GS
from fpsmt.constructions import saturating as S
from fpsmt.constructions import threshold as T
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Layer, Network

from conftest import fpsmt
from test_theorem32_elu import _smallest  # BRIEF §9's smallest program


def _xs(fmt):
    """Every x of tanh's X = [−2^(e_max−1), 2^(e_max−1)]."""
    top = Fraction(2) ** (fmt.e_max - 1)
    return [b for b in T.finite_values(fmt) if abs(fmt.to_fraction(b)) <= top]


def _ys(fmt, H):
    return [b for b in T.finite_values(fmt) if abs(fmt.to_fraction(b)) <= H]


def _net(fmt, z, steps):
    with S.hidden_activation("tanh"):
        return GS.gated_program(fmt, Fraction(z), steps), GS.y_bound(fmt)


@pytest.mark.parametrize("z", [0, Fraction(-3, 2), 64])
def test_gated_network_every_x_every_y_up_to_h(z):
    """At x = z, D(y) is the program's value for every finite |y| <= H; at every other x of X
    a zero; f a zero everywhere; every hidden layer is tanh.  Beyond H the gate's G ⊗ y is
    not finite at some y (the bound is the network's, not only the theorem's)."""
    fmt = parse_format("e4m2")
    blocks, steps = _smallest(fmt)
    net, H = _net(fmt, z, steps)
    assert H == 1
    assert {L.activation for L in net.layers[:-1]} == {"tanh"} and net.layers[-1].activation == "identity"
    assert T.mismatches(fmt, net, blocks, ys=_ys(fmt, H), xs=_xs(fmt), z=Fraction(z)) == []
    beyond = T.mismatches(fmt, net, blocks, xs=[fmt.round(Fraction(z))], z=Fraction(z))
    assert beyond and all(abs(fmt.to_fraction(y)) > H for _, y, _, _, _ in beyond)


def _with(net, k, i, factor=None, bias=None):
    """``net`` with weight i of layer k times ``factor``, or bias i of layer k set to ``bias``."""
    fmt = net.fmt
    L = net.layers[k]
    w, b = list(L.weights), list(L.bias)
    if factor is not None:
        w[i] = fmt.round(factor * fmt.to_fraction(w[i]))
    if bias is not None:
        b[i] = fmt.round(Fraction(bias))
    layers = list(net.layers)
    layers[k] = Layer(L.n_out, L.n_in, L.rows, L.cols, w, b, L.activation)
    return Network(fmt, layers)


def test_check_fails_on_a_wrong_network():
    """The same check finds a twin's output weight doubled (f is no longer a zero), the top's
    gate bias −G made −G/2 (t_j no longer +0 at z, so the twins do not cancel), and the network
    run with ReLU instead of tanh."""
    fmt = parse_format("e4m2")
    blocks, steps = _smallest(fmt)
    net, H = _net(fmt, 0, steps)
    xs, ys = _xs(fmt), _ys(fmt, H)
    out = net.depth - 1
    twin = _with(net, out, 1, factor=2)
    assert any(w == "f(x)" for _, _, w, _, _ in T.mismatches(fmt, twin, blocks, ys=ys, xs=xs))
    top = net.depth - 2
    G = GS.gate_weight(fmt)
    half = _with(net, top, 0, bias=-G / 2)
    assert T.mismatches(fmt, half, blocks, ys=ys, xs=xs)
    relu = Network(fmt, [Layer(L.n_out, L.n_in, L.rows, L.cols, L.weights, L.bias,
                               "relu" if L.activation == "tanh" else L.activation) for L in net.layers])
    assert T.mismatches(fmt, relu, blocks, ys=ys, xs=xs)


def test_padding_keeps_the_network_exact():
    """A deeper network (×1 carries of the path first) meets the same targets."""
    fmt = parse_format("e4m2")
    blocks, steps = _smallest(fmt)
    with S.hidden_activation("tanh"):
        least = GS.least_depth(fmt, GS.chain_layers(fmt, steps))
        net = GS.gated_program(fmt, Fraction(1, 2), steps, depth=least + 3)
        H = GS.y_bound(fmt)
    assert net.depth == least + 3
    assert T.mismatches(fmt, net, blocks, ys=_ys(fmt, H), xs=_xs(fmt), z=Fraction(1, 2)) == []


@pytest.mark.parametrize("example,name", [("dead_zone", "float8_e4m3"), ("sign_gradient", "e4m2"),
                                          pytest.param("gradient_clipping", "float16", marks=pytest.mark.slow)])
def test_construct_tanh_every_x_every_y_up_to_h(tmp_path, example, name):
    fmt = parse_format(name)
    check_construct(tmp_path, example, fmt, "tanh", Fraction(2) ** (fmt.M - 2))  # tanh's H_σ, as the paper states it


def check_construct(tmp_path, example, fmt, act, H):
    """``construct --activation act`` on an example: every (x, y) with |y| <= H bit-exact in
    the report, every hidden layer ``act``, and the written network re-run whole against f*
    and g* computed from the file (test_theorem32._independent_check)."""
    from test_theorem32 import _independent_check

    from fpsmt.commands import netio
    from fpsmt.resources import resolve
    r = fpsmt("construct", "--targets", f"example:{example}.py", "--format", fmt.name, "--activation", act,
              "--out", "net.json", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["activation"] == act and rep["mismatches"] == [] and rep["verified"] == rep["pairs"] > 0
    assert rep["y_bound"] == fmt.hex(fmt.round(H))
    assert rep["pairs"] == len(rep["pieces"]) * len(_ys(fmt, H))
    net = netio.load_network(tmp_path / "net.json")
    assert {L.activation for L in net.layers[:-1]} == {act}
    assert _independent_check(fmt, tmp_path / "net.json", resolve(f"example:{example}.py"), bound=H) == 0


def test_tanh_pieces_in_float32(tmp_path):
    """g* as pieces in float32: built, every sampled (x, y) with |y| <= H bit-exact in the
    executor — and again here, the written network run whole against the pieces' g computed
    from the file with exact rationals."""
    fmt = parse_format("float32")
    r = fpsmt("construct", "--targets", "example:clipping_pieces_float32.py", "--format", "float32", "--activation",
              "tanh", "--out", "net.json", "--no-prove", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    H = Fraction(2) ** (fmt.M - 2)
    assert rep["activation"] == "tanh" and rep["mismatches"] == [] and rep["pairs"] > 0
    assert rep["y_bound"] == fmt.hex(fmt.round(H))
    ys = [fmt.round(Fraction(q)) for q in (Fraction(1, 3), 1, 2, Fraction(3, 2), 1000, H)]
    check_pieces_file(fmt, tmp_path / "net.json", "example:clipping_pieces_float32.py", ys)


def check_pieces_file(fmt, net_path, example, ys):
    """The written network run whole at each x of the file's domain and each y of ``ys``
    (both signs, and +0), against f* and the file's pieces read here: the last piece whose
    t <= |y|, c·sign(y) or RN(y·c)."""
    import importlib.util

    import numpy as np

    from fpsmt.commands import netio
    from fpsmt.constructions import theorem32 as M
    from fpsmt.resources import resolve
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import run
    spec = importlib.util.spec_from_file_location("pieces", resolve(example))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    net = netio.load_network(net_path)
    A = concrete(fmt)
    ys = list(ys) + [y | fmt.sign_bit for y in ys] + [0]
    for x in mod.domain():
        xb = fmt.round(Fraction(x))
        pcs = [(fmt.to_fraction(int(t, 16)), kind, fmt.to_fraction(int(c, 16)))
               for t, kind, c in mod.g_pieces(float(fmt.to_fraction(xb)))]

        def g(y, pcs=pcs):  # the file's pieces read here: the last piece whose t <= |y|
            q = fmt.to_fraction(y)
            on = [(kind, c) for t, kind, c in pcs if t <= abs(q)]
            if q == 0 or not on:
                return Fraction(0)
            kind, c = on[-1]
            return c * (1 if q > 0 else -1) if kind == "const" else fmt.to_fraction(fmt.round(q * c))
        tr = run(A, net, A.const(np.full((len(ys), 1), xb, dtype=np.uint64)),
                 A.const(np.asarray(ys, dtype=np.uint64).reshape(-1, 1)))
        got = M.canon(fmt, A.to_bits(tr.grad).ravel())
        want = M.canon(fmt, [fmt.round(g(y)) for y in ys])
        assert (got == want).all(), (x, got, want)
        assert (M.canon(fmt, A.to_bits(tr.out).ravel()) == M.canon(fmt, [fmt.round(Fraction(mod.f_star(x)))])).all()


@pytest.mark.slow  # about 90 s: the family's Theorem 3.1 rows in E4M2 and every point's claims
def test_construct_tanh_certify_in_e4m2(tmp_path):
    """--certify: the saturating family's Theorem 3.1 rows linked, every point's program and
    network claims PROVED with every UNSAT confirmed, the network written."""
    r = fpsmt("construct", "--targets", "example:sign_gradient.py", "--format", "e4m2", "--activation", "tanh",
              "--out", "net.json", "--certify", "--store", str(tmp_path / "s.sqlite"), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["certified"] is True and rep["mismatches"] == [] and (tmp_path / "net.json").exists()
    assert all(c["status"] == "PROVED" and c["network"]["status"] == "PROVED" for c in rep["claims"])


# ------------------------------------------------------------------ the ∀y claims (proofs/sat_theorem_3_2.py)
def _claims_of(fmt, bound=None, monkeypatch=None):
    """The network row's nodes for the built-in g at z = 0 in ``fmt``, tanh active."""
    from fpsmt.proofs import sat_theorem_3_2 as ST
    from fpsmt.proofs import theorem_3_2_relu as PT
    with S.hidden_activation("tanh"):
        root, net = ST.chain_root(fmt, 0, PT.builtin_pieces(), "sat_theorem_3_2_network", ST.row_others(fmt))
    return {c.name: c for c in root.claims()}, net


def _decide(fmt, claims, names):
    from fpsmt.proof.engine import Engine
    eng = Engine(solver="portfolio", timeout=120)  # z3 refuses E4M2 (E > M + 1)
    with S.hidden_activation("tanh"):
        return {n: eng.prove(claims[n], fmt, claims).status for n in names}


def test_the_top_layer_claim_needs_its_bound(monkeypatch):
    """The top layer's claim (every upstream within ±H) is PROVED in E4M2; stated for every
    finite upstream (the bound made Ω) it is REFUTED: G ⊗ upstream into p overflows."""
    fmt = parse_format("e4m2")
    claims, net = _claims_of(fmt)
    top = [n for n in claims if n.endswith(f".layer{net.depth - 2}")]
    assert len(top) == 2  # x = +0 and −0
    assert set(_decide(fmt, claims, top).values()) == {"PROVED"}
    from fpsmt.proofs import theorem_3_2_relu as PT
    unbounded = PT.network_nodes
    monkeypatch.setattr(PT, "network_nodes", lambda *a, bounded=None, **k: unbounded(*a, **k))
    claims, net = _claims_of(fmt)
    assert set(_decide(fmt, claims, top).values()) == {"REFUTED"}


def test_the_killed_claims_fail_on_a_weak_gate(monkeypatch):
    """At the other points the top two layers send zeros (PROVED); with the gate G a quarter
    (t_j = σ(d_j − G/2) at x != z), t_j is not saturated there and the killed claims are
    REFUTED."""
    fmt = parse_format("e4m2")
    claims, _ = _claims_of(fmt)
    killed = [n for n in claims if ".killed." in n]
    assert len(killed) == 4 and set(_decide(fmt, claims, killed).values()) == {"PROVED"}
    G = GS.gate_weight

    monkeypatch.setattr(GS, "gate_weight", lambda f: G(f) / 4)
    claims, _ = _claims_of(fmt)
    assert "REFUTED" in set(_decide(fmt, claims, killed).values())


def check_rows_proved(tmp_path, activation, fmt, lemmas):
    """``reproduce --activation activation --lemma lemmas`` in ``fmt`` on an empty store, with
    confirmation: every row PROVED, in order, every UNSAT answer confirmed."""
    p = fpsmt("reproduce", "--activation", activation, "--format", fmt, "--lemma", ",".join(lemmas), "--store",
              str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"), "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [(r["lemma"], r["status"]) for r in rows] == [(n, "PROVED") for n in lemmas]
    assert all(not r["confirmed"]["unconfirmed"] for r in rows)


@pytest.mark.slow  # about 3 minutes: 231 claims with confirmation
def test_the_theorem_3_2_rows_are_proved_in_e4m2(tmp_path):
    check_rows_proved(tmp_path, "tanh", "e4m2", ["sat_theorem_3_2", "sat_theorem_3_2_network"])
