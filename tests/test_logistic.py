"""The logistic construction family (sigmoid): networks re-run by the exact reference, the
checker failing on wrong networks, requirements, refusals."""

import json
from fractions import Fraction

import pytest

from fpsmt.constructions import logistic as LG
from fpsmt.constructions.registry import get_construction
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Param
from test_saturating import _exact_check, _main, _write, random_targets


def _targets(fmt, n, seed):
    """n points of X = [−2^(e_max−1), 2^(e_max−1)] with random finite f* (|f*| <= V = Ω/H,
    one piece), h* (|h*| <= H = 2^(M−1)) and g*; among them the least subnormal, a zero,
    the ends of X with |g*| = Ω (where one gradient atom's weight on x would overflow:
    three atoms share g*), 2^e_max at 3/4 of the bound."""
    M = Fraction(2) ** (fmt.e_max - 1)
    H = Fraction(2) ** (fmt.M - 1)
    V = LG.piece_bound(fmt, H)
    extremes = [(fmt.next_down(fmt.round(M)), fmt.round(V), 1, fmt.max_bits),
                (fmt.next_up(fmt.round(-M)), fmt.round(-1), fmt.round(-1), fmt.max_bits | fmt.sign_bit),
                (fmt.round(-M), 0, fmt.round(H), fmt.round(Fraction(3, 2))),
                (1, 1, fmt.round(-1), 1), (0, fmt.round(Fraction(-3, 2)), 1, 2),
                (fmt.round(M * 3 / 4), 0, 1, fmt.round(Fraction(2) ** fmt.e_max))]
    return random_targets(fmt, n, seed, M, H, V, extremes)


def _network(fmt, pts):
    return get_construction("sigmoid").network(fmt, pts)


# float16's requirements take about a minute to decide (R.monotone): slow here, and its
# network is checked in the builder below in the default suite
@pytest.mark.parametrize("name,n", [("bfloat16", 9), pytest.param("float16", 9, marks=pytest.mark.slow),
                                    ("float8_e4m3", 10), ("float8_e5m2", 10), ("float32", 8),
                                    pytest.param("float64", 8, marks=pytest.mark.slow)])
def test_network_meets_random_targets_under_the_exact_reference(name, n, tmp_path):
    fmt = parse_format(name)
    pts = _targets(fmt, n, seed=13)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", "sigmoid", "--targets", t, "--format", name,
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["verified"] == n and summary["activation"] == "sigmoid"
    from fpsmt.commands import netio
    net = netio.load_network(tmp_path / "n.json")
    assert {L.activation for L in net.layers[:-1]} == {"sigmoid"} and net.layers[-1].activation == "identity"
    assert _exact_check(fmt, net, pts) == []


@pytest.mark.parametrize("name", ["float16", "float64"])
def test_network_meets_its_targets_in_the_builder(name):
    """float16 and float64 in the default suite without deciding their requirements (the
    slow tests above do it through construct)."""
    fmt = parse_format(name)
    pts = _targets(fmt, 7, seed=17)
    assert _exact_check(fmt, _network(fmt, pts), pts) == []


@pytest.mark.parametrize("part", ["first_weight", "W_OUT", "chain", "split"])
def test_blocks_without_their_compensations_miss_the_targets(part, monkeypatch):
    """Each compensation of the blocks is needed: a first layer of weight 1 (sigmoid rounds
    x ⊖ z⁻ = ω to 1/2 on both sides), output weight 1 (a subnormal h ⊗ 1/4 loses its last
    bits), chain weights not multiplied by 4 (each σ' = 1/4 stays), one gradient atom where
    w_x ⊗ x overflows: the exact check fails; with all of them it passes."""
    fmt = parse_format("bfloat16")
    pts = _targets(fmt, 6, seed=3) + [(fmt.round(Fraction(1, 64)), 0, 3, 5)]  # h* = 3ω
    assert _exact_check(fmt, _network(fmt, pts), pts) == []
    if part == "first_weight":
        monkeypatch.setattr(LG, "first_weight", lambda s, z: s.const(1))
    elif part == "W_OUT":
        monkeypatch.setattr(LG, "W_OUT", 1)
    elif part == "chain":
        real = LG.chain
        monkeypatch.setattr(LG, "chain", lambda s, h, g, *variant: (lambda w_x, cs: (w_x, [c * 0.25 for c in cs]))(
            *real(s, h, g, *variant)))
    else:
        monkeypatch.setattr(LG, "gradient_pieces", lambda f, z, g: [g])
    assert _exact_check(fmt, _network(fmt, pts), pts) != []


def test_requirements_are_proved_with_the_blocks_witness(tmp_path):
    code, out, err = _main(["conditions", "--activation", "sigmoid", "--format", "bfloat16,float8_e4m3", "--store",
                            tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rows = json.loads(out)
    names = ("R.zero", "R.saturation", "R.limits", "R.step", "R.monotone")
    for f in ("bfloat16", "float8_e4m3"):
        got = {r["condition"]: r for r in rows if r["format"] == f and r["condition"].startswith("R.")}
        assert {n: got[n]["status"] for n in names} == dict.fromkeys(names, "PROVED"), f
        assert got["R.saturation"]["witness"] == {"k": LG.saturation_exponent(parse_format(f), "sigmoid")}


def test_tanh_fails_the_logistic_requirements(tmp_path):
    """The checker refutes: tanh(0) = 0, not 1/2, and tanh goes to −1, not a zero."""
    code, out, err = _main(["conditions", "--activation", "tanh", "--family", "logistic", "--format", "bfloat16",
                            "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    got = {r["condition"]: r["status"] for r in json.loads(out) if r["condition"].startswith("R.")}
    assert got["R.zero"] == "REFUTED" and got["R.saturation"] == "REFUTED" and got["R.limits"] == "REFUTED", got


def test_stages_come_from_sigmas_values():
    """bfloat16: 2^e_max·ω = 2^-6, σ(2^-6) = 1/2 + 2^-8 is next to σ(0) = 1/2: the first
    separation layer subtracts 1/2 (the lower bound), the next the midpoint 3/4."""
    fmt = parse_format("bfloat16")
    c = LG.block_constants(fmt, "sigmoid")
    assert fmt.to_fraction(c.D) == Fraction(1, 64)
    assert [fmt.to_fraction(b) for b in c.stages] == [Fraction(1, 2), Fraction(3, 4)] and c.T == 7


def _reaches(fmt, z, g):
    """Independently of the builder's code: one atom's weight on x, m_g·2^max(0, e_g + 2 −
    e_max), times |z| is finite (exact rationals, rounded once)."""
    gq = abs(fmt.to_fraction(g))
    e = gq.numerator.bit_length() - gq.denominator.bit_length()
    e -= Fraction(2) ** e > gq
    wx = gq / Fraction(2) ** e * Fraction(2) ** max(0, e + 2 - fmt.e_max)
    return fmt.is_finite(fmt.round(wx * abs(fmt.to_fraction(z))))


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2"])
def test_every_gradient_at_every_point_of_x_is_reached(name):
    """Every finite nonzero g* at every x of X: one atom's weight on x times x is finite, or
    the three parts a ⊕ a ⊕ b sum to g* exactly and each is reached (all pairs; the builder's
    code on arrays of all pairs, checked pair by pair with exact rationals)."""
    import numpy as np
    fmt = parse_format(name)
    with LG.hidden_activation("sigmoid"):
        M = get_construction("sigmoid").constants(fmt).M_sigma
    xs = [b for b in range(1 << fmt.nbits) if fmt.is_finite(b) and abs(fmt.to_fraction(b)) <= M]
    gs = [b for b in range(1 << fmt.nbits) if fmt.is_finite(b) and not fmt.is_zero(b)]
    Z, G = np.repeat(xs, len(gs)), np.tile(gs, len(xs))
    s, (z, g) = LG._scalar(fmt, Z, G)
    one = np.ravel(LG.reached(s, z, g).v)
    a, b = (np.ravel(s.A.to_bits(v.v)) for v in LG.split(s, g))
    split = 0
    for i, (zi, gi) in enumerate(zip(Z.tolist(), G.tolist())):
        assert bool(one[i]) == _reaches(fmt, zi, gi), (fmt.hex(zi), fmt.hex(gi))
        if one[i]:
            continue
        parts = [int(a[i]), int(a[i]), int(b[i])]
        total = fmt.round(fmt.to_fraction(parts[0]) + fmt.to_fraction(parts[1]))
        total = fmt.round(fmt.to_fraction(total) + fmt.to_fraction(parts[2]))
        assert total == gi and all(_reaches(fmt, zi, p) and not fmt.is_zero(p) for p in parts), (fmt.hex(zi),
                                                                                                  fmt.hex(gi))
        assert LG.gradient_pieces(fmt, zi, gi) == parts
        split += 1
    assert split > 0  # the top binade of g at the ends of X needs the parts


def test_reach_fails_where_the_weight_on_x_overflows():
    """The check itself fails on a point where it must: g* = Ω at x = 2^(e_max−1) − ulp needs
    w_x = 4·m_Ω, whose product with x is not finite."""
    fmt = parse_format("bfloat16")
    z = fmt.next_down(fmt.round(Fraction(2) ** (fmt.e_max - 1)))
    assert not _reaches(fmt, z, fmt.max_bits) and _reaches(fmt, fmt.round(1), fmt.max_bits)
    assert not LG._reaches(fmt, z, fmt.max_bits) and LG._reaches(fmt, fmt.round(1), fmt.max_bits)
    assert len(LG.gradient_pieces(fmt, z, fmt.max_bits)) == 3


def _rows(tmp_path, names, *extra):
    code, out, err = _main(["reproduce", "--activation", "sigmoid", "--format", "float8_e4m3", "--lemma", ",".join(names),
                            "--store", tmp_path / "s.sqlite", "--report", tmp_path / "r.md", "--json", *extra])
    assert code == 0, err
    return json.loads(out)


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_indicator_lemmas_are_proved_in_float8_e4m3(tmp_path):
    """The indicators with every UNSAT confirmed (by enumeration)."""
    names = ("logi_step_indicator_ge", "logi_step_indicator_le", "logi_point_indicator")
    rows = _rows(tmp_path, names)
    assert [(r["lemma"], r["variant"], r["status"]) for r in rows] == [(n, "repaired", "PROVED") for n in names]
    assert all(not r["confirmed"]["unconfirmed"] for r in rows)


@pytest.mark.slow
def test_atoms_and_theorem_are_proved_in_float8_e4m3(tmp_path):
    names = ("logi_value_atom", "logi_gradient_atom", "logi_gradient_split", "logi_theorem_3_1")
    rows = _rows(tmp_path, names, "--no-confirm")
    assert [(r["lemma"], r["status"]) for r in rows] == [(n, "PROVED") for n in names]


def test_the_point_indicator_s_tree_is_proved_and_refuted_on_a_wrong_output_layer(monkeypatch, tmp_path):
    """The point indicator as a tree (the layers up to p, then 1 ⊗ p ⊕ −0): PROVED in
    float8_e4m3 with every UNSAT confirmed, its point stage the value atom's own claim
    (the same SMT text); with the output weight 2 (out = 2 at x = z) the top stage is
    REFUTED with a replayed counterexample."""
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import discover
    fmt = parse_format("float8_e4m3")
    eng = Engine(solver="z3")
    with LG.hidden_activation("sigmoid"):
        lem = discover()
        pi = {c.name: c for c in lem["logi_point_indicator"].claims("repaired", fmt)}
        va = {c.name: c for c in lem["logi_value_atom"].claims("repaired", fmt)}
        assert eng._statement(pi["logi_point_indicator.point"], fmt, pi) == \
            eng._statement(va["logi_value_atom.point"], fmt, va)
    (row,) = _rows(tmp_path, ["logi_point_indicator"])
    assert row["status"] == "PROVED" and not row["confirmed"]["unconfirmed"]

    def doubled(s, z):
        P = LG._plan(s.fmt)
        LG._indicators(s.fmt, P, ["p"])
        P.add([("out", [("p", 2)], LG.NEG0)])
        return P.network(), LG.both_params(s, z)
    monkeypatch.setattr(LG, "point", doubled)
    (row,) = _rows(tmp_path, ["logi_point_indicator"], "--no-confirm")
    assert row["status"] == "REFUTED" and row["counterexample"]
    got = _statuses(row)
    assert got["logi_point_indicator.top"] == "REFUTED" and got["logi_point_indicator.point"] == "PROVED"


def test_the_split_lemma_is_proved_and_refuted_on_a_wrong_split(monkeypatch, tmp_path):
    """(a ⊕ a) ⊕ b = g with each part reached: PROVED in float8_e4m3 and confirmed (by
    enumeration); with a share of 1/2 (a = g/2, b = g ⊖ g = 0) the claim is REFUTED with a
    counterexample."""
    (row,) = _rows(tmp_path, ["logi_gradient_split"])
    assert row["status"] == "PROVED" and not row["confirmed"]["unconfirmed"]
    monkeypatch.setattr(LG, "SHARE", Fraction(1, 2))
    (row,) = _rows(tmp_path, ["logi_gradient_split"], "--no-confirm")
    assert row["status"] == "REFUTED" and row["counterexample"]
    assert _statuses(row)["logi_gradient_split.parts"] == "REFUTED"


@pytest.mark.parametrize("small, refuted", [(4, "logi_gradient_split.small_weight"), (2, "logi_gradient_split.parts")])
def test_the_split_tree_s_weight_bound_is_checked_on_both_sides(monkeypatch, tmp_path, small, refuted):
    """The tree's bound on the parts' weights on x (7/2): with 4, the fact "w ⊗ z finite for
    |w| <= 4 and z in X" is REFUTED (4·2^7 overflows float8_e4m3); with 2, the parts' stage
    is (b's weight on x exceeds 2 near the top of the range)."""
    from fpsmt.proofs import logi_gradient_split as GS
    monkeypatch.setattr(GS, "SMALL", Fraction(small))
    (row,) = _rows(tmp_path, ["logi_gradient_split"], "--no-confirm")
    assert row["status"] == "REFUTED" and row["counterexample"]
    assert _statuses(row)[refuted] == "REFUTED"


def _statuses(row) -> dict:
    """Each node of a row's tree: its status."""
    def walk(node):
        yield node["name"], node.get("status")
        for kid in node.get("children", []):
            yield from walk(kid)
    return dict(walk(row["tree"]))


@pytest.mark.parametrize("name", ["float8_e4m3", "bfloat16", "float32", "float64"])
def test_the_gradient_atom_is_its_trees_stages(name):
    """What logi_gradient_atom's tree takes from the code: the atom's layers between the
    gate and the top are each the chain step's layer (c_k, bc_k for its c, bc), the gate's
    parameters are z's and w_x's only, the path is layer 0's last neuron, and the chain
    weights are 4·w for the transfer's weights w (top first: 4·w_out), with no weight 4
    between them and the gate at the lemma's depth, each bias −(c ⊗ 1/2)."""
    import random
    from fpsmt.constructions import relu as R
    from fpsmt.proofs import logi_gradient_atom as T
    from test_saturating import atom_slices
    fmt = parse_format(name)
    with LG.hidden_activation("sigmoid"):
        step, rename = T._chain_net(fmt)
        _, depth, gate, top = atom_slices(LG, fmt, step.layers[0], lambda k: {f"c{k}": "c", f"bc{k}": "bc", **rename},
                                          {"ge_w", "ge_b", "le_w", "le_b", "wx", "bx"}, "bx")
        assert rename == {f"c{gate + 1}": "c", f"bc{gate + 1}": "bc"}
        rng = random.Random(7)
        for _ in range(3):
            z, h, g = (fmt.round(Fraction(rng.uniform(-2, 2)).limit_denominator(1 << 20)) for _ in range(3))
            _, params = R.concrete_params(LG.gradient_atom, fmt, z, h, g, depth=depth)
            _, w = R.concrete_params(lambda s, h, g: (None, dict(enumerate(LG.chain(s, h, g)[1]))), fmt, h, g)
            cs = [w[i] for i in range(len(w))]
            assert [params[f"c{k}"] for k in range(gate + 1, top + 1)] == list(reversed(cs))
            half = Fraction(1, 2)
            for k in range(gate + 1, top + 1):
                assert fmt.to_fraction(params[f"bc{k}"]) == -fmt.to_fraction(fmt.round(fmt.to_fraction(params[f"c{k}"])
                                                                                         * half))


def test_the_gradient_atoms_chain_step_is_refuted_without_its_bias(monkeypatch):
    """The tree's induction step fails on a wrong chain layer: with bias −0 instead of
    −(c ⊗ 1/2) the path neuron leaves 1/2 at x = z (REFUTED in float8_e4m3)."""
    from test_saturating import decide_stage
    monkeypatch.setattr(LG, "chain_neuron", lambda k: ("r", [("r", Param(f"c{k}"))], LG.NEG0))
    assert decide_stage(LG, "sigmoid", "logi_gradient_atom", "chain_at_z.step") == "REFUTED"


def test_the_quarter_route_is_proved_in_float8_e4m3_and_refuted_one_binade_lower(monkeypatch):
    """The float64 transfer (LG.route's quarter route, forced in float8_e4m3): the chain
    h ⊗ 4 → ±1 through ±ω or ±2ω is PROVED, and the target stage after it; with ReLU's
    ``down`` (DOWN_LIFT 0: into ±[ω, 2ω)) the next ⊗ 1/4 leaves ±0 and the stage is REFUTED."""
    from test_saturating import decide_stage
    monkeypatch.setattr(LG, "route", lambda fmt: "quarter")
    assert [decide_stage(LG, "sigmoid", "logi_gradient_atom", n) for n in ("transfer.quarter", "transfer.target")] \
        == ["PROVED", "PROVED"]
    monkeypatch.setattr(LG, "DOWN_LIFT", 0)
    assert decide_stage(LG, "sigmoid", "logi_gradient_atom", "transfer.quarter") == "REFUTED"


@pytest.mark.parametrize("name", ["float64", "float32"])
def test_the_transfer_reaches_the_sign_of_h_under_the_exact_reference(name):
    """Each route's weights (quarter in float64, significand in float32), run as the network
    runs them — (u ⊗ 1/4) ⊗ 4c, each product rounded once from its exact value — take
    4h to sign(h)·1 for h from the least subnormal up to H, every weight in (0, 2^q]."""
    import random
    from fpsmt.constructions import relu as R
    fmt = parse_format(name)
    rn = lambda x: fmt.to_fraction(fmt.round(x))  # noqa: E731
    omega, H = fmt.to_fraction(1), Fraction(2) ** (fmt.M - 1)
    rng = random.Random(5)
    hs = [omega, 2 * omega, 3 * omega, 5 * omega, 7 * omega, 6 * omega, H, Fraction(1), Fraction(3, 2)]
    hs += [rn(Fraction(rng.getrandbits(60) | 1, 1 << 60) * Fraction(2) ** rng.randint(fmt.e_min - fmt.M, fmt.M - 2))
           for _ in range(150)]
    for h in hs + [-h for h in hs]:
        _, w = R.concrete_params(lambda s, h: (None, dict(enumerate(
            (lambda wo, mids: [wo] + mids)(*LG.normalize_weights(s, h * LG.W_OUT))))), fmt, fmt.round(h))
        u = rn(4 * h)
        for i in range(len(w)):
            c = fmt.to_fraction(w[i])
            assert 0 < c <= 2 ** R.step_cap(fmt)
            u = rn(rn(u / 4) * rn(4 * c))
        assert u == (1 if h > 0 else -1), (h, u)


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_the_gradient_atom_tree_is_proved_in_float8_e4m3(tmp_path):
    """Every stage PROVED (one back end: with confirmation on, gate_at_z's four 8-bit
    variables are too many to enumerate and cvc5 gave no answer within 600 s — README)."""
    (row,) = _rows(tmp_path, ["logi_gradient_atom"], "--no-confirm")
    assert row["status"] == "PROVED"


@pytest.mark.parametrize("name", ["float8_e4m3", "float32", "float64"])
def test_the_gate_from_its_own_pre_activations_is_the_run(name):
    """What the split gate at x = z takes from the code: the gate run from layer 0's own
    pre-activations at x = z (``_gate_pre`` with ``_pre0``'s terms and the weights
    ``_weights0``, as ``lower_spacing`` names them, and g's w_x) is the run at z, term for term (the same Z3
    terms: outputs, D^AD(x) and its first-layer terms), for every z, g and upstream; from
    other pre-activations (p0 doubled) the terms differ."""
    import z3

    from fpsmt.proof.claims import Float, forall
    from fpsmt.proof.encoding import Encoding
    from fpsmt.proofs import logi_gradient_atom as T
    from fpsmt.semantics.arith import symbolic
    fmt = parse_format(name)
    with LG.hidden_activation("sigmoid"):
        c = forall("slice", {n: Float() for n in ("z", "g", "up", "ur")}, goal=lambda s: s.true())
        s = Encoding(c, fmt, symbolic(fmt), {}, {}).scope

        def parts(net, P, run):
            out, grad, trace = run
            return [t.v[()] for t in [*out, *grad, *s.input_terms(net, P, trace)]]
        whole = parts(*T._gate_run(s, s.z, [s.up, s.ur]))
        pre = T._pre0(s)
        w0, w1 = T._weights0(s)  # as lower_spacing binds w0 and w1, and the link reads them
        w = (w0, -w1, LG.input_weight(s, s.g)[0])
        given = parts(*T._gate_pre(s, pre, [s.up, s.ur], w))
        # −w1 = −(−w(−z)): the same term once z3 folds the double negation
        assert len(whole) == len(given) and all(z3.eq(z3.simplify(a), z3.simplify(b)) for a, b in zip(whole, given))
        other = parts(*T._gate_pre(s, [pre[0] * 2, *pre[1:]], [s.up, s.ur], w))
        assert not all(z3.eq(z3.simplify(a), z3.simplify(b)) for a, b in zip(whole, other))


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_the_split_gate_is_proved_in_float8_e4m3_and_refuted_on_a_cut_domain(monkeypatch):
    """The gate at x = z as the wide formats take it (forced in float8_e4m3): the spacing,
    the enumerated run from the powers of two, their join and the link PROVED; with the
    powers cut to [D, 2·D] the spacing stage is REFUTED (larger spacings leave it)."""
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.tree import Pred, stage
    from fpsmt.proofs import logi_gradient_atom as T
    from fpsmt.proofs import rect_value_atom as V
    from test_saturating import decide_stage
    monkeypatch.setattr(V, "SPLIT_FROM_BITS", 8)
    names = ["lower_spacing", "lower_amp", "lower_first", "gate_at_z"]
    assert {n: decide_stage(LG, "sigmoid", "logi_gradient_atom", n) for n in names} == dict.fromkeys(names, "PROVED")
    # the link states the path's layer-0 gradient T = PATH₀(u_r): against 4 ⊗ PATH₀ it is
    # REFUTED
    real = T.path0
    monkeypatch.setattr(T, "path0", lambda s, u: real(s, u) * s.const(4))
    assert decide_stage(LG, "sigmoid", "logi_gradient_atom", "gate_at_z") == "REFUTED"
    lo = T._least_margin_exponent
    cut = {**T._P, "p0": V.pow2_in(lo, lambda f: lo(f) + 1), "p1": V.pow2_in(lo, lambda f: lo(f) + 1)}
    narrow = Pred("narrow_spacing", {"z": T.X_DOM, "g": T.NONZERO, **cut, **T._W}, T.LSPACING.fn)
    node = stage("narrow_spacing", {}, narrow, lambda s: {**dict(zip(T._P, T._pre0(s))),
                                                          **dict(zip(T._W, T._weights0(s)))}, T.REACH_Z)
    fmt = parse_format("float8_e4m3")
    with LG.hidden_activation("sigmoid"):
        r = Engine(solver="z3", timeout=120).prove(node.claim, fmt, {node.claim.name: node.claim})
    assert r.status == "REFUTED"


def test_the_split_gate_off_is_proved_in_float8_e4m3_and_refuted_on_a_cut_interval(monkeypatch):
    """The gate at x != z as the wide formats take it (forced in float8_e4m3): a stage per
    step layer from (z, x, g) with x != z through the sides' intervals to KILLED, every one
    PROVED; with the first layer's high side cut to its top (a wrong interval), its stage
    is REFUTED."""
    from fpsmt.proofs import logi_gradient_atom as T
    from fpsmt.proofs import rect_value_atom as V
    from test_saturating import decide_stage
    monkeypatch.setattr(V, "SPLIT_FROM_BITS", 8)
    fmt = parse_format("float8_e4m3")
    with LG.hidden_activation("sigmoid"):
        gate, _ = LG.gradient_layers(fmt, LG.depth(fmt))
        names = [f"off_layer_{j}" for j in range(gate)] + ["kill_off"]
        (_, (A, B)), *rest = T.off_intervals(fmt.name, "sigmoid")
    got = {n: decide_stage(LG, "sigmoid", "logi_gradient_atom", n) for n in names}
    assert got == dict.fromkeys(names, "PROVED"), got
    cut = ((A[1], A[1]), B)  # the high side cut to its top, 1
    T.off_intervals.cache_clear()
    real = T.off_intervals
    monkeypatch.setattr(T, "off_intervals", lambda f, a: ((real(f, a)[0][0], cut), *real(f, a)[1:]))
    assert decide_stage(LG, "sigmoid", "logi_gradient_atom", names[0]) == "REFUTED"


def test_a_step_indicator_with_first_weight_one_is_refuted(monkeypatch, tmp_path):
    """The step lemma's claim fails on a wrong block: with weight 1 on x, x ⊖ z⁻ is too small
    for σ to see where z's spacing is small, and the lemma gives a counterexample."""
    monkeypatch.setattr(LG, "first_weight", lambda s, z: s.const(1))
    (row,) = _rows(tmp_path, ["logi_step_indicator_ge"], "--no-confirm")
    assert row["status"] == "REFUTED" and row["counterexample"]


@pytest.mark.parametrize("row,why", [("0x7f00,0x3f80,0x3f80,0x7f7f", "outside X = [-2^126, 2^126]"),
                                     ("0x3f80,0x3f80,0x4400,0x3f80", "exceeds H = 2^6")])
def test_targets_outside_the_hypotheses_are_refused(row, why, tmp_path):
    """x outside X (with a g* = Ω that no atom reaches there: X is named, not the atoms) and
    |h*| > H: one line, exit 2, nothing written."""
    t = tmp_path / "t.csv"
    t.write_text("x,f,h,g\n" + row + "\n")
    code, out, err = _main(["construct", "--activation", "sigmoid", "--targets", t, "--format", "bfloat16",
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite"])
    errors = [ln for ln in err.strip().splitlines() if ln.startswith("fpsmt: error:")]
    assert code == 2 and len(errors) == 1 and why in errors[0], err
    assert not (tmp_path / "n.json").exists()


def test_a_piece_ending_in_plus_zero_never_gives_minus_zero(tmp_path):
    """The lazily refined σ's monotone pieces carry the sign of a zero end: sigmoid's left
    tail in float32 is +0 (PROVED in seconds; before, each candidate −0 cost a refinement
    and the claim was UNKNOWN after 600 s), and the claim that it is −0 is REFUTED with a
    replayed counterexample (the checker fails on a wrong claim)."""
    f = tmp_path / "zsign.py"
    f.write_text('''from fpsmt.proof.claims import Float, forall

plus = forall("plus", {"t": Float(finite=True)},
              goal=lambda s: [(s.t <= -128).implies(s.sigma("sigmoid", s.t).same(0))])
minus = forall("minus", {"t": Float(finite=True)},
               goal=lambda s: [(s.t <= -128).implies(s.sigma("sigmoid", s.t).same(-0.0))])
''')
    code, out, err = _main(["prove", f, "--format", "float32", "--solver", "z3", "--timeout", "120",
                            "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rows = {r["claim"]: r for r in json.loads(out)}
    assert rows["plus"]["status"] == "PROVED" and rows["minus"]["status"] == "REFUTED", rows
