"""Theorem 3.2's gated network for a rectifying activation — in gap mode one that is the
identity on (0, ∞) and dead at −1 on its far left (ELU), in offset mode GELU and Swish
(below): the backward program of :mod:`fpsmt.constructions.threshold`
run by the chain of the rectifying family's gradient atom (:mod:`fpsmt.constructions.rectifying`).

What ReLU's gated network (:func:`threshold.gated_program`) uses and ELU lacks, and what
stands in its place here:

* **a dead neuron is −1, not 0.**  At x ≠ z every chain neuron is dead, so the next row
  sees −1 from each source: its sum there is a constant (the same at every x ≠ z), and
  the killers must take it, plus the neuron's bias, to at most −D (σ and σ' dead there,
  R.dead).  Each gated neuron's killer weight kw is the least power of two that does
  (both killer orders, x < z and x > z, are folded exactly here, and a sum that overflows
  is refused).
* **the gate**: the rectifying gradient atom's (step indicators u_ge, u_le, the path r,
  killers G1 = σ(G ⊖ W ⊗ u_ge), G2 likewise, C = 2 beside them, R = σ(−G1 − G2 ⊕ δ ⊗ C ⊕ r)
  = I at x = z and dead elsewhere).  D(z) = δ_R: the path r has σ' = 1 at every layer
  (σ'(±0) = 1, R.zero with k0 = 0) and weight 1 on x.
* **fresh killers per layer.**  At x = z the killers are dead (σ' = 0) and a chain
  neuron sends its killers kw·δ for its own backward value δ, which can be near Ω: a killer
  shared by chain neurons whose kw sum past 1 could receive ∞ and give ∞ ⊗ 0 = NaN.  So
  each chain layer has its own triples (G1, G2, C) in the layer before, one per group of
  neurons whose kw sum to at most 1 (kw is about 2^−121 for most rows in bfloat16: one
  triple a layer), from u_ge, u_le carried beside the chain, listed first so that their
  terms come first in the fold: at x = z, −kw·G1 ⊕ −kw·G2
  ⊕ −kw·C = kw ⊕ kw ⊕ (−2kw) = +0, then the neuron's own terms, exactly as ReLU's chain
  (its gap biases, :func:`threshold.gap_bias`: pre-activations positive and tiny, where σ
  is the identity and σ' = 1).
* **f = +0 at every x.**  The output row pairs each top chain neuron h_j (weight w_j,
  the program's first step) with a twin N_j = σ(−kw·(G1, G2, C) ⊕ h_j(z)) of weight −w_j:
  at x = z both are h_j(z), at x ≠ z both are −1, so each pair sums to an exact zero in
  the fold (w_j ⊗ h ⊕ (−w_j) ⊗ h = +0) and the output row is a zero on X.

**Offset mode** (every other rectifying σ: GELU and Swish, σ'(±0) = 1/2, δ a zero;
:func:`gap_mode` says which).  A tiny positive pre-activation has σ' = 1/2 there, and
a gradient halved at every layer loses its last bit wherever it is subnormal — exactly
where the program's thresholds live — so the chain's pre-activations at x = z are at least
I instead, where σ(t) = t and σ' = 1 (the family's requirement R.identity):

* the path's first bias is the least float B0 >= I − z (:func:`path_bias`): z ⊕ B0 >= I;
* each chain neuron's bias takes its row sum S to [I, I + ulp(S)] (:func:`offset_neuron`);
* a value near I times a program weight near 2^e_max would overflow, and S must stay below
  2^(M+1)·I for ulp(S) <= I: every weight above 2^(M−1−⌈log2 n⌉) (:func:`weight_cap`, n
  the widest step) is split, its source scaled up first by extra ×2^k steps
  (:func:`cap_weights`: the same values, since scaling up is exact until it overflows);
* no constant C beside the killers (δ is a zero: a dead source adds nothing).

Formats with fewer than 4 significand bits are refused (the cap would be below 2).  The
∀y claims (proofs/rect_theorem_3_2.py) cover both modes (in offset mode on the capped
program, with a fact per split weight).

Nothing here is assumed: the executor checks the network at every (x, y)
(:func:`fpsmt.constructions.theorem32.verify`); the construction refuses (NoPlan) a row it
cannot kill or whose fold overflows.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from fpsmt.constructions import relu as R
from fpsmt.constructions import rectifying as RC
from fpsmt.constructions.threshold import NoPlan, gap_neuron, row_sum, rn, shrink_chain, step_rows
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, floor_log2, pow2
from fpsmt.semantics.network import Param

NEG0 = R.NEG0


def _kill_weight(fmt: Format, c, own_x: list, bias: Fraction, what: str) -> Fraction:
    """The least power of two kw in [2^s, 1] for which the row (−kw·G1, −kw·G2, −kw·C, then
    the neuron's own terms ``own_x`` at x ≠ z (products, exact), then ``bias``) folds to at
    most −D at every x ≠ z: x < z (G1 = G, G2 = δ) and x > z (G1 = δ, G2 = G), without
    overflow; each candidate is folded exactly.  s = ⌊log2(need/G)⌋ − 2, need what the row
    adds at most plus D: a smaller kw only makes the killers' gradients smaller still, and
    searching from the smallest float took most of the build time."""
    G, D, dead = fmt.to_fraction(c.G), pow2(c.b), Fraction(c.dead)
    need = sum(t for t in own_x if t > 0) + max(bias, Fraction(0)) + D
    consts = [-2] if c.dead else []  # C = 2, read with −kw, beside the killers for δ = −1
    start = max(fmt.e_min - fmt.M, floor_log2(need / G) - 2)
    for k in range(start, 1):
        kw = pow2(k)
        worst = None
        for g1, g2 in ((G, dead), (dead, G)):
            S = None
            for t in [-kw * g1, -kw * g2] + [kw * q for q in consts] + own_x + [bias]:
                S = rn(fmt, t if S is None else S + t)
                if S is None:
                    break
            if S is None:
                worst = None
                break
            worst = S if worst is None else max(worst, S)
        if worst is not None and worst <= -D:
            return kw
    raise NoPlan(f"{what}: no killer weight up to 1 kills it at x ≠ z in {fmt.name} without overflow")


def gated_program(fmt: Format, z: Fraction, steps: list, depth: int | None = None, chain: list | None = None):
    """The gated network for the backward program ``steps`` (see
    :func:`threshold.gated_program`) with an ELU-like σ: D(y) at x = z is the program's
    value on y, a zero at every other x of X; f = +0 on X.  ``depth``: that many layers,
    by carries in the step indicators (refused below the least, :func:`least_depth`);
    ``chain``: :func:`chain_layers`' result, where the caller has it."""
    c = check_format(fmt)
    zq = Fraction(z)
    chain = chain_layers(fmt, zq, steps) if chain is None else chain
    least = least_depth(fmt, chain)
    depth = least if depth is None else depth
    if depth < least:
        raise InputError(f"the gated network needs {least} layers, not {depth}")

    zb = path_bias(fmt, c, zq)

    def builder(s, zv):
        P = _gate_plan(fmt, c, depth - least)
        for layer in chain:
            P.add(layer)
        return P.network(), {**RC.step_biases(s, zv), "wx": s.const(1), "zb": -zv if zb is None else s.const(zb)}
    with RC.hidden_activation(c.activation):
        return R.concrete(builder, fmt, fmt.round(zq))


def least_depth(fmt: Format, chain: list) -> int:
    """The depth of a gated network whose layers after the killers' are ``chain``: the step
    indicators, the killers' layer, then the chain's."""
    return check_format(fmt).step_depth + 1 + len(chain)


def gap_mode(c) -> bool:
    """Whether the chain runs on small positive gaps (ELU's kind: δ = −1, σ'(±0) = 1) rather
    than on pre-activations of at least I (every other rectifying σ: GELU, Swish)."""
    return c.dead == -1 and c.k0 == 0


def path_bias(fmt: Format, c, z: Fraction):
    """The path's first bias: −z (pre-activation +0 at x = z, σ'(±0) = 1) in gap mode; else
    the least float B >= I − z, so that z ⊕ B >= I at x = z (rounding is monotone and I a
    float), where σ' = 1 whatever σ'(±0) is.  None for −z (the builder's own)."""
    if gap_mode(c):
        return None
    return at_least(fmt, c.I - z, "the gate path's bias")


def at_least(fmt: Format, q: Fraction, what: str) -> Fraction:
    """The least float >= q (refused where it overflows)."""
    r = rn(fmt, q)
    if r is not None and r < q:
        b = fmt.next_up(fmt.round(r))
        r = fmt.to_fraction(b) if fmt.is_finite(b) else None
    if r is None:
        raise NoPlan(f"{what} {float(q):g} overflows {fmt.name}")
    return r


def offset_neuron(fmt: Format, c, ins, h, where: str) -> tuple:
    """(B, value): a chain neuron whose pre-activation at x = z is at least I and close to
    it, for the (source, weight) terms ``ins`` at the values ``h`` (their exact fold S):
    for S >= 2I, B = −(the largest float <= S − I), so S ⊕ B is exact (Sterbenz: S − I >=
    S/2) and in [I, I + ulp(S)]; else B = the least float >= I − S, so S ⊕ B >= I (rounding
    is monotone).  σ is the identity with σ' = 1 there (the family's requirements), so the
    value is the pre-activation and the chain stays near I: no row sum grows from layer to
    layer.  Refused (NoPlan) where it is not finite."""
    I = Fraction(c.I)
    S = row_sum(fmt, ins, h) or Fraction(0)
    if S >= 2 * I:
        r = rn(fmt, S - I)
        if r > S - I:
            r = fmt.to_fraction(fmt.next_down(fmt.round(r)))
        B = -r
    else:
        B = at_least(fmt, I - S, f"{where}: a bias")
    pre = rn(fmt, S + B)
    if pre is None or pre < I:
        raise NoPlan(f"{where} in {fmt.name}: the forward pre-activation is "
                     f"{'not finite' if pre is None else 'below I'}")
    return B, pre


def weight_cap(fmt: Format, steps: list) -> Fraction:
    """Offset mode's largest program weight: a forward row sums at most w·h over the units
    reading its source, each h in [I, 3I], and its pre-activation stays in [I, 2I] only
    while the sum is below 2^(M+1)·I (then ulp(S) <= I): 2^(M−1) over the widest step,
    rounded down to a power of two."""
    n = max(len(step) for step in steps)
    k = fmt.M - 1 - (n - 1).bit_length()
    if k < 1:
        raise NoPlan(f"{fmt.name} has too few significand bits for a chain of pre-activations at least I: its "
                     f"program's weights would have to be at most 2^{k} (a step {n} units wide)")
    return pow2(k)


def cap_weights(steps: list, cap: Fraction) -> list:
    """The program with every weight of magnitude above ``cap`` split: before its step, the
    source it multiplies is scaled up by powers of two of at most ``cap`` (×1 steps carry
    every source beside), and the weight divided by their product.  The same values: a
    scaling up by 2^a is exact unless it overflows, and then the original product
    overflows too (|src·w| >= |src·2^a|); (src·2^a) ⊗ (w/2^a) is rn(src·w)."""
    out = []
    for step in steps:
        width = len(out[-1]) if out else 1
        need = {}
        for unit in step:
            for src, w in unit:
                if abs(w) > cap:
                    a = floor_log2(abs(w) / cap) + (abs(w) / cap != pow2(floor_log2(abs(w) / cap)))
                    need[src] = max(need.get(src, 0), a)
        if not need:
            out.append(step)
            continue
        chunks = {src: scale_chunks(a, floor_log2(cap)) for src, a in need.items()}
        pos = {src: src for src in need}  # where src's scaled copy is, in the last inserted step
        for n in range(max(map(len, chunks.values()))):
            new = [[(i, Fraction(1))] for i in range(width)]
            for src in sorted(need):
                ks = chunks[src]
                new.append([(pos[src], pow2(ks[n]) if n < len(ks) else Fraction(1))])
                pos[src] = len(new) - 1
            out.append(new)
        out.append([[(pos[src], w / pow2(need[src])) if abs(w) > cap else (src, w) for src, w in unit]
                    for unit in step])
    return out


def scale_chunks(a: int, lk: int) -> list:
    """The exponents of the ×2^k steps that scale a source up by 2^a, each k <= lk."""
    return [lk] * (a // lk) + [a % lk] * bool(a % lk)


def check_format(fmt: Format):
    """The block constants of the active rectifying activation in ``fmt``, refused (one
    line) where they do not exist or, in gap mode (ELU's kind, :func:`gap_mode`), where σ
    is not the identity with σ' = 1 on (0, I) (:func:`small_identity`)."""
    c = RC.block_constants(fmt)
    if not gap_mode(c):
        if fmt.M < 4:  # weight_cap's 2^(M−1−⌈log2 n⌉) >= 2 for a step of n >= 2 units
            raise InputError(f"{c.activation} in {fmt.name}: too few significand bits for Theorem 3.2's chain of "
                             f"pre-activations at least I (σ'(0) = 2^{c.k0}, not 1): it needs M >= 4, not {fmt.M}")
        return c
    bad = small_identity(c.activation, fmt.name)
    if bad is not None:
        raise InputError(f"{c.activation} in {fmt.name}: the gated chain needs σ(t) = t and σ'(t) = 1 for every "
                         f"t in (0, {c.I}) (its pre-activations are small positive gaps); {bad}")
    return c


@functools.lru_cache(maxsize=None)
def small_identity(activation: str, fmt_name: str) -> str | None:
    """Where σ(t) ≠ t or σ'(t) ≠ 1 for a finite t in (0, I) — what the rectifying
    requirements do not state and the chain's gap pre-activations need — as one phrase
    naming t, or None.  Decided at every such t by the executor in formats of at most 16
    bits; in wider ones (targets given as pieces) binade by binade by interval enclosures
    of σ and σ' (:func:`fpsmt.semantics.activations.rounding.identity_below`; an
    activation without a real function is refused there)."""
    import numpy as np

    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(fmt_name)
    with RC.hidden_activation(activation):
        top = fmt.round(RC.block_constants(fmt).I)
    if fmt.nbits > 16:
        from fpsmt.semantics.activations.rounding import identity_below
        real = getattr(get_activation(activation), "real", None)
        if real is None:
            return f"it is checked at every t in formats of at most 16 bits, or by enclosures of σ's real function, " \
                   f"which {activation} does not give, not in {fmt.name}"
        where = identity_below(real, fmt, fmt.to_fraction(top))
        return None if where is None else (f"the enclosures of σ and σ' do not show it on [{float(where):g}, "
                                           f"{float(2 * where):g}] in {fmt.name}")
    ts = np.arange(1, top, dtype=np.uint64)  # the positive patterns below I, increasing
    A = concrete(fmt)
    act = get_activation(activation)
    v = np.ravel(A.to_bits(act.value(A, A.const(ts)))).astype(np.uint64)
    d = np.ravel(A.to_bits(act.derivative(A, A.const(ts)))).astype(np.uint64)
    wrong = np.flatnonzero((v != ts) | (d != fmt.one_bits))
    if not len(wrong):
        return None
    t = int(ts[wrong[0]])
    return f"at t = {fmt.show(t)}: σ(t) = {fmt.show(int(v[wrong[0]]))}, σ'(t) = {fmt.show(int(d[wrong[0]]))}"


def _gate_plan(fmt: Format, c, carries: int):
    """The rectifying gradient atom's layers up to its killers (:func:`rectifying._gradient_plan`):
    the step indicators (``carries`` carries each) with the path r beside them, then G1,
    G2, C, r, u_ge, u_le."""
    P = RC.block_plan(fmt)
    last = c.step_depth - 1 + carries  # the step indicators' last layer

    def side(k):
        if k == 0:
            return [("r", [("x", Param("wx"))], Param("zb"))]
        if k == 1:
            return [("r", [("r", 1)], c.I)]
        if k == last + 1:
            return [RC.constant(f"ge{last}")] * bool(c.dead) + [
                ("r", [("r", 1)], NEG0), RC.carry_u(c, f"ge{last}", "uge"), RC.carry_u(c, f"le{last}", "ule")]
        return [("r", [("r", 1)], NEG0)]
    RC.steps_and_killers(fmt, P, carries=carries, side=side)
    return P


def chain_layers(fmt: Format, z: Fraction, steps: list) -> list:
    """The layers after the killers' (Plan neurons): the gate R, the chain, the output.
    Every gated neuron's triple sits first in the layer before it."""
    c = check_format(fmt)
    if not gap_mode(c):  # values near I: no weight may take a row sum past 2^(M+1)·I
        steps = cap_weights(steps, weight_cap(fmt, steps))
    L = len(steps)
    widths = [1] + [len(step) for step in steps]
    if gap_mode(c):
        h = {"R": Fraction(c.I)}  # the chain's forward values at x = z
        neuron = functools.partial(gap_neuron, fmt)
    else:  # R = r1 = σ((z ⊕ B0) ⊕ I) at x = z, at least I
        h = {"R": rn(fmt, rn(fmt, z + path_bias(fmt, c, z)) + c.I)}
        neuron = functools.partial(offset_neuron, fmt, c)
    prev = ["R"]
    chain = []  # per chain layer: [(name, own terms, bias, kw)]
    kills = {}  # (own weights, bias): kw

    def add(rows, tag, twins=False):
        nonlocal h, prev
        i = len(chain)
        neurons, post = [], {}
        for r, ins in enumerate(rows):
            name = f"{tag}{i}_{r}"
            B, post[name] = neuron(ins, h, f"chain layer {i} of the gated network at z = {float(z):g}")
            key = (tuple(w for _, w in ins), B)
            if key not in kills:  # at x ≠ z each source is dead: δ
                kills[key] = _kill_weight(fmt, c, [c.dead * w for _, w in ins], B, f"chain layer {i}, neuron {r}")
            kw = kills[key]
            neurons.append((name, ins, B, kw))
            if twins:  # N_j = h_j(z) at x = z, dead elsewhere: the output's cancelling term
                neurons.append(("t" + name, [], post[name],
                                _kill_weight(fmt, c, [], post[name], f"the twin of top neuron {r}")))
        h, prev = post, list(post)
        chain.append(neurons)

    def damp(rows_of):
        shrink_chain(fmt, z, rows_of, lambda: h, lambda: add([[(u, Fraction(1))] for u in prev], "d"))

    for k in range(L - 1, 0, -1):  # forward chain layer: backward step k's source units
        rows_of = lambda k=k: [[(prev[col], w) for col, w in terms] for terms in step_rows(steps[k], widths[k])]  # noqa: E731
        damp(rows_of)
        add(rows_of(), "n", twins=k == 1)
    if L == 1:  # the output reads R: a ×1 layer first, so that R's value has a twin
        damp(lambda: [[(prev[0], Fraction(1))]])
        add([[(prev[0], Fraction(1))]], "n", twins=True)
    out = [(prev[j], w) for j, unit in enumerate(steps[0]) for _, w in unit]
    return _plan_layers(fmt, c, chain, out)


CARRIED = ("uge", "ule")


def layout(chain: list, steps: list) -> tuple:
    """Where the program sits in a gated network whose layers from the gate's R on are
    ``chain`` (:func:`chain_layers`): (the R layer's neuron names — the gate's outputs —,
    one entry (kind, k, rows, cols) per later layer, as proofs/theorem_3_2_relu.py's
    ``network_nodes`` reads them).  A layer of chain neurons ``n…`` runs backward step k
    ("step": its chain neurons are the step's source units, in order, ``rows`` their
    positions; ``cols`` the positions of the step's new units among its inputs); one of
    identity neurons ``d…`` ("damp", k) copies the new units of the step above it; the
    output row is step 0.  With a one-step program the ×1 layer under the output is a
    damp of step 0.  Twins, killer triples and carries are in neither list; the carried
    indicators u_ge, u_le are each entry's last two (their rows' upstream is a zero at
    x = z, their columns' gradient must be one: only dead killers, C's +0 weight and the
    next carries read them)."""
    L = len(steps)

    def carried(layer):
        return [j for j, n in enumerate(layer) if n in CARRIED]
    names = [[n for n, _, _ in layer] for layer in chain]
    units = ["R"]
    entries, done = [], 0  # done: the "n" layers below
    for li in range(1, len(chain) - 1):
        mine = [n for n in names[li] if n[0] in "dn"]
        k = L - 1 - done
        kind = "damp" if mine[0][0] == "d" or L == 1 else "step"
        done += mine[0][0] == "n"
        entries.append((kind, max(k, 0), [names[li].index(n) for n in mine], [names[li - 1].index(u) for u in units],
                        carried(names[li]), carried(names[li - 1])))
        units = mine
    entries.append(("step", 0, [0], [names[-2].index(u) for u in units], [], carried(names[-2])))
    return names[0], entries


def _plan_layers(fmt: Format, c, chain: list, out: list) -> list:
    """Plan layers from the gate on: the gate R (the killers' layer holds its G1, G2, C),
    the chain layers (u_ge, u_le carried last in each but the top; each layer's killer
    triples first in the layer before), the output row: each top neuron then its twin,
    weights w_j and −w_j.  Neurons share a triple while their killer weights sum to at most
    1 (:func:`_groups`)."""
    def triple(j):
        return RC.killers(fmt, c, "uge", "ule", f"_{j}") + [RC.constant("uge", f"C_{j}")] * bool(c.dead)
    carry = [RC.carry_u(c, "uge", "uge"), RC.carry_u(c, "ule", "ule")]
    plan = [[("R", RC.gated(c) + [("r", 1)], NEG0)] + carry]
    for li, neurons in enumerate(chain):
        groups = _groups([kw for *_, kw in neurons])
        plan[-1] = [t for g in sorted(set(groups)) for t in triple(f"{li}_{g}")] + plan[-1]
        own = [(name, [(f"G1_{li}_{g}", -kw), (f"G2_{li}_{g}", -kw)] + [(f"C_{li}_{g}", -kw)] * bool(c.dead)
                + list(ins), B) for (name, ins, B, kw), g in zip(neurons, groups)]
        plan.append(own + (carry if li < len(chain) - 1 else []))
    row = [t for n, w in out for t in ((n, w), ("t" + n, -w))]
    plan.append([("out", row, NEG0)])
    return plan


def _groups(kws: list) -> list:
    """Each neuron's killer triple, in order: a triple's killers are dead at x = z and
    receive Σ kw·δ over the neurons that share it, every |δ| <= Ω; with Σ kw <= 1 that sum is
    finite (a zero-derivative neuron given ∞ would give ∞ ⊗ 0 = NaN)."""
    out, g, total = [], 0, Fraction(0)
    for kw in kws:
        if total + kw > 1:
            g, total = g + 1, Fraction(0)
        total += kw
        out.append(g)
    return out


def theorem_network(fmt: Format, points: list, programs: list, progress=None):
    """The Theorem 3.2 network for ``points`` = [(x, f*, pieces)] with each point's piece
    programs (:func:`theorem32.piece_programs`): the gated network of every point with a
    program, then the rectifying family's value atoms (v·1[x = z], D^AD = ±0 for every
    finite upstream) of the pieces of each nonzero f*, all at one depth (the gated
    networks and the value atoms by carries in their step indicators), one output row, gated
    terms first (each pair sums to an exact zero at every x)."""
    from fpsmt.constructions.saturating import pieces
    from fpsmt.constructions.theorem32 import binary_sums, tree_sum
    c = check_format(fmt)
    with RC.hidden_activation(c.activation):
        gated = []
        for n, ((z, _, _), progs) in enumerate(zip(points, programs)):
            if progs:
                zq = fmt.to_fraction(z)
                gated.append((zq, steps := binary_sums(tree_sum(progs)), chain_layers(fmt, zq, steps)))
            if progress is not None:
                progress(n + 1, len(points))
        depth = max([least_depth(fmt, ch) for *_, ch in gated] + [c.value_depth])
        kinds = [R.one_copy(gated_program(fmt, z, steps, depth, ch), depth) for z, steps, ch in gated]
        V = RC.piece_bound(fmt)
        va = [(z, a) for z, v, _ in points if not fmt.is_zero(v) for a in pieces(fmt, v, V)] or [(points[0][0], 0)]
        kinds.append(R.block_copies(functools.partial(RC.value_atom, depth=depth), fmt,
                                    [list(t) for t in zip(*va)], depth))
        return R.boxplus_copies(fmt, kinds)
