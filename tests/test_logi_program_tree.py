"""The logistic family's program proof tree (proofs/logi_program_tree.py), which decides a
point's backward program for every |y| <= H_σ in formats too wide to enumerate y: its model
is the program (at every |y| <= H of the 8-bit formats, built-in and random pieces, and
sampled y of float32), it is PROVED in float8_e4m3, and its claims fail on a wrong target,
in plain arithmetic, and on a body whose steps it does not model."""

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpsmt.constructions import gated_logi as GL
from fpsmt.constructions import logistic as LG
from fpsmt.constructions import threshold as T
from fpsmt.constructions.theorem32 import Piece
from fpsmt.errors import InputError
from fpsmt.proofs import logi_program_tree as LPT
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.semantics.formats import parse_format

from test_theorem32_sigmoid import _want, random_pieces

OTHER = [Piece(Fraction(1, 16), "linear", Fraction(3)), Piece(Fraction(4), "const", Fraction(3))]


def _ys(fmt, n=60, seed=7):
    """Every |y| <= H up to 16 bits; above, n random patterns with |y| <= H, the thresholds'
    neighbours, ω, 2ω, 3ω and ±H."""
    H = GL.y_bound(fmt)
    if fmt.nbits <= 16:
        return [fmt.to_fraction(b) for b in T.finite_values(fmt) if abs(fmt.to_fraction(b)) <= H]
    rng, ys = random.Random(seed), []
    while len(ys) < n:
        b = rng.getrandbits(fmt.nbits)
        if fmt.is_finite(b) and abs(fmt.to_fraction(b)) <= H:
            ys.append(fmt.to_fraction(b))
    for q in (fmt.omega, 2 * fmt.omega, 3 * fmt.omega, Fraction(1, 16), Fraction(4), H):
        b = fmt.round(q)
        ys += [s * fmt.to_fraction(v) for v in (b - 1, b, b + 1) for s in (1, -1)
               if abs(fmt.to_fraction(v)) <= H]
    return ys


def _model_mismatches(fmt, pieces, ys):
    with LG.hidden_activation("sigmoid"):
        _, model = LPT.program_tree(fmt, pieces, "t")
        steps, weights = GL.point_program(fmt, pieces)
        return [(y, model(LPT.ExactQ(fmt), y), GL.eval_program(fmt, steps, weights, y)) for y in ys
                if model(LPT.ExactQ(fmt), y) != GL.eval_program(fmt, steps, weights, y)]


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2", "float32"])
def test_the_tree_models_the_program(name):
    """The tree's computations (rationals rounded once, one pad for every run of ×1 steps)
    give the program's D (gated_logi.eval_program, the program's own steps) at every y, and
    that is g(y): the built-in g and one with a negative constant after a linear piece."""
    fmt = parse_format(name)
    ys = _ys(fmt)
    for pieces in (PT.builtin_pieces(), [Piece(Fraction(1, 16), "linear", Fraction(3)),
                                         Piece(Fraction(2), "const", Fraction(-5, 4))]):
        assert _model_mismatches(fmt, pieces, ys) == []
        with LG.hidden_activation("sigmoid"):
            steps, weights = GL.point_program(fmt, pieces)
            assert all(GL.eval_program(fmt, steps, weights, y) == _want(fmt, pieces, y) for y in ys[:200])


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_tree_models_random_programs(name, data):
    """Random pieces (as test_theorem32_sigmoid's: 1 to 4, constants and slopes of either
    sign, thresholds from ω to H): the tree's model is the program at every |y| <= H."""
    fmt = parse_format(name)
    pieces = random_pieces(fmt, data)
    try:
        with LG.hidden_activation("sigmoid"):
            GL.point_program(fmt, pieces)
    except (InputError, T.NoPlan) as e:  # the construction's own refusal, one line
        assert "\n" not in str(e)
        return
    assert _model_mismatches(fmt, pieces, _ys(fmt)) == []


def _decide(fmt, pieces=None, names=None):
    from fpsmt.proof.engine import Engine
    eng = Engine(solver="portfolio", timeout=120, confirm=False)
    with LG.hidden_activation("sigmoid"):
        root, _ = LPT.program_tree(fmt, pieces or PT.builtin_pieces(), "t")
        claims = {c.name: c for c in root.claims()}
        return {n: eng.prove(c, fmt, claims).status for n, c in claims.items() if names is None or n in names}


def test_the_tree_is_proved_in_e4m3():
    """Every claim of the built-in g's tree PROVED in float8_e4m3 (the fact quarter_pad, the
    staircase stages, the final maps, the sums)."""
    got = _decide(parse_format("float8_e4m3"))
    assert {"quarter_pad", "g.sum", "g.piece2.from.final"} <= set(got) and set(got.values()) == {"PROVED"}


def test_the_tree_fails_on_another_g(monkeypatch):
    """The tree of the built-in program stated against the dead zone with ±3 from 4 on: the
    root's sum is REFUTED (a counterexample y, replayed); its parts still hold."""
    real = PT.segments
    monkeypatch.setattr(PT, "segments", lambda pcs: real(OTHER))
    got = _decide(parse_format("float8_e4m3"), names={"g.sum", "g.piece2.from.final"})
    assert got == {"g.sum": "REFUTED", "g.piece2.from.final": "PROVED"}


def test_the_tree_fails_in_plain_arithmetic(monkeypatch):
    """With every term u ⊗ w (no factor 1/4) outside the stages, the start of the staircase
    (Y is then 16·y·2^(m+2)) and the final map are REFUTED."""
    monkeypatch.setattr(PT, "Quarter", PT._SymW)
    got = _decide(parse_format("float8_e4m3"), names={"g.piece2.from.start", "g.piece2.from.final"})
    assert got == {"g.piece2.from.start": "REFUTED", "g.piece2.from.final": "REFUTED"}


def test_the_tree_refuses_a_body_it_does_not_model(monkeypatch):
    """A program with a step of three terms (the old below(b), whose sum binary_sums split
    across every part) is refused when the tree is built, naming why."""
    real = GL._below

    def three(fmt, b, j):
        steps = real(fmt, b, j)
        if b is None:
            return steps
        return steps[:-2] + [[[(0, 4), (1, 4), (2, -4)]]]
    monkeypatch.setattr(GL, "_below", three)
    with LG.hidden_activation("sigmoid"), pytest.raises(AssertionError, match="more than two terms"):
        LPT.program_tree(parse_format("float8_e4m3"), PT.builtin_pieces(), "t")
