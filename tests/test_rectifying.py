"""The rectifying construction family (GELU, Swish, ELU): networks re-run by the exact
reference, the checker failing on wrong networks, requirements, refusals, lemmas."""

import json
from dataclasses import replace
from fractions import Fraction

import pytest

from fpsmt.constructions import rectifying as RC
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Layer, Network
from test_saturating import _exact_check, _main, _write, random_targets


def _targets(fmt, n, seed):
    """n random points of X = [−2^(e_max−2), 2^(e_max−2)] with random finite f* (one piece:
    |f*| <= 2^(e_max−1), the first point's the bound itself), any finite h* (H = Ω) and g*;
    the extremes of X, the least subnormal and a zero among them."""
    M = Fraction(2) ** (fmt.e_max - 2)
    V = RC.piece_bound(fmt)
    extremes = [(fmt.round(M), fmt.round(V), fmt.max_bits, fmt.round(-fmt.Omega)), (1, 1, fmt.round(-1), 1),
                (fmt.round(-M), fmt.round(-1), fmt.round(1), 0), (0, fmt.round(Fraction(-3, 2)), 2, fmt.max_bits)]
    return random_targets(fmt, n, seed, M, fmt.Omega, V, extremes)


# float16: building GELU's table once takes about a minute
@pytest.mark.parametrize("act,name,n", [("gelu", "bfloat16", 6), ("swish", "bfloat16", 6),
                                        pytest.param("gelu", "float16", 6, marks=pytest.mark.slow),
                                        ("swish", "float8_e4m3", 8), ("gelu", "float8_e5m2", 8),
                                        ("gelu", "float32", 4), ("gelu", "float64", 3),
                                        ("elu", "bfloat16", 6), ("elu", "float8_e4m3", 8), pytest.param("elu", "float32", 4, marks=pytest.mark.slow),
                                        pytest.param("elu", "float16", 6, marks=pytest.mark.slow),
                                        pytest.param("elu", "float64", 3, marks=pytest.mark.slow)])
def test_network_meets_random_targets_under_the_exact_reference(act, name, n, tmp_path):
    fmt = parse_format(name)
    pts = _targets(fmt, n, seed=11)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", act, "--targets", t, "--format", name,
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["verified"] == n and summary["activation"] == act
    from fpsmt.commands import netio
    net = netio.load_network(tmp_path / "n.json")
    assert {L.activation for L in net.layers[:-1]} == {act} and net.layers[-1].activation == "identity"
    assert _exact_check(fmt, net, pts) == []


def _network(fmt, pts, act="gelu"):
    from fpsmt.constructions.registry import get_construction
    return get_construction(act).network(fmt, pts)


def test_a_changed_killer_weight_misses_the_targets():
    """The exact check fails on a wrong network: the killers' weight W halved leaves them
    alive where the step holds, so the value atoms' N never comes alive."""
    fmt = parse_format("bfloat16")
    pts = _targets(fmt, 5, seed=3)
    net = _network(fmt, pts)
    assert _exact_check(fmt, net, pts) == []
    c = RC.block_constants(fmt, "gelu")
    W = c.W ^ fmt.sign_bit
    half = fmt.round(-fmt.to_fraction(c.W) / 2)
    k = next(i for i, L in enumerate(net.layers) if W in L.weights)
    L = net.layers[k]
    bad = Network(fmt, net.layers[:k] + [Layer(L.n_out, L.n_in, L.rows, L.cols, [half if w == W else w for w in L.weights],
                                               L.bias, L.activation)] + net.layers[k + 1:])
    assert _exact_check(fmt, bad, pts) != []


@pytest.mark.parametrize("part", ["C", "K"])
def test_elu_blocks_without_their_cancellation_miss_the_targets(part, monkeypatch):
    """ELU's dead neurons are −1: without δ ⊗ C in the gated neurons (the killers' two −1
    at x = z are then not cancelled) or with M = σ(N ⊕ K) fed K = +0 (a dead N's −1 reaches
    the output row), the exact check fails; with both, it passes."""
    fmt = parse_format("bfloat16")
    pts = _targets(fmt, 5, seed=5)
    assert _exact_check(fmt, _network(fmt, pts, "elu"), pts) == []
    if part == "C":
        monkeypatch.setattr(RC, "gated", lambda c: RC.GATED)
    else:
        real = RC.block_plan

        def plan(f):
            P = real(f)
            add = P.add
            P.add = lambda neurons: add([(n, [(src, 0 if (n, src) == ("K", "K") else w) for src, w in ins], b)
                                         for n, ins, b in neurons])
            return P
        monkeypatch.setattr(RC, "block_plan", plan)
    assert _exact_check(fmt, _network(fmt, pts, "elu"), pts) != []


def test_the_gradient_atom_uses_weight_two_on_x_where_2g_is_not_finite():
    """GELU's σ'(0) = 1/2: the chain carries h to 2g, or to g with 2 ⊗ x on the path when
    2g would overflow — both met exactly (|g| = Ω, the largest finite)."""
    fmt = parse_format("bfloat16")
    pts = [(fmt.round(1), 0, fmt.round(1), fmt.round(fmt.Omega)), (fmt.round(2), 0, fmt.round(-1), fmt.round(-fmt.Omega)),
           (fmt.round(3), 0, fmt.round(1), 1)]
    assert _exact_check(fmt, _network(fmt, pts), pts) == []


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_requirements_are_proved_with_the_blocks_witnesses(tmp_path):
    code, out, err = _main(["conditions", "--activation", "gelu", "--format", "bfloat16", "--store",
                            tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rows = {r["condition"]: r for r in json.loads(out)}
    names = ("R.zero", "R.identity", "R.dead", "R.sign", "R.monotone")
    assert {n: rows[n]["status"] for n in names} == dict.fromkeys(names, "PROVED")
    c = RC.block_constants(parse_format("bfloat16"), "gelu")
    assert (rows["R.identity"]["witness"], rows["R.dead"]["witness"]) == ({"a": c.a}, {"b": c.b})


def test_elu_requirements_hold_with_dead_value_minus_one(monkeypatch, tmp_path):
    """ELU's dead side is −1 (σ' = +0 there): R.dead is PROVED with the blocks' δ = −1 and
    witness b; stated with δ a zero instead (the blocks of GELU and Swish), it is REFUTED,
    and construct stops with one line naming it, nothing written."""
    fmt = parse_format("bfloat16")
    c = RC.block_constants(fmt, "elu")
    assert (c.dead, c.a) == (-1, 0)
    code, out, err = _main(["conditions", "--activation", "elu", "--format", "bfloat16", "--store",
                            tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rows = {r["condition"]: r for r in json.loads(out)}
    names = ("R.zero", "R.identity", "R.dead", "R.sign", "R.monotone")
    assert {n: rows[n]["status"] for n in names} == dict.fromkeys(names, "PROVED")
    assert rows["R.dead"]["witness"] == {"b": c.b}
    real = RC.block_constants
    monkeypatch.setattr(RC, "block_constants",
                        lambda f, name=None: replace(real(f, name), dead=0) if (name or RC.hidden()) == "elu"
                        else real(f, name))
    t = tmp_path / "t.csv"
    _write(fmt, [(fmt.round(1), fmt.round(1), fmt.round(1), fmt.round(1))], t)
    code, out, err = _main(["construct", "--activation", "elu", "--targets", t, "--format", "bfloat16",
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s2.sqlite"])
    errors = [ln for ln in err.strip().splitlines() if ln.startswith("fpsmt: error:")]
    assert code == 2 and len(errors) == 1 and "requirement R.dead" in errors[0] and "REFUTED" in errors[0], err
    assert not (tmp_path / "n.json").exists()


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_step_indicators_are_proved_in_float8_e4m3(tmp_path):
    code, out, err = _main(["reproduce", "--activation", "gelu", "--format", "float8_e4m3", "--store",
                            tmp_path / "s.sqlite", "--lemma", "rect_step_indicator_ge,rect_step_indicator_le",
                            "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["lemma"], r["status"]) for r in rows] == [("rect_step_indicator_ge", "PROVED"),
                                                         ("rect_step_indicator_le", "PROVED")]


def test_a_step_indicator_one_stage_short_is_refuted(monkeypatch, tmp_path):
    """The step lemma fails on a wrong block: without its last amplification stage the
    values reaching the kill layers are not beyond the dead point."""
    fmt = parse_format("float8_e4m3")
    good = RC.block_constants(fmt, "gelu")
    monkeypatch.setattr(RC, "block_constants", lambda f, name=None: replace(good, stages=good.stages[:-1]))
    code, out, err = _main(["reproduce", "--activation", "gelu", "--format", "float8_e4m3", "--lemma",
                            "rect_step_indicator_ge", "--no-confirm", "--store", tmp_path / "s.sqlite",
                            "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["status"] == "REFUTED" and row["counterexample"]


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_value_atom_is_proved_in_float8_e4m3(tmp_path):
    code, out, err = _main(["reproduce", "--activation", "swish", "--format", "float8_e4m3", "--store",
                            tmp_path / "s.sqlite", "--lemma", "rect_value_atom", "--no-confirm",
                            "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    assert [(r["lemma"], r["status"]) for r in json.loads(out)] == [("rect_value_atom", "PROVED")]


def test_torch_sigma_is_checked_against_the_correctly_rounded_one():
    """`construct --torch` names where torch's σ and autograd σ' differ from the correctly
    rounded ones: torch's bfloat16 GELU rounds ω·Φ(ω) through float32, a tie, to +0
    (issue 16's double rounding; correctly rounded it is ω); its ReLU differs only in the
    sign of relu(−0)."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    from fpsmt.commands.torch_export import sigma_mismatches
    fmt = parse_format("bfloat16")
    g = sigma_mismatches(fmt, "gelu")
    assert g["inputs"] == 65536 - 2 * 2 ** 7  # every finite pattern (exponent all ones: inf and NaN, both signs)
    assert g["value"] > 0 and ("0x0001", "0x0000", "0x0001", "0x3f00", "0x3f00") in g["examples"]
    r = sigma_mismatches(fmt, "relu")
    assert (r["value"], r["derivative"], r["zero_signs"]) == (0, 0, 1)
    assert sigma_mismatches(parse_format("float32"), "gelu") is None


@pytest.mark.parametrize("act", ["gelu", "swish"])
def test_torch_with_the_correctly_rounded_sigma_meets_every_target(act, tmp_path):
    """`construct --torch` in bfloat16 also runs the scalar module with the correctly rounded
    σ and σ' looked up: then only torch's arithmetic and autograd remain, and every point
    meets its targets bit for bit (torch's own GELU and SiLU are not correctly rounded: the
    test above)."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    fmt = parse_format("bfloat16")
    pts = _targets(fmt, 8, seed=5)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", act, "--targets", t, "--format", "bfloat16", "--torch",
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rep = json.loads(out)["torch"]
    assert rep["scalar_rounded"]["bit_exact"] == len(pts), rep["scalar_rounded"]["differences"]
    assert rep["sigma"]["value"] > 0 and "correctly rounded σ and σ' looked up" in err
    # with torch's own σ the same module misses (0 of these 8 with torch 2.13): σ is the difference
    assert rep["scalar"]["bit_exact"] < len(pts)


@pytest.mark.parametrize("act,name", [("gelu", "float8_e4m3"), ("elu", "float8_e4m3"), ("gelu", "bfloat16"),
                                      ("swish", "float32"), ("elu", "float32"), ("gelu", "float64")])
def test_the_gradient_atom_is_its_trees_stages(act, name):
    """What rect_gradient_atom's tree takes from the code: the atom's layers between the gate
    and the top are each the chain step's layer (c_k, B_k for its c, B), the gate's
    parameters are z's and w_x's only, the path is layer 0's last neuron, the chain weights
    are the transfer's for the path's target t (input side first), each bias
    I ⊖ (c ⊗ I) and w_out the transfer's; the top is not a chain step (it holds N)."""
    import random
    from fpsmt.constructions import relu as R
    from fpsmt.proofs import rect_gradient_atom as T
    from test_saturating import _same_layer, atom_slices
    fmt = parse_format(name)
    with RC.hidden_activation(act):
        step, rename = T._chain_net(fmt)
        net, depth, gate, top = atom_slices(RC, fmt, step.layers[0], lambda k: {f"c{k}": "c", f"B{k}": "B", **rename},
                                            {"ge_b", "le_b", "wx", "zb"}, "zb")
        assert rename == {f"c{gate + 1}": "c", f"B{gate + 1}": "B"}
        assert not _same_layer(net.layers[top], step.layers[0], {f"c{top}": "c", f"B{top}": "B", **rename})
        assert RC.gradient_state(fmt) == tuple(["G1", "G2", "C", "uge", "ule", "R"] if act == "elu"
                                               else ["R", "G1", "G2", "uge", "ule"])
        I = Fraction(2) ** RC.block_constants(fmt).a
        rng = random.Random(11)
        for _ in range(3):
            z, h, g = (fmt.round(Fraction(rng.uniform(-4, 4)).limit_denominator(1 << 20)) for _ in range(3))
            _, params = R.concrete_params(RC.gradient_atom, fmt, z, h, g, depth=depth)

            def transfer(s, h, g):
                w_out, chain = R.transfer_weights(s, h, RC.path_params(s, g)[1])
                return None, {"w_out": w_out, **{f"t{i}": w for i, w in enumerate(reversed(chain))}}
            _, w = R.concrete_params(transfer, fmt, h, g)
            assert [params[f"c{k}"] for k in range(gate + 1, top + 1)] == [w[f"t{i}"] for i in range(len(w) - 1)]
            assert params["w_out"] == w["w_out"]
            for k in range(gate + 1, top + 1):
                c = fmt.to_fraction(params[f"c{k}"])
                assert params[f"B{k}"] == fmt.round(I - fmt.to_fraction(fmt.round(c * I)))


@pytest.mark.parametrize("act,name", [("gelu", "float32"), ("elu", "float32"), ("swish", "float64"),
                                      ("gelu", "float8_e4m3")])
def test_the_gradient_atoms_steps_from_their_own_pre_activations_are_the_run(act, name):
    """What the split ``lower_at_z`` takes from the code: the steps below the killers run
    from layer 0's own pre-activations at x = z (``_lower_pre`` with ``_pre0``'s terms, as
    ``lower_spacing`` names them) are the run at z, term for term (the same Z3 terms:
    outputs, D^AD(x) and its first-layer terms), for every z, w_x and upstream; from
    other pre-activations (p0 doubled) D^AD's terms differ."""
    import z3

    from fpsmt.proof.claims import Float, forall
    from fpsmt.proof.encoding import Encoding
    from fpsmt.proofs import rect_gradient_atom as T
    from fpsmt.semantics.arith import symbolic
    fmt = parse_format(name)
    with RC.hidden_activation(act):
        lower = T._lower_names(fmt)[0]
        ups = ["u_r" if n == "r" else f"o{i}" for i, n in enumerate(lower)]
        c = forall("slice", {n: Float() for n in ["z", "wx", *ups]}, goal=lambda s: s.true())
        s = Encoding(c, fmt, symbolic(fmt), {}, {}).scope
        gate, _ = RC.gradient_layers(fmt, RC.depth(fmt))
        net, P, (out, grad, trace) = T._gate_run(s, s.z, [s[u] for u in ups], 0, gate - 1)
        pre = T._pre0(s)

        def parts(net, P, run):
            out, grad, trace = run
            return [t.v[()] for t in [*out, *grad, *s.input_terms(net, P, trace)]]
        whole = parts(net, P, (out, grad, trace))
        given = parts(*T._lower_pre(s, pre, [s[u] for u in ups], s.wx))
        assert len(whole) == len(given) and all(z3.eq(a, b) for a, b in zip(whole, given))
        other = parts(*T._lower_pre(s, [pre[0] * 2, *pre[1:]], [s[u] for u in ups], s.wx))
        assert not all(z3.eq(a, b) for a, b in zip(whole, other))


def test_the_gradient_atoms_chain_step_is_refuted_with_a_wrong_bias(monkeypatch):
    """The tree's induction step fails on a wrong chain layer: with bias I instead of
    I ⊖ (c ⊗ I) the path neuron leaves I at x = z (REFUTED in float8_e4m3)."""
    from test_saturating import decide_stage
    monkeypatch.setattr(RC, "chain_bias", lambda s, c, I: I)
    assert decide_stage(RC, "gelu", "rect_gradient_atom", "chain_at_z.step") == "REFUTED"


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.parametrize("act", ["gelu", pytest.param("elu", marks=pytest.mark.slow)])
def test_the_gradient_atom_tree_is_proved_in_float8_e4m3(act, tmp_path):
    code, out, err = _main(["reproduce", "--activation", act, "--format", "float8_e4m3", "--store",
                            tmp_path / "s.sqlite", "--lemma", "rect_gradient_atom", "--no-confirm",
                            "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    assert [(r["lemma"], r["status"]) for r in json.loads(out)] == [("rect_gradient_atom", "PROVED")]


@pytest.mark.parametrize("act,name", [("gelu", "float8_e4m3"), ("elu", "float8_e4m3"), ("swish", "bfloat16"),
                                      ("elu", "float32"), ("gelu", "float64")])
def test_the_value_atom_is_its_trees_stages(act, name):
    """What rect_value_atom's tree takes from the code: the atom at the lemma's depth is cut
    after the killers' layer into a gate that reads z's step biases only and a top that
    reads the value's parameters only; the state is the killers' layer (G1, G2; ELU: C, K);
    the step indicators' carry layers are all one layer, the carry induction's."""
    from fpsmt.proofs import rect_value_atom as V
    from fpsmt.semantics.network import Param
    from test_saturating import _same_layer
    fmt = parse_format(name)
    with RC.hidden_activation(act):
        depth = RC.depth(fmt)
        net = RC.value_network(fmt, depth)
        kill = RC.value_layers(fmt, depth)
        assert len(net.layers) == depth

        def named(layers):
            return {w.name for L in layers for w in list(L.weights) + list(L.bias) if isinstance(w, Param)}
        assert named(net.layers[:kill + 1]) == {"ge_b", "le_b"}
        assert named(net.layers[kill + 1:]) == {"n1", "n2", "w1", "w2"}
        assert net.layers[kill].n_out == len(RC.value_state(fmt))
        assert RC.value_state(fmt) == (("G1", "G2", "C", "K") if act == "elu" else ("G1", "G2"))
        # the carries: every layer between the amplification and kill A is the carry induction's layer
        amp, carries, k = V._cuts(fmt)
        assert k == kill and carries == kill - RC.block_constants(fmt).step_depth and carries > 0
        for j in range(amp, amp + carries):
            assert _same_layer(net.layers[j], net.layers[amp], {}), j
        assert not _same_layer(net.layers[amp + carries], net.layers[amp], {})
        assert not _same_layer(net.layers[amp - 1], net.layers[amp], {})


def test_the_value_atoms_top_is_refuted_with_a_doubled_weight(monkeypatch):
    """The tree's top fails on a wrong atom: with w1 doubled the output is 2v at x = z
    (REFUTED in float8_e4m3)."""
    from test_saturating import decide_stage
    good = RC.value_params
    monkeypatch.setattr(RC, "value_params", lambda s, v: (lambda n1, n2, w1, w2: (n1, n2, w1 * 2, w2))(*good(s, v)))
    assert decide_stage(RC, "gelu", "rect_value_atom", "top") == "REFUTED"


def test_the_value_atoms_off_layer_is_refuted_with_a_narrow_interval(monkeypatch):
    """The amplification's layer stages at x != z (the split wide formats take) check the
    intervals they are given: with B's image under layer 0 cut to [−1/8, 0] (GELU's minimum
    is about −0.17) layer 0's stage is REFUTED in float8_e4m3."""
    from fpsmt.proofs import rect_value_atom as V
    from test_saturating import decide_stage
    good = V.off_intervals

    def narrow(fmt_name, act):
        (pre, (A, B)), *rest = good(fmt_name, act)
        return ((pre, (A, (Fraction(-1, 8), B[1]))), *rest)
    monkeypatch.setattr(V, "off_intervals", narrow)
    monkeypatch.setattr(V, "SPLIT_FROM_BITS", 8)  # float8_e4m3 takes the split too
    assert decide_stage(RC, "gelu", "rect_value_atom", "off_layer_0") == "REFUTED"


@pytest.mark.parametrize("act,name", [("gelu", "float32"), ("elu", "float64"), ("swish", "float8_e4m3")])
def test_the_value_atoms_steps_from_their_own_pre_activations_are_the_run(act, name):
    """What the split ``steps_at_z`` takes from the code: the amplification run from layer
    0's own pre-activations at x = z (``_steps_run`` with ``_pre0``'s terms, as
    ``spacing_at_z`` names them) is the run at z, term for term (outputs, D^AD(x), its
    first-layer terms), for every z and upstream; from (p0 ⊗ 2, p1) D^AD's terms differ."""
    import z3

    from fpsmt.proof.claims import Float, forall
    from fpsmt.proof.encoding import Encoding
    from fpsmt.proofs import rect_value_atom as V
    from fpsmt.semantics.arith import symbolic
    fmt = parse_format(name)
    with RC.hidden_activation(act):
        c = forall("slice", {n: Float() for n in ("z", "o1", "o2")}, goal=lambda s: s.true())
        s = Encoding(c, fmt, symbolic(fmt), {}, {}).scope

        def parts(pre):
            net, P, (out, grad, trace) = V._steps_run(s, s.z, pre)
            return [t.v[()] for t in [*out, *grad, *s.input_terms(net, P, trace)]]
        pre = V._pre0(s)
        whole, given = parts(None), parts(pre)
        assert len(whole) == len(given) and all(z3.eq(a, b) for a, b in zip(whole, given))
        assert not all(z3.eq(a, b) for a, b in zip(whole, parts([pre[0] * 2, pre[1]])))


def test_the_value_atoms_split_at_z_is_proved_in_float8_e4m3(monkeypatch):
    """The amplification at x = z as the wide formats take it (forced in float8_e4m3):
    ``spacing_at_z``, ``amp_at_z`` (enumerated over the powers of two), their join and
    ``steps_at_z`` PROVED; the spacing stage with the powers cut to [1, 8] is REFUTED (its
    witness replayed by the engine): below 8 and from 128 on, z's spacings leave [1, 8];
    so is the spacing stage with z⁺ − z = z − z⁻ always (e1 = 0): at a power of two they
    differ by a factor 2."""
    from fpsmt.proof.claims import Int
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.tree import Pred, stage
    from fpsmt.proofs import rect_value_atom as V
    from test_saturating import decide_stage
    monkeypatch.setattr(V, "SPLIT_FROM_BITS", 8)
    names = ["spacing_at_z", "amp_at_z", "first_at_z", "steps_at_z"]
    assert {n: decide_stage(RC, "gelu", "rect_value_atom", n) for n in names} == dict.fromkeys(names, "PROVED")
    fmt = parse_format("float8_e4m3")
    for name, cut in (("narrow_spacing", {"p0": V.pow2_in(lambda f: 0, lambda f: 3), "e1": V.E1}),
                      ("equal_spacings", {"p0": V.SPACING_DOM, "e1": Int(0, 0)})):
        narrow = Pred(name, {"z": V.X_DOM, **cut}, V.SPACING.fn)
        node = stage(name, {"z": V.X_DOM}, narrow, lambda s: V.spacing_vars(s, V._pre0(s)))
        with RC.hidden_activation("gelu"):
            r = Engine(solver="z3", timeout=120).prove(node.claim, fmt, {node.claim.name: node.claim})
        assert r.status == "REFUTED", name


@pytest.mark.slow
def test_value_atom_is_proved_in_float32(tmp_path):
    """GELU's value atom in float32: the amplification at x = z by the exponents of the
    spacing (enumerated) and congruence, at x != z layer by layer over intervals."""
    code, out, err = _main(["reproduce", "--activation", "gelu", "--format", "float32", "--store",
                            tmp_path / "s.sqlite", "--lemma", "rect_value_atom", "--variant", "repaired",
                            "--no-confirm", "--solver", "z3", "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    assert [(r["lemma"], r["status"]) for r in json.loads(out)] == [("rect_value_atom", "PROVED")]


def test_the_gradient_atoms_gate_stages_can_be_enumerated_in_float8_e4m3():
    """The gate is cut so that its 8-bit answers can be confirmed by enumeration: the gate
    stages of GELU's tree over the steps have spaces within the enumeration limit in
    float8_e4m3 (the gate as one stage over z, g and five upstreams had about 2^40 points)."""
    from fpsmt.proof.exhaustive import space
    from fpsmt.proof.lemmas import load
    fmt = parse_format("float8_e4m3")
    with RC.hidden_activation("gelu"):
        node, _ = load("rect_gradient_atom").build("repaired", fmt)
        claims = {c.name: c for c in node.claims()}
        for name in ("lower_at_z", "killers_at_z", "gate_off"):
            c = claims[f"rect_gradient_atom.{name}"]
            assert space(c, fmt, list(c.variables)) is not None, name
        # the gate layer alone: R's upstream and two killers' are about 2^28 points with the
        # zeros' signs, beyond the limit (its confirmation is cvc5's)
        c = claims["rect_gradient_atom.top_at_z"]
        assert space(c, fmt, list(c.variables)) is None


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_the_gradient_atoms_split_gate_is_proved_in_float8_e4m3(monkeypatch):
    """The gate as the wide formats take it (forced in float8_e4m3): at x = z the spacing,
    the steps from the pre-activations (2^kg, 2^kl, +0) by enumeration, their join and the
    steps from those pre-activations for every upstream u_r (``lower_at_z``); at x != z a
    stage per layer over intervals (the pair's and the path r's; float8_e4m3's gate has 3
    carry layers) and the kill layers to KILLED.  Every one of these nodes PROVED."""
    from fpsmt.proof.lemmas import load
    from fpsmt.proofs import rect_value_atom as V
    from test_saturating import decide_stage
    monkeypatch.setattr(V, "SPLIT_FROM_BITS", 8)
    with RC.hidden_activation("gelu"):
        node, _ = load("rect_gradient_atom").build("repaired", parse_format("float8_e4m3"))
    names = [c.name.split(".", 1)[1] for c in node.claims()
             if c.name.split(".")[1].startswith(("lower_", "off_layer_", "kill_off"))]
    assert len(names) == 4 + 8 + 1
    assert {n: decide_stage(RC, "gelu", "rect_gradient_atom", n) for n in names} == dict.fromkeys(names, "PROVED")


def test_the_gradient_atoms_off_layer_is_refuted_with_a_narrow_path_interval(monkeypatch):
    """The layer stages at x != z check the path r's intervals too: with r's image under
    layer 0 cut to [−1/8, hi] (GELU's minimum is about −0.17) layer 0's stage is REFUTED in
    float8_e4m3."""
    from fpsmt.proofs import rect_gradient_atom as G
    from fpsmt.proofs import rect_value_atom as V
    from test_saturating import decide_stage
    monkeypatch.setattr(V, "SPLIT_FROM_BITS", 8)
    good = G.r_intervals

    def narrow(fmt_name, act):
        (pre, post), *rest = good(fmt_name, act)
        return ((pre, (Fraction(-1, 8), post[1])), *rest)
    monkeypatch.setattr(G, "r_intervals", narrow)
    assert decide_stage(RC, "gelu", "rect_gradient_atom", "off_layer_0") == "REFUTED"
