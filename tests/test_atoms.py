"""The gradient atom, the multiplication transfer, ⊞ and the Theorem 3.1 network
(fpsmt.constructions.relu), checked in the executor independently of any solver, and the staged
lemmas (proofs/) discharged in an 8-bit format."""

from fractions import Fraction

import numpy as np
import pytest

from fpsmt.constructions import relu as C
from fpsmt.semantics.arith import concrete as executor
from fpsmt.proof.claims import F, Scope
from fpsmt.proof.engine import Engine
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import run
from fpsmt.proof.lemmas import load

from conftest import x_domain as _x_domain


def _num(f, b):
    return f.to_fraction(int(b))


def _atom_ok(f, z, h, g, xs):
    """Run the repaired gradient atom at every x of ``xs``: upstream h at x = z (as a number:
    −0 and +0 are one point), Ω elsewhere.  Returns the x where value or D^AD is wrong."""
    A = executor(f)
    net = C.concrete(C.gradient_atom, f, z, h, g)
    at = np.array([_num(f, x) == _num(f, z) for x in xs])
    ys = np.where(at, h, f.max_bits).astype(np.uint64)
    t = run(A, net, A.const(xs)[:, None], A.const(ys[:, None]))
    out, grad = np.ravel(A.to_bits(t.out)), np.ravel(A.to_bits(t.grad))
    bad = [x for x, o, d, a in zip(xs, out, grad, at)
           if not (f.is_zero(int(o)) and (int(d) == g if a else f.is_zero(int(d))))]
    return bad, net


def _specials(f):
    top = f.round(Fraction(2) ** (f.e_max - 2))
    return [0, f.sign_bit, 1, f.sign_bit | 1, 1 << f.M, top, top | f.sign_bit, f.one_bits, f.next_down(top)]


HG = [("1", "1"), ("omega", "Omega"), ("-Omega", "omega"), ("Omega", "-Omega"), ("-omega", "-1.5"),
      ("0.75", "-0.0001")]


def _val(f, s):
    neg = s.startswith("-")
    body = s.lstrip("-")
    b = {"omega": 1, "Omega": f.max_bits}.get(body)
    if b is None:
        b = f.round(Fraction(body))
    return b | f.sign_bit if neg else b


@pytest.mark.parametrize("h,g", [pytest.param(h, g, marks=() if k == 1 else pytest.mark.slow)
                                 for k, (h, g) in enumerate(HG)])
def test_bfloat16_gradient_atom_every_x(h, g):
    f = parse_format("bfloat16")
    xs = _x_domain(f)
    for z in _specials(f)[::2]:
        bad, net = _atom_ok(f, z, _val(f, h), _val(f, g), xs)
        assert not bad, (f.show(z), [f.show(int(x)) for x in bad[:3]])
    assert net.depth == C.gradient_atom_depth(f)


def _sampled_x(f, z, n, seed):
    """z, its neighbours, the specials of X and n random floats of X, as patterns."""
    rng = np.random.default_rng(seed)
    top = Fraction(2) ** (f.e_max - 2)
    xs = {z, f.next_up(z), f.next_down(z), *_specials(f)}
    while len(xs) < n:
        b = int(rng.integers(0, (1 << f.nbits) - 1, dtype=np.uint64, endpoint=True))
        if f.is_finite(b) and abs(f.to_fraction(b)) <= top:
            xs.add(b)
    return np.asarray(sorted(b for b in xs if f.is_finite(b) and abs(f.to_fraction(b)) <= top), dtype=np.uint64)


@pytest.mark.parametrize("fmt", ["float32", "float64"])
def test_gradient_atom_wide_formats_at_sampled_x(fmt):
    """float32 (significand route) and float64 (subnormal route): for every special z and
    every (h, g) of HG, value +0 everywhere and D^AD = g exactly at z, ±0 at 300 other x."""
    f = parse_format(fmt)
    for i, z in enumerate(_specials(f)):
        xs = _sampled_x(f, z, 300, i)
        for h, g in HG:
            bad, net = _atom_ok(f, z, _val(f, h), _val(f, g), xs)
            assert not bad, (f.show(z), h, g, [f.show(int(x)) for x in bad[:3]])
    assert net.depth == C.gradient_atom_depth(f)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["float8_e4m3", "float8_e5m2", "float8_e3m4"])
def test_8_bit_gradient_atom_every_z_every_x(fmt):
    f = parse_format(fmt)
    xs = _x_domain(f)
    rng = np.random.default_rng(5)
    finite = [b for b in range(1 << f.nbits) if f.is_finite(b) and not f.is_zero(b)]
    pairs = [(_val(f, h), _val(f, g)) for h, g in HG[:4]] + [tuple(int(v) for v in rng.choice(finite, 2))]
    for z in xs:
        for h, g in pairs:
            bad, _ = _atom_ok(f, int(z), h, g, xs)
            assert not bad, (f.show(int(z)), f.show(h), f.show(g))


def test_transfer_every_h_every_g_8_bit():
    """The whole chain h → g, for all 2^16 pairs of nonzero finite e4m3 floats at once."""
    f = parse_format("float8_e4m3")
    A = executor(f)
    nz = [b for b in range(256) if f.is_finite(b) and not f.is_zero(b)]
    hh, gg = (np.asarray(v, dtype=np.uint64).ravel() for v in np.meshgrid(nz, nz))
    s = Scope(A, f, {})
    h, g = F(s, A.const(hh)), F(s, A.const(gg))
    w_out, chain = C.transfer_weights(s, h, g)
    v = h * w_out
    for w in chain:
        v = v * w
        assert np.asarray(v.is_finite().v).all() and not np.asarray(v.is_zero().v).any()
    assert (np.ravel(A.to_bits(v.v)) == gg).all()
    assert (np.asarray((w_out <= 1).v)).all()


def _normalize_h(fmt):
    """Every nonzero finite h of a format of at most 16 bits; else the extremes, every
    binade's first and last significands and 2^16 random patterns."""
    f = parse_format(fmt)
    if f.nbits <= 16:
        bits = np.arange(1 << f.nbits, dtype=np.uint64)
    else:
        rng = np.random.default_rng(11)
        top = (1 << (f.nbits - 1)) - 1
        edges = [(e << f.M) + d for e in range(1 << (f.nbits - 1 - f.M)) for d in (0, 1, (1 << f.M) - 1)]
        rand = rng.integers(0, top, size=1 << 16, dtype=np.uint64, endpoint=True)
        mag = np.concatenate([np.asarray([e for e in edges if e <= top], dtype=np.uint64), rand])
        bits = np.concatenate([mag, mag | np.uint64(f.sign_bit)])
    return f, np.asarray([b for b in bits.tolist() if f.is_finite(b) and not f.is_zero(b)], dtype=np.uint64)


@pytest.mark.parametrize("fmt", ["bfloat16", "float16", "float32", "float64"])
def test_normalize_takes_every_h_to_its_sign(fmt):
    """h ⊗ w_out ⊗ mids = sign(h)·1 (in float64 through ±ω or ±2ω), run in the executor:
    every h of the 16-bit formats; edges and 2^17 random h of float32 and float64."""
    f, hh = _normalize_h(fmt)
    A = executor(f)
    s = Scope(A, f, {})
    h = F(s, A.const(hh))
    w_out, mids = C.normalize_weights(s, h)
    v = h * w_out
    sign = hh & np.uint64(f.sign_bit)
    for i, w in enumerate(mids):
        v = v * w
        assert np.asarray(v.is_finite().v).all() and not np.asarray(v.is_zero().v).any()
        if i == 0 and C.transfer_route(f) == "subnormal":
            mag = np.ravel(A.to_bits(v.v)) & np.uint64(f.sign_bit - 1)
            assert set(np.unique(mag).tolist()) <= {1, 2}  # ω and 2ω
    assert (np.ravel(A.to_bits(v.v)) == (sign | np.uint64(f.one_bits))).all()
    assert (np.asarray((w_out <= 1).v)).all()
    assert C.transfer_route(f) == ("subnormal" if fmt == "float64" else "significand")
    assert len(mids) == C.transfer_slots(f)[0] + (1 if fmt == "float64" else 2)


def test_transfer_float32_significand_step_is_exact_where_sampled():
    f = parse_format("float32")
    A = executor(f)
    s = Scope(A, f, {})
    ms = np.arange(0x3F800000, 0x40000000, 997, dtype=np.uint64)
    m = F(s, A.const(ms))
    a, b = C.significand_weights(s, m)
    assert (np.ravel(A.to_bits(((m * a) * b).v)) == f.one_bits).all()


def _theorem_points(f, n, seed):
    rng = np.random.default_rng(seed)
    top = Fraction(2) ** (f.e_max - 2)

    def rnd(ok):
        while True:
            b = int(rng.integers(0, (1 << f.nbits) - 1, dtype=np.uint64, endpoint=True))
            if f.is_finite(b) and ok(b):
                return b
    zs = []
    while len(zs) < n:
        z = rnd(lambda b: abs(f.to_fraction(b)) <= top)
        if all(_num(f, z) != _num(f, w) for w in zs):
            zs.append(z)
    pts = []
    for i, z in enumerate(zs):
        v, h, g = rnd(lambda b: True), rnd(lambda b: True), rnd(lambda b: True)
        if i % 5 == 0:
            h, g = 0, 0  # zero upstream: zero target gradient
        elif i % 7 == 0:
            g = f.sign_bit  # a zero target gradient with a nonzero upstream
        elif i % 3 == 0:
            v = f.sign_bit | f.max_bits  # the most negative value
        if f.is_zero(h):
            g = 0
        pts.append((z, v, h, g))
    return pts


def _matches(f, got, want):
    return _num(f, got) == _num(f, want) if f.is_zero(want) else got == want


@pytest.mark.parametrize("fmt,n", [("bfloat16", 40), ("float32", 24), ("float8_e4m3", 30), ("float8_e3m4", 12)])
def test_theorem_network_is_bit_exact(fmt, n):
    f = parse_format(fmt)
    A = executor(f)
    pts = _theorem_points(f, n, 2)
    net = C.theorem_network(f, pts)
    xs = np.asarray([p[0] for p in pts], dtype=np.uint64)
    t = run(A, net, A.const(xs)[:, None], A.const(np.asarray([[p[2]] for p in pts], dtype=np.uint64)))
    out, grad = np.ravel(A.to_bits(t.out)), np.ravel(A.to_bits(t.grad))
    for p, o, d in zip(pts, out, grad):
        assert _matches(f, int(o), p[1]) and _matches(f, int(d), p[3]), [f.show(v) for v in p]
    assert net.depth == C.gradient_atom_depth(f)


@pytest.mark.parametrize("fmt,n", [("bfloat16", 30), ("float32", 12), ("float8_e4m3", 30), ("float8_e3m4", 12)])
def test_theorem_network_is_the_boxplus_of_its_atoms(fmt, n):
    """theorem_network builds all atoms at once with array operations: it must be exactly
    the ⊞ of the atoms built one by one."""
    f = parse_format(fmt)
    pts = _theorem_points(f, n, 5)
    ref, _ = C.boxplus([(C.concrete(C.gradient_atom, f, z, h, g), {}) for z, _, h, g in pts if not f.is_zero(g)]
                       + [(C.concrete(C.zero_gradient_atom, f, z, v), {}) for z, v, _, _ in pts])
    net = C.theorem_network(f, pts)
    assert net.depth == ref.depth
    for L, R in zip(net.layers, ref.layers):
        assert (L.n_out, L.n_in, L.activation) == (R.n_out, R.n_in, R.activation)
        assert L.rows.tolist() == R.rows.tolist() and L.cols.tolist() == R.cols.tolist()
        assert [int(w) for w in L.weights] == [int(w) for w in R.weights]
        assert [int(b) for b in L.bias] == [int(b) for b in R.bias]


def test_boxplus_pads_and_orders():
    f = parse_format("float32")
    a = C.concrete(C.zero_gradient_atom, f, f.from_float(1.0), f.from_float(2.0))
    b = C.concrete(C.gradient_atom, f, f.from_float(1.0), f.from_float(1.0), f.from_float(3.0))
    net, params = C.boxplus([(b, {}), (a, {})])
    assert params == {} and net.depth == b.depth and net.n_out == 1
    last = net.layers[-1]
    assert list(last.cols) == sorted(last.cols) and len(last.weights) == 3  # b's two terms, then a's one
    with pytest.raises(Exception, match="−0"):
        bad = C.concrete(C.point, f, f.from_float(1.0))  # output bias −1
        C.boxplus([(bad, {}), (a, {})])


@pytest.mark.parametrize("name", [pytest.param("gradient_atom", marks=pytest.mark.slow), pytest.param("zero_gradient_atom", marks=pytest.mark.slow),
                                  "multiplication_transfer", "boxplus_neutrality"])
def test_staged_lemmas_prove_in_e4m3(name):
    f = parse_format("float8_e4m3")
    statement = load(name).build("repaired", f)[1]
    claims = load(name).claims("repaired", f)
    eng = Engine(solver="portfolio", timeout=300)
    registry = {c.name: c for c in claims}
    for c in claims:
        r = eng.prove(c, f, registry)
        assert r.status == "PROVED", (c.name, r.reason)
    assert "for every" in statement or "for all" in statement


@pytest.mark.parametrize("bad,word", [
    ([(0x3F80, 0, 0, 0x3F80)], "h* = 0"), ([(0x3F80, 0, 0, 0), (0x3F80, 0, 0, 0)], "twice"),
    ([(0, 0, 0, 0), (0x8000, 0, 0, 0)], "twice"), ([(0x7F00, 0, 0, 0)], "outside X"),
    ([(0, 0x7F80, 0, 0)], "not finite"), ([], "empty")])
def test_theorem_network_rejects_bad_targets(bad, word):
    from fpsmt.errors import InputError
    with pytest.raises(InputError, match=word):
        C.theorem_network(parse_format("bfloat16"), bad)


def test_8_bit_gradient_atom_every_x_at_sampled_z():
    """The default-suite slice of the exhaustive check (all z: slow suite)."""
    f = parse_format("float8_e3m4")
    xs = _x_domain(f)
    for z in xs[::7]:
        for h, g in HG[:4]:
            bad, _ = _atom_ok(f, int(z), _val(f, h), _val(f, g), xs)
            assert not bad, (f.show(int(z)), h, g)
