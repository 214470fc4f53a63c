"""One semantics, three interpretations: executor == Z3 (folded) == exact reference.

Random small ReLU networks (depth 1-4, width 1-4), random inputs and upstream
gradients including subnormals, ±0, extremes, ±inf and NaN, in every named format:
forward values, every pre-activation and D^AD agree bit for bit (NaN equal to NaN).
For float32 and float64 they also equal NumPy scalar arithmetic in the same order.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpsmt.semantics.arith import ExactArith, Z3Arith, concrete, fold_bits
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import PAPER, Layer, Network, Param, Semantics, run

from conftest import NAMED_FORMATS, bits, uarr


@st.composite
def networks(draw, fmt, sparse=False, max_depth=4, max_width=4):
    depth = draw(st.integers(1, max_depth))
    widths = [draw(st.integers(1, max_width)) for _ in range(depth + 1)]
    layers = []
    for li in range(depth):
        n_in, n_out = widths[li], widths[li + 1]
        cells = [(i, j) for i in range(n_out) for j in range(n_in)]
        if sparse:
            keep = draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
            cells = [c for c, k in zip(cells, keep) if k]
        ws = [draw(bits(fmt)) for _ in cells]
        b = [draw(bits(fmt)) for _ in range(n_out)]
        act = "identity" if li == depth - 1 else "relu"
        layers.append(Layer(n_out, n_in, [c[0] for c in cells], [c[1] for c in cells], ws, b, act))
    return Network(fmt, layers)


def run_all(net, x, y, sem=PAPER):
    """(out, grad, pre-activations) as canonical patterns, per interpretation."""
    fmt = net.fmt
    results = {}
    for A in (concrete(fmt), ExactArith(fmt)):
        t = run(A, net, A.const(uarr(fmt, [x])), A.const(uarr(fmt, [y])), sem=sem)
        results[type(A).__name__] = (
            [fmt.canonical(int(v)) for v in np.ravel(A.to_bits(t.out))],
            [fmt.canonical(int(v)) for v in np.ravel(A.to_bits(t.grad))],
            [[fmt.canonical(int(v)) for v in np.ravel(A.to_bits(z))] for z in t.pre])
    Z = Z3Arith(fmt)
    t = run(Z, net, Z.const(x), Z.const(y), sem=sem)
    results["z3"] = ([fold_bits(fmt, v) for v in np.ravel(t.out)], [fold_bits(fmt, v) for v in np.ravel(t.grad)],
                     [[fold_bits(fmt, v) for v in np.ravel(z)] for z in t.pre])
    return results


def _agree(results, fmt):
    names = list(results)
    first = results[names[0]]
    for n in names[1:]:
        assert results[n] == first, f"{names[0]} vs {n} in {fmt}:\n{first}\n{results[n]}"
    return first


@pytest.mark.parametrize("fmt", NAMED_FORMATS, ids=str)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_three_interpretations_agree(fmt, data):
    net = data.draw(networks(fmt))
    x = [data.draw(bits(fmt)) for _ in range(net.n_in)]
    y = [data.draw(bits(fmt)) for _ in range(net.n_out)]
    out, grad, pre = _agree(run_all(net, x, y), fmt)
    if fmt.name in ("float32", "float64"):
        assert (out, grad) == numpy_scalar_reference(net, x, y)


@pytest.mark.parametrize("fmt", NAMED_FORMATS, ids=str)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_sparse_equals_dense(fmt, data):
    """Absent entries are +0 with the dense semantics: the densified net gives the same bits."""
    net = data.draw(networks(fmt, sparse=True))
    dense = Network(fmt, [Layer.dense(_dense_rows(layer), layer.bias, layer.activation) for layer in net.layers])
    x = [data.draw(bits(fmt)) for _ in range(net.n_in)]
    y = [data.draw(bits(fmt)) for _ in range(net.n_out)]
    assert _agree(run_all(net, x, y), fmt) == _agree(run_all(dense, x, y), fmt)


def _dense_rows(layer):
    W = [[0] * layer.n_in for _ in range(layer.n_out)]
    for i, j, w in zip(layer.rows.tolist(), layer.cols.tolist(), layer.weights):
        W[i][j] = w
    return W


def numpy_scalar_reference(net, x, y):
    """The paper's order with NumPy float32/float64 scalars, written independently of fpsmt."""
    fmt = net.fmt
    ft, ut = (np.float32, np.uint32) if fmt.nbits == 32 else (np.float64, np.uint64)

    def val(b):
        return np.array([b], dtype=ut).view(ft)[0]

    def pat(v):
        return fmt.nan_bits if np.isnan(v) else int(np.array([v], dtype=ft).view(ut)[0])
    Ws = [_dense_rows(layer) for layer in net.layers]
    with np.errstate(all="ignore"):
        h = [val(b) for b in x]
        zs = []
        for layer, W in zip(net.layers, Ws):
            z = []
            for i in range(layer.n_out):
                s = val(W[i][0]) * h[0]
                for j in range(1, layer.n_in):
                    s = s + val(W[i][j]) * h[j]
                z.append(s + val(layer.bias[i]))
            zs.append(z)
            if layer.activation == "relu":
                h = [v if v > 0 else (v if np.isnan(v) else ft(0)) for v in z]
            else:
                h = z
        g = [val(b) for b in y]
        for layer, W, z in reversed(list(zip(net.layers, Ws, zs))):
            if layer.activation == "relu":
                g = [gi * (ft(1) if zi > 0 else (zi if np.isnan(zi) else ft(0))) for gi, zi in zip(g, z)]
            gin = []
            for j in range(layer.n_in):
                s = g[0] * val(W[0][j])
                for i in range(1, layer.n_out):
                    s = s + g[i] * val(W[i][j])
                gin.append(s)
            g = gin
    return [pat(v) for v in h], [pat(v) for v in g]


# ------------------------------------------------------------ fixed facts
def test_relu_conventions():
    from fpsmt.semantics.formats import parse_format
    f = parse_format("bfloat16")
    A = concrete(f)
    cases = [0x3f80, 0x0000, 0x8000, 0xbf80, 0xff80, 0x7f80, 0x7fc0, 0x0001]
    z = A.const(uarr(f, cases))
    from fpsmt.semantics.activations import get_activation
    r = get_activation("relu")
    assert [int(v) for v in A.to_bits(r.value(A, z))] == [0x3f80, 0, 0, 0, 0, 0x7f80, f.nan_bits, 0x0001]
    assert [int(v) for v in A.to_bits(r.derivative(A, z))] == [0x3f80, 0, 0, 0, 0, 0x3f80, f.nan_bits, 0x3f80]


def test_fold_start_matters_only_for_negative_zero():
    """All products −0: 'first' (= start from −0) gives −0 ⊕ b, '+0' gives +0 ⊕ b."""
    from fpsmt.semantics.formats import parse_format
    f = parse_format("float16")
    net = Network(f, [Layer.dense([[0x3c00, 0x3c00]], [0x8000], "identity")])  # 1*x1 + 1*x2 + (-0)
    x = [0x8000, 0x8000]
    first = _agree(run_all(net, x, [0x3c00]), f)
    plus0 = _agree(run_all(net, x, [0x3c00], sem=Semantics(fold_init="+0")), f)
    assert first[0] == [0x8000] and plus0[0] == [0x0000]
    x = [0x3c00, 0x4000]
    assert _agree(run_all(net, x, [0x3c00]), f)[:2] == _agree(run_all(net, x, [0x3c00], Semantics(fold_init="+0")), f)[:2]


def test_decoupling_example_brief_5_0():
    """BRIEF §5.0: value identically 0, gradient y ⊗ w, for every x with |w⊗x| < ulp(B)/2."""
    from fpsmt.semantics.formats import parse_format
    f = parse_format("bfloat16")
    B, w = f.from_float(384.0), f.from_float(2.0 ** -10)
    net = Network(f, [Layer.dense([[w]], [B], "relu"), Layer.dense([[f.one_bits]], [B ^ f.sign_bit], "identity")])
    A = concrete(f)
    xs = np.array([b for b in range(1 << 16) if f.is_finite(b) and abs(f.to_fraction(b)) <= 1023], dtype=np.uint64)
    ys = np.full(len(xs), f.from_float(-3.0), dtype=np.uint64)
    t = run(A, net, A.const(xs[:, None]), A.const(ys[:, None]))
    assert set(int(v) for v in A.to_bits(t.out).ravel()) == {0}
    assert set(int(v) for v in A.to_bits(t.grad).ravel()) == {f.from_float(-3.0 * 2.0 ** -10)}


def test_symbolic_params_need_values_in_the_executor():
    from fpsmt.errors import InputError
    from fpsmt.semantics.formats import parse_format
    f = parse_format("bfloat16")
    net = Network(f, [Layer.dense([[Param("w")]], [0], "relu")])
    A = concrete(f)
    with pytest.raises(InputError):
        run(A, net, A.const(uarr(f, [[0x3f80]])))
    t = run(A, net, A.const(uarr(f, [[0x4000]])), params={"w": A.const(uarr(f, 0x4000))})
    assert int(A.to_bits(t.out).ravel()[0]) == 0x4080


@pytest.mark.parametrize("fmt", ["float64", "bfloat16", "float8_e4m3"])
def test_absent_entries_count_per_row_and_column(fmt):
    """A layer whose rows each have one entry, in different columns (the pattern's first
    position is every row, with a column per row): the sum of the absent +0 terms must be
    counted per (row, column) pair.  Backward at upstream (1, 1): column 0 receives
    1 ⊗ (+0, absent) ⊕ 1 ⊗ (−0) = +0, as the dense layer gives.  (A regression: counting
    by position once credited a row with every column of its position.)"""
    f = parse_format(fmt)

    def net(rows, cols, weights):
        return Network(f, [Layer(n_out=2, n_in=2, rows=np.array(rows), cols=np.array(cols), weights=weights,
                                 bias=[0, 0], activation="identity")])
    A = concrete(f)
    one = A.const(np.full((1, 2), f.one_bits, dtype=np.uint64))
    sparse = net([0, 1], [1, 0], [0, f.sign_bit])
    dense = net([0, 0, 1, 1], [0, 1, 0, 1], [0, 0, f.sign_bit, 0])
    gs, gd = (np.asarray(A.to_bits(run(A, n, one, one).grad)).tolist() for n in (sparse, dense))
    assert gs == gd == [[0, 0]]
