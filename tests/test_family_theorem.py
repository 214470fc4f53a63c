"""The Theorem 3.1 join of the families built by saturating.atoms_network
(proofs/family_theorem.py, proofs/rect_theorem_3_1.py): the facts it takes from the code,
its inductions decided (and refuted without their hypothesis), and the per-term helpers
it reads the atoms' lemmas through."""

from fractions import Fraction

import numpy as np
import pytest

from fpsmt.constructions import logistic as LG
from fpsmt.constructions import rectifying as RC
from fpsmt.constructions import saturating as S
from fpsmt.proof.claims import Scope
from fpsmt.proof.engine import Engine
from fpsmt.proof.tree import check_ties
from fpsmt.semantics.arith import concrete
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import PAPER, fold_terms


def _points(fmt, V):
    """Targets with one-piece, many-piece, tiny (two-term) and zero values."""
    big = fmt.round(Fraction(3) * V)
    return [(fmt.round(Fraction(1, 4)), big, fmt.round(1), fmt.round(-5)),
            (fmt.round(Fraction(-1, 2)), 1, fmt.round(2), 0),  # the least subnormal: two output terms
            (fmt.round(1), fmt.round(-3 * V), fmt.round(-1), fmt.round(3)),
            (0, 0, 0, 0), (fmt.round(2), fmt.round(Fraction(-7, 4)), fmt.round(1), fmt.round(Fraction(1, 8)))]


@pytest.mark.parametrize("act,name", [("gelu", "bfloat16"), ("swish", "float8_e4m3"), ("tanh", "bfloat16"),
                                      ("tanh", "float16")])
def test_the_whole_rows_have_no_absent_entries_and_pieces_sum_to_the_value(act, name):
    fmt = parse_format(name)
    F = RC if act != "tanh" else S
    with F.hidden_activation(act):
        V = RC.piece_bound(fmt) if F is RC else S.piece_bound(fmt, S.theorem_constants(act)(fmt).H_sigma)
        pts = _points(fmt, V)
        net = F.theorem_network(fmt, pts)
        assert len(net.layers[-1].pattern("forward").absent_rows) == 0  # every last hidden neuron feeds the output
        assert len(net.layers[0].pattern("backward").absent_rows) == 0  # every first-layer neuron reads x
        assert net.depth == F.depth(fmt)
        L = RC.uncapped_bound(fmt) if F is RC else 0
        for _, v, _, _ in pts:
            ps = S.pieces(fmt, v, V) if not fmt.is_zero(v) else []
            total = Fraction(0)
            for a in ps:  # the left-to-right float sum, rounded once per step
                total = fmt.to_fraction(fmt.round(total + fmt.to_fraction(a)))
            assert not ps or total == fmt.to_fraction(v)
            assert all(abs(fmt.to_fraction(a)) >= L for a in ps[1:])
        assert any(len(S.pieces(fmt, v, V)) > 1 for _, v, _, _ in pts if not fmt.is_zero(v))


def test_a_later_piece_below_the_bound_is_refused():
    fmt = parse_format("bfloat16")
    with RC.hidden_activation("gelu"):
        V = RC.piece_bound(fmt)
        pts = _points(fmt, V)
        with pytest.raises(AssertionError, match="after the first"):
            S.atoms_network(fmt, pts, V, RC.value_atom, RC.gradient_atom, RC.block_constants(fmt).value_depth,
                            RC.gradient_depth(fmt), later_piece=fmt.Omega)


@pytest.mark.parametrize("act,name", [("gelu", "bfloat16"), ("swish", "float8_e5m2")])
def test_term_helpers_are_the_folds_products(act, name):
    """The terms the lemmas state are the products the run folds: their fold (with the
    bias −0) is the output, and the first layer's is D^AD."""
    fmt = parse_format(name)
    rng = np.random.default_rng(3)
    with RC.hidden_activation(act):
        s = Scope(concrete(fmt), fmt, {})
        bits = lambda v: int(np.ravel(s.A.to_bits(v.v))[0])  # noqa: E731
        near = lambda q: s.const(fmt.to_fraction(fmt.round(Fraction(q))))  # noqa: E731
        for _ in range(12):
            z = near(Fraction(int(rng.integers(-8, 8)), 4))
            x = z if rng.random() < 0.5 else near(Fraction(int(rng.integers(-8, 8)), 4))
            if rng.random() < 0.5:
                net, P = RC.value_atom(s, z, near(Fraction(int(rng.integers(-9, 9)), 2)), depth=RC.depth(fmt))
            else:
                net, P = RC.gradient_atom(s, z, s.const(1), near(Fraction(int(rng.integers(1, 9)), 2)),
                                          depth=RC.depth(fmt))
            out, grad, tr = s.run(net, [x], [s.const(1)], params=P, trace=True)
            ot = s.row_terms(net, len(net.layers) - 1, "forward", tr[1][-2], P)
            it = s.input_terms(net, P, tr)
            o = fold_terms(s.A, [t.v for t in ot], PAPER)
            o = s.A.add(o, s.A.const(fmt.zero_bits(True)))
            assert int(np.ravel(s.A.to_bits(o))[0]) == bits(out[0])
            g = fold_terms(s.A, [t.v for t in it], PAPER)
            assert int(np.ravel(s.A.to_bits(g))[0]) == bits(grad[0])


def _decide(node, fmt, prefixes):
    claims = node.claims()
    reg = {c.name: c for c in claims}
    eng = Engine(solver="z3", timeout=120)
    return {c.name: eng.prove(c, fmt, reg) for c in claims if c.name.startswith(prefixes)}


@pytest.mark.parametrize("family,act", [("rect", "gelu"), ("sat", "tanh"), ("logi", "sigmoid")])
def test_the_join_is_proved(family, act):
    """The theorem's tree checks its ties; its inductions and the congruence over σ are
    PROVED in float8_e4m3 (the atoms' lemmas are decided elsewhere: they are long)."""
    from fpsmt.proof.lemmas import load
    fmt = parse_format("float8_e4m3")
    with {"rect": RC, "sat": S, "logi": LG}[family].hidden_activation(act):
        node, statement = load(f"{family}_theorem_3_1").build("repaired", fmt)
        check_ties(node, fmt)
        assert "theorem_network" in statement
        res = _decide(node, fmt, (f"{family}_theorem_3_1.", "boxplus_neutrality.", "approx.", "split_gradient."))
        assert len(res) >= 15 and f"approx.sigma.{act}" in res
        assert all(r.status == "PROVED" for r in res.values()), {k: r.status for k, r in res.items()}


def test_the_output_rows_step_is_refuted_without_the_later_pieces_hypothesis():
    from fpsmt.proofs.family_theorem import pieces_node
    fmt = parse_format("float8_e4m3")
    loose = _decide(pieces_node("loose", two_terms=True, later_exact=False), fmt, ("loose.pieces.step",))
    # the step is decided by cases (a gradient atom's pair, another point's zeros, x's first piece after +0
    # and after −0, a later piece) and a cover; only the later pieces' case needs the hypothesis
    assert {k: r.status for k, r in loose.items()} == {
        "loose.pieces.step": "PROVED", "loose.pieces.step.case1": "PROVED", "loose.pieces.step.case2": "PROVED",
        "loose.pieces.step.case3": "PROVED", "loose.pieces.step.case4": "REFUTED", "loose.pieces.step.cover": "PROVED"}


def test_the_output_rows_step_cases_cover_the_step(monkeypatch):
    """The step's cases: without one of them the cover is REFUTED (the step would be
    proved for only part of its hypotheses)."""
    import fpsmt.proofs.family_theorem as FT
    fmt = parse_format("float8_e4m3")
    real = FT.induction

    def dropping_the_last_case(*a, **k):
        return real(*a, **{**k, "step_cases": k["step_cases"][:-1]})
    monkeypatch.setattr(FT, "induction", dropping_the_last_case)
    node = FT.pieces_node("short", two_terms=True)
    res = _decide(node, fmt, ("short.pieces.step.cover",))
    assert [r.status for r in res.values()] == ["REFUTED"]


def test_the_split_gradient_sum_is_proved_and_refuted_without_the_parts_sum():
    """Layer 1's gradient with g* from one atom or from three (a, a, b): the induction is
    PROVED; without the hypothesis (a ⊕ a) ⊕ b = g its step is REFUTED."""
    from fpsmt.proofs.family_theorem import split_gradient_node
    fmt = parse_format("float8_e4m3")
    node = split_gradient_node()
    check_ties(node, fmt)
    res = _decide(node, fmt, ("split_gradient.",))
    assert sorted(res) == ["split_gradient.base", "split_gradient.conclusion", "split_gradient.step"]
    assert all(r.status == "PROVED" for r in res.values()), {k: r.status for k, r in res.items()}
    loose = _decide(split_gradient_node("loose_split", exact=False), fmt, ("loose_split.step",))
    assert [r.status for r in loose.values()] == ["REFUTED"]

