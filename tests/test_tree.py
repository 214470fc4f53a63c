"""Proof trees (fpsmt.proof.tree): links are checked, joins and inductions are claims the
engine decides, and a wrong link or a wrong step is caught."""

import pytest

from fpsmt.proof.claims import Float, Int
from fpsmt.proof.engine import Engine
from fpsmt.proof.tree import Pred, TreeError, check_ties, induction, join, sequence, stage, to_json
from fpsmt.semantics.formats import parse_format

E4M3 = parse_format("float8_e4m3")
BF16 = parse_format("bfloat16")

X = Pred("x_small", {"x": Float(range=(0, 4))}, lambda s: s.true())
Y_HALF = Pred("y_at_most_2", {"y": Float(finite=True)}, lambda s: (s.y >= 0) & (s.y <= 2))
Y_POS = Pred("y_nonneg", {"y": Float(finite=True)}, lambda s: s.y >= 0)
Z_OUT = Pred("z_nonneg", {"z": Float()}, lambda s: s.z >= 0)


def _halve():
    return stage("halve", {}, Y_HALF, lambda s: {"y": s.x * 0.5}, X)


def _square():
    return stage("square", {}, Z_OUT, lambda s: {"z": s.y * s.y}, Y_POS)


def _decide(tree, fmt, solver="z3"):
    eng = Engine(solver=solver, timeout=60)
    claims = tree.claims()
    reg = {c.name: c for c in claims}
    return {c.name: eng.prove(c, fmt, reg).status for c in claims}


def test_a_join_links_a_guarantee_to_the_next_hypothesis_and_is_decided():
    tree = sequence("t", [_halve(), join("halve_to_square", [Y_HALF], Y_POS), _square()], kind="lemma")
    assert [c.name for c in tree.claims()] == ["halve", "halve_to_square", "square"]
    assert set(_decide(tree, E4M3).values()) == {"PROVED"}
    hashes = check_ties(tree, E4M3)
    assert hashes["halve_to_square"]["premise"] == [hashes["halve"]["guarantee"]]
    assert hashes["halve_to_square"]["conclusion"] == hashes["square"]["hypothesis"]
    js = to_json(tree, {"halve": {"status": "PROVED"}}, hashes)
    assert js["kind"] == "lemma" and [c["kind"] for c in js["children"]] == ["stage", "join", "stage"]
    assert js["children"][0]["status"] == "PROVED"


def test_unlinked_items_are_refused():
    with pytest.raises(TreeError, match="does not guarantee"):
        sequence("t", [_halve(), _square()])  # y_at_most_2 is not y_nonneg: a join is needed
    with pytest.raises(TreeError, match="does not take the guarantee"):
        sequence("t", [_halve(), join("j", [Y_POS], Y_POS), _square()])
    with pytest.raises(TreeError, match="does not conclude"):
        sequence("t", [_halve(), join("j", [Y_HALF], Y_HALF), _square()])


def test_a_false_join_is_refuted():
    """y >= 0 does not give y <= 2: the join's claim is REFUTED, with a counterexample."""
    assert _decide(join("nonneg_to_small", [Y_POS], Y_HALF), E4M3) == {"nonneg_to_small": "REFUTED"}


def test_check_ties_sees_a_predicate_changed_behind_a_link():
    """A join whose conclusion object is the next hypothesis but whose term differs (its
    function edited after linking) is caught by the recomputed term hashes."""
    hyp = Pred("y_nonneg_copy", {"y": Float(finite=True)}, lambda s: s.y >= 0)
    tree = sequence("t", [_halve(), join("j", [Y_HALF], hyp), stage("sq", {}, Z_OUT, lambda s: {"z": s.y * s.y}, hyp)])
    check_ties(tree, E4M3)
    tree.children[2].uses["hypothesis"] = Pred("y_positive", {"y": Float(finite=True)}, lambda s: s.y > 0)
    with pytest.raises(TreeError, match="conclusion is not the term"):
        check_ties(tree, E4M3)


def _doubling(factor=2):
    """t_k = 2^k for k = 0..8: base t_0 = x ⊕ 1 (x = ±0), step t ↦ t ⊗ factor."""
    inv = Pred("t_is_2_to_k", {"k": Int(0, 8), "t": Float(finite=True)}, lambda s: s.t.eq(s.k.pow2()))
    start = Pred("x_zero", {"x": Float(range=(0, 0))}, lambda s: s.true())
    base = stage("double.base", {}, inv, lambda s: {"k": 0, "t": s.x + 1}, start)
    done = Pred("t_is_256", {"t": Float(finite=True)}, lambda s: s.t.eq(256))
    return induction("double", inv, "k", 0, 8, base, lambda s: {"t": s.t * factor}, done)


def test_an_induction_is_base_step_and_conclusion_claims():
    tree = _doubling()
    assert [n.kind for n in tree.children] == ["base", "step", "conclusion"]
    assert _decide(tree, BF16) == {"double.base": "PROVED", "double.step": "PROVED", "double.conclusion": "PROVED"}


def test_a_wrong_step_is_refuted():
    got = _decide(_doubling(factor=3), BF16)
    assert got["double.step"] == "REFUTED" and got["double.base"] == "PROVED"


@pytest.mark.parametrize("fmt", ["bfloat16", "float64"])
def test_transfer_stages_are_slices_of_the_whole_chain(fmt):
    """The transfer's stage computations, composed, are term for term the chain the
    construction builds (fpsmt.constructions.relu.transfer_weights): the same Z3 term."""
    import z3

    from fpsmt.constructions import relu as C
    from fpsmt.proof.encoding import Encoding
    from fpsmt.proof.claims import forall
    from fpsmt.proofs import multiplication_transfer as MT
    from fpsmt.semantics.arith import symbolic
    f = parse_format(fmt)
    c = forall("slice", {"h": Float(finite=True, nonzero=True), "g": Float(finite=True, nonzero=True)},
               goal=lambda s: s.true())
    s = Encoding(c, f, symbolic(f), {}, {}).scope
    w_out, chain = C.transfer_weights(s, s.h, s.g)
    whole = s.h * w_out
    for w in chain:
        whole = whole * w
    n_first = len(MT.transfer_tree(f).children) - 1
    t = MT._normalized(s)[2][0]  # the first stage's output (the route's stages end at ±1)
    sgn, m, exps = C.target_weights(s, s.g, t)
    sliced = t
    for w in [sgn, m] + exps:
        sliced = sliced * w
    assert n_first == (2 if C.transfer_route(f) == "significand" else 1)
    assert z3.eq(whole.v[()], sliced.v[()])  # hash-consed: the same term
    assert not z3.eq(whole.v[()], (sliced * 1).v[()])  # the comparison can fail


def test_a_stage_by_cases_needs_cases_that_cover_its_hypothesis():
    """y ∈ {0, 2} by cases: the stage is decided at each constant, and the cases node
    proves the constants cover the hypothesis; with 2 left out it is REFUTED."""
    two = Pred("y_0_or_2", {"y": Float(finite=True)}, lambda s: s.y.same(0) | s.y.eq(2))  # +0 only
    for values, cover in (([0, 2], "PROVED"), ([0], "REFUTED")):
        node = stage("sq", {}, Z_OUT, lambda s: {"z": s.y * s.y}, two, cases={"y": values})
        assert [n.kind for n in node.walk()] == ["stage", "cases"]
        assert _decide(node, E4M3) == {"sq": "PROVED", "sq.cases": cover}
