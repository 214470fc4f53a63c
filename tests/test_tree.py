"""Proof trees (fpsmt.proof.tree): links are checked, joins and inductions are claims the
engine decides, and a wrong link or a wrong step is caught."""

from fractions import Fraction

import pytest
from conftest import atoms_inside_whole

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
    assert not z3.eq(whole.v[()], (sliced + 0).v[()])  # the comparison can fail


def test_a_stage_in_parts_is_every_part_of_its_goal():
    """A stage's goal decided in parts: the guarantee and each side condition land in
    exactly one part (contiguous slices), each part a claim over the same hypothesis; a
    false side condition makes its own part REFUTED and leaves the others PROVED."""
    def side(bad):
        return lambda s: [s.x * 0.5 <= 2, (s.x * 0.5 >= 0), (s.x * 0.5 <= 1) if bad else (s.x * 0.5 <= 2)]
    node = stage("halve", {}, Y_HALF, lambda s: {"y": s.x * 0.5}, X, side=side(False), parts=2)
    assert [(n.kind, n.name) for n in node.walk()] == [("stage", "halve"), ("part", "halve.part1")]
    assert _decide(node, E4M3) == {"halve": "PROVED", "halve.part1": "PROVED"}
    bad = stage("halve", {}, Y_HALF, lambda s: {"y": s.x * 0.5}, X, side=side(True), parts=2)
    assert _decide(bad, E4M3) == {"halve": "PROVED", "halve.part1": "REFUTED"}  # x = 4: x/2 = 2 > 1
    assert check_ties(sequence("t", [bad, join("j", [Y_HALF], Y_POS), _square()]), E4M3)
    with pytest.raises(TreeError, match="parts and cases"):
        stage("halve", {}, Y_HALF, lambda s: {"y": s.x * 0.5}, X, cases={"x": [0]}, parts=2)


def test_a_stage_by_cases_needs_cases_that_cover_its_hypothesis():
    """y ∈ {0, 2} by cases: the stage is decided at each constant, and the cases node
    proves the constants cover the hypothesis; with 2 left out it is REFUTED."""
    two = Pred("y_0_or_2", {"y": Float(finite=True)}, lambda s: s.y.same(0) | s.y.eq(2))  # +0 only
    for values, cover in (([0, 2], "PROVED"), ([0], "REFUTED")):
        node = stage("sq", {}, Z_OUT, lambda s: {"z": s.y * s.y}, two, cases={"y": values})
        assert [n.kind for n in node.walk()] == ["stage", "cases"]
        assert _decide(node, E4M3) == {"sq": "PROVED", "sq.cases": cover}


def _counting(step_by=1):
    """A run of symbolic length n <= 8: the invariant k <= n and t >= 0, the step adds the
    next term u = 1 (a step variable), done at k = n.  Without "not done" in the step,
    k = n would step to n + 1 > n."""
    inv = Pred("k_le_n_t_nonneg", {"k": Int(0, 8), "n": Int(0, 8), "t": Float(finite=True)},
               lambda s: [s.k <= s.n, s.t >= 0])
    start = Pred("n_any", {"n": Int(0, 8)}, lambda s: s.true())
    base = stage("count.base", {}, inv, lambda s: {"k": 0, "t": s.const(0)}, start)
    end = Pred("t_nonneg", {"t": Float(finite=True)}, lambda s: s.t >= 0)
    return induction("count", inv, "k", 0, 8, base, lambda s: {"t": s.t + s.u * step_by}, end,
                     step_vars={"u": Float(range=(1, 1))}, done=lambda s: s.k.eq(s.n))


def test_an_induction_over_a_run_of_symbolic_length():
    """The step is asked only before the run is done (k < n), the conclusion at k = n; a
    step that subtracts breaks the invariant."""
    assert set(_decide(_counting(), BF16).values()) == {"PROVED"}
    got = _decide(_counting(step_by=-1), BF16)
    assert got["count.step"] == "REFUTED" and got["count.conclusion"] == "PROVED"


def test_step_variables_may_not_shadow_the_state():
    inv = Pred("inv", {"k": Int(0, 2), "t": Float()}, lambda s: s.true())
    base = stage("b", {}, inv, lambda s: {"k": 0, "t": s.const(0)})
    with pytest.raises(TreeError, match="state variables"):
        induction("i", inv, "k", 0, 2, base, lambda s: {}, inv, step_vars={"t": Float()})


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
def test_the_boxplus_rows_by_induction(fmt):
    """⊞'s two row sums: every node of the tree PROVED (symbolic running sum, symbolic
    number of atoms)."""
    from fpsmt.proofs import boxplus_neutrality as B
    tree = B.tree(parse_format(fmt))
    check_ties(tree, parse_format(fmt))
    got = _decide(tree, parse_format(fmt), solver="portfolio")
    assert set(got.values()) == {"PROVED"}, got
    assert {n.kind for n in tree.walk()} >= {"induction", "base", "step", "conclusion"}


def test_a_boxplus_step_that_drops_a_term_is_refuted(monkeypatch):
    """The value row's step with x's pair counted once (r ⊕ w, no −w) is REFUTED."""
    from fpsmt.proofs import boxplus_neutrality as B

    def wrong(s):
        pair = s.where(s.j.eq(s.jw), s.r + s.w, (s.r + s.a) + s.b)
        return {"r": s.where(s.j < s.m, pair, s.where(s.j.eq(s.jv), s.r + s.v, s.r + s.a))}
    monkeypatch.setattr(B, "_value_step", wrong)
    got = _decide(B.tree(BF16), BF16, solver="portfolio")
    assert got["boxplus_neutrality.value.step"] == "REFUTED" and got["boxplus_neutrality.gradient.step"] == "PROVED"


def test_padding_with_a_wrong_copy_layer_is_refuted(monkeypatch):
    """The padding induction runs the construction's own padding layer: a copy of weight 2
    (relu(2 ⊗ a ⊕ −0)) breaks the forward step."""
    from fractions import Fraction

    from fpsmt.constructions import relu as C
    from fpsmt.proofs import boxplus_neutrality as B
    right = C.padding_layer
    monkeypatch.setattr(C, "padding_layer", lambda fmt, n: C._layer([(i, i, fmt.round(Fraction(2))) for i in range(n)],
                                                                     n, n, [fmt.sign_bit] * n))
    got = _decide(B.padding_tree(BF16), BF16, solver="portfolio")
    assert got["boxplus_neutrality.padding.forward.step"] == "REFUTED"
    monkeypatch.setattr(C, "padding_layer", right)
    assert set(_decide(B.padding_tree(BF16), BF16, solver="portfolio").values()) == {"PROVED"}


def test_the_padded_network_uses_the_proved_padding_layer():
    from fpsmt.constructions import relu as C
    from fpsmt.semantics.network import Network
    net = Network(BF16, [C._layer([(0, 0, 1)], 1, 1, [0]), C._layer([(0, 0, 1)], 1, 1, [BF16.sign_bit], "identity")])
    padded = C._padded(net, 5)
    assert padded.layers[1:4] == [C.padding_layer(BF16, 1)] * 3 and padded.layers[0] == net.layers[0]


def _scope(fmt, names):
    from fpsmt.proof.claims import forall
    from fpsmt.proof.encoding import Encoding
    from fpsmt.semantics.arith import symbolic
    c = forall("slice", {n: Float() for n in names}, goal=lambda s: s.true())
    return Encoding(c, fmt, symbolic(fmt), {}, {}).scope


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
@pytest.mark.parametrize("block", ["point_indicator", "zero_gradient_atom"])
def test_the_pair_and_top_stages_are_slices_of_the_block(fmt, block):
    """The block's network, forward and backward, is term for term the pair stage's network
    followed by the top stage's (the same Z3 terms, hash-consed), and the single step
    block is not a slice of it (the other block's absent entries add +0 ⊗ its values)."""
    import importlib

    import z3

    from fpsmt.constructions import relu as C
    f = parse_format(fmt)
    s = _scope(f, ["z", "x", "y", "v"])
    mod = importlib.import_module(f"fpsmt.proofs.{block}")
    whole, P = C.point(s, s.z) if block == "point_indicator" else C.zero_gradient_atom(s, s.z, s.v)
    out, grad, (_, post, _) = s.run(whole, [s.x], [s.y], params=P, trace=True)
    pair, Pp = C.step_pair(s, s.z)
    (ge, le), _ = s.run(pair, [s.x], params=Pp)
    top, Pt = mod.top(s)  # the top layers' params do not depend on z
    t_out, t_grad = s.run(top, [ge, le], [s.y], params=Pt)
    _, p_grad = s.run(pair, [s.x], t_grad, params=Pp)
    assert z3.eq(out[0].v[()], t_out[0].v[()]) and z3.eq(grad[0].v[()], p_grad[0].v[()])
    single, Ps = C.step_ge(s, s.z)
    (alone,), _ = s.run(single, [s.x], params=Ps)
    assert z3.eq(post[4][0].v[()], ge.v[()]) and not z3.eq(post[4][0].v[()], alone.v[()])


def _beside(s, whole, wparams, block, bparams, row, y_block):
    """Run ``whole`` (upstream: its own outputs' y) keeping its absent terms, then ``block``
    alone with the whole's absent terms of row ``row`` as its Zeros stand-ins and the
    whole's upstream into that row: (whole trace, block trace) per layer, forward and
    backward."""
    _, _, (_, post, up, absent) = s.run(whole, [s.x], y_block(s), params=wparams, trace=True, keep_absent=True)
    zeros = {"forward": {k: [absent[k][0][row]] for k in range(1, len(block.layers))},
             "backward": {k: [absent[k][1][row]] for k in range(1, len(block.layers))}}
    _, _, (_, b_post, b_up) = s.run(block, [s.x], [up[-1][row]], params=bparams, trace=True, zeros=zeros)
    return (post, up), (b_post, b_up)


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
def test_a_step_block_beside_others_is_its_stage_with_the_whole_absent_terms(fmt):
    """In the step pair (and in the gradient atom's gate: ge, le and T side by side), each
    block's rows and columns are term for term the block alone run with Zeros: the
    stand-ins set to the whole's absent terms (the stage ``beside`` proves its claim for
    every ±0 there).  Without the stand-ins the block alone differs from the whole."""
    import z3

    from fpsmt.constructions import relu as C
    from fpsmt.proofs import gradient_atom as GA
    from fpsmt.semantics.network import Network
    f = parse_format(fmt)
    s = _scope(f, ["z", "x", "y", "u"])

    def same(a, b):
        return all(z3.eq(p.v[()], q.v[()]) for p, q in zip(a, b))
    pair, Pp = C.step_pair(s, s.z)
    gate = Network(f, GA._gate_layers(f)[:5])
    gparams = {**C.step_params(s, "ge", s.z), **C.step_params(s, "le", -s.z)}
    cases = [(pair, Pp, C.step_network(f, "ge"), C.step_params(s, "ge", s.z), 0, lambda s: [s.y, s.u]),
             (pair, Pp, C.step_network(f, "le"), C.step_params(s, "le", -s.z), 1, lambda s: [s.y, s.u]),
             (gate, gparams, C.step_network(f, "ge"), C.step_params(s, "ge", s.z), 0, lambda s: [s.y, s.u, s.y]),
             (gate, gparams, GA._t_net(f), C.step_params(s, "ge", s.z), 2, lambda s: [s.y, s.u, s.u])]
    for whole, wp, block, bp, row, ys in cases:
        (post, up), (b_post, b_up) = _beside(s, whole, wp, block, bp, row, ys)
        for k in range(len(block.layers)):
            assert same([post[k][row]], b_post[k]) and same([up[k][row]], b_up[k]), (row, k)
    _, _, (_, post, _) = s.run(pair, [s.x], [s.y, s.u], params=Pp, trace=True)
    _, _, (_, alone, _) = s.run(C.step_network(f, "ge"), [s.x], [s.y], params=C.step_params(s, "ge", s.z), trace=True)
    assert not same([post[1][0]], alone[1])


@pytest.mark.slow
@pytest.mark.soundness
def test_blocks_beside_blocks_have_zero_absent_terms_layer_by_layer():
    """The step pair and the gradient atom's gate (layers 1–5) as whole dense networks:
    the finiteness facts, the layer chain and the whole claim are decided (e4m3, every
    node PROVED), and each chain link assumes exactly the facts it instantiates.  With an
    upstream that may be infinite the backward chain is REFUTED: +0 ⊗ inf is NaN, so the
    other block's absent term is no zero — the chain can fail."""
    from fpsmt.proof.tree import Node
    from fpsmt.proofs import common
    from fpsmt.proofs import gradient_atom as GA
    f = E4M3
    root = Node("lemma", "t", None, [common.step_node("ge", f, True), common.step_node("le", f, True),
                                     common.pair_beside(f), GA.gate_t_stage(f), GA.gate_beside(f)])
    check_ties(root, f)
    claims = root.claims()
    reg = {c.name: c for c in claims}
    eng = Engine(solver="portfolio", timeout=120)
    got = {c.name: eng.prove(c, f, reg).status for c in claims}
    assert set(got.values()) == {"PROVED"}, got
    for whole in ("step_pair", "gradient_atom.gate15"):
        assert {f"{whole}.absent.forward", f"{whole}.absent.backward", f"{whole}.whole"} <= set(got)
    assert reg["gradient_atom.gate15.absent.forward"].assumes[3:6] == (
        "step_indicator_ge.value1", "step_indicator_le.value1", "gradient_atom.T.value1")

    bad = common.pair_beside(f, "bad_pair", upstream=Float())
    reg.update({c.name: c for c in bad.claims()})
    r = eng.prove(reg["bad_pair.absent.backward"], f, reg)
    assert r.status == "REFUTED" and {"y", "u"} <= set(r.witness), r.witness


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
def test_the_gradient_atom_stages_are_slices_of_the_atom(fmt):
    """The repaired gradient atom, run symbolically (all of z, x, h, g, y free), is term for
    term its stage networks run one after the other: the gate (layers 1–5, then 6–7),
    every chain layer (the ``layer``/``kill`` stage network with that layer's c_i, B_i),
    the last chain layer and the output (the ``output`` stage network) — forward, and
    backward from the output's upstream."""
    import z3

    from fpsmt.constructions import relu as C
    from fpsmt.proofs import gradient_atom as GA
    from fpsmt.semantics.network import Network
    f = parse_format(fmt)
    s = _scope(f, ["z", "x", "h", "g", "y"])
    whole, P = C.repaired_gradient_atom(s, s.z, s.h, s.g)
    out, grad, (_, post, up) = s.run(whole, [s.x], [s.y], params=P, trace=True)
    same = lambda a, b: all(z3.eq(u.v[()], v.v[()]) for u, v in zip(a, b)) and len(a) == len(b)  # noqa: E731
    gate = GA._gate_layers(f)
    steps = {**C.step_params(s, "ge", s.z), **C.step_params(s, "le", -s.z)}
    o5, _ = s.run(Network(f, gate[:5]), [s.x], params=steps)
    o7, _ = s.run(Network(f, gate[5:7]), o5)
    assert same(o5, post[4]) and same(o7, post[6])
    n_chain = whole.depth - 8  # 7 gate layers, the chain (the last with N), the output layer
    prev = post[6]
    for i in range(n_chain):
        last = i == n_chain - 1
        net = GA._layer_net(f, with_n=last, output=last)
        params = {"c": s.lift(P[f"c{i}"]), "B": s.lift(P[f"B{i}"]), **({"w_out": s.lift(P["w_out"])} if last else {})}
        o, _ = s.run(net, prev, params=params)
        assert same(o, out if last else post[7 + i]), i
        _, back = s.run(net, prev, [s.y] if last else up[7 + i], params=params)
        assert same(back, up[6 + i]), i
        prev = o
    # backward: the gate's slice, fed the upstream the whole has at layer 7's outputs, gives the whole's D^AD
    _, g_gate = s.run(Network(f, gate[:7]), [s.x], up[6], params=steps)
    assert same(g_gate, grad)
    assert not same(g_gate, [grad[0] + 0])  # the comparison can fail


def test_the_chain_inductions_of_the_gradient_atom(monkeypatch):
    """The gradient atom's chain at x = z and at x != z are inductions over the layer
    index (every node PROVED in bfloat16); with a reset bias that does not reset (2 ⊗
    (1 ⊖ c)), the step at x = z is REFUTED."""
    from fpsmt.constructions import relu as C
    from fpsmt.proofs import gradient_atom as GA
    for node in (GA.chain_at_z(BF16), GA.chain_killed(BF16)):
        assert [n.kind for n in node.children] == ["base", "step", "conclusion"]
        assert set(_decide(node, BF16, solver="portfolio").values()) == {"PROVED"}
    monkeypatch.setattr(C, "reset_bias", lambda s, P: (1 - P) * 2)
    got = _decide(GA.chain_at_z(BF16), BF16, solver="portfolio")
    assert got["gradient_atom.chain_at_z.step"] == "REFUTED"


@pytest.mark.parametrize("fmt", ["bfloat16", "float32", "float64"])
def test_the_theorem_row_is_its_parts_trees(fmt):
    """The repaired theorem row is the atoms', ⊞'s and the congruence's trees under one node
    (no flat list): its links check, every claim is decided once, the inductions are
    there, and the congruence has a σ stage for every activation of the atoms' layers."""
    from fpsmt.proof.lemmas import claims_of
    from fpsmt.proofs import theorem_3_1_relu as T
    f = parse_format(fmt)
    tree, _ = T.repaired(f)
    check_ties(tree, f)
    assert [c.name for c in tree.children] == ["zero_gradient_atom", "gradient_atom", "boxplus_neutrality",
                                               "approx.congruence"]
    names = [c.name for c in claims_of((tree,))]
    assert {f"approx.sigma.{L.activation}" for _, L in T.atom_layers(f)} == {n for n in names if ".sigma." in n}
    assert len(names) == len(set(names))
    kinds = [n.name for n in tree.walk() if n.kind == "induction"]
    assert {"gradient_atom.chain_at_z", "gradient_atom.chain_killed", "boxplus_neutrality.value",
            "boxplus_neutrality.gradient", "boxplus_neutrality.padding.forward", "approx.row"} <= set(kinds)


def test_the_backward_chain_of_the_gradient_atom(monkeypatch):
    """The gradient atom's D^AD at x = z against the transfer's product: the facts ``one``
    and ``cong`` (⊗ uninterpreted), the inductions ``chain_grad`` and ``pass_grad`` and the
    join with the transfer's guarantee, every node PROVED in bfloat16; a step whose
    transfer side multiplies by c twice is REFUTED."""
    from fpsmt.proofs import gradient_atom as GA
    nodes = [GA.one_fact(BF16), GA.cong_fact(BF16), GA.backward_tree(BF16)]
    check_ties(GA.tree(BF16), BF16)  # its premises (CHAIN_BACK, PASS, REACHES) are stated in the atom's tree
    assert nodes[1].claim.uninterpreted == ("mul",)

    def decide(nodes):
        eng = Engine(solver="portfolio", timeout=60)
        claims = [c for n in nodes for c in n.claims()]
        reg = {c.name: c for c in claims}
        return {c.name: eng.prove(c, BF16, reg).status for c in claims}
    got = decide(nodes)
    assert set(got.values()) == {"PROVED"}, got
    assert {"gradient_atom.chain_grad.step", "gradient_atom.pass_grad.step", "gradient_atom.backward.g"} <= set(got)
    real = GA.chain_grad
    monkeypatch.setattr(GA, "induction", lambda *a, **k: _twice(*a, **k))
    wrong = decide([GA.one_fact(BF16), GA.cong_fact(BF16), real(BF16)])
    assert wrong["gradient_atom.chain_grad.step"] == "REFUTED"


def _twice(name, inv, index, lo, hi, base, step, concl, **kw):
    """The chain_grad induction with the transfer's side multiplied by c twice."""
    from fpsmt.proof.tree import induction
    return induction(name, inv, index, lo, hi, base, lambda s: {**step(s), "out": (s.out * s.c) * s.c}, concl, **kw)


def test_a_claim_with_multiplication_uninterpreted():
    """With ⊗ an uninterpreted function, congruence is PROVED in float32 (z3 alone, in
    seconds); a statement true of fp.mul but not of every function (commutativity) is
    not PROVED and not REFUTED: the model does not replay; a statement false of fp.mul is
    REFUTED with a replayed counterexample; such a claim is never enumerated, and bad
    declarations are refused."""
    from fpsmt.errors import InputError
    from fpsmt.proof.claims import forall
    from fpsmt.proof.exhaustive import space
    fin, f32 = Float(finite=True), parse_format("float32")
    cong = forall("cong", {"a": fin, "b": fin, "c": fin}, given=lambda s: s.a.same(s.b),
                  goal=lambda s: (s.a * s.c).same(s.b * s.c), uninterpreted=("mul",))
    comm = forall("comm", {"a": fin, "c": fin}, goal=lambda s: (s.a * s.c).same(s.c * s.a), uninterpreted=("mul",))
    # false at every a for fp.mul (a ⊗ 1 = a), so every model of it replays
    wrong = forall("wrong", {"a": fin}, goal=lambda s: ~(s.a * 1).same(s.a), uninterpreted=("mul",))
    eng = Engine(solver="z3", timeout=60)
    assert eng.prove(cong, f32, {}).status == "PROVED"
    r = eng.prove(comm, f32, {})
    assert r.status == "UNKNOWN" and "does not replay" in r.reason
    r = eng.prove(wrong, f32, {})
    assert r.status == "REFUTED" and r.witness
    # interpreted, commutativity of the rounded product holds: the same statement is PROVED
    assert Engine(solver="z3", timeout=60).prove(
        forall("comm_fp", {"a": fin, "c": fin}, goal=lambda s: (s.a * s.c).same(s.c * s.a)), BF16, {}).status == "PROVED"
    assert space(forall("c8", {"a": fin}, goal=lambda s: (s.a * s.a).same(s.a), uninterpreted=("mul",)),
                 E4M3, ["a"]) is None
    with pytest.raises(InputError, match="only act, add, mul"):
        forall("d", {"a": fin}, goal=lambda s: s.a.same(s.a), uninterpreted=("div",))
    with pytest.raises(InputError, match="not enumerated"):
        forall("e", {"a": fin}, goal=lambda s: s.a.same(s.a), uninterpreted=("mul",), enumerate=True)


def test_a_claim_with_activations_uninterpreted():
    """With σ and σ' uninterpreted ("act"), congruence is PROVED in float32 (Ackermann's
    reduction: σ is a function of the argument's bit pattern); a statement true of GELU's
    σ_F but not of every function (σ(1) > 0) is not PROVED and not REFUTED: the model does
    not replay; a statement false of every function is REFUTED with a replayed
    counterexample.  Interpreted, two applications of σ to one term are one term (the lazy
    encoding's memo), so a join's premise and conclusion need no refinement."""
    import numpy as np
    import z3
    from fpsmt.proof.claims import forall
    from fpsmt.proof.encoding import Encoding
    from fpsmt.semantics.arith import symbolic
    fin, f32 = Float(finite=True), parse_format("float32")
    sg = lambda s, a: s.sigma("gelu", a)  # noqa: E731
    cong = forall("cong_act", {"a": fin, "b": fin}, given=lambda s: s.a.same(s.b),
                  goal=lambda s: [sg(s, s.a).same(sg(s, s.b)), s.sigma_prime("gelu", s.a).same(s.sigma_prime("gelu", s.b))],
                  uninterpreted=("act",))
    positive = forall("positive_act", {"a": Float(range=(1, 1))}, goal=lambda s: sg(s, s.a) > 0, uninterpreted=("act",))
    wrong = forall("wrong_act", {"a": fin}, goal=lambda s: ~sg(s, s.a).same(sg(s, s.a)), uninterpreted=("act",))
    eng = Engine(solver="z3", timeout=60)
    assert eng.prove(cong, f32, {}).status == "PROVED"
    r = eng.prove(positive, f32, {})
    assert r.status == "UNKNOWN" and "does not replay" in r.reason, r
    assert Engine(solver="z3", timeout=60).prove(
        forall("positive_fp", {"a": Float(range=(1, 1))}, goal=lambda s: sg(s, s.a) > 0), f32, {}).status == "PROVED"
    r = eng.prove(wrong, f32, {})
    assert r.status == "REFUTED" and r.witness
    A = symbolic(f32)
    s = Encoding(forall("m", {"a": fin}, goal=lambda s: s.a.same(s.a)), f32, A, {}, {}).scope
    one, two = sg(s, s.a + 1), sg(s, s.a + 1)
    assert z3.eq(np.asarray(one.v)[()], np.asarray(two.v)[()]) and len(A.lazy) == 1
    assert not z3.eq(np.asarray(sg(s, s.a + 2).v)[()], np.asarray(one.v)[()]) and len(A.lazy) == 2


def test_anchors_bound_sigma_over_an_interval():
    """A claim's anchors (Claim.anchors) state σ's true values at given points as bounds on
    their monotone pieces before any model is seen: GELU <= 0 on [−1, 0] is PROVED in
    float32 with an anchor at 0; anchors are true facts, so a false bound stays REFUTED
    with a replayed counterexample; they are part of the claim's SMT text."""
    from fpsmt.proof.claims import forall
    f32 = parse_format("float32")
    dom = {"t": Float(range=(-1, 0))}
    zero_anchor = lambda f: [f.round(0)]  # noqa: E731
    ok = forall("gelu_nonpositive", dom, goal=lambda s: s.sigma("gelu", s.t) <= 0, anchors=zero_anchor)
    bad = forall("gelu_below", dom, goal=lambda s: s.sigma("gelu", s.t) <= s.const(Fraction(-1, 64)),
                 anchors=zero_anchor)
    eng = Engine(solver="z3", timeout=120)
    assert eng.prove(ok, f32, {}).status == "PROVED"
    r = eng.prove(bad, f32, {})
    assert r.status == "REFUTED" and r.witness
    plain = forall("gelu_nonpositive", dom, goal=lambda s: s.sigma("gelu", s.t) <= 0)
    assert eng._statement(plain, f32, {}) != eng._statement(ok, f32, {})


def test_finite_bounds_enclose_sigma_prime():
    """The range facts of σ'_F in wide formats (rounding.finite_bounds) contain σ'_F at its
    extremes and at sampled floats: GELU' reaches about −0.170 (at −√2) and 1.129 (at √2),
    Swish' about −0.0998 and 1.0998, ELU' lies in (0, 1]; the lower ends are negative where
    σ' is (mpmath's man_exp drops the sign: a conversion that used it gave GELU' >= 0.46).
    tanh' = 4·s(2x)·s(−2x) has both saturated tails in float64 since the sigmoid is
    e^x/(1 + e^x) below 0 (before, s(−2^1000) was NaN and there was no bound); it lies in
    [0, 1] and the bound contains that.  Without both saturated tails (sin') there is no
    bound."""
    import random
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.activations.rounding import correctly_rounded, finite_bounds
    rng = random.Random(3)
    for name in ("float32", "bfloat16"):
        fmt = parse_format(name)
        for act, lo_max, hi_min in (("gelu", -0.169, 1.128), ("swish", -0.0997, 1.0997), ("elu", 0, 1)):
            real = get_activation(act).real
            lo, hi = (fmt.to_fraction(b) for b in finite_bounds(real, fmt, "derivative"))
            assert lo <= lo_max and hi >= hi_min, (name, act, float(lo), float(hi))
            pts = [fmt.round(Fraction(q)) for q in ("-1.4142", "1.4142", "-1.2785", "1.2785", "0", "-3", "3")]
            pts += [rng.randrange(0, 1 << fmt.nbits) for _ in range(300)]
            for b in pts:
                if fmt.is_finite(b):
                    d = correctly_rounded(real, fmt, b, "derivative")
                    assert lo <= fmt.to_fraction(d) <= hi, (name, act, fmt.hex(b))
    f64 = parse_format("float64")
    lo, hi = (f64.to_fraction(b) for b in finite_bounds(get_activation("tanh").real, f64, "derivative"))
    assert lo <= 0 and hi >= 1
    assert finite_bounds(get_activation("sin").real, f64, "derivative") is None


def test_a_claim_with_addition_uninterpreted():
    """With ⊕ (and ⊗) uninterpreted, what holds of every function is PROVED in float64 from
    instances of facts decided with the rounded operations: a layer row's sum, its inputs
    equal up to the signs of zeros, is again equal up to the sign of a zero, from
    ``w ⊗ z1 ≈ w ⊗ z2`` and ``(z1 ⊕ t) ≈ (z2 ⊕ t)`` for zeros z1, z2.  Without the ⊕ fact the
    same claim is not PROVED (the model does not replay); commutativity of ⊕, true of
    fp.add, is not PROVED either; a statement false of fp.add is REFUTED."""
    from fpsmt.proof.approx import ZERO, approx, zero_facts
    from fpsmt.proof.claims import forall
    fin, f64 = Float(finite=True), parse_format("float64")
    mz, az, _ = (n.claim for n in zero_facts())
    variables = {"w0": Float(), "w1": Float(), "a0": fin, "a1": fin, "z": ZERO}

    def flipped(s):  # a0 as the whole may see it: its zero of either sign
        return s.where(s.a0.is_zero(), s.z, s.a0)

    def given(s, with_az):
        out = [s.instance(mz.name, w=s.w0, z1=s.a0, z2=flipped(s))]
        return out + ([s.instance(az.name, t=s.w1 * s.a1, z1=s.w0 * s.a0, z2=s.w0 * flipped(s))] if with_az else [])

    def claim(name, with_az):
        return forall(name, variables, given=lambda s: given(s, with_az),
                      goal=lambda s: approx(s.w0 * s.a0 + s.w1 * s.a1, s.w0 * flipped(s) + s.w1 * s.a1),
                      assumes=(mz.name, az.name) if with_az else (mz.name,), uninterpreted=("mul", "add"))
    reg = {c.name: c for c in (mz, az, claim("row", True), claim("row_without_az", False))}
    eng = Engine(solver="z3", timeout=60)
    assert eng.prove(mz, f64, reg).status == "PROVED" and eng.prove(az, f64, reg).status == "PROVED"
    assert eng.prove(reg["row"], f64, reg).status == "PROVED"
    r = eng.prove(reg["row_without_az"], f64, reg)
    assert r.status == "UNKNOWN" and "does not replay" in r.reason, r
    comm = forall("comm_add", {"a": fin, "c": fin}, goal=lambda s: (s.a + s.c).same(s.c + s.a), uninterpreted=("add",))
    r = eng.prove(comm, f64, {})
    assert r.status == "UNKNOWN" and "does not replay" in r.reason
    # false of fp.add at every a (a ⊕ −0 = a), so every model of it replays
    wrong = forall("wrong_add", {"a": fin}, goal=lambda s: ~(s.a + s.const(-0.0)).same(s.a), uninterpreted=("add",))
    r = eng.prove(wrong, f64, {})
    assert r.status == "REFUTED" and r.witness


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
def test_the_chain_weights_are_the_transfer_weights(fmt):
    """The gradient atom's chain layers carry, after the shrinks (weight 1), the transfer's
    weights in reverse (the backward pass meets w_out, then c_m, …, c_1: the order of the
    ``chain_grad`` induction's partial products), and its output weight is the transfer's."""
    import z3

    from fpsmt.constructions import relu as C
    f = parse_format(fmt)
    s = _scope(f, ["z", "h", "g"])
    _, P = C.repaired_gradient_atom(s, s.z, s.h, s.g)
    w_out, chain = C.transfer_weights(s, s.h, s.g)
    n = C.shrink_count(f)
    got = [s.lift(P[f"c{i}"]) for i in range(n + len(chain))]
    assert f"c{n + len(chain)}" not in P
    assert all(z3.eq(c.v[()], s.const(1).v[()]) for c in got[:n])
    assert all(z3.eq(c.v[()], w.v[()]) for c, w in zip(got[n:], reversed(chain)))
    assert z3.eq(s.lift(P["w_out"]).v[()], w_out.v[()])


def test_the_stand_ins_for_absent_terms_are_free():
    """T beside the step blocks with every absent term any ±0: its gradient is the upstream
    u where T > 0 and u != 0 (PROVED), but not where u = ±0 — a stand-in may flip the sign
    of a zero sum — so the stronger statement is REFUTED, with a replayed counterexample
    at a zero u; the same statement with the block's own absent terms (none) is PROVED."""
    from fpsmt.constructions import relu as C
    from fpsmt.proof.claims import forall, zero_variables
    from fpsmt.proofs import gradient_atom as GA
    from fpsmt.proofs.common import X_DOM
    net = GA._t_net(BF16)

    def claim(beside):
        def goal(s):
            (T,), (g,) = s.run(net, [s.x], [s.u], params=C.step_params(s, "ge", s.z),
                               zeros=s.zeros(net) if beside else None)
            return (T > 0).implies(g.same(s.u))
        extra = zero_variables(net) if beside else {}
        return forall(f"t_pass_{beside}", {"z": X_DOM, "x": X_DOM, "u": Float(finite=True), **extra}, goal=goal)
    eng = Engine(solver="portfolio", timeout=120)
    r = eng.prove(claim(True), BF16, {})
    assert r.status == "REFUTED" and BF16.is_zero(r.witness["u"])
    assert eng.prove(claim(False), BF16, {}).status == "PROVED"
    assert eng.prove(GA.gate_t_stage(BF16).claim, BF16, {}).status == "PROVED"


def test_every_premise_has_a_provider_in_the_tree():
    """check_ties finds, for every premise (a join's, an induction step's, a stage's), a
    node of the same tree that states its term as a guarantee, conclusion or side: the
    gradient atom's tree passes; without the transfer (which states every chain weight in
    K) or without chain_at_z's statement of each backward step, it is refused by name."""
    from fpsmt.proof.tree import Node
    from fpsmt.proofs import gradient_atom as GA
    whole = GA.tree(BF16)
    check_ties(whole, BF16)
    no_transfer = Node("lemma", "t", None, [c for c in whole.children if c.name != "multiplication_transfer"])
    with pytest.raises(TreeError, match="premise transfer.chain_weight is stated by no node"):
        check_ties(no_transfer, BF16)
    at_z = next(c for c in whole.children if c.name == "gradient_atom.at_z")
    at_z.children[1].children[1].uses.pop("side")  # chain_at_z's step no longer states CHAIN_BACK
    out = next(c for c in whole.children if c.name == "gradient_atom.output")
    out.uses.pop("side")
    with pytest.raises(TreeError, match="premise gradient_atom.chain_back is stated by no node"):
        check_ties(whole, BF16)


@pytest.mark.parametrize("fmt", ["bfloat16", "float32"])
def test_a_run_with_its_own_pre_activations_given_is_the_run(fmt):
    """``given_pre``: the cancellation block run with its row's pre-activation given as the
    plain run's term has the plain run's output and D^AD, term for term; given another
    term (s itself), its D^AD differs."""
    import z3

    from fpsmt.constructions import relu as C
    f = parse_format(fmt)
    s = _scope(f, ["s", "y"])
    net, _ = C.cancellation(s, 1)
    out, grad, (pre, _, _) = s.run(net, [s.s], [s.y], trace=True)
    g_out, g_grad = s.run(net, [s.s], [s.y], given_pre={1: [pre[1][0]]})
    assert z3.eq(out[0].v[()], g_out[0].v[()]) and z3.eq(grad[0].v[()], g_grad[0].v[()])
    _, other = s.run(net, [s.s], [s.y], given_pre={1: [s.s]})
    assert not z3.eq(grad[0].v[()], other[0].v[()])


@pytest.mark.parametrize("fmt", ["float8_e4m3", "float8_e5m2", "float16", "bfloat16"])
def test_the_cancellation_row_is_the_induction_chain(fmt):
    """The row's pre-activation in the block (the network's own fold) equals, bit for bit,
    the chain t_p, …, t_emax that the value induction runs, at every s of [0, T]
    (executor, every s); the chain with its last step left out differs."""
    from fractions import Fraction

    import numpy as np

    from fpsmt.constructions import relu as C
    from fpsmt.proof.claims import F, Scope
    from fpsmt.proofs.cancellation_block import chain_value, entry_value, step_value
    from fpsmt.semantics.arith import concrete
    f = parse_format(fmt)
    A = concrete(f)
    top = f.round(Fraction(2) ** (f.e_max - f.M))
    ss = np.asarray([b for b in range(top + 1)], dtype=np.uint64)
    s = Scope(A, f, {})
    x = F(s, A.const(ss))
    net, _ = C.cancellation(s, 1)
    _, _, (pre, _, _) = s.run(net, [x], trace=True)
    row = np.ravel(A.to_bits(pre[1][0].v))
    assert len(ss) > 50 and np.array_equal(row, np.ravel(A.to_bits(chain_value(s, x).v)))
    t = entry_value(s, x)
    for k in range(f.M, f.e_max - 1):
        t = step_value(s, k, t)
    assert not np.array_equal(row, np.ravel(A.to_bits(t.v)))


def test_the_cancellation_row_is_the_chain_as_a_claim(monkeypatch):
    """The stages ``inputs`` and ``fold`` state on the block's own network that its row is
    the induction's chain: PROVED in float8_e4m3, and in bfloat16 by z3 (the terms match
    the chain's, so the claim stays small); with one constant neuron of the block changed
    (2^(p+1) instead of (2^(p+1))⁺), ``fold`` is REFUTED with a replayed s while ``inputs``
    still holds."""
    from fpsmt.constructions import relu as C
    from fpsmt.proofs import cancellation_block as CB
    def row_of(fmt):
        return next(n for n in CB.staged(fmt).walk() if n.name == "cancellation_block.row")
    f = parse_format("float8_e4m3")
    row = row_of(f)
    assert [n.name for n in row.children] == ["cancellation_block.inputs", "cancellation_block.fold"]
    assert row.children[1].uses["hypothesis"] is row.children[0].uses["guarantee"]
    got = _decide(row, f)
    assert got == {"cancellation_block.inputs": "PROVED", "cancellation_block.fold": "PROVED"}
    b = parse_format("bfloat16")
    assert _decide(row_of(b), b)["cancellation_block.fold"] == "PROVED"
    right = C.cancellation_constants

    def plain(fmt):
        out = list(right(fmt))
        out[1] = fmt.round(Fraction(2) ** (fmt.M + 1))
        return out
    monkeypatch.setattr(C, "cancellation_constants", plain)
    got = _decide(row_of(f), f)
    assert got == {"cancellation_block.inputs": "PROVED", "cancellation_block.fold": "REFUTED"}


def test_the_cancellation_gradient_is_a_claim_for_every_s(monkeypatch):
    """The gradient stage runs the block for symbolic s with the row given by the value
    induction's conclusion (the same predicate term): PROVED in float8_e4m3; with the
    block's last weight doubled it is REFUTED (and so is the exit)."""
    from fpsmt.constructions import relu as C
    from fpsmt.proofs import cancellation_block as CB
    f = parse_format("float8_e4m3")
    tree = CB.staged(f)
    grad = next(n for n in tree.walk() if n.name == "cancellation_block.gradient")
    assert grad.uses["hypothesis"] is next(n for n in tree.walk() if n.name == "cancellation_block.stages").uses[
        "guarantee"]
    assert "s" in grad.claim.variables and [c.name for c in grad.children] == ["cancellation_block.gradient.cases"]
    assert set(_decide(tree, f).values()) == {"PROVED"}
    right = C.cancellation

    def doubled(s, blocks=1, variant=C.REPAIRED):
        net, P = right(s, blocks, variant)
        last = net.layers[-1]
        last.weights = [s.fmt.round(2 * s.fmt.to_fraction(last.weights[0]))]
        return net, P
    monkeypatch.setattr(C, "cancellation", doubled)
    got = _decide(CB.staged(f), f)
    assert got["cancellation_block.gradient"] == "REFUTED" and got["cancellation_block.exit"] == "REFUTED"


def test_the_atoms_stages_state_their_hidden_values_and_gradients_finite():
    """The stages that run more than one layer of an atom (the zero-gradient atom's top,
    the gradient atom's gate_top and output) state every hidden value and every gradient
    w.r.t. a hidden value finite (proofs/common.py ``finite_inside``), so that the other
    atoms' absent terms +0 ⊗ (value or gradient) are zeros.  The statement holds on a real
    run of the top layers and fails where an infinite upstream makes a hidden gradient
    infinite.  (The stages are decided with these sides by test_atoms.py's staged lemmas.)"""
    import numpy as np

    from fpsmt.proof.claims import Scope
    from fpsmt.proofs import zero_gradient_atom as ZGA
    from fpsmt.proofs.common import finite_inside
    from fpsmt.semantics.arith import concrete

    f = E4M3
    s = Scope(concrete(f), f, {})
    s._vals["v"] = s.const(3)
    net, P = ZGA.top(s)

    def hidden_ok(y):
        _, _, (_, post, up) = s.run(net, [s.const(1), s.const(1)], [s.const(y)], params=P, trace=True)
        return [bool(np.asarray(b.v)) for b in finite_inside(post, up)]
    assert len(hidden_ok(1)) >= 4 and all(hidden_ok(1))
    assert not all(hidden_ok(float("inf")))


def test_a_layer_beside_others_agrees_up_to_signs_of_zeros():
    """fpsmt.proof.approx: the three facts about zeros are PROVED with the rounded
    operations, and with their instances along the two runs (paired by walking the terms)
    a 3×3 ReLU layer with an absent entry, beside other blocks, has outputs and input
    gradients ≈ those of its run alone, with ⊗ and ⊕ uninterpreted, in float32 (z3 alone,
    seconds).  Without the instances the same claim is not PROVED; in the executor the
    walk makes no instance."""
    import dataclasses

    import numpy as np

    from fpsmt.proof.approx import instances, layer_claim, zero_facts
    from fpsmt.proof.claims import Scope
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import Layer
    f32 = parse_format("float32")
    one = f32.round(1)
    sparse = Layer(3, 3, [0, 1, 2, 0], [0, 1, 2, 2], [one] * 4, [0] * 3, "relu")
    facts = [n.claim for n in zero_facts()]
    claim = layer_claim("beside3", sparse)
    bare = dataclasses.replace(claim, name="beside3_bare", given=lambda s: [])
    reg = {c.name: c for c in facts + [claim, bare]}
    eng = Engine(solver="z3", timeout=60)
    assert [eng.prove(c, f32, reg).status for c in facts] == ["PROVED"] * 3
    assert eng.prove(claim, f32, reg).status == "PROVED"
    r = eng.prove(bare, f32, reg)
    assert r.status == "UNKNOWN" and "does not replay" in r.reason, r
    s = Scope(concrete(f32), f32, {})
    x = s.const(1) + s.const(2)
    assert instances(s, [x], [x]) == [] and np.asarray((x.same(s.const(3))).v).all()


@pytest.mark.parametrize("fmt", ["bfloat16", "float32", "float64"])
def test_the_atoms_layer_patterns_do_not_depend_on_their_parameters(fmt):
    """theorem_3_1_relu.beside decides each layer pattern of the atoms once, from one
    choice of parameters: at other z, v, h, g (signs, binades, subnormals) the atoms'
    layers have the same patterns, layer by layer."""
    from fpsmt.proof.approx import pattern
    from fpsmt.proofs import theorem_3_1_relu as T
    f = parse_format(fmt)
    base = [(label, pattern(L)) for label, L in T.atom_layers(f)]
    tiny, neg0 = f.hex(1), f.hex(f.sign_bit)  # the least subnormal, −0
    for z, v, h, g in [(-1, -5, -0.5, 0.375), (0.25, 0, 1024, -7), (neg0, 1, 1, tiny), (2, tiny, tiny, -1024)]:
        assert [(label, pattern(L)) for label, L in T.atom_layers(f, z, v, h, g)] == base


def test_other_blocks_share_of_absent_terms_is_the_whole():
    """Zeros with ``others``: a block run with the other blocks' share of the absent terms
    added after its own gives, bit for bit, its rows and columns in the whole dense
    network (the block beside one more column and row), forward and backward, at every
    combination of special and ordinary values (float8_e4m3, the executor); replacing its
    own absent term instead (plain Zeros) differs somewhere."""
    import itertools

    import numpy as np

    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import Layer, Network, Zeros, run
    f = E4M3
    A = concrete(f)
    one, two, half = f.round(1), f.round(2), f.round(0.5)
    vals = [0, f.sign_bit, one, one | f.sign_bit, two, half | f.sign_bit, 1, f.max_bits, f.nan_bits]
    w = [one, two | f.sign_bit, half]  # entries (0, 0), (1, 1), (0, 1); (1, 0) absent
    block = Layer(2, 2, [0, 1, 0], [0, 1, 1], w, [0, f.sign_bit], "relu")
    whole = Layer(3, 3, [0, 1, 0, 2], [0, 1, 1, 2], w + [one], [0, f.sign_bit, 0], "relu")
    pts = np.asarray(list(itertools.product(vals, repeat=3)), dtype=np.uint64)
    ups = np.asarray(list(itertools.product(vals[:7], repeat=3)), dtype=np.uint64)
    xs = np.repeat(pts, len(ups), axis=0)
    ys = np.tile(ups, (len(pts), 1))
    X, Y = A.const(xs), A.const(ys)
    tw = run(A, Network(f, [whole]), X, Y, keep_absent=True)
    # the other blocks' share: +0 ⊗ (the third column's value), +0 ⊗ (the third row's gradient)
    other_f = A.absent_zero_sum(X[..., 2:3], Layer(1, 1, [], [], [], [0]).pattern("forward"))
    g3 = (A.mul(Y[..., 2], Network(f, [whole]).layers[0].act.derivative(A, tw.pre[0][..., 2])))[..., None]
    other_b = A.absent_zero_sum(g3, Layer(1, 1, [], [], [], [0]).pattern("forward"))
    zf = np.concatenate([other_f, other_f], axis=-1)
    zb = np.concatenate([other_b, other_b], axis=-1)
    tb = run(A, Network(f, [block]), X[..., :2], Y[..., :2], zeros=Zeros({0: zf}, {0: zb}, others=True))
    bits = A.to_bits
    assert (bits(tb.out) == bits(tw.out[..., :2])).all()
    assert (bits(tb.grad) == bits(tw.grad[..., :2])).all()
    plain = run(A, Network(f, [block]), X[..., :2], Y[..., :2], zeros=Zeros({0: zf}, {0: zb}))
    assert not ((bits(plain.out) == bits(tw.out[..., :2])).all() and (bits(plain.grad) == bits(tw.grad[..., :2])).all())


@pytest.mark.slow
def test_every_layer_pattern_of_the_atoms_beside_other_atoms():
    """theorem_3_1_relu.beside_tree: the three facts about zeros and one claim per layer
    pattern of the atoms (every layer of both atoms and the padding copy is one of
    them), each PROVED in float8_e4m3 — a cross-check of approx.congruence, which the
    theorem's row holds, on the atoms' own layers."""
    from fpsmt.proof.approx import pattern
    from fpsmt.proofs import theorem_3_1_relu as T
    f = E4M3
    claims = T.beside_tree(f).claims()
    covered = {pattern(L) for _, L in T.atom_layers(f)}
    assert len(claims) == 3 + len(covered)
    reg = {c.name: c for c in claims}
    eng = Engine(solver="portfolio", timeout=300)
    assert {c.name: eng.prove(c, f, reg).status for c in claims} == {c.name: "PROVED" for c in claims}


@pytest.mark.parametrize("fmt", ["float8_e4m3", "bfloat16", "float32", pytest.param("float64", marks=pytest.mark.slow)])
def test_the_congruence_tree_is_tied_and_every_node_confirmed(fmt):
    """fpsmt.proof.approx.congruence_tree (a node of the theorem's row): its predicates tie
    (the row's step takes the pair the σ stages guarantee, the σ stages the sum the row's
    conclusion guarantees), and every node is PROVED with its UNSAT confirmed by a second
    back end or by enumeration, in every format the theorem is reproduced in."""
    from fpsmt.proof.approx import PAIR, ROW_SUM, congruence_tree
    f = parse_format(fmt)
    tree = congruence_tree(("relu", "identity"))
    hashes = check_ties(tree, f)
    assert hashes["approx.row.step"]["premise"] == [PAIR.term_hash(f)]
    assert hashes["approx.sigma.relu"]["premise"] == [ROW_SUM.term_hash(f)]
    assert hashes["approx.sigma.relu"]["guarantee"] == hashes["approx.input"]["guarantee"] == PAIR.term_hash(f)
    claims = tree.claims()
    reg = {c.name: c for c in claims}
    eng = Engine(solver="portfolio", timeout=120, confirm=True)
    results = {c.name: eng.prove(c, f, reg) for c in claims}
    assert {n: r.status for n, r in results.items()} == {c.name: "PROVED" for c in claims}
    assert all(r.confirmed_by for r in results.values()), {n: r.confirmed_by for n, r in results.items()}


def test_the_congruence_row_step_needs_its_facts_and_a_sign_seeing_sigma_is_refuted():
    """The row's step, its instances of the zero facts removed, is not PROVED (a model of
    the uninterpreted ⊗, ⊕ does not replay); an activation whose value at −0 is not a zero
    (σ(−0) = 1, σ(+0) = +0) is REFUTED by its σ stage, with ±0 pre-activations."""
    import dataclasses

    import numpy as np

    from fpsmt.proof.approx import congruence_tree
    from fpsmt.semantics.activations.kinds import ReLU

    class SignSeeing(ReLU):
        name = "sign_seeing"

        def value(self, A, z):
            return A.where(A.and_(A.is_zero(z), A.signbit(z)), A.full(np.shape(z), A.fmt.one_bits),
                           super().value(A, z))
    tree = congruence_tree((SignSeeing(),))
    claims = tree.claims()
    reg = {c.name: c for c in claims}
    eng = Engine(solver="z3", timeout=60)
    for c in claims:
        if c.name.startswith("approx.") and c.name.count(".") == 1 and c.name != "approx.share":
            assert eng.prove(c, E4M3, reg).status == "PROVED", c.name
    step = reg["approx.row.step"]
    bare = dataclasses.replace(step, name="row_step_bare", given=lambda s: step.given(s)[:3])  # I, ¬done, ≈ inputs
    r = eng.prove(bare, E4M3, {**reg, bare.name: bare})
    assert r.status == "UNKNOWN" and "does not replay" in r.reason, r
    r = eng.prove(reg["approx.sigma.sign_seeing"], E4M3, reg)
    assert r.status == "REFUTED", r
    p, p2 = r.witness["p"], r.witness["p2"]
    assert E4M3.is_zero(p) and E4M3.is_zero(p2) and p != p2, r.witness_json()


@pytest.mark.parametrize("fmt", ["float8_e4m3", "bfloat16"])
def test_every_atom_inside_the_theorem_network_is_itself_up_to_signs_of_zeros(fmt):
    """What approx.congruence proves, seen in the executor: in the theorem's network (two
    gradient atoms and three zero-gradient atoms, ⊞), every hidden layer's values and
    gradients of each atom are, bit for bit or as zeros, those of the atom alone (a ⊞ of
    one part), at inputs on and off the points and upstream gradients of every kind; the
    whole's row of an atom is its own terms in its own order plus the other columns'
    absent sum (the code fact the tree's doc names)."""
    import numpy as np

    from fpsmt.constructions import relu as C
    from fpsmt.semantics.arith import concrete
    f = parse_format(fmt)
    A = concrete(f)
    r = f.round
    pts = [(r(-2), r(3), r(1), r(-5)), (r(0.5), r(-1), r(-0.25), r(0.75)), (r(1), r(0), r(0), r(0)),
           (r(-0.75), r(2), r(2), r(0)), (r(4), r(-0.5), r(1), r(1))]
    depth = C.gradient_atom_depth(f)
    whole = C.theorem_network(f, pts)
    ga = [p for p in pts if not f.is_zero(p[3])]
    atoms = [C.boxplus_copies(f, [C.block_copies(C.repaired_gradient_atom, f, [[z], [h], [g]], depth)]) for z, _, h, g in ga]
    atoms += [C.boxplus_copies(f, [C.block_copies(C.zero_gradient_atom, f, [[z], [v]], depth)]) for z, v, _, _ in pts]
    xs = [p[0] for p in pts] + [f.next_up(p[0]) for p in pts] + [r(0), f.sign_bit, r(3), r(-3)]
    ys = [r(1), r(-1), r(0.25), r(2), f.sign_bit, 0, r(-0.5)]
    X = np.repeat(np.asarray(xs, dtype=np.uint64), len(ys))[:, None]
    Y = np.tile(np.asarray(ys, dtype=np.uint64), len(xs))[:, None]
    checked, nonzero, _ = atoms_inside_whole(A, whole, atoms, X, Y, depth)
    assert 0 < nonzero < checked, (nonzero, checked)
