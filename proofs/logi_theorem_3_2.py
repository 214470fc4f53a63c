"""Theorem 3.2 for the logistic family (sigmoid, and a user's σ with its requirements): the
gated network of fpsmt.constructions.gated_logi computes one domain point's backward
program, and the program gives g(y), for every upstream |y| <= H_σ.

The program (:func:`gated_logi.network_program`: the point's quarter program, the carries
of its paths, the paths' weights on x) runs in the family's arithmetic, every term
(u ⊗ 1/4) ⊗ w (:class:`theorem_3_2_relu.Quarter`).  Its proof, ``program``, per distinct
list of pieces: for every float y with |y| <= H_σ, the program run from d's gradient
((y ⊗ 4) ⊗ 1/4) ⊗ 4 gives g(y) (a zero target met by either zero) and every value it
computes is finite.

* In formats of at most 16 bits it is one claim of one variable, decided by enumerating
  every y in the executor and confirmed by enumerating again on the integer executor,
  whose rounding shares no code with it (the engine's confirmation of an enumerated
  answer); the solvers race for it too.
* In wider formats (float32, float64) it is the proof tree of
  proofs/logi_program_tree.py: ReLU's tree (staircase stages, final maps, the cancelling
  of below(t), the sums), rewritten for the quarter arithmetic, with the ×1 padding and
  carries as one pad each by the fact ``quarter_pad``.

The network (row ``logi_theorem_3_2_network``, and ``construct --activation sigmoid
--prove-network`` per point): proofs/theorem_3_2_relu.py's ``network_nodes`` over
``gated_logi.layout``, in the quarter arithmetic, with no gate claim (layer 0 holds the
paths beside the step indicators' first layer: its claim gives x's gradient):

* **the top**, at x = z (±0 both, for z = 0), for every |y| <= H_σ: the output row and the
  top layer (t = σ(−G ⊗ np ⊕ 4 ⊗ d ⊕ −2), N = σ(−G ⊗ np ⊕ −0), both at 1/2 with σ' = 1/4)
  give d's column ((y ⊗ 4) ⊗ 1/4) ⊗ 4 and np's column a finite value (G·H is finite:
  gated_logi.check_format);
* **each chain layer**, at x = z, for every finite upstream on its neurons (a zero on the
  step indicators' rows below their last layer): its backward pass (σ' at the layer's
  forward pre-activations at z — +0 on the chain, σ' = 1/4 — a ground run) gives the
  program's step on the chain's columns (numerically), a zero on the gate's columns (the
  indicators' last layer, np and its carries are saturated, σ' = 0) and finite gradients
  on the others; runs of layers that repeat are one claim over a symbolic index, as for
  ReLU; layer 0's column is x;
* **at other points x of X** (±ω, 1 and X's least value; in construct every other domain
  point): for every |y| <= H_σ the last two layers send a zero to every column below (t
  and N saturated), and below, zeros stay zeros.

So D^AD(z, y) = g(y) for every |y| <= H_σ.  What is argued, not a node, is as for ReLU and
the other families: these joins, numerical equality kept by ⊕ and ⊗ from the output layer
down, and that the layers the claims run are the network's (they run the very layers
gated_logi builds, and the executor's forward values at x).  The ⊞ with the value atoms
and the other points' networks is checked by the executor at every (x, y) with |y| <= H_σ
(``fpsmt construct --activation sigmoid``), not stated here.
"""

from __future__ import annotations

from fractions import Fraction

from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.proof.claims import forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node
from fpsmt.proofs import logi_program_tree as LPT
from fpsmt.proofs import theorem_3_2_relu as PT
from fpsmt.proofs.logi_common import FAMILY
from fpsmt.proofs.logi_program_tree import y_var
from fpsmt.semantics.formats import parse_format

FOUR = Fraction(4)


def enumerated(fmt) -> bool:
    """Whether the program claim enumerates y in ``fmt`` (formats of at most 16 bits); in
    wider ones the program is decided by its proof tree (proofs/logi_program_tree.py)."""
    return parse_format(fmt).nbits <= 16


def applies(fmt):
    """Why the rows do not exist in ``fmt`` for the active σ (the family's blocks and gate,
    the built-in g's program), or None."""
    from fpsmt.constructions import gated_logi as GL
    why = FAMILY.formats(fmt)
    if why is not None:
        return why
    fmt = parse_format(fmt)
    try:
        GL.check_format(fmt)
        if GL.point_program(fmt, PT.builtin_pieces()) is None:
            return "the built-in g has no program"
    except (InputError, T.NoPlan) as e:
        return str(e)
    return None


class _Finite:
    """The program's arithmetic (:class:`theorem_3_2_relu.Quarter`) folding "every value it
    computes is finite" into one condition as it goes: the enumeration then holds one array
    of it, not one per value (a long program's values over every y of bfloat16 took 4.2 GB,
    now 0.2 GB)."""

    def __init__(self, s):
        self.o, self.ok = PT.Quarter(s), None

    def _kept(self, v):
        f = v.is_finite()
        self.ok = f if self.ok is None else self.ok & f
        return v

    def const(self, q):
        return self.o.const(q)

    def mul(self, a, b):  # a ⊗ 1/4 is finite where a is: the product is what can overflow
        return self._kept(self.o.mul(a, b))

    def add(self, a, b):
        return self._kept(self.o.add(a, b))


def program_node(fmt, pieces, name, depth=None):
    """The node stating that the point's network program (:func:`gated_logi.network_program`
    at ``depth``, the least by default: the program the gated network at that depth runs,
    its paths' carries included) gives g(y) for every |y| <= H_σ, every value finite: in
    formats of at most 16 bits one claim, decided by enumerating y; in wider formats the
    proof tree of proofs/logi_program_tree.py (where any number of carries is one pad, so
    it holds at every depth)."""
    from fpsmt.constructions import gated_logi as GL
    fmt = parse_format(fmt)
    if not enumerated(fmt):
        root, _ = LPT.program_tree(fmt, pieces, name,
                                   doc="for every y with |y| <= H: the point's program in the quarter arithmetic gives "
                                       "g(y), a zero target met by either zero, every value finite")
        return root
    segs = PT.segments(pieces)
    prog = GL.point_program(fmt, pieces)
    if prog is None or not segs:
        raise InputError("every piece is 0: the point has no backward program (its gradient is the zero atom's)")
    steps, weights = prog
    program = GL.network_program(fmt, steps, weights, depth)

    def goal(s):
        o = _Finite(s)
        d = T.eval_steps(program, [o.mul(s.y * s.const(4), FOUR)], o.mul, o.add, o.const)[0]
        return [d.eq(PT._segs_term(s, s.y, segs)), o.ok]
    c = forall(name, {"y": y_var(fmt)}, goal=goal, enumerate=True,
               doc=f"for every y with |y| <= H: the point's program ({len(program)} steps, (u ⊗ 1/4) ⊗ w each term) "
                   "from ((y ⊗ 4) ⊗ 1/4) ⊗ 4 gives g(y), a zero target met by either zero, every value finite")
    return Node("stage", c.name, c, doc=c.doc)


def top_nodes(fmt, z, net, tag="chain"):
    """At x = z (±0 both for 0), for every |y| <= H_σ: the output row and the top layer
    give d's column ((y ⊗ 4) ⊗ 1/4) ⊗ 4 and np's a finite value."""
    import numpy as np

    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import Network, run
    A = concrete(fmt)
    zb = fmt.round(Fraction(z))
    top = Network(fmt, net.layers[-2:])
    if top.layers[0].n_in != 2:
        raise AssertionError(f"the top reads {top.layers[0].n_in} neurons, not np and d")
    nodes = []
    for xb in ([zb] if zb != 0 else [0, fmt.sign_bit]):
        tr = run(A, net, A.const(np.asarray([[xb]], dtype=np.uint64)))
        below = [fmt.hex(int(b)) for b in np.ravel(A.to_bits(tr.post[len(net.layers) - 3]))]

        def goal(s, below=below):
            _, grad = s.run(top, [s.const(b) for b in below], [s.y])
            return [grad[1].eq(PT.Quarter(s).mul(s.y * s.const(4), FOUR)), grad[0].is_finite()]
        c = forall(f"{tag}.x{fmt.hex(xb)}.top", {"y": y_var(fmt)}, goal=goal,
                   doc=f"the output row and the top layer at x = {fmt.hex(xb)}, every |y| <= H: d's column is "
                       "((y ⊗ 4) ⊗ 1/4) ⊗ 4, np's finite")
        nodes.append(Node("stage", c.name, c, doc=c.doc))
    return nodes


def chain_root(fmt, z, pieces, name, others=(), depth=None):
    """The claims that the point's gated network (gated_logi.gated_program at ``depth``)
    computes its program at x = z and sends a zero at every x of ``others`` (patterns),
    and the network."""
    from fpsmt.constructions import gated_logi as GL
    fmt = parse_format(fmt)
    zq = Fraction(z)
    prog = GL.point_program(fmt, pieces)
    if prog is None:
        raise InputError("every piece is 0: the point has no gated network")
    steps, weights = prog
    net = GL.gated_program(fmt, zq, steps, weights, depth)
    entries, program = GL.layout(fmt, steps, weights, net.depth)
    nodes = top_nodes(fmt, zq, net)
    nodes += PT.network_nodes(fmt, zq, program, net, entries, (), first=0, ops=PT.Quarter)
    nodes += PT.killed_nodes(fmt, zq, net, others, y=y_var(fmt))
    return PT.chain_lemma(name, nodes), net


row_others = FAMILY.row_others


def repaired(fmt):
    from fpsmt.constructions import gated_logi as GL
    fmt = parse_format(fmt)
    pieces, zero = PT.builtin_pieces(), fmt.round(0)
    net = GL.theorem_network(fmt, [(zero, zero, pieces)], [GL.point_program(fmt, pieces)])
    paper = FAMILY.theorem(fmt).depth_3_2[0]
    root = Node("lemma", "logi_theorem_3_2", None, [program_node(fmt, pieces, "logi_theorem_3_2.program")],
                doc="one point's backward program, every |y| <= H")
    H = fmt.hex(fmt.round(GL.y_bound(fmt)))
    how = ("decided by enumerating y" if enumerated(fmt) else
           "decided by its proof tree: staircase stages, final maps, sums, pads as one by quarter_pad")
    statement = (f"for g(y) = 0 for |y| < 1/16, y ⊗ 3 for 1/16 <= |y| < 4, ±2 from 4 on: the backward program of one "
                 f"domain point in the logistic family's arithmetic ((u ⊗ 1/4) ⊗ w each term: the pieces' quarter "
                 f"programs, the paths' weights on x) gives g(y) for every y with |y| <= H = {H}, every value it "
                 f"computes finite ({how}); the Theorem 3.2 network of {FAMILY.activation()} at "
                 f"x = 0 built on it (gated_logi) has depth {net.depth} (the paper's {paper}); that the network "
                 "computes the program is the row logi_theorem_3_2_network")
    return root, statement


def network_row(fmt):
    others = row_others(fmt)
    root, _ = chain_root(fmt, 0, PT.builtin_pieces(), "logi_theorem_3_2_network", others)
    f = parse_format(fmt)
    pts = ", ".join(f.hex(x) for x in others)
    statement = ("for the built-in g of logi_theorem_3_2: the point's gated network (gated_logi, before ⊞) at x = ±0: "
                 "for every |y| <= H the output row and the top hand d ((y ⊗ 4) ⊗ 1/4) ⊗ 4; every finite upstream "
                 "on each chain layer (a zero on the step indicators' rows below their last layer) gives the "
                 "program's step in the quarter arithmetic on the chain's columns (numerically), a zero on the "
                 "gate's and finite gradients on the others, layer 0's column being x; with the program "
                 "(logi_theorem_3_2) D^AD(±0, y) = g(y) for every |y| <= H.  At x = " + pts + " its D^AD is a zero "
                 "for every |y| <= H (its top layers send zeros; below, zeros stay zeros).  The ⊞ with the value "
                 "atoms and the other points' networks is checked by the executor, not stated here")
    return root, statement


LEMMA = Lemma("logi_theorem_3_2",
              "Theorem 3.2 (BRIEF §3, §9) for the logistic family (sigmoid): one point's backward program",
              {"repaired": repaired}, formats=applies, order=770, family="logistic", only=("repaired",))
