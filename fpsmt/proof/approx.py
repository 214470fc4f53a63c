"""Agreement up to the signs of zeros, decided with ⊗ and ⊕ uninterpreted.

``a ≈ b``: a and b are the same float (NaN included), or both are zeros.  A network run
beside others in one dense network adds the other blocks' absent terms (+0 ⊗ their
values or gradients, zeros where those are finite) to its rows: its values and gradients
then differ from its run alone at most in the signs of zeros.  Stated directly, that is
an equivalence of two copies of every multiplier and adder, which the back ends do not
decide (a 2×2 ReLU layer, forward and backward: no answer from z3 in 60 s in
float8_e4m3).  Decided with ⊗ and ⊕ uninterpreted
(:attr:`fpsmt.proof.claims.Claim.uninterpreted`), it is congruence plus three facts
about zeros, each decided with the rounded operations:

* ``approx.mul_zero``: w ⊗ z1 ≈ w ⊗ z2 and z1 ⊗ w ≈ z2 ⊗ w for zeros z1, z2;
* ``approx.add_zero``: (z1 ⊕ t) ≈ (z2 ⊕ t) and (t ⊕ z1) ≈ (t ⊕ z2) for zeros z1, z2;
* ``approx.add_absent``: x ⊕ z ≈ x for a zero z.

:func:`instances` pairs the two runs' terms side by side (the Z3 interpretation walks
them; built by the same program, their operations pair up) and instantiates the facts at every pair of
products and sums: a ⊗ b against a′ ⊗ b′ gives mul_zero at (b; a, a′) and at (a′; b, b′),
whose chain covers a ≈ a′, b ≈ b′ (≈ is transitive); likewise for ⊕; a whole's sum that
adds an absent term z to x gives add_absent at (x, z).  Where the terms are not the
solver's (the executor, or Z3's own operations in a replay) there is nothing to pair and
no instance is made: the facts are true of the rounded operations, so a claim whose
model replays there is refuted without them.

The whole is the block run with the other blocks' share of the absent terms added
after its own (fpsmt.semantics.network.Zeros with ``others``: the whole's rows and
columns bit for bit, tests/test_tree.py), each share a zero of either sign — so the
block's own absent terms stay as they are in both runs and pair up in the walk.

:func:`congruence_tree` proves ≈ for every layer of any pattern (an induction over a
row's steps, a σ stage per activation): a node of the theorem's row
(proofs/theorem_3_1_relu.py).  :func:`layer_claim` states it for one layer pattern as a
whole (``beside_tree`` there: one claim per pattern of the atoms, a slow cross-check).
"""

from __future__ import annotations

from fpsmt.proof.claims import F, Float, forall

#: +0 or −0
ZERO = Float(range=(0, 0))


def approx(a, b):
    """a ≈ b: the same float, or both zeros."""
    return a.same(b) | (a.is_zero() & b.is_zero())


def zero_facts():
    """The three facts :func:`instances` uses, as fact nodes (each decided with the
    rounded operations)."""
    from fpsmt.proof.tree import fact
    mz = forall("approx.mul_zero", {"w": Float(), "z1": ZERO, "z2": ZERO},
                goal=lambda s: [approx(s.w * s.z1, s.w * s.z2), approx(s.z1 * s.w, s.z2 * s.w)],
                doc="a product with a zero factor does not see the zero's sign but in the sign of its result")
    az = forall("approx.add_zero", {"t": Float(), "z1": ZERO, "z2": ZERO},
                goal=lambda s: [approx(s.z1 + s.t, s.z2 + s.t), approx(s.t + s.z1, s.t + s.z2)],
                doc="a sum with a zero term does not see the zero's sign but in the sign of its result")
    ax = forall("approx.add_absent", {"x": Float(), "z": ZERO}, goal=lambda s: approx(s.x + s.z, s.x),
                doc="adding a zero changes at most the sign of a zero")
    return [fact(c) for c in (mz, az, ax)]


FACTS = ("approx.mul_zero", "approx.add_zero", "approx.add_absent")


def instances(s, alone, whole, absent=()) -> list:
    """Instances of :func:`zero_facts` along ``alone`` and ``whole`` (lists of F: the same
    program's outputs, ``whole`` with some inputs replaced by zeros of either sign and the
    terms ``absent`` added to some of its sums), enough for the solver to show each pair
    ≈ by congruence.  The pairing is the Z3 interpretation's
    (:meth:`fpsmt.semantics.arith.symbolic.Z3Arith.paired_operations`); empty where the
    terms are not the solver's uninterpreted ones (the executor, a replay)."""
    pair = getattr(s.A, "paired_operations", None)
    if pair is None:
        return []
    out = []

    def f(v):
        return F(s, v)
    for kind, x, y in pair([a.v for a in alone], [w.v for w in whole], [z.v for z in absent]):
        if kind == "absent":
            out.append(s.instance("approx.add_absent", x=f(x), z=f(y)))
            continue
        fact, other = ("approx.mul_zero", "w") if kind == "mul" else ("approx.add_zero", "t")
        (a0, a1), (w0, w1) = x, y
        out.append(s.instance(fact, **{other: f(a1), "z1": f(a0), "z2": f(w0)}))
        out.append(s.instance(fact, **{other: f(w0), "z1": f(a1), "z2": f(w1)}))
    return out


def layer_claim(name, layer, doc=""):
    """``layer``'s pattern (its entries and activation; every weight and bias free) run
    alone, against the same layer inside a whole: its inputs and upstream gradients zeros
    of either sign where they are zeros, every row and column adding the other blocks'
    share of the absent terms (a zero of either sign; Zeros ``others``) after its own.
    Goal: outputs and input gradients ≈, for every finite input and upstream; decided with
    ⊗ and ⊕ uninterpreted from :func:`instances`."""
    from fpsmt.semantics.network import Layer, Network, Param
    n_out, n_in = layer.n_out, layer.n_in
    entries = list(zip(layer.rows.tolist(), layer.cols.tolist()))
    free = Layer(n_out, n_in, [i for i, _ in entries], [j for _, j in entries],
                 [Param(f"w{i}_{j}") for i, j in entries], [Param(f"b{i}") for i in range(n_out)], layer.activation)
    fin = Float(finite=True)
    V = {**{f"w{i}_{j}": Float() for i, j in entries}, **{f"b{i}": Float() for i in range(n_out)},
         **{f"a{j}": fin for j in range(n_in)}, **{f"g{i}": fin for i in range(n_out)},
         **{f"za{j}": ZERO for j in range(n_in)}, **{f"zg{i}": ZERO for i in range(n_out)},
         **{f"zf{i}": ZERO for i in range(n_out)}, **{f"zb{j}": ZERO for j in range(n_in)}}

    def runs(s):
        P = {k: s[k] for k in V if k[0] in "wb"}
        a, g = [s[f"a{j}"] for j in range(n_in)], [s[f"g{i}"] for i in range(n_out)]
        a2 = [s.where(x.is_zero(), s[f"za{j}"], x) for j, x in enumerate(a)]
        g2 = [s.where(x.is_zero(), s[f"zg{i}"], x) for i, x in enumerate(g)]
        net = Network(s.fmt, [free])
        oa, ga = s.run(net, a, g, params=P)
        zs = {"forward": {0: [s[f"zf{i}"] for i in range(n_out)]},
              "backward": {0: [s[f"zb{j}"] for j in range(n_in)]}, "others": True}
        ow, gw = s.run(net, a2, g2, params=P, zeros=zs)
        return oa + ga, ow + gw, zs["forward"][0] + zs["backward"][0]
    return forall(name, V, goal=lambda s: [approx(x, y) for x, y in zip(*runs(s)[:2])],
                  given=lambda s: instances(s, *runs(s)), assumes=FACTS, uninterpreted=("mul", "add"),
                  doc=doc or f"a {n_out}x{n_in} {layer.activation} layer ({len(entries)} entries) beside other blocks "
                             "computes what it computes alone, up to the signs of zeros")


def pattern(layer):
    """What :func:`layer_claim` depends on: shape, entries and activation."""
    return (layer.n_out, layer.n_in, tuple(sorted(zip(layer.rows.tolist(), layer.cols.tolist()))), layer.activation)


def patterns(named_layers):
    """The distinct patterns of (label, layer) pairs, in order of first appearance:
    [(layer, [labels])]."""
    out = {}
    for label, layer in named_layers:
        out.setdefault(pattern(layer), (layer, []))[1].append(label)
    return list(out.values())


# ------------------------------------------------------------------ any network, generically
#: the most terms a row has (proofs/boxplus_neutrality.py takes it as its slot bound)
SLOTS = 1 << 19


def _preds():
    from fpsmt.proof.claims import Int
    from fpsmt.proof.tree import Pred
    slot = Int(0, SLOTS)
    pair = Pred("approx.pair", {"x": Float(), "x2": Float()}, lambda s: approx(s.x2, s.x),
                doc="x2 ≈ x: a value or gradient of a block inside the whole against the same one alone")
    inv = Pred("approx.row.invariant", {"j": slot, "n": slot, "r": Float(), "r2": Float()},
               lambda s: [s.j <= s.n, approx(s.r2, s.r)],
               doc="after j of a row's n steps, the whole's partial sum r2 ≈ the block's r")
    total = Pred("approx.row.sum", {"r": Float(), "r2": Float()}, lambda s: approx(s.r2, s.r),
                 doc="a row's sum in the whole ≈ its sum alone (a pre-activation, or a gradient w.r.t. an input)")
    return pair, inv, total


PAIR, ROW_INVARIANT, ROW_SUM = _preds()


def _row_step(s):
    """The next partial sums of one step of a row: a product term (kind 0: w ⊗ v or v ⊗ w,
    order o, v2 ≈ v), an absent term in both (kind 1: the block's own zo, the whole's zw),
    an absent term in the whole only (kind 2) or the bias (kind 3: w in both)."""
    k, o = s.t, s.o
    p = s.where(o.eq(0), s.w * s.v, s.v * s.w)
    p2 = s.where(o.eq(0), s.w * s.v2, s.v2 * s.w)
    r = s.where(k.eq(0), s.r + p, s.where(k.eq(1), s.r + s.zo, s.where(k.eq(2), s.r, s.r + s.w)))
    r2 = s.where(k.eq(0), s.r2 + p2, s.where(k.eq(1), s.r2 + s.zw, s.where(k.eq(2), s.r2 + s.zw, s.r2 + s.w)))
    return {"r": r, "r2": r2}


def _row_instances(s):
    """The zero facts at the step's pairs of operations (every kind's; each an implication)."""
    out = [s.instance("approx.mul_zero", w=s.w, z1=s.v, z2=s.v2),
           s.instance("approx.add_absent", x=s.r2, z=s.zw)]
    for t, t2 in ((s.w * s.v, s.w * s.v2), (s.v * s.w, s.v2 * s.w), (s.zo, s.zw), (s.w, s.w)):
        out += [s.instance("approx.add_zero", t=t, z1=s.r, z2=s.r2), s.instance("approx.add_zero", t=s.r2, z1=t, z2=t2)]
    return out


def congruence_tree(activations=("relu",), sem=None):
    """≈ carries through every layer of every pattern: a block's rows inside a whole dense
    network (its inputs and upstream gradients ≈ its own, the other blocks' share of each
    absent term a zero) give what they give alone up to the signs of zeros, forward and
    backward, for any number of terms and any summation order.  A tree of:

    * the three :func:`zero_facts`;
    * ``approx.input``, ``approx.upstream``: the network's input x and upstream y are the
      same in both (≈);
    * ``approx.share``: another block's value or gradient that is ≈ a finite one is finite,
      so its absent term +0 ⊗ it is a zero (the absent sum of zeros is a zero:
      :meth:`fpsmt.semantics.arith.base.Arith.absent_zero_sum`);
    * ``approx.row``: an induction over a row's steps (symbolic count n <= SLOTS, ⊗ and ⊕
      uninterpreted): each step adds a product of ≈ inputs by the same weight (either
      order), an absent term (a zero in both, or in the whole only) or the bias;
    * ``approx.sigma.<activation>``, one per activation of the network: from ≈
      pre-activations and ≈ upstream gradients (each a row's sum, or the network's
      upstream), the layer's values σ(p) and the gradients its backward formula (``sem``)
      gives are ≈.

    The predicates tie them (:func:`fpsmt.proof.tree.check_ties`): the row's step takes
    ``approx.pair`` (a ≈ pair of inputs), which the σ stages and ``approx.input``
    guarantee; the σ stages take ``approx.row.sum``, which the row's conclusion and
    ``approx.upstream`` guarantee.  That cycle is the induction over the layers.

    A layer's forward pass is its rows (the products w ⊗ h of its inputs, its absent term,
    the bias) then σ; its backward pass the backward formula, then its columns (products
    δ ⊗ w, the absent term): so by induction over the layers, up from the input and down
    from the upstream, every value and gradient of the block in the whole is ≈ its own —
    that the run is built so is the code's (fpsmt.semantics.network.run, the whole's rows:
    tests/test_tree.py)."""
    from fpsmt.proof.claims import Int
    from fpsmt.proof.tree import Node, Pred, induction, stage
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.network import PAPER
    sem = sem or PAPER
    facts = zero_facts()
    inp = stage("approx.input", {"x": Float()}, PAIR, lambda s: {"x": s.x, "x2": s.x},
                doc="the network's input is the same in the whole as alone")
    up = stage("approx.upstream", {"y": Float()}, ROW_SUM, lambda s: {"r": s.y, "r2": s.y},
               doc="the upstream gradient into the output layer is the same in the whole as alone")
    fin = Pred("approx.pair.finite", {"x": Float(finite=True), "x2": Float()}, lambda s: approx(s.x2, s.x),
               doc="x2 ≈ x with x finite (another block's value or gradient: finite by its stages)")
    share_ok = Pred("approx.share.zero", {"x2": Float()}, lambda s: [s.x2.is_finite(), (s.const(0) * s.x2).is_zero()],
                    doc="x2 is finite and its absent term +0 ⊗ x2 a zero")
    share = stage("approx.share", {}, share_ok, lambda s: {}, fin,
                  doc="another block's value or gradient in the whole, ≈ its finite one alone, is finite: "
                      "its absent term is a zero")
    first = sem.fold_init == "first"  # the fold stores its first term: −0 ⊕ t = t exactly
    row = induction(
        "approx.row", ROW_INVARIANT, "j", 0, SLOTS,
        stage("approx.row.base", {"n": Int(0, SLOTS)}, ROW_INVARIANT,
              lambda s: {"j": 0, "r": s.const(-0.0 if first else 0), "r2": s.const(-0.0 if first else 0)},
              doc=f"a row's sum starts from the same {'−0' if first else '+0'} in both"),
        _row_step, ROW_SUM, done=lambda s: s.j.eq(s.n),
        step_vars={"t": Int(0, 3), "o": Int(0, 1), "v": Float(), "v2": Float(), "w": Float(), "zo": ZERO, "zw": ZERO},
        step_given=lambda s: [PAIR.holds(s, x=s.v, x2=s.v2)] + _row_instances(s), step_premise=[PAIR],
        step_assumes=FACTS, step_uninterpreted=("mul", "add"),
        doc="a row of any length: each step keeps the whole's partial sum ≈ the block's")

    sigmas = [_sigma_stage(get_activation(a), sem) for a in dict.fromkeys(activations)]
    return Node("lemma", "approx.congruence", None, facts + [inp, up, share, row] + sigmas,
                doc="every layer of a block beside others, of any pattern: values and gradients as alone, "
                    "up to the signs of zeros")


def _sigma_stage(act, sem):
    from fpsmt.proof.tree import Node

    def runs(s):
        h, h2 = s.sigma(act, s.p), s.sigma(act, s.p2)
        f = sem.backward_formula(act)
        d, d2 = F(s, f(s.A, act, s.g.v, s.p.v, h.v)), F(s, f(s.A, act, s.g2.v, s.p2.v, h2.v))
        return [h, d], [h2, d2]
    name = f"approx.sigma.{act.name}"
    c = forall(name, {"p": Float(), "p2": Float(), "g": Float(), "g2": Float()},
               given=lambda s: [ROW_SUM.holds(s, r=s.p, r2=s.p2), ROW_SUM.holds(s, r=s.g, r2=s.g2)]
               + instances(s, *runs(s)),
               goal=lambda s: [PAIR.holds(s, x=a, x2=b) for a, b in zip(*runs(s))],
               assumes=FACTS, uninterpreted=("mul", "add"),
               doc=f"{act.name}: from ≈ pre-activations p and ≈ upstream gradients g, the values σ(p) and the "
                   "backward formula's gradients are ≈")
    return Node("stage", name, c, doc=c.doc, uses={"premise": [ROW_SUM], "guarantee": PAIR})
