"""The gradient-threshold indicator (the paper's Lemma 3.7; BRIEF §9), ReLU on X = {0},
in BRIEF §9's smallest case: one network (fpsmt.constructions.threshold.smallest_case)
with f(0) = +0 and D(y) = ±1 exactly at y = ±1, a zero at every other finite y.  The
network is two blocks side by side, D(y) = c·sign(y)·1[|y| >= t] for (t, c) = (1, 1) and
(1⁺, −1), whose outputs the input layer sums.

repaired — a proof tree per format:

* ``forward``: at x = 0 every hidden pre-activation is > 0 (every ReLU' is 1) and
  f(0) = +0 (the whole network, forward; x ranges over ±0).
* per block, a sequence over (y, u), u the block's running value: ``start`` (u = y ⊗ 1,
  the output weight), one stage per staircase step (u ← u ⊕ (−s)·1[u > P]), each from the
  invariant I_k(y, u) — |u| <= U_k, 1[|u| >= t] = 1[|y| >= t], u not of the opposite
  sign of y — to I_(k+1), and ``final`` from I_n to o = c·sign(y)·1[|y| >= t] (a zero
  where the target is 0).
* ``sum``: both blocks' outputs for one y, summed (⊗ 1 each, ⊕ left to right), are the
  target: ±1 at y = ±1, a zero elsewhere.

Each stage's computation is its slice of the block's steps (threshold.stage_steps,
threshold.final_steps) run by the same fold as the network's D^AD at x = 0, where every
ReLU' is 1; that the slices make up the network is checked at every finite y of the
8-bit formats (tests/test_threshold.py).  There is no released variant (the authors'
code has no Theorem 3.2 block), so ``--variant released`` gives this lemma no row.
"""

from fpsmt.constructions import threshold as T
from fpsmt.proof.claims import Float
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, join, sequence, stage
from fpsmt.proofs.common import whole

Y = Float(finite=True)
U = Float(finite=True)


def _same_side(s, y, u):
    return [(y > 0).implies(~(u < 0)), (y < 0).implies(~(u > 0))]


def _iff(a, b):
    return a.implies(b) & b.implies(a)


def _run(s, steps, u):
    return T.eval_steps(steps, [u], lambda a, b: a * b, lambda a, b: a + b, s.const)[0]


def _sign_target(s, y, t, c):
    """c·sign(y)·1[|y| >= t] as a claim term (+0 below t)."""
    return s.where(abs(y) >= s.const(t), s.where(y > 0, s.const(c), s.const(-c)), s.const(0))


def _block(fmt, tag, p: T.Plan, ovar):
    """(sequence node, output predicate O(y, <ovar>)) for one block."""
    bounds = [fmt.Omega] + [after for _, _, after in p.stages]
    inv = [Pred(f"{tag}.I{k}", {"y": Y, "u": U},
                (lambda b: lambda s: [abs(s.u) <= s.const(b), _iff(abs(s.u) >= s.const(p.t), abs(s.y) >= s.const(p.t))]
                 + _same_side(s, s.y, s.u))(b),
                doc=f"|u| <= {float(b):g}, 1[|u| >= t] = 1[|y| >= t], u not of y's opposite sign")
           for k, b in enumerate(bounds)]
    out = Pred(f"{tag}.O", {"y": Y, ovar: U}, lambda s: [s[ovar].eq(_sign_target(s, s.y, p.t, p.c))],
               doc=f"o = {float(p.c):g}·sign(y)·1[|y| >= {float(p.t):g}] (a zero below)")
    items = [stage(f"{tag}.start", {"y": Y}, inv[0], lambda s: {"u": s.y * s.const(1)},
                   doc="u = y ⊗ 1 (the output layer's weight)")]
    for k, (P, sh, after) in enumerate(p.stages):
        steps = T.stage_steps(fmt, P, sh)
        items.append(stage(f"{tag}.stage{k + 1}", {}, inv[k + 1], (lambda st: lambda s: {"u": _run(s, st, s.u)})(steps),
                           hypothesis=inv[k],
                           doc=f"u ← u ⊕ (−{float(sh):g})·1[u > {float(P):g}]: |u| <= {float(after):g} after"))
    fin = T.final_steps(p)
    items.append(stage(f"{tag}.final", {}, out, lambda s: {ovar: _run(s, fin, s.u)}, hypothesis=inv[-1],
                       doc="×m1 ×m, the gadget at P, ω taken to c"))
    return sequence(f"{tag}", items, doc=p.describe()), out


def _smallest_target(s, y):
    return s.where(abs(y).eq(s.const(1)), s.where(y > 0, s.const(1), s.const(-1)), s.const(0))


def repaired(fmt):
    net, plans = T.smallest_case(fmt)
    fwd_x = Float(range=(0, 0))

    def forward(s):
        out, _, (pre, _, _) = s.run(net, [s.x], trace=True)
        return [z > s.const(0) for layer in pre[:-1] for z in layer] + [out[0].is_zero()]
    fwd_pred = Pred("forward.ok", {"x": fwd_x}, forward,
                    doc="at x = ±0: every hidden pre-activation > 0 and f(x) a zero")
    fwd = stage("forward", {"x": fwd_x}, fwd_pred, lambda s: {})
    blocks, outs = [], []
    for i, p in enumerate(plans):
        node, o = _block(fmt, f"block{i + 1}", p, f"o{i + 1}")
        blocks.append(node)
        outs.append(o)
    total = Pred("sum.D", {"y": Y, "o1": U, "o2": U},
                 lambda s: [(s.o1 * s.const(1) + s.o2 * s.const(1)).eq(_smallest_target(s, s.y))],
                 doc="(o1 ⊗ 1) ⊕ (o2 ⊗ 1) = ±1 at y = ±1, a zero elsewhere")
    summed = join("sum", outs, total, doc="the input layer sums the two blocks' outputs for the same y")
    root = Node("lemma", "gradient_threshold", None, [fwd] + blocks + [summed],
                doc="BRIEF §9's smallest case, ReLU, X = {0}")
    statement = (f"the ReLU network of depth {net.depth} on X = {{0}}: f(0) = +0, and for every finite upstream y, "
                 f"D^AD(y) = ±1 at y = ±1 and a zero at every other y (blocks: "
                 + "; ".join(p.describe() for p in plans) + ")")
    return root, statement


def _whole(fmt, sem):
    net, plans = T.smallest_case(fmt)
    make = whole("gradient_threshold", {"x": Float(range=(0, 0)), "y": Y}, lambda s: (net, None, [s.x], [s.y]),
                 lambda s, out, grad: [out[0].is_zero(), grad[0].eq(_smallest_target(s, s.y))], lambda f: net,
                 lambda f: (f"the ReLU network of depth {net.depth} on X = {{0}}: f(0) = +0, and for every finite "
                            "upstream y, D^AD(y) = ±1 at y = ±1 and a zero at every other y"), enumerate=True)
    return make(fmt, sem)


LEMMA = Lemma("gradient_threshold", "Lemma 3.7 (BRIEF §9, the smallest case)", {"repaired": repaired}, order=200,
              only=("repaired",), whole=_whole)
