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

Used by proofs/theorem_3_1_relu.py ``beside_tree`` (one :func:`layer_claim` per layer
pattern of the theorem's atoms; decided by the tests, not yet a node of the theorem's
row: see its docstring).
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

