"""Theorem 3.2 for ELU (fpsmt.constructions.gated_rect): the gated network of a backward
program, checked by the executor at every x of X and every finite y; the checks failing on
a wrong network; ``fpsmt construct --activation elu`` with a two-parameter g_star, checked
again here by the whole-network executor against targets computed from the file; and the
refusals, one line with exit 2 and nothing written."""

import json
from fractions import Fraction

import pytest

from fpsmt.constructions import gated_rect as GR
from fpsmt.constructions import rectifying as RC
from fpsmt.constructions import threshold as T
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Layer, Network


def _fpsmt(*args, cwd):
    from conftest import fpsmt
    return fpsmt(*args, cwd=cwd)


def _smallest(fmt):
    """BRIEF §9's smallest case: D(y) = ±1 exactly at y = ±1, a zero for every other y."""
    blocks = [(1, 1), (fmt.to_fraction(fmt.next_up(fmt.one_bits)), -1)]
    plans = [T.plan(fmt, t, c) for t, c in blocks]
    return blocks, T.parallel([T.block_program(p) for p in plans])


def _all_x(fmt):
    top = Fraction(2) ** (fmt.e_max - 2)
    return [b for b in T.finite_values(fmt) if abs(fmt.to_fraction(b)) <= top]


def _some_x(fmt, z):
    """z, its neighbours, both zeros and X's ends."""
    top = fmt.round(Fraction(2) ** (fmt.e_max - 2))
    zb = fmt.round(Fraction(z))
    return sorted({zb, fmt.next_up(zb), fmt.next_down(zb), fmt.zero_bits(), fmt.sign_bit, top, top | fmt.sign_bit})


@pytest.mark.parametrize("name,z", [("e4m2", 0), ("e4m2", Fraction(-3, 2)), ("e4m2", 32),
                                    pytest.param("float8_e4m3", Fraction(5, 8), marks=pytest.mark.slow)])
def test_gated_network_every_x_every_y(name, z):
    """At x = z, D(y) is the program's value for every finite y; at every other x of X a
    zero; f = +0 everywhere; every hidden layer is ELU."""
    fmt = parse_format(name)
    blocks, steps = _smallest(fmt)
    with RC.hidden_activation("elu"):
        net = GR.gated_program(fmt, Fraction(z), steps)
    assert {L.activation for L in net.layers[:-1]} == {"elu"} and net.layers[-1].activation == "identity"
    assert T.mismatches(fmt, net, blocks, xs=_all_x(fmt), z=Fraction(z)) == []


def _with_weight(net, k, i, factor):
    """``net`` with weight i of layer k multiplied by ``factor`` (rounded once)."""
    fmt = net.fmt
    L = net.layers[k]
    w = list(L.weights)
    w[i] = fmt.round(factor * fmt.to_fraction(w[i]))
    layers = list(net.layers)
    layers[k] = Layer(L.n_out, L.n_in, L.rows, L.cols, w, L.bias, L.activation)
    return Network(fmt, layers)


def test_check_fails_on_a_wrong_network():
    """The same check finds a twin's output weight doubled (f is no longer +0), a killer
    weight halved to almost nothing (the chain lives at x ≠ z), and the network run with
    ReLU instead of ELU."""
    fmt = parse_format("e4m2")
    blocks, steps = _smallest(fmt)
    with RC.hidden_activation("elu"):
        net = GR.gated_program(fmt, Fraction(0), steps)
    xs = _some_x(fmt, 0)
    twin = _with_weight(net, net.depth - 1, 1, 2)
    bad = T.mismatches(fmt, twin, blocks, xs=xs)
    assert any(w == "f(x)" for _, _, w, _, _ in bad)
    # the first chain layer's first neuron: its killer weights (its row's first three terms)
    k = RC.block_constants(fmt).step_depth + 2
    weak = net
    for i in range(3):
        weak = _with_weight(weak, k, i, Fraction(1, 64))
    assert any(w == "D(y)" and x != fmt.zero_bits() for x, _, w, _, _ in T.mismatches(fmt, weak, blocks, xs=xs))
    relu = Network(fmt, [Layer(L.n_out, L.n_in, L.rows, L.cols, L.weights, L.bias,
                               "relu" if L.activation == "elu" else L.activation) for L in net.layers])
    assert T.mismatches(fmt, relu, blocks, xs=xs)


def test_padding_keeps_the_network_exact():
    """The gated network at a larger depth (carries in the step indicators) meets the
    program at every (x, y); below its least depth it is refused."""
    fmt = parse_format("e4m2")
    blocks, steps = _smallest(fmt)
    with RC.hidden_activation("elu"):
        least = GR.gated_program(fmt, Fraction(1), steps).depth
        net = GR.gated_program(fmt, Fraction(1), steps, depth=least + 3)
        with pytest.raises(Exception, match="needs"):
            GR.gated_program(fmt, Fraction(1), steps, depth=least - 1)
    assert net.depth == least + 3
    assert T.mismatches(fmt, net, blocks, xs=_some_x(fmt, 1), z=Fraction(1)) == []


def test_a_row_no_killer_can_take_is_refused():
    """A row that adds more at x ≠ z than the killers can take away is refused (NoPlan)."""
    fmt = parse_format("e4m2")
    with RC.hidden_activation("elu"):
        c = RC.block_constants(fmt)
        big = fmt.Omega
        with pytest.raises(T.NoPlan, match="no killer weight"):
            GR._kill_weight(fmt, c, [big, big], Fraction(0), "a test row")
        assert GR._kill_weight(fmt, c, [Fraction(1)], Fraction(0), "a test row") <= 1


@pytest.mark.parametrize("example,name,act", [("dead_zone", "float8_e4m3", "elu"),
                                              pytest.param("gradient_clipping", "e4m2", "elu", marks=pytest.mark.slow)])
def test_construct_elu_every_x_every_y(tmp_path, example, name, act):
    from test_theorem32 import _independent_check

    from fpsmt.commands import netio
    from fpsmt.resources import resolve
    r = _fpsmt("construct", "--targets", f"example:{example}.py", "--format", name, "--activation", act,
               "--out", "net.json", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["activation"] == act and rep["mismatches"] == [] and rep["verified"] == rep["pairs"] > 0
    net = netio.load_network(tmp_path / "net.json")
    assert {L.activation for L in net.layers[:-1]} == {act}
    assert _independent_check(parse_format(name), tmp_path / "net.json", resolve(f"example:{example}.py")) == 0


@pytest.mark.parametrize("extra,what", [(["--activation", "sigmoid", "--certify", "--no-prove"],
                                         "cannot be combined with --no-prove"),
                                        (["--activation", "gelu"], "too few significand bits"),
                                        (["--activation", "elu", "--format", "float8_e5m2"], "float8_e5m2"),
                                        (["--activation", "elu", "--certify", "--no-prove"],
                                         "cannot be combined with --no-prove")])
def test_elu_refusals_one_line_exit_2(tmp_path, extra, what):
    fmt = ["--format", "e4m2"] if "--format" not in extra else []
    r = _fpsmt("construct", "--targets", "example:gradient_clipping.py", *fmt, "--out", "net.json", *extra,
               cwd=tmp_path)
    assert r.returncode == 2 and what in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "net.json").exists()


def test_triples_shared_while_killer_weights_sum_to_one():
    assert GR._groups([Fraction(1, 2), Fraction(1, 2), Fraction(1, 2), Fraction(1, 4)]) == [0, 0, 1, 1]
    assert GR._groups([Fraction(1)] * 3) == [0, 1, 2]


def test_small_identity_checked_at_every_t():
    """The chain's gap pre-activations need σ(t) = t and σ'(t) = 1 on (0, I): ELU has it in
    every format it is built in (at every t up to 16 bits, by enclosures above); GELU
    (σ'(t) = 1/2 near 0) is named at the first t, or at the binade the enclosures stop at."""
    for name in ("e4m2", "float8_e4m3", "bfloat16", "float32", "float64"):
        assert GR.small_identity("elu", name) is None
    assert GR.small_identity("gelu", "e4m2") == "at t = 0x01 (0.00390625): σ(t) = 0x01 (0.00390625), σ'(t) = 0x18 (0.5)"
    assert GR.small_identity("gelu", "float32") == "the enclosures of σ and σ' do not show it on [4, 8] in float32"


# ------------------------------------------------------------------ offset mode (GELU, Swish)
def _exact_program(fmt, steps, y):
    from fpsmt.proofs.theorem_3_2_relu import Exact
    o = Exact(fmt)
    try:
        return T.eval_steps(steps, [fmt.to_fraction(y)], o.mul, o.add, o.const)
    except OverflowError:
        return None


def test_capped_program_computes_the_same_values():
    """cap_weights: every weight at most the cap, and at every finite y of float8_e5m2 the
    capped program gives the original's values (exact rationals, each operation rounded
    once); a cap the splitting ignored would show as a different value."""
    fmt = parse_format("float8_e5m2")
    _, steps = _smallest(fmt)
    cap = Fraction(4)
    capped = GR.cap_weights(steps, cap)
    assert len(capped) > len(steps)
    assert max(abs(w) for st in capped for u in st for _, w in u) <= cap < max(abs(w) for st in steps for u in st
                                                                              for _, w in u)
    for y in T.finite_values(fmt):
        assert _exact_program(fmt, capped, y) == _exact_program(fmt, steps, y), fmt.hex(y)


@pytest.mark.parametrize("act", ["gelu", "swish"])
def test_offset_mode_gated_network(act):
    """GELU and Swish (σ'(0) = 1/2) in float16: the chain's pre-activations at x = z are at
    least I (checked on the executor's run), every hidden layer is σ, and D(y) is the
    program's value at x = z and a zero at other x, at the thresholds' neighbours and 2,000
    other finite y (the whole network at every (x, y) is construct's check, run by the
    slow test below)."""
    import random

    import numpy as np

    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import run
    fmt = parse_format("float16")
    blocks, steps = _smallest(fmt)
    with RC.hidden_activation(act):
        c = RC.block_constants(fmt)
        assert not GR.gap_mode(c)
        chain = GR.chain_layers(fmt, Fraction(0), steps)
        net = GR.gated_program(fmt, Fraction(0), steps, chain=chain)
    assert {L.activation for L in net.layers[:-1]} == {act}
    A = concrete(fmt)
    tr = run(A, net, A.const(np.asarray([[0]], dtype=np.uint64)))
    names = [[n for n, _, _ in layer] for layer in chain]
    first = len(net.layers) - len(chain)
    for i, layer in enumerate(names[1:-1], start=1):  # the chain neurons' pre-activations at z
        pre = np.ravel(A.to_bits(tr.pre[first + i]))
        for j, n in enumerate(layer):
            if n[0] in "dnt":
                assert fmt.to_fraction(int(pre[j])) >= c.I, (i, n)
    ys = T.finite_values(fmt)
    near = [b for t, _ in blocks for q in (t, -t) for b in (fmt.round(q), fmt.next_up(fmt.round(q)),
                                                            fmt.next_down(fmt.round(q)))]
    sample = sorted(set(near) | set(random.Random(0).sample(ys, 2000)))
    xs = [0, fmt.sign_bit, fmt.round(Fraction(1)), fmt.next_up(0)]
    bad = [m for x in xs for m in T.mismatches(fmt, net, blocks, ys=sample, xs=[x], z=0)]
    assert bad == []


def test_offset_mode_check_fails_on_a_wrong_network():
    """The same check finds, in GELU's network, a twin's output weight doubled (f is no
    longer +0) and a top chain neuron's output weight doubled (the program's first step:
    D(y) wrong at x = z)."""
    fmt = parse_format("float16")
    blocks, steps = _smallest(fmt)
    with RC.hidden_activation("gelu"):
        net = GR.gated_program(fmt, Fraction(0), steps)
    ys = [fmt.round(q) for q in (1, -1, 2, Fraction(1, 2))] + [fmt.next_up(fmt.one_bits)]
    xs = [0, fmt.round(Fraction(1)), fmt.round(Fraction(-1))]
    assert T.mismatches(fmt, net, blocks, ys=ys, xs=xs) == []
    twin = _with_weight(net, net.depth - 1, 1, 2)
    assert any(w == "f(x)" for _, _, w, _, _ in T.mismatches(fmt, twin, blocks, ys=ys, xs=xs))
    top = _with_weight(net, net.depth - 1, 0, 2)
    assert any(w == "D(y)" and x == 0 for x, _, w, _, _ in T.mismatches(fmt, top, blocks, ys=ys, xs=xs))
