"""Theorem 3.2 for ReLU: one domain point's backward program, proved for every finite
upstream y (fpsmt.constructions.theorem32).

A point's g(·) = g*(z, ·) is a list of pieces over |y| (a constant c·sign(y), or y ⊗ k
rounded once).  The network computes D^AD(z, y) by the pieces' *backward program* — the
steps :func:`theorem32.piece_programs` builds, side by side, their outputs summed pairwise
(:func:`theorem32.tree_sum`) — gated to z (:func:`threshold.gated_program`).  This proof
tree states and decides, for every finite y, that the program gives g(y) (a zero target
met by either zero):

* per constant piece c on [a, b): the threshold blocks c·sign(y)·1[|y| >= a] and
  −c·sign(y)·1[|y| >= b] (the block's staircase stages with the invariant below, then its
  final map: the gadget at P and ω taken to c), then their sum;
* per linear piece k on [a, b), per sub-piece (a_i, b_i, 2^-j) of
  :func:`theorem32.linear_split`: below(t) for t = b_i and t = a_i — the staircase of t on
  (y, u) with the invariant "u = y below t; t <= |u| <= U_k with y's sign above", then
  A = u ⊗ k·2^-j (bounded above t), the block Z = 2^e_max·sign(y)·1[|y| >= t], and
  (A ⊕ Z) ⊕ (−Z) = y ⊗ k·2^-j below t, a zero above (the absorption decided by the solver)
  — then their difference scaled by 2^j: y ⊗ k on [a_i, b_i), a zero elsewhere;
* the pairwise sums, level by level as tree_sum groups them, each a zero outside its
  pieces.

Runs of staircase stages of one form are one induction each (:func:`stair_runs`,
:func:`_stair_induction`): where each stage halves the bound (P = s = the bound after, the
bound before 2P), the stage programs differ only in weights 2^(E_j + d_j·i) (d_j in
{−1, 0, 1}) — checked exactly for every stage of the run when the tree is built — and the
step runs that program at a symbolic stage index i (symbolic powers of two), from the
invariant with the bound 2^(m + 1 − i) to the one with 2^(m − i).  float64's staircase of
4 (1,023 stages) is then two inductions and 54 single stages.

Each stage computes exactly the program's operations (threshold.stage_steps,
final_steps, each product and sum rounded once).  The program also multiplies values by 1
where it pads a shorter part or carries a term (threshold.parallel, theorem32.binary_sums);
the fact ``pad`` (u ⊗ 1 has u's bits, every finite u) is what makes those steps the
identity.  That the stages make up the program is checked at every finite y of the 8-bit
formats (tests/test_theorem32_pieces.py, against the program run by threshold.eval_steps).

Every stage also states that every value it computes is finite (side conditions): the
network runs the same operations at x = z, and its killers need them finite.

The network (:func:`chain_nodes`, the row ``theorem_3_2_relu_network``): one claim per
layer of the point's gated network after the gate, at x = z (±0 both, for z = 0), for
every finite upstream gradient on the layer's neurons — its backward pass (ReLU' at the
layer's forward pre-activations at z, which the executor computes from the whole
network: a ground computation) gives the program's step on the chain's columns,
numerically (a zero met by either zero), and finite gradients on the killers' columns;
and one claim that the gate's layers pass R's gradient to x whatever the killers' finite
upstreams.  Numerical equality is kept by ⊕ and ⊗ (their results depend on their
operands' values only, up to the sign of a zero result), so from the output layer down
the network's gradients are the program's values, and D^AD(z, y) = g(y).  Runs of
layers that repeat with a period p (the staircase's stages run side by side, the
identity layers) take one claim per layer of the period
(:func:`layer_runs`, :func:`_run_claim`): at a symbolic index i, the layer's moving weights
are ±2^(E + d·i) and the program step's too (checked exactly for every layer of the run
when the claims are built), the chain rows' pre-activations are any positive float (each
is positive at x = z in every layer of the run, the executor's run) and the other rows'
the run's own bits — the backward pass reads the forward pass only through them
(fpsmt.semantics.network.run's ``given_pre``).  bfloat16's 813 layers after the gate are
then 99 claims per zero sign, float64's 6,198 are 329.  At every other
domain point x (:func:`killed_nodes`): the gated network's last two layers send a zero to
every column below, for every finite y; below, every upstream is a zero, and a zero times
a finite weight (ReLU' included) and a sum of zeros are zeros (boxplus_neutrality's
``times`` and its ``gradient`` induction with no nonzero term), so D^AD(x, y) is a zero.

The whole network (``fpsmt construct --certify``, targets given as pieces) is the ⊞ of
the points' gated networks and the zero-gradient atoms (theorem32.network), as Theorem
3.1's is the ⊞ of gradient and zero-gradient atoms; its argument is
proofs/theorem_3_1_relu.py's, with each gated network in the place of a gradient atom:

1. Alone, at a domain point x: the gated network of x gives D^AD = g(x, y) (the program
   tree and the network claims above), every other point's gives a zero (the killed
   claims), every zero-gradient atom a zero for every finite upstream (zero_gradient_atom).
   The gate is the gradient atom's own (relu.gate_plan with the step parameters of z):
   gradient_atom's gate stages, proved for every z of X and every finite upstream on
   (R, G1, G2), state that it passes R's upstream to T and from T to x, and that the
   indicators' gradients are finite; the network claims' gate claim states D^AD = u_R
   for the gate of this z.
2. Beside each other: every part computes in the ⊞ what it computes alone, up to the
   signs of zeros (theorem_3_1_relu's approx.congruence, for any row length, relu and
   identity layers), given that each part's values and gradients are finite: values
   at every domain point by a ground run of each gated network alone (construct's
   certification), gradients by the program's finiteness side conditions, the chain
   claims' finite killer columns, gradient_atom's gate stages, and zeros elsewhere.
3. Layer 1's gradient w.r.t. x is the left-to-right sum over every part's first-layer
   terms: g(x, y) at the gated network of x's T neuron, a zero at every other
   (a zero at T too where g(x, y) is one): boxplus_neutrality's ``gradient`` induction
   gives D^AD(x, y) = g(x, y), a zero target met by either zero.
4. The value f(x) = f*(x) does not depend on y: the executor's run at every domain
   point is a ground computation of it, bit for bit.

What is argued, not a node: these joins, as in Theorem 3.1; that numerical equality is
kept by ⊕ and ⊗ from the output layer down; and that the layers the claims run are the
network's (the claims run the very layers theorem32.point_network builds, and the
executor's forward values at x).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from fpsmt.constructions import theorem32 as M
from fpsmt.constructions import threshold as T
from fpsmt.errors import InputError
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, fact, join, sequence, stage
from fpsmt.semantics.formats import parse_format, pow2

Y = Float(finite=True)
V = Float(finite=True)
Z = Float(magnitude=(0, 0))  # a zero of either sign


class _Sym:
    """The claims' arithmetic in a scope (⊗, ⊕ of the format)."""

    def __init__(self, s):
        self.s = s

    def mul(self, a, b):
        return a * b

    def add(self, a, b):
        return a + b

    def const(self, q):
        return self.s.const(q)


class _Seen(_Sym):
    """:class:`_Sym` that keeps every value it computes."""

    def __init__(self, s):
        super().__init__(s)
        self.seen = []

    def mul(self, a, b):
        self.seen.append(a * b)
        return self.seen[-1]

    def add(self, a, b):
        self.seen.append(a + b)
        return self.seen[-1]


def _finite(s, compute, seen=None):
    """Every value ``compute(ops)`` computes is finite (a side condition: the network's
    backward pass at x = z runs the same operations, and its killers need them finite)."""
    o = (seen or _Seen)(s)
    compute(o)
    return [v.is_finite() for v in o.seen]


class Exact:
    """The same computations on exact rationals, each operation rounded once (the model
    the tests compare with the program's own run)."""

    def __init__(self, fmt):
        self.fmt = fmt

    def _rn(self, q):
        r = T.rn(self.fmt, q)
        if r is None:
            raise OverflowError(f"a value overflows {self.fmt.name}")
        return r

    def mul(self, a, b):
        return self._rn(a * b)

    def add(self, a, b):
        return self._rn(a + b)

    def const(self, q):
        return Fraction(q)


def _steps(o, steps, u):
    return T.eval_steps(steps, [u], o.mul, o.add, o.const)[0]


def _scale(o, v, ups):
    for f in ups:
        v = o.mul(v, o.const(f))
    return v


def _pair(o, vals):
    """The sum the program takes of its parts: one part as it is, two or more left to
    right (p ⊗ 1 ⊕ w ⊗ 1)."""
    if len(vals) == 1:
        return vals[0]
    one = o.const(1)
    acc = o.add(o.mul(vals[0], one), o.mul(vals[1], one))
    for v in vals[2:]:
        acc = o.add(o.mul(acc, one), o.mul(v, one))
    return acc


def _inside(s, y, lo, hi):
    a = abs(y)
    c = a >= s.const(lo)
    return c if hi is None else c & (a < s.const(hi))


def _seg_term(s, y, seg, rest):
    lo, hi, kind, c = seg
    v = s.where(y > 0, s.const(c), s.const(-c)) if kind == "const" else y * s.const(c)
    return s.where(_inside(s, y, lo, hi), v, rest)


def _segs_term(s, y, segs):
    """g(y) over the segments [(lo, hi, kind, c)] (disjoint in |y|), +0 outside them."""
    acc = s.const(0)
    for seg in segs:
        acc = _seg_term(s, y, seg, acc)
    return acc


def _show(q) -> str:
    return "∞" if q is None else f"{float(q):g}"


def _out(tag, ovar, segs, doc):
    return Pred(f"{tag}.out", {"y": Y, ovar: V}, lambda s: [s[ovar].eq(_segs_term(s, s.y, segs))], doc=doc)


def _combine(tag, premises, out, ovar, compute, doc, ops=None, seen=None):
    """A join of the parts' guarantees into their conjunction, then the stage computing
    ``ovar`` from them (``compute(ops, scope)``, ``ops`` the arithmetic, plain by default;
    ``seen`` its kind that keeps every value): [join, stage] as one sequence."""
    ops = ops or _Sym
    variables = {}
    for p in premises:
        variables.update(p.variables)
    both = Pred(f"{tag}.in", variables, lambda s: [p.holds(s) for p in premises],
                doc=" ∧ ".join(p.name for p in premises))
    items = [join(f"{tag}.in", premises, both, doc="the parts' guarantees together"),
             stage(f"{tag}.sum", {}, out, lambda s: {ovar: compute(ops(s), s)}, hypothesis=both, doc=doc,
                   side=lambda s: _finite(s, lambda o: compute(o, s), seen=seen))]
    return sequence(tag, items, doc=doc)


def _stairs(fmt, tag, t, stages, st=None, th=None):
    """(sequence items, invariants) of staircase ``stages`` of t on (y, u), from u = y: the
    invariant "u = y for |y| < t; t <= |u| <= U_k with y's sign above" after each.  ``st``:
    the programs' dialect (:class:`Stairs`; u = st.unit below t), ``th`` the threshold on u
    (default t)."""
    st, th = st or RELU_STAIRS, t if th is None else th
    bounds = [st.top(fmt)] + [after for _, _, after in stages]

    def inv(k, b):
        def fn(s):
            below = abs(s.y) < s.const(t)
            return ([below.implies(s.u.eq(st.unit(s))),
                     (~below).implies((abs(s.u) >= s.const(th)) & (abs(s.u) <= s.const(b)))]
                    + [(~below).implies(c) for c in st.above(s, s.u)]
                    + [(s.y > 0).implies(~(s.u < 0)), (s.y < 0).implies(~(s.u > 0))])
        return Pred(f"{tag}.I{k}", {"y": st.y, "u": V}, fn,
                    doc=f"{st.below_doc} for |y| < {_show(t)}; {_show(th)} <= |u| <= {_show(b)}{st.above_doc} above, "
                        "u not of y's opposite sign")
    invs = [inv(k, b) for k, b in enumerate(bounds)]
    items = [stage(f"{tag}.start", {"y": st.y}, invs[0], lambda s: {"u": st.start(s)}, doc=st.start_doc)]
    runs = {run[0]: run for run in stair_runs(fmt, stages, bounds, st)}
    k = 0
    while k < len(stages):
        if k in runs:
            a, b, template = runs[k]
            items.append(_stair_induction(fmt, tag, t, stages, bounds, invs, a, b, template, st, th))
            k = b + 1
            continue
        P, sh, after = stages[k]
        steps = st.steps(fmt, P, sh)
        items.append(stage(f"{tag}.stage{k + 1}", {}, invs[k + 1],
                           (lambda sp: lambda s: {"u": _steps(st.ops(s), sp, s.u)})(steps), hypothesis=invs[k],
                           side=(lambda sp: lambda s: _finite(s, lambda o: _steps(o, sp, s.u), seen=st.seen))(steps),
                           doc=f"u ← u ⊕ (−{float(sh):g})·1[u > {float(P):g}]: |u| <= {float(after):g} after"))
        k += 1
    return items, invs, bounds[-1]


#: the fewest consecutive stages of one form that are proved by induction, not one by one
MIN_RUN = 4


def _log2(q: Fraction) -> int:
    return q.numerator.bit_length() - 1 if q >= 1 else -(q.denominator.bit_length() - 1)


def _weights(steps):
    """The weights of a stage program (threshold.stage_steps) that its form varies: the
    second unit's weight of every step but the last, in order."""
    return [step[1][0][1] for step in steps[:-1]]


def stair_runs(fmt, stages, bounds, st=None) -> list:
    """Runs (a, b, template) of consecutive staircase stages a..b (0-based) that one
    induction proves: each halves the bound (P = s = after, the bound before it 2P), and
    their programs (``st.steps``, threshold.stage_steps for ReLU) differ only in weights
    2^(E_j + d_j·i) at stage a + i, d_j in {−1, 0, 1} — the template (E, d).  Checked here
    for every stage of the run, exactly: the induction's step runs the template at a
    symbolic i.  (The logistic family's quarter stages never halve their bound exactly, so
    they have no runs.)"""
    st = st or RELU_STAIRS

    def halving(k):
        P, sh, after = stages[k]
        return P == sh == after and bounds[k] == 2 * P

    def form(k):
        steps = st.steps(fmt, stages[k][0], stages[k][1])
        return steps, [_log2(abs(w)) for w in _weights(steps)]

    def fits(k, a, E, d):
        steps, e = form(k)
        base, _ = form(a)
        i = k - a
        want = [Fraction(2) ** (ej + dj * i) for ej, dj in zip(E, d)]
        return (len(e) == len(E) and _weights(steps) == want
                and _strip(steps) == _strip(base))
    runs, k = [], 0
    while k < len(stages) - 1:
        if not (halving(k) and halving(k + 1)):
            k += 1
            continue
        (_, E), (_, E1) = form(k), form(k + 1)
        d = [e1 - e0 for e0, e1 in zip(E, E1)] if len(E1) == len(E) else None
        if d is None or any(x not in (-1, 0, 1) for x in d):
            k += 1
            continue
        b = k + 1
        while b + 1 < len(stages) and halving(b + 1) and fits(b + 1, k, E, d):
            b += 1
        if b - k + 1 >= MIN_RUN and fits(k, k, E, d) and fits(k + 1, k, E, d):
            runs.append((k, b, (E, d)))
            k = b + 1
        else:
            k += 1
    return runs


def _strip(steps):
    """A stage program with its varying weights blanked (the rest must agree in a run)."""
    return [[[(src, None if (j < len(steps) - 1 and r == 1) else w) for src, w in unit] for r, unit in enumerate(step)]
            for j, step in enumerate(steps)]


def _const_or_term(self, q):
    """A weight: a number lifted to a constant, or a term already (a template's symbolic
    power of two)."""
    return q if not isinstance(q, (int, Fraction)) else self.s.const(q)


class _SymW(_Sym):
    """:class:`_Sym` whose weights may be terms already."""
    const = _const_or_term


class _SeenW(_Seen):
    """:class:`_Seen` whose weights may be terms already."""
    const = _const_or_term


QUARTER = Fraction(1, 4)


class Quarter(_SymW):
    """The logistic family's arithmetic (fpsmt.constructions.gated_logi): every term of a
    program step is (u ⊗ 1/4) ⊗ w, σ'(±0) = 1/4 at a chain neuron, each product rounded."""

    def mul(self, a, b):
        return super().mul(super().mul(a, self.const(QUARTER)), b)


class Stairs:
    """How a staircase's claims read its program: ReLU's (the default) runs
    threshold.stage_steps in plain arithmetic on u = y; the logistic family's
    (proofs/logi_program_tree.py) its own stages in the quarter arithmetic on Y's units."""

    ops, ops_w, seen, seen_w = _Sym, _SymW, _Seen, _SeenW
    y = Y
    start_doc = below_doc = "u = y"
    above_doc = ""  # what else the invariant's doc says of u above the threshold

    def steps(self, fmt, P, sh):
        return T.stage_steps(fmt, P, sh)

    def start(self, s):
        """u at the staircase's start (the stage ``start`` computes it)."""
        return s.y

    def unit(self, s):
        """u below the threshold."""
        return s.y

    def above(self, s, u):
        """What else holds of u above the threshold."""
        return []

    def top(self, fmt):
        """The bound on |u| before the first stage."""
        return fmt.Omega


RELU_STAIRS = Stairs()


def _template_steps(s, base_steps, E, d, i):
    """The stage program of the template at a symbolic stage index i: the base stage's
    program with weight j replaced by 2^(E_j + d_j·i) (a symbolic power of two)."""
    out = [[list(unit) for unit in step] for step in base_steps]
    for j, (ej, dj) in enumerate(zip(E, d)):
        w = (i + ej if dj == 1 else ej - i).pow2() if dj else s.const(Fraction(2) ** ej)
        (src, _), = out[j][1]
        out[j][1] = [(src, w)]
    return out


def _stair_induction(fmt, tag, t, stages, bounds, invs, a, b, template, st=None, th=None):
    """Stages a..b of the staircase (one template, :func:`stair_runs`) as an induction
    over i = 0 … n (n = b − a + 1): I(i) is the invariant with the bound 2^(m + 1 − i),
    P_a = 2^m; the step runs the template's stage program at i."""
    from fpsmt.proof.claims import Int
    from fpsmt.proof.tree import induction
    st, th = st or RELU_STAIRS, t if th is None else th
    E, d = template
    n = b - a + 1
    m = _log2(stages[a][0])
    base_steps = st.steps(fmt, stages[a][0], stages[a][1])
    name = f"{tag}.stages{a + 1}to{b + 1}"

    def fn(s):
        below = abs(s.y) < s.const(t)
        return ([below.implies(s.u.eq(st.unit(s))),
                 (~below).implies((abs(s.u) >= s.const(th)) & (abs(s.u) <= (m + 1 - s.i).pow2()))]
                + [(~below).implies(c) for c in st.above(s, s.u)]
                + [(s.y > 0).implies(~(s.u < 0)), (s.y < 0).implies(~(s.u > 0))])
    run = Pred(f"{name}.I", {"y": st.y, "u": V, "i": Int(0, n)}, fn,
               doc=f"{st.below_doc} for |y| < {_show(t)}; {_show(th)} <= |u| <= 2^({m + 1} − i) above, u not of y's opposite "
                   "sign")
    base = stage(f"{name}.base", {}, run, lambda s: {"u": s.u, "i": 0}, hypothesis=invs[a],
                 doc=f"the bound {_show(bounds[a])} is 2^{m + 1}")
    return induction(name, run, "i", 0, n, base,
                     lambda s: {"u": _steps(st.ops_w(s), _template_steps(s, base_steps, E, d, s.i), s.u)},
                     invs[b + 1],
                     step_side=lambda s: _finite(s, lambda o: _steps(o, _template_steps(s, base_steps, E, d, s.i), s.u),
                                                 seen=st.seen_w),
                     doc=f"stages {a + 1}–{b + 1} (P = 2^{m} down to 2^{m - n + 1}, each u ← u ⊕ (−P)·1[u > P]) by "
                         f"induction: one stage program with weights 2^(E_j ± i)")


def _stair_model(fmt, stages):
    progs = [T.stage_steps(fmt, P, sh) for P, sh, _ in stages]

    def run(o, y):
        u = y
        for st in progs:
            u = _steps(o, st, u)
        return u
    return run


def _threshold(fmt, tag, t, c, ovar):
    """(nodes, guarantee, model) of the block c·sign(y)·1[|y| >= t] on y
    (threshold.block_program): its staircase stages (the same claims as below(t)'s, which
    share them), then the final map."""
    p = T.plan(fmt, t, c)
    items, invs, _ = _stairs(fmt, tag, t, p.stages)
    out = Pred(f"{tag}.out", {"y": Y, ovar: V},
               lambda s: [s[ovar].eq(s.where(abs(s.y) >= s.const(t), s.where(s.y > 0, s.const(c), s.const(-c)),
                                             s.const(0)))],
               doc=f"{ovar} = {float(c):g}·sign(y)·1[|y| >= {_show(t)}] (a zero below)")
    fin = T.final_steps(p)
    items.append(stage(f"{tag}.final", {}, out, lambda s: {ovar: _steps(_Sym(s), fin, s.u)}, hypothesis=invs[-1],
                       side=lambda s: _finite(s, lambda o: _steps(o, fin, s.u)),
                       doc="×m1 ×m, the gadget at P, ω taken to c"))
    stair = _stair_model(fmt, p.stages)
    return [sequence(tag, items, doc=p.describe())], out, lambda o, y: _steps(o, fin, stair(o, y))


def _below(fmt, tag, t, kj, ovar):
    """(nodes, guarantee, model) of below(t): y ⊗ kj for |y| < t, a zero from t on
    (t None: y ⊗ kj everywhere) — theorem32.below_program."""
    if t is None:
        out = Pred(f"{tag}.out", {"y": Y, ovar: V}, lambda s: [s[ovar].eq(s.y * s.const(kj))],
                   doc=f"{ovar} = y ⊗ {float(kj):g}")
        return ([stage(tag, {"y": Y}, out, lambda s: {ovar: s.y * s.const(kj)}, doc="A = y ⊗ kj")], out,
                lambda o, y: o.mul(y, o.const(kj)))
    stair = T.staircase(fmt, t)
    items, invs, top = _stairs(fmt, tag, t, stair)
    amax = T.rn(fmt, top * abs(kj))
    if amax is None:
        raise InputError(f"below({_show(t)}) with slope {float(kj):g} overflows {fmt.name}")
    apred = Pred(f"{tag}.A", {"y": Y, "a": V},
                 lambda s: [(abs(s.y) < s.const(t)).implies(s.a.eq(s.y * s.const(kj))),
                            (abs(s.y) >= s.const(t)).implies(abs(s.a) <= s.const(amax))],
                 doc=f"a = y ⊗ {float(kj):g} for |y| < {_show(t)}; |a| <= {float(amax):g} above")
    items.append(stage(f"{tag}.A", {}, apred, lambda s: {"a": s.u * s.const(kj)}, hypothesis=invs[-1],
                       doc=f"A = u ⊗ {float(kj):g}"))
    znodes, zpred, zmodel = _threshold(fmt, f"{tag}.Z", t, M._swamp(fmt), "z")
    out = Pred(f"{tag}.out", {"y": Y, ovar: V},
               lambda s: [s[ovar].eq(s.where(abs(s.y) < s.const(t), s.y * s.const(kj), s.const(0)))],
               doc=f"{ovar} = y ⊗ {float(kj):g} for |y| < {_show(t)}, a zero from there on")

    def absorb(o, a, z):
        # the program's last steps (below_program, then binary_sums): (A, Z, Z) each ⊗ 1,
        # p = A ⊗ 1 ⊕ Z ⊗ 1 with the second Z carried (⊗ 1), then p ⊗ 1 ⊕ Z ⊗ (−1)
        one = o.const(1)
        a1, z1, z2 = o.mul(a, one), o.mul(z, one), o.mul(o.mul(z, one), one)
        p = o.add(o.mul(a1, one), o.mul(z1, one))
        return o.add(o.mul(p, one), o.mul(z2, o.const(-1)))
    comb = _combine(f"{tag}.cancel", [apred, zpred], out, ovar,
                    lambda o, s: absorb(o, s.a, s.z),
                    doc=f"(A ⊕ Z) ⊕ (−Z): A below {_show(t)}; above, ±2^{fmt.e_max} absorbs A and the result is a zero")

    run = _stair_model(fmt, stair)

    def model(o, y):
        return absorb(o, o.mul(run(o, y), o.const(kj)), zmodel(o, y))
    return [sequence(f"{tag}.staircase", items, doc=f"the staircase of {_show(t)}, then A")] + znodes + [comb], out, model


def _linear(fmt, tag, a, b, k, j, ovar):
    """(nodes, guarantee, model) of one linear sub-piece: y ⊗ k on a <= |y| < b, a zero at
    every other finite y (theorem32.linear_program at scale 2^-j)."""
    kj = k * pow2(-j)
    ups = [pow2(e) for e in T.powers(fmt, j)] if j else []
    nb, pb, mb = _below(fmt, f"{tag}.below_b", b, kj, "vb")
    out = _out(tag, ovar, [(a, b, "linear", k)], doc=f"{ovar} = y ⊗ {float(k):g} on {_show(a)} <= |y| < {_show(b)}")
    scale = f", then × 2^{j}" if j else ""
    if a > fmt.omega:
        na, pa, ma = _below(fmt, f"{tag}.below_a", a, kj, "va")

        def diff(o, vb, va):
            return _scale(o, o.add(o.mul(vb, o.const(1)), o.mul(va, o.const(-1))), ups)
        comb = _combine(tag, [pb, pa], out, ovar, lambda o, s: diff(o, s.vb, s.va),
                        doc=f"below({_show(b)}) ⊕ −below({_show(a)}){scale}")
        return nb + na + [comb], out, lambda o, y: diff(o, mb(o, y), ma(o, y))
    comb = _combine(tag, [pb], out, ovar, lambda o, s: _scale(o, s.vb, ups),
                    doc=f"below({_show(b)}){scale}")
    return nb + [comb], out, lambda o, y: _scale(o, mb(o, y), ups)


def _piece(fmt, tag, seg, ovar):
    """(nodes, guarantee, model) of one nonzero piece's program (theorem32.piece_programs)."""
    lo, hi, kind, c = seg
    if kind == "const":
        parts = [_threshold(fmt, f"{tag}.from", lo, c, "o1")]
        if hi is not None:
            parts.append(_threshold(fmt, f"{tag}.to", hi, -c, "o2"))
        names = ["o1", "o2"][:len(parts)]
        what = f"c·sign(y)·1[|y| >= {_show(lo)}]" + (f" ⊕ −c·sign(y)·1[|y| >= {_show(hi)}]" if hi is not None else "")
    else:
        subs = M.linear_split(fmt, lo, hi, c)
        names = [f"w{i + 1}" for i in range(len(subs))]
        parts = [_linear(fmt, f"{tag}.sub{i + 1}", a, b, c, j, n) for i, ((a, b, j), n) in enumerate(zip(subs, names))]
        what = " ⊕ ".join(f"y ⊗ k on [{_show(a)}, {_show(b)})" for a, b, _ in subs)
    out = _out(tag, ovar, [seg], doc=f"{ovar} = the piece's value on {_show(lo)} <= |y| < {_show(hi)}, a zero elsewhere")
    comb = _combine(tag, [p for _, p, _ in parts], out, ovar,
                    lambda o, s: _pair(o, [s[n] for n in names]), doc=what)
    models = [m for _, _, m in parts]
    return [n for nodes, _, _ in parts for n in nodes] + [comb], out, lambda o, y: _pair(o, [m(o, y) for m in models])


def grouping(n: int):
    """tree_sum's grouping of n outputs as nested pairs of indices (an odd one carried)."""
    groups = list(range(n))
    while len(groups) > 1:
        nxt = [(groups[2 * i], groups[2 * i + 1]) for i in range(len(groups) // 2)]
        if len(groups) % 2:
            nxt.append(groups[-1])
        groups = nxt
    return groups[0]


def _leaves(g):
    return [g] if isinstance(g, int) else _leaves(g[0]) + _leaves(g[1])


def segments(pieces) -> list:
    """The nonzero pieces as (lo, hi, kind, c), hi the next piece's t (None: up to Ω)."""
    out = []
    for i, p in enumerate(pieces):
        if p.c != 0:
            out.append((p.t, pieces[i + 1].t if i + 1 < len(pieces) else None, p.kind, p.c))
    return out


def point_tree(fmt, pieces, tag="g", ovar="d"):
    """(nodes, guarantee G(y, ``ovar``): ovar = g(y), model) for one point's pieces: the
    nodes prove ∀ finite y that the point's backward program gives g(y); ``model(ops, y)``
    runs the same computations (:class:`Exact` ops: rationals rounded once)."""
    fmt = parse_format(fmt)
    segs = segments(pieces)
    if not segs:
        raise InputError("every piece is 0: the point has no backward program (its gradient is the zero atom's)")

    def build(g, path, var):
        if isinstance(g, int):
            return _piece(fmt, f"{tag}.piece{g + 1}", segs[g], var)
        nl, pl, ml = build(g[0], path + "l", "l")
        nr, pr, mr = build(g[1], path + "r", "r")
        covered = [segs[i] for i in _leaves(g)]
        name = f"{tag}.sum{path or ''}" if path else f"{tag}.sum"
        out = _out(name, var, covered, doc=f"{var} = g(y) on pieces {', '.join(str(i + 1) for i in _leaves(g))}, "
                                            "a zero elsewhere")
        comb = _combine(name, [pl, pr], out, var,
                        lambda o, s: o.add(o.mul(s.l, o.const(1)), o.mul(s.r, o.const(1))),
                        doc="l ⊗ 1 ⊕ r ⊗ 1 (tree_sum): at most one of them is nonzero")
        return nl + nr + [comb], out, lambda o, y: o.add(o.mul(ml(o, y), o.const(1)), o.mul(mr(o, y), o.const(1)))
    return build(grouping(len(segs)), "", ovar)


def pad_fact() -> Node:
    c = forall("pad", {"u": Float(finite=True)}, goal=lambda s: [(s.u * s.const(1)).same(s.u)],
               doc="u ⊗ 1 has u's bits for every finite u: the program's padding and carry steps are the identity")
    return fact(c)


def point_root(fmt, pieces, name, statement_doc=""):
    """The proof tree of one point: the program's nodes and the fact ``pad``."""
    nodes, g, _ = point_tree(fmt, pieces)
    return Node("lemma", name, None, [pad_fact()] + nodes, doc=statement_doc), g


# ------------------------------------------------------------------ the chain: network layers = program steps
def killed_nodes(fmt, z, net, others, tag="chain", y=V):
    """One claim per x of ``others`` (bit patterns of domain points other than z; ±0 both
    for 0): the gated network of z at x, for every finite y — the output layer and the last hidden
    layer's backward pass (ReLU' at their forward pre-activations at x, the executor's run
    of the whole network: a ground computation) give a zero on every input column of the
    last hidden layer.  Below it every upstream is a zero, and a zero times a finite
    weight, σ' (finite at every pre-activation at x: checked on the run) and sums of zeros
    stay zeros (boxplus_neutrality's ``times``), so D^AD(x, y) is a zero."""
    import numpy as np

    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import Network, run
    A = concrete(fmt)
    top = Network(fmt, net.layers[-2:])
    zb = fmt.round(Fraction(z))
    nodes = []
    xs = [xv for xb in others for xv in ([xb] if fmt.to_fraction(xb) != 0 else [0, fmt.sign_bit])]
    for xv in xs:
        if fmt.to_fraction(xv) == fmt.to_fraction(zb):
            raise InputError(f"x = {fmt.hex(xv)} is the gated network's own point")
    if not xs:
        return nodes
    # one run of the whole network at every x (a ground computation): the top layers' inputs
    tr = run(A, net, A.const(np.asarray(xs, dtype=np.uint64).reshape(-1, 1)))
    for k, pre in enumerate(tr.pre[:-2]):  # below the top two, zeros stay zeros only through finite σ' and weights
        bits = np.asarray(A.to_bits(pre), dtype=np.uint64).reshape(len(xs), -1)
        # σ' itself at the run's pre-activations (an infinite one, where w ⊗ x overflows in a
        # logistic step indicator, has σ' = 0 there)
        d = np.asarray(A.to_bits(net.layers[k].act.derivative(A, pre)), dtype=np.uint64).reshape(len(xs), -1)
        for row in range(len(xs)):
            if not all(fmt.is_finite(int(b)) for b in d[row]):
                i = next(j for j, b in enumerate(d[row]) if not fmt.is_finite(int(b)))
                raise InputError(f"the gated network of z = {fmt.hex(zb)} has σ' = {fmt.hex(int(d[row][i]))} (not "
                                 f"finite) at the pre-activation {fmt.hex(int(bits[row][i]))} at x = "
                                 f"{fmt.hex(xs[row])} (layer {k}): its zero gradient there is not argued")
    below = A.to_bits(tr.post[len(net.layers) - 3])
    for row, xv in enumerate(xs):
        inputs = [fmt.hex(int(b)) for b in np.ravel(below[row])]

        def goal(s, inputs=inputs):
            _, grad = s.run(top, [s.const(b) for b in inputs], [s.y])
            return [g.is_zero() for g in grad]
        every = "every finite y" if y is V else "every y within the network's bound"
        c = forall(f"{tag}.killed.x{fmt.hex(xv)}", {"y": y}, goal=goal,
                   doc=f"the gated network of z = {fmt.hex(zb)} at x = {fmt.hex(xv)}, {every}: its last two "
                       "layers send a zero to every column below (their chain neurons and N are killed)")
        nodes.append(Node("stage", c.name, c, doc=c.doc))
    return nodes


#: the longest period (in layers) of a run of network layers that one claim covers
MAX_PERIOD = 24


@dataclass(frozen=True)
class _Form:
    """One network layer after the gate, as a run of layers compares it: ``sig`` must agree
    within a run (the structure, the weights' signs and significands — ``lw`` the layer's,
    ``pw`` its program step's, each (positive, significand) or 0 for a zero weight — and
    ``cls``, the pre-activations at x = z: "+" where positive, else their bits); ``exps``
    (the layer's weights' exponents, then the program step's; None for a zero) may move by
    d·i in a run.  ``rows``: the layer's neurons that are the step's source units (their
    upstream is the program's input), ``cols``: its inputs that are the step's new units;
    ``zrows``: neurons whose upstream is a zero, ``zcols``: inputs whose gradient must be
    one (carried indicators, which only dead killers and +0 weights read at x = z)."""

    kind: str
    rows: tuple
    cols: tuple
    zrows: tuple
    zcols: tuple
    lw: tuple
    pw: tuple
    cls: tuple
    sig: tuple
    exps: list


def _form(fmt, layer, kind, k, steps, rows, cols, pre, zrows=(), zcols=(), floor=None) -> _Form:
    def split(q):
        if q == 0:
            return 0, None
        e = _log2(abs(q))
        return (q > 0, abs(q) / Fraction(2) ** e), e
    lw = [split(fmt.to_fraction(int(w))) for w in layer.weights]
    pw = [split(w) for unit in steps[k] for _, w in unit] if kind == "step" else []
    cls = tuple("+" if fmt.is_finite(b) and (fmt.to_fraction(b) > 0 if floor is None else fmt.to_fraction(b) >= floor)
                else b for b in pre)
    shape = [[src for src, _ in unit] for unit in steps[k]] if kind == "step" else None
    lsig, psig = tuple(a for a, _ in lw), tuple(a for a, _ in pw)
    sig = (kind, tuple(rows), tuple(cols), tuple(zrows), tuple(zcols), layer.n_in, layer.n_out, layer.activation, tuple(layer.rows.tolist()),
           tuple(layer.cols.tolist()), lsig, repr(shape), psig, cls)
    return _Form(kind, tuple(rows), tuple(cols), tuple(zrows), tuple(zcols), lsig, psig, cls, sig, [e for _, e in lw] + [e for _, e in pw])


def layer_runs(forms) -> list:
    """Runs (a, p, n, d) of consecutive layers a … a + p·n − 1 (indices into ``forms``, a
    list of :func:`_form`) that repeat with period p: layer a + r + p·i has layer a + r's
    signature and exponents E + d_r·i (d in {−1, 0, 1} per weight; a weight that moves
    is ±2^e), n >= MIN_RUN periods.  Checked here exactly for every layer of the run."""
    L = len(forms)

    def deltas(p, a):
        ds = []
        for r in range(p):
            f0, f1 = forms[a + r], forms[a + r + p]
            if f0.sig != f1.sig:
                return None
            d = [0 if x is None else y - x for x, y in zip(f0.exps, f1.exps)]
            if any(x not in (-1, 0, 1) for x in d):
                return None
            if any(dj and w[1] != 1 for dj, w in zip(d, f0.lw + f0.pw)):
                return None  # a moving weight with a significand: not a power of two
            ds.append(d)
        return ds

    def periods(p, a, ds):
        n = 2
        while a + (n + 1) * p <= L:
            for r in range(p):
                f0, f = forms[a + r], forms[a + r + n * p]
                if f.sig != f0.sig or any((x is None) != (y is None) or (x is not None and y != x + dj * n)
                                          for x, y, dj in zip(f0.exps, f.exps, ds[r])):
                    return n
            n += 1
        return n
    runs, a = [], 0
    while a < L:
        best = None
        for p in range(1, MAX_PERIOD + 1):
            if a + 2 * p > L:
                break
            ds = deltas(p, a)
            if ds is None:
                continue
            n = periods(p, a, ds)
            if n >= MIN_RUN and (best is None or n * p > best[1] * best[0]):
                best = (p, n, ds)
        if best is None:
            a += 1
            continue
        p, n, ds = best
        runs.append((a, p, n, ds))
        a += p * n
    return runs


def _moving(s, e, d, i):
    """The float ±2^(e + d·i) at a symbolic i (sign from the run's signature)."""
    return (i + e if d == 1 else e - i).pow2()


def _run_claim(fmt, at, net, li, p, n, d, kind, k, steps, form, floor=None, ops=_SymW):
    """One claim for the layers li + p·i, i = 0 … n − 1, of a run (:func:`layer_runs`):
    at a symbolic i, the layer with its moving weights ±2^(E + d·i), the chain rows'
    pre-activations any positive float (each is positive at x = z in every layer of the
    run: the executor's run; with ``floor``, any finite float of at least ``floor`` —
    offset mode's I, where σ' = 1 — each of them being that at x = z), the other rows' the
    run's own bits; for every finite upstream its backward pass gives the program's step at
    i on the chain's columns, finite gradients on the others."""
    import dataclasses

    from fpsmt.proof.claims import Int
    from fpsmt.semantics.network import Network, Param
    layer = net.layers[li]
    E = form.exps
    nl = len(layer.weights)
    weights = [Param(f"w{j}") if d[j] else w for j, w in enumerate(layer.weights)]
    one = Network(fmt, [dataclasses.replace(layer, weights=weights)])
    names = [f"g{r}" for r in range(layer.n_out)]
    pos = [r for r, c in enumerate(form.cls) if c == "+"]
    variables = {nm: Z if r in form.zrows else V for r, nm in enumerate(names)}
    pre = (Float(finite=True, sign="+", nonzero=True) if floor is None
           else Float(finite=True, range=(fmt.hex(fmt.round(floor)), None)))
    variables.update({f"p{r}": pre for r in pos})
    variables["i"] = Int(0, n - 1)

    def weight(s, j, q_sig):
        t = _moving(s, E[j], d[j], s.i)
        return t if q_sig[0] else -t

    def goal(s):
        params = {f"w{j}": weight(s, j, form.lw[j]) for j in range(nl) if d[j]}
        pres = [s[f"p{r}"] if c == "+" else s.const(fmt.hex(c)) for r, c in enumerate(form.cls)]
        _, grad = s.run(one, [s.const(0)] * layer.n_in, [s[nm] for nm in names], params=params,
                        given_pre={0: pres})
        v = [s[names[r]] for r in form.rows]
        if kind == "step":
            j, prog = nl, []
            for unit in steps[k]:
                row = []
                for src, w in unit:
                    row.append((src, weight(s, j, form.pw[j - nl]) if d[j] else w))
                    j += 1
                prog.append(row)
            want = _steps_all(ops(s), [prog], v)
        else:
            want = v
        return _layer_goal(grad, form.cols, want, form.zcols)
    last = li + p * (n - 1)
    what = "program steps" if kind == "step" else "identity layers"
    moving = sum(1 for x in d if x)
    c = forall(f"{at}.layers{li}to{last}by{p}", variables, goal=goal,
               doc=f"network layers {li}, {li + p}, …, {last} ({what}) at x = {at.rsplit('.x', 1)[-1]}: at a symbolic i < {n}, "
                   f"{moving} weights ±2^(E ± i) (checked exactly for each layer), the chain rows' pre-activations any "
                   + ("positive float" if floor is None else f"float >= {fmt.hex(fmt.round(floor))}")
                   + "; every finite upstream: the chain's columns are the program's step, the others finite")
    return Node("stage", c.name, c, doc=c.doc)


def _layer_goal(grad, cols, want, zcols=()) -> list:
    """A layer claim's conclusion: the gradient on each of the step's new units (``cols``,
    inputs of the layer) is the program's value, on each of ``zcols`` a zero, on every
    other input finite."""
    on = set(cols) | set(zcols)
    return ([grad[c].eq(w) for c, w in zip(cols, want)] + [grad[c].is_zero() for c in zcols]
            + [g.is_finite() for j, g in enumerate(grad) if j not in on])


def chain_nodes(fmt, z, steps, tag="chain"):
    """One claim per layer of ReLU's gated network of ``steps`` at z after the gate
    (threshold.gated_program and its ``layout``: each layer's first rows are its step's
    source units, its inputs' first columns the step's new units), and one for the gate
    (its outputs R, G1, G2): :func:`network_nodes`.  Returns (nodes, net, layout)."""
    fmt = parse_format(fmt)
    layout = []
    net = T.gated_program(fmt, Fraction(z), steps, layout)
    widths = [1] + [len(step) for step in steps]
    entries = [(kind, k, range(widths[k] if kind == "step" else len(steps[k])), range(len(steps[k])))
               for kind, k in layout]
    nodes = network_nodes(fmt, z, steps, net, entries, ("R", "G1", "G2"), tag)
    return nodes, net, layout


def network_nodes(fmt, z, steps, net, entries, gate_outputs, tag="chain", gate_zero=(), pre_floor=None,
                  bounded=None, first=None, ops=None):
    """One claim per layer of a gated network ``net`` of ``steps`` at z after the gate,
    ``entries`` = [(kind, k, rows, cols[, zrows, zcols])] for its last ``len(entries)``
    layers, and one for the gate (the layers before them, whose last layer's neurons are
    ``gate_outputs``, R among them; those named in ``gate_zero`` get a zero upstream).
    Per layer: for every finite upstream gradient on the layer's neurons (a zero on
    ``zrows``), its backward pass — σ' at the layer's forward pre-activations at x = z, then the sums
    over its rows, as the network computes them — gives on the inputs ``cols`` exactly
    (bits) what the program's step k ("step") gives from the upstreams on the neurons
    ``rows`` (a "damp" layer: the same values), a zero on the inputs ``zcols``, and finite
    gradients on every other input.
    The layer's inputs are its forward values at x = z (the executor's run of the whole
    network: a ground computation).  A run of layers that repeats (:func:`layer_runs`) is
    one claim per layer of its period over a symbolic index (:func:`_run_claim`).  The
    gate: for every finite upstream on its outputs, D^AD is R's.  ``pre_floor``: a run's
    chain rows' pre-activations are any float of at least it (offset mode's I) rather than
    any positive float.  ``bounded`` ({network layer index: b}): that layer's claim takes
    every upstream in [−b, b] instead of every finite one (the saturating family's top, whose
    gate sends G ⊗ upstream into p: finite for |upstream| <= H_σ); such a layer is claimed
    alone, never in a run.  ``first``: the network layer of the first entry (by default the
    entries are the last layers); with no ``gate_outputs`` there is no gate claim (layer 0
    is an entry: its input column is x).  ``ops``: the program's arithmetic (a class
    like :class:`_SymW`; :class:`Quarter` for the logistic family), plain ⊗ and ⊕ by
    default."""
    import numpy as np

    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import Network, run
    ops = ops or _SymW
    first = len(net.layers) - len(entries) if first is None else first
    A = concrete(fmt)
    zb = fmt.round(Fraction(z))
    xs = [zb] if zb != 0 else [0, fmt.sign_bit]  # x = ±0 are one point of X: both are run
    ups = [f"u{n}" for n in gate_outputs]
    nodes = []
    for xb in xs:
        tr = run(A, net, A.const(np.asarray([[xb]], dtype=np.uint64)))
        posts = [[int(b) for b in np.ravel(A.to_bits(p))] for p in tr.post]
        tr_pre = [[int(b) for b in np.ravel(A.to_bits(p))] for p in tr.pre]
        at = f"{tag}.x{fmt.hex(xb)}"
        if gate_outputs:
            gate = Network(fmt, net.layers[:first])

            def gate_goal(s, gate=gate, xb=xb):
                _, grad = s.run(gate, [s.const(fmt.hex(xb))], [s[u] for u in ups])
                return [grad[0].eq(s.uR)]
            others = "the killers' finite upstreams add a zero" if not gate_zero else \
                f"the finite upstreams on {', '.join(n for n in gate_outputs if n != 'R' and n not in gate_zero)} " \
                f"and zeros on {', '.join(gate_zero)} add a zero"
            c = forall(f"{at}.gate", {u: Z if n in gate_zero else V for n, u in zip(gate_outputs, ups)},
                       goal=gate_goal, doc=f"the gate's layers at x = {fmt.hex(xb)}: D^AD is R's upstream gradient, "
                                           f"{others}")
            nodes.append(Node("stage", c.name, c, doc=c.doc))
        forms = [_form(fmt, net.layers[first + i], kind, k, steps, rows, cols, tr_pre[first + i], *zeros,
                       floor=pre_floor)
                 for i, (kind, k, rows, cols, *zeros) in enumerate(entries)]
        bounded = bounded or {}
        runs = {a: (p, n, d) for a, p, n, d in layer_runs(forms)
                if not any(first + j in bounded for j in range(a, a + p * n))}
        i = 0
        while i < len(entries):
            if i in runs:
                p, n, d = runs[i]
                for r in range(p):
                    kind, k = entries[i + r][:2]
                    nodes.append(_run_claim(fmt, at, net, first + i + r, p, n, d[r], kind, k, steps, forms[i + r],
                                            pre_floor, ops))
                i += p * n
                continue
            kind, k = entries[i][:2]
            form = forms[i]
            i += 1
            li = first + i - 1
            layer = net.layers[li]
            one = Network(fmt, [layer])
            inputs = [fmt.hex(b) for b in posts[li - 1]] if li else [fmt.hex(xb)]
            names = [f"g{r}" for r in range(layer.n_out)]

            def goal(s, one=one, inputs=inputs, names=names, kind=kind, k=k, form=form):
                _, grad = s.run(one, [s.const(b) for b in inputs], [s[n] for n in names])
                v = [s[names[r]] for r in form.rows]
                want = _steps_all(ops(s), [steps[k]], v) if kind == "step" else v
                # the program's columns, then every other column (the killers', carries') finite
                return _layer_goal(grad, form.cols, want, form.zcols)
            what = f"step {k}" if kind == "step" else f"an identity layer before step {k}"
            zeros = f" (a zero on rows {list(form.zrows)})" if form.zrows else ""
            zc = f", a zero on columns {list(form.zcols)}" if form.zcols else ""
            up = V if li not in bounded else Float(finite=True, range=(fmt.hex(fmt.round(-bounded[li])),
                                                                           fmt.hex(fmt.round(bounded[li]))))
            within = "" if li not in bounded else f" (every upstream within ±{_show(bounded[li])})"
            c = forall(f"{at}.layer{li}", {n: Z if r in form.zrows else up for r, n in enumerate(names)}, goal=goal,
                       doc=f"network layer {li} ({what}) at x = {fmt.hex(xb)}, every finite upstream{within}{zeros}: the "
                           f"chain's columns are the program's {what}{zc}, the others finite")
            nodes.append(Node("stage", c.name, c, doc=c.doc))
    return nodes


def _steps_all(o, steps, units):
    return T.eval_steps(steps, units, o.mul, o.add, o.const)


# ------------------------------------------------------------------ the lemma row
def builtin_pieces():
    """The row's g: 0 for |y| < 1/16, y ⊗ 3 for 1/16 <= |y| < 4, ±2 from 4 on (the dead
    zone of examples/dead_zone.py)."""
    return [M.Piece(Fraction(1, 16), "linear", Fraction(3)), M.Piece(Fraction(4), "const", Fraction(2))]


def applies(fmt):
    try:
        M.piece_programs(fmt, builtin_pieces())
    except InputError as e:
        return str(e)
    return None


def chain_lemma(name, nodes):
    """The lemma node of a point's gated-network claims (:func:`network_nodes` and
    :func:`killed_nodes`, or a family's own)."""
    return Node("lemma", name, None, nodes,
                doc="the gated network's layers at x = z compute the program; at the other points x its D is a zero")


def chain_root(fmt, z, pieces, name, others=()):
    """The claims that the point's gated network (threshold.gated_program, as
    theorem32.point_network builds it) computes its program at x = z (:func:`chain_nodes`)
    and sends a zero at every x of ``others`` (patterns: :func:`killed_nodes`)."""
    steps = M.binary_sums(M.tree_sum(M.piece_programs(fmt, pieces)))
    nodes, net, _ = chain_nodes(fmt, z, steps)
    nodes += killed_nodes(fmt, z, net, others)
    return chain_lemma(name, nodes)


def program_row(fmt, name, network, built_on):
    """A Theorem 3.2 program row (theorem_3_2_relu, rect_theorem_3_2): the built-in g's
    program tree, its statement naming the depth of ``network`` (the Theorem 3.2 network
    at x = 0 for that g, described by ``built_on``) beside the paper's."""
    from fpsmt.constructions.relu import constants
    root, _ = point_root(fmt, builtin_pieces(), name, "one point's backward program, every finite y")
    paper = constants(fmt).depth_3_2[0]
    statement = (f"for g(y) = 0 for |y| < 1/16, y ⊗ 3 for 1/16 <= |y| < 4, ±2 from 4 on: the backward program of "
                 f"one domain point (the pieces' programs, summed pairwise) gives g(y) for every finite y, every "
                 f"value it computes finite; the Theorem 3.2 network {built_on} has depth {network.depth} (the "
                 f"paper's 2^(E+1) + 2M + 9 = {paper}); that the network computes the program is the row "
                 f"{name}_network")
    return root, statement


def others_of(fmt, M_sigma):
    """A family's row's other points of X (patterns): ±ω (nearest to 0), 1 and X's least
    value −M_σ."""
    fmt = parse_format(fmt)
    return [fmt.round(q) for q in (fmt.omega, -fmt.omega, Fraction(1), -Fraction(M_sigma))]


def family_program_row(fmt, name, theorem_network, built_on):
    """A family's Theorem 3.2 program row (:func:`program_row`) on its network at x = 0 for
    the built-in g (``theorem_network``: the family's builder, gated_rect's or gated_sat's)."""
    fmt = parse_format(fmt)
    pieces, zero = builtin_pieces(), fmt.round(0)
    net = theorem_network(fmt, [(zero, zero, pieces)], [M.piece_programs(fmt, pieces)])
    return program_row(fmt, name, net, built_on)


def repaired(fmt):
    return program_row(fmt, "theorem_3_2_relu", M.network(fmt, [(fmt.round(0), fmt.round(0), builtin_pieces())]),
                       "at x = 0 built on it")


def row_others(fmt):
    """The row's other points of X (patterns), where the gated network of 0 must send a
    zero: ±ω (nearest to 0), 1 and the least value of X, −2^(e_max−2)."""
    fmt = parse_format(fmt)
    return [fmt.round(q) for q in (fmt.omega, -fmt.omega, Fraction(1), -pow2(fmt.e_max - 2))]


def network_row(fmt):
    """The row theorem_3_2_relu_network: the built-in g's gated network at x = ±0 computes
    its program, layer by layer, and the gate passes R's gradient to x."""
    root = chain_root(fmt, 0, builtin_pieces(), "theorem_3_2_relu_network", row_others(fmt))
    statement = ("for the built-in g of theorem_3_2_relu: the point's gated network (before ⊞) at x = ±0, every "
                 "finite upstream gradient on each layer: each layer's backward pass gives the program's step on "
                 "the chain's columns (numerically: a zero met by either zero) and finite gradients on the others, "
                 "and the gate's layers pass R's gradient to x; with the program's values finite (theorem_3_2_relu) "
                 "D^AD(±0, y) is the program's value for every finite y.  At x = ±ω, 1 and −2^(e_max−2) its D^AD "
                 "is a zero for every finite y (its top layers send zeros; below, zeros stay zeros).  The ⊞ with "
                 "the value network and the other points' networks is checked by the executor, not stated here")
    return root, statement


LEMMA = Lemma("theorem_3_2_relu", "Theorem 3.2 (BRIEF §3, §9): one point's backward program", {"repaired": repaired},
              formats=applies, order=210, only=("repaired",))
