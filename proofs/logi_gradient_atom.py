"""Gradient atom of the ``logistic`` family (fpsmt.constructions.logistic.gradient_atom), at
the depth the theorem's network uses: value ±0 on X; at x = z, D^AD(h) = g; elsewhere
D^AD(y) = ±0 (0 < |h| <= H, |y| <= H, g finite nonzero that one atom reaches at z: w_x ⊗ z
finite — every other g* is split over three atoms, logi_gradient_split).  The network
(``logistic.gradient_network``): the gate — layers 0 … s, the step indicators and then np
beside the path r0 = σ(w_x ⊗ x ⊖ w_x ⊗ z), r = σ(4 ⊗ r ⊖ 2) — then one chain layer (np
carried, r = σ(c ⊗ r ⊖ c ⊗ 1/2)) per chain weight before the top, the gated top
σ(−G ⊗ np ⊕ c ⊗ r ⊖ c ⊗ 1/2) with N = σ(−G ⊗ np), and the output 4 ⊗ top ⊕ (−4) ⊗ N.
At x = z every path neuron has pre-activation a zero, value 1/2 and σ' = 1/4 (R.zero).

Proved as a tree (fpsmt.proof.tree); every stage's network is a run of whole layers of the
atom (tests/test_logistic.py compares them term for term), as for the saturating family's
gradient atom:

* ``gate_at_z`` (over z, g that one atom reaches, and every finite upstream (u_np, u_r)):
  (np, r) = (a zero, 1/2); the path's gradient at its layer-0 pre-activation is
  T = PATH₀(u_r) = ((u_r ⊗ 1/4) ⊗ 4) … ⊗ 1/4 (the gate's s layers of weight 4; both zeros
  where it is a zero) and D^AD(x) = T ⊗ w_x where that is not a zero (GATE_BACK: D^AD(x) is
  stated through the network's own product T ⊗ w_x, so that no solver has to show two
  multiplier circuits equal; the join ``backward.g`` gets PATH(u_r) = PATH₀(u_r) ⊗ w_x from
  it with the congruence ``cong1``); the step rows' first-layer terms are zeros and the
  path's is D^AD's; every hidden value and gradient is finite where T ⊗ w_x is (the
  transfer makes it g).  ``gate_off`` (x != z, with
  the zero upstreams the killed chain gives): (np, r) = (1, r in [0, 1]), every gradient a
  zero.  Every hidden value and gradient is finite.  In formats of at least 16 bits
  (``GATE_SPLIT_FROM_BITS``) ``gate_at_z`` is split as the rectifying family's
  ``lower_at_z`` (:func:`gate_at_z_nodes`): layer 0's pre-activations at x = z are powers
  of two from D on (and the path's +0), the gate is enumerated from them, and the link is
  the backward pass with σ uninterpreted.  In formats of at least
  ``rect_value_atom.SPLIT_FROM_BITS`` (17) bits ``gate_off`` is a stage per step layer
  through the sides' intervals (:func:`gate_off_nodes`).
* ``chain_at_z`` and ``chain_killed``: inductions over the chain layers (weights c = 4 ⊗ w,
  w in K): (a zero, 1/2) stays, the path's gradient is (u_r ⊗ σ'(pre)) ⊗ c with pre a zero
  (CHAIN_BACK); (1, r in [0, 1]) stays and zero upstreams give zeros.
* ``top``: the top and output layers for c = 4 ⊗ w_out (w_out in W_OUT) and every |y| <= H.
* the transfer, the logistic chain's own stages (as proofs/multiplication_transfer.py's, each
  product being (p ⊗ 1/4) ⊗ 4w) by LG.route: ``scale`` (h ⊗ 4 → ±[1, 2)) and
  ``significand`` (→ ±1, enumerated) up to float32, ``quarter`` (h ⊗ 4 → ±1 through ±ω
  or ±2ω) beyond; then ``target`` (±1 → t with PATH(t) = g, the weights from g);
* the facts ``quarter`` (σ'(pre) = 1/4 for pre a zero) and ``cong2`` (a = b and c = d give
  (a ⊗ c) ⊗ e = (b ⊗ d) ⊗ e, decided with ⊗ uninterpreted) and ``cong1`` (a = b gives
  a ⊗ e = b ⊗ e, likewise), the induction ``chain_grad`` (the gradient along r is the
  transfer's partial product), and the join with the gate: D^AD = T ⊗ w_x = PATH(G) = g
  at x = z (with an instance of ``cong1``).

For the theorem's join the stages state: the output row's two terms sum to a zero; D^AD's
first-layer terms are zeros but the path's, which is D^AD (so g at x = z with upstream
h), and all zeros elsewhere; every hidden value and gradient is finite.  What is the
code's, tested: the atom's layers are these stages' in this order, its chain weights 4·w
for the transfer's weights w (top first: 4·w_out), and above the least depth weights 4
(w = 1, bias −2) between the transfer's last weight and the gate, which ``padding`` covers
(an induction over any number: (t ⊗ 1/4) ⊗ 4 keeps PATH(t) = g, by the fact ``pad_q``).

The ``shallow`` variant (``logistic.gradient_atom(..., variant="shallow")``): the same
layers, fewer chain layers — the transfer's weights w up to 2^(e_max − 2)
(``logistic.shallow_cap``: every network weight 4w finite) and ±m_g one weight.  Its tree
is this one with ``shallow.chain_at_z`` and ``shallow.chain_killed`` over w in
[−2, 0) ∪ (0, 2^(e_max − 2)] (:data:`SHALLOW_WEIGHT`) and the transfer's stages with that
cap (:data:`SHALLOW_TRANSFER`); the gate, the top (its weight 4 ⊗ w_out) and the backward
chain are the same claims."""

import functools
from fractions import Fraction

from fpsmt.constructions import logistic as LG
from fpsmt.constructions import relu as R
from fpsmt.constructions.registry import show_bound
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, fact, induction, join, sequence, stage
from fpsmt.proofs.common import family_gradient_whole, finite_inside, zero
from fpsmt.proofs.gradient_atom import GRAD_IS_P
from fpsmt.proofs.logi_common import TITLE, H, X, formats, xdesc
from fpsmt.proofs.multiplication_transfer import CHAIN_WEIGHT, SIGNIFICAND, UNIT, UNITS, W_OUT
from fpsmt.proofs import rect_value_atom as V
from fpsmt.proofs.sat_common import (chain_back_at_zero, chain_killed_node, gate_off_stage, layer_slice,
                                     reaches_padding_node, within)
from fpsmt.semantics.formats import floor_log2

NAME = "logi_gradient_atom"
X_DOM = X()
FIN = Float(finite=True)
NONZERO = Float(finite=True, nonzero=True)
UNIT01 = Float(range=(lambda f: f.hex(f.round(0)), lambda f: f.hex(f.round(1))))
CHAIN_MAX = 1 << 12
_i = Int(0, CHAIN_MAX)


def _q(s):
    return s.lift(Fraction(1, 4))


#: one backward step of the chain as the transfer states it: (p ⊗ 1/4) ⊗ (4 ⊗ w)
_step = LG.chain_step


def path0(s, u):
    """PATH₀(u): the gate's backward product at x = z down to the path's layer-0
    pre-activation, ((u ⊗ 1/4) ⊗ 4) per gate layer, then ⊗ 1/4."""
    gate, _ = LG.gradient_layers(s.fmt, LG.depth(s.fmt))
    for _ in range(gate):
        u = (u * _q(s)) * s.const(4)
    return u * _q(s)


def path(s, u, g):
    """PATH(u) = PATH₀(u) ⊗ w_x (w_x from g): D^AD's path term at x = z."""
    w_x, _ = LG.input_weight(s, g)
    return path0(s, u) * w_x


def _slice(fmt, a, b, variant=None):
    return layer_slice(LG, fmt, a, b, variant)


def _half(s):
    return s.lift(Fraction(1, 2))


AT_Z = Pred(f"{NAME}.at_z", {"np": Float(), "r": Float()}, lambda s: [s.np.is_zero(), s.r.same(_half(s))],
            doc="(np, r) = (a zero, 1/2)")
AT_Z_RUN = Pred(f"{NAME}.chain_at_z", {**AT_Z.variables, "i": _i, "n": _i}, lambda s: [s.i <= s.n, AT_Z.holds(s)],
                doc="after i of the n chain layers: (a zero, 1/2)")
KILLED = Pred(f"{NAME}.killed", {"np": Float(), "r": Float()},
              lambda s: [s.np.same(1), (s.r >= 0) & (s.r <= 1)], doc="(np, r) = (1, r in [0, 1])")
KILLED_RUN = Pred(f"{NAME}.chain_killed", {**KILLED.variables, "i": _i, "n": _i},
                  lambda s: [s.i <= s.n, KILLED.holds(s)], doc="after i of the n chain layers: still killed")
REACH_Z = Pred(f"{NAME}.reached", {"z": X_DOM, "g": NONZERO}, lambda s: LG.reached(s, s.z, s.g),
               doc="one atom reaches g at z (w_x ⊗ z finite)")
OFF = Pred(f"{NAME}.off", {"z": X_DOM, "x": X_DOM, "g": NONZERO},
           lambda s: [~s.x.eq(s.z), LG.reached(s, s.z, s.g)], doc="x != z, and one atom reaches g at z")
def _gate_back(s):
    p, t = path0(s, s.G), s.T * LG.input_weight(s, s.g)[0]
    return [s.T.same(p) | (s.T.is_zero() & p.is_zero()), (~t.is_zero()).implies(s.D.same(t))]


#: the gate's backward pass at x = z: the path's gradient at its layer-0 pre-activation is
#: T = PATH₀(G), and D^AD(x) = T ⊗ w_x (= PATH(G)) where that is not a zero.  Stated through
#: T, so that the stage that proves it compares the network's product T ⊗ w_x with itself,
#: not with a second multiplier circuit fed by PATH₀(G) (an equality the solver would have
#: to find inside two multipliers); the join that uses it sees T = PATH₀(G) and substitutes
GATE_BACK = Pred(f"{NAME}.gate_back", {"G": Float(), "g": NONZERO, "T": Float(), "D": Float()}, _gate_back,
                 doc="T = PATH₀(G) (both zeros, of any signs, where it is a zero) and D = T ⊗ w_x where that is "
                     "nonzero: so D = PATH(G) where that is nonzero (the join backward.g, with cong1)")
#: the transfer's guarantee: the chain's product ``out`` meets the gate's PATH at g
REACHES = Pred(f"{NAME}.reaches_g", {"g": NONZERO, "out": Float()},
               lambda s: [path(s, s.out, s.g).same(s.g), s.out.is_finite(), ~s.out.is_zero()],
               doc="PATH(out) = g, out finite and nonzero")
AT_Z_GRAD = Pred(f"{NAME}.grad_at_z", {"D": Float(), "g": NONZERO}, lambda s: s.D.same(s.g), doc="D^AD = g")


#: a chain layer's backward step, as AD takes it
CHAIN_BACK = chain_back_at_zero(NAME, LG.hidden)


def _gate_run(s, x, ups):
    gate, _ = LG.gradient_layers(s.fmt, LG.depth(s.fmt))
    net = _slice(s.fmt, 0, gate + 1)
    w_x, _ = LG.input_weight(s, s.g)
    P = {**LG.both_params(s, s.z), "wx": w_x, "bx": -(w_x * s.z)}
    return net, P, s.run(net, [x], ups, params=P, trace=True)


def _gate_side(s, run):
    """The path's layer-0 gradient T is PATH₀(u_r), and D^AD(x) = T ⊗ w_x (= PATH(u_r))
    where that is nonzero, and so is the path's first-layer term (GATE_BACK); the step
    rows' terms zeros; every hidden value and gradient finite where the path's term T ⊗ w_x
    is (PATH(u_r): the chain's product meets the gate with PATH = g, the transfer)."""
    net, P, (_, grad, trace) = run
    terms = s.input_terms(net, P, trace)
    T = s.first_grads(net, trace)[-1]
    fin = terms[-1].is_finite()
    return ([GATE_BACK.holds(s, G=s.ur, T=T, D=grad[0]), GATE_BACK.holds(s, G=s.ur, T=T, D=terms[-1])]
            + [t.is_zero() for t in terms[:-1]]
            + [fin.implies(c) for c in finite_inside(*trace[1:3]) + [g.is_finite() for g in grad]])


#: the gate at x = z is split (:func:`gate_at_z_nodes`) from this many bits: as one stage it
#: gave no answer in bfloat16 within 300 s (z3, cvc5, bitwuzla-bv)
GATE_SPLIT_FROM_BITS = 16


def gate_at_z(fmt):
    """The gate at x = z: one stage over z, g and the upstreams, or in formats of at least
    GATE_SPLIT_FROM_BITS bits (or ``rect_value_atom.SPLIT_FROM_BITS``, which tests lower
    to force the split in an 8-bit format) the split of :func:`gate_at_z_nodes`."""
    if fmt.nbits >= min(GATE_SPLIT_FROM_BITS, V.SPLIT_FROM_BITS):
        return sequence(f"{NAME}.gate_at_z_split", gate_at_z_nodes(fmt))
    return stage(f"{NAME}.gate_at_z", {"up": FIN, "ur": FIN}, AT_Z,
                 lambda s: dict(zip(("np", "r"), _gate_run(s, s.z, [s.up, s.ur])[2][0])), REACH_Z,
                 side=lambda s: _gate_side(s, _gate_run(s, s.z, [s.up, s.ur])), states=[GATE_BACK])


def _least_margin_exponent(f):
    return floor_log2(f.to_fraction(LG.least_margin(f)))


#: layer 0's pre-activations at x = z: the steps' w ⊗ z ⊖ w ⊗ z⁻ and w' ⊗ z⁺ ⊖ w' ⊗ z (w a power
#: of two, z⁻ and z neighbours: w·(z − z⁻), which is D where z − z⁻ < D and z − z⁻ itself
#: otherwise — a power of two from D to the spacing at the top of the format), and the
#: path's w_x ⊗ z ⊖ w_x ⊗ z = +0
_SPACING = V.pow2_in(_least_margin_exponent, lambda f: f.e_max - 1 - f.M)
_P = {"p0": _SPACING, "p1": _SPACING, "p2": Float(range=(0, 0), sign="+")}


#: the steps' first-layer weights w(z) and w(−z) (``logistic.first_weight``: D ⊘ (z − z⁻) or 1,
#: a power of two up to 2^e_max), named so that the link's first-layer terms do not divide
_WEIGHT = V.pow2_in(lambda f: 0, lambda f: f.e_max)
_W = {"w0": _WEIGHT, "w1": _WEIGHT}


def _weights0(s):
    """(w(z), w(−z)): the step rows' first-layer weights are w0 and −w1."""
    both = LG.both_params(s, s.z)
    return both["ge_w"], -both["le_w"]


def _pre0(s):
    """Layer 0's pre-activations (ge, le, r) at x = z."""
    return _gate_run(s, s.z, [s.const(0)] * 2)[2][2][0][0]


def _gate_pre(s, pre, ups, weights):
    """The gate from layer 0's pre-activations ``pre`` (ge, le, r) in place of their sums
    (:meth:`Scope.run` ``given_pre``): the input and the biases then enter only D^AD's
    first-layer terms, through ``weights`` (ge's, le's, the path's)."""
    gate, _ = LG.gradient_layers(s.fmt, LG.depth(s.fmt))
    net = _slice(s.fmt, 0, gate + 1)
    zero_ = s.const(0)
    P = {"ge_w": weights[0], "le_w": weights[1], "wx": weights[2], "ge_b": zero_, "le_b": zero_, "bx": zero_}
    return net, P, s.run(net, [zero_], ups, params=P, trace=True, given_pre={0: list(pre)})


def _lamp(s):
    """From p = (p0, p1, +0) with zero upstreams: (np, r) = (a zero, 1/2); the step rows'
    first-layer terms zeros (weights 1, −1); every hidden value and gradient finite; and
    the σ' values the backward pass needs: a zero at np's pre-activation (saturated),
    finite at the step rows', 1/4 at the path's (every one a zero)."""
    net, P, (out, grad, trace) = _gate_pre(s, [s[p] for p in _P], [s.o_np, s.o_r],
                                          (s.const(1), s.const(-1), s.const(1)))
    pre = trace[0]
    act = LG.hidden()
    d = lambda t: s.sigma_prime(act, t)  # noqa: E731
    terms = s.input_terms(net, P, trace)
    return ([AT_Z.holds(s, np=out[0], r=out[1])] + [t.is_zero() for t in terms[:-1]]
            + [g.is_finite() for g in grad] + finite_inside(*trace[1:3])
            + [d(pre[-1][0]).is_zero()]
            + [d(q).is_finite() for layer in pre[:-1] for q in layer[:2]]
            + [d(layer[-1]).same(_q(s)) for layer in pre])


_ZUPS = {"o_np": zero(), "o_r": zero()}
LSPACING = Pred(f"{NAME}.lower_spacing", {"z": X_DOM, "g": NONZERO, **_P, **_W},
                lambda s: ([LG.reached(s, s.z, s.g)] + [q.same(s[p]) for q, p in zip(_pre0(s), _P)]
                           + [w.same(s[n]) for w, n in zip(_weights0(s), _W)]),
                doc="one atom reaches g at z; layer 0's pre-activations at x = z are p0 = w ⊗ z ⊖ w ⊗ z⁻ and "
                    "p1 = w' ⊗ z⁺ ⊖ w' ⊗ z, powers of two from D on, and p2 = +0 (the path's); the step rows' "
                    "weights are w0 = w and −w1 = −w', powers of two")
LAMP = Pred(f"{NAME}.lower_amp", {**_P, **_ZUPS}, _lamp,
            doc="from layer 0's pre-activations p = (2^kg, 2^kl, +0), for zero upstreams: (np, r) = (a zero, "
                "1/2), the step rows' first-layer terms zeros, every hidden value and gradient finite; σ' a zero "
                "at np's pre-activation, finite at the step rows', 1/4 at the path's")
#: what the link uses of LSPACING and LAMP: LAMP, for every nonzero g (w_x is g's) and every
#: p and w of their domains (powers of two) — z is not in it, nor how p and w come from z
LFIRST = Pred(f"{NAME}.lower_first", {**_P, **_W, "g": NONZERO, **_ZUPS}, lambda s: [LAMP.holds(s)],
              doc="LAMP, for g nonzero and the step rows' weights w0, −w1 powers of two")


def gate_at_z_nodes(fmt):
    """The gate at x = z as the rectifying family's ``lower_at_z`` split: ``lower_spacing``
    (no σ: layer 0's pre-activations at x = z are p0, p1, powers of two from D on, and the
    path's +0), ``lower_amp`` (the gate from p for zero upstreams, by enumeration over
    every pair of powers of two; it also states the σ' values the backward pass needs),
    their join ``lower_first``, and ``gate_at_z``: the gate from p (:meth:`Scope.run`
    ``given_pre``) with the step rows' weights ``lower_spacing`` names (w0, −w1: no
    division left in the link) and g's w_x, for every finite upstream (u_np, u_r).  Its
    forward run is ``lower_amp``'s, term for term, so what is left to the solver is the
    backward pass, decided with σ and σ' uninterpreted (so for every σ with those σ'
    values).  The link's hypothesis is what it uses (``lower_first``: LAMP, with g and the
    weights free in their domains), not how p and w come from z: with LSPACING in it too
    (z, its neighbours and the division D ⊘ (z − z⁻)) bitwuzla proved the float32 link in
    about 560 s and z3, cvc5 and bitwuzla-bv gave no answer in 1300–1500 s; with this
    hypothesis alone still none in 600 s.  What made it hard was GATE_BACK stated as
    D^AD(x) = PATH(u_r): two multipliers by w_x fed by equal but different terms; stated
    through T (GATE_BACK), bitwuzla proves it in about 6 s.  That the
    run from layer 0's own pre-activations is the run at z is the code's (a test
    compares the terms).  As one stage over (z, g, u_np, u_r) it gave no answer in
    float32 within 600 s."""
    spacing = stage(f"{NAME}.lower_spacing", {}, LSPACING,
                    lambda s: {**dict(zip(_P, _pre0(s))), **dict(zip(_W, _weights0(s)))}, REACH_Z)
    amp = stage(f"{NAME}.lower_amp", dict(LAMP.variables), LAMP, lambda s: {}, enumerate=True)
    first = join(f"{NAME}.lower_first", [LSPACING, LAMP], LFIRST)

    def run(s):
        w_x, _ = LG.input_weight(s, s.g)
        return _gate_pre(s, [s[p] for p in _P], [s.up, s.ur], (s.w0, -s.w1, w_x))
    link = stage(f"{NAME}.gate_at_z", {"up": FIN, "ur": FIN}, AT_Z, lambda s: dict(zip(("np", "r"), run(s)[2][0])),
                 LFIRST, side=lambda s: _gate_side(s, run(s)), states=[GATE_BACK], uninterpreted=("act",))
    return [spacing, amp, first, link]


def gate_off(fmt):
    """The gate at x != z: one stage, or in formats of at least
    ``rect_value_atom.SPLIT_FROM_BITS`` bits a stage per layer (:func:`gate_off_nodes`)."""
    if fmt.nbits >= V.SPLIT_FROM_BITS:
        return sequence(f"{NAME}.gate_off", gate_off_nodes(fmt))
    return gate_off_stage(NAME, _gate_run, KILLED, OFF, ("np", "r"))


@functools.lru_cache(maxsize=None)
def off_intervals(fmt_name, act):
    """For x != z, layer by layer of the step indicators: ((A_lo, A_hi), (B_lo, B_hi)) of
    each layer's pre-activations and of its outputs (A: the indicator whose first layer sees
    x on its side of z, pre-activation >= D, up to +∞ where w ⊗ x overflows; B: the other,
    pre-activation <= 0).  A separation layer σ(K ⊗ a ⊕ b) maps each side's interval
    through its ends (⊗, ⊕ and σ are non-decreasing: R.monotone); the outputs' bounds are
    σ's image of the pre-activations' (``rect_value_atom._image``).  The stages that use
    these intervals check them."""
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(fmt_name)
    c = LG.block_constants(fmt, act)
    rnd = lambda q: fmt.to_fraction(fmt.round(q))  # noqa: E731
    top = fmt.to_fraction(fmt.max_bits)
    D = fmt.to_fraction(c.D)
    pre = ((D, top), (-top, Fraction(0)))
    post = tuple(V._image(fmt, lo, hi, act) for lo, hi in pre)
    post = ((post[0][0], Fraction(1)), (Fraction(0), post[1][1]))  # σ(±∞) is 1 or +0: the range's ends
    out = [(pre, post)]
    K = Fraction(2) ** fmt.e_max
    for cb in c.stages:
        b = rnd(-K * fmt.to_fraction(cb))
        pre = tuple((rnd(rnd(K * lo) + b), rnd(rnd(K * hi) + b)) for lo, hi in post)
        post = tuple(V._image(fmt, lo, hi, act) for lo, hi in pre)
        out.append((pre, post))
    return tuple(out)


def _box(s, v, iv):
    lo, hi = iv
    return (v >= s.const(lo)) & (v <= s.const(hi))


@functools.lru_cache(maxsize=None)
def _off_pred(j):
    """OFF_j: after step layer j for x != z, one of (ge, le) in A_j and the other in B_j
    (:func:`off_intervals`), the path r in [0, 1]."""
    def fn(s):
        (_, (A, B)) = off_intervals(s.fmt.name, LG.hidden())[j]
        pair = (_box(s, s.ge, A) & _box(s, s.le, B)) | (_box(s, s.ge, B) & _box(s, s.le, A))
        return [pair, (s.r >= 0) & (s.r <= 1)]
    return Pred(f"{NAME}.off_{j}", {"ge": Float(), "le": Float(), "r": Float()}, fn,
                doc=f"after step layer {j}, x != z: one of ge, le in A_{j}, the other in B_{j}; r in [0, 1]")


def _off_anchors(j, last=False):
    """The ends of layer j's pre-activation intervals (where σ's lazy encoding is bounded
    from the start), and ±2 (the path's pre-activation 4 ⊗ r ⊖ 2 for r in [0, 1])."""
    def at(fmt):
        pts = {fmt.round(2), fmt.round(-2)}
        if not last:
            (pre, _) = off_intervals(fmt.name, LG.hidden())[j]
            pts |= {fmt.round(q) for iv in pre for q in iv}
        return sorted(pts)
    return at


def gate_off_nodes(fmt):
    """The gate at x != z in formats of at least SPLIT_FROM_BITS bits, a stage per layer,
    each for the zero upstreams the killed chain gives: ``off_layer_0`` takes (z, x, g)
    with x != z to OFF_0 (D^AD(x) and every first-layer term zeros), ``off_layer_j`` takes
    OFF_(j−1) to OFF_j (the separation layers, the path beside them), ``kill_off`` the
    last step layer's OFF to KILLED (np = 1, r in [0, 1]); every gradient into a stage's
    inputs a zero, every hidden value and gradient finite.  Each stage's claim is anchored
    at its intervals' ends.  As one stage over (z, x, g) it gave no answer in float32
    within 300 s (z3)."""
    gate, _ = LG.gradient_layers(fmt, LG.depth(fmt))
    names = ("ge", "le", "r")
    zs = {"o1": zero(), "o2": zero(), "o3": zero()}

    def layer(s, j, ups, outs=3):
        net = _slice(s.fmt, j, j + 1)
        if j == 0:
            w_x, _ = LG.input_weight(s, s.g)
            P = {**LG.both_params(s, s.z), "wx": w_x, "bx": -(w_x * s.z)}
            return net, P, s.run(net, [s.x], ups, params=P, trace=True)
        return net, {}, s.run(net, [s[n] for n in names], ups, params={}, trace=True)

    def side(s, j, ups):
        net, P, (_, grad, trace) = layer(s, j, ups)
        if j == 0:
            return [grad[0].is_zero()] + [t.is_zero() for t in s.input_terms(net, P, trace)] + \
                finite_inside(*trace[1:3])
        return [g.is_zero() for g in grad] + finite_inside(*trace[1:3])
    ups3 = lambda s: [s.o1, s.o2, s.o3]  # noqa: E731
    nodes = []
    for j in range(gate):
        nodes.append(stage(f"{NAME}.off_layer_{j}", dict(zs), _off_pred(j),
                           lambda s, j=j: dict(zip(names, layer(s, j, ups3(s))[2][0])),
                           OFF if j == 0 else _off_pred(j - 1), side=lambda s, j=j: side(s, j, ups3(s)),
                           anchors=_off_anchors(j)))
    ups2 = lambda s: [s.o1, s.o2]  # noqa: E731
    nodes.append(stage(f"{NAME}.kill_off", {"o1": zero(), "o2": zero()}, KILLED,
                       lambda s: dict(zip(("np", "r"), layer(s, gate, ups2(s))[2][0])), _off_pred(gate - 1),
                       side=lambda s: side(s, gate, ups2(s)), anchors=_off_anchors(gate, last=True)))
    return nodes


def _chain_net(fmt):
    """One chain layer as the atom has it (np carried, the path neuron with ``c``, ``bc``)."""
    from fpsmt.semantics.network import Network
    gate, top = LG.gradient_layers(fmt, LG.depth(fmt))
    if top - gate < 2:
        raise ValueError(f"{fmt.name}: the atom has no chain layer between its gate and its top")
    layer = _slice(fmt, gate + 1, gate + 2).layers[0]
    return Network(fmt, [layer]), {f"c{gate + 1}": "c", f"bc{gate + 1}": "bc"}


def _chain_params(s):
    c = s.const(4) * s.w
    _, rename = _chain_net(s.fmt)
    names = {v: k for k, v in rename.items()}
    return c, {names["c"]: c, names["bc"]: -(c * _half(s))}


def chain_at_z(fmt, name=NAME, weight=CHAIN_WEIGHT):
    """The chain layers at x = z, by induction (each with its own w, network weight 4w;
    ``weight`` holds of w: CHAIN_WEIGHT, or the shallow chain's :data:`SHALLOW_WEIGHT`)."""
    def layer(s):
        net, _ = _chain_net(s.fmt)
        c, P = _chain_params(s)
        return c, s.run(net, [s.np, s.r], [s.up, s.ur], params=P, trace=True)

    def side(s):
        c, (_, grad, (pre, post, up)) = layer(s)
        return [CHAIN_BACK.holds(s, u=s.ur, pre=pre[0][1], c=c, gR=grad[1]), grad[0].is_finite()] \
            + finite_inside(post, up)
    return induction(
        f"{name}.chain_at_z", AT_Z_RUN, "i", 0, CHAIN_MAX,
        stage(f"{name}.chain_at_z.base", {"n": _i}, AT_Z_RUN, lambda s: {"i": 0}, AT_Z),
        lambda s: dict(zip(("np", "r"), layer(s)[1][0])), AT_Z,
        step_vars={"w": FIN, "up": FIN, "ur": FIN}, step_given=lambda s: weight.holds(s, c=s.w),
        step_side=side, done=lambda s: s.i.eq(s.n), doc="the chain layers at x = z", step_premise=[weight],
        step_states=[CHAIN_BACK])


def chain_killed(fmt, name=NAME, weight=CHAIN_WEIGHT):
    def layer(s, ups):
        return s.run(_chain_net(s.fmt)[0], [s.np, s.r], ups, params=_chain_params(s)[1], trace=True)
    return chain_killed_node(name, KILLED, KILLED_RUN, layer, ("np", "r"), "w", CHAIN_MAX, weight_pred=weight)


def top_claim(fmt, variant=None):
    """The top and output layers (the top's weight 4 ⊗ w_out, w_out in W_OUT, in both
    variants: the same claim at the shallow atom's top)."""
    kw = {} if variant is None else {"variant": variant}
    _, top = LG.gradient_layers(fmt, LG.depth(fmt, **kw), **kw)

    def goal(s):
        net = _slice(s.fmt, top, top + 2, variant)
        c = s.const(4) * s.w
        P = {f"c{top}": c, f"bc{top}": -(c * _half(s))}
        out = []
        for ins, live in (([s.z0, _half(s)], True), ([1, s.r], False)):
            o, grad, trace = s.run(net, ins, [s.y], params=P, trace=True)
            pre, post, up = trace
            t1, t2 = s.row_terms(net, 1, "forward", post[0], P)
            out += [o[0].is_zero(), (t1 + t2).is_zero()] + finite_inside(post, up)
            if live:
                out += [CHAIN_BACK.holds(s, u=s.y * LG.W_OUT, pre=pre[0][0], c=c, gR=grad[1]), grad[0].is_finite()]
            else:
                out += [g.is_zero() for g in grad]
        return out
    return forall(f"{NAME}.top", {**W_OUT.variables, "y": within(H), "z0": zero(), "r": UNIT01},
                  goal=goal, given=lambda s: W_OUT.holds(s))


# ------------------------------------------------------------------ the logistic chain's transfer
LH = Pred(f"{NAME}.transfer.h", {"h": within(H, nonzero=True)}, lambda s: s.true(), doc="0 < |h| <= H")
#: a weight w of the shallow atom's transfer (its network weight is 4w): in
#: [−2, 0) ∪ (0, 2^(e_max − 2)] (fpsmt.constructions.logistic.shallow_cap; its sign and g's
#: significand are one weight ±m_g)
SHALLOW_WEIGHT = Pred(f"{NAME}.shallow_weight", {"c": Float(finite=True)},
                      lambda s: ((s.c >= -2) & (s.c < 0)) | ((s.c > 0) & (s.c <= s.int_pow2(LG.shallow_cap(s.fmt)))),
                      doc="c in [-2, 0) ∪ (0, 2^(e_max - 2)]")


class Transfer:
    """Which transfer a tree's stages are for: their name prefix, the weights' predicate,
    ``variant`` (logistic.chain's: the shallow one has the cap 2^(e_max − 2) and ±m_g one
    weight)."""

    def __init__(self, prefix, weight, variant=None):
        self.prefix, self.weight, self.variant = prefix, weight, variant

    def q(self, fmt):
        return LG.shallow_cap(fmt) if self.variant else None

    def target(self, sgn, m):
        return [sgn * m] if self.variant else [sgn, m]


REPAIRED_TRANSFER = Transfer(f"{NAME}.transfer", CHAIN_WEIGHT)
SHALLOW_TRANSFER = Transfer(f"{NAME}.shallow.transfer", SHALLOW_WEIGHT, "shallow")


def _chain(s, p, ws):
    partial = []
    for w in ws:
        p = _step(s, p, w)
        partial.append(p)
    return p, partial


def _normalized(s, tr):
    return LG.normalize_weights(s, s.h * LG.W_OUT, tr.q(s.fmt))


def _nonzero(ps):
    return [p.is_finite() & ~p.is_zero() for p in ps]


def scale_stage(fmt, tr=REPAIRED_TRANSFER):
    """h ⊗ 4, then (⊗ 1/4, ⊗ 4w) per weight w_out, ups: lands in ±[1, 2)."""
    def run(s):
        w_out, mids = _normalized(s, tr)
        return w_out, mids[:-2], _chain(s, s.h * LG.W_OUT, [w_out] + mids[:-2])

    def side(s):
        w_out, ups, (_, partial) = run(s)
        return [W_OUT.holds(s, w=w_out)] + [tr.weight.holds(s, c=w) for w in ups] + _nonzero(partial)
    return stage(f"{tr.prefix}.scale", {}, SIGNIFICAND, lambda s: {"v": run(s)[2][0]}, LH, side=side,
                 states=[W_OUT, tr.weight])


def significand_stage(fmt, tr=REPAIRED_TRANSFER):
    """(v ⊗ 1/4 ⊗ 4a) ⊗ 1/4 ⊗ 4b = ±1 for every v in ±[1, 2) (decided by enumeration)."""
    def run(s):
        a, b = R.significand_weights(s, abs(s.v))
        return a, b, _chain(s, s.v, [a, b])

    def side(s):
        a, b, (_, partial) = run(s)
        return [tr.weight.holds(s, c=a), tr.weight.holds(s, c=b)] + _nonzero(partial)
    return stage(f"{tr.prefix}.significand", {}, UNIT, lambda s: {"t": run(s)[2][0]}, SIGNIFICAND, side=side,
                 enumerate=True, states=[tr.weight])


def quarter_stage(fmt, tr=REPAIRED_TRANSFER):
    """The quarter route (float64): h ⊗ 4, then (⊗ 1/4, ⊗ 4w) per weight w_out, down, ups
    lands on ±1, the one rounding (into ±[4ω, 8ω]) followed by ⊗ 1/4 to ±ω or ±2ω
    (stated).  No product has two operands of more than one significant bit."""
    def run(s):
        w_out, mids = _normalized(s, tr)
        return w_out, mids, _chain(s, s.h * LG.W_OUT, [w_out] + mids)

    def side(s):
        f = s.fmt
        w_out, mids, (_, partial) = run(s)
        r = abs(partial[1] * _q(s))
        return ([r.eq(s.int_pow2(f.e_min - f.M)) | r.eq(s.int_pow2(f.e_min - f.M + 1)), W_OUT.holds(s, w=w_out)]
                + [tr.weight.holds(s, c=w) for w in mids] + _nonzero(partial))
    return stage(f"{tr.prefix}.quarter", {}, UNIT, lambda s: {"t": run(s)[2][0]}, LH, side=side,
                 states=[W_OUT, tr.weight])


def target_stage(fmt, tr=REPAIRED_TRANSFER):
    """±1 through the target weights (from g) lands on ``out`` with PATH(out) = g."""
    def run(s):
        w_x, E = LG.input_weight(s, s.g)
        target = s.where(s.g.is_negative(), -E.pow2(), E.pow2())
        sgn, m, exps = R.target_weights(s, target, s.t, tr.q(s.fmt))
        ws = tr.target(sgn, m) + exps
        return ws, _chain(s, s.t, ws)

    def side(s):
        ws, (_, partial) = run(s)
        return [tr.weight.holds(s, c=w) for w in ws] + _nonzero(partial)
    return stage(f"{tr.prefix}.target", {"g": NONZERO}, REACHES, lambda s: {"out": run(s)[1][0]}, UNIT,
                 side=side, cases={"t": UNITS}, states=[tr.weight])


def transfer_tree(fmt, tr=REPAIRED_TRANSFER):
    """The transfer by LG.route: scale and significand (enumerated), or the quarter stage;
    then the target stage (``tr``: :data:`SHALLOW_TRANSFER` for the shallow atom's)."""
    first = ([scale_stage(fmt, tr), significand_stage(fmt, tr)] if LG.route(fmt) == "significand"
             else [quarter_stage(fmt, tr)])
    return sequence(tr.prefix, first + [target_stage(fmt, tr)], kind="lemma")


# ------------------------------------------------------------------ the backward product
CHAIN_GRAD_RUN = Pred(f"{NAME}.chain_grad", {**GRAD_IS_P.variables, "i": _i, "n": _i},
                      lambda s: [s.i <= s.n, GRAD_IS_P.holds(s)],
                      doc="after i of the n layers from the output down: G = out, the transfer's partial product")


def quarter_fact(fmt):
    return fact(forall(f"{NAME}.quarter", {"pre": zero()},
                       goal=lambda s: s.sigma_prime(LG.hidden(), s.pre).same(_q(s)),
                       doc="sigma'(pre) = 1/4 for pre a zero"))


def cong2_fact(fmt):
    any_ = Float()
    return fact(forall(f"{NAME}.cong2", {"a": any_, "b": any_, "c": any_, "d": any_, "e": any_},
                       given=lambda s: s.a.same(s.b) & s.c.same(s.d),
                       goal=lambda s: ((s.a * s.c) * s.e).same((s.b * s.d) * s.e), uninterpreted=("mul",),
                       doc="a = b and c = d give (a * c) * e = (b * d) * e, for every binary operation *"))


def cong1_fact(fmt):
    any_ = Float()
    return fact(forall(f"{NAME}.cong1", {"a": any_, "b": any_, "e": any_}, given=lambda s: s.a.same(s.b),
                       goal=lambda s: (s.a * s.e).same(s.b * s.e), uninterpreted=("mul",),
                       doc="a = b gives a * e = b * e, for every binary operation *"))


def chain_grad(fmt):
    return induction(
        f"{NAME}.chain_grad", CHAIN_GRAD_RUN, "i", 0, CHAIN_MAX,
        stage(f"{NAME}.chain_grad.base", {"G": NONZERO, "n": _i}, CHAIN_GRAD_RUN, lambda s: {"i": 0, "out": s.G}),
        lambda s: {"G": s.gR, "out": (s.out * _q(s)) * s.c}, GRAD_IS_P,
        step_vars={"c": FIN, "pre": Float(), "gR": Float()},
        step_given=lambda s: [CHAIN_BACK.holds(s, u=s.G), ((s.out * _q(s)) * s.c).is_finite(),
                              ~((s.out * _q(s)) * s.c).is_zero(), s.instance(f"{NAME}.quarter", pre=s.pre),
                              s.instance(f"{NAME}.cong2", a=s.G, b=s.out, c=s.sigma_prime(LG.hidden(), s.pre),
                                         d=_q(s), e=s.c)],
        step_assumes=(f"{NAME}.quarter", f"{NAME}.cong2"),
        done=lambda s: s.i.eq(s.n), doc="the backward chain's product against the transfer's",
        step_premise=[CHAIN_BACK])


def _pad_q(s, u):
    """Q(u) = (u ⊗ 1/4) ⊗ (4 ⊗ 1): a padding layer's backward step (w = 1, network weight 4)."""
    return _step(s, u, s.const(1))


def pad_fact(fmt):
    """For every finite u and every e: PATH₀(Q(u)) = PATH₀(u) (PATH₀ starts with the gate's Q
    steps and Q(Q(u)) = Q(u): Q(u) = 4·RN(u/4), RN(u/4) a float), Q(u) is finite, and Q(u)
    a zero makes PATH₀(u) ⊗ e a zero or NaN (PATH₀(u) is then a zero)."""
    def goal(s):
        q, p = _pad_q(s, s.u), path0(s, s.u) * s.e
        return [path0(s, q).same(path0(s, s.u)), q.is_finite(), q.is_zero().implies(p.is_zero() | p.is_nan())]
    return fact(forall(f"{NAME}.pad_q", {"u": FIN, "e": Float()}, goal=goal,
                       doc="PATH0(Q(u)) = PATH0(u), Q(u) finite, and Q(u) a zero makes PATH0(u) * e a zero or NaN"))


def padding(fmt):
    """The chain layers of network weight 4 (w = 1) that an atom deeper than its least depth
    has below the transfer's last weight (``logistic.gradient_atom``: input side first), by
    induction over any number up to :data:`CHAIN_MAX` (``construct --depth`` adds at most
    :data:`fpsmt.constructions.relu.PADDING_MAX`): each takes the backward product out to
    Q(out), and REACHES is kept.  The step's hypotheses have instances of ``pad_q`` (at u =
    out, e = w_x) and ``cong1`` (PATH₀(Q(out)) = PATH₀(out) gives PATH(Q(out)) = PATH(out) =
    g), so that no solver has to see two symbolic products equal (without them z3 gave no
    answer in float64 within 300 s)."""
    def facts(s):
        wx = LG.input_weight(s, s.g)[0]
        return [s.instance(f"{NAME}.pad_q", u=s.out, e=wx),
                s.instance(f"{NAME}.cong1", a=path0(s, _pad_q(s, s.out)), b=path0(s, s.out), e=wx)]
    return reaches_padding_node(NAME, REACHES, lambda s: _pad_q(s, s.out), CHAIN_MAX, step_given=facts,
                                step_assumes=(f"{NAME}.pad_q", f"{NAME}.cong1"),
                                doc="padding: (out ⊗ 1/4) ⊗ 4 any number of times keeps PATH(out) = g")


def tree(fmt, variant=None):
    """The atom's tree; ``variant="shallow"``: the chain inductions over weights in
    :data:`SHALLOW_WEIGHT` and the shallow transfer (the gate, the top and the backward
    chain are the repaired tree's claims)."""
    top = Node("stage", f"{NAME}.top", top_claim(fmt, variant), uses={"hypothesis": W_OUT, "premise": [W_OUT],
                                                                        "side": [CHAIN_BACK]})
    # D = T ⊗ w_x and T = PATH₀(G) = PATH₀(out) give D = PATH₀(out) ⊗ w_x = PATH(out) = g by
    # cong1 (a congruence, decided with ⊗ uninterpreted)
    g_join = join(f"{NAME}.backward.g", [GRAD_IS_P, REACHES, GATE_BACK], AT_Z_GRAD,
                  facts=lambda s: s.instance(f"{NAME}.cong1", a=s.T, b=path0(s, s.out),
                                             e=LG.input_weight(s, s.g)[0]),
                  assumes=(f"{NAME}.cong1",))
    backward = sequence(f"{NAME}.backward", [chain_grad(fmt), g_join])
    if variant:
        chain = [chain_at_z(fmt, f"{NAME}.{variant}", SHALLOW_WEIGHT), chain_killed(fmt, f"{NAME}.{variant}", SHALLOW_WEIGHT)]
        transfer = transfer_tree(fmt, SHALLOW_TRANSFER)
    else:
        chain, transfer = [chain_at_z(fmt), chain_killed(fmt)], transfer_tree(fmt)
    return Node("lemma", NAME, None, [gate_at_z(fmt), gate_off(fmt)] + chain + [top, transfer, quarter_fact(fmt),
                                                                               cong2_fact(fmt), cong1_fact(fmt),
                                                                               pad_fact(fmt), padding(fmt), backward])


def repaired(fmt):
    return tree(fmt), (
        f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite g != 0 that "
        "one atom reaches at z (w_x ⊗ z finite) and every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for "
        "bit); elsewhere D^AD(y) = ±0; the two output terms sum to a zero, D^AD's first-layer terms are zeros but the "
        f"path's (D^AD itself) at z, zeros elsewhere; every hidden value and gradient finite; depth {LG.depth(fmt)}, "
        "proved as a tree: the gate, inductions over the chain layers at x = z and at x != z, the top, the chain's "
        "transfer, and the backward chain's product against the transfer's")


def shallow(fmt):
    kw = {"variant": "shallow"}
    return tree(fmt, "shallow"), (
        f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite g != 0 that "
        "one atom reaches at z (w_x ⊗ z finite) and every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit for "
        "bit); elsewhere D^AD(y) = ±0; the two output terms sum to a zero, D^AD's first-layer terms are zeros but the "
        f"path's (D^AD itself) at z, zeros elsewhere; every hidden value and gradient finite; depth "
        f"{LG.depth(fmt, **kw)} (the repaired atom's network: {LG.depth(fmt)}): network chain weights 4w, w in "
        "[-2, 0) ∪ (0, 2^(e_max - 2)]; proved as a tree: the gate, inductions over the chain layers at x = z and at "
        "x != z, the top, the chain's transfer with weights up to 2^(e_max - 2), and the backward chain's product "
        "against the transfer's")


#: the atom as one claim about its whole block (at the theorem's depth), for any semantics
#: profile: the repaired tree's statement, under its hypothesis that one atom reaches g at z
WHOLE = family_gradient_whole(
    NAME, LG,
    {"z": X_DOM, "x": X_DOM, "h": within(H, nonzero=True), "g": NONZERO, "y": within(H)},
    lambda fmt: (
        f"for all z, x in {xdesc(fmt)}, every h with 0 < |h| <= H = {show_bound(H(fmt))}, every finite g != 0 that "
        "one atom reaches at z (w_x ⊗ z finite) and every upstream |y| <= H: out = ±0; at x = z, D^AD(h) = g (bit "
        f"for bit); elsewhere D^AD(y) = ±0 (as one claim about the whole block, depth {LG.depth(fmt)})"),
    reach=lambda s: LG.reached(s, s.z, s.g))

LEMMA = Lemma("logi_gradient_atom", f"Lemma 3.5's atom for a logistic σ {TITLE}",
              {"repaired": repaired, "shallow": shallow}, formats=formats, order=750, family="logistic",
              construction=True, whole=WHOLE)
