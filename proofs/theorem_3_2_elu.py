"""Theorem 3.2 for ELU (and any rectifying σ of its kind: dead value δ = −1, σ'(±0) = 1, σ
the identity with σ' = 1 on (0, I)): the gated network of fpsmt.constructions.gated_rect
computes one domain point's backward program, for every finite upstream y.

The backward program is ReLU's (fpsmt.constructions.theorem32: the pieces' programs,
summed pairwise); it runs on ⊗ and ⊕ only, so its proof tree is
proofs/theorem_3_2_relu.py's ``point_tree``, decided again in the row ``theorem_3_2_elu``
(whose statement gives the depth of ELU's network beside the paper's).  What is ELU's is
the network that runs it (the row ``theorem_3_2_elu_network``), with the claims of
proofs/theorem_3_2_relu.py's ``network_nodes`` over gated_rect's ``layout``:

* **at x = z** (±0 both, for z = 0), one claim per layer after the gate R, for every
  finite upstream on the layer's neurons and a zero on its carried indicators u_ge, u_le:
  the backward pass (σ' at the layer's forward pre-activations at z, the executor's run:
  a ground computation) gives the program's step on the chain's columns (numerically: a
  zero met by either zero), a zero on the carried indicators' columns, finite gradients
  on every other column (the killer triples G1, G2, C).  The zero on the carries is
  where ELU differs from ReLU's claims: a carry is alive at z (σ' = 1), so a nonzero
  upstream would reach the step indicators; at z nothing but dead killers (σ' = +0), C's
  +0 weight and the next carry reads it, so its upstream is a zero, which the claim of
  the layer above concludes.  The top chain layer's twins (bias h_j(z), output weight
  −w_j) and every killer triple are rows with a finite upstream: their gradients reach
  only the triples' columns.  Runs of layers that repeat are one claim per period over a
  symbolic index, as for ReLU.
* **the gate**: for every finite upstream on R and on the first chain layer's triple, and
  a zero on the carries, D^AD at x = z is R's upstream (the path r: σ' = 1 and weight 1).
* **at other points x of X** (±ω, 1 and the least value of X, −M_σ rounded): the output
  row and the top chain layer send a zero to every column below, for every finite y
  (the top neurons and twins are dead, σ' = +0); below, zeros stay zeros (a zero times a
  finite weight or a finite σ' — every pre-activation at x is finite, checked on the
  executor's run — and sums of zeros).

From the output layer down the network's gradients are then the program's values, so
D^AD(z, y) = g(y) (with the program's values finite: theorem_3_2_elu).  What is argued,
not a node, is as for ReLU: these joins, numerical equality kept by ⊕ and ⊗, and that the
layers the claims run are the network's (they run the very layers gated_rect builds).
The ⊞ with the value atoms and the other points' networks is checked by the executor at
every (x, y) (``fpsmt construct --activation elu``), not stated here.
"""

from __future__ import annotations

from fractions import Fraction

from fpsmt.constructions import theorem32 as M
from fpsmt.errors import InputError
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.proofs.rect_common import FAMILY
from fpsmt.semantics.formats import parse_format


def applies(fmt):
    """Why the rows do not exist in ``fmt`` for the active σ (the family's blocks, ELU's kind
    and the chain's identity on (0, I), the built-in g's program), or None."""
    from fpsmt.constructions import gated_rect as GR
    why = FAMILY.formats(fmt)
    if why is not None:
        return why
    try:
        c = GR.check_format(parse_format(fmt))
        M.piece_programs(parse_format(fmt), PT.builtin_pieces())
    except InputError as e:
        return str(e)
    if not GR.gap_mode(c):
        return (f"{c.activation}: the ∀y claims of Theorem 3.2's gated network are stated for ELU's kind (δ = −1, "
                f"σ'(0) = 1: a chain of small positive gaps) so far, not δ = {c.dead_text}, σ'(0) = 2^{c.k0}")
    return None


def chain_root(fmt, z, pieces, name, others=()):
    """The claims that the point's gated network (gated_rect.gated_program) computes its
    program at x = z and sends a zero at every x of ``others`` (patterns); and the network."""
    from fpsmt.constructions import gated_rect as GR
    fmt = parse_format(fmt)
    zq = Fraction(z)
    steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, pieces)))
    chain = GR.chain_layers(fmt, zq, steps)
    net = GR.gated_program(fmt, zq, steps, chain=chain)
    gate, entries = GR.layout(chain, steps)
    nodes = PT.network_nodes(fmt, zq, steps, net, entries, gate, gate_zero=GR.CARRIED)
    nodes += PT.killed_nodes(fmt, zq, net, others)
    return Node("lemma", name, None, nodes,
                doc="the gated network's layers at x = z compute the program; at the other points x its D is a "
                    "zero"), net


def row_others(fmt):
    """The row's other points of X (patterns): ±ω (nearest to 0), 1 and X's least value."""
    fmt = parse_format(fmt)
    M_sigma = FAMILY.theorem(fmt).M_sigma
    return [fmt.round(q) for q in (fmt.omega, -fmt.omega, Fraction(1), -Fraction(M_sigma))]


def repaired(fmt):
    from fpsmt.constructions import gated_rect as GR
    fmt = parse_format(fmt)
    pieces, zero = PT.builtin_pieces(), fmt.round(0)
    net = GR.theorem_network(fmt, [(zero, zero, pieces)], [M.piece_programs(fmt, pieces)])
    return PT.program_row(fmt, "theorem_3_2_elu", net, f"of {FAMILY.activation()} at x = 0 built on it (gated_rect)")


def network_row(fmt):
    others = row_others(fmt)
    root, _ = chain_root(fmt, 0, PT.builtin_pieces(), "theorem_3_2_elu_network", others)
    pts = ", ".join(parse_format(fmt).hex(x) for x in others)
    statement = ("for the built-in g of theorem_3_2_elu: the point's gated network (gated_rect, before ⊞) at x = ±0, "
                 "every finite upstream gradient on each layer (a zero on the carried step indicators): each layer's "
                 "backward pass gives the program's step on the chain's columns (numerically: a zero met by either "
                 "zero), a zero on the carried indicators' columns and finite gradients on the others, and the gate's "
                 "layers pass R's gradient to x; with the program's values finite (theorem_3_2_elu) D^AD(±0, y) is "
                 f"the program's value for every finite y.  At x = {pts} its D^AD is a zero for every finite y (its "
                 "top layers send zeros; below, zeros stay zeros).  The ⊞ with the value atoms and the other points' "
                 "networks is checked by the executor, not stated here")
    return root, statement


LEMMA = Lemma("theorem_3_2_elu", "Theorem 3.2 (BRIEF §3, §9) for ELU: one point's backward program",
              {"repaired": repaired}, formats=applies, order=710, family="rectifying", only=("repaired",))
