"""Theorem 3.1 for ReLU on d-dimensional inputs (BRIEF §4, §5; the paper's X^d), from the
d-dimensional atoms.

Statement.  For every d <= 2^15, let D ⊆ X^d be a set of points (distinct as numbers in
each coordinate: +0 and −0 are one value), f*: D → finite floats, h*: D → floats with
|h*| <= Ω, g*: D → finite floats^d with h*(x) = 0 ⇒ g*(x) = 0.  The network

    f = f2 ⊞ f1,  f2 = ⊞_i ⊞_{z ∈ D, g*_i(z) ≠ 0} GA_i(z, h*(z), g*_i(z)),  f1 = ⊞_{z ∈ D} ZGA(z, f*(z))

(fpsmt.constructions.relu_nd.theorem_network: the gradient atoms input by input, then the
zero-gradient atoms, padded to the gradient atom's depth or to any depth above it) has f(x) = f*(x) and
D^AD_(f,x)(h*(x)) = g*(x), component by component, at every x ∈ D (a zero target met by
+0 or −0).

Argument: the 1-D theorem's (proofs/theorem_3_1_relu.py), with the d-dimensional atoms'
lemmas in place of the 1-D ones.
1. Every atom beside the others computes what it computes alone up to the signs of zeros
   (``approx.congruence``: a row of any length, σ and the backward formula of relu and
   identity; the atoms' values and gradients are finite, stated by their stages).  ⊞
   shares the d inputs among the atoms' first layers (fpsmt.constructions.relu.boxplus_copies);
   the whole's row of an atom is its own terms in its own order, then one absent sum
   (tests/test_atoms_nd.py checks it in the executor, d = 2 and 3).
2. Values: the ZGA of x gives f*(x), every other ZGA and every GA ±0
   (zero_gradient_atom_nd, gradient_atom_nd); boxplus_neutrality's ``value`` induction
   gives f(x) = f*(x).
3. Gradients, coordinate by coordinate: D^AD w.r.t. x_j is the sum over every first-layer
   row's term in column j.  GA_j of x gives g*_j(x) for upstream h*(x); every other atom
   gives ±0 in every coordinate (GA_i, i ≠ j, included: gradient_atom_nd states its other
   coordinates' D^AD ±0).  boxplus_neutrality's ``gradient`` induction gives g*_j(x).
"""

from fpsmt.constructions import relu_nd as N
from fpsmt.proof.approx import SLOTS
from fpsmt.proof.lemmas import Lemma, load, tree_node
from fpsmt.proof.tree import Node


def _activations(fmt):
    from fpsmt.constructions import relu as C
    zs = [fmt.round(1), fmt.round(-1)]
    nets = [C.concrete(N.gradient_atom(0), fmt, *zs, fmt.round(1), fmt.round(2)),
            C.concrete(N.zero_gradient_atom, fmt, *zs, fmt.round(3))]
    return [L.activation for net in nets for L in net.layers] + ["relu"]  # the padding copies: relu


def repaired(fmt, variant="repaired"):
    """The theorem's tree; ``variant="shallow"``: the shallow gradient atom's tree (the
    zero-gradient atoms and ⊞ are the repaired ones, padded to its depth)."""
    from fpsmt.proof import approx
    parts = [tree_node(name, load(name).build(variant if name == "gradient_atom_nd" else "repaired", fmt)[0])
             for name in ("zero_gradient_atom_nd", "gradient_atom_nd", "boxplus_neutrality")]
    kw = {} if variant == "repaired" else {"variant": variant}
    shallow = "" if variant == "repaired" else f" (variant={variant!r})"
    tree = Node("lemma", "theorem_3_1_relu_nd", None, parts + [approx.congruence_tree(_activations(fmt))],
                doc="the d-dimensional atoms' and ⊞'s trees, and approx.congruence")
    return tree, (
        f"every d <= 32768: for every domain D of distinct points of X^d, X = [-2^{fmt.e_max - 2}, "
        f"2^{fmt.e_max - 2}], every finite f*, every h* with |h*| <= Omega and every finite g* (d components) "
        f"with g* = 0 where h* = 0: the network f2 ⊞ f1 of fpsmt.constructions.relu_nd.theorem_network{shallow} "
        f"(depth {N.depth(fmt, **kw)}, or any depth above it up to {SLOTS} more: every atom padded by copies of its last "
        "hidden layer, boxplus_neutrality.padding) has f(x) = f*(x) and D^AD(h*(x)) = g*(x) in every component at "
        "every x of D (a "
        "zero target met by +0 or -0); proved as the trees of zero_gradient_atom_nd, gradient_atom_nd and "
        "boxplus_neutrality and the atoms' congruence beside each other (approx.congruence), joined by the "
        "argument in proofs/theorem_3_1_relu_nd.py")


def shallow(fmt):
    return repaired(fmt, "shallow")


LEMMA = Lemma("theorem_3_1_relu_nd", "Theorem 3.1 on X^d (BRIEF §4, §5)", {"repaired": repaired, "shallow": shallow},
              order=101, only=("repaired", "shallow"))
