"""The shallow gradient atom (fpsmt.constructions.relu.shallow_gradient_atom, issue "the
paper's depth"): run in the executor independently of any solver, its stage networks
sliced from the atom, its tree's nodes decided in float8_e4m3 — and refuted where a chain
layer's constant K does not cancel its R."""

from fractions import Fraction

import numpy as np
import pytest

from fpsmt.constructions import relu as C
from fpsmt.proof.engine import Engine
from fpsmt.proof.tree import check_ties
from fpsmt.semantics.arith import concrete as executor
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run

from conftest import x_domain
from test_tree import _scope


def _bad_points(f, z, h, g, xs, elsewhere, builder=C.gradient_atom):
    """The x of ``xs`` where the shallow atom's value is not a zero or its D^AD is not g at
    x = z (upstream h) and a zero elsewhere (upstream ``elsewhere``); ``builder``: another
    family's gradient atom (it takes ``variant``)."""
    A = executor(f)
    net = C.concrete(builder, f, z, h, g, variant=C.SHALLOW)
    at = np.array([f.to_fraction(int(x)) == f.to_fraction(int(z)) for x in xs])
    ys = np.where(at, h, elsewhere).astype(np.uint64)
    t = run(A, net, A.const(xs)[:, None], A.const(ys[:, None]))
    out, grad = np.ravel(A.to_bits(t.out)), np.ravel(A.to_bits(t.grad))
    return [int(x) for x, o, d, a in zip(xs, out, grad, at)
            if not (f.is_zero(int(o)) and (int(d) == g if a else f.is_zero(int(d))))], net


def _hg(f):
    vals = [1, f.max_bits, f.one_bits, f.round(Fraction(3, 2)), f.round(Fraction(-5, 7)),
            f.max_bits | f.sign_bit, 1 | f.sign_bit]
    return [(h, g) for h in vals[:5] for g in vals]


@pytest.mark.parametrize("fmt,every", [("float8_e4m3", 64), ("float8_e5m2", 64),
                                       pytest.param("float8_e4m3", 1, marks=pytest.mark.slow),
                                       pytest.param("float8_e5m2", 1, marks=pytest.mark.slow)])
def test_the_shallow_atom_meets_value_and_gradient_at_every_x(fmt, every):
    """Every x of X, every ``every``-th z of X (and the last), extreme and odd h and g, and
    ±Ω as the upstream elsewhere: value ±0 everywhere, D^AD = g exactly at z and ±0
    elsewhere."""
    f = parse_format(fmt)
    xs = x_domain(f)
    for z in list(xs[::every]) + [xs[-1]]:
        for h, g in _hg(f):
            for other in (f.max_bits, f.max_bits | f.sign_bit):
                bad, net = _bad_points(f, int(z), h, g, xs, other)
                assert not bad, (f.show(int(z)), f.show(h), f.show(g), [f.show(x) for x in bad[:3]])
    assert net.depth == C.gradient_atom_depth(f, C.SHALLOW) == 11


@pytest.mark.parametrize("fmt", ["bfloat16", "float32", "float64"])
def test_the_shallow_atom_in_wide_formats(fmt):
    """bfloat16, float32 (significand route) and float64 (subnormal route): z at the domain's
    ends, 0, ±1 and the least subnormal; x at z, its neighbours and 200 random floats of X."""
    f = parse_format(fmt)
    top = f.round(Fraction(2) ** (f.e_max - 2))
    rng = np.random.default_rng(7)
    for z in (0, 1, f.one_bits, f.one_bits | f.sign_bit, top, top | f.sign_bit):
        xs = {z, f.next_up(z), f.next_down(z), 0, f.sign_bit}
        while len(xs) < 205:
            b = int(rng.integers(0, (1 << f.nbits) - 1, dtype=np.uint64, endpoint=True))
            if f.is_finite(b) and abs(f.to_fraction(b)) <= f.to_fraction(top):
                xs.add(b)
        xs = np.asarray(sorted(x for x in xs if f.is_finite(x) and abs(f.to_fraction(x)) <= f.to_fraction(top)),
                        dtype=np.uint64)
        for h, g in _hg(f):
            bad, net = _bad_points(f, z, h, g, xs, f.max_bits)
            assert not bad, (f.show(z), f.show(h), f.show(g), [f.show(x) for x in bad[:3]])
    assert net.depth == C.gradient_atom_depth(f, C.SHALLOW) < C.gradient_atom_depth(f)


def test_depths():
    """7 gate layers, the compact chain (backwards: up, a', b — or down and two ups in float64
    —, |g| and the sign, which is in the gate's row), a gate of 6 layers whose killers
    read the step blocks' fourth layer, the output: 11 layers in every format, where the
    repaired atom has 18–71."""
    got = {n: (C.gradient_atom_depth(parse_format(n), C.SHALLOW), C.gradient_atom_depth(parse_format(n)))
           for n in ("float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "float64")}
    assert got == {"float8_e4m3": (11, 19), "float8_e5m2": (11, 32), "float16": (11, 18), "bfloat16": (11, 65),
                   "float32": (11, 30), "float64": (11, 71)}


@pytest.mark.parametrize("fmt", ["bfloat16", "float64"])
def test_the_shallow_stages_are_slices_of_the_atom(fmt):
    """The shallow atom, run symbolically (z, x, h, g, y free), is term for term its stage
    networks one after the other: the gate (layers 1–4, then 5–6 with K and the sign),
    every chain layer (the stage network with that layer's c_i, −c_i and killer weight),
    the last with the output — forward and backward; its weights are the compact
    transfer's, input side first, the sign in the gate's row."""
    import z3

    from fpsmt.proofs import gradient_atom as GA
    from fpsmt.semantics.network import Network
    f = parse_format(fmt)
    s = _scope(f, ["z", "x", "h", "g", "y"])
    whole, P = C.shallow_gradient_atom(s, s.z, s.h, s.g)
    out, grad, (_, post, up) = s.run(whole, [s.x], [s.y], params=P, trace=True)
    same = lambda a, b: len(a) == len(b) and all(z3.eq(u.v[()], v.v[()]) for u, v in zip(a, b))  # noqa: E731
    gate = C.shallow_gate_plan(f).network(last_act=None).layers
    steps = {**C.step_params(s, "ge", s.z), **C.step_params(s, "le", -s.z)}
    w_out, chain = C.compact_weights(s, s.h, s.g)
    forward = list(reversed(chain))
    sign = forward[0]
    top = {"d": s.z - s.z.next_down(), "c0": sign, "n0": -sign}
    o4, _ = s.run(Network(f, gate[:4]), [s.x], params=steps)
    o6, _ = s.run(Network(f, gate[4:6]), o4, params=top)
    assert same(o4, post[3]) and same(o6, post[5])
    assert z3.eq(s.lift(P["c0"]).v[()], sign.v[()]) and z3.eq(s.lift(P["n0"]).v[()], (-sign).v[()])
    n_chain = whole.depth - 7
    assert n_chain == len(chain) - 1 == 4 and z3.eq(s.lift(P["w_out"]).v[()], w_out.v[()])
    prev = post[5]
    for i in range(1, n_chain + 1):
        last = i == n_chain
        c = s.lift(P[f"c{i}"])
        assert z3.eq(c.v[()], forward[i].v[()])
        assert z3.eq(s.lift(P[f"n{i}"]).v[()], (-c).v[()])
        assert z3.eq(s.lift(P[f"k{i}"]).v[()], C.killer_weight(s, c).v[()])
        net = GA._shallow_layer_net(f, with_n=last, output=last)
        params = {**GA._shallow_params(s, c), **({"w_out": w_out} if last else {})}
        o, _ = s.run(net, prev, params=params)
        assert same(o, out if last else post[5 + i]), i
        _, back = s.run(net, prev, [s.y] if last else up[5 + i], params=params)
        assert same(back, up[4 + i]), i
        prev = o
    _, g_gate = s.run(Network(f, gate[:6]), [s.x], up[5], params={**steps, **top})
    assert same(g_gate, grad)
    assert not same(g_gate, [grad[0] + 0])  # the comparison can fail


def _shallow_nodes(f, prefixes):
    from fpsmt.proof.lemmas import load, tree_node
    node = tree_node("gradient_atom", load("gradient_atom").build("shallow", f)[0])
    check_ties(node, f)
    claims = node.claims()
    reg = {c.name: c for c in claims}
    eng = Engine(solver="z3", timeout=120)
    return {c.name: eng.prove(c, f, reg).status for c in claims if c.name.startswith(prefixes)}


def test_the_shallow_chain_nodes_are_proved_in_float8_e4m3():
    f = parse_format("float8_e4m3")
    got = _shallow_nodes(f, ("gradient_atom.shallow.", "multiplication_transfer.compact."))
    assert len(got) >= 12 and set(got.values()) == {"PROVED"}, got


@pytest.mark.parametrize("wrong", ["same_sign", "one_ulp"])
def test_a_constant_that_does_not_cancel_is_refuted(monkeypatch, wrong):
    """K's weight c (not −c), or −c one ulp off: c ⊗ R ⊕ K's term is no longer +0, and the
    chain at x = z is REFUTED (a checker failing on a wrong network)."""
    f = parse_format("float8_e4m3")
    from fpsmt.proofs import gradient_atom as GA
    real = GA._shallow_layer

    def skewed(s, ins, ups, c):
        n = c if wrong == "same_sign" else (-c).next_down()
        return s.run(GA._shallow_layer_net(s.fmt), ins, ups, params={**GA._shallow_params(s, c), "n": n}, trace=True)
    monkeypatch.setattr(GA, "_shallow_layer", skewed)
    got = _shallow_nodes(f, ("gradient_atom.shallow.chain_at_z.step",))
    assert got == {"gradient_atom.shallow.chain_at_z.step": "REFUTED"}
    monkeypatch.setattr(GA, "_shallow_layer", real)


@pytest.mark.parametrize("killers,node", [
    ("always_half", "gradient_atom.shallow.chain_killed.step"),   # −c ⊕ (−C/2) overflows for c near Ω
    ("always_zero", "gradient_atom.shallow.chain_killed.step"),   # −c ⊕ 1 >= 0 for c <= 1: R is not killed
])
def test_a_wrong_killer_weight_is_refuted(monkeypatch, killers, node):
    """The killers' weight is −1/2 where c <= 1 and +0 above (relu.killer_weight).  With −1/2
    for every c the pre-activation at x != z overflows for large c; with +0 for every c a
    weight c <= 1 leaves R alive at x != z.  Either is REFUTED (a checker failing on a wrong
    network).  (In the atoms built, a' > 1 follows every weight <= 1 but the last and kills
    again, so the executor does not see the second; the claim is about any chain.)"""
    f = parse_format("float8_e4m3")
    k = Fraction(-1, 2) if killers == "always_half" else 0
    monkeypatch.setattr(C, "killer_weight", lambda s, c: s.where(c.eq(c), k, k))
    got = _shallow_nodes(f, (node,))
    assert got == {node: "REFUTED"}, got


def test_gate_killers_at_half_weight_are_refuted(monkeypatch):
    """The gate's row R = relu(c0 ⊗ T ⊕ (−c0) ⊗ K ⊖ G1 ⊖ G2 ⊕ 1) needs the killers at weight
    −1: above z, T goes up to 2^(e_max − 1) = C/2, and with −1/2 the row is T − d − C/2 + 1
    > 0 there.  The gate's stage is REFUTED (a checker failing on a wrong network; in the
    atoms built the next chain layer kills R again, so the executor does not see it)."""
    f = parse_format("float8_e4m3")
    real = C.shallow_gate_plan

    def half(fmt):
        P = real(fmt)
        P.layers[-1][0] = ("R", [("T", C.Param("c0")), ("K", C.Param("n0")), ("G1", Fraction(-1, 2)),
                                 ("G2", Fraction(-1, 2))], 1)
        return P
    monkeypatch.setattr(C, "shallow_gate_plan", half)
    assert _shallow_nodes(f, ("gradient_atom.shallow.gate_top",)) == {"gradient_atom.shallow.gate_top": "REFUTED"}


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_the_shallow_atom_tree_is_proved_in_float8_e4m3():
    f = parse_format("float8_e4m3")
    got = _shallow_nodes(f, ("",))
    assert len(got) >= 50 and set(got.values()) == {"PROVED"}, {k: v for k, v in got.items() if v != "PROVED"}


@pytest.mark.parametrize("fmt,n", [("bfloat16", 40), ("float32", 24), ("float64", 16), ("float8_e4m3", 30)])
def test_the_shallow_theorem_network_meets_every_target(fmt, n):
    """The Theorem 3.1 network with shallow gradient atoms (zero-gradient atoms padded to
    their depth) on random targets: f(x) = f*(x) and D^AD(h*(x)) = g*(x) bit for bit at
    every point (a zero target met by either zero), and it is the ⊞ of its atoms."""
    from test_atoms import _matches, _theorem_points
    f = parse_format(fmt)
    A = executor(f)
    pts = _theorem_points(f, n, 11)
    net = C.theorem_network(f, pts, variant=C.SHALLOW)
    xs = np.asarray([p[0] for p in pts], dtype=np.uint64)
    t = run(A, net, A.const(xs)[:, None], A.const(np.asarray([[p[2]] for p in pts], dtype=np.uint64)))
    out, grad = np.ravel(A.to_bits(t.out)), np.ravel(A.to_bits(t.grad))
    for p, o, d in zip(pts, out, grad):
        assert _matches(f, int(o), p[1]) and _matches(f, int(d), p[3]), [f.show(v) for v in p]
    assert net.depth == C.least_depth(f, C.SHALLOW) == C.gradient_atom_depth(f, C.SHALLOW)
    ref, _ = C.boxplus([(C.concrete(C.gradient_atom, f, z, h, g, variant=C.SHALLOW), {})
                        for z, _, h, g in pts if not f.is_zero(g)]
                       + [(C.concrete(C.zero_gradient_atom, f, z, v), {}) for z, v, _, _ in pts])
    assert [(L.rows.tolist(), L.cols.tolist(), [int(w) for w in L.weights], [int(b) for b in L.bias])
            for L in net.layers] == [(R.rows.tolist(), R.cols.tolist(), [int(w) for w in R.weights],
                                      [int(b) for b in R.bias]) for R in ref.layers]


def test_the_shallow_theorem_row_is_its_parts_trees():
    """The shallow theorem row: the repaired zero-gradient atom's and ⊞'s trees, the shallow
    gradient atom's, and the congruence — tied, every claim once."""
    from fpsmt.proof.lemmas import claims_of, load
    f = parse_format("bfloat16")
    tree, statement = load("theorem_3_1_relu").build("shallow", f)
    check_ties(tree, f)
    assert [c.name for c in tree.children] == ["zero_gradient_atom", "gradient_atom", "boxplus_neutrality",
                                               "approx.congruence"]
    names = [c.name for c in claims_of((tree,))]
    assert len(names) == len(set(names)) and "gradient_atom.shallow.chain_at_z.step" in names
    assert "gradient_atom.chain_at_z.step" not in names and "depth 11" in statement


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_reproduce_shows_the_shallow_variant(tmp_path):
    """``reproduce --variant shallow`` gives the shallow gradient atom's row (its depth beside
    the repaired one's); a lemma that has no shallow variant has no row for it (not a
    MISSING one)."""
    import json

    from conftest import fpsmt
    r = fpsmt("reproduce", "--lemma", "gradient_atom,boxplus_neutrality", "--variant", "shallow", "--format",
              "float8_e4m3", "--store", str(tmp_path / "s.sqlite"), "--json", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert [(x["lemma"], x["variant"], x["status"]) for x in rows] == [("gradient_atom", "shallow", "PROVED")]
    assert "depth 11 (the repaired atom: 19)" in rows[0]["statement"]


def test_reproduce_refuses_an_unknown_variant(tmp_path):
    from conftest import fpsmt
    bad = fpsmt("reproduce", "--variant", "deep", "--format", "E3M2", cwd=str(tmp_path))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "shallow" in bad.stderr


def test_construct_builds_the_shallow_network(tmp_path):
    """``construct --variant shallow``: 11 layers in bfloat16 (65 repaired), every point met
    bit for bit, padded with --depth; the file is what it says."""
    import json

    from conftest import fpsmt
    from fpsmt.commands import netio
    out = tmp_path / "n.json"
    r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", "bfloat16", "--variant", "shallow",
              "--depth", "20", "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["variant"], doc["depth"], doc["least_depth"], doc["mismatches"]) == ("shallow", 20, 11, [])
    assert doc["verified"] == doc["points"] and netio.load_network(out).depth == 20


@pytest.mark.parametrize("extra,word", [
    (["--depth", "10"], "--depth 10: the relu network in float8_e4m3 needs at least 11 layers"),
    (["--activation", "tanh", "--depth", "9"], "--depth 9: the tanh network in float8_e4m3 needs at least 10 "
                                               "layers"),
    (["--targets", "example:gradient_clipping.py"], "built for Theorem 3.1 targets (not yet for Theorem 3.2"),
])
def test_construct_shallow_refusals(tmp_path, extra, word):
    from conftest import fpsmt
    args = ["construct", "--targets", "example:sin_misleading.py", "--format", "float8_e4m3", "--variant", "shallow",
            "--out", str(tmp_path / "n.json")]
    if extra[0] == "--targets":
        args[2] = extra[1]
        extra = []
    r = fpsmt(*args, *extra)
    assert r.returncode == 2 and word in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "n.json").exists()


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_construct_shallow_verify_atoms_and_certify_from_an_empty_store(tmp_path):
    """float8_e4m3, an empty store: --verify atoms proves the rows it rests on in their
    shallow variant where they have one (gradient_atom, theorem_3_1_relu), every UNSAT
    confirmed; --certify then links them."""
    import json

    from conftest import fpsmt
    from test_verify_atoms import _targets_file
    store = str(tmp_path / "s.sqlite")
    tf = str(_targets_file(tmp_path))
    r = fpsmt("construct", "--targets", tf, "--format", "float8_e4m3", "--variant", "shallow",
              "--verify", "atoms", "--out", str(tmp_path / "n.json"), "--store", store, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["mismatches"] == [] and {x["lemma"]: x["status"] for x in doc["lemmas"]} == {
        "zero_gradient_atom": "PROVED", "gradient_atom": "PROVED", "boxplus_neutrality": "PROVED",
        "theorem_3_1_relu": "PROVED"}
    assert "gradient_atom.shallow.chain_at_z.step" in r.stderr
    r = fpsmt("construct", "--targets", tf, "--format", "float8_e4m3", "--variant", "shallow",
              "--certify", "--out", str(tmp_path / "m.json"), "--store", store, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["certified"] is True


# ------------------------------------------------------------------ the d-dimensional shallow atom
@pytest.mark.parametrize("fmt,repaired", [("float8_e4m3", 21), ("bfloat16", 67), ("float64", 73)])
def test_construct_builds_the_shallow_nd_network(tmp_path, fmt, repaired):
    """``construct --variant shallow`` on 2-D targets (289 points): every point's value and
    both gradient components bit for bit, 15 layers where the repaired
    network has 21–73."""
    import json

    from conftest import fpsmt
    from fpsmt.constructions import relu_nd as N
    r = fpsmt("construct", "--targets", "example:sin_cos_2d.py", "--format", fmt, "--variant", "shallow",
              "--out", str(tmp_path / "n.json"), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    f = parse_format(fmt)
    assert (doc["variant"], doc["mismatches"], doc["verified"]) == ("shallow", [], doc["points"])
    assert doc["depth"] == doc["least_depth"] == N.depth(f, C.SHALLOW) < N.depth(f) == repaired


def test_the_shallow_nd_atom_is_its_stages():
    """GA_i's shallow layers 7–8 are the collapse stage's network after its layer 6 (K's bias
    the parameter d), and after its gate row and its sign layer (layers 9–10), the 1-D
    shallow atom's layers after its merged gate row (layer 6): the chain and the output."""
    from fpsmt.constructions import relu_nd as N
    from fpsmt.proofs import gradient_atom_nd as GN
    from test_saturating import _same_layer
    f = parse_format("bfloat16")
    nd, _ = C.concrete_params(N.gradient_atom(1, C.SHALLOW), f, f.round(1), f.round(-3), f.round(2), f.round(5))
    one, _ = C.concrete_params(C.shallow_gradient_atom, f, f.round(-3), f.round(2), f.round(5))
    col = GN._collapse_net_s(f)
    assert all(_same_layer(a, b) for a, b in zip(nd.layers[7:9], col.layers[1:]))
    assert len(nd.layers) - 10 == len(one.layers) - 6 == 5 and \
        all(_same_layer(a, b) for a, b in zip(nd.layers[10:], one.layers[6:]))


def test_the_shallow_collapse_is_proved_and_refuted_with_a_constant_k(monkeypatch):
    """The shallow nd tree's own stage in float8_e4m3: PROVED; with K's bias the constant 1
    instead of d = z_i − z_i⁻ it is REFUTED (K is not the 1-D shallow gate's)."""
    from fpsmt.proofs import gradient_atom_nd as GN
    from fpsmt.semantics.network import Layer, Network
    f = parse_format("float8_e4m3")
    assert Engine(solver="z3", timeout=120).prove(GN.collapse(f, shallow=True).claim, f, {}).status == "PROVED"
    real = GN._collapse_net_s

    def constant_k(fmt):
        net = real(fmt)
        L = net.layers[-1]
        bias = list(L.bias)
        bias[1] = fmt.round(1)  # K's
        return Network(fmt, net.layers[:-1] + [Layer(L.n_out, L.n_in, L.rows, L.cols, L.weights, bias, L.activation)])
    monkeypatch.setattr(GN, "_collapse_net_s", constant_k)
    assert Engine(solver="z3", timeout=120).prove(GN.collapse(f, shallow=True).claim, f, {}).status == "REFUTED"


@pytest.mark.slow  # about a minute
def test_the_shallow_nd_rows_are_proved_and_confirmed_in_float8_e4m3(tmp_path):
    import json

    from conftest import fpsmt
    r = fpsmt("reproduce", "--lemma", "gradient_atom_nd,theorem_3_1_relu_nd", "--variant", "shallow", "--format",
              "float8_e4m3", "--store", str(tmp_path / "s.sqlite"), "--json", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["lemma"], x["variant"], x["status"]) for x in rows] == [
        ("gradient_atom_nd", "shallow", "PROVED"), ("theorem_3_1_relu_nd", "shallow", "PROVED")]
    assert all(not x["confirmed"]["unconfirmed"] for x in rows)
