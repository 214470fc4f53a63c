"""Theorem 3.2 for sigmoid (fpsmt.constructions.gated_logi): programs in the quarter
arithmetic (u ⊗ 1/4) ⊗ W, their gated network checked by the executor at every x of
sigmoid's X and every finite |y| <= H against targets computed here; the checks failing on
wrong networks (and on ReLU's programs, which the factor 1/4 breaks); random pieces with
extreme thresholds and values; ``fpsmt construct --activation sigmoid`` checked again by the
whole-network executor; and the refusals."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpsmt.constructions import gated_logi as GL
from fpsmt.constructions import logistic as LG
from fpsmt.constructions import threshold as T
from fpsmt.constructions.theorem32 import Piece
from fpsmt.semantics.arith import concrete
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Layer, Network, run

from conftest import fpsmt
from test_theorem32_tanh import _with, _xs, _ys  # sigmoid's X is tanh's: [−2^(e_max−1), 2^(e_max−1)]


def _want(fmt, pieces, y):
    """g(y) of the pieces, computed here: the last piece with t <= |y|, c·sign(y) or
    RN(y·k) (one rounding), a zero below the first and at y = ±0."""
    a, cur = abs(y), None
    for p in pieces:
        if p.t <= a:
            cur = p
    if y == 0 or cur is None:
        return Fraction(0)
    if cur.kind == "const":
        return cur.c if y > 0 else -cur.c
    return fmt.to_fraction(fmt.round(y * cur.c))


def _net(fmt, z, pieces, depth=None):
    with LG.hidden_activation("sigmoid"):
        steps, weights = GL.point_program(fmt, pieces)
        return GL.gated_program(fmt, Fraction(z), steps, weights, depth), GL.y_bound(fmt), (steps, weights)


def _mismatches(fmt, net, pieces, z, xs, ys):
    """(x, y, what, got, want) where f(x) is not a zero, or D(y) is not the pieces' g at
    x = z and a zero elsewhere (a zero target met by either zero); the executor runs the
    whole network (semantics.network.run)."""
    A = concrete(fmt)
    X = np.repeat(np.asarray(xs, dtype=np.uint64), len(ys)).reshape(-1, 1)
    Y = np.tile(np.asarray(ys, dtype=np.uint64), len(xs)).reshape(-1, 1)
    tr = run(A, net, A.const(X), A.const(Y))
    out, grad = A.to_bits(tr.out).ravel().tolist(), A.to_bits(tr.grad).ravel().tolist()
    zq, bad = Fraction(z), []
    for xb, yb, o, g in zip(X.ravel().tolist(), Y.ravel().tolist(), out, grad):
        if not fmt.is_zero(o):
            bad.append((xb, yb, "f", o, 0))
        want = _want(fmt, pieces, fmt.to_fraction(yb)) if fmt.to_fraction(xb) == zq else Fraction(0)
        if not fmt.is_finite(g) or fmt.to_fraction(g) != want:
            bad.append((xb, yb, "D", g, want))
    return bad


def _smallest(fmt):
    """BRIEF §9's smallest case: D(y) = ±1 exactly at y = ±1, a zero for every other y."""
    return [Piece(Fraction(1), "const", Fraction(1)), Piece(fmt.to_fraction(fmt.next_up(fmt.one_bits)), "const", 0)]


@pytest.mark.parametrize("z", [0, Fraction(-3, 2), 64])
def test_gated_network_every_x_every_y_up_to_h(z):
    """At x = z, D(y) is ±1 exactly at y = ±1 and a zero at every other |y| <= H; at every
    other x of X a zero; f a zero everywhere; every hidden layer is sigmoid."""
    fmt = parse_format("e4m2")
    pieces = _smallest(fmt)
    net, H, _ = _net(fmt, z, pieces)
    assert H == Fraction(2) ** (fmt.M - 1)
    assert {L.activation for L in net.layers[:-1]} == {"sigmoid"} and net.layers[-1].activation == "identity"
    assert _mismatches(fmt, net, pieces, z, _xs(fmt), _ys(fmt, H)) == []


def test_check_fails_on_a_wrong_network():
    """The same check finds N's output weight doubled (f is no longer a zero), the top's bias
    −2 made −1 (t is no longer at σ'(+0) at z), and the network run with tanh."""
    fmt = parse_format("e4m2")
    pieces = _smallest(fmt)
    net, H, _ = _net(fmt, 0, pieces)
    xs, ys = _xs(fmt), _ys(fmt, H)
    out, top = net.depth - 1, net.depth - 2
    assert any(m[2] == "f" for m in _mismatches(fmt, _with(net, out, 1, factor=2), pieces, 0, xs, ys))
    assert _mismatches(fmt, _with(net, top, 0, bias=-1), pieces, 0, xs, ys)
    tanh = Network(fmt, [Layer(L.n_out, L.n_in, L.rows, L.cols, L.weights, L.bias,
                               "tanh" if L.activation == "sigmoid" else L.activation) for L in net.layers])
    assert _mismatches(fmt, tanh, pieces, 0, xs, ys)


def test_relu_s_program_breaks_under_the_factor_one_quarter():
    """ReLU's and tanh's threshold program for sign(y)·1[|y| >= 1], run as a sigmoid chain
    would run it: each term (u ⊗ 1/4) ⊗ 4w, which is u ⊗ w wherever u is a multiple of 4ω.
    Its gadget's ω dies at the next ⊗ 1/4, so it misses its target at every |y| >= 1, where
    the plain arithmetic meets it; the quarter program meets it everywhere."""
    fmt = parse_format("bfloat16")
    pieces = [Piece(Fraction(1), "const", Fraction(1))]
    plain = T.block_program(T.plan(fmt, 1, 1))
    ys = [fmt.to_fraction(b) for b in _ys(fmt, GL.y_bound(fmt))]

    def quarter(u, w):
        a = T.rn(fmt, u / 4)
        return T.rn(fmt, a * 4 * w)

    def plain_mul(u, w):
        return T.rn(fmt, u * w)

    def value(mul, y):
        return T.eval_steps(plain, [T.rn(fmt, y)], mul, lambda a, b: T.rn(fmt, a + b), lambda w: w)[0]
    assert all(value(plain_mul, y) == _want(fmt, pieces, y) for y in ys[::97])
    missed = [y for y in ys[::97] if value(quarter, y) != _want(fmt, pieces, y)]
    assert missed and all(abs(y) >= 1 for y in missed)
    with LG.hidden_activation("sigmoid"):
        steps, weights = GL.point_program(fmt, pieces)
    assert all(GL.eval_program(fmt, steps, weights, y) == _want(fmt, pieces, y) for y in ys[::97])


def test_padding_keeps_the_network_exact():
    fmt = parse_format("e4m2")
    pieces = _smallest(fmt)
    net, H, (steps, weights) = _net(fmt, Fraction(1, 2), pieces)
    deeper, _, _ = _net(fmt, Fraction(1, 2), pieces, depth=net.depth + 3)
    assert deeper.depth == net.depth + 3
    assert _mismatches(fmt, deeper, pieces, Fraction(1, 2), _xs(fmt), _ys(fmt, H)) == []


def test_exact_reading_agrees_with_the_executor():
    """eval_program (exact rationals, each ⊗ and ⊕ rounded once) gives the executor's D at
    x = z for every finite |y| <= H, on a program with a linear piece."""
    fmt = parse_format("float8_e4m3")
    pieces = [Piece(Fraction(1, 16), "linear", Fraction(3)), Piece(Fraction(2), "const", Fraction(-5, 4))]
    net, H, (steps, weights) = _net(fmt, 0, pieces)
    ys = _ys(fmt, H)
    A = concrete(fmt)
    tr = run(A, net, A.const(np.zeros((len(ys), 1), dtype=np.uint64)), A.const(np.asarray(ys, dtype=np.uint64)
                                                                                  .reshape(-1, 1)))
    got = [fmt.to_fraction(g) for g in A.to_bits(tr.grad).ravel().tolist()]
    exact = [GL.eval_program(fmt, steps, weights, fmt.to_fraction(y)) for y in ys]
    assert got == exact
    assert exact == [_want(fmt, pieces, fmt.to_fraction(y)) for y in ys]


def _floats(fmt, lo, hi):
    return [fmt.to_fraction(b) for b in T.finite_values(fmt) if lo <= fmt.to_fraction(b) <= hi]


def random_pieces(fmt, data):
    """1 to 4 pieces drawn by hypothesis: thresholds from ω up to H (the first ω as often as
    not), constants from ω up to 2^(e_max−2), slopes from 1/8 to 8, of either sign, some
    pieces 0 (not all)."""
    ts = _floats(fmt, fmt.omega, GL.y_bound(fmt))
    n = data.draw(st.integers(1, 4))
    cuts = sorted(set(data.draw(st.lists(st.sampled_from(ts), min_size=n, max_size=n))))
    if data.draw(st.booleans()):
        cuts[0] = fmt.omega
    cs = _floats(fmt, fmt.omega, Fraction(2) ** (fmt.e_max - 2))
    pieces = []
    for t in cuts:
        kind = data.draw(st.sampled_from(["const", "linear", "zero"]))
        c = data.draw(st.sampled_from(cs if kind == "const" else _floats(fmt, Fraction(1, 8), 8)))
        c = c * data.draw(st.sampled_from([1, -1]))
        pieces.append(Piece(t, "const" if kind == "zero" else kind, Fraction(0) if kind == "zero" else c))
    if all(p.c == 0 for p in pieces):
        pieces[0] = Piece(pieces[0].t, "const", Fraction(1))
    return pieces


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_pieces_every_y(name, data):
    """Random pieces (1 to 4, thresholds from ω up to H, constants from ω up to 2^(e_max−2)
    and slopes of either sign, the first threshold ω as often as not) at a random point of X:
    D(y) is the pieces' g at every finite |y| <= H, and a zero at X's ends and z's neighbours."""
    fmt = parse_format(name)
    H = GL.y_bound(fmt)
    pieces = random_pieces(fmt, data)
    z = data.draw(st.sampled_from(_xs(fmt)))
    zq = fmt.to_fraction(z)
    try:
        net, _, _ = _net(fmt, zq, pieces)
    except Exception as e:  # a refusal must say why in one line (an InputError)
        from fpsmt.errors import InputError
        assert isinstance(e, InputError) and "\n" not in str(e), e
        return
    top = fmt.round(Fraction(2) ** (fmt.e_max - 1))
    xs = sorted({z, fmt.next_up(z) if fmt.to_fraction(fmt.next_up(z)) <= fmt.to_fraction(top) else z,
                 top, top | fmt.sign_bit})
    assert _mismatches(fmt, net, pieces, zq, xs, _ys(fmt, H)) == []


@pytest.mark.parametrize("example,name", [("dead_zone", "float8_e4m3"), ("sign_gradient", "float8_e5m2"),
                                          pytest.param("dead_zone", "float16", marks=pytest.mark.slow)])
def test_construct_sigmoid_every_x_every_y_up_to_h(tmp_path, example, name):
    from test_theorem32_tanh import check_construct
    fmt = parse_format(name)
    check_construct(tmp_path, example, fmt, "sigmoid", Fraction(2) ** (fmt.M - 1))  # sigmoid's H_σ, as the paper's


def test_construct_sigmoid_in_torch(tmp_path):
    pytest.importorskip("torch")
    r = fpsmt("construct", "--targets", "example:dead_zone.py", "--format", "bfloat16", "--activation", "sigmoid",
              "--out", "net.json", "--torch", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["torch"]["bit_exact"] == rep["torch"]["pairs"] > 0


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_sigmoid_pieces_with_no_prove(tmp_path, name):
    """g* as pieces in float32 and float64 with --no-prove: built, every sampled (x, y) with
    |y| <= H bit-exact in the executor — and again here, the written network run whole
    against the file's pieces read with exact rationals (subnormal y among them)."""
    from test_theorem32_tanh import check_pieces_file
    fmt = parse_format(name)
    example = f"example:clipping_pieces_{name}.py"
    r = fpsmt("construct", "--targets", example, "--format", name, "--activation", "sigmoid", "--out", "net.json",
              "--no-prove", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    H = Fraction(2) ** (fmt.M - 1)
    assert rep["activation"] == "sigmoid" and rep["mismatches"] == [] and rep["pairs"] > 0
    assert rep["y_bound"] == fmt.hex(fmt.round(H))
    ys = [fmt.round(Fraction(q)) for q in (fmt.omega, 3 * fmt.omega, Fraction(1, 3), 1, 2, Fraction(3, 2), 1000, H)]
    check_pieces_file(fmt, tmp_path / "net.json", example, ys)


@pytest.mark.slow  # about 7 minutes: a float32 proof tree per distinct list of pieces
def test_sigmoid_pieces_float32_claims_proved(tmp_path):
    """g* as pieces in float32 with the claims on: each point's program decided by its proof
    tree (proofs/logi_program_tree.py), every one PROVED and every UNSAT answer confirmed."""
    r = fpsmt("construct", "--targets", "example:clipping_pieces_float32.py", "--format", "float32", "--activation",
              "sigmoid", "--out", "net.json", "--store", str(tmp_path / "s.sqlite"), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    rows = [c for c in rep["claims"] if c["status"] != "NO PROGRAM"]
    assert rep["mismatches"] == [] and len(rows) == 3
    assert all(c["status"] == "PROVED" and not c["confirmed"]["unconfirmed"] for c in rows)


# ------------------------------------------------------------------ the ∀y claims (proofs/logi_theorem_3_2.py)
def _logi_claims(fmt, pieces=None):
    """The program claim and the network row's nodes for ``pieces`` (the built-in g) at
    z = 0, sigmoid active."""
    from fpsmt.proofs import logi_theorem_3_2 as PL
    from fpsmt.proofs import theorem_3_2_relu as PT
    pieces = pieces or PT.builtin_pieces()
    with LG.hidden_activation("sigmoid"):
        root, net = PL.chain_root(fmt, 0, pieces, "net", PL.row_others(fmt))
        prog = PL.program_node(fmt, pieces, "program")
    claims = {c.name: c for c in root.claims()}
    claims["program"] = prog.claim
    return claims, net


def _decide_logi(fmt, claims, names):
    from fpsmt.proof.engine import Engine
    eng = Engine(solver="portfolio", timeout=120, confirm=False)
    with LG.hidden_activation("sigmoid"):
        return {n: eng.prove(claims[n], fmt, claims).status for n in names}


def _some(claims, net):
    """The program, the tops, the d layer and layer 0 at x = +0."""
    return ["program", "chain.x0x00.top", f"chain.x0x00.layer{net.depth - 3}", "chain.x0x00.layer0"]


def test_program_and_layer_claims_hold_only_in_the_quarter_arithmetic(monkeypatch):
    """The program claim (enumerated y) and the network's top, d and x layers are PROVED in
    float8_e4m3; stated in plain arithmetic (u ⊗ w, no factor 1/4) every one is REFUTED."""
    from fpsmt.proofs import theorem_3_2_relu as PT
    fmt = parse_format("float8_e4m3")
    claims, net = _logi_claims(fmt)
    names = _some(claims, net)
    assert set(_decide_logi(fmt, claims, names).values()) == {"PROVED"}
    monkeypatch.setattr(PT, "Quarter", PT._SymW)
    claims, net = _logi_claims(fmt)
    assert set(_decide_logi(fmt, claims, names).values()) == {"REFUTED"}


def test_program_claim_fails_on_another_g_s_program(monkeypatch):
    """The program of the dead zone with ±3 (not ±2) from 4 on, stated against the
    built-in g: REFUTED (a counterexample y, replayed)."""
    from fpsmt.proofs import theorem_3_2_relu as PT
    fmt = parse_format("float8_e4m3")
    other = [Piece(Fraction(1, 16), "linear", Fraction(3)), Piece(Fraction(4), "const", Fraction(3))]
    real = GL.point_program
    monkeypatch.setattr(GL, "point_program", lambda f, pcs: real(f, other))
    claims, _ = _logi_claims(fmt, PT.builtin_pieces())
    assert _decide_logi(fmt, claims, ["program"]) == {"program": "REFUTED"}


def test_top_claim_needs_the_bound_and_killed_claims_a_strong_gate(monkeypatch):
    """The top's claim holds for |y| <= H, not for every finite y (y ⊗ 4 overflows); the
    killed claims hold with G = 2^(T+1) and fail with G/4 (t and N are not saturated at
    x != z)."""
    from fpsmt.proof.claims import Float
    from fpsmt.proofs import logi_theorem_3_2 as PL
    fmt = parse_format("float8_e4m3")
    claims, _ = _logi_claims(fmt)
    killed = [n for n in claims if ".killed." in n]
    tops = [n for n in claims if n.endswith(".top")]
    assert len(killed) == 4 and len(tops) == 2
    assert set(_decide_logi(fmt, claims, killed + tops).values()) == {"PROVED"}
    monkeypatch.setattr(PL, "y_var", lambda f: Float(finite=True))
    claims, _ = _logi_claims(fmt)
    assert set(_decide_logi(fmt, claims, tops).values()) == {"REFUTED"}
    monkeypatch.undo()
    G = GL.gate_weight
    monkeypatch.setattr(GL, "gate_weight", lambda f: G(f) / 4)
    claims, _ = _logi_claims(fmt)
    assert "REFUTED" in set(_decide_logi(fmt, claims, killed).values())


def test_construct_sigmoid_prove_network(tmp_path):
    """``construct --activation sigmoid --prove-network``: every point's program and network
    claims PROVED, every UNSAT answer confirmed (the enumerated ones on the integer
    executor)."""
    r = fpsmt("construct", "--targets", "example:dead_zone.py", "--format", "float8_e4m3", "--activation", "sigmoid",
              "--out", "net.json", "--prove-network", "--store", str(tmp_path / "s.sqlite"), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    rows = [c for c in rep["claims"] if c["status"] != "NO PROGRAM"]
    assert rep["mismatches"] == [] and len(rows) == 3  # g = 0 at x = 2: the zero-gradient atom
    assert all(c["status"] == "PROVED" and c["network"]["status"] == "PROVED" for c in rows)
    assert all(not c["confirmed"]["unconfirmed"] and not c["network"]["confirmed"]["unconfirmed"] for c in rows)
    assert all("exhaustive-integer" in c["confirmed"]["by"] for c in rows)


@pytest.mark.slow  # about 30 s: 119 claims with confirmation
def test_the_logistic_theorem_3_2_rows_are_proved_in_e4m3(tmp_path):
    from test_theorem32_tanh import check_rows_proved
    check_rows_proved(tmp_path, "sigmoid", "float8_e4m3", ["logi_theorem_3_2", "logi_theorem_3_2_network"])


@pytest.mark.slow  # about 4 minutes: the family's Theorem 3.1 lemmas, with confirmation
def test_construct_sigmoid_certify(tmp_path):
    r = fpsmt("construct", "--targets", "example:dead_zone.py", "--format", "float8_e4m3", "--activation", "sigmoid",
              "--out", "net.json", "--certify", "--store", str(tmp_path / "s.sqlite"), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["certified"] is True and rep["mismatches"] == [] and (tmp_path / "net.json").exists()
    assert all(c["status"] == "PROVED" and c["network"]["status"] == "PROVED" for c in rep["claims"]
               if c["status"] != "NO PROGRAM")


def test_killed_claims_need_a_finite_sigma_prime_below_the_top():
    """At another point a layer's pre-activation may overflow (a step indicator's w ⊗ x):
    σ'(+∞) = 0 is finite, so zeros stay zeros and the killed claim is built; a NaN
    pre-activation (+∞ ⊕ −∞) has σ' = NaN and is refused, naming it."""
    from fpsmt.errors import InputError
    from fpsmt.proofs import theorem_3_2_relu as PT
    fmt = parse_format("float8_e4m3")
    big, one = fmt.round(fmt.Omega), fmt.round(1)

    def net(bias):
        return Network(fmt, [Layer(1, 1, [0], [0], [big], [bias], "sigmoid"),
                             Layer(1, 1, [0], [0], [one], [0], "sigmoid"),
                             Layer(1, 1, [0], [0], [one], [0], "identity")])
    assert fmt.is_inf(fmt.round(fmt.Omega * fmt.Omega))
    assert len(PT.killed_nodes(fmt, 0, net(0), [big])) == 1  # pre = +∞ at x = Ω
    with pytest.raises(InputError, match="not finite"):
        PT.killed_nodes(fmt, 0, net(fmt.inf_bits(negative=True)), [big])  # +∞ ⊕ −∞
