"""Activations: exact values, correct rounding against an independent evaluation,
encodings that agree with the table, user-defined activations."""

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from fpsmt.semantics.activations import get_activation
from fpsmt.semantics.arith import symbolic_functions
from fpsmt.semantics.activations.realfun import BUILTIN
from fpsmt.semantics.activations.rounding import correctly_rounded, table
from fpsmt.semantics.arith import concrete
from fpsmt.proof.engine import PROVED, REFUTED, Engine
from fpsmt.errors import InputError
from fpsmt.semantics.formats import parse_format

from conftest import NAMED_FORMATS

HERE = Path(__file__).resolve().parent
SMALL = [f for f in NAMED_FORMATS if f.nbits == 8]
SIXTEEN = [f for f in NAMED_FORMATS if f.nbits == 16]
NAMES = sorted(BUILTIN)


# ------------------------------------------------------------ an independent reference
def reference(name, x, which):
    """σ or σ' with mpmath's own functions at 400 bits (not fpsmt's interval context),
    in forms without cancellation (1 − s written as 1/(1 + e^x), and so on)."""
    mp = mpmath.mp
    e = max(0, int(mpmath.floor(mpmath.log(abs(mpmath.mpf(x)), 2)))) if x else 0
    with mpmath.workprec(400 + 3 * e):  # exp(-x^2/2) needs more bits as x grows
        x = mpmath.mpf(x)
        s, sn = 1 / (1 + mp.exp(-x)), 1 / (1 + mp.exp(x))
        if name == "relu":
            return (x if x > 0 else 0) if which == "value" else (1 if x > 0 else 0)
        if name == "leaky_relu":
            return (x if x > 0 else x / 100) if which == "value" else (1 if x > 0 else mpmath.mpf(1) / 100)
        if name in ("elu", "selu"):
            a, l = (1, 1) if name == "elu" else (mpmath.mpf("1.6732632423543772848170429916717"),
                                                  mpmath.mpf("1.0507009873554804934193349852946"))
            if which == "value":
                return l * (x if x > 0 else a * mp.expm1(x))
            return l * (1 if x > 0 else a * mp.exp(x))
        if name == "gelu":
            Phi = mp.erfc(-x / mp.sqrt(2)) / 2
            return x * Phi if which == "value" else Phi + x * mp.npdf(x)
        if name == "gelu_tanh":
            u = mp.sqrt(2 / mp.pi) * (x + mpmath.mpf("0.044715") * x ** 3)
            half = 1 / (1 + mp.exp(-2 * u))  # (1 + tanh u) / 2
            if which == "value":
                return x * half
            return half + x * mp.sech(u) ** 2 / 2 * mp.sqrt(2 / mp.pi) * (1 + 3 * mpmath.mpf("0.044715") * x ** 2)
        if name == "swish":
            return x * s if which == "value" else s * (1 + x * sn)
        if name == "mish":
            sp = mp.log1p(mp.exp(x))
            return x * mp.tanh(sp) if which == "value" else mp.tanh(sp) + x * mp.sech(sp) ** 2 * s
        if name == "sigmoid":
            return s if which == "value" else s * sn
        if name == "tanh":
            return mp.tanh(x) if which == "value" else mp.sech(x) ** 2
        if name == "softplus":
            return mp.log1p(mp.exp(x)) if which == "value" else s
        if name == "sin":
            return mp.sin(x) if which == "value" else mp.cos(x)
        if name == "cos":
            return mp.cos(x) if which == "value" else -mp.sin(x)
    raise KeyError(name)


def reference_bits(fmt, name, b, which):
    if fmt.is_nan(b):
        return fmt.nan_bits
    if fmt.is_inf(b):
        return None  # limits are checked separately
    q = fmt.to_fraction(b)
    try:
        v = reference(name, mpmath.mpf(q.numerator) / q.denominator, which)
    except OverflowError:  # mpmath's own erfc overflows for huge arguments: no reference there
        return None
    v = mpmath.mpf(v)
    if v == 0:
        return "zero"  # mpmath may flush an astronomically small value to 0: sign unknown
    man, exp = v.man_exp
    if exp + man.bit_length() < fmt.e_min - fmt.M - 2:  # far below omega/2: a signed zero
        return fmt.zero_bits(v < 0)
    if exp + man.bit_length() > fmt.e_max + 2:
        return fmt.inf_bits(v < 0)
    return fmt.round(Fraction(man) * Fraction(2) ** exp * (1 if v > 0 else -1))


@pytest.mark.parametrize("fmt", SMALL, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_table_against_reference_8_bit(fmt, name):
    _check_table(fmt, name)


def _check_table(fmt, name):
    """Every entry of the table against the independent reference."""
    t = table(BUILTIN[name], fmt)
    for b in range(1 << fmt.nbits):
        for col, which in enumerate(("value", "derivative")):
            _check(fmt, name, b, which, int(t[b, col]))


def _check(fmt, name, b, which, got):
    want = reference_bits(fmt, name, b, which)
    if want == "zero":
        assert fmt.is_zero(got), (name, which, fmt.show(b), fmt.show(got))
    elif want is not None:
        assert fmt.canonical(got) == want, (name, which, fmt.show(b), fmt.show(got))


@pytest.mark.parametrize("fmt", SIXTEEN + [parse_format("float32"), parse_format("float64")], ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_sampled_against_reference(fmt, name):
    rng = np.random.default_rng(len(name))
    pats = rng.integers(0, (1 << fmt.nbits) - 1, 12, dtype=np.uint64, endpoint=True).tolist()
    pats += [fmt.from_float(v) for v in (0.5, -0.5, 3.0, -3.0, 1e-3, -7.25)]
    for b in pats:
        for which in ("value", "derivative"):
            _check(fmt, name, int(b), which, correctly_rounded(BUILTIN[name], fmt, int(b), which))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", SIXTEEN, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_table_against_reference_16_bit(fmt, name):
    _check_table(fmt, name)


def test_known_exact_values_and_limits():
    f = parse_format("float32")
    cr = lambda n, x, w="value": correctly_rounded(BUILTIN[n], f, f.from_float(x), w)  # noqa: E731
    assert cr("sigmoid", 0.0) == f.from_float(0.5) and cr("sigmoid", 0.0, "derivative") == f.from_float(0.25)
    assert cr("tanh", 0.0) == 0 and cr("tanh", 0.0, "derivative") == f.one_bits
    assert cr("gelu", 0.0, "derivative") == f.from_float(0.5) and cr("swish", 0.0, "derivative") == f.from_float(0.5)
    assert cr("mish", 0.0, "derivative") == f.round(Fraction(3, 5))
    assert cr("relu", 0.0, "derivative") == 0 and cr("elu", 0.0, "derivative") == f.one_bits
    assert cr("selu", 0.0, "derivative") == f.round(Fraction("1.6732632423543772848170429916717")
                                                   * Fraction("1.0507009873554804934193349852946"))
    assert cr("cos", 0.0) == f.one_bits and cr("softplus", 0.0, "derivative") == f.from_float(0.5)
    inf, ninf = f.inf_bits(), f.inf_bits(True)
    assert correctly_rounded(BUILTIN["sigmoid"], f, ninf) == 0
    assert correctly_rounded(BUILTIN["tanh"], f, inf) == f.one_bits
    assert correctly_rounded(BUILTIN["elu"], f, ninf) == f.one_bits | f.sign_bit
    assert f.is_nan(correctly_rounded(BUILTIN["sin"], f, inf))
    assert f.is_nan(correctly_rounded(BUILTIN["gelu"], f, f.nan_bits, "derivative"))


@pytest.mark.parametrize("fmt", SMALL + [parse_format("bfloat16"), parse_format("float16")], ids=str)
def test_leaky_relu_exact_encoding_equals_correct_rounding(fmt):
    A = concrete(fmt)
    pats = np.arange(1 << fmt.nbits, dtype=np.uint64)
    z = A.const(pats)
    act = get_activation("leaky_relu")
    if fmt.nbits > 8:  # 100 = 1/0.01 is a float: x ⊘ 100 is the exact encoding
        assert act._op(fmt)[0] == "div"
    got = A.to_bits(act.value(A, z)).astype(np.int64)
    want = table(act.real, fmt)[:, 0].astype(np.int64)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("fmt", SMALL, ids=str)
@pytest.mark.parametrize("name", ["gelu", "tanh", "sin", "leaky_relu:0.3"])
def test_z3_table_tree_equals_table(fmt, name):
    act = get_activation(name)
    for col, which in enumerate(("value", "derivative")):
        b, tree, _ = symbolic_functions.table_tree(act.function(fmt, which))
        t = table(act.real, fmt)[:, col]
        for x in range(1 << fmt.nbits):
            got = z3.simplify(z3.substitute(tree, (b, z3.BitVecVal(x, fmt.nbits)))).as_long()
            assert got == int(t[x])


# ------------------------------------------------------------ lazy encoding vs the table
def _random_claim(data, fmt, name):
    from fpsmt.proof.claims import Float, exists, forall
    which = data.draw(st.sampled_from(["value", "derivative"]))
    ends = [-8.0, -2.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
    lo = data.draw(st.sampled_from(ends[:-1]))
    hi = data.draw(st.sampled_from([e for e in ends if e > lo]))
    c = data.draw(st.sampled_from([-0.25, 0.0, 0.125, 0.5, 0.75, 1.0]))
    op = data.draw(st.sampled_from(["le", "ge"]))

    def sig(s):
        return s.sigma(name, s.x) if which == "value" else s.sigma_prime(name, s.x)

    def cond(s):
        return sig(s) <= c if op == "le" else sig(s) >= c
    if data.draw(st.booleans()):
        return exists("c", {"x": Float(range=(lo, hi))}, such_that=cond)
    return forall("c", {"x": Float(range=(lo, hi))}, goal=cond)


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "elu", "gelu", "swish"])
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_lazy_encoding_never_contradicts_the_table(name, data, monkeypatch_module):
    fmt = parse_format("float8_e4m3")
    claim = _random_claim(data, fmt, name)
    reg = {claim.name: claim}
    truth = Engine(solver="exhaustive").prove(claim, fmt, reg)
    monkeypatch_module.setattr(symbolic_functions, "TABLE_MAX_BITS", 0)  # force the lazy encoding
    try:
        lazy = Engine(solver="z3", timeout=60).prove(claim, fmt, reg)
    finally:
        monkeypatch_module.undo()
    assert truth.status in (PROVED, REFUTED)
    assert lazy.status in (truth.status, "UNKNOWN")


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def test_lazy_encoding_proves_with_facts_in_float32():
    from fpsmt.proof.claims import Float, exists, forall
    f = parse_format("float32")
    claims = [forall("bounded", {"x": Float(finite=True)},
                     goal=lambda s: (s.sigma("sigmoid", s.x) >= 0) & (s.sigma("sigmoid", s.x) <= 1)),
              forall("odd", {"x": Float(finite=True)},
                     goal=lambda s: s.sigma("tanh", -s.x).eq(-s.sigma("tanh", s.x))),
              forall("peak", {"x": Float(finite=True)}, goal=lambda s: s.sigma_prime("sigmoid", s.x) <= 0.25),
              exists("half", {"x": Float(finite=True, nonzero=True)},
                     such_that=lambda s: s.sigma("sigmoid", s.x).eq(0.5))]
    for c in claims:
        r = Engine(timeout=60).prove(c, f, {c.name: c})
        assert r.status == PROVED, (c.name, r.reason)
    x = r.witness["x"]
    assert correctly_rounded(BUILTIN["sigmoid"], f, x) == f.from_float(0.5)


# ------------------------------------------------------------ user-defined activations
def test_user_activation_file():
    act = get_activation(str(HERE / "activations" / "softsign.py") + ":softsign")
    f = parse_format("bfloat16")
    assert correctly_rounded(act.real, f, f.from_float(1.0)) == f.from_float(0.5)
    assert correctly_rounded(act.real, f, f.from_float(3.0), "derivative") == f.from_float(1 / 16)
    assert correctly_rounded(act.real, f, f.inf_bits()) == f.one_bits  # limit, evaluated at +inf
    t = table(act.real, parse_format("e4m3"))
    assert t.shape == (256, 2)


@pytest.mark.parametrize("file,word", [
    ("bad_pieces.py:square", "not monotone as declared"),
    ("complex_valued.py:root", "non-real"),
    ("no_prime.py:lonely", "does not define lonely_prime"),
    ("nope.py:x", "does not exist"),
])
def test_user_activation_refusals(file, word):
    with pytest.raises(InputError, match=word):
        get_activation(str(HERE / "activations" / file))


def test_unknown_activation():
    with pytest.raises(InputError, match="unknown activation"):
        get_activation("swishy")


# ------------------------------------------------------------ CLI
from conftest import fpsmt  # noqa: E402


def test_cli_table(tmp_path):
    out = tmp_path / "t.csv"
    r = fpsmt("activation", "table", "--activation", "sigmoid", "--format", "float8_e4m3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    f = parse_format("float8_e4m3")
    assert lines[0] == "x,sigma,sigma_prime" and len(lines) == 257
    for line in lines[1:]:
        x, s, d = (f.parse_hex(v) for v in line.split(","))
        assert s == correctly_rounded(BUILTIN["sigmoid"], f, x) and d == correctly_rounded(BUILTIN["sigmoid"], f, x,
                                                                                          "derivative")


def test_cli_compare_json():
    r = fpsmt("activation", "compare", "--activation", "tanh", "--format", "float8_e5m2", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert {row["implementation"] for row in rows} >= {"numpy (float8_e5m2)", "numpy float64, rounded once"}
    f = parse_format("float8_e5m2")
    assert all(row["inputs"] == sum(not f.is_nan(b) for b in range(256)) for row in rows)


@pytest.mark.parametrize("args,word", [
    (["activation", "table", "--activation", "gelu", "--format", "float32", "--out", "x.csv"], "at most 16 bits"),
    (["activation", "table", "--activation", "nope", "--format", "e4m3", "--out", "x.csv"], "unknown activation"),
    (["activation", "table", "--activation", str(HERE / "activations" / "no_prime.py") + ":lonely",
      "--format", "e4m3", "--out", "x.csv"], "does not define"),
    (["activation", "table", "--activation", str(HERE / "activations" / "complex_valued.py") + ":root",
      "--format", "e4m3", "--out", "x.csv"], "non-real"),
])
def test_cli_activation_bad_input(args, word):
    r = fpsmt(*args)
    assert r.returncode == 2 and word in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("fmt", SMALL, ids=str)
@pytest.mark.parametrize("name", ["gelu", "swish", "mish", "sigmoid", "tanh", "elu", "softplus"])
def test_monotone_pieces_hold_on_the_table(fmt, name):
    """Every piece the encodings rely on is monotone in the table, over all its floats."""
    from fpsmt.semantics.activations.rounding import value_pieces
    act = BUILTIN[name]
    pieces = value_pieces(act, fmt)
    assert pieces, name
    t = table(act, fmt)[:, 0]
    finite = [b for b in range(1 << fmt.nbits) if fmt.is_finite(b)]
    for lo, hi, d in pieces:
        xs = sorted((b for b in finite if (lo is None or fmt.to_fraction(b) >= lo)
                     and (hi is None or fmt.to_fraction(b) <= hi)), key=fmt.to_fraction)
        ys = [fmt.to_fraction(int(t[b])) for b in xs]
        assert all((y2 - y1) * d >= 0 for y1, y2 in zip(ys, ys[1:])), (name, lo, hi, d)


def test_lazy_facts_decide_gelu_and_swish_in_float32():
    from fpsmt.proof.claims import Float, exists, forall
    f = parse_format("float32")
    claims = [exists("gelu_neg", {"x": Float(finite=True)}, such_that=lambda s: s.sigma("gelu", s.x) < -0.125),
              forall("gelu_min", {"x": Float(finite=True)}, goal=lambda s: s.sigma("gelu", s.x) >= -0.25),
              forall("swish_left", {"x": Float(finite=True)}, given=lambda s: s.x <= -2,
                     goal=lambda s: s.sigma("swish", s.x) <= 0)]
    results = {c.name: Engine(timeout=60).prove(c, f, {c.name: c}) for c in claims}
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, PROVED)
    x = results["gelu_neg"].witness["x"]
    assert f.to_fraction(correctly_rounded(BUILTIN["gelu"], f, x)) < Fraction(-1, 8)


@pytest.mark.parametrize("name", ["gelu", "swish"])
@pytest.mark.parametrize("which", ["value", "derivative"])
def test_lazy_facts_allow_a_negative_zero_tail_in_float32(name, which):
    """GELU's and Swish's left tails (σ and σ') are −0 in float32, while their limit at −∞ is
    the real 0, whose pattern is +0.  The tail is a constant piece found by enclosures, on
    which the real function is not monotone as the piece's direction says: reading the
    limit's +0 as a lower bound of σ there (so F never −0) and the end's −0 as an upper
    bound (F never +0) left no value for F on the tail, and made any claim about a σ
    argument in it PROVED.  The claim that F is not a zero there must be REFUTED, with the
    witness replayed."""
    from fpsmt.proof.claims import Float, forall
    f = parse_format("float32")

    def F(s):
        return s.sigma(name, s.x) if which == "value" else s.sigma_prime(name, s.x)
    c = forall("tail", {"x": Float(range=(-(2 ** 20), -(2 ** 10)))}, goal=lambda s: ~F(s).is_zero())
    r = Engine(solver="z3", timeout=60).prove(c, f, {c.name: c})
    assert r.status == REFUTED, r.reason
    x = r.witness["x"]
    assert correctly_rounded(BUILTIN[name], f, x, which) == f.sign_bit


@pytest.mark.parametrize("name", ["gelu", "swish"])
def test_lazy_applications_to_one_argument_have_one_value_in_float32(name):
    """Two lazy applications of σ (and of σ') to terms with one bit pattern have one value:
    the claim p = p2 (bit for bit) → σ(p) = σ(p2) and σ'(p) = σ'(p2) is PROVED in float32 in
    a few seconds (without the congruence facts each refinement pinned one point, and
    Theorem 3.1's approx.sigma.gelu stage was UNKNOWN after 344 refinements).  With p2 the
    next float above p in [1, 2], σ(p) = σ(p2) is REFUTED: the facts do not make σ constant."""
    from fpsmt.proof.claims import Float, forall
    f = parse_format("float32")

    def both(s):
        return [s.sigma(name, s.p).same(s.sigma(name, s.p2)), s.sigma_prime(name, s.p).same(s.sigma_prime(name, s.p2))]
    c = forall("one_value", {"p": Float(finite=True), "p2": Float()}, given=lambda s: s.p.same(s.p2), goal=both)
    r = Engine(solver="z3", timeout=120).prove(c, f, {c.name: c})
    assert r.status == PROVED, r.reason
    c = forall("next_up", {"p": Float(range=(1, 2)), "p2": Float()}, given=lambda s: s.p2.same(s.p.next_up()),
               goal=lambda s: s.sigma(name, s.p).same(s.sigma(name, s.p2)))
    r = Engine(solver="z3", timeout=120).prove(c, f, {c.name: c})
    assert r.status == REFUTED, r.reason
    p = r.witness["p"]
    assert correctly_rounded(BUILTIN[name], f, p, "value") != correctly_rounded(BUILTIN[name], f, p + 1, "value")


def test_compare_has_a_torch_row_when_torch_is_installed():
    pytest.importorskip("torch")  # the optional extra fpsmt[torch]
    from fpsmt.semantics.activations.compare import compare
    rows = compare(get_activation("sigmoid"), parse_format("bfloat16"))
    torch_rows = [r for r in rows if r["implementation"].startswith("torch")]
    assert {r["which"] for r in torch_rows} == {"value", "derivative"}
    assert all(r["inputs"] == 65282 for r in torch_rows)


def test_compare_has_a_jax_row_when_jax_is_installed():
    pytest.importorskip("jax")
    from fpsmt.semantics.activations.compare import compare
    rows = compare(get_activation("tanh"), parse_format("bfloat16"))
    jax_rows = [r for r in rows if r["implementation"].startswith("jax")]
    assert {r["which"] for r in jax_rows} == {"value", "derivative"}


def test_arb_of_a_negative_mpmath_number_keeps_its_sign():
    """mpmath's man_exp drops the sign: arb(mpf(−3)) once came out +3, so the interval
    versions of tanh, erf, erfc and sigmoid (Arb at the ends) were evaluated at |end| —
    a negative interval gave misordered ends, one around 0 a wrong enclosure."""
    import mpmath
    from fpsmt.semantics.activations.realfun import IV, arb
    assert arb(mpmath.mpf(-3)) == -3 and arb(mpmath.mpf("-0.375")) == -0.375
    mpmath.iv.prec = 80
    for name, lo, hi in (("erf", -3, -2), ("tanh", -1, 2), ("sigmoid", -1, -0.5), ("erfc", -2, 1)):
        y = getattr(IV, name)(mpmath.iv.mpf([lo, hi]))
        t = (lo + hi) / 2  # an inner point, far from the ends' roundings
        true = getattr(mpmath, name)(t) if name != "sigmoid" else 1 / (1 + mpmath.exp(-t))
        assert y.a <= true <= y.b, (name, t, y)
        f = getattr(mpmath, name) if name != "sigmoid" else (lambda v: 1 / (1 + mpmath.exp(-v)))
        assert y.a <= min(f(lo), f(hi)) + 1e-12 and max(f(lo), f(hi)) - 1e-12 <= y.b, (name, y)


def test_swish_float64_tails_are_found():
    """Arb's e^−x is no finite ball at x = 2^1000, so σ(−x) = 1/(1 + e^x) came out NaN
    there: swish's float64 identity tail and σ''s constant tails were not found, and its
    requirements R.identity and R.dead were UNKNOWN.  The sigmoid takes e^x/(1 + e^x) for
    x < 0 now.  The tail starts at 64: swish_F(32) is not 32 (32·e^−32 ≈ 4·10^−13 is far
    above a quarter of the spacing at 32), swish_F(64) is 64."""
    from flint import arb
    from fpsmt.semantics.activations.realfun import ARB
    ball = ARB.sigmoid(-arb(2) ** 1023)
    assert ball.is_finite() and ball.abs_upper() < arb(2) ** -1000
    f64 = parse_format("float64")
    act = get_activation("swish")
    value = act.function(f64, "value")
    assert [(f64.to_fraction(lo), hi) for lo, hi in value.identity] == [(64, f64.max_bits)]
    tails = [p for p in act.function(f64, "derivative").pieces if getattr(p, "constant", False)]
    assert any(p.hi is None for p in tails) and any(p.lo is None for p in tails)
    A = concrete(f64)
    at = lambda q: int(np.ravel(A.to_bits(act.value(A, A.const(np.asarray([f64.round(Fraction(q))], np.uint64)))))[0])  # noqa: E731
    assert at(64) == f64.round(Fraction(64)) and at(32) != f64.round(Fraction(32))
