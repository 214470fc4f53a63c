"""The tanh construction (fpsmt.constructions.saturating): networks built by ``construct
--activation tanh`` meet their targets bit for bit, re-run by the exact reference (not the
executor that ``construct`` verifies with); a changed weight is caught; targets outside
the hypotheses are refused before any work."""

import contextlib
import io
import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fpsmt.commands import cli, netio
from fpsmt.constructions import saturating as S
from fpsmt.semantics.arith import ExactArith
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Network, Layer, run


ACTIVATIONS = Path(__file__).parent / "activations"


def _main(argv):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        code = cli.main([str(a) for a in argv])
    return code, o.getvalue(), e.getvalue()


def random_targets(fmt, n, seed, M, H, value_cap, extremes):
    """``extremes``, then random points z of X = [−M, M] (distinct) with random finite f*
    (scaled into |f*| <= ``value_cap``), h* (|h*| <= H: else one of ±H, 1, −3/4) and g*
    (+0 where h* is a zero)."""
    rng = random.Random(seed)

    def rand():
        while True:
            b = rng.getrandbits(fmt.nbits)
            if fmt.is_finite(b):
                return b
    pts = list(extremes)
    seen = {fmt.to_fraction(p[0]) for p in pts}
    while len(pts) < n:
        z = rand()
        if abs(fmt.to_fraction(z)) > M or fmt.to_fraction(z) in seen:
            continue
        seen.add(fmt.to_fraction(z))
        v, h = rand(), rand()
        while abs(fmt.to_fraction(v)) > value_cap:
            v = fmt.round(fmt.to_fraction(v) / value_cap)
        if abs(fmt.to_fraction(h)) > H:
            h = fmt.round(rng.choice([H, -H, 1, Fraction(-3, 4)]))
        g = rand() if not fmt.is_zero(h) else 0
        pts.append((z, v, h, g))
    return pts[:n]


def _targets(fmt, n, seed, value_cap=None):
    """n random points of X with random finite f*, h* (|h*| <= H), g*; a few extremes.
    Values above ``value_cap`` (default V = Ω/H: one piece per value) are scaled into it,
    except the first point's, which is the cap itself."""
    from fpsmt.specs.theorems import constants
    c = constants("tanh", fmt)
    M, H = c.M_sigma, c.H_sigma
    value_cap = value_cap if value_cap is not None else S.piece_bound(fmt, H)
    extremes = [(fmt.round(M), fmt.max_bits, fmt.round(H), fmt.round(-fmt.Omega)), (1, 1, fmt.round(-H), 1),
                (fmt.round(-M), fmt.round(-1), fmt.round(1), 0)]
    pts = random_targets(fmt, n, seed, M, H, value_cap, extremes)
    pts[0] = (pts[0][0], fmt.round(value_cap), pts[0][2], pts[0][3])
    return pts


def _write(fmt, pts, path):
    path.write_text("x,f,h,g\n" + "\n".join(",".join(fmt.hex(b) for b in p) for p in pts))


def _exact_check(fmt, net, pts):
    """Mismatches of the exact reference's value and D^AD(h*) against the targets."""
    A = ExactArith(fmt)
    xs = np.asarray([[p[0]] for p in pts], dtype=object)
    ys = np.asarray([[p[2]] for p in pts], dtype=object)
    tr = run(A, net, A.const(xs), A.const(ys))
    bad = []
    for p, o, g in zip(pts, np.ravel(A.to_bits(tr.out)), np.ravel(A.to_bits(tr.grad))):
        for got, want in ((int(o), p[1]), (int(g), p[3])):
            if not (got == want or (fmt.is_zero(got) and fmt.is_zero(want))):
                bad.append((fmt.hex(p[0]), fmt.hex(got), fmt.hex(want)))
    return bad


# The exact reference runs every layer densely (absent entries are +0 ⊗ a terms), so the
# networks here are small: values of one piece (float8_e4m3: the largest value, two pieces).
@pytest.mark.parametrize("name,n,cap", [("bfloat16", 5, None), ("float16", 5, None), ("float8_e4m3", 8, 240),
                                        ("float32", 4, None), ("float64", 3, None)])
def test_tanh_network_meets_random_targets_under_the_exact_reference(name, n, cap, tmp_path):
    fmt = parse_format(name)
    pts = _targets(fmt, n, seed=7, value_cap=cap)
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", "tanh", "--targets", t, "--format", name,
                            "--out", tmp_path / "n.json", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["verified"] == n and summary["activation"] == "tanh"
    net = netio.load_network(tmp_path / "n.json")
    assert {L.activation for L in net.layers[:-1]} == {"tanh"} and net.layers[-1].activation == "identity"
    assert _exact_check(fmt, net, pts) == []


def test_a_changed_gate_weight_misses_the_targets(tmp_path):
    """The exact check of the test above fails on a wrong network: the gradient atoms' gate
    weight G halved lets the path live at x ≠ z (a nonzero gradient there) or breaks the value."""
    fmt = parse_format("bfloat16")
    pts = _targets(fmt, 6, seed=3)
    with S.hidden_activation("tanh"):
        net = S.theorem_network(fmt, pts)
    assert _exact_check(fmt, net, pts) == []
    G = fmt.round(Fraction(2) ** S.block_constants(fmt, "tanh").gate)
    half = fmt.round(Fraction(2) ** (S.block_constants(fmt, "tanh").gate - 1))
    top = net.layers[-2]
    weights = [half if w == G else w for w in top.weights]
    assert weights != top.weights
    bad = Network(fmt, net.layers[:-2] + [Layer(top.n_out, top.n_in, top.rows, top.cols, weights, top.bias,
                                                  top.activation)] + net.layers[-1:])
    assert _exact_check(fmt, bad, pts) != []


def test_values_above_the_piece_bound_are_sums_of_pieces():
    fmt = parse_format("bfloat16")
    V = S.piece_bound(fmt, Fraction(2) ** (fmt.M - 2))
    assert V == Fraction(2) ** (fmt.e_max + 1 - (fmt.M - 2) - 1)
    for v in (fmt.max_bits, fmt.round(-3 * V), fmt.round(V), fmt.round(V * Fraction(129, 128))):
        ps = S.pieces(fmt, v, V)
        assert all(abs(fmt.to_fraction(a)) <= V for a in ps)
        s = Fraction(0)
        for a in ps:  # left to right, rounded at every step, as the output row sums them
            s = fmt.to_fraction(fmt.round(s + fmt.to_fraction(a)))
        assert s == fmt.to_fraction(v)


@pytest.mark.parametrize("bad,why", [
    ((0, 0), "x is outside X"),  # x = 2 M
    ((2, 0), "exceeds H"),  # h = 2 H
])
def test_targets_outside_the_hypotheses_are_refused(bad, why, tmp_path):
    fmt = parse_format("bfloat16")
    from fpsmt.specs.theorems import constants
    c = constants("tanh", fmt)
    pts = [(fmt.round(1), fmt.round(1), fmt.round(1), fmt.round(1))]
    which, _ = bad
    if which == 0:
        pts.append((fmt.round(2 * c.M_sigma), 0, 0, 0))
    else:
        pts.append((fmt.round(2), 0, fmt.round(2 * c.H_sigma), 0))
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", "tanh", "--targets", t, "--format", "bfloat16",
                            "--out", tmp_path / "n.json"])
    assert code == 2 and why in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "n.json").exists()


def test_a_value_needing_too_many_pieces_is_refused_before_any_work(tmp_path):
    fmt = parse_format("float32")
    pts = [(fmt.round(1), fmt.max_bits, fmt.round(1), fmt.round(1))]
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", "tanh", "--targets", t, "--format", "float32",
                            "--out", tmp_path / "n.json"])
    assert code == 2 and "output pieces" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "n.json").exists()


# ------------------------------------------------------------------ lemmas and requirements
def _tanh_rows(tmp_path, lemmas, *extra):
    code, out, err = _main(["reproduce", "--activation", "tanh", "--format", "float8_e4m3", "--store",
                            tmp_path / "s.sqlite", "--lemma", ",".join(lemmas), "--report", tmp_path / "r.md", "--json",
                            *extra])
    assert code == 0, err
    return json.loads(out), err


def test_tanh_indicator_lemmas_are_proved_in_float8_e4m3(tmp_path):
    """The indicators with every UNSAT confirmed."""
    names = ("sat_step_indicator_ge", "sat_step_indicator_le", "sat_point_indicator")
    rows, _ = _tanh_rows(tmp_path, names)
    assert [(r["lemma"], r["variant"], r["status"]) for r in rows] == [(n, "repaired", "PROVED") for n in names]
    assert all(not r["confirmed"]["unconfirmed"] for r in rows)


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_tanh_gradient_atom_tree_is_proved_and_confirmed_in_float8_e4m3(tmp_path):
    """The gradient atom as a tree: every stage PROVED and every UNSAT confirmed (cvc5's
    experimental mode or enumeration; about 35 s)."""
    (row,), err = _tanh_rows(tmp_path, ["sat_gradient_atom"])
    assert row["status"] == "PROVED" and row["confirmed"]["stages"] >= 20 and not row["confirmed"]["unconfirmed"]
    # progress: one stderr line per claim of the tree, in the order decided
    n = row["confirmed"]["stages"]
    lines = [ln.strip() for ln in err.splitlines() if ln.strip().startswith("[")]
    assert len(lines) == n and lines[0].startswith(f"[1/{n}] ") and lines[-1].startswith(f"[{n}/{n}] "), err


@pytest.mark.slow
def test_tanh_atoms_and_theorem_are_proved_in_float8_e4m3(tmp_path):
    """The value atom, the gradient atom and the theorem row with every UNSAT confirmed."""
    rows, _ = _tanh_rows(tmp_path, ["sat_value_atom", "sat_gradient_atom", "sat_theorem_3_1"])
    assert [(r["lemma"], r["status"]) for r in rows] == [("sat_value_atom", "PROVED"), ("sat_gradient_atom", "PROVED"),
                                                        ("sat_theorem_3_1", "PROVED")]
    assert all(not r["confirmed"]["unconfirmed"] for r in rows)


def _same_layer(a, b, rename=None):
    """Two layers term for term: shape, entries, weights and biases (a Param of ``a`` named
    as ``rename`` maps it), activation."""
    from fpsmt.semantics.network import Param

    def norm(v):
        if isinstance(v, Param):
            return ("param", (rename or {}).get(v.name, v.name))
        return int(v)
    return (a.n_out, a.n_in, a.activation, a.rows.tolist(), a.cols.tolist(), [norm(w) for w in a.weights],
            [norm(v) for v in a.bias]) == (b.n_out, b.n_in, b.activation, b.rows.tolist(), b.cols.tolist(),
                                           [norm(w) for w in b.weights], [norm(v) for v in b.bias])


def atom_slices(B, fmt, step, rename, gate_params, path_bias):
    """The checks a gradient-atom tree takes from a family's code (``B``: its module): the
    atom at the lemmas' depth has top + 2 layers; each layer between the gate and the top is
    the chain step's layer ``step`` (Params renamed by ``rename(k)``); the gate's layers name
    exactly ``gate_params``; the path is layer 0's last neuron (bias ``path_bias``).
    Returns (net, depth, gate, top)."""
    from fpsmt.semantics.network import Param
    depth = B.depth(fmt)
    net = B.gradient_network(fmt, depth)
    gate, top = B.gradient_layers(fmt, depth)
    assert len(net.layers) == top + 2 == depth
    for k in range(gate + 1, top):
        assert _same_layer(net.layers[k], step, rename(k)), k
    named = {w.name for L in net.layers[:gate + 1] for w in list(L.weights) + list(L.bias) if isinstance(w, Param)}
    assert named == gate_params
    first = net.layers[0]  # the gate stage reads the path's first-layer term as layer 0's last
    assert isinstance(first.bias[-1], Param) and first.bias[-1].name == path_bias
    return net, depth, gate, top


@pytest.mark.parametrize("name", ["float8_e4m3", "bfloat16", "float32", "float64"])
def test_the_gradient_atom_is_its_trees_stages(name):
    """What sat_gradient_atom's tree takes from the code: the atom's layers between the
    gate and the top are each the chain step's layer (weight c_k for the step's c), the gate
    has no parameter but z's, and the chain weights are the transfer's (input side first,
    after weights 1), with w_out the transfer's."""
    from fpsmt.constructions import relu as R
    from fpsmt.proofs import sat_gradient_atom as T
    fmt = parse_format(name)
    with S.hidden_activation("tanh"):
        step = T._chain_net(fmt).layers[0]
        net, depth, gate, top = atom_slices(S, fmt, step, lambda k: {f"c{k}": "c"}, {"ge_b", "le_b", "zn"}, "zn")
        assert not _same_layer(net.layers[top], step, {f"c{top}": "c"})
        rng = random.Random(5)
        for _ in range(3):
            z, h, g = (fmt.round(Fraction(rng.uniform(-4, 4)).limit_denominator(1 << 20)) for _ in range(3))
            _, params = R.concrete_params(S.gradient_atom, fmt, z, h, g, depth=depth)
            _, w = R.concrete_params(lambda s, h, g: (None, dict(zip(
                ["w_out"] + [f"t{i}" for i in range(64)], (lambda wo, ch: [wo] + list(reversed(ch)))(
                    *R.transfer_weights(s, h, g))))), fmt, h, g)
            chain = [w[f"t{i}"] for i in range(len(w) - 1)]
            pads = top - gate - len(chain)
            assert [params[f"c{k}"] for k in range(gate + 1, top + 1)] == [fmt.round(1)] * pads + chain
            assert params["w_out"] == w["w_out"]


def decide_stage(blocks, activation, lemma, claim, fmt_name="float8_e4m3"):
    """The status z3 gives one claim of a lemma's tree (``<lemma>.<claim>``), built and
    decided while ``activation`` is the family's (``blocks``: its module)."""
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import load
    fmt = parse_format(fmt_name)
    with blocks.hidden_activation(activation):
        node, _ = load(lemma).build("repaired", fmt)
        claims = {c.name: c for c in node.claims()}
        return Engine(solver="z3", timeout=120).prove(claims[f"{lemma}.{claim}"], fmt, claims).status


def test_the_gradient_atoms_chain_step_is_refuted_with_a_bias(monkeypatch):
    """The tree's induction step fails on a wrong chain layer: with a bias 1/4 the path
    neuron is not a zero at x = z (REFUTED in float8_e4m3)."""
    from fpsmt.semantics.network import Param
    monkeypatch.setattr(S, "chain_neuron", lambda name: ("r", [("r", Param(name))], Fraction(1, 4)))
    assert decide_stage(S, "tanh", "sat_gradient_atom", "chain_at_z.step") == "REFUTED"


def test_a_step_indicator_that_stops_short_of_saturation_is_refuted(monkeypatch, tmp_path):
    """The step lemma's claim fails on a wrong block: its last bias −2^(T−2) and weight
    leave the output short of the saturation point (σ' ≠ 0 there, or σ ≠ ±1)."""
    fmt = parse_format("float8_e4m3")
    good = S.block_constants(fmt, "tanh")
    from dataclasses import replace
    monkeypatch.setattr(S, "block_constants", lambda f, name=None: replace(good, T=good.T - 2, final=good.final - 2))
    code, out, err = _main(["reproduce", "--activation", "tanh", "--format", "float8_e4m3", "--lemma",
                            "sat_step_indicator_ge", "--no-confirm", "--store", tmp_path / "s.sqlite",
                            "--report", tmp_path / "r.md", "--json"])
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["status"] == "REFUTED" and row["counterexample"]


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_requirements_are_reported_beside_the_conditions(tmp_path):
    code, out, err = _main(["conditions", "--activation", "tanh", "--format", "bfloat16", "--store",
                            tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rows = {r["condition"]: r for r in json.loads(out)}
    assert {n: rows[n]["status"] for n in ("R.zero", "R.saturation", "R.sign", "R.bounded")} == dict.fromkeys(
        ("R.zero", "R.saturation", "R.sign", "R.bounded"), "PROVED")
    assert rows["R.saturation"]["witness"] == {"k": S.block_constants(parse_format("bfloat16"), "tanh").T}
    code, out, err = _main(["conditions", "--activation", "sigmoid", "--format", "bfloat16", "--family", "saturating",
                            "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rows = {r["condition"]: r for r in json.loads(out)}
    assert rows["R.zero"]["status"] == "REFUTED" and rows["R.sign"]["status"] == "REFUTED"


def test_construct_refuses_an_activation_that_fails_a_requirement(tmp_path):
    """A user's tanh(x + 1/4) saturates at ±1 (the blocks' constants exist), but σ(0) is not
    a zero: R.zero is REFUTED and construct stops with one line naming it, before building."""
    fmt = parse_format("bfloat16")
    t = tmp_path / "t.csv"
    _write(fmt, [(fmt.round(1), fmt.round(1), fmt.round(1), fmt.round(1))], t)
    act = str(ACTIVATIONS / "shifted_tanh.py") + ":shifted_tanh"
    code, out, err = _main(["construct", "--activation", act, "--targets", t, "--format", "bfloat16",
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite"])
    errors = [ln for ln in err.strip().splitlines() if ln.startswith("fpsmt: error:")]  # beside the solvers' progress
    assert code == 2 and len(errors) == 1 and "requirement R.zero" in errors[0] and "REFUTED" in errors[0], err
    assert not (tmp_path / "n.json").exists()


def test_a_format_without_the_blocks_constants_is_refused_before_building(tmp_path):
    """float8_e3m4 (e_max = 3): tanh passes the requirements, but the gradient atom's gate
    weight 2·2^q is not finite there; one line, exit 2, before any block is built."""
    fmt = parse_format("float8_e3m4")
    t = tmp_path / "t.csv"
    _write(fmt, [(fmt.round(1), fmt.round(1), fmt.round(1), fmt.round(1))], t)
    code, out, err = _main(["construct", "--activation", "tanh", "--targets", t, "--format", "float8_e3m4",
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite"])
    errors = [ln for ln in err.strip().splitlines() if ln.startswith("fpsmt: error:")]
    assert code == 2 and len(errors) == 1 and "gate" in errors[0] and "building" not in err, err
    assert not (tmp_path / "n.json").exists()


# ------------------------------------------------------------------ a user's activation
SOFTSIGN = "example:softsign.py:softsign"


def test_softsign_without_declared_pieces_gets_them_inferred_and_said():
    """examples/softsign.py declares no monotone pieces: they are inferred (σ' >= 0 by
    interval arithmetic) and the user is told; a σ that is not monotone gets none."""
    from fpsmt.semantics.activations.user import infer_pieces, load_user_activation
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        act = load_user_activation(SOFTSIGN).real
    assert act.pieces == [(None, None, 1)] and "inferred" in err.getvalue() and "non-decreasing" in err.getvalue()
    from fpsmt.semantics.activations.user import UserActivation
    from fpsmt.userfiles import import_file
    path = ACTIVATIONS / "bad_pieces.py"  # x^2, its declared piece ignored here
    square = UserActivation(import_file(path, "activation"), "square", path)
    square.pieces = None
    assert infer_pieces(square) is not None and square.pieces is None and abs(square.turning) < 0.25  # − then +
    cube = UserActivation(import_file(path, "activation"), "square", path)
    cube.pieces, cube._fp = None, lambda x, m: 3 * x * x - 1  # σ' changes sign twice: nothing is inferred
    assert infer_pieces(cube) is None and cube.pieces is None and cube.turning is None


def test_an_inferred_turning_point_is_checked_per_format():
    """One sign change of σ' seen at the inference's resolution (2^-20) but three at
    float32's: the located pieces are refused there (they are not monotone), and kept in
    bfloat16, where all three roots lie between two adjacent floats; one true root gives
    two pieces in both."""
    from fpsmt.semantics.activations.rounding import value_pieces
    from fpsmt.semantics.activations.user import UserActivation, infer_pieces
    from fpsmt.userfiles import import_file
    path = ACTIVATIONS / "bad_pieces.py"

    def user(fp, tag):
        u = UserActivation(import_file(path, "activation"), "square", path)
        u.pieces, u._fp, u._key = None, fp, u._key + tag
        return u
    a = Fraction(1, 6)
    one = user(lambda x, m: 2 * x - m.mpf(1) / 3, "-one")
    three = user(lambda x, m: (x - m.mpf(1) / 6) * (x - m.mpf(1) / 6 - m.mpf(2) ** -23)
                 * (x - m.mpf(1) / 6 - m.mpf(2) ** -22), "-three")
    for act in (one, three):
        assert infer_pieces(act) is not None and abs(act.turning - float(a)) < 1e-6
    f32, bf16 = parse_format("float32"), parse_format("bfloat16")
    for f in (f32, bf16):
        lo, hi = value_pieces(one, f)
        assert lo[1] < a < hi[0] and f.next_up(f.round(lo[1])) == f.round(hi[0])
    assert value_pieces(three, f32) == []
    lo, hi = value_pieces(three, bf16)
    assert lo[1] < a and a + Fraction(1, 2 ** 22) < hi[0]


def test_constant_tails_are_where_the_function_is_constant():
    """The derivative's saturated tail of softsign starts where σ' first rounds to 0 (checked
    against the correctly rounded σ' at the float below and at the start), and a function
    that is not constant far out (x/2 in a user file: its limit is inf) gets no tail."""
    from fpsmt.semantics.activations.rounding import constant_tails, correctly_rounded
    from fpsmt.semantics.activations.user import load_user_activation
    act = load_user_activation(SOFTSIGN).real
    for name in ("bfloat16", "float16", "float32"):
        f = parse_format(name)
        tails = constant_tails(act, f, "derivative")
        assert len(tails) == 2
        start = f.round(tails[0][0])
        assert f.is_zero(correctly_rounded(act, f, start, "derivative"))
        assert not f.is_zero(correctly_rounded(act, f, f.next_down(f.round(tails[0][0] / 2)), "derivative"))
    ident = load_user_activation(str(ACTIVATIONS / "identity.py") + ":ident").real
    assert constant_tails(ident, parse_format("float32"), "value") == []


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_softsign_requirements_and_construction(tmp_path):
    """softsign passes the saturating family's requirements in float32 (R.saturation's σ'
    tail rests on the inferred constant tail) and gets a construction: built, verified by
    construct, and re-run bit for bit by the exact reference in bfloat16."""
    code, out, err = _main(["conditions", "--activation", SOFTSIGN, "--format", "float32", "--store",
                            tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    rows = {r["condition"]: r["status"] for r in json.loads(out)}
    assert all(rows[k] == "PROVED" for k in ("C1", "R.zero", "R.saturation", "R.sign", "R.bounded")), rows
    fmt = parse_format("bfloat16")
    rnd = random.Random(7)
    pts = []
    for i in range(6):
        z = fmt.round(Fraction(rnd.randint(-300, 300), 8))
        if all(z != p[0] for p in pts):
            pts.append((z, fmt.round(Fraction(rnd.randint(-9, 9), 4)), fmt.round(Fraction(rnd.choice([1, -3]), 2)),
                        fmt.round(Fraction(rnd.randint(-50, 50), 16)) if i % 2 else 0))
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", SOFTSIGN, "--targets", t, "--format", "bfloat16",
                            "--out", tmp_path / "n.json", "--store", tmp_path / "s.sqlite", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["verified"] == len(pts) and summary["activation"] == SOFTSIGN
    assert summary["value_atoms"] == max(1, sum(1 for p in pts if not fmt.is_zero(p[1])))  # one piece each
    assert _exact_check(fmt, netio.load_network(tmp_path / "n.json"), pts) == []
    c = S.block_constants(fmt, SOFTSIGN)
    assert c.fan == 1 << S.FAN_BITS and c.fan * c.fan_weight == 1 << (c.T - 1)  # T = 67: q's copies are weighted


def test_torch_runs_a_users_activation_from_its_file_or_refuses_before_work(tmp_path):
    """``--torch``: examples/softsign.py gives NAME_torch (torch's softsign), and the
    network runs in torch bit for bit as scalar operations in the paper's order; a file
    without it is refused before anything is built (exit 2, one line, nothing written)."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    fmt = parse_format("bfloat16")
    pts = [(fmt.round(Fraction(k, 4)), fmt.round(Fraction(k, 8)), fmt.round(1), fmt.round(Fraction(-k, 16)))
           for k in (-5, 1, 3)]
    t = tmp_path / "t.csv"
    _write(fmt, pts, t)
    code, out, err = _main(["construct", "--activation", SOFTSIGN, "--targets", t, "--format", "bfloat16",
                            "--out", tmp_path / "n.json", "--torch", "--json", "--store", tmp_path / "s.sqlite"])
    assert code == 0, err
    torch_rep = json.loads(out)["torch"]
    assert torch_rep["scalar"]["bit_exact"] == len(pts)
    bare = str(ACTIVATIONS / "softsign.py") + ":softsign"
    code, _, err = _main(["construct", "--activation", bare, "--targets", t, "--format", "bfloat16",
                          "--out", tmp_path / "m.json", "--torch", "--store", tmp_path / "s.sqlite"])
    errors = [ln for ln in err.splitlines() if ln.startswith("fpsmt: error")]
    assert code == 2 and len(errors) == 1 and "NAME_torch" in errors[0] and "building" not in err
    assert not (tmp_path / "m.json").exists()
