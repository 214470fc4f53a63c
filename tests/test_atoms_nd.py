"""The d-dimensional atoms' lemmas (proofs/zero_gradient_atom_nd.py, gradient_atom_nd.py,
coordinates_nd.py): each row PROVED in E3M2, and each failing on a wrong construction with
a replayed counterexample; the premises the trees' joins argue from, checked on built
networks for d = 2, 3, 4 — the stages' networks are the whole's slices, the rows that sum
over the coordinates take the killers in the order the induction folds them, and every
absent term of the whole is a zero."""

import random

import numpy as np
import pytest
from conftest import atoms_inside_whole

from fpsmt.constructions import relu as C, relu_nd as N
from fpsmt.proof import lemmas
from fpsmt.proof.engine import Engine
from fpsmt.semantics.arith import concrete as executor
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One results store for the module's PROVED rows: the trees share stages (the step
    blocks, the fold, the 1-D chain), decided once as in ``fpsmt reproduce``."""
    from fpsmt.proof.store import Store
    return Store(tmp_path_factory.mktemp("nd") / "results.sqlite")


def _row(name, fmt="E3M2", built=None, store=None):
    lemma = lemmas.load(name)
    return lemmas._row(Engine(solver="portfolio", timeout=300, confirm=True, store=store), name, lemma, "repaired",
                       parse_format(fmt), None, built)


def _failed(row):
    return [n for n in row["tree"]["children"] if n.get("status") == "REFUTED"] if row.get("tree") else []


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_zero_gradient_atom_nd_tree_proved(store):
    r = _row("zero_gradient_atom_nd", store=store)
    assert r["status"] == "PROVED", r.get("reason")
    assert "every d <= 32768" in r["statement"]


def _halved_killer_weight(monkeypatch):
    """The atom with its killers' weight −|v|/2: at x_j = z_j a killer stays on."""
    real = N.zero_gradient_atom

    def wrong(s, *args):
        net, P = real(s, *args)
        return net, {**P, "nb": P["nb"] * s.const(0.5)}
    monkeypatch.setattr(N, "zero_gradient_atom", wrong)


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_zero_gradient_atom_nd_tree_refutes_a_wrong_killer(monkeypatch):
    _halved_killer_weight(monkeypatch)
    r = _row("zero_gradient_atom_nd")
    assert r["status"] == "REFUTED", r
    assert "zero_gradient_atom_nd.coordinate" in r["statement"] and r["counterexample"], r
    fmt = parse_format("E3M2")
    cx = r["counterexample"]
    assert all(v.startswith("0x") for v in cx.values())
    # a killer of weight −|v|/2 is |v|/2 where its indicator is 1 (+0 neither at x = z nor
    # elsewhere): only v != 0 tells the halved weight from the right one
    assert {"z", "x", "v"} <= set(cx) and not fmt.is_zero(int(cx["v"], 16)), cx


@pytest.mark.slow
@pytest.mark.soundness
def test_zero_gradient_atom_nd_whole_d2_proved():
    """The built d = 2 atom as one claim, decided whole (no tree, no argued join): it
    agrees with the tree's PROVED row."""
    from fpsmt.proofs import zero_gradient_atom_nd as Z
    r = _row("zero_gradient_atom_nd", built=Z.block(2)(parse_format("E3M2"), None))
    assert r["status"] == "PROVED", r.get("reason")


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_zero_gradient_atom_nd_whole_d2_refutes_a_wrong_killer(monkeypatch):
    from fpsmt.proofs import zero_gradient_atom_nd as Z
    _halved_killer_weight(monkeypatch)
    r = _row("zero_gradient_atom_nd", built=Z.block(2)(parse_format("E3M2"), None))
    assert r["status"] == "REFUTED" and r["counterexample"], r


def test_coordinates_nd_proved_and_a_row_kind_with_too_large_a_bias_refuted():
    from fpsmt.proofs import coordinates_nd as K
    r = _row("coordinates_nd")
    assert r["status"] == "PROVED", r.get("reason")
    fmt = parse_format("E3M2")
    C_ = C.killer_constant(fmt)
    # a row whose bias exceeds its killer (1.5 C against C): a killer no longer turns it off
    bad = K._use("bad", "bias 1.5 C", {}, lambda s: -s.const(0), lambda s: s.const(C_), lambda s: s.const(-C_),
                 lambda s: s.const(C_ * 3 / 2)).claim
    r = Engine(solver="portfolio", timeout=60).prove(bad, fmt, {bad.name: bad})
    assert r.status == "REFUTED" and "S" in r.witness and r.reason == "counterexample replayed", r


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_gradient_atom_nd_tree_proved(store):
    r = _row("gradient_atom_nd", store=store)
    assert r["status"] == "PROVED", r.get("reason")
    assert "every d <= 32768" in r["statement"]


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_theorem_3_1_relu_nd_proved(store):
    r = _row("theorem_3_1_relu_nd", store=store)
    assert r["status"] == "PROVED", r.get("reason")
    names = {n["name"] for n in r["tree"]["children"]}
    assert {"zero_gradient_atom_nd", "gradient_atom_nd", "boxplus_neutrality"} <= names, names


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_gradient_atom_nd_tree_refutes_a_wrong_collapse(monkeypatch):
    """G1's bias C/2 instead of C: at x != z the gate gives (+0, C/2, +0), not the 1-D
    gate's (+0, C, +0)."""
    real = N.gradient_atom

    def wrong(i):
        def build(s, *args):
            net, P = real(i)(s, *args)
            layer = net.layers[7]
            layer.bias = list(layer.bias)
            layer.bias[1] = s.fmt.round(C.killer_constant(s.fmt) / 2)
            return net, P
        return build
    monkeypatch.setattr(N, "gradient_atom", wrong)
    r = _row("gradient_atom_nd")
    assert r["status"] == "REFUTED" and "gradient_atom_nd.collapse" in r["statement"], r
    assert r["counterexample"]


@pytest.mark.slow
def test_gradient_atom_nd_whole_d2_proved():
    from fpsmt.proofs import gradient_atom_nd as G
    r = _row("gradient_atom_nd", built=G.claims(2, parse_format("E3M2")))
    assert r["status"] == "PROVED", r.get("reason")


# ------------------------------------------------------------------ the joins' premises
def _point(fmt, d, rng):
    xs = [b for b in range(1 << fmt.nbits) if fmt.is_finite(b) and abs(fmt.to_fraction(b)) <= C.constants(fmt).M_sigma]
    return [rng.choice(xs) for _ in range(d)], xs


def _entries(L, row):
    k = np.nonzero(L.rows == row)[0]
    return [(int(L.cols[i]), L.weights[i]) for i in k], L.bias[row]


@pytest.mark.parametrize("d", [2, 3, 4])
def test_zero_gradient_atom_nd_layers_are_the_stages(d):
    """Layers 0–4: pair j's rows are the step blocks' (reading x_j, then their own rows);
    layer 5: coordinate j's killers are the rows ``coordinate`` runs (the d = 1 atom's
    layer 5); layer 6: N sums the 2d killers in column order (the fold's order) with weight
    −1 and bias |v|; layer 7 is the d = 1 atom's."""
    fmt = parse_format("bfloat16")
    rng = random.Random(d)
    zs, _ = _point(fmt, d, rng)
    v = fmt.round(-2.5)
    net = C.concrete(N.zero_gradient_atom, fmt, *zs, v)
    assert len(net.layers) == 8
    for j, z in enumerate(zs):
        for r, block in ((2 * j, C.concrete(C.step_ge, fmt, z)), (2 * j + 1, C.concrete(C.step_le, fmt, z))):
            for k in range(5):
                (entries, bias), (want, want_bias) = _entries(net.layers[k], r), _entries(block.layers[k], 0)
                assert [w for _, w in entries] == [w for _, w in want] and bias == want_bias
                assert [c for c, _ in entries] == [j if k == 0 else r]
                assert net.layers[k].activation == block.layers[k].activation
        one = C.concrete(N.zero_gradient_atom, fmt, z, v).layers[5]
        for a in range(2):
            (entries, bias), (want, want_bias) = _entries(net.layers[5], 2 * j + a), _entries(one, a)
            assert entries == [(c + 2 * j, w) for c, w in want] and bias == want_bias
    top = net.layers[6]
    entries, bias = _entries(top, 0)
    assert entries == [(c, fmt.round(-1)) for c in range(2 * d)] and bias == fmt.round(2.5)
    assert top.activation == "relu" and net.layers[7].weights == C.concrete(N.zero_gradient_atom, fmt, zs[0], v).layers[7].weights


@pytest.mark.parametrize("d", [2, 3, 4])
def test_gradient_atom_nd_layers_are_the_stages(d):
    """Layers 0–4: the step pairs and T (the T stage's rows, on x_i); layer 5: T and each
    coordinate's killers (the d = 1 atom's layer 5, columns shifted); layer 6: A sums the 2d
    killers in column order with weight −1 and bias C (the fold, then ``collapse``'s
    layer 6); layers 7 on: the d = 1 atom's, and from layer 8 on the 1-D atom's layers 6 on
    (its gate row, chain and output), weights and biases bit for bit."""
    fmt = parse_format("bfloat16")
    rng = random.Random(100 + d)
    zs, _ = _point(fmt, d, rng)
    h, g = fmt.round(-1.5), fmt.round(0.375)
    for i in range(d):
        net = C.concrete(N.gradient_atom(i), fmt, *zs, h, g)
        one = C.concrete(N.gradient_atom(0), fmt, zs[i], h, g)
        one_d = C.concrete(C.gradient_atom, fmt, zs[i], h, g)
        assert len(net.layers) == N.depth(fmt) == len(one_d.layers) + 2
        T = 2 * d
        for k in range(5):
            (entries, bias), (want, want_bias) = _entries(net.layers[k], T), _entries(one.layers[k], 2)
            assert [w for _, w in entries] == [w for _, w in want] and bias == want_bias
            assert [c for c, _ in entries] == [i if k == 0 else T]
        L5 = net.layers[5]
        assert _entries(L5, 0) == ([(T, w) for _, w in _entries(one.layers[5], 0)[0]], _entries(one.layers[5], 0)[1])
        for j in range(d):
            one_j = C.concrete(N.gradient_atom(0), fmt, zs[j], h, g).layers[5]
            for a in (1, 2):
                entries, bias = _entries(L5, 2 * j + a)
                want, want_bias = _entries(one_j, a)
                assert entries == [(c + 2 * j, w) for c, w in want] and bias == want_bias
        entries, bias = _entries(net.layers[6], 1)
        assert entries == [(c, fmt.round(-1)) for c in range(1, 2 * d + 1)]
        assert bias == fmt.round(C.killer_constant(fmt)) and net.layers[6].activation == "relu"
        assert _entries(net.layers[6], 0) == _entries(one.layers[6], 0)
        for k in range(7, len(net.layers)):
            a, b = net.layers[k], one.layers[k]
            assert (list(a.rows), list(a.cols), a.weights, a.bias, a.activation) == \
                (list(b.rows), list(b.cols), b.weights, b.bias, b.activation)
        for a, b in zip(net.layers[8:], one_d.layers[6:]):
            assert (list(a.rows), list(a.cols), a.weights, a.bias, a.activation) == \
                (list(b.rows), list(b.cols), b.weights, b.bias, b.activation)


@pytest.mark.parametrize("d,kind", [(2, "zga"), (3, "zga"), (2, "ga"), (3, "ga")])
def test_every_absent_term_of_the_whole_is_a_zero(d, kind):
    """The whole d-dimensional atom at points with x = z, one coordinate off and all off,
    upstreams of both signs: every absent term, forward and backward, is ±0 (what the
    stand-ins of the stages cover), and the atom's value and D^AD are the lemma's."""
    fmt = parse_format("bfloat16")
    A = executor(fmt)
    rng = random.Random(10 * d + (kind == "ga"))
    for _ in range(6):
        zs, xs_all = _point(fmt, d, rng)
        v, h, g = fmt.round(rng.choice([-3.0, 0.5, 7.0])), fmt.round(rng.choice([-1.5, 2.0])), fmt.round(0.75)
        i = rng.randrange(d)
        net = C.concrete(N.zero_gradient_atom, fmt, *zs, v) if kind == "zga" else \
            C.concrete(N.gradient_atom(i), fmt, *zs, h, g)
        xs = [list(zs), [rng.choice(xs_all) if j == 0 else zs[j] for j in range(d)], [rng.choice(xs_all) for _ in zs]]
        for x in xs:
            at = all(fmt.to_fraction(a) == fmt.to_fraction(b) for a, b in zip(x, zs))
            y = h if (kind == "ga" and at) else fmt.round(rng.choice([-5.0, 3.0]))
            t = run(A, net, A.const(np.asarray([x], dtype=np.uint64)), A.const(np.asarray([[y]], dtype=np.uint64)),
                    keep_absent=True)
            for fwd, bwd in t.absent:
                for term in list(fwd.values()) + list(bwd.values()):
                    assert fmt.is_zero(int(np.ravel(A.to_bits(term))[0]))
            out = int(np.ravel(A.to_bits(t.out))[0])
            grad = [int(b) for b in np.ravel(A.to_bits(t.grad))]
            if kind == "zga":
                assert (out == v) if at else fmt.is_zero(out)
                assert all(fmt.is_zero(b) for b in grad)
            else:
                assert fmt.is_zero(out)
                assert all(fmt.is_zero(b) for j, b in enumerate(grad) if j != i or not at)
                if at:
                    assert grad[i] == g


@pytest.mark.parametrize("d", [2, 3])
def test_every_atom_inside_the_d_dimensional_theorem_network_is_itself(d):
    """What approx.congruence proves, seen in the executor (as tests/test_tree.py does for
    d = 1): in relu_nd.theorem_network every hidden layer's values and gradients of each
    atom are, bit for bit or as zeros, those of the atom alone, at points on and off the
    domain with upstreams of both signs; the network meets every target."""
    fmt = parse_format("bfloat16")
    A = executor(fmt)
    r = fmt.round
    rng = random.Random(7 + d)
    _, xs_all = _point(fmt, d, rng)
    pts = []
    for k in range(4):
        z = tuple(r(float(k - 1) / 2 + j) for j in range(d))
        g = tuple(r(0) if (k + j) % 3 == 0 else r(0.5 * (j + 1) - k) for j in range(d))
        pts.append((z, r(k - 1.5), r(1) if k % 2 else r(-2), g))
    whole = N.theorem_network(fmt, pts)
    depth = N.depth(fmt)
    atoms = []
    for i in range(d):
        for z, _, h, g in pts:
            if not fmt.is_zero(g[i]):
                atoms.append(C.boxplus_copies(fmt, [C.block_copies(N.gradient_atom(i), fmt,
                                                                   [[b] for b in z] + [[h], [g[i]]], depth)]))
    atoms += [C.boxplus_copies(fmt, [C.block_copies(N.zero_gradient_atom, fmt, [[b] for b in z] + [[v]], depth)])
              for z, v, _, _ in pts]
    xs = [list(p[0]) for p in pts] + [[rng.choice(xs_all) for _ in range(d)] for _ in range(4)] + \
        [[pts[0][0][0]] + [fmt.next_up(b) for b in pts[0][0][1:]]]
    ys = [r(1), r(-2), r(0.25)]
    X = np.asarray([x for x in xs for _ in ys], dtype=np.uint64)
    Y = np.asarray([[y] for _ in xs for y in ys], dtype=np.uint64)
    _, _, tw = atoms_inside_whole(A, whole, atoms, X, Y, depth)
    out, grad = A.to_bits(tw.out), A.to_bits(tw.grad)
    for row, (z, v, h, g) in enumerate(pts):
        at = row * len(ys) + ys.index(h)  # x = z with upstream h*(z)
        assert int(out[at][0]) == v or (fmt.is_zero(v) and fmt.is_zero(int(out[at][0])))
        for j in range(d):
            got = int(grad[at][j])
            assert got == g[j] or (fmt.is_zero(g[j]) and fmt.is_zero(got)), (row, j)
