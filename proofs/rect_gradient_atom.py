"""Gradient atom of the ``rectifying`` family (fpsmt.constructions.rectifying.gradient_atom),
at the depth the theorem's network uses: value ±0 on X; at x = z, D^AD(h) = g; elsewhere
D^AD(y) = ±0 (0 < |h| <= H, |y| <= H, g finite nonzero).  The network
(``rectifying.gradient_network``): the gate — the step indicators with the path
r0 = σ(w_x ⊗ x ⊖ w_x ⊗ z) (+0 at z, σ' = 2^k0), r1 = σ(r0 ⊕ I) carried beside them, the
killers G1, G2, then R = σ(−G1 − G2 ⊕ r) beside fresh killers and the u's carried (the
*state*: ``rectifying.gradient_state``) — then one chain layer
R = σ(c ⊗ R − G1 − G2 ⊕ (I ⊖ c ⊗ I)) per transfer weight c (the state carried), the last
(the top) with N = σ(−G1 − G2 ⊕ I), and the output w_out ⊗ R ⊕ (−w_out) ⊗ N.  (δ = −1,
ELU: every gated neuron also adds δ ⊗ C, C = 2, so that the killers' dead values cancel.)

Proved as a tree (fpsmt.proof.tree); every stage's network is a run of whole layers of the
atom (tests/test_rectifying.py compares them term for term), as for the saturating and
logistic families' gradient atoms:

* ``gate_at_z``, three layer slices joined: ``lower_at_z`` (the step indicators and the path
  up to the killers, over z, w_x and r's upstream: all three I; D^AD(x) = PATH(u_r) =
  (u_r ⊗ 2^k0) ⊗ w_x where that is not a zero (GATE_BACK); the step rows' first-layer terms
  zeros and the path's D^AD's), ``killers_at_z`` (r's upstream passed through, PASS; zeros
  into the indicators) and ``top_at_z`` (the gate layer, for every upstream as UPS states
  it: zeros into the carried u's, finite into the others): the state is AT_Z — R = I, the
  fresh killers σ's dead value δ, C = 2, both u's I; R's upstream passed to r.  Every
  hidden value and gradient is finite.  Stated for w_x (1, or 2 where k0 = −1), not g, so
  that in the 8-bit formats the first two are small enough to be confirmed by enumeration.
* ``gate_off`` (x != z, with the zero upstreams the killed chain gives): the state is
  KILLED — R = δ, one killer G (the side's), the other δ, the u's (δ, I) or (I, δ); D^AD(x)
  and every first-layer term a zero.
* In formats of at least ``rect_value_atom.SPLIT_FROM_BITS`` (17) bits both are split as
  the value atom's amplification: ``lower_at_z`` into ``lower_spacing`` (layer 0's
  pre-activations p at x = z), ``lower_amp`` (the steps from p for zero upstreams,
  enumerated over the powers of two), the join ``lower_first`` and the steps from p for
  every upstream u_r (:func:`lower_at_z_nodes`); ``gate_off`` — from 16 bits on
  (``GATE_OFF_SPLIT_FROM_BITS``) — into a stage per layer over intervals and ``kill_off``
  (:func:`gate_off_nodes`).
* ``chain_at_z`` and ``chain_killed``: inductions over the chain layers, each with its own
  c in K: AT_Z stays, the path neuron's pre-activation is I and its gradient is
  (u_R ⊗ σ'(pre)) ⊗ c (CHAIN_BACK), and an upstream as UPS states it gives a gradient as
  UPS states it; KILLED stays and zero upstreams give zeros.
* ``top``: the top and output layers, for every c in K, w_out in W_OUT and |y| <= H, from
  any AT_Z state and any KILLED state: out = ±0, its two terms sum to a zero, CHAIN_BACK for
  the upstream y ⊗ w_out at z and its gradient as UPS states it, zero gradients elsewhere.
* the multiplication transfer (proofs/multiplication_transfer.py) with this family's target
  stage: ±1 through the target weights from t lands on ``out`` with PATH(out) = g (t and
  w_x from g: ``rectifying.path_params``);
* the facts ``one`` (u ⊗ σ'(I) = u: R.identity) and ReLU's ``cong``; ``chain_grad`` (the
  gradient along R is the transfer's partial product), ReLU's ``pass_grad`` over the gate
  layer and the killers' layer (PASS), and the join with ``lower_at_z``: D^AD = PATH(G) = g
  at x = z.

For the theorem's join (proofs/rect_theorem_3_1.py) the stages state: the output row's two
terms sum to a zero; D^AD's first-layer terms are zeros but the path's, which is D^AD (so
g at x = z with upstream h), and all zeros elsewhere; every hidden value and gradient is
finite.  What is the code's, tested: the atom's layers are these stages' in this order (so
two pass layers, the killers' and the gate's, lie between the chain and ``lower_at_z``),
its chain weights the transfer's for the target t (input side first; above the least depth
after weights 1, bias +0: the chain inductions cover any number of layers, and ``padding``
shows that out ⊗ 1 keeps PATH(out) = g) and each bias
I ⊖ (c ⊗ I) (``rectifying.chain_bias``, the function the stages call)."""

import functools
from fractions import Fraction

from fpsmt.constructions import rectifying as RC
from fpsmt.constructions.registry import show_bound
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, fact, induction, join, sequence, stage
from fpsmt.proofs.common import finite_inside, finite_pre, zero
from fpsmt.proofs.gradient_atom import GRAD_IS_P, PASS, cong_fact, pass_grad
from fpsmt.proofs.multiplication_transfer import CHAIN_WEIGHT, W_OUT, Chain, target_stage, transfer_tree
from fpsmt.proofs.rect_common import (H, X, I as _I, dead as _dead, formats, killer as _G, theorem,
                                      upstreams as _ups, xdesc)
from fpsmt.proofs import rect_value_atom as V
from fpsmt.proofs.sat_common import (chain_back_at_zero, chain_grad_node, chain_killed_node, gate_off_stage,
                                     gradient_whole, layer_slice, padded_gradient, reaches_padding_node, within)

NAME = "rect_gradient_atom"
X_DOM = X()
FIN = Float(finite=True)
NONZERO = Float(finite=True, nonzero=True)
#: the most chain layers the inductions cover (every format's chain is far shorter)
CHAIN_MAX = 1 << 12
_i = Int(0, CHAIN_MAX)


#: the path's input weight w_x: 1, or 2 where k0 = −1 and 2g is not finite
#: (``rectifying.path_params``).  The gate's stages are stated for w_x, not for g, so that they
#: have few inputs
WX = Float(range=(1, 2))


def path(s, u, wx):
    """PATH(u) = (u ⊗ 2^k0) ⊗ w_x: the path's backward product below the gate at x = z."""
    return (u * s.lift(Fraction(2) ** RC.block_constants(s.fmt).k0)) * wx


def _wx_ok(s):
    """w_x is one the atom can have: 1, or 2 where σ'(±0) = 1/2 (k0 = −1)."""
    return s.wx.eq(1) if RC.block_constants(s.fmt).k0 == 0 else s.wx.eq(1) | s.wx.eq(2)


#: the gate's backward pass at x = z: D^AD(x) = PATH(G) where that is not a zero
GATE_BACK = Pred(f"{NAME}.gate_back", {"G": Float(), "wx": WX, "D": Float()},
                 lambda s: [_wx_ok(s), (~path(s, s.G, s.wx).is_zero()).implies(s.D.same(path(s, s.G, s.wx)))],
                 doc="w_x is 1 (or 2 where k0 = -1); D = PATH(G) = (G * 2^k0) * w_x where that is nonzero")
#: the transfer's guarantee: the chain's product ``out`` meets the gate's PATH at g, with
#: the w_x that g gives
REACHES = Pred(f"{NAME}.reaches_g", {"g": NONZERO, "out": Float(), "wx": WX},
               lambda s: [s.wx.same(RC.path_params(s, s.g)[0]), path(s, s.out, s.wx).same(s.g), s.out.is_finite(),
                          ~s.out.is_zero()],
               doc="w_x is g's, PATH(out) = g, out finite and nonzero")
Z_WX = Pred(f"{NAME}.z_wx", {"z": X_DOM, "wx": WX}, _wx_ok, doc="w_x is 1 (or 2 where k0 = -1)")
AT_Z_GRAD = Pred(f"{NAME}.grad_at_z", {"D": Float(), "g": NONZERO}, lambda s: s.D.same(s.g), doc="D^AD = g")
#: a chain layer's backward step, as AD takes it: the path neuron's pre-activation is I
CHAIN_BACK = chain_back_at_zero(NAME, RC.hidden, where=lambda s, pre: pre.same(_I(s)), what="= I")
#: x != z
OFF = Pred(f"{NAME}.off", {"z": X_DOM, "x": X_DOM, "wx": WX}, lambda s: [~s.x.eq(s.z), _wx_ok(s)],
           doc="x != z, w_x is 1 (or 2 where k0 = -1)")


@functools.lru_cache(maxsize=None)
def _preds(state, prefix=NAME):
    """The state's predicates for the state's neuron names (δ a zero and δ = −1 have
    different states): AT_Z, AT_Z_RUN, KILLED, KILLED_RUN, and UPS, the upstream gradient
    every layer at x = z gets into the state but R (the top gives it, every chain layer
    keeps it, the gate takes it): a zero into each carried u — the chain's fresh killers
    are dead there (σ' = 0) and the top does not read the u's — and finite into the
    others.  R's is the transfer's partial product (CHAIN_BACK and ``chain_grad``).  For
    δ = −1 a u is carried by σ(2^b ⊗ u ⊕ (1 − 2^b)): a finite upstream into it may
    overflow below."""
    v = {n: Float() for n in state}

    def c2(s):  # C = 2 (δ = −1); the shallow chain's K = I
        return ([s.C.same(2)] if "C" in state else []) + ([s.K.same(_I(s))] if "K" in state else [])

    def at_z(s):
        return [s.R.same(_I(s)), _dead(s, s.G1), _dead(s, s.G2), s.uge.same(_I(s)), s.ule.same(_I(s))] + c2(s)

    def killed(s):
        below = s.all(s.G1.same(_G(s)), _dead(s, s.G2), _dead(s, s.uge), s.ule.same(_I(s)))
        above = s.all(_dead(s, s.G1), s.G2.same(_G(s)), s.uge.same(_I(s)), _dead(s, s.ule))
        return [_dead(s, s.R), below | above] + c2(s)
    extra = " (K = I)" if "K" in state else ""
    AT_Z = Pred(f"{prefix}.at_z", v, at_z, doc=f"R = I, G1 and G2 dead, u_ge = u_le = I (C = 2){extra}")
    KILLED = Pred(f"{prefix}.killed", v, killed,
                  doc=f"R dead; (G1, G2, u_ge, u_le) = (G, dead, dead, I) or (dead, G, I, dead) (C = 2){extra}")
    run = {**v, "i": _i, "n": _i}
    ups = [u for u in _ups(state, False) if u != "u_K"]  # K's: R's negated (_k_gradient)
    UPS = Pred(f"{prefix}.upstream", {u: zero() if u in ("u_uge", "u_ule") else Float() for u in ups},
               lambda s: [s[u].is_zero() if u in ("u_uge", "u_ule") else s[u].is_finite() for u in ups],
               doc="the upstream into the state but R at x = z: zeros into the carried u's, finite into the others"
                   + (" (K's: R's negated)" if extra else ""))
    return (AT_Z, Pred(f"{prefix}.chain_at_z", run, lambda s: [s.i <= s.n, AT_Z.holds(s)],
                       doc="after i of the n chain layers: AT_Z"),
            KILLED, Pred(f"{prefix}.chain_killed", run, lambda s: [s.i <= s.n, KILLED.holds(s)],
                         doc="after i of the n chain layers: still killed"), UPS)


def _state(fmt):
    return RC.gradient_state(fmt)


def _ups_but_R(state, grad):
    """The gradients into the state but R (and the shallow chain's K), as UPS names them."""
    return {f"u_{n}": g for n, g in zip(state, grad) if n not in ("R", "K")}


def _gate_run(s, x, ups, a=0, b=None, inputs=None):
    """Layers a … b − 1 of the gate (default: all of it, on x) with the upstream ``ups``;
    ``inputs``: layer a's inputs when a > 0."""
    gate, _ = RC.gradient_layers(s.fmt, RC.depth(s.fmt))
    net = layer_slice(RC, s.fmt, a, gate + 1 if b is None else b)
    P = {}
    if a == 0:
        P = {**RC.step_biases(s, s.z), "wx": s.wx, "zb": -(s.wx * s.z)}
    return net, P, s.run(net, [x] if a == 0 else inputs, ups, params=P, trace=True)


def _low_ups(lower, r="u_r"):
    """The names of the upstreams into the steps' last layer ``lower``: ``r`` into the path
    r, o_i into its i-th neuron otherwise."""
    return [r if n == "r" else f"o{i}" for i, n in enumerate(lower)]


def _lower_names(fmt):
    """The names of the steps' last layer's neurons (ge, le, the path r) and of the killers'
    layer's (the killers, C for δ = −1, r, the u's carried)."""
    gate, _ = RC.gradient_layers(fmt, RC.depth(fmt))
    names = RC.gradient_names(fmt, RC.depth(fmt))
    return names[gate - 1], names[gate]


@functools.lru_cache(maxsize=None)
def _gate_preds(lower, killers):
    """LOWER (the steps' last layer at x = z: every neuron I), KILLERS (the killers' layer at
    x = z: G1, G2 dead, C = 2, r and the u's I), KUPS (the upstream into the killers' layer
    at x = z: zeros into the u's, finite into the others)."""
    def at(value):  # a float that can only be ``value(fmt)`` (a domain the enumeration takes as one point)
        return Float(range=(lambda f: f.hex(f.round(value(f))), lambda f: f.hex(f.round(value(f)))))
    one_I = at(lambda f: RC.block_constants(f).I)
    dead = at(lambda f: -1) if "C" in killers else zero()  # C only where δ = −1
    LOWER = Pred(f"{NAME}.lower_at_z", {n: one_I for n in lower},
                 lambda s: [s[n].same(_I(s)) for n in lower], doc="ge, le and r are I")

    def killed(s):
        return [_dead(s, s[n]) if n in ("G1", "G2") else s[n].same(2) if n == "C" else s[n].same(_I(s))
                for n in killers]
    KILLERS = Pred(f"{NAME}.killers_at_z",
                   {n: dead if n in ("G1", "G2") else at(lambda f: 2) if n == "C" else one_I for n in killers}, killed,
                   doc="G1, G2 dead, C = 2, r and the u's I")
    ups = [f"u_{n}" for n in killers]
    KUPS = Pred(f"{NAME}.killers_upstream", {u: zero() if u in ("u_uge", "u_ule") else Float() for u in ups},
                lambda s: [s[u].is_zero() if u in ("u_uge", "u_ule") else s[u].is_finite() for u in ups],
                doc="the upstream into the killers' layer at x = z: zeros into the u's, finite into the others")
    return LOWER, KILLERS, KUPS


def gate_at_z(fmt):
    """The gate at x = z in three stages, each a layer slice of the atom, so that no stage
    has more than z, g and one finite upstream, or three finite upstreams (what the
    enumeration that confirms an 8-bit answer can take): ``lower_at_z`` (the step
    indicators and the path r up to the killers: ge, le, r all I; D^AD(x) = PATH(u_r)
    and the first-layer terms), ``killers_at_z`` (the killers' layer: r's upstream passed
    through, zeros into ge and le) and ``top_at_z`` (the gate layer: the state AT_Z, R's
    upstream passed through to r, the killers' layer's upstream KUPS), joined."""
    state = _state(fmt)
    AT_Z, UPS = _preds(state)[0], _preds(state)[4]
    lower, killers = _lower_names(fmt)
    LOWER, KILLERS, KUPS = _gate_preds(lower, killers)
    gate, _ = RC.gradient_layers(fmt, RC.depth(fmt))
    r = lower.index("r")
    ups_low = {n: zero() for n in _low_ups(lower) if n != "u_r"}

    def low_run(s):
        return _gate_run(s, s.z, [s[n] for n in _low_ups(lower)], 0, gate - 1)

    def low_side(s, run=None):
        net, P, (_, grad, trace) = run or low_run(s)
        terms = s.input_terms(net, P, trace)
        return ([GATE_BACK.holds(s, G=s.u_r, D=grad[0]), GATE_BACK.holds(s, G=s.u_r, D=terms[-1])]
                + [t.is_zero() for t in terms[:-1]] + finite_inside(*trace[1:3]) + [g.is_finite() for g in grad])
    if split_lower(fmt):
        lows = lower_at_z_nodes(fmt, LOWER, low_side)
    else:  # one stage over (z, u_r): the enumeration confirms it in the 8-bit formats
        lows = [stage(f"{NAME}.lower_at_z", {"u_r": FIN, **ups_low}, LOWER,
                      lambda s: dict(zip(lower, low_run(s)[2][0])), Z_WX, side=low_side, states=[GATE_BACK])]

    def kill_run(s):
        return _gate_run(s, None, [s[f"u_{n}"] for n in killers], gate - 1, gate, [s[n] for n in lower])[2]

    def kill_side(s):
        _, grad, (_, post, up) = kill_run(s)
        return ([PASS.holds(s, u=s.u_r, g=grad[r])] + [g.is_zero() for j, g in enumerate(grad) if j != r]
                + [g.is_finite() for g in grad] + finite_inside(post, up))
    kill_in = Pred(f"{NAME}.killers_in", {**LOWER.variables, **KUPS.variables},
                   lambda s: [LOWER.holds(s), KUPS.holds(s)], doc="LOWER and the upstream KUPS")
    kill = stage(f"{NAME}.killers_at_z", {}, KILLERS, lambda s: dict(zip(killers, kill_run(s)[0])), kill_in,
                 side=kill_side, states=[PASS], premise=[KUPS])

    def top_run(s):
        return _gate_run(s, None, [s[u] for u in _ups(state)], gate, gate + 1, [s[n] for n in killers])[2]

    def top_side(s):
        _, grad, (_, post, up) = top_run(s)
        gr = dict(zip(killers, grad))
        return ([PASS.holds(s, u=s.u_R, g=gr["r"]), KUPS.holds(s, **{f"u_{n}": g for n, g in gr.items()})]
                + finite_inside(post, up))
    top_in = Pred(f"{NAME}.gate_in", {**KILLERS.variables, **UPS.variables, "u_R": FIN},
                  lambda s: [KILLERS.holds(s), UPS.holds(s)], doc="KILLERS and the upstream UPS, u_R finite")
    top = stage(f"{NAME}.top_at_z", {}, AT_Z, lambda s: dict(zip(state, top_run(s)[0])), top_in, side=top_side,
                states=[PASS, KUPS], premise=[UPS])
    return sequence(f"{NAME}.gate_at_z", lows + [join(f"{NAME}.killers_in", [LOWER, KUPS], kill_in), kill,
                                          join(f"{NAME}.gate_in", [KILLERS, UPS], top_in), top])


def _lower_pre(s, pre, ups, wx):
    """The layers below the killers from layer 0's pre-activations ``pre`` (ge, le, r) in
    place of their sums (:meth:`Scope.run` ``given_pre``; the input and the biases then
    only enter D^AD's first-layer terms, through the weights: w_x is r's), upstream
    ``ups``."""
    gate, _ = RC.gradient_layers(s.fmt, RC.depth(s.fmt))
    net = layer_slice(RC, s.fmt, 0, gate - 1)
    P = {"ge_b": s.const(0), "le_b": s.const(0), "wx": wx, "zb": s.const(0)}
    return net, P, s.run(net, [s.const(0)], ups, params=P, trace=True, given_pre={0: list(pre)})


def _pre0(s):
    """Layer 0's pre-activations (ge, le, r) at x = z."""
    _, _, (_, _, trace) = _gate_run(s, s.z, [s.const(0)] * 3, 0, 1)
    return trace[0][0]


#: layer 0's pre-activations at x = z: z − z⁻ and z⁺ − z = (z − z⁻)·2^e1 (powers of two,
#: rect_value_atom's pair (p0, e1)) and r's +0
_P = {**V._P, "p2": Float(range=(0, 0), sign="+")}


def _pres(s):
    """[p0, p1, p2] of the variables (p1 = p0 ⊗ 2^e1)."""
    return V.spacings(s) + [s.p2]


def _pre_vars(s):
    """The variables of layer 0's computed pre-activations at x = z."""
    q = _pre0(s)
    return {**V.spacing_vars(s, q[:2]), "p2": q[2]}


@functools.lru_cache(maxsize=None)
def _lower_preds(lower):
    """LSPACING (layer 0's pre-activations at x = z are p0, p1, p2), LAMP (the steps from the
    pre-activations p: every upstream o_i and a_r a zero) and their conjunction LFIRST, over
    the names ``lower`` of the steps' last layer (o_i is the upstream into its i-th
    neuron but r, a_r r's)."""
    ups = {n: zero() for n in _low_ups(lower, "a_r")}

    def lspacing(s):
        q = _pre0(s)
        return [_wx_ok(s)] + V.same_spacings(s, q[:2]) + [q[2].same(s.p2)]
    LSPACING = Pred(f"{NAME}.lower_spacing", {"z": X_DOM, "wx": WX, **_P}, lspacing,
                    doc="w_x is 1 (or 2 where k0 = -1); layer 0's pre-activations at x = z are p0 = z − z⁻ and "
                        "p1 = z⁺ − z = p0 ⊗ 2^e1, e1 in {−1, 0, 1}, powers of two in the range of the spacings, "
                        "and p2 = +0 (r's: w_x ⊗ z ⊖ w_x ⊗ z)")

    def lamp(s):
        ups_l = [s[n] for n in ups]
        pre = _pres(s)
        net, P, (out, grad, trace) = _lower_pre(s, pre, ups_l, s.const(1))
        terms = s.input_terms(net, P, trace)
        k0 = s.lift(Fraction(2) ** RC.block_constants(s.fmt).k0)
        goals = ([o.same(_I(s)) for o in out] + _r_pre(s, trace[0]) + [t.is_zero() for t in terms[:-1]]
                 + [g.is_finite() for g in grad] + finite_inside(*trace[1:3])
                 + [s.sigma_prime(RC.hidden(), s.p2).same(k0)]
                 + [s.sigma_prime(RC.hidden(), q[2]).same(1) for q in trace[0][1:]])
        return V.if_spacing_ok(s, pre[1], goals)
    LAMP = Pred(f"{NAME}.lower_amp", {**_P, **ups}, lamp,
                doc="from layer 0's pre-activations p = (2^kg, 2^kg ⊗ 2^e1, +0), the second in the spacings' "
                    "range, for zero upstreams: ge, le, r all I, "
                    "r's pre-activations I above layer 0, the step rows' first-layer terms zeros, every hidden "
                    "value and gradient finite; σ'(+0) = 2^k0 and σ' = 1 at r's pre-activations above layer 0 "
                    "(the path's backward factors)")
    LFIRST = Pred(f"{NAME}.lower_first", {**LSPACING.variables, **LAMP.variables},
                  lambda s: [LSPACING.holds(s), LAMP.holds(s)], doc="LSPACING and LAMP")
    return LSPACING, LAMP, LFIRST


def _r_pre(s, pre):
    """The path r's pre-activations: +0 in layer 0 (given), I above."""
    return [p[2].same(_I(s)) for p in pre[1:]]


#: ``lower_at_z`` is split (:func:`lower_at_z_nodes`) in 16-bit formats with at least this
#: many fraction bits too (float16, not bfloat16): as one stage over (z, u_r), GELU's shallow
#: atom in float16 had no answer from z3 or Bitwuzla within 716 s each
LOWER_SPLIT_FROM_FRACTION_BITS = 10


def split_lower(fmt) -> bool:
    """Whether ``lower_at_z`` is split: formats of at least SPLIT_FROM_BITS bits, and 16-bit
    formats of at least LOWER_SPLIT_FROM_FRACTION_BITS fraction bits."""
    return fmt.nbits >= V.SPLIT_FROM_BITS or (fmt.nbits >= 16 and fmt.M >= LOWER_SPLIT_FROM_FRACTION_BITS)


def lower_at_z_nodes(fmt, LOWER, low_side):
    """``lower_at_z`` in formats of at least SPLIT_FROM_BITS bits: ``lower_spacing`` (no σ:
    layer 0's pre-activations at x = z are p0 = 2^kg, p1 = p0 ⊗ 2^e1 with e1 in {−1, 0, 1}
    and r's p2 = +0), ``lower_amp`` (the steps from the pre-activations p, every upstream a
    zero, by enumeration over every power of two p0 and e1: about 3·2^11 points in float64,
    where every pair of powers of two was about 2^22 and took 1,438.5–2,002.7 s; it also states σ'(+0) = 2^k0 and σ' = 1
    at r's pre-activations, the path's backward factors), their join ``lower_first``, and
    ``lower_at_z``: the steps from p (:meth:`Scope.run` ``given_pre``) for every finite
    upstream u_r into r.  Its forward run is ``lower_amp``'s, term for term, so what is
    left to the solver is the backward pass with u_r, from the σ' values ``lower_amp``
    states; it is decided with σ and σ' uninterpreted (so for every σ with those values:
    float32, Swish 86.0 s against 389.8 s with σ interpreted, GELU 108 s either way).  That
    the run from layer 0's own pre-activations is the run at z is the code's
    (:func:`_lower_pre`; a test compares the terms)."""
    lower = _lower_names(fmt)[0]
    LSPACING, LAMP, LFIRST = _lower_preds(lower)
    spacing = stage(f"{NAME}.lower_spacing", {}, LSPACING, _pre_vars, Z_WX)
    amp = stage(f"{NAME}.lower_amp", dict(LAMP.variables), LAMP, lambda s: {}, enumerate=True)
    first = join(f"{NAME}.lower_first", [LSPACING, LAMP], LFIRST)

    def run(s):
        return _lower_pre(s, _pres(s), [s[n] for n in _low_ups(lower)], s.wx)
    link = stage(f"{NAME}.lower_at_z", {"u_r": FIN}, LOWER, lambda s: dict(zip(lower, run(s)[2][0])), LFIRST,
                 side=lambda s: low_side(s, run(s)), states=[GATE_BACK], uninterpreted=("act",))
    return [spacing, amp, first, link]


#: ``gate_off`` is split per layer (:func:`gate_off_nodes`) from this many bits: as one
#: stage in bfloat16 z3 gave no answer within 300 s and bitwuzla-bv took about 300 s (GELU)
GATE_OFF_SPLIT_FROM_BITS = 16


def gate_off(fmt):
    state = _state(fmt)
    if fmt.nbits >= min(GATE_OFF_SPLIT_FROM_BITS, V.SPLIT_FROM_BITS):
        return sequence(f"{NAME}.gate_off", gate_off_nodes(fmt))
    return gate_off_stage(NAME, _gate_run, _preds(state)[2], OFF, state)


@functools.lru_cache(maxsize=None)
def r_intervals(fmt_name, act):
    """For x != z, layer by layer below the killers: (lo, hi) of the path r's pre-activation
    and of its output.  Layer 0's is w_x ⊗ x ⊖ w_x ⊗ z, in [−4M, 4M] (w_x <= 2, M the bound
    of X); layer 1 adds I; the others carry r (their absent entries add zeros)."""
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(fmt_name)
    rnd = lambda q: fmt.to_fraction(fmt.round(q))  # noqa: E731
    T = rnd(4 * theorem(fmt).M_sigma)
    gate, _ = RC.gradient_layers(fmt, RC.depth(fmt))
    I = RC.block_constants(fmt).I
    pre = (-T, T)
    out = [(pre, V._image(fmt, *pre))]
    for j in range(1, gate - 1):
        post = out[-1][1]
        pre = (rnd(post[0] + I), rnd(post[1] + I)) if j == 1 else post
        out.append((pre, V._image(fmt, *pre)))
    return tuple(out)


def _r_box(s, j):
    lo, hi = r_intervals(s.fmt.name, RC.hidden())[j][1]
    return (s.r >= s.const(lo)) & (s.r <= s.const(hi))


@functools.lru_cache(maxsize=None)
def _off_r_pred(j, last):
    """After layer j of the steps (x != z): the pair as the value atom's OFF_j (STEPS_OFF
    after the amplification's last layer, ``last``) and r in its interval R_j."""
    pair = V.STEPS_OFF if last else V._off_pred(j)
    return Pred(f"{NAME}.off_{j}", {"ge": Float(), "le": Float(), "r": Float()},
                lambda s: [pair.holds(s), _r_box(s, j)],
                doc=f"after layer {j}, x != z: the pair {pair.name}, r in R_{j}")


def _off_anchors(j):
    """The ends of layer j's pre-activation intervals (the pair's, or in a carry layer the
    ends of its sides, and r's)."""
    def at(fmt):
        pair = V._anchors(j)(fmt) if j < V._cuts(fmt)[0] else V.side_anchors(fmt)
        return sorted(set(pair) | {fmt.round(q) for q in r_intervals(fmt.name, RC.hidden())[j][0]})
    return at


def gate_off_nodes(fmt):
    """The gate at x != z in formats of at least GATE_OFF_SPLIT_FROM_BITS bits, a stage per layer of
    the amplification and the carries (as the value atom's ``off_layer_j``, with the path r
    beside the pair in an interval: ``r_intervals``; a carry keeps the pair's sides), then
    the kill layers, the killers' and the gate layer
    as one stage from the pair's sides and r's interval: the state KILLED.  Every stage for
    the zero upstreams the killed chain gives: zero gradients into its inputs (layer 0:
    D^AD(x) and every first-layer term), every hidden value and gradient finite.  As one
    stage it gave no answer in float32 within 300 s (GELU)."""
    state = _state(fmt)
    KILLED = _preds(state)[2]
    amp, _, _ = V._cuts(fmt)
    gate, _ = RC.gradient_layers(fmt, RC.depth(fmt))
    kill_a = gate - 3  # kill A, kill B, the killers' layer, the gate; before them the amplification and carries
    zs = {"o1": zero(), "o2": zero(), "o3": zero()}
    names = ("ge", "le", "r")

    def layer(s, j):
        ups = [s.o1, s.o2, s.o3]
        return _gate_run(s, s.x if j == 0 else None, ups, j, j + 1, None if j == 0 else [s[n] for n in names])

    def side(s, j):
        net, P, (_, grad, trace) = layer(s, j)
        if j == 0:
            return ([grad[0].is_zero()] + [t.is_zero() for t in s.input_terms(net, P, trace)]
                    + finite_inside(*trace[1:3]))
        return [g.is_zero() for g in grad] + finite_inside(*trace[1:3])
    nodes = []
    for j in range(kill_a):
        nodes.append(stage(f"{NAME}.off_layer_{j}", dict(zs), _off_r_pred(j, j >= amp - 1),
                           lambda s, j=j: dict(zip(names, layer(s, j)[2][0])),
                           OFF if j == 0 else _off_r_pred(j - 1, j - 1 >= amp - 1), side=lambda s, j=j: side(s, j),
                           anchors=_off_anchors(j)))
    ups = [f"u{i}" for i in range(len(state))]

    def top_run(s):
        return _gate_run(s, None, [s[u] for u in ups], kill_a, gate + 1, [s[n] for n in names])

    def top_side(s):
        _, _, (_, grad, trace) = top_run(s)
        return [g.is_zero() for g in grad] + finite_inside(*trace[1:3])
    nodes.append(stage(f"{NAME}.kill_off", {u: zero() for u in ups}, KILLED,
                       lambda s: dict(zip(state, top_run(s)[2][0])), _off_r_pred(kill_a - 1, True), side=top_side,
                       anchors=_off_anchors(kill_a)))
    return nodes


def _chain_net(fmt):
    """One chain layer as the atom has it (the state carried, R with weight ``c``, bias
    ``B``): the atom's first chain layer, its parameters renamed."""
    from fpsmt.semantics.network import Network
    gate, top = RC.gradient_layers(fmt, RC.depth(fmt))
    if top - gate < 2:
        raise ValueError(f"{fmt.name}: the atom has no chain layer between its gate and its top")
    layer = layer_slice(RC, fmt, gate + 1, gate + 2).layers[0]
    return Network(fmt, [layer]), {f"c{gate + 1}": "c", f"B{gate + 1}": "B"}


def _chain_params(s, c):
    _, rename = _chain_net(s.fmt)
    names = {v: k for k, v in rename.items()}
    return {names["c"]: c, names["B"]: RC.chain_bias(s, c, _I(s))}


def chain_at_z(fmt):
    state = _state(fmt)
    AT_Z, AT_Z_RUN, _, _, UPS = _preds(state)
    R = state.index("R")

    def layer(s):
        return s.run(_chain_net(s.fmt)[0], [s[n] for n in state], [s[u] for u in _ups(state)],
                     params=_chain_params(s, s.c), trace=True)

    def side(s):
        _, grad, (pre, post, up) = layer(s)
        return ([CHAIN_BACK.holds(s, u=s.u_R, pre=pre[0][R], gR=grad[R]), UPS.holds(s, **_ups_but_R(state, grad))]
                + finite_inside(post, up))
    return induction(
        f"{NAME}.chain_at_z", AT_Z_RUN, "i", 0, CHAIN_MAX,
        stage(f"{NAME}.chain_at_z.base", {"n": _i}, AT_Z_RUN, lambda s: {"i": 0}, AT_Z),
        lambda s: dict(zip(state, layer(s)[0])), AT_Z,
        step_vars={"c": FIN, "u_R": FIN, **UPS.variables},
        step_given=lambda s: [CHAIN_WEIGHT.holds(s), UPS.holds(s)], step_side=side, done=lambda s: s.i.eq(s.n),
        doc="the chain layers at x = z", step_premise=[CHAIN_WEIGHT, UPS], step_states=[CHAIN_BACK, UPS])


def chain_killed(fmt):
    state = _state(fmt)
    _, _, KILLED, KILLED_RUN, _ = _preds(state)

    def layer(s, ups):
        return s.run(_chain_net(s.fmt)[0], [s[n] for n in state], ups, params=_chain_params(s, s.c), trace=True)
    return chain_killed_node(NAME, KILLED, KILLED_RUN, layer, state, "c", CHAIN_MAX)


def top_claim(fmt):
    """The top and output layers, from any AT_Z state (a_*) and any KILLED state (k_*)."""
    state = _state(fmt)
    AT_Z, _, KILLED, _, UPS = _preds(state)
    R = state.index("R")
    _, top = RC.gradient_layers(fmt, RC.depth(fmt))

    def goal(s):
        net = layer_slice(RC, s.fmt, top, top + 2)
        P = {f"c{top}": s.c, f"B{top}": RC.chain_bias(s, s.c, _I(s)), "w_out": s.w, "mw_out": -s.w}
        out = []
        for prefix, live in (("a_", True), ("k_", False)):
            o, grad, trace = s.run(net, [s[prefix + n] for n in state], [s.y], params=P, trace=True)
            pre, post, up = trace
            t1, t2 = s.row_terms(net, 1, "forward", post[0], P)
            out += [o[0].is_zero(), (t1 + t2).is_zero()] + finite_inside(post, up)
            if live:
                out += [CHAIN_BACK.holds(s, u=s.y * s.w, pre=pre[0][0], gR=grad[R]),
                        UPS.holds(s, **_ups_but_R(state, grad))]
            else:
                out += [g.is_zero() for g in grad]
        return out

    def given(s):
        return [CHAIN_WEIGHT.holds(s), W_OUT.holds(s), AT_Z.holds(s, **{n: s["a_" + n] for n in state}),
                KILLED.holds(s, **{n: s["k_" + n] for n in state})]
    states = {p + n: Float() for p in ("a_", "k_") for n in state}
    return forall(f"{NAME}.top", {"c": FIN, **W_OUT.variables, "y": within(H), **states}, goal=goal, given=given)


def one_fact(fmt):
    """u ⊗ σ'(pre) = u for every finite u and pre = I (R.identity: σ'(I) = 1)."""
    return fact(forall(f"{NAME}.one", {"u": FIN, "pre": Float()}, given=lambda s: s.pre.same(_I(s)),
                       goal=lambda s: (s.u * s.sigma_prime(RC.hidden(), s.pre)).same(s.u),
                       doc="u * sigma'(pre) = u for finite u and pre = I"))


def padding(fmt):
    """Below the transfer, the chain layers of weight 1 an atom deeper than its least depth
    has (:func:`fpsmt.proofs.sat_common.reaches_padding_node`): out ⊗ 1 keeps PATH(out) = g."""
    return reaches_padding_node(NAME, REACHES, lambda s: s.out * s.const(1), CHAIN_MAX)


def transfer(fmt):
    """The multiplication transfer h → ±1 → t, with this family's target stage: the chain's
    product ``out`` has PATH(out) = g (t = g / (w_x·2^k0), ``rectifying.path_params``)."""
    return transfer_tree(fmt, target_stage(fmt, f"{NAME}.transfer.target", lambda s: RC.path_params(s, s.g)[1],
                                           REACHES, lambda s: {"wx": RC.path_params(s, s.g)[0]}))


def tree(fmt):
    state = _state(fmt)
    AT_Z, _, KILLED, _, UPS = _preds(state)
    top = Node("stage", f"{NAME}.top", top_claim(fmt),
               uses={"hypothesis": W_OUT, "premise": [W_OUT, CHAIN_WEIGHT, AT_Z, KILLED], "side": [CHAIN_BACK, UPS]})
    backward = sequence(f"{NAME}.backward", [chain_grad_node(NAME, CHAIN_BACK, RC.hidden, CHAIN_MAX), pass_grad(fmt),
                                             join(f"{NAME}.backward.g", [GRAD_IS_P, REACHES, GATE_BACK], AT_Z_GRAD)])
    return Node("lemma", NAME, None, [gate_at_z(fmt), gate_off(fmt), chain_at_z(fmt), chain_killed(fmt), top,
                                      transfer(fmt), padding(fmt), one_fact(fmt), cong_fact(fmt), backward])


def repaired(fmt):
    return tree(fmt), (
        f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite g != 0 and "
        "every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0; the two "
        "output terms sum to a zero, D^AD's first-layer terms are zeros but the path's (D^AD itself) at z, zeros "
        f"elsewhere; every hidden value and gradient finite; depth {RC.depth(fmt)}{padded_gradient()}, proved as a "
        "tree: the gate, "
        "inductions over the chain layers at x = z and at x != z, the top, the multiplication transfer to the "
        "path's target, and the backward chain's product against the transfer's")


# ------------------------------------------------------------------ the shallow variant
# fpsmt.constructions.rectifying's shallow gradient atom: the repaired atom's gate, then a
# normalize layer (the repaired chain layer of weight 1, bias +0, and a constant K = I
# beside R), then one layer R = σ(c ⊗ R ⊕ (−c) ⊗ K ⊕ (−1/2) ⊗ G1 ⊕ (−1/2) ⊗ G2
# (⊕ (−1/2) ⊗ C) ⊕ I) per weight of the transfer with the cap 2^(e_max − 2 − a) and ±m_g one
# weight (the last, the top, with N), the output.  Its tree: the repaired gate's stages
# (the same claims), ``shallow.normalize_at_z`` and ``shallow.normalize_off`` (from the
# gate's state to the state with K), the inductions ``shallow.chain_at_z`` and
# ``shallow.chain_killed`` over weights in K' = [−2, 0) ∪ (0, 2^(e_max − 2 − a)],
# ``shallow.top``, the transfer with that cap, the facts and the backward chain.  K's
# gradient is R's negated (:func:`_k_gradient`): finite wherever R's is, and R's is the
# transfer's partial product (``chain_grad``); K's row reads u_ge with the weight +0 only.
# The shallow stages also state every pre-activation finite (``finite_pre``): under the
# paper's semantics σ(−∞) is the dead value, so a finite hidden value does not imply it, and
# the killers' weight −1/2 is what keeps −c ⊗ K ⊖ G/2 finite.
SHALLOW = "shallow"
SNAME = f"{NAME}.shallow"
SHALLOW_WEIGHT = Pred(f"{NAME}.shallow_weight", {"c": Float(finite=True)},
                      lambda s: ((s.c >= -2) & (s.c < 0)) | ((s.c > 0) & (s.c <= s.int_pow2(RC.shallow_cap(s.fmt)))),
                      doc="c in K' = [-2, 0) ∪ (0, 2^(e_max - 2 - a)]")
SHALLOW_CHAIN = Chain(f"{SNAME}.transfer", RC.shallow_cap, SHALLOW_WEIGHT, merge_sign=True)


def _s_state(fmt):
    return RC.gradient_state(fmt, SHALLOW)


def _s_layers(fmt):
    """(gate, top) of the shallow atom at its depth: the normalize layer is gate + 1."""
    gate, top = RC.gradient_layers(fmt, RC.depth(fmt, SHALLOW), SHALLOW)
    if top - gate < 3:
        raise ValueError(f"{fmt.name}: the shallow atom has no chain layer between its normalize layer and its top")
    return gate, top


def _s_slice(fmt, a, b):
    return layer_slice(RC, fmt, a, b, SHALLOW)


def _k_gradient(gR, gK):
    """K's gradient is R's negated (a zero where R's is): (u ⊗ σ'(I)) ⊗ (−c) against
    (u ⊗ σ'(I)) ⊗ c."""
    return gR.is_zero().implies(gK.is_zero()) & (~gR.is_zero()).implies(gK.same(-gR))


def normalize_at_z(fmt):
    """The normalize layer at x = z from the gate's AT_Z, for every upstream into its state
    as the shallow UPS states it (and any finite u_R, u_K): the shallow AT_Z (K = I), R's
    upstream passed through (PASS), the repaired UPS into the gate's state."""
    state, sstate = _state(fmt), _s_state(fmt)
    AT_Z, UPS = _preds(state)[0], _preds(state)[4]
    AT_Z_S, UPS_S = _preds(sstate, SNAME)[0], _preds(sstate, SNAME)[4]
    R = state.index("R")

    def run(s):
        gate, _ = _s_layers(s.fmt)
        return s.run(_s_slice(s.fmt, gate + 1, gate + 2), [s[n] for n in state], [s[u] for u in _ups(sstate)],
                     trace=True)

    def side(s):
        _, grad, (pre, post, up) = run(s)
        return ([PASS.holds(s, u=s.u_R, g=grad[R]), UPS.holds(s, **_ups_but_R(state, grad))] + finite_inside(post, up)
                + finite_pre(pre))
    norm_in = Pred(f"{SNAME}.normalize_in", {**AT_Z.variables, **UPS_S.variables, "u_R": FIN, "u_K": FIN},
                   lambda s: [AT_Z.holds(s), UPS_S.holds(s)], doc="AT_Z and the upstream UPS (shallow), u_R, u_K finite")
    return sequence(f"{SNAME}.normalize", [
        join(f"{SNAME}.normalize_in", [AT_Z, UPS_S], norm_in),
        stage(f"{SNAME}.normalize_at_z", {}, AT_Z_S, lambda s: dict(zip(sstate, run(s)[0])), norm_in, side=side,
              states=[PASS, UPS], premise=[UPS_S])])


def normalize_off(fmt):
    """The normalize layer at x != z from the gate's KILLED, with zero upstreams: the shallow
    KILLED (K = I) and zero gradients."""
    state, sstate = _state(fmt), _s_state(fmt)
    KILLED, KILLED_S = _preds(state)[2], _preds(sstate, SNAME)[2]
    ups = [f"o{i + 1}" for i in range(len(sstate))]

    def run(s):
        gate, _ = _s_layers(s.fmt)
        return s.run(_s_slice(s.fmt, gate + 1, gate + 2), [s[n] for n in state], [s[u] for u in ups], trace=True)

    def side(s):
        _, grad, (pre, post, up) = run(s)
        return [g.is_zero() for g in grad] + finite_inside(post, up) + finite_pre(pre)
    return stage(f"{SNAME}.normalize_off", {u: zero() for u in ups}, KILLED_S, lambda s: dict(zip(sstate, run(s)[0])),
                 KILLED, side=side)


def _s_chain_net(fmt):
    """One shallow chain layer (the state carried, R with weight ``c`` and K's ``n``): the
    atom's first one after the normalize layer, its parameters renamed."""
    from fpsmt.semantics.network import Network
    gate, _ = _s_layers(fmt)
    k = gate + 2
    return Network(fmt, [_s_slice(fmt, k, k + 1).layers[0]]), {f"c{k}": "c", f"n{k}": "n"}


def _s_params(s, c):
    _, rename = _s_chain_net(s.fmt)
    names = {v: k for k, v in rename.items()}
    return {names["c"]: c, names["n"]: -c}


def shallow_chain_at_z(fmt):
    sstate = _s_state(fmt)
    AT_Z_S, AT_Z_RUN_S, _, _, UPS_S = _preds(sstate, SNAME)
    R, K = sstate.index("R"), sstate.index("K")

    def layer(s):
        return s.run(_s_chain_net(s.fmt)[0], [s[n] for n in sstate], [s[u] for u in _ups(sstate)],
                     params=_s_params(s, s.c), trace=True)

    def side(s):
        _, grad, (pre, post, up) = layer(s)
        return ([CHAIN_BACK.holds(s, u=s.u_R, pre=pre[0][R], gR=grad[R]), _k_gradient(grad[R], grad[K]),
                 UPS_S.holds(s, **_ups_but_R(sstate, grad))] + finite_inside(post, up) + finite_pre(pre))
    return induction(
        f"{SNAME}.chain_at_z", AT_Z_RUN_S, "i", 0, CHAIN_MAX,
        stage(f"{SNAME}.chain_at_z.base", {"n": _i}, AT_Z_RUN_S, lambda s: {"i": 0}, AT_Z_S),
        lambda s: dict(zip(sstate, layer(s)[0])), AT_Z_S,
        step_vars={"c": FIN, "u_R": FIN, "u_K": FIN, **UPS_S.variables},
        step_given=lambda s: [SHALLOW_WEIGHT.holds(s), UPS_S.holds(s)], step_side=side, done=lambda s: s.i.eq(s.n),
        doc="the shallow chain layers at x = z", step_premise=[SHALLOW_WEIGHT, UPS_S], step_states=[CHAIN_BACK, UPS_S])


def shallow_chain_killed(fmt):
    sstate = _s_state(fmt)
    _, _, KILLED_S, KILLED_RUN_S, _ = _preds(sstate, SNAME)

    def layer(s, ups):
        return s.run(_s_chain_net(s.fmt)[0], [s[n] for n in sstate], ups, params=_s_params(s, s.c), trace=True)
    return chain_killed_node(SNAME, KILLED_S, KILLED_RUN_S, layer, sstate, "c", CHAIN_MAX, weight_pred=SHALLOW_WEIGHT,
                             pre_finite=True)


def shallow_top_claim(fmt):
    """The top and output layers, from any shallow AT_Z state (a_*) and any shallow KILLED
    state (k_*), for every c in K', w_out in W_OUT and |y| <= H."""
    sstate = _s_state(fmt)
    AT_Z_S, _, KILLED_S, _, UPS_S = _preds(sstate, SNAME)
    R, K = sstate.index("R"), sstate.index("K")
    _, top = _s_layers(fmt)

    def goal(s):
        net = _s_slice(s.fmt, top, top + 2)
        P = {f"c{top}": s.c, f"n{top}": -s.c, "w_out": s.w, "mw_out": -s.w}
        out = []
        for prefix, live in (("a_", True), ("k_", False)):
            o, grad, trace = s.run(net, [s[prefix + n] for n in sstate], [s.y], params=P, trace=True)
            pre, post, up = trace
            t1, t2 = s.row_terms(net, 1, "forward", post[0], P)
            out += [o[0].is_zero(), (t1 + t2).is_zero()] + finite_inside(post, up) + finite_pre(pre[:1])
            if live:
                out += [CHAIN_BACK.holds(s, u=s.y * s.w, pre=pre[0][0], gR=grad[R]), _k_gradient(grad[R], grad[K]),
                        UPS_S.holds(s, **_ups_but_R(sstate, grad))]
            else:
                out += [g.is_zero() for g in grad]
        return out

    def given(s):
        return [SHALLOW_WEIGHT.holds(s), W_OUT.holds(s), AT_Z_S.holds(s, **{n: s["a_" + n] for n in sstate}),
                KILLED_S.holds(s, **{n: s["k_" + n] for n in sstate})]
    states = {p + n: Float() for p in ("a_", "k_") for n in sstate}
    return forall(f"{SNAME}.top", {"c": FIN, **W_OUT.variables, "y": within(H), **states}, goal=goal, given=given)


def shallow_transfer(fmt):
    """The transfer h → ±1 → t with the cap 2^(e_max − 2 − a) and ±m_g one weight, this
    family's target stage."""
    return transfer_tree(fmt, target_stage(fmt, f"{SNAME}.transfer.target", lambda s: RC.path_params(s, s.g)[1],
                                           REACHES, lambda s: {"wx": RC.path_params(s, s.g)[0]}, chain=SHALLOW_CHAIN),
                         chain=SHALLOW_CHAIN)


def shallow_tree(fmt):
    sstate = _s_state(fmt)
    AT_Z_S, _, KILLED_S, _, UPS_S = _preds(sstate, SNAME)
    top = Node("stage", f"{SNAME}.top", shallow_top_claim(fmt),
               uses={"hypothesis": W_OUT, "premise": [W_OUT, SHALLOW_WEIGHT, AT_Z_S, KILLED_S],
                     "side": [CHAIN_BACK, UPS_S]})
    backward = sequence(f"{NAME}.backward", [chain_grad_node(NAME, CHAIN_BACK, RC.hidden, CHAIN_MAX), pass_grad(fmt),
                                             join(f"{NAME}.backward.g", [GRAD_IS_P, REACHES, GATE_BACK], AT_Z_GRAD)])
    return Node("lemma", NAME, None, [gate_at_z(fmt), gate_off(fmt), normalize_at_z(fmt), normalize_off(fmt),
                                      shallow_chain_at_z(fmt), shallow_chain_killed(fmt), top, shallow_transfer(fmt), padding(fmt),
                                      one_fact(fmt), cong_fact(fmt), backward])


def shallow(fmt):
    return shallow_tree(fmt), (
        f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite g != 0 and "
        "every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for bit); elsewhere D^AD(y) = ±0; the two "
        "output terms sum to a zero, D^AD's first-layer terms are zeros but the path's (D^AD itself) at z, zeros "
        f"elsewhere; every hidden value and gradient finite; depth {RC.depth(fmt, SHALLOW)}{padded_gradient()} (the "
        "repaired atom's "
        f"network: {RC.depth(fmt)}): chain layers c ⊗ R ⊕ (-c) ⊗ K ⊕ ... ⊕ I with K = I, weights in [-2, 0) ∪ "
        f"(0, 2^{RC.shallow_cap(fmt)}]; proved as a tree: the gate, the normalize layer at x = z and at x != z, "
        "inductions over the chain layers at x = z and at x != z, the top, the multiplication transfer to the "
        "path's target, and the backward chain's product against the transfer's")


#: the atom as one claim about its whole block (at the theorem's depth), for any semantics profile
WHOLE = gradient_whole("rect_gradient_atom", RC, X, H, xdesc)

LEMMA = Lemma("rect_gradient_atom", "Lemma 3.5's atom for a rectifying σ (GELU, Swish, ELU; reconstructed)",
              {"repaired": repaired, "shallow": shallow}, formats=formats, order=650, family="rectifying",
              construction=True, whole=WHOLE)
