"""The gradient atom of Lemma 3.5 (f2, the gradient network, is a ⊞ of them): value 0 on
X, and D^AD(h) = g at x = z, ±0 elsewhere for every admissible upstream |y| <= H_σ = Ω
(h ≠ 0 with |h| <= Ω, g ≠ 0 finite; for g = 0 the theorem uses no atom).

released — BRIEF §5.1: relu(v ⊗ relu((1/d) ⊗ Ind_z(x))) beside a released zero-gradient
atom of value −v/d, summed, with v = g ⊘ h (fpsmt.constructions.relu.released_gradient_atom).
Stated and refuted as one claim.

repaired — fpsmt.constructions.relu.repaired_gradient_atom (see its docstring for the layers),
proved as a proof tree (fpsmt.proof.tree), each node for all of its parameters:

* ``gate`` (a sequence): the step indicators 1[x >= z], 1[x <= z] (their stages as they
  run beside each other and T: every absent term any ±0, fpsmt.semantics.network.Zeros),
  ``gate_T`` (T = relu(x ⊖ z⁻) carried through layers 1–5, beside the step blocks: +0
  below z, d = z − z⁻ at z, in [d, 2^(e_max−1)] above; its gradient is the upstream
  where T > 0 and the upstream is nonzero, a zero where T = 0 or the upstream is ±0),
  ``gate15`` (layers 1–5 as one dense network, the three blocks side by side: each
  block's finiteness facts layer by layer, the layer chain that shows every absent term
  of the whole a zero, and the whole's outputs as GATE5 states them, its D^AD as
  ``gate_T`` states T's: proofs/common.py ``absent_chain``), and ``gate_top`` (layers
  6–7, the very layers of the atom, on layer 5's outputs as GATE5 states them):
  (R, G1, G2) = (d, 0, 0) at x = z, (0, C, 0) below, (0, 0, C) above
  (C = 2^e_max), gradients into the indicators finite, into T the upstream u_R at x = z and
  a zero elsewhere (the chain's upstream there is a zero).
* ``shrink``: one reset layer of weight 1 on F = 2^k of the gate's range: F ↦ 1 if
  F <= 2^q, else F − F⁻ = 2^(k−p−1), again of the range; gradient u_R exactly, all
  gradients finite.  ``spacing``: d = z − z⁻ is such a 2^k for every z of X.
* ``at_z`` (a sequence): ``shrinks`` (the shrink layers as built take (2^k, 0, 0) to exactly
  (1, 0, 0) for every k of the range: an enumeration of the integer k), then the induction
  ``chain_at_z`` over the chain layers (any number up to CHAIN_MAX, a symbolic index):
  each layer, whatever its weight c in K = {−1} ∪ (0, 2^q] (q = min(p, e_max)) and its
  upstreams, keeps (1, 0, 0), has R alive (pre > 0), gives the gradient (u_R ⊗ ReLU'(pre))
  ⊗ c w.r.t. R — the backward step as AD takes it, ReLU'(pre) = 1 — and finite others.
* ``shrink_biases`` and ``biases``: every layer of the chain (shrinks: weight 1 and
  reset_bias(2^k); the others: c in K and reset_bias(c)) has its weight in K and its bias
  <= 2 (the predicate CHAIN_LAYER), which the induction ``chain_killed`` assumes of each
  layer: from the gate's (0, C, 0) or (0, 0, C) at x != z, every layer keeps it, and a
  finite upstream on R with zeros on the killers gives zero gradients.
* ``output``: the last chain layer (with N) and the output layer, for every c in K,
  every w_out the transfer gives (the predicate W_OUT of proofs/multiplication_transfer.py,
  the same term in both trees: a power of two in (0, 1]) and every finite y: (1, 0, 0) ↦
  out = +0 with gradient ((y ⊗ w_out) ⊗ ReLU'(pre)) ⊗ c w.r.t. R (pre > 0); (0, C, 0) and
  (0, 0, C) ↦ out = ±0 with zero gradients.
* the multiplication transfer's stages (its proof tree, whose stages follow the format's
  route, fpsmt.constructions.relu.transfer_route): every chain weight in K, every
  partial product finite and nonzero, the product h ⊗ w_out ⊗ c_m ⊗ … ⊗ c_1 = g.
* the facts ``one`` (u ⊗ ReLU'(pre) = u for finite u, pre > 0) and ``cong`` (a = b gives
  a ⊗ c = b ⊗ c, decided with ⊗ an uninterpreted function: true of every binary
  operation, so of the rounded product; with ⊗ interpreted it is a multiplier-equivalence
  query that z3 and bitwuzla do not decide in float32 within minutes).
* ``backward`` (a sequence): the induction ``chain_grad`` from the output down — each
  layer's step is CHAIN_BACK, which ``output`` and ``chain_at_z`` prove of every such
  layer, and with instances of ``one`` and ``cong`` the gradient G along R stays the
  transfer's partial product (G ⊗ ReLU'(pre)) ⊗ c = out ⊗ c; the induction ``pass_grad``
  over the layers that pass the gradient through (PASS: the shrinks, layers 6–7 into T at
  x = z, layers 1–5 from T to x where T > 0); the join ``backward.g`` with the transfer's
  guarantee out = g: D^AD = g at x = z.

Every stage network is a slice of the atom's own network: tests/test_tree.py runs the
whole atom symbolically and finds, term for term, layers 6–7 = ``gate_top``'s network,
each chain layer = the induction step's layer with that layer's c_i, B_i, and the last
two = ``output``'s, forward and backward.  In layers 1–5 each row of a block also adds
+0 ⊗ the other blocks' values, and each column +0 ⊗ their gradients (the dense
semantics' absent entries): the stages of the step blocks and of T are stated for every
±0 there (Zeros stand-ins), and ``gate15`` shows on the gate's own layers 1–5 (the
slice test finds them term for term in the atom) that every such term is a zero — a
forward claim and a backward one, each instantiating the blocks' per-layer finiteness
facts with the whole's absent terms below (above) each layer, so that the solver chains
the layers — and then instantiates the three stages with the whole's absent terms.

What is the code's, tested, not a claim: that the network's layers, read from the
output down, are the inductions' steps in order with the transfer's weights (a fact of
the code that builds them: the slice tests above, and the weights are the list
fpsmt.constructions.relu.transfer_weights returns), so that the induction's partial
products are the transfer's, whose stages state each one finite and nonzero (the
``chain_grad`` step's hypothesis out ⊗ c != 0).  At x ≠ z, ``output`` gives zero
gradients for any finite y, the killed chain keeps them zero, ``gate_top`` turns them
into a zero into T and ``gate15`` (the sum over layer 1's rows included) into a zero
D^AD.  Independently of the solver, tests run the atom in the executor for every x of X
(all z in the 8-bit formats, extreme and random z in bfloat16).
"""


from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proofs.common import (FINITE, STEP_PAIR, X, X_DOM, Beside, absent_chain, finite_inside, step_beside,
                                 step_node, whole, xdesc, zero)
from fpsmt.proofs.multiplication_transfer import CHAIN_WEIGHT, REACHES, W_OUT, transfer_tree
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, fact, induction, join, sequence, stage

#: a layer that passes its upstream gradient through: g = u wherever u != 0 (each shrink
#: layer on R, layers 6–7 into T at x = z, layers 1–5 into x where T > 0)
PASS = Pred("gradient_atom.pass", {"u": Float(), "g": Float()}, lambda s: (~s.u.is_zero()).implies(s.g.same(s.u)),
            doc="g = u where u != 0")


def _back(s, u, pre, c):
    return (u * s.sigma_prime(C.hidden(), pre)) * c


#: a chain layer's backward step, as AD takes it: its R neuron is alive and the gradient
#: into R is (u ⊗ ReLU'(pre)) ⊗ c (where that is not a zero)
CHAIN_BACK = Pred("gradient_atom.chain_back", {"u": Float(finite=True), "pre": Float(), "c": Float(finite=True),
                                               "gR": Float()},
                  lambda s: [s.pre > 0, (~_back(s, s.u, s.pre, s.c).is_zero()).implies(s.gR.same(_back(s, s.u, s.pre,
                                                                                                          s.c)))],
                  doc="pre > 0 and gR = (u * ReLU'(pre)) * c where that is nonzero")


def _killers(s):
    C_ = s.const(C.killer_constant(s.fmt))
    return [(s.const(0), C_, s.const(0)), (s.const(0), s.const(0), C_)]


def _gate_layers(fmt):
    """The gate's layers as the atom has them (fpsmt.constructions.relu.gate_plan), hidden
    activations throughout: ``gate_top`` runs layers 6–7 of it (T and the step blocks are
    stated alone: see the module docstring on absent entries)."""
    return C.gate_plan(fmt).network(last_act=None).layers


def _d(s):
    return s.z - s.z.next_down()


#: T at layer 5 (its own neurons: relu(x ⊖ z⁻) in layer 1, then carried)
T5 = Pred("gradient_atom.T5", {"z": X_DOM, "x": X_DOM, "T": Float()},
          lambda s: [(s.x < s.z).implies(s.T.same(0)), s.x.eq(s.z).implies(s.T.same(_d(s))),
                     (s.x > s.z).implies((s.T >= _d(s)) & (s.T <= s.int_pow2(s.fmt.e_max - 1)))],
          doc="T = +0 below z, d = z - z⁻ at z, in [d, 2^(e_max-1)] above")
#: layer 5's outputs (ge4, le4, T): the step pair, and T
GATE5 = Pred("gradient_atom.gate5", {"z": X_DOM, "x": X_DOM, "ge": Float(), "le": Float(), "T": Float()},
             lambda s: [STEP_PAIR.holds(s), T5.holds(s)], doc="(ge, le) the step pair and T as T5 states it")
#: layer 7's outputs (R, G1, G2): (d, 0, 0) at x = z, (0, C, 0) below, (0, 0, C) above
GATE = Pred("gradient_atom.gate", {"z": X_DOM, "x": X_DOM, "R": Float(), "G1": Float(), "G2": Float()},
            lambda s: [s.x.eq(s.z).implies(s.R.same(_d(s)) & s.G1.same(0) & s.G2.same(0)),
                       (s.x < s.z).implies(s.R.same(0) & s.G1.same(C.killer_constant(s.fmt)) & s.G2.same(0)),
                       (s.x > s.z).implies(s.R.same(0) & s.G1.same(0) & s.G2.same(C.killer_constant(s.fmt)))],
            doc="(R, G1, G2) = (d, 0, 0) at x = z, (0, C, 0) below, (0, 0, C) above (C = 2^e_max)")


def _t_net(fmt, layers=5):
    """T's own neurons through the gate's first ``layers`` layers (relu(x ⊖ z⁻), then carried)."""
    from fpsmt.constructions.relu import Plan
    P = Plan(fmt)
    for k in range(layers):
        P.add([C.t_carry(k)])
    return P.network(last_act=None)


def t_gradient(s, T, g):
    """What T's gradient g is, for the upstream u into T: u where T > 0 and u != 0, a zero
    where T = 0 or u = ±0, finite (``gate_T`` of T's block, ``gate15`` of the whole gate)."""
    return [(T > 0).implies(PASS.holds(s, g=g)), (T.is_zero() | s.u.is_zero()).implies(g.is_zero()), g.is_finite()]


def gate_t_stage(fmt, layers=5, name="gradient_atom.gate_T", guarantee=None):
    """T through layers 1–5 (``layers``) as the gate carries it, beside the step blocks
    (every absent term of layers 2–5 any ±0, forward and backward:
    fpsmt.semantics.network.Zeros), for every z, x of X; its gradient for every finite
    upstream u (zeros included: at x != z the chain sends T a zero): u where T > 0 and
    u != 0, a zero where T = 0 or u = ±0 (the stand-ins may flip the sign of a zero
    gradient: with u = −0 the whole can give +0)."""
    from fpsmt.proof.claims import zero_variables

    def run(s):
        net = _t_net(s.fmt, layers)
        return s.run(net, [s.x], [s.u], params=C.step_params(s, "ge", s.z), zeros=s.zeros(net), trace=True)

    def side(s):
        (T,), (g,), _ = run(s)
        return t_gradient(s, T, g)
    return stage(name, {"z": X_DOM, "x": X_DOM, "u": Float(finite=True), **zero_variables(_t_net(fmt, layers))},
                 guarantee or T5, lambda s: {"T": run(s)[0][0]}, side=side, states=[PASS])


def gate_beside(fmt):
    """Layers 1–5 of the gate as one dense network (1[x >= z], 1[x <= z] and T in rows 0,
    1, 2 of every layer; upstream y, v into the step blocks, u into T): the layer chain
    (proofs/common.py: absent_chain) from the three beside claims shows every absent term
    a zero and gives GATE5 of its outputs, and its D^AD: u where T > 0 and u != 0, a zero
    where T = 0 or u = ±0, finite."""
    from fpsmt.semantics.network import Network

    def whole(s):
        net = Network(s.fmt, _gate_layers(s.fmt)[:5])
        P = {**C.step_params(s, "ge", s.z), **C.step_params(s, "le", -s.z)}
        return net, P, [s.x]

    t_block = Beside("gradient_atom.gate_T", "gradient_atom.T", _t_net, 2, lambda s: C.step_params(s, "ge", s.z), "u", "u")
    return absent_chain("gradient_atom.gate15", fmt, {"z": X_DOM, "x": X_DOM, "y": FINITE, "v": FINITE, "u": FINITE},
                        ("y", "v", "u"), whole, [step_beside("ge", 0, "y"), step_beside("le", 1, "v"), t_block], GATE5,
                        lambda s, out, grad: {"ge": out[0], "le": out[1], "T": out[2]},
                        side=lambda s, out, grad: t_gradient(s, out[2], grad[0]), states=[PASS])


def gate_top_stage(fmt):
    """Layers 6–7 (the killers and the gate: a slice of the atom) on layer 5's outputs as
    GATE5 states them, with the upstream the chain gives: finite (uR, u1, u2) at x = z,
    zeros elsewhere (the kill and output stages).  D^AD into (ge, le) finite, into T: uR at
    x = z (uR != 0), a zero elsewhere."""
    return _gate_top("gradient_atom.gate_top", _gate_layers, ("R", "G1", "G2"), ("uR", "u1", "u2"), GATE)


def _gate_top(name, layers, state, ups, guarantee, params=None):
    """Layers 6–7 of ``layers(fmt)`` on layer 5's outputs as GATE5 states them, the
    upstreams ``ups`` (one per neuron of ``state``, R's first; finite at x = z, zeros
    elsewhere): the outputs as ``guarantee`` states them, D^AD into (ge, le) finite and into
    T the upstream on R at x = z, a zero elsewhere.  ``params(s)``: the layers' params."""
    from fpsmt.semantics.network import Network

    def run(s):
        net = Network(s.fmt, layers(s.fmt)[5:7])
        at = s.x.eq(s.z)
        return s.run(net, [s.ge, s.le, s.T], [s.where(at, s[u], s[u] * 0) for u in ups],
                     params=params(s) if params else None, trace=True)

    def side(s):
        _, grad, (_, post, up) = run(s)
        at = s.x.eq(s.z)
        return [grad[0].is_finite(), grad[1].is_finite(), at.implies(PASS.holds(s, u=s.uR, g=grad[2])),
                (~at).implies(grad[2].is_zero())] + finite_inside(post, up)
    fin = Float(finite=True)
    return stage(name, {u: fin for u in ups}, guarantee, lambda s: dict(zip(state, run(s)[0])), GATE5, side=side,
                 states=[PASS])


def _layer_net(fmt, with_n=False, output=False, inputs=("R", "G1", "G2"), layer=lambda n: C.chain_layer("c", "B", n)):
    """One chain layer (``layer(with_n)``) on ``inputs``, then the output layer if ``output``."""
    from fpsmt.constructions.relu import Plan
    P = Plan(fmt, inputs=inputs)
    P.add(layer(with_n))
    if output:
        P.add(C.OUTPUT_LAYER)
    return P.network(last_act="identity" if output else None)


#: the most chain layers the inductions cover (every format's chain is far shorter)
CHAIN_MAX = 1 << 12
_i = Int(0, CHAIN_MAX)
#: the chain's state at x = z: (R, G1, G2) = (1, 0, 0) (after the shrinks, and after every layer)
AT_Z = Pred("gradient_atom.at_z", {"R": Float(), "G1": Float(), "G2": Float()},
            lambda s: [s.R.same(1), s.G1.same(0), s.G2.same(0)], doc="(R, G1, G2) = (1, 0, 0)")
AT_Z_RUN = Pred("gradient_atom.chain_at_z", {**AT_Z.variables, "i": _i, "n": _i},
                lambda s: [s.i <= s.n, AT_Z.holds(s)], doc="after i of the n chain layers: (1, 0, 0)")


def chain_at_z(fmt):
    """At x = z, by induction over the chain layers (any number up to CHAIN_MAX, each with
    its own weight c in K and upstreams): every layer keeps (1, 0, 0), its R neuron is
    alive (pre > 0), its gradient w.r.t. R is (u_R ⊗ ReLU'(pre)) ⊗ c — the backward step as
    AD takes it (ReLU'(pre) = 1; stating it through ReLU' keeps the query free of a
    multiplier-equivalence problem) — and the others are finite."""
    def layer(s):
        net = _layer_net(s.fmt)
        return s.run(net, [s.R, s.G1, s.G2], [s.uR, s.u1, s.u2],
                     params={"c": s.c, "B": C.reset_bias(s, s.c * s.R)}, trace=True)

    def side(s):
        _, grad, (pre, _, _) = layer(s)
        return [CHAIN_BACK.holds(s, u=s.uR, pre=pre[0][0], gR=grad[0]), grad[1].is_finite(), grad[2].is_finite()]
    fin = Float(finite=True)
    return induction(
        "gradient_atom.chain_at_z", AT_Z_RUN, "i", 0, CHAIN_MAX,
        stage("gradient_atom.chain_at_z.base", {"n": _i}, AT_Z_RUN, lambda s: {"i": 0}, AT_Z),
        lambda s: dict(zip(("R", "G1", "G2"), layer(s)[0])), AT_Z,
        step_vars={"c": fin, "uR": fin, "u1": fin, "u2": fin}, step_given=lambda s: CHAIN_WEIGHT.holds(s), step_side=side,
        done=lambda s: s.i.eq(s.n), doc="the chain layers at x = z", step_premise=[CHAIN_WEIGHT],
        step_states=[CHAIN_BACK])


def shrink_claim(fmt):
    def goal(s):
        F = s.k.pow2()
        net = _layer_net(s.fmt)
        out, grad = s.run(net, [F, 0, 0], [s.uR, s.u1, s.u2], params={"c": s.const(1), "B": C.reset_bias(s, F)})
        small = F <= s.int_pow2(C.step_cap(s.fmt))
        nxt = s.k - (s.fmt.M + 1)  # F − F⁻ = 2^(k − p − 1): again a power of two of the gate's range
        return [out[0].same(s.where(small, 1, F - F.next_down())), out[0] > 0, (~small).implies(out[0] < F),
                (~small).implies(out[0].same(nxt.pow2()) & (nxt >= s.fmt.e_min - s.fmt.M)),
                PASS.holds(s, u=s.uR, g=grad[0])] + [g.is_finite() for g in grad]
    fin = Float(finite=True)
    return forall("gradient_atom.shrink", {"k": Int(lambda f: f.e_min - f.M, lambda f: f.e_max - 2 - f.M),
                                           "uR": fin, "u1": fin, "u2": fin}, goal=goal)


def spacing_claim(fmt):
    def goal(s):
        d = s.z - s.z.next_down()
        e = C.true_exponent(s, d)
        return [d > 0, d.same(e.pow2()), e >= s.fmt.e_min - s.fmt.M, e <= s.fmt.e_max - 2 - s.fmt.M]
    return forall("gradient_atom.spacing", {"z": X()}, goal=goal)


def shrinks_stage(fmt):
    """The shrink layers as built take (d, 0, 0), d = 2^k of the gate's range, to exactly
    (1, 0, 0) (k an integer: decided by enumeration, about 2,100 values in float64)."""
    def out(s):
        from fpsmt.constructions.relu import Plan
        P = Plan(s.fmt, inputs=("R", "G1", "G2"))
        d = s.k.pow2()
        params = C.reset_chain(s, P, d, [s.const(1)] * C.shrink_count(s.fmt))
        o, _ = s.run(P.network(last_act=None), [d, 0, 0], params=params)
        return dict(zip(("R", "G1", "G2"), o))
    return stage("gradient_atom.shrinks", {"k": Int(lambda f: f.e_min - f.M, lambda f: f.e_max - 2 - f.M)}, AT_Z,
                 out, enumerate=True)


#: what ``kill`` assumes of a chain layer's weight and bias, and what ``biases`` (chain
#: layers) and ``shrink_biases`` (shrink layers) show every layer of the chain has
CHAIN_LAYER = Pred("gradient_atom.chain_layer", {"c": Float(finite=True), "B": Float(finite=True)},
                   lambda s: [CHAIN_WEIGHT.holds(s), s.B <= 2], doc="c in K and the bias B <= 2")
#: the chain's state at x != z: the gate's (0, C, 0) or (0, 0, C), kept by every layer
KILLED = Pred("gradient_atom.killed", {"R": Float(), "G1": Float(), "G2": Float()},
              lambda s: s.any(*[s.all(s.R.same(a), s.G1.same(b), s.G2.same(c)) for a, b, c in _killers(s)]),
              doc="(R, G1, G2) = (0, C, 0) or (0, 0, C)")
KILLED_RUN = Pred("gradient_atom.chain_killed", {**KILLED.variables, "i": _i, "n": _i},
                  lambda s: [s.i <= s.n, KILLED.holds(s)], doc="after i of the n chain layers: still killed")
#: the gate's output at x != z
GATE_OFF = Pred("gradient_atom.gate_off", {**GATE.variables}, lambda s: [GATE.holds(s), ~s.x.eq(s.z)],
                doc="the gate's (R, G1, G2) at x != z")


def chain_killed(fmt, base=None):
    """At x != z, by induction over the chain layers (shrinks included: any weight and bias
    with CHAIN_LAYER): (0, C, 0) and (0, 0, C) go through every layer unchanged, and a
    finite upstream on R with zeros on the killers gives zero gradients.  ``base``: the
    induction's base (a stage guaranteeing KILLED_RUN at i = 0; default from GATE_OFF)."""
    def layer(s):
        net = _layer_net(s.fmt)
        return s.run(net, [s.R, s.G1, s.G2], [s.uR, s.o1, s.o2], params={"c": s.c, "B": s.B})
    fin = Float(finite=True)
    return induction(
        "gradient_atom.chain_killed", KILLED_RUN, "i", 0, CHAIN_MAX,
        base or stage("gradient_atom.chain_killed.base", {"n": _i}, KILLED_RUN, lambda s: {"i": 0}, GATE_OFF),
        lambda s: dict(zip(("R", "G1", "G2"), layer(s)[0])), KILLED,
        step_vars={"c": fin, "B": fin, "uR": fin, "o1": zero(), "o2": zero()},
        step_given=lambda s: CHAIN_LAYER.holds(s), step_side=lambda s: [g.is_zero() for g in layer(s)[1]],
        done=lambda s: s.i.eq(s.n), doc="the chain layers at x != z", step_premise=[CHAIN_LAYER])


def biases_stage(fmt):
    """Every chain layer after the shrinks: weight c in K, input 1 (c ⊗ 1 = c), bias
    reset_bias(c) <= 2 and finite."""
    return stage("gradient_atom.biases", {"c": Float(finite=True)}, CHAIN_LAYER,
                 lambda s: {"c": s.c, "B": C.reset_bias(s, s.c)}, CHAIN_WEIGHT,
                 premise=[CHAIN_WEIGHT])  # what the transfer's stages state of each weight


def shrink_biases_claim(fmt):
    """Every shrink layer: weight 1, input F = 2^k of the gate's range, bias reset_bias(F)."""
    def goal(s):
        return CHAIN_LAYER.holds(s, c=s.const(1), B=C.reset_bias(s, s.k.pow2()))
    return forall("gradient_atom.shrink_biases", {"k": Int(lambda f: f.e_min - f.M, lambda f: f.e_max - 2 - f.M)},
                  goal=goal)


def output_claim(fmt):
    def goal(s):
        net = _layer_net(s.fmt, with_n=True, output=True)
        w = s.w
        P = {"c": s.c, "B": C.reset_bias(s, s.c), "w_out": w}
        out, grad, (pre, post, up) = s.run(net, [1, 0, 0], [s.y], params=P, trace=True)
        res = [out[0].same(0), CHAIN_BACK.holds(s, u=s.y * w, pre=pre[0][0], gR=grad[0]), grad[1].is_finite(),
               grad[2].is_finite()] + finite_inside(post, up)
        for ins in _killers(s):
            out, grad, (_, post, up) = s.run(net, list(ins), [s.y], params=P, trace=True)
            res += [out[0].is_zero()] + [g.is_zero() for g in grad] + finite_inside(post, up)
        return res
    # w: every w_out the transfer gives (its predicate W_OUT, the same term in both trees)
    return forall("gradient_atom.output", {"c": Float(finite=True), **W_OUT.variables, "y": Float(finite=True)},
                  goal=goal, given=lambda s: [CHAIN_WEIGHT.holds(s), W_OUT.holds(s)])


# ------------------------------------------------------------------ the backward chain's product
#: D^AD at x = z along R: G, against the transfer's partial product ``out`` (named as in
#: the transfer's guarantee REACHES, so that the final join shares the variable)
GRAD_IS_P = Pred("gradient_atom.grad_is_product", {"G": Float(), "out": Float()},
                 lambda s: [s.G.same(s.out), s.out.is_finite(), ~s.out.is_zero()],
                 doc="G = out (the gradient is the transfer's product), out finite and nonzero")
CHAIN_GRAD_RUN = Pred("gradient_atom.chain_grad", {**GRAD_IS_P.variables, "i": _i, "n": _i},
                      lambda s: [s.i <= s.n, GRAD_IS_P.holds(s)],
                      doc="after i of the n layers from the output down: G = out, the product of the transfer's "
                          "first i + 1 weights")
PASS_RUN = Pred("gradient_atom.pass_run", {**GRAD_IS_P.variables, "i": _i, "n": _i},
                lambda s: [s.i <= s.n, GRAD_IS_P.holds(s)], doc="after i of the n pass-through layers: G = out")
#: the atom's D^AD at x = z (upstream h) is the transfer's target g
AT_Z_GRAD = Pred("gradient_atom.grad_at_z", {"G": Float(), "g": Float(finite=True, nonzero=True)},
                 lambda s: s.G.same(s.g), doc="D^AD = g")


def one_fact(fmt):
    """u ⊗ ReLU'(pre) = u for every finite u and pre > 0."""
    return fact(forall("gradient_atom.one", {"u": Float(finite=True), "pre": Float()},
                       given=lambda s: s.pre > 0, goal=lambda s: (s.u * s.sigma_prime(C.hidden(), s.pre)).same(s.u),
                       doc="u * ReLU'(pre) = u for finite u and pre > 0"))


def cong_fact(fmt):
    """Congruence of ⊗ in its left operand, decided with ⊗ uninterpreted: it holds for every
    binary function, so for the format's rounded product (a multiplier-equivalence query
    with ⊗ interpreted, which z3 and bitwuzla do not decide in float32 within minutes)."""
    any_ = Float()
    return fact(forall("gradient_atom.cong", {"a": any_, "b": any_, "c": any_}, given=lambda s: s.a.same(s.b),
                       goal=lambda s: (s.a * s.c).same(s.b * s.c), uninterpreted=("mul",),
                       doc="a = b gives a * c = b * c, for every binary operation *"))


def chain_grad(fmt):
    """At x = z, by induction over the layers from the output down (the output layer with
    the last chain layer, then every chain layer; any number up to CHAIN_MAX): the gradient
    G along R equals the transfer's partial product ``out`` (h ⊗ w_out ⊗ c_m ⊗ …).  Each
    layer's step is CHAIN_BACK, what ``output`` and ``chain_at_z`` prove of it; with ``one``
    and ``cong`` that is (G ⊗ ReLU'(pre)) ⊗ c = out ⊗ c.  The step assumes out ⊗ c != 0:
    the transfer's stages state every partial product finite and nonzero."""
    def cong_at(s):
        return s.instance("gradient_atom.cong", a=s.G * s.sigma_prime(C.hidden(), s.pre), b=s.out, c=s.c)
    return induction(
        "gradient_atom.chain_grad", CHAIN_GRAD_RUN, "i", 0, CHAIN_MAX,
        stage("gradient_atom.chain_grad.base", {"G": Float(finite=True, nonzero=True), "n": _i}, CHAIN_GRAD_RUN,
              lambda s: {"i": 0, "out": s.G}),
        lambda s: {"G": s.gR, "out": s.out * s.c}, GRAD_IS_P,
        step_vars={"c": Float(finite=True), "pre": Float(), "gR": Float()},
        step_given=lambda s: [CHAIN_BACK.holds(s, u=s.G), (s.out * s.c).is_finite(), ~(s.out * s.c).is_zero(),
                              s.instance("gradient_atom.one", u=s.G, pre=s.pre), cong_at(s)],
        step_assumes=("gradient_atom.one", "gradient_atom.cong"),
        done=lambda s: s.i.eq(s.n), doc="the backward chain's product against the transfer's",
        step_premise=[CHAIN_BACK])


def pass_grad(fmt):
    """The layers below the chain pass the gradient through (PASS: each shrink layer by
    ``shrink``, layers 6–7 into T at x = z by ``gate_top``, layers 1–5 from T to x where
    T > 0 by ``gate15``, the whole gate): G = out is kept, whatever their number."""
    return induction(
        "gradient_atom.pass_grad", PASS_RUN, "i", 0, CHAIN_MAX,
        stage("gradient_atom.pass_grad.base", {"n": _i}, PASS_RUN, lambda s: {"i": 0}, GRAD_IS_P),
        lambda s: {"G": s.gR}, GRAD_IS_P, step_vars={"gR": Float()},
        step_given=lambda s: PASS.holds(s, u=s.G, g=s.gR), done=lambda s: s.i.eq(s.n),
        doc="the pass-through layers keep the gradient", step_premise=[PASS])


def backward_tree(fmt):
    """D^AD at x = z is g: the chain's product (an induction), the pass-through layers (an
    induction) and a join with the transfer's guarantee that its product is g."""
    return sequence("gradient_atom.backward", [
        chain_grad(fmt), pass_grad(fmt),
        join("gradient_atom.backward.g", [GRAD_IS_P, REACHES], AT_Z_GRAD)])


def _direct(variant):
    def goal(s):
        net, P = C.gradient_atom(s, s.z, s.h, s.g, variant)
        at = s.x.eq(s.z)
        out, grad = s.run(net, [s.x], [s.where(at, s.h, s.y)], params=P)
        return [out[0].is_zero(), at.implies(grad[0].same(s.g)), (~at).implies(grad[0].is_zero())]
    fin = Float(finite=True)
    return forall(f"gradient_atom.{variant}",
                  {"z": X(nonzero=variant == C.RELEASED), "x": X(), "h": Float(finite=True, nonzero=True),
                   "g": Float(finite=True, nonzero=True), "y": fin}, goal=goal)


def _statement(fmt, zs):
    return (f"for all {zs}, x in {xdesc(fmt)}, every finite h != 0 (|h| <= Omega), every finite g != 0 and every "
            "finite y: out = ±0; D^AD = g (bit for bit) at x = z with upstream h, and ±0 at x != z with upstream y")


def tree(fmt):
    """The repaired atom's tree (see the module docstring)."""
    def flat(c, **uses):
        return Node("stage", c.name, c, uses=uses)
    gate = sequence("gradient_atom.gate", [step_node("ge", fmt, True), step_node("le", fmt, True), gate_t_stage(fmt),
                                           gate_beside(fmt), gate_top_stage(fmt)])
    return Node("lemma", "gradient_atom", None, [gate] + chain_parts(fmt))


def chain_parts(fmt, killed_base=None):
    """The tree's nodes after the gate (from (R, G1, G2) on: the shrinks, the chain at x = z
    and at x != z, the output, the transfer, the backward chain), which the d-dimensional
    atom shares (proofs/gradient_atom_nd.py; ``killed_base``: its base of chain_killed)."""
    def flat(c, **uses):
        return Node("stage", c.name, c, uses=uses)
    out = flat(output_claim(fmt), hypothesis=W_OUT, premise=[W_OUT, CHAIN_WEIGHT], side=[CHAIN_BACK])
    return [flat(shrink_claim(fmt), side=[PASS]), flat(spacing_claim(fmt)),
            sequence("gradient_atom.at_z", [shrinks_stage(fmt), chain_at_z(fmt)]),
            flat(shrink_biases_claim(fmt), guarantee=CHAIN_LAYER), biases_stage(fmt), chain_killed(fmt, killed_base),
            out, transfer_tree(fmt), one_fact(fmt), cong_fact(fmt), backward_tree(fmt)]


def repaired(fmt):
    stages = tree(fmt)
    how = (f"; depth {C.gradient_atom_depth(fmt)}, proved as a tree: the gate (step indicators, T, a join, the "
           f"gate's top), shrinks, inductions over the chain layers at x = z and at x != z, output, transfer, and "
           f"the backward chain's product against the transfer's (inductions with u * ReLU'(pre) = u and "
           f"congruence of * decided with * uninterpreted)")
    return stages, _statement(fmt, "z in X") + how


def released(fmt):
    c = _direct(C.RELEASED)
    # BRIEF §5.1: a negative v is zeroed by the outer ReLU (the gradient at z is ±0, not g)
    hint = {"z": fmt.round(1), "x": fmt.round(1), "h": fmt.round(1), "g": fmt.round(-1), "y": fmt.round(1)}
    return [c], _statement(fmt, "z != 0 in X"), {c.name: [hint]}


def _one(s):
    net, P = C.gradient_atom(s, s.z, s.h, s.g, C.REPAIRED)
    return net, P, [s.x], [s.where(s.x.eq(s.z), s.h, s.y)]


def _expect(s, out, grad):
    at = s.x.eq(s.z)
    return [out[0].is_zero(), at.implies(grad[0].same(s.g)), (~at).implies(grad[0].is_zero())]


WHOLE = whole("gradient_atom", {"z": X(), "x": X(), "h": Float(finite=True, nonzero=True),
                                "g": Float(finite=True, nonzero=True), "y": Float(finite=True)}, _one, _expect,
              lambda fmt: C.concrete(C.gradient_atom, fmt, 0, fmt.round(1), fmt.round(1)),
              lambda fmt: _statement(fmt, "z in X"))




# ------------------------------------------------------------------ the shallow variant
# The shallow chain after a gate whose state is (R, K, G1, G2): one shallow chain layer per
# weight of the compact transfer (fpsmt.constructions.relu.compact_weights; forward order:
# the sign ±1, |g|, b, a', up), the output.  The 1-D atom's gate (below: relu.shallow_gate_plan)
# ends in the sign's row; the d-dimensional atom's (proofs/gradient_atom_nd.py) gives
# (d, d, 0, 0) at x = z and has the sign on a layer of its own, the "normalize" layer.
# The nodes after the gate (``shallow_chain_parts``):
#
# * ``shallow.normalize`` (d-dimensional only: the layer of weight ±1 on (2^k, 2^k, 0, 0), every k of the gate's
#   range: d is such a 2^k, ``spacing``): (1, 1, 0, 0), R alive with CHAIN_BACK, K's
#   gradient R's negated, the killers' finite;
# * ``shallow.chain_at_z``: every chain layer, whatever its weight c in K'' = [−2, 0) ∪
#   (0, Ω], keeps (1, 1, 0, 0) — c ⊗ 1 ⊕ (−c) ⊗ 1 is +0 — with R alive and CHAIN_BACK, the
#   others' gradients finite;
# * ``shallow.chain_killed``: at x ≠ z the normalize layer takes the gate's (0, d, C, 0) or
#   (0, d, 0, C) to (0, 1, C, 0) or (0, 1, 0, C) (the base) and every chain layer keeps
#   that, with zero gradients from a finite upstream on R and zeros on K and the killers,
#   and a finite pre-activation (the killers' weight is −1/2 where c <= 1, +0 above:
#   relu.killer_weight);
# * ``shallow.output``: the last chain layer (with N) and the output layer, as ``output``;
# * the compact transfer with weights in K'' (multiplication_transfer.COMPACT_CHAIN: h ⊗
#   w_out ⊗ up in the binade 1 − M, then (⊗ a') ⊗ b = ±1, by enumeration; or the subnormal
#   route; then ±1 ⊗ |g| ⊗ sign = g), the facts and the backward chain as the repaired
#   atom's (CHAIN_BACK, PASS: the same interfaces; the normalize layer is a chain layer of
#   the backward product, the gate's layers pass the gradient through).
from fpsmt.proofs.multiplication_transfer import COMPACT_CHAIN, COMPACT_WEIGHT  # noqa: E402
from fpsmt.semantics.network import Network  # noqa: E402

S = "gradient_atom.shallow"
_STATE = ("R", "K", "G1", "G2")


AT_Z_S = Pred(f"{S}.at_z", {n: Float() for n in _STATE},
              lambda s: [s.R.same(1), s.K.same(1), s.G1.same(0), s.G2.same(0)], doc="(R, K, G1, G2) = (1, 1, 0, 0)")
AT_Z_RUN_S = Pred(f"{S}.chain_at_z", {**AT_Z_S.variables, "i": _i, "n": _i},
                  lambda s: [s.i <= s.n, AT_Z_S.holds(s)], doc="after i of the n chain layers: (1, 1, 0, 0)")
KILLED_S = Pred(f"{S}.killed", {n: Float() for n in _STATE},
                lambda s: s.any(*[s.all(s.R.same(a), s.K.same(1), s.G1.same(b), s.G2.same(c)) for a, b, c in _killers(s)]),
                doc="(R, K, G1, G2) = (0, 1, C, 0) or (0, 1, 0, C)")
KILLED_RUN_S = Pred(f"{S}.chain_killed", {**KILLED_S.variables, "i": _i, "n": _i},
                    lambda s: [s.i <= s.n, KILLED_S.holds(s)], doc="after i of the n chain layers: still killed")


# The 1-D shallow atom's gate (relu.shallow_gate_plan): the first four layers of the step
# blocks (values 1[x < z] and 1[x > z]) and T beside them; layer 5: T carried, K = relu(d),
# the killers C ⊗ 1[x < z], C ⊗ 1[x > z]; layer 6: R = relu(c0 ⊗ T ⊕ (−c0) ⊗ K ⊖ G1 ⊖ G2 ⊕ 1)
# with the chain's sign c0 = ±1, K = relu(1), the killers carried.  Its nodes:
#
# * ``shallow.prefix_ge`` / ``shallow.prefix_le``: each block's first four layers beside the
#   others (every absent term any ±0), its value 1[x < z] (1[x > z]) and its D^AD a zero
#   for a zero upstream — the only upstream it gets: at x = z the killers' pre-activations
#   are exactly 0 (so ReLU' = 0 stops a finite upstream), at x != z the chain sends zeros;
# * ``shallow.gate_T``: T through layers 1–4 (as ``gate_T``);
# * ``shallow.gate14``: the three as one dense network (the absent-term chain), GATE4;
# * ``shallow.gate_top``: layers 5–6 on GATE4, for either sign: GATE_M — (1, 1, 0, 0) at
#   x = z, (0, 1, C, 0) or (0, 1, 0, C) elsewhere — with the gradient into the indicators a
#   zero, into T at x = z CHAIN_BACK through R (weight c0) then PASS through T's carry, a
#   zero elsewhere.
_PREFIX = C.SHALLOW_STEP_LAYERS


def prefix_network(fmt, kind):
    """The first four layers of the repaired step block ``kind`` (hidden activations)."""
    return Network(fmt, C.step_network(fmt, kind).layers[:_PREFIX])


def _prefix_pred(kind):
    below = (lambda s: s.x < s.z) if kind == "ge" else (lambda s: s.x > s.z)
    return Pred(f"{S}.prefix_{kind}", {"z": X_DOM, "x": X_DOM, kind: Float()},
                lambda s: [below(s).implies(s[kind].same(1)), (~below(s)).implies(s[kind].same(0))],
                doc=f"{kind} = 1 where x {'<' if kind == 'ge' else '>'} z, +0 elsewhere")


PREFIX_GE, PREFIX_LE = _prefix_pred("ge"), _prefix_pred("le")
#: T at layer 4 (as T5 states it at layer 5)
T4 = Pred(f"{S}.T4", T5.variables, T5.fn, doc="T = +0 below z, d = z - z⁻ at z, in [d, 2^(e_max-1)] above (layer 4)")
GATE4 = Pred(f"{S}.gate4", {"z": X_DOM, "x": X_DOM, "ge": Float(), "le": Float(), "T": Float()},
             lambda s: [PREFIX_GE.holds(s), PREFIX_LE.holds(s), T4.holds(s)],
             doc="(ge, le) = (1[x < z], 1[x > z]) and T as T4 states it")


def prefix_node(kind, fmt):
    """The step block's first four layers beside the others (every absent term of layers 2–4
    any ±0): the value 1[x < z] (``ge``) or 1[x > z] (``le``), and for a zero upstream D^AD
    a zero, each first-layer row's backward term a zero too."""
    from fpsmt.proof.claims import zero_variables

    def run(s):
        net = prefix_network(s.fmt, kind)
        P = C.step_params(s, kind, s.z if kind == "ge" else -s.z)
        return s.run(net, [s.x], [s.y], params=P, trace=True, zeros=s.zeros(net))

    def side(s):
        _, grad, (pre, _, up) = run(s)
        return [grad[0].is_zero()] + [(g * s.sigma_prime(C.hidden(), z)).is_zero() for g, z in zip(up[0], pre[0])]
    return stage(f"{S}.prefix_{kind}", {"z": X_DOM, "x": X_DOM, "y": zero(), **zero_variables(prefix_network(fmt, kind))},
                 PREFIX_GE if kind == "ge" else PREFIX_LE, lambda s: {kind: run(s)[0][0]}, side=side)


def _prefix_beside(kind, row, up):
    return Beside(f"{S}.prefix_{kind}", f"{S}.prefix_{kind}", lambda f: prefix_network(f, kind), row,
                  lambda s: C.step_params(s, kind, s.z if kind == "ge" else -s.z), "y", up, up_domain=zero())


def shallow_gate14(fmt):
    """Layers 1–4 of the shallow gate as one dense network (the prefixes and T in rows 0, 1,
    2; upstreams y, v zeros into the prefixes, u into T): the absent-term chain gives GATE4
    and its D^AD as T's (``t_gradient``)."""
    def whole(s):
        net = Network(s.fmt, C.shallow_gate_plan(s.fmt).network(last_act=None).layers[:_PREFIX])
        P = {**C.step_params(s, "ge", s.z), **C.step_params(s, "le", -s.z)}
        return net, P, [s.x]

    t_block = Beside(f"{S}.gate_T", f"{S}.T", lambda f: _t_net(f, _PREFIX), 2,
                     lambda s: C.step_params(s, "ge", s.z), "u", "u")
    return absent_chain(f"{S}.gate14", fmt, {"z": X_DOM, "x": X_DOM, "y": zero(), "v": zero(), "u": FINITE},
                        ("y", "v", "u"), whole, [_prefix_beside("ge", 0, "y"), _prefix_beside("le", 1, "v"), t_block],
                        GATE4, lambda s, out, grad: {"ge": out[0], "le": out[1], "T": out[2]},
                        side=lambda s, out, grad: t_gradient(s, out[2], grad[0]), states=[PASS])


#: the shallow gate's outputs (R, K, G1, G2): the chain's state at x = z and at x != z
GATE_M = Pred(f"{S}.gate_m", {"z": X_DOM, "x": X_DOM, **{n: Float() for n in _STATE}},
              lambda s: [s.x.eq(s.z).implies(AT_Z_S.holds(s)), (~s.x.eq(s.z)).implies(KILLED_S.holds(s))],
              doc="(R, K, G1, G2) = (1, 1, 0, 0) at x = z, (0, 1, C, 0) below, (0, 1, 0, C) above")
GATE_M_AT = Pred(f"{S}.gate_m_at", {**GATE_M.variables}, lambda s: [GATE_M.holds(s), s.x.eq(s.z)],
                 doc="the shallow gate's (R, K, G1, G2) at x = z")
GATE_M_OFF = Pred(f"{S}.gate_m_off", {**GATE_M.variables}, lambda s: [GATE_M.holds(s), ~s.x.eq(s.z)],
                  doc="the shallow gate's (R, K, G1, G2) at x != z")


def shallow_gate_top_stage(fmt):
    """Layers 5–6 of the shallow gate (a slice of the atom) on GATE4's (ge, le, T), for the
    sign c0 = ±1 (j), with the chain's upstreams (uR, uK, u1, u2): finite at x = z, zeros
    elsewhere.  GATE_M of its outputs; the gradients into ge and le zeros; at x = z the
    gradient into layer 5's T is CHAIN_BACK (u = uR, c = c0) and the one into layer 4's T
    PASS of it, at x != z a zero; every value and gradient inside finite."""
    def run(s):
        net = Network(s.fmt, C.shallow_gate_plan(s.fmt).network(last_act=None).layers[_PREFIX:])
        at = s.x.eq(s.z)
        c0 = _sign(s)
        ups = [s.where(at, s[u], s[u] * 0) for u in ("uR", "uK", "u1", "u2")]
        return s.run(net, [s.ge, s.le, s.T], ups, params={"d": _d(s), "c0": c0, "n0": -c0}, trace=True)

    def side(s):
        _, grad, (pre, post, up) = run(s)
        at = s.x.eq(s.z)
        return [grad[0].is_zero(), grad[1].is_zero(),
                at.implies(CHAIN_BACK.holds(s, u=s.uR, pre=pre[1][0], c=_sign(s), gR=up[0][0])),
                at.implies(PASS.holds(s, u=up[0][0], g=grad[2])), (~at).implies(grad[2].is_zero())] + \
            finite_inside(post, up)
    fin = Float(finite=True)
    return stage(f"{S}.gate_top", {"j": _J, "uR": fin, "uK": fin, "u1": fin, "u2": fin}, GATE_M,
                 lambda s: dict(zip(_STATE, run(s)[0])), GATE4, side=side, states=[CHAIN_BACK, PASS])


def shallow_gate(fmt):
    """The 1-D shallow atom's gate: the prefixes, T, their dense network and layers 5–6."""
    return sequence(f"{S}.gate", [prefix_node("ge", fmt), prefix_node("le", fmt),
                                  gate_t_stage(fmt, _PREFIX, f"{S}.gate_T", T4), shallow_gate14(fmt),
                                  shallow_gate_top_stage(fmt)])


def _shallow_layer_net(fmt, with_n=False, output=False):
    return _layer_net(fmt, with_n, output, _STATE, lambda n: C.shallow_chain_layer("c", "n", "k", with_n=n))


def _shallow_params(s, c):
    """A shallow chain layer's parameters for weight c: −c on K, the killers' weight."""
    return {"c": c, "n": -c, "k": C.killer_weight(s, c)}


def _shallow_layer(s, ins, ups, c):
    return s.run(_shallow_layer_net(s.fmt), ins, ups, params=_shallow_params(s, c), trace=True)


#: the normalize layer's weight, the chain's sign: j = 0 gives 1, j = 1 gives −1
_J = Int(0, 1)


def _sign(s):
    return s.where(s.j.eq(0), 1, -1)


_K_RANGE = Int(lambda f: f.e_min - f.M, lambda f: f.e_max - 2 - f.M)


def shallow_normalize_stage(fmt):
    """The first chain layer, of weight c = ±1 (the chain's sign), on (2^k, 2^k, 0, 0), every
    k of the gate's range (d = z − z⁻ is such a 2^k: ``spacing``): (1, 1, 0, 0), R alive
    with CHAIN_BACK (its gradient into R is (u ⊗ ReLU'(pre)) ⊗ c), K's gradient R's
    negated, the killers' finite."""
    def run(s):
        d = s.k.pow2()
        return _shallow_layer(s, [d, d, 0, 0], [s.uR, s.uK, s.u1, s.u2], _sign(s))

    def side(s):
        _, grad, (pre, _, _) = run(s)
        return [CHAIN_BACK.holds(s, u=s.uR, pre=pre[0][0], c=_sign(s), gR=grad[0]), _k_gradient(grad),
                grad[2].is_finite(), grad[3].is_finite()]
    fin = Float(finite=True)
    return stage(f"{S}.normalize", {"k": _K_RANGE, "j": _J, "uR": fin, "uK": fin, "u1": fin, "u2": fin}, AT_Z_S,
                 lambda s: dict(zip(_STATE, run(s)[0])), side=side, states=[CHAIN_BACK])


def _k_gradient(grad):
    """K's gradient is R's negated (a zero where R's is): (u ⊗ ReLU'(pre)) ⊗ (−c) against
    (u ⊗ ReLU'(pre)) ⊗ c.  So it is finite wherever R's is — and R's is the transfer's
    partial product, finite (the backward chain) — which is what the layer below takes of
    it: K reads nothing, and its gradient meets only the +0 entries of its absent row."""
    return grad[0].is_zero().implies(grad[1].is_zero()) & (~grad[0].is_zero()).implies(grad[1].same(-grad[0]))


def shallow_chain_at_z(fmt, base=None):
    """At x = z, by induction over the chain layers after the normalize one (any number up to
    CHAIN_MAX, each with its own weight c in K' and finite upstreams): (1, 1, 0, 0) is kept,
    R is alive with CHAIN_BACK, K's gradient is R's negated (:func:`_k_gradient`), the
    killers' finite."""
    def layer(s):
        return _shallow_layer(s, [s.R, s.K, s.G1, s.G2], [s.uR, s.uK, s.u1, s.u2], s.c)

    def side(s):
        _, grad, (pre, _, _) = layer(s)
        return [CHAIN_BACK.holds(s, u=s.uR, pre=pre[0][0], gR=grad[0]), _k_gradient(grad),
                grad[2].is_finite(), grad[3].is_finite()]
    fin = Float(finite=True)
    return induction(
        f"{S}.chain_at_z", AT_Z_RUN_S, "i", 0, CHAIN_MAX,
        base or stage(f"{S}.chain_at_z.base", {"n": _i}, AT_Z_RUN_S, lambda s: {"i": 0}, AT_Z_S),
        lambda s: dict(zip(_STATE, layer(s)[0])), AT_Z_S,
        step_vars={"c": fin, "uR": fin, "uK": fin, "u1": fin, "u2": fin},
        step_given=lambda s: COMPACT_WEIGHT.holds(s), step_side=side, done=lambda s: s.i.eq(s.n),
        doc="the shallow chain layers at x = z", step_premise=[COMPACT_WEIGHT], step_states=[CHAIN_BACK])


def _dead(run):
    """A killed layer's side: every gradient a zero, and R's pre-activation finite (c may be
    up to Ω: where c > 1 the killers' weight is +0, so −c ⊕ 1 is not pushed past −Ω)."""
    _, grad, (pre, _, _) = run
    return [g.is_zero() for g in grad] + [pre[0][0].is_finite()]


def shallow_chain_killed(fmt, base_hyp=None, base=None):
    """At x != z: the normalize layer (weight ±1) takes the gate's (0, d, C, 0) or
    (0, d, 0, C) to (0, 1, C, 0) or (0, 1, 0, C) (the base), every chain layer with a weight
    in K'' keeps it; a finite upstream on R with zeros on K and the killers gives zero
    gradients, and R's pre-activation is finite.
    ``base_hyp``: the gate's state at x != z as another gate states it (the d-dimensional
    atom's, proofs/gradient_atom_nd.py; default GATE_OFF_S)."""
    fin = Float(finite=True)
    ups = {"uR": fin, "oK": zero(), "o1": zero(), "o2": zero()}

    def ups_of(s):
        return [s.uR, s.oK, s.o1, s.o2]

    def base_run(s):
        return _shallow_layer(s, [s.R, s.K, s.G1, s.G2], ups_of(s), _sign(s))

    def layer(s):
        return _shallow_layer(s, [s.R, s.K, s.G1, s.G2], ups_of(s), s.c)
    base = base or stage(f"{S}.chain_killed.base", {"n": _i, "j": _J, **ups}, KILLED_RUN_S,
                         lambda s: {"i": 0, **dict(zip(_STATE, base_run(s)[0]))}, base_hyp,
                         side=lambda s: _dead(base_run(s)))
    return induction(
        f"{S}.chain_killed", KILLED_RUN_S, "i", 0, CHAIN_MAX, base,
        lambda s: dict(zip(_STATE, layer(s)[0])), KILLED_S, step_vars={"c": fin, **ups},
        step_given=lambda s: COMPACT_WEIGHT.holds(s), step_side=lambda s: _dead(layer(s)),
        done=lambda s: s.i.eq(s.n), doc="the shallow chain layers at x != z", step_premise=[COMPACT_WEIGHT])


def shallow_output_claim(fmt):
    def goal(s):
        net = _shallow_layer_net(s.fmt, with_n=True, output=True)
        P = {**_shallow_params(s, s.c), "w_out": s.w}
        out, grad, (pre, post, up) = s.run(net, [1, 1, 0, 0], [s.y], params=P, trace=True)
        res = [out[0].same(0), CHAIN_BACK.holds(s, u=s.y * s.w, pre=pre[0][0], gR=grad[0]), _k_gradient(grad),
               grad[2].is_finite(), grad[3].is_finite()] + finite_inside(post, up)
        for r, g1, g2 in _killers(s):
            out, grad, (_, post, up) = s.run(net, [r, s.const(1), g1, g2], [s.y], params=P, trace=True)
            res += [out[0].is_zero()] + [g.is_zero() for g in grad] + finite_inside(post, up)
        return res
    return forall(f"{S}.output", {"c": Float(finite=True), **W_OUT.variables, "y": Float(finite=True)},
                  goal=goal, given=lambda s: [COMPACT_WEIGHT.holds(s), W_OUT.holds(s)])


def shallow_chain_parts(fmt, base_hyp=None, merged=False):
    """The shallow tree's nodes after the gate (from (R, K, G1, G2) on: spacing, the
    normalize layer and the chain at x = z, the chain at x != z, the output, the transfer,
    the facts, the backward chain), which the d-dimensional shallow atom shares
    (``base_hyp``: :func:`shallow_chain_killed`'s).  ``merged``: the 1-D atom's, whose gate
    (:func:`shallow_gate`) ends in its first chain layer: the inductions start from GATE_M
    (no spacing, no normalize stage)."""
    def flat(c, **uses):
        return Node("stage", c.name, c, uses=uses)
    out = flat(shallow_output_claim(fmt), hypothesis=W_OUT, premise=[W_OUT, COMPACT_WEIGHT], side=[CHAIN_BACK])
    if merged:
        first = [shallow_chain_at_z(fmt, stage(f"{S}.chain_at_z.base_gate", {"n": _i}, AT_Z_RUN_S,
                                               lambda s: {"i": 0}, GATE_M_AT)),
                 shallow_chain_killed(fmt, base=stage(f"{S}.chain_killed.base_gate", {"n": _i}, KILLED_RUN_S,
                                                      lambda s: {"i": 0}, GATE_M_OFF))]
    else:
        first = [flat(spacing_claim(fmt)), sequence(f"{S}.at_z", [shallow_normalize_stage(fmt), shallow_chain_at_z(fmt)]),
                 shallow_chain_killed(fmt, base_hyp)]
    return first + [out, transfer_tree(fmt, chain=COMPACT_CHAIN), one_fact(fmt), cong_fact(fmt), backward_tree(fmt)]


def shallow_tree(fmt):
    """The 1-D shallow atom's tree (see the comments above :data:`S` and :func:`prefix_network`)."""
    return Node("lemma", "gradient_atom", None, [shallow_gate(fmt)] + shallow_chain_parts(fmt, merged=True))


def shallow(fmt):
    how = (f"; depth {C.gradient_atom_depth(fmt, C.SHALLOW)} (the repaired atom: {C.gradient_atom_depth(fmt)}): "
           "the repaired atom's gate with a constant K = d beside R, then chain layers c ⊗ R ⊕ (-c) ⊗ K ⊕ ... ⊕ 1 "
           "that stay exactly 1 at x = z for every finite weight c >= -2, c != 0; proved as a tree: the gate, the "
           "normalize layer (the chain's sign), inductions over the chain layers at x = z and at x != z, output, the "
           "compact transfer (h to the binade 1 - M, two significand weights, |g|, the sign), and the backward "
           "chain's product against the transfer's")
    return shallow_tree(fmt), _statement(fmt, "z in X") + how


LEMMA = Lemma("gradient_atom", "Lemma 3.5 (BRIEF §5, §5.1)",
              {"released": released, "repaired": repaired, "shallow": shallow},
              order=80, construction=True, whole=WHOLE)
