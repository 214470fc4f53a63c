"""``construct --depth L`` for the saturating (tanh) and rectifying (GELU, Swish, ELU)
families: above the least depth the gradient atoms' chains begin with weights 1 and the
value atoms carry longer.  What the atoms' trees take from the code is checked here layer
for layer (the padded atom is the least-depth atom with the padding layers the trees'
inductions cover inserted); the padded networks meet their targets in the executor and the
exact reference; a wrong padding is caught (the padding induction REFUTED, the network
missing its targets); the bounds the inductions have cover every depth ``--depth`` takes."""

import json

import pytest

from fpsmt.constructions import logistic as LG
from fpsmt.constructions import rectifying as RC
from fpsmt.constructions import relu as R
from fpsmt.constructions import saturating as S
from fpsmt.commands import netio, targets
from fpsmt.errors import InputError
from fpsmt.proof.engine import Engine
from fpsmt.semantics.formats import parse_format
from test_rectifying import _targets as rect_targets
from test_saturating import _exact_check, _main, _same_layer, _targets as tanh_targets, _write

VARIANTS = (R.REPAIRED, R.SHALLOW)


def _params(builder, fmt, depth, variant, *args):
    return R.concrete_params(builder, fmt, *args, depth=depth, variant=variant)[1]


def _check_value_padding(B, fmt, D, k):
    """The value atom of the family ``B`` at depth D + k: the layers up to p, then k copies
    of the layer the padding induction runs (the atom's first carry layer one layer deeper
    than D: proofs/sat_common.py ``value_padding_node``), then the atom's layers at D after p."""
    from fpsmt.proof.claims import Scope
    from fpsmt.semantics.arith import concrete
    cut = B.block_constants(fmt).step_depth + 1
    s = Scope(concrete(fmt), fmt, {})
    va, vb, pad = (B.value_atom(s, s.const(1), s.const(3), depth=d)[0] for d in (D, D + k, D + 1))
    assert len(vb.layers) == len(va.layers) + k
    assert all(_same_layer(x, y) for x, y in zip(va.layers[:cut], vb.layers[:cut]))
    assert all(_same_layer(L, pad.layers[cut]) for L in vb.layers[cut:cut + k])
    assert all(_same_layer(x, y) for x, y in zip(va.layers[cut:], vb.layers[cut + k:]))


@pytest.mark.parametrize("name", ["float8_e4m3", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_padded_tanh_atoms_are_the_least_atoms_with_the_trees_padding(name, variant):
    """Gradient atom at D + k: the gate's and the top's layers are the least atom's, every
    layer between is the chain layer (the chain inductions' step), its first k weights 1 and
    the rest the least atom's weights in order.  Value atom at D + k: the layers up to p,
    then k copies of the layer the padding induction runs (sat_value_atom.padding: the
    atom's first carry layer one layer deeper), then the least atom's carries and top."""
    fmt = parse_format(name)
    with S.hidden_activation("tanh"):
        D, k = S.depth(fmt, variant), 5
        a, b = S.gradient_network(fmt, D, variant), S.gradient_network(fmt, D + k, variant)
        gate, top = S.gradient_layers(fmt, D, variant)
        gate2, top2 = S.gradient_layers(fmt, D + k, variant)
        assert (gate2, top2) == (gate, top + k) and len(b.layers) == D + k
        assert all(_same_layer(x, y) for x, y in zip(a.layers[:gate + 1], b.layers[:gate + 1]))
        assert all(_same_layer(y, x, {f"c{top2}": f"c{top}"}) for x, y in zip(a.layers[top:], b.layers[top2:]))
        for j in range(gate + 1, top2):  # the chain step's layer (p carried, r = σ(c ⊗ r)), weight renamed
            assert _same_layer(b.layers[j], a.layers[gate + 1], {f"c{j}": f"c{gate + 1}"}), j
        z, h, g = fmt.round(1), fmt.round(-3), fmt.round(0.75)
        pa = _params(S.gradient_atom, fmt, D, variant, z, h, g)
        pb = _params(S.gradient_atom, fmt, D + k, variant, z, h, g)
        last = top if variant == R.REPAIRED else top - 1
        least = [pa[f"c{j}"] for j in range(gate + 1, last + 1)]
        padded = [pb[f"c{j}"] for j in range(gate + 1, last + k + 1)]
        assert padded == [fmt.one_bits] * k + least
        assert D > S.block_constants(fmt).value_depth + 1  # p carried at the least depth, beyond the copy layer
        _check_value_padding(S, fmt, D, k)


@pytest.mark.parametrize("act,name", [("gelu", "float8_e4m3"), ("elu", "bfloat16"), ("swish", "float32"),
                                      ("elu", "float8_e4m3"), ("gelu", "float64")])
@pytest.mark.parametrize("variant", VARIANTS)
def test_padded_rect_atoms_are_the_least_atoms_with_the_trees_padding(act, name, variant):
    """Gradient atom at D + k: the gate (the same index) and everything before it, and the top
    and output, are the least atom's; every layer between is the chain layer of the least
    atom's chain (weights renamed), its first k weights 1 (bias I ⊖ I = +0; shallow:
    n = −1) and the rest the least atom's.  Value atom at D + k: the slices its tree's stages
    take are the least atom's, k more carries of the pair between (the carry induction)."""
    fmt = parse_format(name)
    with RC.hidden_activation(act):
        D, k = RC.depth(fmt, variant), 4
        a, b = RC.gradient_network(fmt, D, variant), RC.gradient_network(fmt, D + k, variant)
        gate, top = RC.gradient_layers(fmt, D, variant)
        assert RC.gradient_layers(fmt, D + k, variant) == (gate, top + k)
        assert all(_same_layer(x, y) for x, y in zip(a.layers[:gate + 1], b.layers[:gate + 1]))
        names = ("c", "n") if variant == R.SHALLOW else ("c", "B")
        assert all(_same_layer(y, x, {f"{p}{top + k}": f"{p}{top}" for p in names})
                   for x, y in zip(a.layers[top:], b.layers[top + k:]))
        first = gate + (2 if variant == R.SHALLOW else 1)
        if variant == R.SHALLOW:
            assert _same_layer(a.layers[gate + 1], b.layers[gate + 1])  # the normalize layer
        for j in range(first, top + k):
            assert _same_layer(b.layers[j], a.layers[first], {f"{p}{j}": f"{p}{first}" for p in names}), j
        z, h, g = fmt.round(1), fmt.round(-3), fmt.round(0.75)
        pa = _params(RC.gradient_atom, fmt, D, variant, z, h, g)
        pb = _params(RC.gradient_atom, fmt, D + k, variant, z, h, g)
        second = "n" if variant == R.SHALLOW else "B"
        pad_second = fmt.sign_bit | fmt.one_bits if variant == R.SHALLOW else 0  # n = −1, B = I ⊖ I = +0
        assert [pb[f"c{j}"] for j in range(first, first + k)] == [fmt.one_bits] * k
        assert [pb[f"{second}{j}"] for j in range(first, first + k)] == [pad_second] * k
        assert [pb[f"{p}{j + k}"] for p in names for j in range(first, top + 1)] == \
            [pa[f"{p}{j}"] for p in names for j in range(first, top + 1)]
        assert pb["w_out"] == pa["w_out"] and pb["mw_out"] == pa["mw_out"]
        c = RC.block_constants(fmt)
        va, vb = RC.value_network(fmt, D), RC.value_network(fmt, D + k)
        amp = 1 + len(c.stages)
        ka, kb = RC.value_layers(fmt, D), RC.value_layers(fmt, D + k)
        assert D > c.value_depth and kb == ka + k and len(vb.layers) == len(va.layers) + k
        assert all(_same_layer(x, y) for x, y in zip(va.layers[:amp + 1], vb.layers[:amp + 1]))
        assert all(_same_layer(x, y) for x, y in zip(va.layers[ka - 2:], vb.layers[kb - 2:]))


def test_the_inductions_cover_every_depth_construct_takes():
    """At the most padding ``--depth`` takes (PADDING_MAX above the least), every chain is
    within its inductions' bound and the rectifying value atom's carries within its carry
    induction's; one layer more is refused."""
    from fpsmt.proofs import rect_gradient_atom as RG, rect_value_atom as RV, sat_gradient_atom as SG
    for name in ("float8_e4m3", "bfloat16", "float64"):
        fmt = parse_format(name)
        for v in VARIANTS:
            with S.hidden_activation("tanh"):
                assert S.chain_length(fmt, v) + R.PADDING_MAX <= SG.CHAIN_MAX
                most = S.least_depth(fmt, v) + R.PADDING_MAX
                assert S.theorem_depth(fmt, most, v) == most
                with pytest.raises(InputError, match="covers at most 2048 layers"):
                    S.theorem_depth(fmt, most + 1, v)
            for act in ("gelu", "elu"):
                with RC.hidden_activation(act):
                    assert RC.chain_length(fmt, v) + R.PADDING_MAX <= RG.CHAIN_MAX
                    most = RC.least_depth(fmt, v) + R.PADDING_MAX
                    assert RC.value_layers(fmt, most) - RC.block_constants(fmt).step_depth <= RV._CARRY_MAX
                    with pytest.raises(InputError, match="covers at most"):
                        RC.theorem_depth(fmt, most + 1, v)


@pytest.mark.parametrize("act,name,variant", [("tanh", "bfloat16", R.REPAIRED), ("tanh", "float32", R.SHALLOW),
                                              ("tanh", "float64", R.SHALLOW), ("gelu", "bfloat16", R.SHALLOW),
                                              ("elu", "float8_e4m3", R.REPAIRED), ("swish", "float32", R.REPAIRED)])
def test_construct_depth_meets_the_targets_under_the_exact_reference(act, name, variant, tmp_path):
    """``construct --depth`` end to end: L layers, the least named, verified in the executor,
    then re-run by the exact reference from the written file."""
    fmt = parse_format(name)
    family = S if act == "tanh" else RC
    with family.hidden_activation(act):
        pts = tanh_targets(fmt, 5, seed=21) if act == "tanh" else rect_targets(fmt, 5, seed=21)
        least = family.least_depth(fmt, variant)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    L = least + 9
    code, out, err = _main(["construct", "--activation", act, "--targets", t, "--format", name, "--variant", variant,
                            "--depth", L, "--out", tmp_path / "n.json", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["depth"] == L and doc["least_depth"] == least and doc["verified"] == len(pts)
    assert f"padded from the least, {least}" in err
    net = netio.load_network(tmp_path / "n.json")
    assert net.depth == L and {x.activation for x in net.layers[:-1]} == {act}
    assert _exact_check(fmt, net, pts) == []


def test_a_wrong_padding_weight_is_caught():
    """A padded chain weight 1 → 2 in one gradient atom (GELU, bfloat16): the chain
    inductions allow the weight (it is in K) but the product is no longer the transfer's,
    and that atom's point misses in the executor and the exact reference alike."""
    fmt = parse_format("bfloat16")
    with RC.hidden_activation("gelu"):
        pts = rect_targets(fmt, 4, seed=5)
        D = RC.least_depth(fmt)
        net = RC.theorem_network(fmt, pts, depth=D + 2)
        gate, _ = RC.gradient_layers(fmt, D + 2)
    assert targets.verify(fmt, net, pts)[0] == [] and _exact_check(fmt, net, pts) == []
    pad = net.layers[gate + 1]  # the first padded chain layer of every gradient atom
    two = fmt.round(2)
    e = next(i for i, w in enumerate(pad.weights) if int(w) == fmt.one_bits and int(pad.rows[i]) == 0)
    pad.weights[e] = two
    first_ga = next(p[0] for p in pts if not fmt.is_zero(p[3]))
    assert [b["x"] for b in targets.verify(fmt, net, pts)[0]] == [fmt.hex(first_ga)]
    assert {x for x, _, _ in _exact_check(fmt, net, pts)} == {fmt.hex(first_ga)}


def _padding_nodes(fmt):
    from fpsmt.proofs import sat_value_atom as SV
    with S.hidden_activation("tanh"):
        tree, _ = SV.repaired(fmt)
        claims = {c.name: c for c in tree.claims()}
        names = [n for n in claims if n.startswith("sat_value_atom.padding")]
        return {n: Engine(solver="z3", timeout=120).prove(claims[n], fmt, claims).status for n in names}


def test_the_tanh_padding_induction_is_proved():
    got = _padding_nodes(parse_format("float8_e4m3"))
    assert set(got) == {"sat_value_atom.padding." + n for n in
                        ("base", "step", "step.case1", "step.cover", "conclusion")}
    assert set(got.values()) == {"PROVED"}


@pytest.mark.soundness
def test_a_wrong_padding_carry_is_refuted(monkeypatch):
    """The padding induction runs the atom's own carry layer: with the carry's weight 2^T
    replaced by 1/2, tanh(±1/2) is not ±1 and the step is REFUTED."""
    from fractions import Fraction
    orig_pow2 = S._pow2
    T = S.block_constants(parse_format("float8_e4m3")).T
    monkeypatch.setattr(S, "_pow2", lambda k: Fraction(1, 2) if k == T else orig_pow2(k))
    got = _padding_nodes(parse_format("float8_e4m3"))
    assert got["sat_value_atom.padding.step"] == "REFUTED" or got["sat_value_atom.padding.step.case1"] == "REFUTED"
    monkeypatch.setattr(S, "_pow2", orig_pow2)
    assert set(_padding_nodes(parse_format("float8_e4m3")).values()) == {"PROVED"}


@pytest.mark.parametrize("name", ["float8_e4m3", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_padded_sigmoid_atoms_are_the_least_atoms_with_the_trees_padding(name, variant):
    """Gradient atom at D + k: the gate's and the top's layers are the least atom's, every
    layer between is the chain layer (weight c, bias bc renamed), its first k weights 4 with
    bias −2 (w = 1: the padding induction's (t ⊗ 1/4) ⊗ 4) and the rest the least atom's
    weights in order.  Value atom at D + k: the layers up to p, k copies of the layer the
    padding induction runs, the least atom's carries and output."""
    fmt = parse_format(name)
    with LG.hidden_activation("sigmoid"):
        D, k = LG.depth(fmt, variant), 5
        a, b = LG.gradient_network(fmt, D, variant), LG.gradient_network(fmt, D + k, variant)
        gate, top = LG.gradient_layers(fmt, D, variant)
        assert LG.gradient_layers(fmt, D + k, variant) == (gate, top + k) and len(b.layers) == D + k
        assert all(_same_layer(x, y) for x, y in zip(a.layers[:gate + 1], b.layers[:gate + 1]))
        assert all(_same_layer(y, x, {f"c{top + k}": f"c{top}", f"bc{top + k}": f"bc{top}"})
                   for x, y in zip(a.layers[top:], b.layers[top + k:]))
        for j in range(gate + 1, top + k):
            assert _same_layer(b.layers[j], a.layers[gate + 1], {f"c{j}": f"c{gate + 1}", f"bc{j}": f"bc{gate + 1}"})
        z, h, g = fmt.round(1), fmt.round(-3), fmt.round(0.75)
        pa = _params(LG.gradient_atom, fmt, D, variant, z, h, g)
        pb = _params(LG.gradient_atom, fmt, D + k, variant, z, h, g)
        assert [pb[f"c{j}"] for j in range(gate + 1, gate + 1 + k)] == [fmt.round(4)] * k
        assert [pb[f"bc{j}"] for j in range(gate + 1, gate + 1 + k)] == [fmt.round(-2)] * k
        assert [pb[f"{p}{j + k}"] for p in ("c", "bc") for j in range(gate + 1, top + 1)] == \
            [pa[f"{p}{j}"] for p in ("c", "bc") for j in range(gate + 1, top + 1)]
        assert D > LG.block_constants(fmt).value_depth
        _check_value_padding(LG, fmt, D, k)


@pytest.mark.parametrize("name,variant", [("bfloat16", R.REPAIRED), ("float32", R.SHALLOW), ("float64", R.SHALLOW),
                                          ("float8_e4m3", R.REPAIRED)])
def test_construct_depth_sigmoid(name, variant, tmp_path):
    """``construct --activation sigmoid --depth``: verified, then re-run by the exact reference."""
    from test_logistic import _targets as logi_targets
    fmt = parse_format(name)
    with LG.hidden_activation("sigmoid"):
        pts = logi_targets(fmt, 5, seed=21)
        least = LG.least_depth(fmt, variant)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    L = least + 6
    code, out, err = _main(["construct", "--activation", "sigmoid", "--targets", t, "--format", name, "--variant",
                            variant, "--depth", L, "--out", tmp_path / "n.json", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["depth"] == L and doc["least_depth"] == least and doc["verified"] == len(pts)
    assert _exact_check(fmt, netio.load_network(tmp_path / "n.json"), pts) == []


def test_a_wrong_sigmoid_padding_weight_is_caught():
    """A padded chain layer's weight 4 → 2 (and its bias −2 → −1, so that r stays 1/2 at z)
    in every gradient atom (bfloat16): the chain inductions allow it (w = 1/2 is in K) but not
    the padding induction, and every point with a gradient atom misses: the gradient is
    halved."""
    fmt = parse_format("bfloat16")
    from test_logistic import _targets as logi_targets
    with LG.hidden_activation("sigmoid"):
        pts = logi_targets(fmt, 4, seed=5)
        D = LG.least_depth(fmt)
        net = LG.theorem_network(fmt, pts, depth=D + 2)
        gate, _ = LG.gradient_layers(fmt, D + 2)
    assert targets.verify(fmt, net, pts)[0] == [] and _exact_check(fmt, net, pts) == []
    pad = net.layers[gate + 1]
    r_rows = {int(pad.rows[i]) for i, w in enumerate(pad.weights) if int(w) == fmt.round(4)}
    for i, w in enumerate(pad.weights):
        if int(w) == fmt.round(4):
            pad.weights[i] = fmt.round(2)
    for r in r_rows:
        assert int(pad.bias[r]) == fmt.round(-2)
        pad.bias[r] = fmt.round(-1)
    with_ga = {fmt.hex(p[0]) for p in pts if not fmt.is_zero(p[3])}
    assert with_ga and {b["x"] for b in targets.verify(fmt, net, pts)[0]} == with_ga
    assert {x for x, _, _ in _exact_check(fmt, net, pts)} == with_ga


def test_the_sigmoid_padding_inductions_are_proved():
    """bfloat16: the value atom's and the gradient atom's padding inductions (and the facts
    cong1 and pad_q, which the latter assumes) PROVED."""
    from fpsmt.proofs import logi_gradient_atom as T, logi_value_atom as V
    fmt = parse_format("bfloat16")
    eng = Engine(solver="z3", timeout=120)
    with LG.hidden_activation("sigmoid"):
        for tree in (T.tree(fmt), V.repaired(fmt)[0]):
            claims = {c.name: c for c in tree.claims()}
            names = [n for n in claims if ".padding" in n or n.endswith((".cong1", ".pad_q"))]
            assert len(names) >= 5
            assert {n: eng.prove(claims[n], fmt, claims).status for n in names} == {n: "PROVED" for n in names}


@pytest.mark.soundness
def test_a_wrong_sigmoid_padding_step_is_refuted(monkeypatch):
    """The padding's fact about its backward step fails on a wrong step: with the padding
    layer's w = 1/2 ((t ⊗ 1/4) ⊗ 2), PATH₀ of the step's product is not PATH₀(t): REFUTED."""
    from fractions import Fraction
    from fpsmt.proofs import logi_gradient_atom as T
    fmt = parse_format("float8_e4m3")
    monkeypatch.setattr(T, "_pad_q", lambda s, u: T._step(s, u, s.lift(Fraction(1, 2))))
    with LG.hidden_activation("sigmoid"):
        claims = {c.name: c for c in T.tree(fmt).claims()}
        assert Engine(solver="z3", timeout=120).prove(claims["logi_gradient_atom.pad_q"], fmt, claims).status == \
            "REFUTED"


def test_padding_is_refused_where_the_value_atom_is_not_carried(monkeypatch):
    """A family whose value atom is at its least depth in the theorem's network (none of the
    built-in ones) has no carries to pad between: --depth above the least is refused in
    one line naming it; the least itself is taken."""
    fmt = parse_format("bfloat16")
    with S.hidden_activation("tanh"):
        least = S.block_constants(fmt).value_depth  # a theorem network as deep as its value atom
        monkeypatch.setattr(S, "least_depth", lambda f, variant=R.REPAIRED: least)
        assert S.theorem_depth(fmt, least) == least
        with pytest.raises(InputError, match=f"tanh value atom in bfloat16 is not carried at the least depth {least}"):
            S.theorem_depth(fmt, least + 1)
