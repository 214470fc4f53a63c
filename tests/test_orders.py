"""The summation order lives in one place: an order registered by one function is followed
by the executor, the Z3 encoding, the block-aware verification and the PyTorch export."""

from fractions import Fraction

import numpy as np
import pytest

from fpsmt.constructions import relu as C
from fpsmt.constructions.blockrun import blockwise
from fpsmt.semantics import network as N
from fpsmt.semantics.arith import ExactArith, Z3Arith, concrete
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Layer, Network, Semantics, run


@pytest.fixture
def reversed_order(monkeypatch):
    """A test-only order, registered in one function: right to left."""
    monkeypatch.setattr(N, "ORDERS", dict(N.ORDERS))
    monkeypatch.setattr(N, "_DENSE", {})
    N.summation_order("test_reversed")(lambda n: range(n - 1, -1, -1))
    return Semantics(order="test_reversed")


def _sum_net(f):
    """One row: 256·x1 + 1·x2 + 1·x3 (bfloat16: left to right 256, right to left 258)."""
    w = [f.from_float(256.0), f.from_float(1.0), f.from_float(1.0)]
    return Network(f, [Layer.dense([w], [f.sign_bit], "identity")])


def test_executor_and_z3_follow_a_registered_order(reversed_order):
    f = parse_format("bfloat16")
    net = _sum_net(f)
    x = np.asarray([[f.one_bits] * 3], dtype=np.uint64)
    y = np.asarray([[f.one_bits]], dtype=np.uint64)
    got = {}
    for name, A in (("executor", concrete(f)), ("exact", ExactArith(f))):
        for label, sem in (("left", N.PAPER), ("reversed", reversed_order)):
            t = run(A, net, A.const(x), A.const(y), sem=sem)
            got[name, label] = int(np.ravel(A.to_bits(t.out))[0])
    Z = Z3Arith(f)
    for label, sem in (("left", N.PAPER), ("reversed", reversed_order)):
        t = run(Z, net, Z.const(x), Z.const(y), sem=sem)
        got["z3", label] = int(np.ravel(Z.to_bits(t.out))[0])
    assert {got[k, "left"] for k in ("executor", "exact", "z3")} == {f.from_float(256.0)}
    assert {got[k, "reversed"] for k in ("executor", "exact", "z3")} == {f.from_float(258.0)}
    # an independent fold, right to left, exact rationals rounded once per addition
    s = f.to_fraction(f.one_bits)
    s = f.round(s + Fraction(1))
    s = f.round(f.to_fraction(s) + 256)
    assert s == got["executor", "reversed"]


def test_unknown_and_bad_orders_are_refused(reversed_order):
    from fpsmt.errors import InputError
    with pytest.raises(InputError, match="unknown summation order"):
        Semantics(order="nope")
    N.summation_order("test_bad")(lambda n: [0] * n)
    with pytest.raises(InputError, match="not a permutation"):
        Semantics(order="test_bad").sequence(3)


def _theorem(f):
    pts = [(f.from_float(v), f.from_float(fv), f.from_float(h), f.from_float(g))
           for v, fv, h, g in [(0.5, 3.0, 1.0, -2.0), (1.0, 2.0 ** -20, 2.0, 0.25), (1.5, 5.0, 1.0, 0.0),
                               (2.0, 0.125, 1.0, 7.0)]]
    return C.theorem_network(f, pts), pts


def test_block_aware_evaluation_follows_a_registered_order(reversed_order):
    f = parse_format("bfloat16")
    net, pts = _theorem(f)
    A = concrete(f)
    xs = np.asarray([p[0] for p in pts] + [f.from_float(0.75)], dtype=np.uint64)
    ys = np.asarray([p[2] for p in pts] + [f.one_bits], dtype=np.uint64)
    differs = False
    for sem in (N.PAPER, reversed_order):
        v, g = blockwise(A, net, A.const(xs), A.const(ys), sem=sem)
        t = run(A, net, A.const(xs[:, None]), A.const(ys[:, None]), sem=sem)
        assert np.array_equal(A.to_bits(v), A.to_bits(t.out[:, 0]))
        assert np.array_equal(A.to_bits(g), A.to_bits(t.grad[:, 0]))
        if sem is N.PAPER:
            left = (A.to_bits(v), A.to_bits(g))
        else:
            differs = not (np.array_equal(left[0], A.to_bits(v)) and np.array_equal(left[1], A.to_bits(g)))
    assert differs, "the reversed order gave the paper's bits at every point: the test network does not see the order"


def test_torch_export_follows_a_registered_order(reversed_order):
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    from fpsmt.commands import torch_export
    f = parse_format("bfloat16")
    one, w = f.one_bits, [f.from_float(256.0), f.from_float(1.0), f.from_float(1.0)]
    net = Network(f, [Layer.dense([[one], [one], [one]], [f.sign_bit] * 3, "relu"),
                      Layer.dense([w], [f.sign_bit], "identity")])
    A = concrete(f)
    xs = np.asarray([one, f.from_float(3.0)], dtype=np.uint64)
    ys = np.asarray([one, one], dtype=np.uint64)
    outs = {}
    for sem in (N.PAPER, reversed_order):
        t = run(A, net, A.const(xs[:, None]), A.const(ys[:, None]), sem=sem)
        got, _ = torch_export.run(torch_export.scalar_network(net, sem), f, xs, ys)
        assert got.tolist() == [int(b) for b in np.ravel(A.to_bits(t.out))]
        outs[sem.order] = got.tolist()
    assert outs["left"] != outs["test_reversed"]
