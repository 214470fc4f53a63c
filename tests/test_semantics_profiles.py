"""Semantics profiles (``--semantics``): summation orders, wide accumulation, framework
backward formulas — each in the executor, the exact reference and Z3, checked against a
scalar reference written here independently of the IR's fold, and the torch formulas
against torch's own autograd."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fpsmt.errors import InputError
from fpsmt.semantics.arith import ExactArith, concrete
from fpsmt.semantics.arith import exact as X
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import PAPER, Layer, Network, parse_semantics, run

from conftest import bits, uarr
from test_network import networks, run_all

F32 = parse_format("float32")
ORDER_PROFILES = ["order=left", "order=reversed", "order=pairwise", "order=blocked:2", "order=blocked:3",
                  "order=wide:float32", "order=pairwise,fold=+0"]
SMALL = [parse_format(n) for n in ("bfloat16", "float16", "float8_e4m3", "float8_e5m2")]


# --------------------------------------------------------- the scalar reference
def _tree(order, idx):
    """The order's bracketing of the term indices ``idx`` (written here, not imported)."""
    if order in ("left", "wide"):
        t = idx[0]
        for i in idx[1:]:
            t = (t, i)
        return t
    if order == "reversed":
        return _tree("left", idx[::-1])
    if order == "pairwise":
        if len(idx) == 1:
            return idx[0]
        m = len(idx) // 2
        return (_tree("pairwise", idx[:m]), _tree("pairwise", idx[m:]))
    if order.startswith("blocked:"):
        k = int(order.split(":")[1])
        return _tree("left", [_tree("left", idx[i:i + k]) for i in range(0, len(idx), k)])
    raise AssertionError(order)


def _to(src, dst, b):
    """b of src in dst, rounded once from its exact value."""
    if src.is_nan(b):
        return dst.nan_bits
    if src.is_inf(b):
        return dst.inf_bits(src.is_negative(b))
    if src.is_zero(b):
        return dst.zero_bits(src.is_negative(b))
    return dst.round(src.to_fraction(b))


def reference(net, x, y, order, fold_init="first"):
    """Forward value and D^AD of a dense ReLU/identity network, one scalar at a time."""
    f = net.fmt
    wide = order == "wide"
    acc = F32 if wide else f

    def row_sum(terms, bias):
        tree = _tree(order, list(range(len(terms))))

        def ev(t):
            return terms[t] if isinstance(t, int) else X.add(acc, ev(t[0]), ev(t[1]))
        s = ev(tree)
        if fold_init == "+0":
            s = X.add(acc, 0, s)
        if bias is not None:
            s = X.add(acc, s, bias)
        return _to(acc, f, s) if wide else s

    def prod(a, b):
        return X.mul(acc, _to(f, acc, a), _to(f, acc, b)) if wide else X.mul(f, a, b)
    Ws = [[[None] * L.n_in for _ in range(L.n_out)] for L in net.layers]
    for W, L in zip(Ws, net.layers):
        for i, j, w in zip(L.rows.tolist(), L.cols.tolist(), L.weights):
            W[i][j] = w
    h, zs = list(x), []
    for L, W in zip(net.layers, Ws):
        z = [row_sum([prod(W[i][j], h[j]) for j in range(L.n_in)], _to(f, acc, L.bias[i]) if wide else L.bias[i])
             for i in range(L.n_out)]
        zs.append(z)
        if L.activation == "relu":
            h = [f.nan_bits if f.is_nan(v) else (v if X.lt(f, 0, v) else 0) for v in z]
        else:
            h = z
    g = list(y)
    for L, W, z in reversed(list(zip(net.layers, Ws, zs))):
        if L.activation == "relu":
            d = [f.nan_bits if f.is_nan(v) else (f.one_bits if X.lt(f, 0, v) else 0) for v in z]
            g = [X.mul(f, gi, di) for gi, di in zip(g, d)]
        g = [row_sum([prod(g[i], W[i][j]) for i in range(L.n_out)], None) for j in range(L.n_in)]
    return [f.canonical(v) for v in h], [f.canonical(v) for v in g]


def _all_interpretations(net, x, y, sem):
    """{interpretation: (out, grad)} patterns: test_network's run_all under the profile, and
    the integer executor (the enumerations' confirming interpretation) in formats of at most
    16 bits."""
    from fpsmt.semantics.arith.integer import IntegerArith
    out = {k: v[:2] for k, v in run_all(net, x, y, sem).items()}
    fmt = net.fmt
    if fmt.nbits <= 16:
        A = IntegerArith(fmt)
        t = run(A, net, A.const(uarr(fmt, [x])), A.const(uarr(fmt, [y])), sem=sem)
        out["IntegerArith"] = ([fmt.canonical(int(v)) for v in np.ravel(A.to_bits(t.out))],
                               [fmt.canonical(int(v)) for v in np.ravel(A.to_bits(t.grad))])
    return out


@pytest.mark.parametrize("spec", ORDER_PROFILES)
@pytest.mark.parametrize("fmt", SMALL, ids=str)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_orders_agree_with_an_independent_scalar_reference(fmt, spec, data):
    net = data.draw(networks(fmt, max_width=5))
    x = [data.draw(bits(fmt)) for _ in range(net.n_in)]
    y = [data.draw(bits(fmt)) for _ in range(net.n_out)]
    sem = parse_semantics(spec).check(fmt)
    got = _all_interpretations(net, x, y, sem)
    order = "wide" if sem.wide else sem.order
    want = reference(net, x, y, order, sem.fold_init)
    for name, res in got.items():
        assert res == want, f"{name} under {spec} in {fmt}: {res} != reference {want}"


@pytest.mark.parametrize("spec", ["order=pairwise", "order=blocked:2", "order=wide:float32"])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_absent_entries_keep_the_dense_meaning_under_every_order(spec, data):
    """A sparse layer under a tree order or wide accumulation gives the bits of its dense
    form (absent entries +0): the absent zeros' sum does not depend on the bracketing."""
    from test_network import _dense_rows
    fmt = parse_format("bfloat16")
    sem = parse_semantics(spec)
    net = data.draw(networks(fmt, sparse=True, max_width=5))
    dense = Network(fmt, [Layer.dense(_dense_rows(L), L.bias, L.activation) for L in net.layers])
    x = [data.draw(bits(fmt)) for _ in range(net.n_in)]
    y = [data.draw(bits(fmt)) for _ in range(net.n_out)]
    assert _all_interpretations(net, x, y, sem) == _all_interpretations(dense, x, y, sem)


@pytest.mark.parametrize("spec,want", [("order=pairwise", 256.0), ("order=blocked:2", 256.0),
                                       ("order=blocked:3", 256.0)])
def test_a_sparse_row_follows_the_dense_order(spec, want):
    """Absent columns are +0 in the dense row the order brackets: (256 ⊕ 1) ⊕ (1 ⊕ +0) in
    bfloat16 is 256, where re-bracketing the three present terms alone would give
    256 ⊕ (1 ⊕ 1) = 258 (pairwise) — the order is the dense one, pruned."""
    from test_network import _dense_rows
    f = parse_format("bfloat16")
    sem = parse_semantics(spec)
    w = [f.from_float(v) for v in (256.0, 1.0, 1.0)]
    sparse = Network(f, [Layer(1, 4, [0, 0, 0], [0, 1, 2], w, [f.sign_bit], "identity")])
    dense = Network(f, [Layer.dense(_dense_rows(sparse.layers[0]), [f.sign_bit], "identity")])
    x, y = [f.one_bits] * 4, [f.one_bits]
    got = _all_interpretations(sparse, x, y, sem)
    assert got == _all_interpretations(dense, x, y, sem)
    assert {f.to_float(v[0][0]) for v in got.values()} == {want}
    assert reference(dense, x, y, sem.order)[0] == [f.from_float(want)]


def test_each_order_is_seen_by_two_rows():
    """Two bfloat16 rows on which the five orders give five different answers (so the
    tests above can fail); sums of 263 and 259.5 exactly."""
    f = parse_format("bfloat16")
    rows = [[128.0, 0.75, 0.5, 1.5, 3.0, 128.0], [0.5, 256.0, 0.75, 1.5, 1.0, 0.25]]
    net = Network(f, [Layer.dense([[f.from_float(v) for v in r] for r in rows], [f.sign_bit] * 2, "identity")])
    x, y = [f.one_bits] * 6, [f.one_bits] * 2
    sums = {}
    for spec in ["order=left", "order=reversed", "order=pairwise", "order=blocked:3", "order=wide:float32"]:
        got = _all_interpretations(net, x, y, parse_semantics(spec))
        assert len({tuple(v[0]) for v in got.values()}) == 1, got
        sums[spec] = tuple(f.to_float(b) for b in got["HostArith"][0])
    assert sums == {"order=left": (264.0, 260.0), "order=reversed": (260.0, 260.0),
                    "order=pairwise": (260.0, 258.0), "order=blocked:3": (262.0, 258.0),
                    "order=wide:float32": (262.0, 260.0)}


# ------------------------------------------------------------ backward formulas
def _scalar_backward(framework, act, f, g, z, y):
    """The framework formulas on exact scalars (written here from BRIEF §3 and the sources)."""
    one = f.one_bits
    sub = lambda a, b: X.add(f, a, X.neg(f, b))  # noqa: E731
    if framework == "torch":
        if act == "relu":
            return g if not X.le(f, y, 0) else 0
        if act == "sigmoid":
            return X.mul(f, X.mul(f, g, sub(one, y)), y)
        if act == "tanh":
            return X.mul(f, g, sub(one, X.mul(f, y, y)))
    if act == "relu":
        return g if X.lt(f, 0, z) else 0
    if act == "sigmoid":
        return X.mul(f, g, X.mul(f, y, sub(one, y)))
    if act == "tanh":
        c = X.mul(f, g, sub(one, y))
        return X.add(f, c, X.mul(f, c, y))
    if act == "elu":
        return g if X.lt(f, 0, z) else X.mul(f, g, X.add(f, y, one))
    raise AssertionError(act)


@pytest.mark.parametrize("framework,act", [("torch", "relu"), ("torch", "sigmoid"), ("torch", "tanh"),
                                           ("jax", "relu"), ("jax", "sigmoid"), ("jax", "tanh"), ("jax", "elu")])
@pytest.mark.parametrize("fmt", [parse_format("float8_e4m3"), parse_format("float8_e5m2")], ids=str)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_backward_formulas_match_scalar_formulas(framework, act, fmt, data):
    """In formats where the formula is computed step by step in the format, the one-layer
    network's D^AD is the scalar formula applied to (g, z, σ_F(z)), in every interpretation."""
    f = fmt
    sem = parse_semantics(f"backward={framework}").check(f, [act])
    net = Network(f, [Layer.dense([[f.one_bits]], [f.sign_bit], act), Layer.dense([[f.one_bits]], [f.sign_bit])])
    z, g = data.draw(bits(f)), data.draw(bits(f))
    got = _all_interpretations(net, [z], [g], sem)
    A = ExactArith(f)
    y = int(np.ravel(A.to_bits(run(A, net, A.const(uarr(f, [[z]]))).post[0]))[0])
    # D^AD = (the formula's value) ⊗ 1 summed over one row: the value itself
    want = _scalar_backward(framework, act, f, g, z, y)
    assert {k: v[1] for k, v in got.items()} == {k: [f.canonical(want)] for k in got}


def test_torch_formulas_match_torch_autograd_at_every_pattern():
    """backward=torch against torch's autograd (CPU), at every finite bfloat16 and float16
    pre-activation with random upstream gradients, given torch's own forward value y (its
    σ is not correctly rounded; the formula is what is compared).  ELU's exp is torch's
    float32 exp, which may differ from the correctly rounded one: the points that differ
    are exactly those where the two exps differ."""
    torch = pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    from fpsmt.semantics.network import BACKWARD_FORMULAS
    from fpsmt.semantics.activations import get_activation
    rng = np.random.default_rng(5)
    formula = BACKWARD_FORMULAS["torch"]
    checked = 0
    for name in ("bfloat16", "float16"):
        f = parse_format(name)
        tdt = getattr(torch, name)
        pats = np.arange(1 << 16, dtype=np.uint64)
        pats = pats[[not (f.is_nan(int(b)) or f.is_inf(int(b))) for b in pats]]
        gs = np.asarray([f.from_float(float(v)) for v in rng.normal(0, 4, len(pats))], dtype=np.uint64)
        A = concrete(f)
        for act, fn in (("relu", torch.relu), ("sigmoid", torch.sigmoid), ("tanh", torch.tanh),
                        ("elu", torch.nn.functional.elu)):
            zt = torch.from_numpy(pats.astype(np.uint16).view(np.int16)).view(tdt).clone().requires_grad_(True)
            gt = torch.from_numpy(gs.astype(np.uint16).view(np.int16)).view(tdt)
            yt = fn(zt)
            (dt,) = torch.autograd.grad(yt, zt, gt)
            want = dt.view(torch.int16).numpy().view(np.uint16).astype(np.uint64)
            yb = yt.detach().view(torch.int16).numpy().view(np.uint16).astype(np.uint64)
            got = A.to_bits(formula(A, get_activation(act), A.const(gs), A.const(pats), A.const(yb)))
            differ = np.nonzero(np.asarray(got, dtype=np.uint64) != want)[0]
            if act == "elu":  # explained exactly by torch's float32 exp
                neg = pats[differ]
                zf = torch.from_numpy(neg.astype(np.uint16).view(np.int16)).view(tdt).float()
                texp = torch.exp(zf).numpy()
                ours = np.asarray([F32.to_float(_exp32(f, int(b))) for b in neg], dtype=np.float32)
                assert (texp != ours).all(), f"{act} {name}: {len(differ)} points differ, not explained by exp"
            else:
                assert len(differ) == 0, (f"{act} {name}: {len(differ)} of {len(pats)} differ, first z="
                                          f"{f.hex(int(pats[differ[0]]))}: ours {f.hex(int(got[differ[0]]))}, "
                                          f"torch {f.hex(int(want[differ[0]]))}")
            checked += len(pats)
    assert checked > 4 * 60000


@pytest.mark.parametrize("act", ["sigmoid", "tanh", "relu"])
@pytest.mark.parametrize("fmt", [parse_format("bfloat16"), parse_format("float16")], ids=str)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_torch_formulas_in_float32_agree_in_every_interpretation(fmt, act, data):
    """Where torch computes the backward in float32 and rounds once (bfloat16; float16's
    tanh), the executor, the exact reference and Z3 (terms of two sorts) give one answer."""
    f = fmt
    sem = parse_semantics("backward=torch").check(f, [act])
    net = Network(f, [Layer.dense([[f.one_bits]], [f.sign_bit], act), Layer.dense([[f.one_bits]], [f.sign_bit])])
    z, g = data.draw(bits(f)), data.draw(bits(f))
    got = _all_interpretations(net, [z], [g], sem)
    assert len({tuple(v[1]) for v in got.values()}) == 1, got


def _exp32(f, b):
    """RNE_float32(e^z) for a pattern z of f (ELU'(z) for z <= 0, correctly rounded)."""
    from fpsmt.semantics.activations import get_activation
    W = concrete(F32)
    z = W.const(np.asarray([_to(f, F32, b)], dtype=np.uint64))
    return int(np.ravel(W.to_bits(get_activation("elu").derivative(W, z)))[0])


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize("spec,msg", [
    ("order=sideways", "unknown summation order"),
    ("order=blocked", "needs a block size"),
    ("order=blocked:0", "needs a block size"),
    ("order=pairwise:2", "takes no argument"),
    ("order=wide:float99", "unknown format"),
    ("backward=tensorflow", "unknown backward formula"),
    ("activation=ulp:0", "ulp:K needs an integer K"),
    ("activation=scipy", "unknown activation implementation"),
    ("colour=blue", "unknown semantics key"),
    ("order", "not key=value"),
    ("order=left,order=reversed", "given twice"),
])
def test_bad_profiles_are_refused_in_one_line(spec, msg):
    with pytest.raises(InputError, match=msg) as e:
        parse_semantics(spec)
    assert "\n" not in str(e.value)


def test_profiles_that_do_not_fit_the_network_are_refused_before_work():
    with pytest.raises(InputError, match="wider than float32"):
        parse_semantics("order=wide:float32").check(F32)
    with pytest.raises(InputError, match="wider than float64"):
        parse_semantics("order=wide:bfloat16").check(parse_format("float64"))
    with pytest.raises(InputError, match="has no formula for gelu"):
        parse_semantics("backward=torch").check(parse_format("bfloat16"), ["relu", "gelu"])
    parse_semantics("backward=torch").check(parse_format("bfloat16"), ["relu", "identity", "sigmoid"])
    with pytest.raises(InputError, match="as a tree"):
        parse_semantics("order=pairwise").sequence(3)


def test_the_spec_names_every_part_and_parses_back():
    for spec in ORDER_PROFILES + ["backward=torch", "backward=jax,order=reversed", ""]:
        sem = parse_semantics(spec)
        assert parse_semantics(sem.spec) == sem
    assert PAPER.spec == "order=left,backward=paper,activation=correct"


@pytest.mark.parametrize("spec", ["order=pairwise", "order=blocked:2", "order=reversed"])
def test_torch_export_follows_tree_orders(spec):
    """The scalar-operation module sums each row with the order's pruned plan: its bits are
    the executor's under the profile, and differ from the paper's order on this network."""
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    from fpsmt.commands import torch_export
    f = parse_format("bfloat16")
    rows = [[128.0, 0.75, 0.5, 1.5, 3.0, 128.0]]
    one = f.one_bits
    net = Network(f, [Layer.dense([[one]] * 7, [f.sign_bit] * 7, "relu"),  # column 6 of the top row is absent
                      Layer(1, 7, [0] * 6, list(range(6)), [f.from_float(v) for v in rows[0]], [f.sign_bit], "identity")])
    sem = parse_semantics(spec)
    A = concrete(f)
    xs = np.asarray([f.from_float(0.25 * i) for i in range(1, 40)], dtype=np.uint64)
    ys = np.asarray([one] * len(xs), dtype=np.uint64)
    outs = {}
    for s_ in (PAPER, sem):
        t = run(A, net, A.const(xs[:, None]), A.const(ys[:, None]), sem=s_)
        got, _ = torch_export.run(torch_export.scalar_network(net, s_), f, xs, ys)
        assert got.tolist() == [int(b) for b in np.ravel(A.to_bits(t.out))]
        outs[s_.spec] = got.tolist()
    assert outs[PAPER.spec] != outs[sem.spec]
    with pytest.raises(InputError, match="wide"):
        torch_export.scalar_network(net, parse_semantics("order=wide:float32"))


# ------------------------------------------------------------ activation implementations
def test_numpy_tables_are_numpys_values_in_the_formats_dtype():
    """activation=numpy's σ and σ' are NumPy's formulas evaluated in the format's dtype
    (ml_dtypes), recomputed here, and they differ from the correctly rounded ones."""
    import ml_dtypes
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.activations.implementations import table
    f = parse_format("bfloat16")
    pats = np.arange(0, 1 << 16, 97, dtype=np.uint64)
    pats = pats[[not f.is_nan(int(b)) for b in pats]]
    x = pats.astype(np.uint16).view(ml_dtypes.bfloat16)
    with np.errstate(all="ignore"):
        s = 1 / (1 + np.exp(-x))
        d = s * (1 - s)
    t = table(get_activation("sigmoid"), f, "numpy")
    assert np.array_equal(t[pats.astype(np.int64), 0], s.view(np.uint16).astype(np.uint64))
    assert np.array_equal(t[pats.astype(np.int64), 1], d.view(np.uint16).astype(np.uint64))
    A = concrete(f)
    correct = A.to_bits(get_activation("sigmoid").value(A, A.const(pats)))
    assert (np.asarray(correct, dtype=np.uint64) != t[pats.astype(np.int64), 0]).any()


def test_torch_tables_are_torchs_values():
    torch = pytest.importorskip("torch")  # the optional extra fpsmt[torch]; CI installs it
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.activations.implementations import table
    f = parse_format("float16")
    pats = np.arange(0, 1 << 16, 89, dtype=np.uint64)
    pats = pats[[not f.is_nan(int(b)) for b in pats]]
    t = torch.from_numpy(pats.astype(np.uint16).view(np.int16)).view(torch.float16).clone().requires_grad_(True)
    y = torch.tanh(t)
    y.backward(torch.ones_like(y))
    tab = table(get_activation("tanh"), f, "torch")
    assert np.array_equal(tab[pats.astype(np.int64), 0], y.detach().view(torch.int16).numpy().view(np.uint16))
    assert np.array_equal(tab[pats.astype(np.int64), 1], t.grad.view(torch.int16).numpy().view(np.uint16))


@pytest.mark.parametrize("act", ["sigmoid", "tanh", "elu", "gelu"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_implementations_agree_in_every_interpretation(act, data):
    f = parse_format("float8_e4m3")
    sem = parse_semantics("activation=numpy").check(f, [act])
    w = [data.draw(bits(f)) for _ in range(4)]
    net = Network(f, [Layer.dense([[w[0]], [w[1]]], [f.sign_bit, w[2]], act),
                      Layer.dense([[w[3], f.one_bits]], [f.sign_bit], "identity")])
    z, g = data.draw(bits(f)), data.draw(bits(f))
    got = _all_interpretations(net, [z], [g], sem)
    assert len({(tuple(v[0]), tuple(v[1])) for v in got.values()}) == 1, got


def test_implementations_that_do_not_apply_are_refused():
    with pytest.raises(InputError, match="at most 16 bits"):
        parse_semantics("activation=numpy").check(F32, ["sigmoid"])
    with pytest.raises(InputError, match="PyTorch has"):
        parse_semantics("activation=torch").check(parse_format("float8_e4m3"), ["tanh"])
    with pytest.raises(InputError, match="not modelled"):
        parse_semantics("activation=numpy,backward=torch").check(parse_format("bfloat16"), ["elu"])
    parse_semantics("activation=numpy").check(parse_format("bfloat16"), ["identity", "relu", "gelu"])


# ------------------------------------------------------------------- order=any
ANY_CLAIMS = '''from fpsmt.proof.claims import Float, forall, order_variables
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Layer, Network


def net(f):
    w = [f.from_float(v) for v in (256.0, 1.0, 1.0)]
    return Network(f, [Layer.dense([w], [f.sign_bit], "identity")])


PERM = order_variables(net(parse_format("bfloat16")))


def _given(s):
    return [s.any_order(net(s.fmt))[1]]


def _sum(s):
    choices, _ = s.any_order(net(s.fmt))
    out, _ = s.run(net(s.fmt), [s.x, s.x, s.x], [s.const(1)], choices=choices)
    return out[0]


every_order_256 = forall("every_order_256", {"x": Float(finite=True), **PERM}, given=_given,
                         goal=lambda s: [s.x.eq(1).implies(_sum(s).eq(256))], semantics="order=any")
every_order_256_or_258 = forall("every_order_256_or_258", {"x": Float(finite=True), **PERM}, given=_given,
                                goal=lambda s: [s.x.eq(1).implies(_sum(s).eq(256) | _sum(s).eq(258))],
                                semantics="order=any")
'''


def test_order_any_is_a_claim_over_every_permutation(tmp_path):
    """256·x ⊕ x ⊕ x at x = 1 in bfloat16 under every order of the three terms: not always
    256 (REFUTED: the counterexample names a permutation that adds the two 1s first, and
    replays), always 256 or 258 (PROVED)."""
    from conftest import fpsmt
    (tmp_path / "c.py").write_text(ANY_CLAIMS)
    r = fpsmt("prove", str(tmp_path / "c.py"), "--format", "bfloat16", "--store", str(tmp_path / "s.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    got = {d["claim"]: d for d in json.loads(r.stdout)}
    bad = got["every_order_256"]
    assert bad["status"] == "REFUTED" and bad["semantics"].startswith("order=any")
    w = bad["witness"]
    perm = [int(w[f"perm0f0_{k}"]) for k in range(3)]
    assert sorted(perm) == [0, 1, 2] and perm[2] == 0  # 256 (term 0) comes last: 1 ⊕ 1 first
    assert got["every_order_256_or_258"]["status"] == "PROVED"


def test_order_any_is_refused_where_it_cannot_run():
    from fpsmt.semantics.network import any_order_variables
    with pytest.raises(InputError, match="a run needs one order"):
        parse_semantics("order=any").check(parse_format("bfloat16"), ["relu"])
    f = parse_format("bfloat16")
    wide = Network(f, [Layer.dense([[f.one_bits] * 9], [f.sign_bit], "identity")])
    with pytest.raises(InputError, match="row of 9 terms"):
        any_order_variables(wide)
    A = concrete(f)
    with pytest.raises(InputError, match="needs a permutation"):
        run(A, Network(f, [Layer.dense([[f.one_bits] * 3], [f.sign_bit], "identity")]),
            A.const(np.asarray([[f.one_bits] * 3], dtype=np.uint64)), sem=parse_semantics("order=any"))


@pytest.mark.parametrize("src, dst", [("float8_e4m3", "float32"), ("float8_e5m2", "float8_e4m3"),
                                      ("float8_e4m3", "float8_e5m2"), ("bfloat16", "float32"),
                                      ("bfloat16", "float8_e5m2"), ("float16", "bfloat16")])
def test_the_integer_executor_converts_as_the_rationals_do(src, dst):
    """IntegerArith.convert (integer significand and exponent, rounded once by the integer
    RNE) against formats.convert_patterns (the patterns' rationals) at every pattern."""
    from fpsmt.semantics.arith.integer import IntegerArith
    from fpsmt.semantics.formats import convert_patterns
    fa, fb = parse_format(src), parse_format(dst)
    A, B = IntegerArith(fa), IntegerArith(fb)
    pats = np.arange(1 << fa.nbits, dtype=np.uint64)
    got = np.ravel(B.to_bits(B.convert(A, A.const(pats)))).tolist()
    want = convert_patterns(fa, fb, pats.astype(object)).tolist()
    bad = [(hex(int(p)), hex(int(g)), hex(int(w))) for p, g, w in zip(pats.tolist(), got, want)
           if fb.canonical(int(g)) != fb.canonical(int(w))]
    assert not bad, bad[:5]


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_order_reversed_is_one_of_order_any_s_orders(data):
    """A run under order=any with every row's permutation reversed gives order=reversed's
    bits, sparse rows and the bias included: so a network that misses a target under
    order=reversed refutes a claim made for every order (the Theorem 3.1 rows under
    order=any)."""
    from fpsmt.semantics.network import any_order_variables
    fmt = data.draw(st.sampled_from(SMALL))
    net = data.draw(networks(fmt, sparse=True, max_width=5))
    x = [data.draw(bits(fmt)) for _ in range(net.n_in)]
    y = [data.draw(bits(fmt)) for _ in range(net.n_out)]
    perms = {}
    for _, (k, direction, row, _, n) in any_order_variables(net).items():
        perms.setdefault((k, direction), {})[row] = list(range(n))[::-1]
    A = concrete(fmt)
    X_, Y_ = A.const(uarr(fmt, [x])), A.const(uarr(fmt, [y]))
    t_any = run(A, net, X_, Y_, sem=parse_semantics("order=any"), choices=perms)
    t_rev = run(A, net, X_, Y_, sem=parse_semantics("order=reversed"))
    for a, b in ((t_any.out, t_rev.out), (t_any.grad, t_rev.grad)):
        assert [fmt.canonical(int(v)) for v in np.ravel(A.to_bits(a))] == \
            [fmt.canonical(int(v)) for v in np.ravel(A.to_bits(b))]
