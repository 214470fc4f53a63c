"""The rectifying family's shallow gradient atom (GELU, Swish, ELU; ``--variant shallow``):
a normalize layer adds K = I beside R, then chain layers c ⊗ R ⊕ (−c) ⊗ K ⊕ (−1/2)·killers
⊕ I with weights up to 2^(e_max − 2 − a): 17–18 layers in bfloat16, float32 and float64
where the repaired network has 27–54.  Networks re-run by the exact reference, the atom's
layers compared with its tree's stages, its own nodes decided — and refuted where the
killers enter with their full weight (−c ⊗ K ⊖ G then overflows where the chain is killed:
the executor's networks still meet their targets there, since σ(−∞) is the dead value, but
the theorem's join needs every hidden value finite)."""

import json
import random
from fractions import Fraction

import pytest

from fpsmt.constructions import rectifying as RC
from fpsmt.constructions import relu as R
from fpsmt.proof.engine import Engine
from fpsmt.semantics.formats import parse_format

from test_rectifying import _targets
from test_saturating import _exact_check, _main, _same_layer, _write


def test_depths():
    """The gate as the repaired atom's, the normalize layer, the transfer with the cap
    2^(e_max − 2 − a) and ±m_g one weight, the output.  Where that cap is no larger than the
    repaired chain's (GELU and Swish in float8_e4m3 and float16, whose identity starts at
    2^a > 1), the normalize layer costs what the merged sign weight saves."""
    got = {}
    for act in ("gelu", "swish", "elu"):
        with RC.hidden_activation(act):
            for n in ("float8_e4m3", "float16", "bfloat16", "float32", "float64"):
                f = parse_format(n)
                got[act, n] = (RC.depth(f, R.SHALLOW), RC.depth(f))
    for act in ("gelu", "swish"):
        assert [got[act, n] for n in ("float8_e4m3", "float16", "bfloat16", "float32", "float64")] == \
            [(23, 23), (22, 22), (18, 52), (18, 27), (17, 54)]
    assert [got["elu", n] for n in ("float8_e4m3", "float16", "bfloat16", "float32", "float64")] == \
        [(21, 23), (21, 22), (18, 52), (18, 27), (17, 54)]


@pytest.mark.parametrize("act,name,n", [("gelu", "bfloat16", 6), ("swish", "float8_e4m3", 8), ("elu", "bfloat16", 6),
                                        ("elu", "float8_e4m3", 8), ("gelu", "float32", 4), ("swish", "float64", 3),
                                        pytest.param("elu", "float64", 3, marks=pytest.mark.slow)])
def test_shallow_network_meets_random_targets_under_the_exact_reference(act, name, n, tmp_path):
    fmt = parse_format(name)
    pts = _targets(fmt, n, seed=23)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", act, "--variant", "shallow", "--targets", t, "--format", name,
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["verified"] == n and summary["variant"] == "shallow"
    with RC.hidden_activation(act):
        assert summary["depth"] == RC.depth(fmt, R.SHALLOW)
    from fpsmt.commands import netio
    net = netio.load_network(tmp_path / "n.json")
    assert {L.activation for L in net.layers[:-1]} == {act}
    assert _exact_check(fmt, net, pts) == []


@pytest.mark.parametrize("act,name", [("gelu", "float8_e4m3"), ("elu", "float8_e4m3"), ("gelu", "bfloat16"),
                                      ("swish", "float32"), ("elu", "float32"), ("gelu", "float64")])
def test_the_shallow_atom_is_its_trees_stages(act, name):
    """What the shallow tree takes from the code: the gate's layers are the repaired atom's,
    the normalize layer and every chain layer before the top are the stages' layers (the
    chain step's with c_k, n_k), the top and output the top stage's; the state is the
    repaired one with K after R; the weights are the shallow transfer's for the path's
    target t (input side first, after the normalize layer), n_k = −c_k, w_out the
    transfer's."""
    from fpsmt.proofs import rect_gradient_atom as T
    fmt = parse_format(name)
    with RC.hidden_activation(act):
        depth = RC.depth(fmt, R.SHALLOW)
        net = RC.gradient_network(fmt, depth, R.SHALLOW)
        repaired = RC.gradient_network(fmt, RC.depth(fmt))
        gate, top = T._s_layers(fmt)
        assert len(net.layers) == top + 2 == depth
        assert all(_same_layer(a, b) for a, b in zip(net.layers[:gate + 1], repaired.layers[:gate + 1]))
        step, rename = T._s_chain_net(fmt)
        for k in range(gate + 2, top):
            assert _same_layer(net.layers[k], step.layers[0], {f"c{k}": "c", f"n{k}": "n", **rename}), k
        assert not _same_layer(net.layers[gate + 1], step.layers[0], rename)
        assert _same_layer(net.layers[gate + 1], T._s_slice(fmt, gate + 1, gate + 2).layers[0])
        assert all(_same_layer(a, b) for a, b in zip(net.layers[top:], T._s_slice(fmt, top, top + 2).layers))
        state = RC.gradient_state(fmt)
        assert RC.gradient_state(fmt, R.SHALLOW) == state[:state.index("R") + 1] + ("K",) + state[state.index("R") + 1:]
        rng = random.Random(13)
        for _ in range(3):
            z, h, g = (fmt.round(Fraction(rng.uniform(-4, 4)).limit_denominator(1 << 20)) for _ in range(3))
            _, params = R.concrete_params(RC.gradient_atom, fmt, z, h, g, depth=depth, variant=R.SHALLOW)

            def transfer(s, h, g):
                w_out, chain = R.transfer_weights(s, h, RC.path_params(s, g)[1], q=RC.shallow_cap(s.fmt),
                                                  merge_sign=True)
                return None, {"w_out": w_out, **{f"t{i}": w for i, w in enumerate(reversed(chain))}}
            _, w = R.concrete_params(transfer, fmt, h, g)
            assert [params[f"c{k}"] for k in range(gate + 2, top + 1)] == [w[f"t{i}"] for i in range(len(w) - 1)]
            assert all(params[f"n{k}"] == params[f"c{k}"] ^ fmt.sign_bit for k in range(gate + 2, top + 1))
            assert params["w_out"] == w["w_out"]


def _decide(act, names, fmt_name="float8_e4m3"):
    from fpsmt.proofs import rect_gradient_atom as T
    fmt = parse_format(fmt_name)
    with RC.hidden_activation(act):
        claims = {c.name: c for c in T.shallow_tree(fmt).claims()}
        return [Engine(solver="z3", timeout=120).prove(claims[f"{T.SNAME}.{n}"], fmt, claims).status for n in names]


OWN = ("normalize_at_z", "normalize_off", "chain_at_z.step", "chain_killed.step", "top")


@pytest.mark.parametrize("act", ["gelu", "elu"])
def test_the_shallow_nodes_are_proved(act):
    assert _decide(act, OWN) == ["PROVED"] * len(OWN)


@pytest.mark.soundness
def test_the_shallow_chain_step_is_refuted_with_full_killer_weights(monkeypatch):
    """The tree's induction step at x != z fails on a wrong chain layer: with the killers
    at weight −1, −c ⊗ K ⊖ G overflows to −∞ for c = 2^(e_max − 2 − a) (REFUTED in
    float8_e4m3: a pre-activation not finite, though σ(−∞) is GELU's dead value)."""
    monkeypatch.setattr(RC, "half_gated", lambda c: RC.gated(c))
    assert _decide("gelu", ["chain_killed.step"]) == ["REFUTED"]


@pytest.mark.soundness
def test_the_shallow_chain_step_is_refuted_when_k_does_not_cancel_r(monkeypatch):
    """With K's weight c instead of −c, c ⊗ I ⊕ c ⊗ I is not +0 at x = z: R leaves I and the
    step at x = z is REFUTED."""
    from fpsmt.proofs import rect_gradient_atom as T
    monkeypatch.setattr(T, "_s_params", lambda s, c: {k: c for k in T._s_chain_net(s.fmt)[1]})
    assert _decide("elu", ["chain_at_z.step"]) == ["REFUTED"]


def test_the_value_atoms_shallow_row_is_its_repaired_tree_at_a_depth_with_carries():
    """The value atom's shallow row is the repaired tree: the layers its stages slice (the
    amplification, kill A and B and the killers' layer, the top) are the same at the shallow
    depth, and both depths carry the pair."""
    from fpsmt.proof.lemmas import load
    for act, name in (("gelu", "bfloat16"), ("elu", "float32"), ("swish", "float8_e4m3")):
        fmt = parse_format(name)
        with RC.hidden_activation(act):
            c = RC.block_constants(fmt)
            d_s, d_r = RC.depth(fmt, R.SHALLOW), RC.depth(fmt)
            a, b = RC.value_network(fmt, d_s), RC.value_network(fmt, d_r)
            amp = 1 + len(c.stages)
            ks, kr = RC.value_layers(fmt, d_s), RC.value_layers(fmt, d_r)
            assert d_s > c.value_depth and d_r > c.value_depth
            assert all(_same_layer(x, y) for x, y in zip(a.layers[:amp + 1], b.layers[:amp + 1]))
            assert all(_same_layer(x, y) for x, y in zip(a.layers[ks - 2:], b.layers[kr - 2:]))
            assert len(a.layers) - ks == len(b.layers) - kr
            lemma = load("rect_value_atom")
            assert [x.name for x in lemma.claims("shallow", fmt)] == [x.name for x in lemma.claims("repaired", fmt)]


@pytest.mark.slow  # several minutes
@pytest.mark.parametrize("act", ["gelu", "elu"])
def test_shallow_rows_are_proved_and_confirmed_in_float8_e4m3(act, tmp_path):
    code, out, err = _main(["reproduce", "--activation", act, "--variant", "shallow", "--format", "float8_e4m3",
                            "--store", tmp_path / "s.sqlite", "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["lemma"], r["variant"], r["status"]) for r in rows] == [
        ("rect_value_atom", "shallow", "PROVED"), ("rect_gradient_atom", "shallow", "PROVED"),
        ("rect_theorem_3_1", "shallow", "PROVED")]
    assert all(not r["confirmed"]["unconfirmed"] for r in rows)
