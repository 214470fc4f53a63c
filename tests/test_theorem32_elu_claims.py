"""Theorem 3.2 for ELU, the ∀y claims (proofs/rect_theorem_3_2.py): where the program sits in
the gated network (gated_rect.layout) read independently off the built weights; the layer,
gate and killed claims PROVED on the network as built and REFUTED, with a replayed
counterexample, on a wrong one; the gate claim REFUTED without the zero upstream on the
carried indicators (why the claims state it); the lemma rows in ``reproduce``."""

import json
from fractions import Fraction

import pytest

from fpsmt.constructions import gated_rect as GR
from fpsmt.constructions import theorem32 as M
from fpsmt.constructions.registry import get_construction
from fpsmt.proofs import rect_theorem_3_2 as PE
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.semantics.formats import parse_format

FMT = parse_format("float8_e4m3")


def _one(fmt, node):
    from fpsmt.proof.engine import Engine
    return Engine(solver="portfolio", timeout=300, confirm=False).prove(node.claim, fmt, {node.claim.name: node.claim})


def _built(fmt=FMT, z=0):
    with get_construction("elu").active():
        steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, PT.builtin_pieces())))
        chain = GR.chain_layers(fmt, Fraction(z), steps)
        net = GR.gated_program(fmt, Fraction(z), steps, chain=chain)
        return steps, net, GR.layout(chain, steps)


def _dense(fmt, layer):
    W = [[Fraction(0)] * layer.n_in for _ in range(layer.n_out)]
    for i, j, w in zip(layer.rows.tolist(), layer.cols.tolist(), layer.weights):
        W[i][j] = fmt.to_fraction(int(w))
    return W


def test_layout_is_the_network_weight_for_weight():
    """Each entry's rows and columns, read off the built network's weights: in a step
    layer, the weight from new unit c's column into source unit r's row is the program's
    weight of r in unit c (zero where the unit does not read r); in a damp layer, 1 on the
    diagonal; the carried indicators read only the carried indicators below."""
    steps, net, (gate, entries) = _built()
    assert gate[gate.index("R")] == "R" and {"uge", "ule"} <= set(gate)
    first = len(net.layers) - len(entries)
    assert sum(kind == "step" for kind, *_ in entries) == len(steps)
    for i, (kind, k, rows, cols, zrows, zcols) in enumerate(entries):
        W = _dense(FMT, net.layers[first + i])
        for c, col in enumerate(cols):
            for r, row in enumerate(rows):
                if kind == "step":
                    want = sum((w for src, w in steps[k][c] if src == r), Fraction(0))
                else:
                    want = Fraction(int(r == c))
                assert W[row][col] == want, (i, kind, k, r, c)
        for row in zrows:
            assert {j for j, w in enumerate(W[row]) if w} <= set(zcols), i
    assert entries[-1][:3] == ("step", 0, [0])


def _with_bad_step(monkeypatch, k):
    """Networks built from now on run program step k with its first non-unit weight doubled;
    the claims still state the true program."""
    real = GR.chain_layers

    def wrong(fmt_, z, steps_):
        bad = [list(map(list, st)) for st in steps_]
        u = next(j for j, unit in enumerate(bad[k]) if any(w != 1 for _, w in unit))
        bad[k][u] = [(src, w * 2 if w != 1 else w) for src, w in bad[k][u]]
        return real(fmt_, z, bad)
    monkeypatch.setattr(GR, "chain_layers", wrong)


def _nodes(z=0, others=()):
    with get_construction("elu").active():
        root, net = PE.chain_root(FMT, z, PT.builtin_pieces(), "t", others)
    return root.children, net


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
@pytest.mark.soundness
def test_layer_claim_fails_on_a_network_with_one_wrong_weight(monkeypatch):
    steps, net, (_, entries) = _built()
    first = len(net.layers) - len(entries)
    i = next(i for i, (kind, k, *_) in enumerate(entries)
             if kind == "step" and 2 < k < 20 and any(w != 1 for u in steps[k] for _, w in u))
    k = entries[i][1]
    name = f"chain.x0x00.layer{first + i}"
    nodes, _ = _nodes()
    good = next(n for n in nodes if n.name == name)
    assert _one(FMT, nodes[0]).status == "PROVED"  # the gate
    assert _one(FMT, good).status == "PROVED"
    _with_bad_step(monkeypatch, k)
    nodes2, _ = _nodes()
    r = _one(FMT, next(n for n in nodes2 if n.name == name))
    assert r.status == "REFUTED" and r.witness, r.reason


def test_gate_claim_needs_the_zero_on_the_carried_indicators():
    """With any finite upstream on u_ge, u_le (alive at x = z) the gate passes more than R's
    gradient: REFUTED, replayed.  The network gives them a zero there, which the claims state."""
    steps, net, (gate, entries) = _built()
    r_free = _one(FMT, PT.network_nodes(FMT, 0, steps, net, entries, gate)[0])
    assert r_free.status == "REFUTED" and r_free.witness, r_free.reason
    assert _one(FMT, PT.network_nodes(FMT, 0, steps, net, entries, gate, gate_zero=GR.CARRIED)[0]).status == "PROVED"


def test_killed_claim_fails_where_a_top_neuron_stays_alive():
    """At x = 1 the gated network of 0 sends a zero for every finite y: PROVED as built;
    REFUTED once a top chain neuron's bias is large enough to keep it alive there."""
    import dataclasses

    from fpsmt.semantics.network import Network
    one = FMT.round(Fraction(1))
    _, net = _nodes()
    good, = PT.killed_nodes(FMT, 0, net, [one])
    assert _one(FMT, good).status == "PROVED"
    top = net.layers[-2]
    bias = list(top.bias)
    bias[0] = FMT.round(Fraction(256))
    wrong = Network(FMT, net.layers[:-2] + [dataclasses.replace(top, bias=bias), net.layers[-1]])
    bad, = PT.killed_nodes(FMT, 0, wrong, [one])
    r = _one(FMT, bad)
    assert r.status == "REFUTED" and r.witness, r.reason


def test_rows_in_reproduce(tmp_path):
    """rect_theorem_3_2 is a row of ELU's (PROVED: the program tree, with ELU's depth in its
    statement); GELU gets no row and one line saying why (in float8_e4m3: too few significand bits for
    its chain)."""
    from conftest import fpsmt
    r = fpsmt("reproduce", "--activation", "elu,gelu", "--lemma", "rect_theorem_3_2", "--format", "float8_e4m3",
              "--store", "s.db", "--report", "r.md", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["lemma"], x["activation"], x["status"]) for x in rows] == [("rect_theorem_3_2", "elu", "PROVED")]
    assert "has depth 91" in rows[0]["statement"]
    assert "rect_theorem_3_2 (repaired, gelu) in float8_e4m3: not stated here: gelu in float8_e4m3: too few" in r.stderr


@pytest.mark.slow
def test_network_row_proved_float8_e4m3(tmp_path):
    from conftest import fpsmt
    r = fpsmt("reproduce", "--activation", "elu", "--lemma", "rect_theorem_3_2_network", "--format", "float8_e4m3",
              "--store", "s.db", "--report", "r.md", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    row, = json.loads(r.stdout)
    assert row["status"] == "PROVED" and not row["confirmed"]["unconfirmed"]


def test_killed_claims_refused_where_a_lower_value_is_not_finite():
    """The killed claims' argument below the top two layers (zeros times finite σ' stay
    zeros) needs σ' finite at every pre-activation at x: with an infinite bias in layer 3,
    that layer's pre-activation is +∞ (ELU'(+∞) = 1, finite), and layer 4's is NaN, where σ'
    is NaN: refused with one line naming σ', x and the layer."""
    import dataclasses

    from fpsmt.errors import InputError
    from fpsmt.semantics.network import Network
    one = FMT.round(Fraction(1))
    _, net = _nodes()
    low = net.layers[3]
    bias = list(low.bias)
    bias[0] = FMT.inf_bits()
    wrong = Network(FMT, net.layers[:3] + [dataclasses.replace(low, bias=bias)] + net.layers[4:])
    with pytest.raises(InputError, match=r"σ' = 0x7c \(not finite\) at the pre-activation 0x7c at x = 0x38 "
                                         r"\(layer 4\)"):
        PT.killed_nodes(FMT, 0, wrong, [one])


@pytest.mark.slow
def test_construct_elu_prove_network(tmp_path):
    """``construct --activation elu --prove-network`` (E4M2, BRIEF §9's D(y) = ±1 exactly at
    |y| >= 1 at x = 0, a zero at x = 1): verified at every (x, y), the point's program and
    network claims PROVED with every UNSAT answer confirmed, named as ELU's."""
    from conftest import construct_sign_at_one, point_network_proved
    d, stderr = construct_sign_at_one(tmp_path, "e4m2", "elu", "--prove-network")
    net = point_network_proved(d, stderr, "elu", "0x00", "0x1c")
    assert "a zero on the carried step indicators" in net["statement"]
