"""Theorem 3.2's ∀y claims in offset mode (GELU, Swish: proofs/rect_theorem_3_2.py on
gated_rect's capped program): the capped program checked against the program (and refused
where it is not it), its split facts PROVED; a run claim PROVED with the chain's
pre-activations at least I and REFUTED, replayed, with any positive pre-activation (GELU′ is
1/2 near 0: why the claims state the floor); a layer claim REFUTED on a network with one
wrong weight; the rows in ``reproduce``."""

import json
from fractions import Fraction

import pytest

from fpsmt.constructions import gated_rect as GR
from fpsmt.constructions import theorem32 as M
from fpsmt.constructions.registry import get_construction
from fpsmt.errors import InputError
from fpsmt.proofs import rect_theorem_3_2 as PE
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.semantics.formats import parse_format

FMT = parse_format("float16")


def _one(fmt, node):
    from fpsmt.proof.engine import Engine
    return Engine(solver="portfolio", timeout=300, confirm=False).prove(node.claim, fmt, {node.claim.name: node.claim})


def _built(activation="gelu", fmt=FMT):
    with get_construction(activation).active():
        c = GR.check_format(fmt)
        steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, PT.builtin_pieces())))
        capped = GR.cap_weights(steps, GR.weight_cap(fmt, steps))
        chain = GR.chain_layers(fmt, Fraction(0), steps)
        net = GR.gated_program(fmt, Fraction(0), steps, chain=chain)
        return c, steps, capped, net, GR.layout(chain, capped)


def test_capped_program_is_the_program_up_to_its_facts():
    """Every split fact PROVED (a sample); a capped program with one weight doubled is
    refused with one line, before any claim."""
    _, steps, capped, *_ = _built()
    assert capped != steps
    nodes = PE.cap_nodes(FMT, steps, capped)
    assert nodes[0].name == "pad" and len(nodes) > 3
    for n in nodes[1:4]:
        r = _one(FMT, n)
        assert r.status == "PROVED", (n.name, r.reason)
    bad = [list(map(list, st)) for st in capped]
    k = next(k for k, st in enumerate(bad) if any(w != 1 for unit in st for _, w in unit))
    u = next(j for j, unit in enumerate(bad[k]) if any(w != 1 for _, w in unit))
    bad[k][u] = [(src, w * 2 if w != 1 else w) for src, w in bad[k][u]]
    with pytest.raises(InputError, match="the capped program is not the program"):
        PE.cap_nodes(FMT, steps, bad)


def test_split_fact_needs_a_weight_of_magnitude_at_least_one():
    """The rewrite (u ⊗ 2^k) ⊗ w' = u ⊗ w is taken only for |w'| >= 1: with w' = 1/2 it is
    false (u ⊗ 2 overflows where u does not), which the solver shows."""
    from fpsmt.proof.claims import forall
    wrong = forall("halve", {"u": PT.V}, goal=lambda s: [((s.u * s.const(2)) * s.const(Fraction(1, 2))).same(s.u)])
    r = _one(FMT, type("N", (), {"claim": wrong})())
    assert r.status == "REFUTED" and r.witness, r.reason
    t = PE._Terms(FMT)
    y = t._id(("y",))
    assert t.mul(t.mul(y, Fraction(2)), Fraction(1, 2)) != y and not t.used
    assert t.mul(t.mul(y, Fraction(2)), Fraction(3)) == t.mul(y, Fraction(6))


def _run_nodes(floor):
    c, _, capped, net, (gate, entries) = _built()
    return c, [n for n in PT.network_nodes(FMT, 0, capped, net, entries, gate, gate_zero=GR.CARRIED, pre_floor=floor)
               if ".layers" in n.name]


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_run_claim_needs_the_floor_I():
    c, runs = _run_nodes(None)
    _, floored = _run_nodes(Fraction(c.I))
    assert runs and [n.name for n in runs] == [n.name for n in floored]
    node = next(n for n in floored if n.name.startswith("chain.x0x0000."))
    assert "float >= 0x" in node.claim.doc
    assert _one(FMT, node).status == "PROVED"
    free = next(n for n in runs if n.name == node.name)
    r = _one(FMT, free)
    assert r.status == "REFUTED" and r.witness, r.reason


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_layer_claim_fails_on_a_network_with_one_wrong_weight(monkeypatch):
    """A layer claim PROVED on Swish's network as built, REFUTED once the network runs its
    program with one weight doubled (the claims still state the true program)."""
    with get_construction("swish").active():
        root, net = PE.chain_root(FMT, 0, PT.builtin_pieces(), "t")
    layer = [n for n in root.children if ".layer" in n.name and ".layers" not in n.name]
    real = GR.chain_layers

    def wrong(fmt_, z, steps_):
        bad = [list(map(list, st)) for st in steps_]
        k = next(k for k in range(3, len(bad)) if any(w != 1 for u in bad[k] for _, w in u))
        u = next(j for j, unit in enumerate(bad[k]) if any(w != 1 for _, w in unit))
        bad[k][u] = [(src, w * 2 if w != 1 else w) for src, w in bad[k][u]]
        return real(fmt_, z, bad)
    monkeypatch.setattr(GR, "chain_layers", wrong)
    with get_construction("swish").active():
        root2, net2 = PE.chain_root(FMT, 0, PT.builtin_pieces(), "t")
    changed = [n for n, m in zip(net.layers, net2.layers) if list(map(int, n.weights)) != list(map(int, m.weights))]
    assert changed
    i = next(i for i, (a, b) in enumerate(zip(net.layers, net2.layers)) if list(map(int, a.weights)) != list(map(int, b.weights)))
    name = next(n.name for n in layer if n.name.endswith(f".layer{i}") and n.name.startswith("chain.x0x0000."))
    assert _one(FMT, next(n for n in root.children if n.name == name)).status == "PROVED"
    r = _one(FMT, next(n for n in root2.children if n.name == name))
    assert r.status == "REFUTED" and r.witness, r.reason


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_rows_in_reproduce(tmp_path):
    """GELU's rect_theorem_3_2 (the program tree) in float16: PROVED; in float8_e4m3 no row,
    one line saying why (too few significand bits)."""
    from conftest import fpsmt
    r = fpsmt("reproduce", "--activation", "gelu", "--lemma", "rect_theorem_3_2", "--format", "float16,float8_e4m3",
              "--store", "s.db", "--report", "r.md", "--json", "--no-confirm", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["lemma"], x["activation"], x["format"], x["status"]) for x in rows] == [
        ("rect_theorem_3_2", "gelu", "float16", "PROVED")]
    assert "rect_theorem_3_2 (repaired, gelu) in float8_e4m3: not stated here: gelu in float8_e4m3: too few" in r.stderr


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_construct_gelu_prove_network(tmp_path):
    """``construct --activation gelu --prove-network`` in E4M4 (D(y) = ±1 exactly at |y| >= 1
    at x = 0, a zero at x = 1): verified at every (x, y); the point's program and network
    claims PROVED with every UNSAT answer confirmed, named as GELU's."""
    from conftest import construct_sign_at_one, point_network_proved
    d, stderr = construct_sign_at_one(tmp_path, "e4m4", "gelu", "--prove-network")
    point_network_proved(d, stderr, "gelu", "0x000", "0x070")


@pytest.mark.slow
def test_network_rows_proved_e5m6(tmp_path):
    """GELU's and Swish's network rows in E5M6 (12 bits: the built-in g's program fits the
    weight cap from M = 6), every UNSAT answer confirmed."""
    from conftest import fpsmt
    r = fpsmt("reproduce", "--activation", "gelu,swish", "--lemma", "rect_theorem_3_2_network", "--format", "e5m6",
              "--store", "s.db", "--report", "r.md", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["activation"], x["status"]) for x in rows] == [("gelu", "PROVED"), ("swish", "PROVED")]
    assert all(not x["confirmed"]["unconfirmed"] for x in rows)


@pytest.mark.parametrize("activation", ["elu", pytest.param("gelu", marks=pytest.mark.slow)])
def test_pieces_in_float32(tmp_path, activation):
    """Targets given as pieces (examples/clipping_pieces_float32.py) build the rectifying
    family's Theorem 3.2 network in float32: checked by the executor at every breakpoint and
    its neighbours, bit-exact; the network names σ."""
    from conftest import fpsmt
    r = fpsmt("construct", "--targets", "example:clipping_pieces_float32.py", "--format", "float32", "--activation",
              activation, "--out", "n.json", "--no-prove", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["activation"] == activation and d["given"] == "pieces" and not d["mismatches"] and d["pairs"] > 0
    layers = json.loads((tmp_path / "n.json").read_text())["layers"]
    assert {L["activation"] for L in layers[:-1]} == {activation}


@pytest.mark.slow
def test_construct_gelu_certify(tmp_path):
    """``construct --activation gelu --certify`` (E4M4): the rectifying family's Theorem 3.1
    lemmas, the point's program and its gated network at the whole network's depth, all
    PROVED with every UNSAT answer confirmed: certified (about 4 minutes)."""
    from conftest import construct_sign_at_one
    d, _ = construct_sign_at_one(tmp_path, "e4m4", "gelu", "--certify")
    assert d["certified"] is True
    assert [c["lemma"] for c in d["certificates"]] == ["rect_step_indicator_ge", "rect_step_indicator_le",
                                                         "rect_value_atom", "rect_gradient_atom", "rect_theorem_3_1"]
