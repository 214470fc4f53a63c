"""The gradient-threshold indicator (fpsmt.constructions.threshold): value +0 at x = 0 and
D(y) = c·sign(y)·1[|y| >= t] for every finite y, checked by the executor at every y and
by an independent exact reading of the plan."""

from fractions import Fraction

import pytest

from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.semantics.formats import parse_format


def _one_up(fmt):
    return fmt.to_fraction(fmt.next_up(fmt.one_bits))


@pytest.mark.parametrize("name", ["e4m2", "float8_e4m3", "float8_e5m2", "float8_e3m4",
                                  pytest.param("float16", marks=pytest.mark.slow),
                                  pytest.param("bfloat16", marks=pytest.mark.slow)])
def test_smallest_case_every_finite_y(name):
    """BRIEF §9's smallest case: D(y) = ±1 exactly at y = ±1, a zero at every other finite y."""
    fmt = parse_format(name)
    net, plans = T.smallest_case(fmt)
    blocks = [(1, 1), (_one_up(fmt), -1)]
    assert T.mismatches(fmt, net, blocks) == []
    # the target itself: nonzero exactly at ±1
    nonzero = [y for y in T.finite_values(fmt) if T.target(fmt, blocks, fmt.to_fraction(y)) != 0]
    assert sorted(nonzero) == sorted([fmt.one_bits, fmt.one_bits | fmt.sign_bit])
    assert all(layer.activation == "relu" for layer in net.layers[:-1]) and net.layers[-1].activation == "identity"


@pytest.mark.parametrize("name", ["e4m2", pytest.param("float8_e4m3", marks=pytest.mark.slow),
                                  pytest.param("float8_e5m2", marks=pytest.mark.slow),
                                  pytest.param("float8_e3m4", marks=pytest.mark.slow)])
def test_every_threshold_every_y(name):
    """Every positive finite t with c = 1 (every fifth also with c = -3/4): the network at every finite y,
    and the plan's exact reading at every y."""
    fmt = parse_format(name)
    ts = [fmt.to_fraction(b) for b in T.finite_values(fmt) if fmt.to_fraction(b) > 0]
    for i, t in enumerate(ts):
        for c in (Fraction(1), Fraction(-3, 4))[:1 if i % 5 else 2]:
            net, (p,) = T.network(fmt, [(t, c)])
            assert T.mismatches(fmt, net, [(t, c)]) == [], (t, c)
    for t in ts[::7]:
        p = T.plan(fmt, t)
        for y in T.finite_values(fmt):
            v = fmt.to_fraction(y)
            assert T.simulate(p, v) == (p.c * (1 if v > 0 else -1) if abs(v) >= t else 0), (t, v)


def test_a_wrong_shift_is_caught():
    """The checker fails on a wrong network: the first staircase shift s = P⁺ instead of
    at most P⁺ − t sends y = P⁺ (>= t) to 0, and the mismatch names y, the value and the
    target."""
    fmt = parse_format("e4m2")
    p = T.plan(fmt, 1)
    P, s, U = p.stages[0]
    up = fmt.to_fraction(fmt.next_up(fmt.round(P)))
    p.stages[0] = (P, up, U)
    net = T._program_network(fmt, T.parallel([T.block_program(p)]))
    bad = T.mismatches(fmt, net, [(1, 1)])
    assert bad and all(what == "D(y)" for _, _, what, _, _ in bad)
    assert fmt.round(up) in [y for _, y, _, _, _ in bad]
    _, y, _, got, want = bad[0]
    assert fmt.to_fraction(got) != fmt.to_fraction(want)


def test_a_wrong_gadget_is_caught():
    """The final gadget at 2P instead of P: the threshold moves and the check says so."""
    fmt = parse_format("float8_e4m3")
    p = T.plan(fmt, 1)
    p.P *= 2
    net = T._program_network(fmt, T.parallel([T.block_program(p)]))
    assert T.mismatches(fmt, net, [(1, 1)])


def test_forward_is_zero_and_every_relu_active():
    """f(0) = +0 exactly and every hidden pre-activation at x = 0 is > 0 (ReLU' = 1)."""
    import numpy as np
    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import run
    fmt = parse_format("float16")
    net, _ = T.smallest_case(fmt)
    A = concrete(fmt)
    tr = run(A, net, A.const(np.zeros((1, 1), dtype=fmt.uint_dtype)))
    assert A.to_bits(tr.out).ravel().tolist() == [fmt.zero_bits()]
    for z in tr.pre[:-1]:
        assert (np.asarray(z) > 0).all()


@pytest.mark.parametrize("t, c, why", [(0, 1, "positive"), (-1, 1, "positive"), (Fraction(1, 3), 1, "not a finite"),
                                        (1, 0, "nonzero"), (10 ** 9, 1, "not a finite")])
def test_bad_blocks_are_refused(t, c, why):
    with pytest.raises(InputError, match=why):
        T.plan("e4m2", t, c)


@pytest.mark.parametrize("name", ["e4m2", "float8_e4m3", "float8_e5m2", "float8_e3m4"])
def test_the_lemma_slices_make_up_the_network(name):
    """proofs/gradient_threshold.py decides each stage on its slice of the block's steps
    (stage_steps, final_steps, run by eval_steps); the network is built from the same
    steps.  Here the slices, run one after the other with each operation rounded once, give
    the network's D^AD at every finite y, block by block (each block alone) and summed."""
    fmt = parse_format(name)
    net, plans = T.smallest_case(fmt)

    def rn(q):
        return fmt.to_fraction(fmt.round(q))

    def slices(p, y):
        u = rn(y * 1)
        for P, s, _ in p.stages:
            u = T.eval_steps(T.stage_steps(fmt, P, s), [u], lambda a, b: rn(a * b), lambda a, b: rn(a + b), Fraction)[0]
        return T.eval_steps(T.final_steps(p), [u], lambda a, b: rn(a * b), lambda a, b: rn(a + b), Fraction)[0]
    ys = T.finite_values(fmt)
    for p in plans:
        alone = T._program_network(fmt, T.parallel([T.block_program(p)]))
        want = [(p.t, p.c)]
        assert T.mismatches(fmt, alone, want) == []
        for y in ys:
            v = fmt.to_fraction(y)
            assert slices(p, v) == T.target(fmt, want, v), (p.describe(), v)
    for y in ys:
        v = fmt.to_fraction(y)
        assert rn(slices(plans[0], v) + slices(plans[1], v)) == T.target(fmt, [(p.t, p.c) for p in plans], v)


@pytest.mark.slow
def test_the_lemma_is_proved_in_e4m2_every_unsat_confirmed():
    """The lemma's row in E4M2 (BRIEF §9's smallest case): PROVED, every UNSAT answer
    confirmed by a second back end or an enumeration."""
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import run
    rows = run(Engine(solver="portfolio", timeout=600, confirm=True), ["gradient_threshold"], ["repaired"], ["e4m2"])
    assert [r["status"] for r in rows] == ["PROVED"], rows
    assert rows[0]["confirmed"]["stages"] == 22 and rows[0]["confirmed"]["unconfirmed"] == [], rows[0]["confirmed"]


def test_the_lemma_is_proved_in_e4m2_and_refuted_for_a_wrong_shift(monkeypatch):
    """The lemma's row in E4M2, by enumeration: PROVED.  With the first stage's shift P⁺ (too large) that
    stage is REFUTED with a replayed counterexample: the tree's claims can fail."""
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import run
    rows = run(Engine(solver="exhaustive", timeout=600), ["gradient_threshold"], ["repaired"], ["e4m2"])
    assert [r["status"] for r in rows] == ["PROVED"], rows
    real = T.plan

    def wrong(fmt, t, c=1, limit=100_000):
        p = real(fmt, t, c, limit)
        P, s, U = p.stages[0]
        p.stages[0] = (P, fmt.to_fraction(fmt.next_up(fmt.round(P))), U)
        return p
    monkeypatch.setattr(T, "plan", wrong)
    rows = run(Engine(solver="exhaustive", timeout=600), ["gradient_threshold"], ["repaired"], ["e4m2"])
    assert rows[0]["status"] == "REFUTED", rows
    assert "block1.stage1" in rows[0]["statement"] and rows[0]["counterexample"]


def _gated_check(fmt, z, blocks):
    net, _ = T.gated_network(fmt, z, blocks)
    return T.mismatches(fmt, net, blocks, xs=T.domain(fmt), z=z)


@pytest.mark.parametrize("z", [0, 3, -32, Fraction(-1, 256)])
def test_gated_smallest_case_every_x_every_y(z):
    """The smallest case gated to z (the gradient atom's gate and killers): at every x of
    E4M2's X and every finite y, f(x) = +0, D(y) = ±1 exactly at (z, ±1), a zero elsewhere."""
    fmt = parse_format("e4m2")
    assert _gated_check(fmt, z, [(1, 1), (_one_up(fmt), -1)]) == []


@pytest.mark.slow
@pytest.mark.parametrize("name, stride", [("e4m2", 1), ("float8_e4m3", 8)])
def test_gated_block_at_every_z(name, stride):
    """Two threshold blocks gated to each z of X in turn (every z of E4M2, every eighth of
    float8_e4m3), every x, every finite y."""
    fmt = parse_format(name)
    for zb in T.domain(fmt)[::stride]:
        z = fmt.to_fraction(zb)
        assert _gated_check(fmt, z, [(Fraction(3, 2), Fraction(-1, 4)), (2, 1)]) == [], z


def test_gated_killers_get_no_overflowing_gradient():
    """The chain's killer weights are −2^-e_max, not −1: with −1 the killers' D^AD sums
    the chain's large gradients, which overflow in E4M2 for y >= 80 at x = z, and
    ∞ ⊗ ReLU'(0) is NaN.  The check fails on that network."""
    fmt = parse_format("e4m2")
    blocks = [(1, 1), (_one_up(fmt), -1)]
    net, _ = T.gated_network(fmt, 3, blocks)
    e = fmt.e_max
    kill = fmt.round(-Fraction(2) ** -e)
    from fpsmt.semantics.network import Layer, Network
    layers = [Layer(L.n_out, L.n_in, L.rows, L.cols, [fmt.round(-1) if w == kill else w for w in L.weights],
                    L.bias, L.activation) for L in net.layers]
    bad = T.mismatches(fmt, Network(fmt, layers), blocks, xs=[fmt.round(3)], z=3)
    assert bad and any(fmt.is_nan(got) for _, _, _, got, _ in bad)


@pytest.mark.parametrize("z", [33, Fraction(1, 3), -64])
def test_gated_z_outside_x_is_refused(z):
    with pytest.raises(InputError, match="is not a value of ReLU's X"):
        T.gated_network("e4m2", z, [(1, 1)])
