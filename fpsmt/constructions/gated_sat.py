"""Theorem 3.2's gated network for a saturating activation (tanh; a user's σ of the
``saturating`` family): the backward program of :mod:`fpsmt.constructions.threshold` run by
a chain whose every value at x = z is a zero, gated at its top by the family's point
indicator p (:mod:`fpsmt.constructions.saturating`).

What the family gives (its requirements): σ(±0) a zero with σ'(±0) = 1, σ(t) = ±1 with
σ'(t) = 0 for |t| >= 2^T, |σ| <= 1.  The network, for one point z of X:

* **the path** r0 = σ(x ⊖ z) (the gradient atom's: weight 1 on x, bias −z), a zero at
  x = z, where σ' = 1;
* **the chain**: one layer per backward step of the program, its neurons the step's
  source units, each σ(Σ w ⊗ h) with no bias.  At x = z every value is a zero, so every
  pre-activation is a zero and every σ' is 1: the backward pass computes the program's
  sums and products exactly as written (no gap biases: ReLU's chain needs them because
  ReLU'(0) = 0).  Elsewhere each value is in [−1, 1];
* **the gate**: the two step indicators and p = ±1 (+1 at x = z, −1 elsewhere, saturated:
  σ' = 0) beside the chain's first layers, p carried by σ(2^T ⊗ p) up to the top;
* **the top**: the output step's weights w_j move one layer down, d_j = σ(w_j ⊗ h_j) (a
  zero at z, in [−1, 1] elsewhere), then t_j = σ(1 ⊗ d_j ⊕ G ⊗ p ⊖ G) with G = 2^T: +0 at
  x = z and beyond −2^T elsewhere (1 − 2G <= −2^T: saturated at −1, σ' = 0), beside a twin
  N_j = σ(−G ⊗ p ⊕ G) (+0 at z, 1 elsewhere); the output Σ_j (1 ⊗ t_j ⊕ 1 ⊗ N_j) ⊕ −0 is
  an exact zero at every x.  At x = z the upstream y reaches each d_j unchanged (σ'(+0) = 1,
  weight 1) and h_j as y ⊗ w_j — the program's first step; elsewhere t_j and N_j are
  saturated, every upstream below them is a zero and D^AD is a zero.
* each pair (t_j, N_j) reads its own copy p_j of p (p's carries double over the last
  ⌈log2 n⌉ layers before the top, each copy reading one of the layer before): at x = z
  p_j receives G ⊗ y from t_j and −G ⊗ y from N_j, finite for
  |y| <= H_σ = 2^(M−2) (far below Ω/2^T), and p_j's σ' = 0 ends it — so the network is
  for |y| <= H_σ, the paper's bound for tanh, not every finite y (ReLU's and ELU's are).
  (With one p read by every pair, a layer claim that takes each neuron's upstream on its
  own sums 2n such terms into p, which overflows in float8_e4m3; with the n copies made in
  one layer from one p, that layer's claim sums n zeros into p's column, which bitwuzla-bv
  took 600 s to decide in E4M2 — doubling keeps every column at two rows.)

At x ≠ z a chain row sums at most Σ|w| (every |h| <= 1); a partial sum that overflows
stays ±∞ (each term is finite), so no NaN arises; σ(±∞) = ±1.  Nothing here is assumed:
the executor checks the network at every (x, y) with |y| <= H_σ
(:func:`fpsmt.constructions.theorem32.verify`), and proofs/sat_theorem_3_2.py states, layer
by layer over :func:`layout`, that one point's network computes its program for every
|y| <= H_σ (``construct --prove-network``, ``reproduce`` rows ``sat_theorem_3_2*``).
"""

from __future__ import annotations

import functools
from fractions import Fraction

from fpsmt.constructions import relu as R
from fpsmt.constructions import saturating as S
from fpsmt.constructions.threshold import step_rows
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, pow2
from fpsmt.semantics.network import Param

NEG0 = R.NEG0


def gate_weight(fmt: Format) -> Fraction:
    """G = 2^T: t_j = σ(d_j ⊕ G ⊗ p ⊖ G) is beyond −2^T at x ≠ z for every |d_j| <= 1."""
    return pow2(S.block_constants(fmt).T)


def y_bound(fmt: Format) -> Fraction:
    """The largest |y| the network is built for: H_σ of the activation (tanh's 2^(M−2))."""
    from fpsmt.constructions.registry import get_construction
    return Fraction(get_construction(S.hidden()).constants(fmt).H_sigma)


def check_format(fmt: Format):
    """The family's block constants in ``fmt`` (refused, one line, where they do not exist),
    and G ⊗ H_σ finite (p's upstream at x = z)."""
    c = S.block_constants(fmt)
    if 2 * gate_weight(fmt) * y_bound(fmt) > fmt.Omega:
        raise InputError(f"{c.activation} in {fmt.name}: the gate's G·H = 2^{c.T}·{float(y_bound(fmt)):g} is not "
                         "finite")
    return c


def chain_layers(fmt: Format, steps: list) -> list:
    """Per forward chain layer (the program's steps L−1 … 1, then the output weights' d
    layer): [(name, [(source, weight)])], sources named; the first layer reads "r"."""
    L = len(steps)
    widths = [1] + [len(step) for step in steps]
    prev, out = ["r"], []
    for k in range(L - 1, 0, -1):
        rows = step_rows(steps[k], widths[k])
        names = [f"n{len(out)}_{i}" for i in range(len(rows))]
        out.append([(n, [(prev[c], w) for c, w in terms]) for n, terms in zip(names, rows)])
        prev = names
    if L == 1:  # the output step reads R itself
        prev = ["r"]
    units = [(prev[j], w) for j, unit in enumerate(steps[0]) for _, w in unit]
    out.append([(f"d{j}", [(src, w)]) for j, (src, w) in enumerate(units)])
    return out


def fan_layers(n: int) -> int:
    """Layers that double p's copies from 1 to the ``n`` top pairs: ⌈log2 n⌉."""
    return (n - 1).bit_length()


def copies(k: int, hidden: int, n: int) -> int:
    """How many copies of p hidden layer ``k`` (1 … ``hidden``) holds from p's layer on: one,
    then doubling over the last :func:`fan_layers` layers up to ``n`` in the last."""
    return min(n, 1 << max(0, k - (hidden - fan_layers(n))))


def least_depth(fmt: Format, chain: list) -> int:
    """Layers of the gated network: r0 with the step indicators' first layer, the chain
    (at least as long as the gate: the step indicators and p, then p's copies doubling up
    to one per top pair), the top, the output."""
    c = S.block_constants(fmt)
    return 1 + max(len(chain), c.step_depth + fan_layers(len(chain[-1]))) + 2


def carries(fmt: Format, chain: list, depth: int) -> int:
    """The ×1 carries of the path r before the chain at ``depth`` layers: the gate's length
    (the step indicators, p and its copies) where the chain is shorter, then what ``depth``
    adds above :func:`least_depth`."""
    c = S.block_constants(fmt)
    return depth - least_depth(fmt, chain) + max(0, c.step_depth + fan_layers(len(chain[-1])) - len(chain))


def gated_program(fmt: Format, z: Fraction, steps: list, depth: int | None = None, chain: list | None = None):
    """The gated network of the program ``steps`` at the point ``z`` (module docstring), at
    ``depth`` layers (×1 carries of the path r first; refused below the least);
    ``chain``: :func:`chain_layers`' result, where the caller has it."""
    c = check_format(fmt)
    chain = chain_layers(fmt, steps) if chain is None else chain
    least = least_depth(fmt, chain)
    depth = least if depth is None else depth
    if depth < least:
        raise InputError(f"the gated network needs {least} layers, not {depth}")
    G = gate_weight(fmt)
    K = pow2(c.T)
    # ×1 carries of r first: r = σ(1 ⊗ r) is a zero at x = z with σ' = 1, in [−1, 1] elsewhere
    n = len(chain[-1])
    pad = carries(fmt, chain, depth)
    body = [[("r", [("r", Fraction(1))])] for _ in range(pad)] + list(chain[:-1])
    d_layer = chain[-1]
    hidden = body + [d_layer]  # layers 1 … len(hidden); p is made at layer step_depth, before the top

    def builder(s, zv):
        P = S._plan(fmt)
        ge, le = S.step_neurons(fmt, "ge"), S.step_neurons(fmt, "le")
        gate = [ge[k] + le[k] for k in range(c.step_depth)]
        ug, ul = ge[-1][0][0], le[-1][0][0]
        P.add(gate[0] + [("r", [("x", 1)], Param("zn"))])
        def pname(k, i):
            return "p" if copies(k, len(hidden), n) == 1 else f"p{i}"
        for i, layer in enumerate(hidden):
            k = i + 1
            # p's copies double over the last layers, up to one per top pair: each copy's
            # gradient at x = z is at most two terms (its pair's G ⊗ y and −G ⊗ y, or its two
            # children's zeros), and each column below reads at most two rows
            if k < c.step_depth:
                side = gate[k]
            elif k == c.step_depth:
                side = [("p", [(ug, K), (ul, K)], -K)]
            else:
                side = [(pname(k, j), [(pname(k - 1, j // 2), K)], NEG0) for j in range(copies(k, len(hidden), n))]
            P.add(side + [(nm, ins, NEG0) for nm, ins in layer])
        top = []
        for j, (nm, _) in enumerate(d_layer):
            q = pname(len(hidden), j)
            top += [(f"t{nm}", [(nm, 1), (q, G)], -G), (f"N{nm}", [(q, -G)], G)]
        P.add(top)
        P.add([("out", [(f"{w}{n}", 1) for n, _ in d_layer for w in ("t", "N")], NEG0)])
        return P.network(), {**S.step_biases(s, zv), "zn": -zv}
    with S.hidden_activation(c.activation):
        net = R.concrete(builder, fmt, fmt.round(Fraction(z)))
    if net.depth != depth:
        raise AssertionError(f"the gated network has {net.depth} layers, not {depth}")
    return net


def program(steps: list) -> list:
    """The program the gated network runs, output side first: the output row hands y ⊗ 1 to
    every top neuron t_j, the top hands it on (⊗ 1 into d_j), d_j multiplies by w_j — the
    program's first step, one unit each — then the program's other steps.  Its values are
    the program's up to u ⊗ 1 = u (the fact ``pad``)."""
    if any(len(unit) != 1 for unit in steps[0]):
        raise InputError("a backward program's first step reads the output's one unit y once per unit")
    n = len(steps[0])
    return ([[[(0, Fraction(1))] for _ in range(n)], [[(j, Fraction(1))] for j in range(n)],
             [[(j, unit[0][1])] for j, unit in enumerate(steps[0])]] + list(steps[1:]))


def layout(fmt: Format, steps: list, depth: int | None = None) -> tuple:
    """(entries, program): where :func:`program`'s steps sit in :func:`gated_program`'s
    network, one entry (kind, k, rows, cols, zrows, zcols) per layer after layer 0, as
    proofs/theorem_3_2_relu.py's ``network_nodes`` reads them: the carries of r ("damp" of
    the last step, whose new unit is r), the chain layers (step k + 2 for the program's
    step k), the d layer (step 2), the top (step 1: t_j at the even rows), the output
    (step 0).  Each hidden layer lists the gate's neurons first: the step indicators'
    (``zrows``: their upstream is a zero at x = z — only the next indicator layer, dead at
    its last, and p read them) or p's copies (:func:`copies`); every column of the gate's
    is a ``zcols`` (a zero gradient: p, its copies and the indicators' last layer are
    saturated, σ' = 0)."""
    c = S.block_constants(fmt)
    chain = chain_layers(fmt, steps)
    n = len(chain[-1])
    pad = carries(fmt, chain, least_depth(fmt, chain) if depth is None else depth)
    prog = program(steps)
    kinds = ([("damp", len(prog) - 1)] * pad + [("step", k + 2) for k in range(len(steps) - 1, 0, -1)]
             + [("step", 2)])
    widths = [1] * pad + [len(layer) for layer in chain]
    entries, prev_side, prev_width = [], 2, 1  # layer 0: ge0, le0, then r
    for i, ((kind, k), w) in enumerate(zip(kinds, widths)):
        side = 2 if i + 1 < c.step_depth else (1 if i + 1 == c.step_depth else copies(i + 1, len(kinds), n))
        entries.append((kind, k, [side + j for j in range(w)], [prev_side + j for j in range(prev_width)],
                        [0, 1] if i + 1 < c.step_depth else [], list(range(prev_side))))
        prev_side, prev_width = side, w
    entries.append(("step", 1, [2 * j for j in range(n)], [prev_side + j for j in range(n)], [], []))
    entries.append(("step", 0, [0], [2 * j for j in range(n)], [], []))
    return entries, prog


#: layer 0's neurons, as the gate's claim names them (R: the path r0)
GATE = ("ge0", "le0", "R")
#: those whose upstream is a zero at x = z
GATE_ZERO = ("ge0", "le0")


def theorem_network(fmt: Format, points: list, programs: list, progress=None):
    """The Theorem 3.2 network for ``points`` = [(x, f*, pieces)] with each point's piece
    programs (:func:`theorem32.piece_programs`): the gated network of every point with a
    program, then the family's value atoms (v·1[x = z], D^AD = ±0 for |y| <= H_σ) of the
    pieces of each nonzero f*, all at one depth (value atoms carry p longer), one output
    row, gated terms first (each pair sums to an exact zero at every x)."""
    from fpsmt.constructions.theorem32 import binary_sums, tree_sum
    c = check_format(fmt)
    with S.hidden_activation(c.activation):
        gated = []
        for n, ((z, _, _), progs) in enumerate(zip(points, programs)):
            if progs:
                steps = binary_sums(tree_sum(progs))
                gated.append((fmt.to_fraction(z), steps, chain_layers(fmt, steps)))
            if progress is not None:
                progress(n + 1, len(points))
        depth = max([least_depth(fmt, ch) for *_, ch in gated] + [c.value_depth])
        kinds = [R.one_copy(gated_program(fmt, z, steps, depth, ch), depth) for z, steps, ch in gated]
        V = S.piece_bound(fmt, y_bound(fmt))
        va = [(z, a) for z, v, _ in points if not fmt.is_zero(v) for a in S.pieces(fmt, v, V)] or [(points[0][0], 0)]
        kinds.append(R.block_copies(functools.partial(S.value_atom, depth=depth), fmt,
                                    [list(t) for t in zip(*va)], depth))
        return R.boxplus_copies(fmt, kinds)
