"""``construct --depth L`` (ReLU, 1-D and d-dimensional): the Theorem 3.1 network padded to
any depth at or above its least — every atom by copies of its last hidden layer, which
boxplus_neutrality.padding proves for any number of copies — verified bit for bit; below
the least, above the padding's bound, or for a family whose lemmas state one depth, one
line and exit 2.  The other families' padding: tests/test_family_depth.py."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import fpsmt, grid_targets_nd, targets_csv_nd, x_domain

from fpsmt.commands import construct_nd, netio, targets
from fpsmt.constructions import relu, relu_nd
from fpsmt.errors import InputError
from fpsmt.semantics.arith import ExactArith
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run


def _points(fmt, n=None):
    xs = [int(b) for b in x_domain(fmt) if b != fmt.sign_bit]
    if n is not None:
        xs = [xs[round(i * (len(xs) - 1) / (n - 1))] for i in range(n)]
    r = lambda v: fmt.round(Fraction(v))  # noqa: E731
    return [(x, r(math.sin(float(fmt.to_fraction(x)))), r(1.0) if i % 3 else r(-0.5),
             r(0.0) if i % 5 == 2 else r(-math.cos(float(fmt.to_fraction(x))))) for i, x in enumerate(xs)]


def _exact_misses(fmt, net, pts):
    """The points where the exact reference, on ``net``, misses a target."""
    A = ExactArith(fmt)
    t = run(A, net, A.const(np.asarray([[p[0]] for p in pts], dtype=object)),
            A.const(np.asarray([[p[2]] for p in pts], dtype=object)))
    return [p[0] for p, o, g in zip(pts, A.to_bits(t.out), A.to_bits(t.grad))
            if not (targets.meets(fmt, int(o[0]), p[1]) and targets.meets(fmt, int(g[0]), p[3]))]


def test_padded_network_meets_every_target():
    """float8_e4m3: on every x of X the network padded by 5 layers meets every target in
    the executor (whole and from each point's own atoms); on 12 points spread over X, in
    the exact reference too."""
    fmt = parse_format("float8_e4m3")
    L = relu.least_depth(fmt) + 5
    pts = _points(fmt)
    net = relu.theorem_network(fmt, pts, depth=L)
    assert net.depth == L
    assert targets.verify(fmt, net, pts)[0] == []
    assert targets.verify_atoms(fmt, net, pts, net, relu.atom_kinds(fmt, pts, depth=L))[0] == []
    few = _points(fmt, 12)
    assert _exact_misses(fmt, relu.theorem_network(fmt, few, depth=L), few) == []


def test_a_wrong_padding_copy_is_caught():
    """One padding copy of the first gradient atom's carried neurons one bit off (its
    weight 1 → 1 + ulp): that atom's point misses, in the executor and the exact
    reference alike, and no other point does."""
    fmt = parse_format("float8_e4m3")
    pts = _points(fmt, 12)
    least = relu.least_depth(fmt)
    net = relu.theorem_network(fmt, pts, depth=least + 3)
    pad = net.layers[least - 1]  # the first copy: after the least depth's last hidden layer
    assert all(int(w) == fmt.from_float(1.0) for w in pad.weights) and np.array_equal(pad.rows, pad.cols)
    e = int(np.flatnonzero(pad.rows == 0)[0])  # row 0: the first gradient atom's first carried neuron
    pad.weights[e] = int(pad.weights[e]) ^ 0x1
    first_ga = next(p[0] for p in pts if not fmt.is_zero(p[3]))
    assert [b["x"] for b in targets.verify(fmt, net, pts)[0]] == [fmt.hex(first_ga)]
    assert _exact_misses(fmt, net, pts) == [first_ga]


def test_padded_d_dimensional_network():
    """d = 2 (float8_e4m3): padded by 3 layers, both evaluations meet every component."""
    fmt = parse_format("float8_e4m3")
    pts = grid_targets_nd(fmt, 2, [-2.0, 0.0, 1.0, 3.0])
    L = relu_nd.least_depth(fmt) + 3
    net = relu_nd.theorem_network(fmt, pts, depth=L)
    assert net.depth == L
    assert construct_nd.verify(fmt, net, pts)[0] == []
    assert targets.verify_atoms(fmt, net, pts, net, relu_nd.atom_kinds(fmt, pts, depth=L))[0] == []


def test_construct_depth_end_to_end(tmp_path):
    """The CLI, 1-D and 2-D: the file has L layers, its least depth named, every point met."""
    fmt = parse_format("bfloat16")
    out = tmp_path / "n.safetensors"
    L = relu.least_depth(fmt) + 7
    r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", "bfloat16", "--depth", str(L),
              "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["depth"] == L and doc["least_depth"] == relu.least_depth(fmt) and doc["mismatches"] == []
    assert netio.load_network(out).depth == L and f"padded from the least, {doc['least_depth']}" in r.stderr
    fmt = parse_format("float8_e4m3")
    L = relu_nd.least_depth(fmt)
    csv = targets_csv_nd(tmp_path, fmt, grid_targets_nd(fmt, 2, [0.0, 1.0]))
    r = fpsmt("construct", "--targets", str(csv), "--format", "float8_e4m3", "--depth", str(L + 2),
              "--out", str(tmp_path / "m.json"), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["depth"] == L + 2 and doc["least_depth"] == relu_nd.least_depth(fmt) and doc["verified"] == 4


@pytest.mark.parametrize("extra,word", [
    (["--depth", "6"], "--depth 6: the relu network in float8_e4m3 needs at least"),
    (["--depth", "12", "--activation", "sigmoid", "--variant", "shallow"],
     "--depth 12: the sigmoid network in float8_e4m3 needs at least 13 layers"),
    (["--depth", "9", "--activation", "tanh"], "--depth 9: the tanh network in float8_e4m3 needs at least 15 layers"),
    (["--depth", "5000", "--activation", "gelu"], "covers at most 2048 layers above the least depth 23"),
])
def test_construct_depth_refusals(tmp_path, extra, word):
    r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", "float8_e4m3", "--out",
              str(tmp_path / "n.json"), *extra)
    assert r.returncode == 2 and word in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "n.json").exists()


def test_depth_below_the_least_names_it(tmp_path):
    fmt = parse_format("bfloat16")
    with pytest.raises(InputError, match=f"needs at least {relu.least_depth(fmt)} layers"):
        relu.theorem_network(fmt, _points(fmt, 5), depth=7)
    r = fpsmt("construct", "--targets", "example:gradient_clipping.py", "--format", "float8_e4m3", "--out",
              str(tmp_path / "n.json"), "--depth", "40")
    assert r.returncode == 2 and "--depth pads Theorem 3.1 networks" in r.stderr and not (tmp_path / "n.json").exists()
