"""Gradient atom of the ``saturating`` family (fpsmt.constructions.saturating.gradient_atom),
at the depth the theorem's network uses: value ±0 on X; at x = z, D^AD(h) = g; elsewhere
D^AD(y) = ±0 (0 < |h| <= H, |y| <= H, g finite nonzero).  The network
(``saturating.gradient_network``): the gate — layers 0 … s (s the step depth), the step
indicators and then p beside the path r0 = σ(x ⊖ z), r = σ(1 ⊗ r) — then one chain layer
(p carried by σ(2^T ⊗ p), r = σ(c ⊗ r)) per transfer weight before the top, the gated top
σ(c ⊗ r ⊕ G ⊗ p ⊖ G) with N = σ(−G ⊗ p ⊕ G), and the output w_out ⊗ r ⊕ w_out ⊗ N.

Proved as a tree (fpsmt.proof.tree).  Every stage's network is a run of whole layers of
the atom's own network (every neuron of those layers, so the dense semantics' absent
entries are in the claims; tests/test_saturating.py compares the layers term for term):

* the gate (layers 0 … s, no parameter but z), two stages: ``gate_at_z`` (over z and every
  finite upstream (u_p, u_r)): p = 1, r a zero, D^AD(x) = u_r where u_r != 0 (PASS), the
  step rows' first-layer terms zeros and the path's PASS of u_r; ``gate_off`` (x != z, with
  the zero upstreams the killed chain gives): p = −1, r in [−1, 1], D^AD(x) and every
  first-layer term a zero.  Every hidden value and gradient is finite.
* ``chain_at_z`` (an induction over the chain layers, each with its own c in K and
  upstreams): (1, a zero) stays; the path neuron's pre-activation is a zero and its gradient
  is (u_r ⊗ σ'(pre)) ⊗ c — the backward step as AD takes it (CHAIN_BACK) — and p's is finite.
* ``chain_killed`` (the same layers at x != z, any weight in K): (−1, r in [−1, 1]) stays,
  and zero upstreams give zero gradients.
* ``top`` (the last two layers), for every c in K, every w_out the transfer gives (W_OUT) and
  every |y| <= H: from (1, a zero), out = ±0 and CHAIN_BACK for the upstream y ⊗ w_out, p's
  gradient finite; from (−1, r in [−1, 1]), out = ±0 and zero gradients; both output terms
  sum to a zero; every hidden value and gradient finite.  Where y ⊗ w_out ⊗ G need not be
  finite (float16: :func:`bounded_top`) the branch at x = z is stated for |y ⊗ w_out| < 2,
  and ``top_upstream`` shows that the network's upstream there, h ⊗ w_out, is (for every
  0 < |h| <= H, w_out the transfer's for h).
* the multiplication transfer's tree (proofs/multiplication_transfer.py: every weight in K,
  w_out in W_OUT, every partial product finite and nonzero, h ⊗ w_out ⊗ c_top ⊗ … = g),
  the facts ``one`` (u ⊗ σ'(pre) = u for finite u and pre a zero: σ'(±0) = 1) and ``cong``
  (ReLU's gradient atom's: a = b gives a ⊗ c = b ⊗ c, decided with ⊗ uninterpreted), and
  ``backward``: the induction ``chain_grad`` from the output down (the gradient along r is
  the transfer's partial product), ReLU's ``pass_grad`` over the gate (PASS), and the join
  with the transfer's guarantee: D^AD = g at x = z.

What is the code's, tested, not a claim: that the atom's layers are these stages' layers
in this order with the transfer's weights (its parameters c_{s+1} … c_top are
``relu.transfer_weights``' list, input side first, after weights 1 when the atom is deeper
than its least depth: ``padding``, an induction over any number of them, shows out ⊗ 1 keeps
out = g, so that ``chain_grad``'s product over every chain layer meets the transfer's
guarantee).  For the theorem's join (proofs/sat_theorem_3_1.py) the stages
state: the output row's two terms sum to a zero; D^AD's first-layer terms are zeros but
the path's, which is D^AD (so g at x = z with upstream h), and all zeros elsewhere; every
hidden value and gradient is finite.

The ``shallow`` variant (``saturating.gradient_atom(..., variant="shallow")``): the same
gate, chain layers with any finite nonzero weight (the compact transfer with ±|g| one
weight, ``multiplication_transfer.SIGNED_CHAIN``), and a top of the
constant weight 1 with the gate G = 2^T (``saturating.gate_exponent``): its tree is this one
with ``shallow.chain_at_z``, ``shallow.chain_killed`` (the same inductions over SIGNED_WEIGHT),
``shallow.top`` (PASS of y ⊗ w_out instead of CHAIN_BACK) and the shallow transfer."""

from fractions import Fraction

from fpsmt.constructions import relu as R
from fpsmt.constructions import saturating as S
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, fact, induction, join, sequence, stage
from fpsmt.proofs.common import finite_inside, zero
from fpsmt.proofs.gradient_atom import AT_Z_GRAD, GRAD_IS_P, PASS, cong_fact, pass_grad
from fpsmt.proofs.multiplication_transfer import (CHAIN_WEIGHT, REACHES, SIGNED_CHAIN, SIGNED_WEIGHT, W_OUT,
                                                  transfer_tree)
from fpsmt.proofs.sat_common import (H, X, chain_back_at_zero, chain_grad_node, chain_killed_node, formats,
                                     gate_off_stage, gradient_whole, layer_slice, padded_gradient, reaches_padding_node,
                                     within, xdesc)

NAME = "sat_gradient_atom"
SHALLOW_VARIANT = "shallow"
#: the prefix of the shallow variant's own nodes
SHALLOW_NAME = f"{NAME}.shallow"
X_DOM = X()
FIN = Float(finite=True)
UNIT = Float(range=(lambda f: f.hex(f.round(-1)), lambda f: f.hex(f.round(1))))
#: the most chain layers the inductions cover (every format's chain is far shorter)
CHAIN_MAX = 1 << 12
_i = Int(0, CHAIN_MAX)


def _slice(fmt, a, b, variant=None):
    return layer_slice(S, fmt, a, b, variant)


def _in_unit(s, r):
    return (r >= -1) & (r <= 1)


AT_Z = Pred(f"{NAME}.at_z", {"p": Float(), "r": Float()}, lambda s: [s.p.same(1), s.r.is_zero()],
            doc="(p, r) = (1, a zero)")
AT_Z_RUN = Pred(f"{NAME}.chain_at_z", {**AT_Z.variables, "i": _i, "n": _i}, lambda s: [s.i <= s.n, AT_Z.holds(s)],
                doc="after i of the n chain layers: (1, a zero)")
KILLED = Pred(f"{NAME}.killed", {"p": Float(), "r": Float()}, lambda s: [s.p.same(-1), _in_unit(s, s.r)],
              doc="(p, r) = (−1, r in [−1, 1])")
KILLED_RUN = Pred(f"{NAME}.chain_killed", {**KILLED.variables, "i": _i, "n": _i},
                  lambda s: [s.i <= s.n, KILLED.holds(s)], doc="after i of the n chain layers: still killed")
#: a chain layer's backward step, as AD takes it
CHAIN_BACK = chain_back_at_zero(NAME, S.hidden)


#: x != z
OFF = Pred(f"{NAME}.off", {"z": X_DOM, "x": X_DOM}, lambda s: ~s.x.eq(s.z), doc="x != z")


def _gate_run(s, x, ups):
    gate, _ = S.gradient_layers(s.fmt, S.depth(s.fmt))
    net = _slice(s.fmt, 0, gate + 1)
    P = {**S.step_biases(s, s.z), "zn": -s.z}
    return net, P, s.run(net, [x], ups, params=P, trace=True)


def gate_at_z(fmt):
    """Layers 0 … s of the atom at x = z, for every finite upstream (u_p, u_r): (p, r) =
    (1, a zero); D^AD(x) = u_r where u_r != 0 (PASS), the step rows' first-layer terms
    zeros and the path's PASS of u_r; every hidden value and gradient finite."""
    def side(s):
        net, P, (_, grad, trace) = _gate_run(s, s.z, [s.up, s.ur])
        terms = s.input_terms(net, P, trace)
        return ([PASS.holds(s, u=s.ur, g=grad[0]), PASS.holds(s, u=s.ur, g=terms[-1])]  # the path: layer 0's last
                + [t.is_zero() for t in terms[:-1]] + finite_inside(*trace[1:3]) + [g.is_finite() for g in grad])
    return stage(f"{NAME}.gate_at_z", {"z": X_DOM, "up": FIN, "ur": FIN}, AT_Z,
                 lambda s: dict(zip(("p", "r"), _gate_run(s, s.z, [s.up, s.ur])[2][0])), side=side, states=[PASS])


def gate_off(fmt):
    """Layers 0 … s of the atom at x != z, with the zero upstreams the killed chain gives:
    (p, r) = (−1, r in [−1, 1]); D^AD(x) and every first-layer term a zero; every hidden
    value and gradient finite."""
    return gate_off_stage(NAME, _gate_run, KILLED, OFF, ("p", "r"))


def _chain_net(fmt):
    """One chain layer as the atom has it (p carried, the path neuron with weight ``c``)."""
    from fpsmt.constructions.relu import Plan
    c = S.block_constants(fmt)
    P = Plan(fmt, inputs=("p", "r"), activation=S.hidden())
    P.add([("p", [("p", S._pow2(c.T))], S.NEG0), S.chain_neuron("c")])
    return P.network(last_act=None)


def chain_at_z(fmt, name=NAME, weight=CHAIN_WEIGHT):
    """The chain layers at x = z, by induction (each with its own weight c, ``weight``
    holds of it: CHAIN_WEIGHT, or the shallow chain's SIGNED_WEIGHT; ``name`` the node's
    prefix)."""
    def layer(s):
        return s.run(_chain_net(s.fmt), [s.p, s.r], [s.up, s.ur], params={"c": s.c}, trace=True)

    def side(s):
        _, grad, (pre, post, up) = layer(s)
        return [CHAIN_BACK.holds(s, u=s.ur, pre=pre[0][1], gR=grad[1]), grad[0].is_finite()] + finite_inside(post, up)
    return induction(
        f"{name}.chain_at_z", AT_Z_RUN, "i", 0, CHAIN_MAX,
        stage(f"{name}.chain_at_z.base", {"n": _i}, AT_Z_RUN, lambda s: {"i": 0}, AT_Z),
        lambda s: dict(zip(("p", "r"), layer(s)[0])), AT_Z,
        step_vars={"c": FIN, "up": FIN, "ur": FIN}, step_given=lambda s: weight.holds(s), step_side=side,
        done=lambda s: s.i.eq(s.n), doc="the chain layers at x = z", step_premise=[weight],
        step_states=[CHAIN_BACK])


def chain_killed(fmt, name=NAME, weight=CHAIN_WEIGHT):
    return chain_killed_node(name, KILLED, KILLED_RUN, lambda s, ups: s.run(
        _chain_net(s.fmt), [s.p, s.r], ups, params={"c": s.c}, trace=True), ("p", "r"), "c", CHAIN_MAX,
        weight_pred=weight)


#: the top's upstream at x = z, y ⊗ w_out with y = h: below 2 in magnitude (w_out takes h
#: to ±[2^e, 2^(e+1)), e <= 0: relu.normalize_weights), what the bounded top assumes
TOP_UP = Pred(f"{NAME}.top_upstream", {"y": Float(finite=True), "w": Float(finite=True)},
              lambda s: abs(s.y * s.w) < 2, doc="|y ⊗ w_out| < 2")


def bounded_top(fmt):
    """Whether the repaired top is stated with its upstream at x = z bounded (TOP_UP): where
    the gradient it sends into p there, y ⊗ w_out ⊗ G, is not finite for every |y| <= H and
    w_out <= 1 (float16: H = 2^8, G = 2^10).  Elsewhere the claim is over every |y| <= H."""
    return H(fmt) * Fraction(2) ** S.gate_exponent(fmt) > fmt.Omega


def top_upstream(fmt):
    """For every h with 0 < |h| <= H: |h ⊗ w_out| < 2, w_out the transfer's output weight for h
    (:func:`fpsmt.constructions.relu.normalize_weights`, the one the atom has): TOP_UP at
    y = h, the top's upstream at x = z."""
    return stage(f"{NAME}.top_upstream", {"y": within(H, nonzero=True)}, TOP_UP,
                 lambda s: {"w": R.normalize_weights(s, s.y)[0]},
                 doc="the top's upstream at x = z: |h ⊗ w_out| < 2")


def top_claim(fmt, shallow=False, bounded=None):
    """The top and output layers, from (1, a zero) and from (−1, r in [−1, 1]).  The
    repaired top's weight is the chain's last, c in K, and its backward step CHAIN_BACK; the
    shallow top's weight is the constant 1 (a chain weight up to 2^e_max would not let the
    gate saturate c ⊗ r ⊕ G ⊗ p ⊖ G at x != z), so it passes y ⊗ w_out on (PASS).  Where
    :func:`bounded_top` (float16), the repaired top's branch at x = z is stated for the
    upstreams it meets there, |y ⊗ w_out| < 2 (TOP_UP, :func:`top_upstream`); the branch at
    x != z for every |y| <= H (``bounded``: False states it for every |y| <= H there too, as
    before: REFUTED in float16)."""
    kw = {"variant": SHALLOW_VARIANT} if shallow else {}
    _, top = S.gradient_layers(fmt, S.depth(fmt, **kw), **kw)
    bounded = not shallow and (bounded_top(fmt) if bounded is None else bounded)

    def goal(s):
        net = _slice(s.fmt, top, top + 2, kw.get("variant"))
        P = {"w_out": s.w} if shallow else {f"c{top}": s.c, "w_out": s.w}
        out = []
        for ins, live in (([1, s.r0], True), ([-1, s.r], False)):
            o, grad, trace = s.run(net, ins, [s.y], params=P, trace=True)
            pre, post, up = trace
            t1, t2 = s.row_terms(net, 1, "forward", post[0], P)
            out += [o[0].is_zero(), (t1 + t2).is_zero()] + finite_inside(post, up)
            if live and shallow:
                out += [pre[0][0].is_zero(), PASS.holds(s, u=s.y * s.w, g=grad[1]), grad[0].is_finite()]
            elif live and bounded:
                out += [TOP_UP.holds(s).implies(s.all(
                    CHAIN_BACK.holds(s, u=s.y * s.w, pre=pre[0][0], gR=grad[1]), grad[0].is_finite()))]
            elif live:
                out += [CHAIN_BACK.holds(s, u=s.y * s.w, pre=pre[0][0], gR=grad[1]), grad[0].is_finite()]
            else:
                out += [g.is_zero() for g in grad]
        return out
    if shallow:
        return forall(f"{SHALLOW_NAME}.top", {**W_OUT.variables, "y": within(H), "r0": zero(), "r": UNIT},
                      goal=goal, given=lambda s: W_OUT.holds(s))
    return forall(f"{NAME}.top", {"c": FIN, **W_OUT.variables, "y": within(H), "r0": zero(), "r": UNIT},
                  goal=goal, given=lambda s: [CHAIN_WEIGHT.holds(s), W_OUT.holds(s)])


def padding(fmt):
    """Below the transfer, the chain layers of weight 1 an atom deeper than its least depth
    has (:func:`fpsmt.proofs.sat_common.reaches_padding_node`): out ⊗ 1 keeps out = g."""
    return reaches_padding_node(NAME, REACHES, lambda s: s.out * s.const(1), CHAIN_MAX)


def one_fact(fmt):
    """u ⊗ σ'(pre) = u for every finite u and pre a zero (σ'(±0) = 1)."""
    return fact(forall(f"{NAME}.one", {"u": FIN, "pre": zero()},
                       goal=lambda s: (s.u * s.sigma_prime(S.hidden(), s.pre)).same(s.u),
                       doc="u * sigma'(pre) = u for finite u and pre a zero"))


def chain_grad(fmt):
    """From the output down (the top with its output layer, then every chain layer): the
    gradient G along r equals the transfer's partial product; each step is CHAIN_BACK (what
    ``top`` and ``chain_at_z`` prove of each layer), with ``one`` and ``cong``."""
    return chain_grad_node(NAME, CHAIN_BACK, S.hidden, CHAIN_MAX)


def tree(fmt):
    bounded = bounded_top(fmt)
    top = Node("stage", f"{NAME}.top", top_claim(fmt),
               uses={"hypothesis": W_OUT, "premise": [W_OUT, CHAIN_WEIGHT] + ([TOP_UP] if bounded else []),
                     "side": [CHAIN_BACK]})
    backward = sequence(f"{NAME}.backward", [chain_grad(fmt), pass_grad(fmt),
                                             join(f"{NAME}.backward.g", [GRAD_IS_P, REACHES], AT_Z_GRAD)])
    return Node("lemma", NAME, None, [gate_at_z(fmt), gate_off(fmt), chain_at_z(fmt), chain_killed(fmt)]
                + ([top_upstream(fmt)] if bounded else []) + [top, transfer_tree(fmt), padding(fmt),
                                      one_fact(fmt), cong_fact(fmt), backward])


def repaired(fmt):
    return tree(fmt), (
        f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {S.show_bound(H(fmt))}, every finite g != 0 and "
        "every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0; the two "
        "output terms sum to a zero, D^AD's first-layer terms are zeros but the path's (D^AD itself) at z, zeros "
        f"elsewhere; every hidden value and gradient finite; depth {S.depth(fmt)}{padded_gradient()}, proved as a "
        "tree: the gate, "
        "inductions over the chain layers at x = z and at x != z, the top, the multiplication transfer, and the "
        "backward chain's product against the transfer's")


def shallow_tree(fmt):
    """The shallow atom's tree: the repaired one's gate, the chain layers' inductions with
    any finite nonzero weight (SIGNED_WEIGHT), the top of weight 1 (PASS), the compact
    transfer with ±|g| one weight (SIGNED_CHAIN), the facts, and
    the backward chain: ``chain_grad`` from the top's input down (the gradient entering it
    is y ⊗ w_out, the transfer's first partial product, by the top's PASS), ``pass_grad``,
    the join."""
    top = Node("stage", f"{SHALLOW_NAME}.top", top_claim(fmt, shallow=True),
               uses={"hypothesis": W_OUT, "premise": [W_OUT], "side": [PASS]})
    backward = sequence(f"{SHALLOW_NAME}.backward", [chain_grad(fmt), pass_grad(fmt),
                                                     join(f"{SHALLOW_NAME}.backward.g", [GRAD_IS_P, REACHES], AT_Z_GRAD)])
    return Node("lemma", NAME, None, [gate_at_z(fmt), gate_off(fmt), chain_at_z(fmt, SHALLOW_NAME, SIGNED_WEIGHT),
                                      chain_killed(fmt, SHALLOW_NAME, SIGNED_WEIGHT), top,
                                      transfer_tree(fmt, chain=SIGNED_CHAIN), padding(fmt), one_fact(fmt), cong_fact(fmt), backward])


def shallow(fmt):
    kw = {"variant": SHALLOW_VARIANT}
    return shallow_tree(fmt), (
        f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {S.show_bound(H(fmt))}, every finite g != 0 and "
        "every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0; the two "
        "output terms sum to a zero, D^AD's first-layer terms are zeros but the path's (D^AD itself) at z, zeros "
        f"elsewhere; every hidden value and gradient finite; depth {S.depth(fmt, **kw)}{padded_gradient()} (the "
        f"repaired atom's network: {S.depth(fmt)}): chain weights in [-2, 0) ∪ (0, 2^e_max] (the path is a zero at x = z and in "
        "[-1, 1] elsewhere, so no weight overflows it) under a top of weight 1; proved as a tree: the gate, "
        "inductions over the chain layers at x = z and at x != z, the top, the multiplication transfer with weights "
        "up to 2^e_max, and the backward chain's product against the transfer's")


#: the atom as one claim about its whole block (at the theorem's depth), for any semantics profile
WHOLE = gradient_whole("sat_gradient_atom", S, X, H, xdesc)

LEMMA = Lemma("sat_gradient_atom", "Lemma 3.5's atom for a saturating σ (BRIEF §9, reconstructed)",
              {"repaired": repaired, "shallow": shallow}, formats=formats, order=550, family="saturating",
              construction=True,
              whole=WHOLE)
