"""The shipped specs: theorem constants, Conditions 1-3, distinguishability."""

import importlib
from fractions import Fraction

import pytest

from fpsmt.proof.engine import PROVED, Engine
from fpsmt.semantics.formats import parse_format, pow2

conditions = importlib.import_module("fpsmt.specs.conditions")
theorems = importlib.import_module("fpsmt.specs.theorems")


def test_theorem_constants():
    f32 = parse_format("float32")
    c = theorems.constants("sigmoid", f32)
    assert c.M_sigma == pow2(126) and c.H_sigma == pow2(22) and c.depth_3_2 == (567, 569)
    r = theorems.constants("relu", parse_format("bfloat16"))
    assert r.M_sigma == pow2(125) and r.H_sigma == parse_format("bfloat16").Omega and r.format_admissible
    assert not theorems.constants("relu", parse_format("float16")).format_admissible


@pytest.mark.parametrize("act", ["relu", "sigmoid", "tanh"])
@pytest.mark.parametrize("fmt", ["float8_e4m3", "bfloat16"])
def test_conditions_2_and_3_hold_with_replayed_witnesses(act, fmt):
    f = parse_format(fmt)
    for claim in (conditions.C2(act), conditions.C3(act)):
        r = Engine(timeout=120).prove(claim, f, {claim.name: claim})
        assert r.status == PROVED, (claim.name, r.reason)


@pytest.mark.parametrize("act", ["relu", "sigmoid"])
@pytest.mark.parametrize("fmt", ["float8_e4m3", "bfloat16"])
def test_condition_1_holds_by_the_exists_forall_loop(act, fmt):
    claim = conditions.C1(act)
    r = Engine(timeout=120).prove(claim, parse_format(fmt), {"C1": claim})
    assert r.status == PROVED, r.reason
    assert set(r.witness) == {"c1", "c2", "eta"}


def test_a_constant_activation_fails_condition_2(tmp_path):
    """σ ≡ 1: σ(δ0) = σ(δ1) always, so no witness exists (checked by enumeration too)."""
    src = tmp_path / "const.py"
    src.write_text("def one(x, m):\n    return m.mpf(1)\n\n\ndef one_prime(x, m):\n    return m.mpf(0)\n")
    claim = conditions.C2(f"{src}:one")
    f = parse_format("float8_e4m3")
    assert Engine(timeout=60).prove(claim, f, {"C2": claim}).status == "REFUTED"


# ------------------------------------------------------------ fpsmt conditions
import json  # noqa: E402
from pathlib import Path  # noqa: E402

from conftest import fpsmt  # noqa: E402

HERE = Path(__file__).resolve().parent


def test_conditions_json(tmp_path):
    r = fpsmt("conditions", "--activation", "relu", "--format", "float8_e4m3", "--json",
              "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["condition"], x["status"]) for x in rows] == [("C1", "PROVED"), ("C2", "PROVED"), ("C3", "PROVED")]
    for x in rows:
        assert set(x) == {"activation", "format", "condition", "status", "branch", "witness", "seconds"}
    assert rows[2]["branch"] in ("route 1", "route 2")
    f = parse_format("float8_e4m3")
    assert all(isinstance(v, int) or f.parse_hex(v) is not None for v in rows[0]["witness"].values())


@pytest.mark.parametrize("args,word", [
    (["--activation", "nope", "--format", "bf16"], "unknown activation"),
    (["--activation", "relu", "--format", "float7"], "unknown format"),
    (["--activation", str(HERE / "activations" / "overflow.py") + ":huge", "--format", "e4m3"], "not finite"),
    (["--activation", "relu"], "--format"),
])
def test_conditions_bad_input(tmp_path, args, word):
    r = fpsmt("conditions", *args, "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2 and word in r.stderr and "Traceback" not in r.stderr


def test_spec_without_conditions_is_refused(tmp_path):
    spec = tmp_path / "empty_spec.py"
    spec.write_text("X = 1\n")
    r = fpsmt("conditions", "--activation", "relu", "--format", "e4m3", "--spec", str(spec),
              "--store", str(tmp_path / "s.sqlite"))
    assert r.returncode == 2 and "defines no condition" in r.stderr


distinguishability = importlib.import_module("fpsmt.specs.distinguishability")


@pytest.mark.parametrize("fmt", ["bfloat16", "float8_e4m3", "float32"])
def test_relu_first_layer_distinguishes_the_domain(fmt):
    f = parse_format(fmt)
    c = distinguishability.relu_first_layer_distinguishes()
    assert Engine(timeout=120).prove(c, f, {c.name: c}).status == PROVED
    bad = distinguishability.single_relu_does_not_distinguish()
    r = Engine(timeout=120).prove(bad, f, {bad.name: bad})
    assert r.status == "REFUTED"
    x, x2 = r.witness["x"], r.witness["x2"]  # two distinct points relu cannot tell apart: both <= 0
    assert f.to_fraction(x) != f.to_fraction(x2) and f.to_fraction(x) <= 0 and f.to_fraction(x2) <= 0


@pytest.mark.parametrize("fmt", ["float8_e4m3", "bfloat16"])
def test_negative_control_identity(fmt):
    """σ(x) = x.  Checked by hand: C1 holds (σ(0) = 0; the identity is monotone, so every
    'between' and separation clause holds; c2 near 0.15 and η of moderate size satisfy the
    magnitude bounds).  C2 fails: σ' ≡ 1 makes 2^η0 · |σ'(δ0)| = 2^η0 >= 2 > 1 = |σ'(δ1)| for
    every η0 >= 1 — a linear activation can neither suppress nor amplify a gradient.  C3 holds
    by route 2: |σ'(0)| = 1 >= 2^−p and σ(0) = 0."""
    act = str(HERE / "activations" / "identity.py") + ":ident"
    f = parse_format(fmt)
    got = {c: Engine(timeout=120).prove(b(act), f, {c: b(act)}).status for c, b in conditions_builders()}
    assert got == {"C1": PROVED, "C2": "REFUTED", "C3": PROVED}


def test_negative_control_cosine():
    """σ = cos.  Checked by hand: C1 fails: it needs σ(c1) = 0 exactly, and cos of a float is
    never within half the smallest subnormal of 0 (its zeros π/2 + kπ are irrational and the
    nearest floats leave |cos| far above that), so no witness exists — the tool answers
    REFUTED with an unsat proof.  C2 holds (δ0 with σ'(δ0) = −sin δ0 small, δ1 where
    |sin δ1| rounds to 1).  C3 fails route 2 (σ'(0) = −sin 0 = 0) but holds by route 1."""
    f = parse_format("float8_e4m3")
    rows = {c: Engine(timeout=120).prove(b("cos"), f, {c: b("cos")}) for c, b in conditions_builders()}
    assert {c: r.status for c, r in rows.items()} == {"C1": "REFUTED", "C2": PROVED, "C3": PROVED}
    from fpsmt.proof.conditions import branch_of
    assert branch_of(conditions.C3("cos"), f, rows["C3"].witness) == "route 1"


def conditions_builders():
    return [("C1", conditions.C1), ("C2", conditions.C2), ("C3", conditions.C3)]


def test_exact_rational_bounds():
    """s.ceil / s.floor turn a comparison with a rational into one with a float, exactly."""
    from fpsmt.proof.claims import Float, forall
    f = parse_format("float8_e3m4")
    q = Fraction(5, 128)  # not a float of e3m4
    c = forall("ceil", {"v": Float(finite=True)}, goal=lambda s: (s.v >= s.ceil(q)).implies(s.v >= s.floor(q)))
    assert Engine(solver="exhaustive").prove(c, f, {"ceil": c}).status == PROVED
    from fpsmt.semantics.arith import concrete
    from fpsmt.proof.claims import Scope
    sc = Scope(concrete(f), f, {})
    lo, hi = (f.to_fraction(int(sc.A.to_bits(x.v))) for x in (sc.floor(q), sc.ceil(q)))
    assert lo < q < hi and f.next_up(f.round(lo)) == f.round(hi)



def test_lazy_activation_queries_parse_in_bitwuzla():
    """Regression: a one-argument `and` in the lazy facts (a monotone piece unbounded on
    one side) made Bitwuzla's parser fail ("got 1") on every float32 query with sigmoid."""
    bitwuzla = pytest.importorskip("bitwuzla")
    from fpsmt.proof.encoding import parts
    f = parse_format("float32")
    for act in ("sigmoid", "gelu", "tanh"):
        claim = conditions.C2(act)
        _, q = Engine()._query(claim, f, {"C2": claim}, parts(claim, "exists"))
        tm = bitwuzla.TermManager()
        bitwuzla.Parser(tm, bitwuzla.Options()).parse(q.text, True, False)  # parse only; raises on error
