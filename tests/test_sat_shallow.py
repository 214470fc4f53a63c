"""The saturating family's shallow gradient atom (tanh; ``--variant shallow``): the compact
chain (any finite nonzero weight, ±|g| one weight) under a top of weight 1, 10 layers
where the repaired network has 14–49.  Run in the executor and the exact reference independently of any solver,
its layers compared with its tree's stages, its own nodes decided — and refuted where the
top's weight is a chain weight."""

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from fpsmt.constructions import relu as R
from fpsmt.constructions import saturating as S
from fpsmt.proof.engine import Engine
from fpsmt.semantics.formats import parse_format
from fpsmt.specs.theorems import constants

from test_saturating import _exact_check, _main, _same_layer, _targets, _write, atom_slices
from test_shallow import _bad_points as shallow_bad_points

FORMATS = ("float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "float64")


def test_depths():
    """The gate (step depth + 1 layers), the compact transfer (h to ±1 in three weights,
    ±|g|), the top of weight 1, the output."""
    with S.hidden_activation("tanh"):
        got = {n: (S.depth(parse_format(n), R.SHALLOW), S.depth(parse_format(n))) for n in FORMATS}
    assert got == {"float8_e4m3": (10, 15), "float8_e5m2": (10, 25), "float16": (10, 14), "bfloat16": (10, 47),
                   "float32": (10, 22), "float64": (10, 49)}


def _x_domain(f):
    M = constants("tanh", f).M_sigma
    return np.asarray([b for b in range(1 << f.nbits) if f.is_finite(b) and abs(f.to_fraction(b)) <= M],
                      dtype=np.uint64)


def _bad_points(f, z, h, g, xs, elsewhere):
    """test_shallow's check (value a zero, D^AD g at z and a zero elsewhere) on tanh's
    shallow atom."""
    return shallow_bad_points(f, z, h, g, xs, elsewhere, builder=S.gradient_atom)


def _hg(f):
    H = f.round(constants("tanh", f).H_sigma)
    hs = [1, H, H | f.sign_bit, f.one_bits, f.round(Fraction(-5, 7))]
    gs = [1, f.max_bits, f.one_bits, f.round(Fraction(3, 2)), f.round(Fraction(-5, 7)), f.max_bits | f.sign_bit,
          1 | f.sign_bit]
    return [(h, g) for h in hs for g in gs], H


@pytest.mark.parametrize("fmt,every", [("float8_e4m3", 64), ("float8_e5m2", 64),
                                       pytest.param("float8_e4m3", 1, marks=pytest.mark.slow)])
def test_the_shallow_atom_meets_value_and_gradient_at_every_x(fmt, every):
    """Every x of tanh's X, every ``every``-th z (and the last), extreme and odd h and g,
    ±H as the upstream elsewhere: value ±0 everywhere, D^AD = g exactly at z, ±0 elsewhere."""
    f = parse_format(fmt)
    xs = _x_domain(f)
    pairs, H = _hg(f)
    with S.hidden_activation("tanh"):
        for z in list(xs[::every]) + [xs[-1]]:
            for h, g in pairs:
                for other in (H, H | f.sign_bit):
                    bad, net = _bad_points(f, int(z), h, g, xs, other)
                    assert not bad, (f.show(int(z)), f.show(h), f.show(g), [f.show(x) for x in bad[:3]])
        assert net.depth == S.gradient_depth(f, R.SHALLOW) == 10


@pytest.mark.parametrize("fmt", ["bfloat16", "float32", "float64"])
def test_the_shallow_atom_in_wide_formats(fmt):
    """z at X's ends, 0, ±1 and the least subnormal; x at z, its neighbours and 200 random
    floats of X."""
    f = parse_format(fmt)
    top = f.round(constants("tanh", f).M_sigma)
    rng = np.random.default_rng(11)
    pairs, H = _hg(f)
    with S.hidden_activation("tanh"):
        for z in (0, 1, f.one_bits, f.one_bits | f.sign_bit, top, top | f.sign_bit):
            xs = {z, f.next_up(z), f.next_down(z), 0, f.sign_bit}
            while len(xs) < 205:
                b = int(rng.integers(0, (1 << f.nbits) - 1, dtype=np.uint64, endpoint=True))
                if f.is_finite(b) and abs(f.to_fraction(b)) <= f.to_fraction(top):
                    xs.add(b)
            xs = np.asarray(sorted(x for x in xs if f.is_finite(x) and abs(f.to_fraction(x)) <= f.to_fraction(top)),
                            dtype=np.uint64)
            for h, g in pairs:
                bad, net = _bad_points(f, z, h, g, xs, H)
                assert not bad, (f.show(z), f.show(h), f.show(g), [f.show(x) for x in bad[:3]])
        assert net.depth == S.gradient_depth(f, R.SHALLOW) < S.gradient_depth(f)


@pytest.mark.parametrize("name,n", [("bfloat16", 5), ("float16", 5), ("float32", 4), ("float64", 3)])
def test_shallow_tanh_network_meets_random_targets_under_the_exact_reference(name, n, tmp_path):
    """``construct --activation tanh --variant shallow``: verified by construct's executor,
    then re-run by the exact reference; shallower than the repaired network."""
    fmt = parse_format(name)
    pts = _targets(fmt, n, seed=9)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", "tanh", "--variant", "shallow", "--targets", t,
                            "--format", name, "--out", tmp_path / "n.json", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["verified"] == n and summary["variant"] == "shallow"
    with S.hidden_activation("tanh"):
        assert summary["depth"] == S.depth(fmt, R.SHALLOW) < S.depth(fmt)
    from fpsmt.commands import netio
    net = netio.load_network(tmp_path / "n.json")
    assert {L.activation for L in net.layers[:-1]} == {"tanh"}
    assert _exact_check(fmt, net, pts) == []


def test_a_shallow_top_with_a_chain_weight_misses_the_targets():
    """The exact check fails on a wrong shallow network: the top's weight 1 replaced by
    2^e_max lets c ⊗ r ⊕ G ⊗ p ⊖ G miss saturation at x != z (the path lives there)."""
    from fpsmt.semantics.network import Layer, Network
    fmt = parse_format("bfloat16")
    pts = _targets(fmt, 6, seed=3)
    with S.hidden_activation("tanh"):
        net = S.theorem_network(fmt, pts, variant=R.SHALLOW)
        assert _exact_check(fmt, net, pts) == []
        G = fmt.round(Fraction(2) ** S.gate_exponent(fmt, R.SHALLOW))
    top = net.layers[-2]
    # the gated tops' r rows read r with weight 1 and p with weight G: give r's entry 2^e_max
    big, one = fmt.round(Fraction(2) ** fmt.e_max), fmt.one_bits
    rows = {}
    for k, (r, c) in enumerate(zip(top.rows.tolist(), top.cols.tolist())):
        rows.setdefault(r, []).append(k)
    weights = list(top.weights)
    changed = 0
    for ks in rows.values():
        ws = [weights[k] for k in ks]
        if len(ks) == 2 and ws[0] == one and ws[1] == G:
            weights[ks[0]] = big
            changed += 1
    assert changed == sum(1 for p in pts if not fmt.is_zero(p[3]))
    bad = Network(fmt, net.layers[:-2] + [Layer(top.n_out, top.n_in, top.rows, top.cols, weights, top.bias,
                                                  top.activation)] + net.layers[-1:])
    assert _exact_check(fmt, bad, pts) != []


@pytest.mark.parametrize("name", ["float8_e4m3", "bfloat16", "float32", "float64"])
def test_the_shallow_atom_is_its_trees_stages(name):
    """What the shallow tree takes from the code: every layer between the gate and the top
    is the chain step's layer (weight c_k), the top is not (its weight is the constant 1),
    and the chain weights are the shallow transfer's, input side first, after weights 1."""
    from fpsmt.proofs import sat_gradient_atom as T
    fmt = parse_format(name)
    with S.hidden_activation("tanh"):
        step = T._chain_net(fmt).layers[0]
        depth = S.depth(fmt, R.SHALLOW)
        net = S.gradient_network(fmt, depth, R.SHALLOW)
        gate, top = S.gradient_layers(fmt, depth, R.SHALLOW)
        assert len(net.layers) == top + 2 == depth
        for k in range(gate + 1, top):
            assert _same_layer(net.layers[k], step, {f"c{k}": "c"}), k
        assert not _same_layer(net.layers[top], step, {f"c{top}": "c"})
        repaired = atom_slices(S, fmt, step, lambda k: {f"c{k}": "c"}, {"ge_b", "le_b", "zn"}, "zn")[0]
        assert all(_same_layer(a, b) for a, b in zip(net.layers[:gate + 1], repaired.layers[:gate + 1]))
        # the top and output layers are the tree's top stage's network
        assert all(_same_layer(a, b) for a, b in zip(net.layers[top:], T._slice(fmt, top, top + 2, R.SHALLOW).layers))
        rng = random.Random(5)
        for _ in range(3):
            z, h, g = (fmt.round(Fraction(rng.uniform(-4, 4)).limit_denominator(1 << 20)) for _ in range(3))
            _, params = R.concrete_params(S.gradient_atom, fmt, z, h, g, depth=depth, variant=R.SHALLOW)
            _, w = R.concrete_params(lambda s, h, g: (None, dict(zip(
                ["w_out"] + [f"t{i}" for i in range(64)], (lambda wo, ch: [wo] + list(reversed(ch)))(
                    *R.compact_weights(s, h, g, merge_sign=True))))), fmt, h, g)
            chain = [w[f"t{i}"] for i in range(len(w) - 1)]
            pads = top - gate - 1 - len(chain)
            assert pads == 0
            assert [params[f"c{k}"] for k in range(gate + 1, top)] == chain
            assert f"c{top}" not in params and params["w_out"] == w["w_out"]


def _decide(claim, fmt_name="float8_e4m3"):
    fmt = parse_format(fmt_name)
    return Engine(solver="z3", timeout=120).prove(claim, fmt, {claim.name: claim}).status


def test_the_shallow_top_and_chain_steps_are_proved():
    """The shallow tree's own nodes in float8_e4m3: the top of weight 1, and the chain
    inductions' steps for every finite nonzero weight (SIGNED_WEIGHT)."""
    from fpsmt.proofs import sat_gradient_atom as T
    from fpsmt.proofs.multiplication_transfer import SIGNED_WEIGHT
    fmt = parse_format("float8_e4m3")
    with S.hidden_activation("tanh"):
        claims = {c.name: c for c in T.shallow_tree(fmt).claims()}
        for name in (f"{T.SHALLOW_NAME}.top", f"{T.SHALLOW_NAME}.chain_at_z.step",
                     f"{T.SHALLOW_NAME}.chain_killed.step"):
            assert Engine(solver="z3", timeout=120).prove(claims[name], fmt, claims).status == "PROVED", name
        assert T.chain_at_z(fmt, T.SHALLOW_NAME, SIGNED_WEIGHT).name == f"{T.SHALLOW_NAME}.chain_at_z"


def test_a_top_with_a_chain_weight_is_refuted(monkeypatch):
    """Why the shallow top's weight is 1: the repaired top's claim with its weight c ranging
    over the shallow chain's weights (any finite nonzero c) instead of K is REFUTED
    (c ⊗ r ⊕ G ⊗ p ⊖ G does not saturate at x != z for large c)."""
    from fpsmt.proofs import sat_gradient_atom as T
    from fpsmt.proofs.multiplication_transfer import SIGNED_WEIGHT
    with S.hidden_activation("tanh"):
        assert _decide(T.top_claim(parse_format("float8_e4m3"))) == "PROVED"
        monkeypatch.setattr(T, "CHAIN_WEIGHT", SIGNED_WEIGHT)
        assert _decide(T.top_claim(parse_format("float8_e4m3"))) == "REFUTED"


@pytest.mark.slow  # about a minute
def test_float16_the_repaired_top_claim_is_refuted_and_the_shallow_one_proved():
    """float16, where H = 2^8: the repaired top's claim over every |y| <= H with every w_out
    in W_OUT at x = z sends y ⊗ w_out ⊗ 2^10 into p, which overflows — REFUTED, the
    counterexample replayed.  In the network the top's upstream at z is h ⊗ w_out, below 2
    in magnitude (``top_upstream``), and the claim as stated in float16 (``bounded_top``)
    takes that bound at z: PROVED.  The shallow top's weight 1 lets its gate be 2^T = 2^4,
    and its claim is PROVED over every |y| <= H."""
    from fpsmt.proofs import sat_gradient_atom as T
    fmt = parse_format("float16")
    eng = Engine(solver="bitwuzla", timeout=300)
    with S.hidden_activation("tanh"):
        assert T.bounded_top(fmt) and not any(T.bounded_top(parse_format(f)) for f in FORMATS if f != "float16")
        bad = eng.prove(T.top_claim(fmt, bounded=False), fmt, {})
        stated = eng.prove(T.top_claim(fmt), fmt, {})
        good = eng.prove(T.top_claim(fmt, shallow=True), fmt, {})
    assert bad.status == "REFUTED" and bad.reason == "counterexample replayed"
    assert stated.status == "PROVED" and good.status == "PROVED"


def test_the_top_upstream_bound_is_proved_and_fails_without_w_out(monkeypatch):
    """float16: |h ⊗ w_out| < 2 for every 0 < |h| <= H (``top_upstream``) PROVED; with
    w_out = 1 in its place (no normalization), REFUTED (h = 2^8)."""
    from fpsmt.proofs import sat_gradient_atom as T
    fmt = parse_format("float16")
    with S.hidden_activation("tanh"):
        ok = Engine(solver="z3", timeout=120).prove(T.top_upstream(fmt).claim, fmt, {})
        right = R.normalize_weights
        monkeypatch.setattr(R, "normalize_weights", lambda s, h, *a, **k: (s.const(1), right(s, h, *a, **k)[1]))
        bad = Engine(solver="z3", timeout=120).prove(T.top_upstream(fmt).claim, fmt, {})
    assert ok.status == "PROVED" and bad.status == "REFUTED"


def test_construct_refuses_the_shallow_variant_for_a_family_without_it(tmp_path, monkeypatch):
    """``construct --variant shallow`` for a family without the shallow atom (every built-in
    family has it: the saturating family's taken away here): one line naming the families
    that have it, exit 2, before any work."""
    monkeypatch.delattr(S, "ATOM_VARIANTS")
    code, out, err = _main(["construct", "--activation", "tanh", "--variant", "shallow", "--targets",
                            "example:sin_misleading.py", "--format", "bfloat16", "--out", tmp_path / "n.json"])
    assert code == 2 and not (tmp_path / "n.json").exists()
    assert err.strip().splitlines() == [
        "fpsmt: error: --variant shallow: the shallow gradient atom is built for the logistic, rectifying, relu "
        "families, not for tanh (the saturating family)"]


@pytest.mark.slow  # about 45 s
def test_shallow_rows_are_proved_and_confirmed_in_float8_e4m3(tmp_path):
    code, out, err = _main(["reproduce", "--activation", "tanh", "--variant", "shallow", "--format", "float8_e4m3",
                            "--store", tmp_path / "s.sqlite", "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["lemma"], r["variant"], r["status"]) for r in rows] == [
        ("sat_value_atom", "shallow", "PROVED"), ("sat_gradient_atom", "shallow", "PROVED"),
        ("sat_theorem_3_1", "shallow", "PROVED")]
    assert all(not r["confirmed"]["unconfirmed"] for r in rows)
