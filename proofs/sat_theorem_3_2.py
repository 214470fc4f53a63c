"""Theorem 3.2 for the saturating family (tanh, and a user's σ with its requirements): the
gated network of fpsmt.constructions.gated_sat computes one domain point's backward
program, for every upstream |y| <= H_σ.

The backward program is ReLU's (fpsmt.constructions.theorem32: the pieces' programs, summed
pairwise), on ⊗ and ⊕ only, so its proof tree is proofs/theorem_3_2_relu.py's
``point_tree``, decided again in the row ``sat_theorem_3_2`` (whose statement gives the depth
of tanh's network beside the paper's).  The network (row ``sat_theorem_3_2_network``) runs
``gated_sat.program``: the output row hands y ⊗ 1 to each top neuron, the top ⊗ 1 on to
d_j, d_j ⊗ w_j (the program's first step), then the program's steps — the program's values
up to u ⊗ 1 = u (the fact ``pad``; the rewrite is checked when the claims are built,
proofs/rect_theorem_3_2.py ``cap_nodes``).  Its claims are proofs/theorem_3_2_relu.py's
``network_nodes`` over ``gated_sat.layout``:

* **at x = z** (±0 both, for z = 0), one claim per layer after layer 0: for every finite
  upstream on the layer's neurons (a zero on the step indicators' rows: at z only the next
  indicator layer and p read them, and those send zeros), the backward pass (σ' at the
  layer's forward pre-activations at z, a ground run: zeros on the chain, where σ' = 1)
  gives the program's step on the chain's columns (numerically: a zero met by either zero),
  a zero on the gate's columns (p and the indicators' last layer are saturated, σ' = 0)
  and finite gradients on the others.  A run of layers that repeats is one claim over a
  symbolic index, as for ReLU; its rows whose pre-activation at z is at least 2^T (p, its
  carries) take any float of at least 2^T there (σ' = 0 on all of them: the requirement
  R.saturation), its chain rows their bits (zeros).  The top layer's claim takes every upstream within
  ±H_σ (the output row gives it y ⊗ 1): it sends ±G ⊗ upstream into p, finite there and
  not for every finite upstream.
* **layer 0**: for every finite upstream on the path r0 and zeros on the indicators' first
  layer, D^AD at x = z is r0's upstream (σ'(±0) = 1, weight 1 on x).
* **at other points x of X** (±ω, 1 and X's least value): the output row and the top layer
  send a zero to every column below, for every finite y (t_j and N_j are saturated); below,
  zeros stay zeros (a finite σ' — every pre-activation at x is finite, checked on the run).

So D^AD(z, y) = g(y) for every |y| <= H_σ, with the program's values finite
(sat_theorem_3_2).  What is argued, not a node, is as for ReLU and ELU: these joins,
numerical equality kept by ⊕ and ⊗, and that the layers the claims run are the network's
(they run the very layers gated_sat builds).  The ⊞ with the value atoms and the other
points' networks is checked by the executor at every (x, y) with |y| <= H_σ (``fpsmt
construct --activation tanh``), not stated here.

**The whole network** (``fpsmt construct --activation tanh --certify``): the ⊞ of the
points' gated networks and the family's value atoms (gated_sat.theorem_network), each gated
network at the whole network's depth (carries of its path r), which is the network its
claims are decided on.  The argument is proofs/family_theorem.py's, with each gated network
in the place of a gradient atom, as for the rectifying family: at a domain point x, the
gated network of x gives D^AD = g(x, y) for every |y| <= H_σ, every other point's a zero
(its killed claims), every value atom a zero for |y| <= H_σ (sat_value_atom); the output
row's gated terms come first, in pairs (1 ⊗ t_j, 1 ⊗ N_j) that sum to an exact zero at
every x (+0 and +0 at z, −1 and 1 elsewhere), as the family's gradient atom's
(w_out ⊗ r_top, w_out ⊗ N) do; beside each other every part computes what it computes
alone up to the signs of zeros (approx.congruence, given each part's values finite at every
domain point: a ground run, construct's certification); layer 1's gradient is the
left-to-right sum of every part's first-layer terms.  The rows linked are the family's
Theorem 3.1 lemmas.  What is argued, not a node: these joins.
"""

from __future__ import annotations

from fractions import Fraction

from fpsmt.constructions import theorem32 as M
from fpsmt.errors import InputError
from fpsmt.proof.lemmas import Lemma
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.proofs.rect_theorem_3_2 import cap_nodes
from fpsmt.proofs.sat_common import FAMILY
from fpsmt.semantics.formats import parse_format


def applies(fmt):
    """Why the rows do not exist in ``fmt`` for the active σ (the family's blocks and gate,
    the built-in g's program, a format of at most 16 bits: the ∀y network claims are stated
    where construct builds tanh's network), or None."""
    from fpsmt.constructions import gated_sat as GS
    why = FAMILY.formats(fmt)
    if why is not None:
        return why
    fmt = parse_format(fmt)
    if fmt.nbits > 16:
        return f"tanh's Theorem 3.2 network is built in formats of at most 16 bits, not {fmt.name}"
    try:
        GS.check_format(fmt)
        M.piece_programs(fmt, PT.builtin_pieces())
    except InputError as e:
        return str(e)
    return None


def chain_root(fmt, z, pieces, name, others=(), depth=None):
    """The claims that the point's gated network (gated_sat.gated_program) computes its
    program at x = z and sends a zero at every x of ``others`` (patterns), and the network."""
    from fpsmt.constructions import gated_sat as GS
    fmt = parse_format(fmt)
    zq = Fraction(z)
    steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, pieces)))
    net = GS.gated_program(fmt, zq, steps, depth)
    entries, prog = GS.layout(fmt, steps, depth)
    nodes = cap_nodes(fmt, steps, prog)  # the fact pad: the program the network runs is the program
    # a run of layers takes a row's pre-activation as any float of at least 2^T where it is
    # that at z (p and its carries, the indicators' saturated rows: σ' = 0 there); the chain's
    # rows are zeros at z (their bits)
    nodes += PT.network_nodes(fmt, zq, prog, net, entries, GS.GATE, gate_zero=GS.GATE_ZERO,
                              pre_floor=GS.gate_weight(fmt), bounded={net.depth - 2: GS.y_bound(fmt)})
    nodes += PT.killed_nodes(fmt, zq, net, others)
    return PT.chain_lemma(name, nodes), net


row_others = FAMILY.row_others


def repaired(fmt):
    from fpsmt.constructions import gated_sat as GS
    return PT.family_program_row(fmt, "sat_theorem_3_2", GS.theorem_network,
                                 f"of {FAMILY.activation()} at x = 0 built on it (gated_sat)")


def network_row(fmt):
    from fpsmt.constructions import gated_sat as GS
    others = row_others(fmt)
    root, _ = chain_root(fmt, 0, PT.builtin_pieces(), "sat_theorem_3_2_network", others)
    f = parse_format(fmt)
    pts = ", ".join(f.hex(x) for x in others)
    H = f.hex(f.round(GS.y_bound(f)))
    statement = ("for the built-in g of sat_theorem_3_2: the point's gated network (gated_sat, before ⊞) at x = ±0, "
                 "every finite upstream gradient on each layer (within ±H = " + H + " on the top layer; a zero on "
                 "the step indicators' rows): each layer's backward pass gives the program's step on the chain's "
                 "columns (numerically: a zero met by either zero), a zero on the gate's columns and finite "
                 "gradients on the others, and layer 0 passes the path's gradient to x; with the program's values "
                 "finite (sat_theorem_3_2) and u ⊗ 1 = u (pad), D^AD(±0, y) is the program's value for every |y| "
                 f"<= H.  At x = {pts} its D^AD is a zero for every finite y (its top layers send zeros; below, "
                 "zeros stay zeros).  The ⊞ with the value atoms and the other points' networks is checked by the "
                 "executor, not stated here")
    return root, statement


LEMMA = Lemma("sat_theorem_3_2",
              "Theorem 3.2 (BRIEF §3, §9) for the saturating family (tanh): one point's backward program",
              {"repaired": repaired}, formats=applies, order=610, family="saturating", only=("repaired",))
