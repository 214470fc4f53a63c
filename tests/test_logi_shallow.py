"""The logistic family's shallow gradient atom (sigmoid; ``--variant shallow``): the
transfer's weights up to 2^(e_max − 2) (network weights 4w up to 2^e_max) and ±m_g one
weight, 13 layers where the repaired network has 15–50 (12 in float64).  Its networks
re-run by the exact reference, its layers compared with its tree's stages, its own nodes
decided — and refuted where a weight leaves the shallow range."""

import json
import random
from fractions import Fraction

import pytest

from fpsmt.constructions import logistic as LG
from fpsmt.constructions import relu as R
from fpsmt.constructions.registry import get_construction
from fpsmt.proof.engine import Engine
from fpsmt.semantics.formats import parse_format

from test_logistic import _targets
from test_saturating import _exact_check, _main, _write

FORMATS = ("float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "float64")


def test_depths():
    """The gate, the transfer with the cap 2^(e_max − 2) and ±m_g one weight (4·w_out on
    top), the output."""
    with LG.hidden_activation("sigmoid"):
        got = {n: (LG.depth(parse_format(n), R.SHALLOW), LG.depth(parse_format(n))) for n in FORMATS}
    assert got == {"float8_e4m3": (13, 16), "float8_e5m2": (13, 26), "float16": (13, 15), "bfloat16": (13, 48),
                   "float32": (13, 23), "float64": (12, 50)}


@pytest.mark.parametrize("name,n", [("bfloat16", 9), ("float8_e4m3", 10), ("float8_e5m2", 10), ("float32", 8),
                                    pytest.param("float64", 8, marks=pytest.mark.slow)])
def test_shallow_network_meets_random_targets_under_the_exact_reference(name, n, tmp_path):
    """``construct --activation sigmoid --variant shallow`` (points where three atoms share
    g* among them), then the exact reference."""
    fmt = parse_format(name)
    pts = _targets(fmt, n, seed=17)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", "sigmoid", "--variant", "shallow", "--targets", t,
                            "--format", name, "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["verified"] == n and summary["variant"] == "shallow"
    with LG.hidden_activation("sigmoid"):
        assert summary["depth"] == LG.depth(fmt, R.SHALLOW) < LG.depth(fmt)
    from fpsmt.commands import netio
    net = netio.load_network(tmp_path / "n.json")
    assert {L.activation for L in net.layers[:-1]} == {"sigmoid"}
    assert _exact_check(fmt, net, pts) == []


@pytest.mark.parametrize("name", ["float16", "float64"])
def test_shallow_network_meets_its_targets_in_the_builder(name):
    """float16 and float64 without deciding their requirements: the builder's network, the
    exact reference."""
    fmt = parse_format(name)
    pts = _targets(fmt, 6, seed=19)
    net = get_construction("sigmoid").network(fmt, pts, variant=R.SHALLOW)
    assert _exact_check(fmt, net, pts) == []


def test_a_chain_weight_past_the_cap_misses_the_targets():
    """The exact check fails on a wrong shallow network: a chain weight 4w multiplied by 4
    past 2^e_max overflows (or, where it stays finite, the product is no longer the
    transfer's)."""
    from fpsmt.semantics.network import Layer, Network
    fmt = parse_format("bfloat16")
    pts = _targets(fmt, 6, seed=3)
    with LG.hidden_activation("sigmoid"):
        net = get_construction("sigmoid").network(fmt, pts, variant=R.SHALLOW)
        assert _exact_check(fmt, net, pts) == []
        gate, _ = LG.gradient_layers(fmt, LG.depth(fmt, R.SHALLOW), R.SHALLOW)
    k = gate + 1  # the first chain layer: its r rows' weights become 4 times larger
    L = net.layers[k]
    big = [fmt.round(4 * fmt.to_fraction(w)) if abs(fmt.to_fraction(w)) >= 2 else w for w in L.weights]
    assert big != list(L.weights)
    bad = Network(fmt, net.layers[:k] + [Layer(L.n_out, L.n_in, L.rows, L.cols, big, L.bias, L.activation)]
                  + net.layers[k + 1:])
    assert _exact_check(fmt, bad, pts) != []


@pytest.mark.parametrize("name", ["float8_e4m3", "bfloat16", "float32", "float64"])
def test_the_shallow_atom_is_its_trees_stages(name):
    """What the shallow tree takes from the code: every layer between the gate and the top
    is the chain step's layer, the gate is the repaired atom's, the top and output are the
    top stage's network, and the chain weights are 4w for the shallow transfer's w (4·w_out
    on top), each bias −(c ⊗ 1/2)."""
    from fpsmt.proofs import logi_gradient_atom as T
    from test_saturating import _same_layer
    fmt = parse_format(name)
    with LG.hidden_activation("sigmoid"):
        step, rename = T._chain_net(fmt)
        depth = LG.depth(fmt, R.SHALLOW)
        net = LG.gradient_network(fmt, depth, R.SHALLOW)
        repaired = LG.gradient_network(fmt, LG.depth(fmt))
        gate, top = LG.gradient_layers(fmt, depth, R.SHALLOW)
        assert len(net.layers) == top + 2 == depth
        for k in range(gate + 1, top):
            assert _same_layer(net.layers[k], step.layers[0], {f"c{k}": "c", f"bc{k}": "bc", **rename}), k
        assert all(_same_layer(a, b) for a, b in zip(net.layers[:gate + 1], repaired.layers[:gate + 1]))
        assert all(_same_layer(a, b) for a, b in zip(net.layers[top:], T._slice(fmt, top, top + 2, R.SHALLOW).layers))
        rng = random.Random(7)
        for _ in range(3):
            z, h, g = (fmt.round(Fraction(rng.uniform(-2, 2)).limit_denominator(1 << 20)) for _ in range(3))
            _, params = R.concrete_params(LG.gradient_atom, fmt, z, h, g, depth=depth, variant=R.SHALLOW)
            _, w = R.concrete_params(lambda s, h, g: (None, dict(enumerate(LG.chain(s, h, g, R.SHALLOW)[1]))),
                                     fmt, h, g)
            cs = [w[i] for i in range(len(w))]
            assert [params[f"c{k}"] for k in range(gate + 1, top + 1)] == list(reversed(cs))
            for k in range(gate + 1, top + 1):
                c = fmt.to_fraction(params[f"c{k}"])
                assert fmt.to_fraction(params[f"bc{k}"]) == -fmt.to_fraction(fmt.round(c / 2))
                assert -8 <= c <= 2 ** fmt.e_max and c != 0


def test_the_shallow_chain_steps_are_proved_and_a_wider_weight_is_refuted(monkeypatch):
    """The shallow tree's own inductions in float8_e4m3 are PROVED; with the weight range
    one binade wider (w up to 2^(e_max − 1): network weight 4w = 2^(e_max+1), not finite)
    the chain step at x = z is REFUTED."""
    from fpsmt.proofs import logi_gradient_atom as T
    fmt = parse_format("float8_e4m3")

    def decide():
        with LG.hidden_activation("sigmoid"):
            claims = {c.name: c for c in T.tree(fmt, "shallow").claims()}
            return [Engine(solver="z3", timeout=120).prove(claims[f"{T.NAME}.shallow.{n}"], fmt, claims).status
                    for n in ("chain_at_z.step", "chain_killed.step")]
    assert decide() == ["PROVED", "PROVED"]
    monkeypatch.setattr(LG, "shallow_cap", lambda f: f.e_max - 1)
    assert decide()[0] == "REFUTED"


@pytest.mark.slow  # about 4 minutes
def test_shallow_rows_are_proved_and_confirmed_in_float8_e4m3(tmp_path):
    code, out, err = _main(["reproduce", "--activation", "sigmoid", "--variant", "shallow", "--format",
                            "float8_e4m3", "--store", tmp_path / "s.sqlite", "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["lemma"], r["variant"], r["status"]) for r in rows] == [
        ("logi_value_atom", "shallow", "PROVED"), ("logi_gradient_atom", "shallow", "PROVED"),
        ("logi_theorem_3_1", "shallow", "PROVED")]
    assert all(not r["confirmed"]["unconfirmed"] for r in rows)
