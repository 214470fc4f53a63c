"""Theorem 3.1 for ReLU on a 1-D domain (paper Theorem 3.1; BRIEF §4, §5), from the atoms.

Statement.  Let D ⊆ X = [−2^(e_max−2), 2^(e_max−2)] be a set of floats (distinct as
numbers: +0 and −0 are one point), f*: D → finite floats, h*: D → floats with
|h*| <= H_σ = Ω, g*: D → finite floats with h*(x) = 0 ⇒ g*(x) = 0.  The network

    f = f2 ⊞ f1,  f2 = ⊞_{z ∈ D, g*(z) ≠ 0} GA(z, h*(z), g*(z)),  f1 = ⊞_{z ∈ D} ZGA(z, f*(z))

(fpsmt.constructions.relu.theorem_network: repaired gradient atoms, then repaired zero-gradient
atoms, padded to the gradient atom's depth or to any depth above it: construct --depth) satisfies, for every x ∈ D,
f(x) = f*(x) and D^AD_(f,x)(h*(x)) = g*(x), where a zero target is met by +0 or −0
(proofs/boxplus_neutrality.py shows why no network of this form can do better).

Argument.  Fix x ∈ D and write y = h*(x).
1. Every atom is a network of its own on the shared input; ⊞ only pads (exact copies,
   boxplus docstring) and merges the output rows.  Padding (the zero-gradient atoms to
   the gradient atom's depth; with ``construct --depth``, every atom to a greater one)
   inserts copies of an atom's last hidden layer before its output row: by
   boxplus_neutrality.padding, for any number of copies, they carry every value (ReLU
   outputs: >= 0 and finite) unchanged and every gradient up to the sign of a zero, so
   the atom's ``output`` stage meets the values it meets unpadded.  Under the dense semantics every
   hidden row of an atom also adds +0 ⊗ (the other atoms' values), and every upstream
   gradient +0 ⊗ (the other atoms' gradients): those terms are zeros only because every
   atom's values and gradients are finite (its stages state each value and gradient
   they produce), and a zero added to a sum leaves a nonzero sum as it is and a zero
   sum a zero (boxplus_neutrality's ``times`` and the inductions' steps).  That every
   value and gradient of every atom is finite, layer by layer, is stated by the atoms'
   stages: layers 1–5 by the blocks' finiteness facts (proofs/common.py ``Beside.facts``),
   the zero-gradient atom's layers 6–8 by its ``top`` stage, the gradient atom's layer 6
   by ``gate_top``, layer 7 and the shrink and chain layers by the states they keep
   (GATE, AT_Z, KILLED: constants; ``shrink``: 1 or F − F⁻) and by the backward
   inductions (the gradient along R is the transfer's partial product, finite; the
   others finite or zeros), its last two layers by ``output`` — every hidden value and
   gradient inside a stage by ``finite_inside``.  Inside an atom, the blocks that share
   layers 1–5 (the step pair, T) are stated beside each other: their stages hold for
   every ±0 in place of each absent term (fpsmt.semantics.network.Zeros).  That every
   atom beside the other atoms computes what it computes alone up to the signs of zeros
   (≈), values and gradients, is the tree ``approx.congruence`` (fpsmt.proof.approx
   ``congruence_tree``, a node of the row): ≈ is kept by every step of a row of any
   length (a product of ≈ inputs by the same weight, an absent term that is a zero in
   both or in the whole only, the bias: an induction with ⊗ and ⊕ uninterpreted and
   three facts about zeros), by σ and the backward formula of each activation of the
   network (relu, identity), and another atom's value or gradient ≈ a finite one is
   finite, so its absent term is a zero (``approx.share``; finite alone by the stages
   above).  Its predicates close the induction over the layers: the row's step takes
   the pair the σ stages guarantee, the σ stages the sum the row's conclusion guarantees.
   That a layer's run is its rows then σ, and its backward pass the formula then its
   columns, is the code's (fpsmt.semantics.network.run); that the whole's row of an atom
   is the atom's present terms in its own order, then one absent sum over every other
   column, is tested (tests/test_tree.py).  A zero that ≈ leaves in the place of another
   is one the value and gradient inductions below take as any zero.
2. Values (zero_gradient_atom, gradient_atom): the ZGA of x gives f*(x), every other
   ZGA ±0; the GA of x (if any) gives the pair w_out, −w_out, every other GA a pair of
   zeros.  With f2's terms first, boxplus_neutrality's ``value`` induction (any number
   of atoms up to its slot bound, a symbolic running sum) gives f(x) = f*(x).
3. Gradients: every ZGA gives D^AD = ±0 for every finite upstream, every GA of z ≠ x
   gives ±0 for every |y| <= Ω, and the GA of x gives g*(x) for upstream h*(x)
   (a point with g*(x) = 0 has no GA).  Layer 1's gradient w.r.t. x is the
   left-to-right sum over all first-layer neurons' terms: zeros and at most one g*(x),
   so boxplus_neutrality's ``gradient`` induction gives D^AD(h*(x)) = g*(x).
Depth: the gradient atom's (gradient_atom statement); the paper's L >= 7 is not
matched.  The repaired transfer chain needs its length (fpsmt.constructions.relu); the
``shallow`` variant (the same join, with the shallow gradient atom's tree:
relu.shallow_gradient_atom) has 11 layers in every format.  Width: about 3 per gradient atom and 2–3 per zero-gradient atom.

The repaired row's tree is the two atoms' trees, ⊞'s and ``approx.congruence`` under one
lemma node; it is PROVED only when every node is.  ``beside_tree`` states the same per
layer pattern of the atoms instead (one claim per pattern, larger: a cross-check in the
slow tests, not a node of the row).  The released row checks the released atoms'
lemmas first, and shows the first that fails.
"""

from fpsmt.constructions import relu as C
from fpsmt.proof.approx import SLOTS
from fpsmt.proof.lemmas import Lemma, load
from fpsmt.proof.tree import Node


def _parts(variant, fmt):
    claims, seen, hints = [], set(), {}
    for name in ("zero_gradient_atom", "gradient_atom", "boxplus_neutrality"):
        built = load(name).build(variant, fmt)
        hints.update(built[2] if len(built) > 2 else {})
        for c in load(name).claims(variant, fmt):
            if c.name not in seen:
                seen.add(c.name)
                claims.append(c)
    return claims, hints


def atom_layers(fmt, z=1, v=3, h=1, g=2, variant=C.REPAIRED):
    """(label, layer) for every layer of the theorem's atoms as the network has them: the
    repaired (or shallow) gradient atom, the repaired zero-gradient atom and the padding
    copy that ⊞ inserts (at one choice of parameters: the patterns do not depend on them,
    tested)."""
    from fpsmt.proof.claims import Scope
    from fpsmt.semantics.arith import concrete
    s = Scope(concrete(fmt), fmt, {})
    ga, _ = C.gradient_atom(s, s.const(z), s.const(h), s.const(g), variant)
    zga, _ = C.zero_gradient_atom(s, s.const(z), s.const(v), C.REPAIRED)
    pad = C.padding_layer(fmt, zga.layers[-2].n_out)
    return ([(f"gradient_atom[{k}]", L) for k, L in enumerate(ga.layers)]
            + [(f"zero_gradient_atom[{k}]", L) for k, L in enumerate(zga.layers)] + [("padding", pad)])


def beside_tree(fmt):
    """Every layer pattern of the atoms, beside other atoms (their share of each absent
    term a zero of either sign, added after the layer's own: the whole dense network's
    rows exactly), computes what it computes alone up to the signs of zeros, values and
    gradients (fpsmt.proof.approx: ⊗ and ⊕ uninterpreted, three facts about zeros)."""
    from fpsmt.proof import approx
    stages = []
    for i, (layer, labels) in enumerate(approx.patterns(atom_layers(fmt))):
        c = approx.layer_claim(f"theorem_3_1_relu.beside.layer{i}", layer,
                               doc=f"the {layer.n_out}x{layer.n_in} {layer.activation} layer pattern of "
                                   f"{', '.join(labels[:3])}{' …' if len(labels) > 3 else ''} "
                                   f"({len(labels)} layer{'' if len(labels) == 1 else 's'}) "
                                   "beside other atoms: values and gradients as alone, up to the signs of zeros")
        stages.append(Node("stage", c.name, c, doc=c.doc))
    return Node("lemma", "theorem_3_1_relu.beside", None, approx.zero_facts() + stages,
                doc="each layer of every atom beside the other atoms, up to the signs of zeros")


def released(fmt):
    claims, hints = _parts(C.RELEASED, fmt)
    return claims, ("the composition f2 ⊞ f1 of the released atoms (BRIEF §5.1) for every domain of X, every finite "
                    "f*, |h*| <= Omega and finite g*: f(x) = f*(x) and D^AD(h*(x)) = g*(x); it rests on the released "
                    "zero-gradient and gradient atoms, whose lemmas are checked first"), hints


def repaired(fmt, variant=C.REPAIRED):
    """The three lemmas' trees under one lemma node (their shared stages are decided once);
    ``variant="shallow"``: the shallow gradient atom's tree in its place (the zero-gradient
    atoms and ⊞ are the repaired ones, padded to its depth)."""
    from fpsmt.proof.lemmas import tree_node
    from fpsmt.proof import approx
    parts = [tree_node(name, load(name).build(variant if name == "gradient_atom" else C.REPAIRED, fmt)[0])
             for name in ("zero_gradient_atom", "gradient_atom", "boxplus_neutrality")]
    acts = [L.activation for _, L in atom_layers(fmt, variant=variant)]
    tree = Node("lemma", "theorem_3_1_relu", None, parts + [approx.congruence_tree(acts)],
                doc="the atoms' and ⊞'s trees, and approx.congruence: each atom computes in f2 ⊞ f1 what it "
                    "computes alone, up to the signs of zeros (the other atoms' absent entries add zeros)")
    return tree, (
        f"for every domain D of distinct floats in X = [-2^{fmt.e_max - 2}, 2^{fmt.e_max - 2}], every finite f*, "
        "every h* with |h*| <= Omega and every finite g* with g* = 0 where h* = 0: the network f2 ⊞ f1 of "
        f"fpsmt.constructions.relu.theorem_network{'' if variant == C.REPAIRED else '(variant=' + repr(variant) + ')'} "
        f"(depth {C.gradient_atom_depth(fmt, variant)}, or any depth above it up to "
        f"{SLOTS} more: every atom padded by copies of its last hidden layer, boxplus_neutrality.padding) has f(x) "
        "= f*(x) and D^AD(h*(x)) = "
        "g*(x) at every x of D (a zero target met by +0 or -0); proved as the trees of zero_gradient_atom, "
        f"gradient_atom{'' if variant == C.REPAIRED else ' (' + variant + ')'} and boxplus_neutrality and the atoms' "
        "congruence beside each other (approx.congruence), "
        "joined by the argument in proofs/theorem_3_1_relu.py")


def shallow(fmt):
    return repaired(fmt, C.SHALLOW)


LEMMA = Lemma("theorem_3_1_relu", "Theorem 3.1 (BRIEF §4, §5)",
              {"released": released, "repaired": repaired, "shallow": shallow},
              order=100, construction=True, network=True)
