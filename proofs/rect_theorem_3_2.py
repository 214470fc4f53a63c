"""Theorem 3.2 for the rectifying family (ELU and any σ of its kind — dead value δ = −1,
σ'(±0) = 1, σ the identity with σ' = 1 on (0, I): gap mode —; GELU, Swish and any other σ
of the family: offset mode): the gated network of fpsmt.constructions.gated_rect computes
one domain point's backward program, for every finite upstream y.  The rows were named
theorem_3_2_elu and theorem_3_2_elu_network while they were stated for gap mode only.

The backward program is ReLU's (fpsmt.constructions.theorem32: the pieces' programs,
summed pairwise); it runs on ⊗ and ⊕ only, so its proof tree is
proofs/theorem_3_2_relu.py's ``point_tree``, decided again in the row ``rect_theorem_3_2``
(whose statement gives the depth of ELU's network beside the paper's).  What is ELU's is
the network that runs it (the row ``rect_theorem_3_2_network``), with the claims of
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
D^AD(z, y) = g(y) (with the program's values finite: rect_theorem_3_2).  What is argued,
not a node, is as for ReLU: these joins, numerical equality kept by ⊕ and ⊗, and that the
layers the claims run are the network's (they run the very layers gated_rect builds).
The ⊞ with the value atoms and the other points' networks is checked by the executor at
every (x, y) (``fpsmt construct --activation elu``), not stated here.

**Offset mode** (GELU, Swish): the network runs the capped program (gated_rect.cap_weights:
weights above the cap split, their sources scaled up first), whose chain pre-activations at
x = z are at least I, where σ(t) = t and σ' = 1.  Two things change:

* the capped program computes the program's bits for every finite y (:func:`cap_nodes`):
  a fact per split weight, (…(u ⊗ 2^k1) ⊗ …) ⊗ w' = u ⊗ w for every finite u, and the
  fact ``pad``; with them both programs are the same term, which the claims' builder
  checks (and refuses where they are not);
* a run's chain rows take any finite pre-activation of at least I (not any positive one:
  GELU′ and Swish′ are 1/2 near 0, and the run claim is REFUTED without the floor —
  tests/test_theorem32_offset_claims.py).

No C sits beside the killers (δ is a zero); the gate, layer and killed claims are the
same functions, run on the network as built.

**The whole network** (``fpsmt construct --activation A --certify``): the ⊞ of the points'
gated networks and the family's value atoms (gated_rect.theorem_network), each gated
network at the whole network's depth (carries in its step indicators), which is the
network its claims are decided on.  The argument is proofs/family_theorem.py's, with each
gated network in the place of a gradient atom, as proofs/theorem_3_2_relu.py's is
theorem_3_1_relu's: at a domain point x, the gated network of x gives D^AD = g(x, y) (its
program and network claims), every other point's a zero (its killed claims), every
value atom a zero for every finite upstream (rect_value_atom); the output row's gated
terms come first, in pairs (w_j ⊗ h_j, −w_j ⊗ h_j) whose two terms are equal at every x
(h_j and its twin N_j: both h_j(z) at z, both δ elsewhere), so the running sum is a zero
when the value atoms' terms begin (family_theorem's ``pieces``); beside each other every
part computes what it computes alone up to the signs of zeros (``approx.congruence``,
given each part's values finite at every domain point: a ground run of each gated
network alone, construct's certification); layer 1's gradient is the left-to-right sum
of every part's first-layer terms (``boxplus_neutrality.gradient``).  The rows linked
are the family's Theorem 3.1 lemmas (rect_step_indicator_ge, rect_step_indicator_le,
rect_value_atom, rect_gradient_atom, rect_theorem_3_1).  What is argued, not a node:
these joins, as for ReLU.
"""

from __future__ import annotations

from fractions import Fraction

from fpsmt.constructions import theorem32 as M
from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.proof.claims import forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import fact
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.proofs.rect_common import FAMILY
from fpsmt.semantics.formats import parse_format, pow2


def applies(fmt):
    """Why the rows do not exist in ``fmt`` for the active σ (the family's blocks, ELU's kind
    and the chain's identity on (0, I), the built-in g's program), or None."""
    from fpsmt.constructions import gated_rect as GR
    why = FAMILY.formats(fmt)
    if why is not None:
        return why
    try:
        c = GR.check_format(parse_format(fmt))
        steps = M.binary_sums(M.tree_sum(M.piece_programs(parse_format(fmt), PT.builtin_pieces())))
        if not GR.gap_mode(c):
            GR.weight_cap(parse_format(fmt), steps)
    except InputError as e:  # NoPlan is one
        return str(e)
    return None


class _Terms:
    """The program's values as shared terms over the upstream y (hash-consed ids), with the
    two rewrites the capped program needs applied as terms are made: u ⊗ 1 is u (the fact
    ``pad``), and (…(u ⊗ 2^k1) ⊗ … ⊗ 2^kj) ⊗ w' with every k >= 1 and |w'| >= 1 is u ⊗ w,
    w = w'·2^(k1+…+kj) a float of the format, from the chain's deepest u for which it is
    (each such triple used is a fact, proved for every finite u).  Two programs whose
    outputs are the same term compute the same bits for every finite y once those facts
    hold."""

    def __init__(self, fmt):
        self.fmt = fmt
        self.used, self.bases = set(), set()  # (ks, w', w); the terms u they were applied to
        # chains: term -> ((u0, k1), (u1, k2), …), u_j = u_(j−1) ⊗ 2^kj, the term u_n ⊗ 2^k(n+1)
        self.ids, self.chains = {}, {}

    def _id(self, key):
        return self.ids.setdefault(key, len(self.ids))

    def const(self, q):
        return Fraction(q)

    def _float(self, q):
        b = self.fmt.round(q)
        return self.fmt.is_finite(b) and self.fmt.to_fraction(b) == q

    def mul(self, a, w):
        if w == 1:
            return a
        chain = self.chains.get(a, ())
        if abs(w) >= 1:
            for j, (base, _) in enumerate(chain):
                ks = tuple(k for _, k in chain[j:])
                whole = w * pow2(sum(ks))
                if self._float(whole):
                    self.used.add((ks, w, whole))
                    self.bases.add(base)
                    return self.mul(base, whole)
        t = self._id(("mul", a, w))
        if w > 1 and w.denominator == 1 and w.numerator & (w.numerator - 1) == 0:
            self.chains[t] = chain + ((a, w.numerator.bit_length() - 1),)
        return t

    def add(self, a, b):
        return self._id(("add", a, b))


def cap_nodes(fmt, steps, capped) -> list:
    """Offset mode's capped program (gated_rect.cap_weights) computes the program's bits for
    every finite y: one fact per split weight w (its source scaled up by 2^k1, …, 2^kj
    first, then read with w' = w/2^(k1+…+kj), |w'| >= 1): (…(u ⊗ 2^k1) ⊗ …) ⊗ w' has the
    bits of u ⊗ w for every finite u (scaling up is exact until it overflows, and then u ⊗ w
    overflows too), and the fact ``pad`` (u ⊗ 1 = u); with them both programs' outputs are
    the same term (:class:`_Terms`, checked when the claims are built: refused here if
    not), every fact applied to y or to a value of the program (finite for every finite y:
    the row rect_theorem_3_2), so the facts' "every finite u" covers them.  Argued, not a
    node: the scaled copies u ⊗ 2^k1 ⊗ … that ``pad`` carries are finite too, since
    |u·2^(k1+…)| <= |u·w| and the program's u ⊗ w is finite (rounding is monotone)."""
    t = _Terms(fmt)  # one table: equal terms are one id
    y = t._id(("y",))
    want = T.eval_steps(steps, [y], t.mul, t.add, t.const)
    values = set(t.ids.values())  # y and the program's values, finite for every finite y (rect_theorem_3_2)
    if T.eval_steps(capped, [y], t.mul, t.add, t.const) != want or not t.bases <= values:
        raise InputError(f"{fmt.name}: the capped program is not the program up to the split facts, applied to the "
                         "program's own values (an internal error)")
    nodes = [PT.pad_fact()]
    for i, (ks, w1, w) in enumerate(sorted(t.used)):
        def goal(s, ks=ks, w1=w1, w=w):
            v = s.u
            for k in ks:
                v = v * s.const(pow2(k))
            return [(v * s.const(w1)).same(s.u * s.const(w))]
        c = forall(f"cap.split{i}", {"u": PT.V}, goal=goal,
                   doc=f"for every finite u: (u ⊗ {' ⊗ '.join(f'2^{k}' for k in ks)}) ⊗ {PT._show(w1)} has the bits "
                       f"of u ⊗ {PT._show(w)} (scalings up by powers of two, then a weight of magnitude at least 1: the "
                       "capped program's split weights)")
        nodes.append(fact(c))
    return nodes


def chain_root(fmt, z, pieces, name, others=(), depth=None):
    """The claims that the point's gated network (gated_rect.gated_program) computes its
    program at x = z and sends a zero at every x of ``others`` (patterns); and the network
    (``depth`` layers, by carries in its step indicators: its depth in a ⊞; the least by
    default).
    Offset mode (GELU, Swish): the network runs the capped program (:func:`cap_nodes`), its
    chain's pre-activations at least I."""
    from fpsmt.constructions import gated_rect as GR
    fmt = parse_format(fmt)
    zq = Fraction(z)
    steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, pieces)))
    c = GR.check_format(fmt)
    offset = not GR.gap_mode(c)
    run = GR.cap_weights(steps, GR.weight_cap(fmt, steps)) if offset else steps
    chain = GR.chain_layers(fmt, zq, steps)
    net = GR.gated_program(fmt, zq, steps, depth, chain=chain)
    gate, entries = GR.layout(chain, run)
    nodes = cap_nodes(fmt, steps, run) if offset else []
    nodes += PT.network_nodes(fmt, zq, run, net, entries, gate, gate_zero=GR.CARRIED,
                              pre_floor=Fraction(c.I) if offset else None)
    nodes += PT.killed_nodes(fmt, zq, net, others)
    return PT.chain_lemma(name, nodes), net


row_others = FAMILY.row_others


def repaired(fmt):
    from fpsmt.constructions import gated_rect as GR
    return PT.family_program_row(fmt, "rect_theorem_3_2", GR.theorem_network,
                                 f"of {FAMILY.activation()} at x = 0 built on it (gated_rect)")


def network_row(fmt):
    others = row_others(fmt)
    root, _ = chain_root(fmt, 0, PT.builtin_pieces(), "rect_theorem_3_2_network", others)
    pts = ", ".join(parse_format(fmt).hex(x) for x in others)
    statement = ("for the built-in g of rect_theorem_3_2: the point's gated network (gated_rect, before ⊞) at x = ±0, "
                 "every finite upstream gradient on each layer (a zero on the carried step indicators): each layer's "
                 "backward pass gives the program's step on the chain's columns (numerically: a zero met by either "
                 "zero), a zero on the carried indicators' columns and finite gradients on the others, and the gate's "
                 "layers pass R's gradient to x; with the program's values finite (rect_theorem_3_2) D^AD(±0, y) is "
                 f"the program's value for every finite y.  At x = {pts} its D^AD is a zero for every finite y (its "
                 "top layers send zeros; below, zeros stay zeros).  The ⊞ with the value atoms and the other points' "
                 "networks is checked by the executor, not stated here")
    from fpsmt.constructions import gated_rect as GR
    if not GR.gap_mode(GR.check_format(parse_format(fmt))):
        statement += (".  Offset mode: the layers run the capped program (pre-activations at least I), which gives the "
                      "program's bits for every finite y by the facts pad and cap.split* (u ⊗ 1 = u; a scaled-up "
                      "source read with the divided weight is the source read with the weight), the rewrite checked "
                      "when the claims are built")
    return root, statement


LEMMA = Lemma("rect_theorem_3_2",
              "Theorem 3.2 (BRIEF §3, §9) for the rectifying family (ELU, GELU, Swish): one point's backward program",
              {"repaired": repaired}, formats=applies, order=710, family="rectifying", only=("repaired",))
