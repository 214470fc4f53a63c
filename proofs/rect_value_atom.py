"""Value atom v·1[x = z] of the ``rectifying`` family (fpsmt.constructions.rectifying.value_atom),
at the depth the theorem's network uses (:func:`fpsmt.constructions.rectifying.depth`):
the step indicators (carried), the killers G1 = σ(G ⊖ W ⊗ u_ge), G2 likewise (δ = −1: beside
them C = 2 and K = σ(1 ⊖ u_ge/2 ⊖ u_le/2)), then N1 = σ(−G1 − G2 ⊕ n1),
N2 = σ(−G1 − G2 ⊕ n2) (δ = −1: K carried, then M = σ(N ⊕ K)) and the output
w1 ⊗ N1 ⊕ w2 ⊗ N2, every output weight of magnitude <= 1.

For all z, x of X, every v with |v| <= V = 2^(e_max−1) and every finite upstream y:
out = v at x = z (bit for bit), a zero elsewhere, and D^AD(y) = ±0.  Values above V are
sums of such atoms at one z (proofs/rect_theorem_3_1.py).  For the theorem's join the lemma
also states: the output row's two terms t1 = w1 ⊗ N1, t2 = w2 ⊗ N2 have t1 ⊕ t2 ≈ v at z
(the same float, or both zeros), are (v, a zero) there when |v| >= L (no cap), and are two
zeros elsewhere; every term of D^AD's sum over the first layer (gradient w.r.t. a
neuron's pre-activation times its weight) is a zero; and every hidden value and gradient is
finite.

A proof tree; each stage's network is a run of whole layers of the atom
(``rectifying.value_network``; tests/test_rectifying.py checks the cut):

* the gate at x = z and at x != z (layers 0 … the killers', ``rectifying.value_layers``),
  each a sequence: the step indicators' amplification (the pair (ge, le) both at least
  2^(m+2) at z, one of them in [−1, 0] elsewhere; D^AD(x) and every first-layer term a
  zero, for the zero upstream the layers above give) — at z ``spacing_at_z``,
  ``amp_at_z`` (enumerated over the exponents of the spacing), the join ``first_at_z``
  and ``steps_at_z`` (congruence, σ uninterpreted: :func:`steps_at_z_nodes`), elsewhere a
  stage per layer over intervals (``off_layer_j``: :func:`steps_off_nodes`) — an
  induction over the carry layers (any number up to 2^12: the pair's sides kept, zero
  gradients), a join, and ``kill_at_z`` / ``kill_off`` (kill A, kill B and the killers'
  layer, for every upstream as UP_Z / UP_OFF states it: the killers' layer is AT_Z — G1,
  G2 dead; C = 2 and K a zero — or OFF — one killer G, the other dead; C = 2, K = 1 —
  and the gradient into the pair a zero).  Every hidden value and gradient is finite.
* ``top`` — the remaining layers, for every v and finite y, from any AT_Z state and any OFF
  state: the output and its terms as stated, the gradients into the killers' layer UP_Z
  (finite) from AT_Z and UP_OFF (zeros into G1, G2, finite into C, K) from OFF.
At the theorem's depth the step indicators carry their pair through many layers (42 in
bfloat16 for GELU); with the carries inside one gate stage the stage at x = z gave no
answer in bfloat16 within 12 minutes.  As one claim the lemma was UNKNOWN in bfloat16 at
600 s (GELU, ELU); with the amplification as one stage each at z and elsewhere it was
PROVED in bfloat16 but those two stages were UNKNOWN at 600 s in float32."""

import functools
from fractions import Fraction

from fpsmt.constructions import rectifying as RC
from fpsmt.constructions.registry import show_bound
from fpsmt.proof.approx import approx
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, induction, join, sequence, stage
from fpsmt.proofs.common import family_value_whole, finite_inside, zero
from fpsmt.proofs.rect_common import X, dead as _dead, formats, killer as _G, theorem, upstreams as _ups, xdesc
from fpsmt.semantics.network import Network

NAME = "rect_value_atom"
X_DOM = X()


def V(fmt):
    return RC.piece_bound(fmt)


def L(fmt):
    """The least |v| whose atom's output terms are (v, a zero): below it the value is made
    of two nonzero terms (fpsmt.constructions.rectifying.value_params, ``capped``)."""
    return RC.uncapped_bound(fmt)


@functools.lru_cache(maxsize=None)
def _preds(state):
    """AT_Z, OFF, UP_Z, UP_OFF for the killers' layer's neuron names ``state``."""
    v = {n: Float() for n in state}
    ups = {f"u_{n}": Float() for n in state}

    def ck(s, k):
        return ([s.C.same(2)] if "C" in state else []) + ([k(s.K)] if "K" in state else [])
    AT_Z = Pred(f"{NAME}.at_z", v, lambda s: [_dead(s, s.G1), _dead(s, s.G2)] + ck(s, lambda K: K.is_zero()),
                doc="G1, G2 dead (C = 2, K a zero)")
    OFF = Pred(f"{NAME}.off", v,
               lambda s: [(s.G1.same(_G(s)) & _dead(s, s.G2)) | (_dead(s, s.G1) & s.G2.same(_G(s)))]
               + ck(s, lambda K: K.same(1)), doc="one killer G, the other dead (C = 2, K = 1)")
    UP_Z = Pred(f"{NAME}.up_z", ups, lambda s: [s[u].is_finite() for u in ups],
                doc="the upstream into the killers' layer at x = z: finite")
    UP_OFF = Pred(f"{NAME}.up_off", ups,
                  lambda s: [s[u].is_zero() if u in ("u_G1", "u_G2") else s[u].is_finite() for u in ups],
                  doc="the upstream into the killers' layer at x != z: zeros into G1, G2, finite into C, K")
    return AT_Z, OFF, UP_Z, UP_OFF


def _slice(fmt, a, b):
    return Network(fmt, list(RC.value_network(fmt, RC.depth(fmt)).layers[a:b]))


def _cuts(fmt):
    """(amp, carries, kill): the step indicators' amplification is layers 0 … amp − 1, then
    ``carries`` carry layers, kill A and kill B, then the killers' layer ``kill``."""
    c = RC.block_constants(fmt)
    kill = RC.value_layers(fmt, RC.depth(fmt))
    return 1 + len(c.stages), kill - c.step_depth, kill


def _L(s):
    """2^(m+2): what the amplification leaves at least on the side where the step holds."""
    return s.int_pow2(RC.block_constants(s.fmt).kill + 1)


def _high(s, a):
    return (a >= _L(s)) & a.is_finite()


def _low(s, a):
    return (a >= -1) & (a <= 0)


#: the step indicators' pair after the amplification (and every carry): both on the side
#: where the step holds at x = z; one on each side elsewhere
STEPS_AT_Z = Pred(f"{NAME}.steps_at_z", {"ge": Float(), "le": Float()}, lambda s: [_high(s, s.ge), _high(s, s.le)],
                  doc="ge, le >= 2^(m+2), finite")
STEPS_OFF = Pred(f"{NAME}.steps_off", {"ge": Float(), "le": Float()},
                 lambda s: (_high(s, s.ge) & _low(s, s.le)) | (_low(s, s.ge) & _high(s, s.le)),
                 doc="one of ge, le >= 2^(m+2) (finite), the other in [-1, 0]")
_CARRY_MAX = 1 << 12
_ci = Int(0, _CARRY_MAX)
OFF_X = Pred(f"{NAME}.x_off", {"z": X_DOM, "x": X_DOM}, lambda s: ~s.x.eq(s.z), doc="x != z")


def _steps_run(s, x, pre=None, b=None, ups=None):
    """The amplification layers (the first ``b``; default all) on input x (biases at z), or
    with layer 0's pre-activations ``pre`` in place of its sums (:meth:`Scope.run`
    ``given_pre``); upstream ``ups`` (default o1, o2)."""
    net = _slice(s.fmt, 0, _cuts(s.fmt)[0] if b is None else b)
    P = RC.step_biases(s, s.z) if pre is None else {"ge_b": s.const(0), "le_b": s.const(0)}
    return net, P, s.run(net, [x], [s.o1, s.o2] if ups is None else ups, params=P, trace=True,
                         given_pre=None if pre is None else {0: list(pre)})


def _steps_side(s, x, pre=None, b=None):
    """D^AD(x) and every first-layer term zeros, every hidden value and gradient finite."""
    net, P, (_, grad, trace) = _steps_run(s, x, pre, b)
    return [grad[0].is_zero()] + [t.is_zero() for t in s.input_terms(net, P, trace)] + finite_inside(*trace[1:3])


def _pair_layer(s, j):
    """Layer j of the step indicators (j >= 1) on the pair (ge, le), upstream (o1, o2)."""
    return s.run(_slice(s.fmt, j, j + 1), [s.ge, s.le], [s.o1, s.o2], trace=True)


def _pair_side(s, j):
    """Zero gradients into the pair, every hidden value and gradient of layer j finite."""
    _, grad, (_, post, up) = _pair_layer(s, j)
    return [g.is_zero() for g in grad] + finite_inside(post, up)


#: formats of this many bits or more take the amplification split (:func:`steps_at_z_nodes`,
#: :func:`steps_off_nodes`); narrower ones one stage each at z and elsewhere, which the
#: enumeration decides and confirms (over z; over (z, x): 2^32 points in a 16-bit format),
#: and whose claims stay as the float8_e4m3 certificates recorded them.
SPLIT_FROM_BITS = 17

#: the exponent of layer 0's pre-activation at x = z: z − z⁻ and z⁺ − z are powers of two,
#: from the least subnormal to the spacing at the top of the format
_KR = Int(lambda f: f.e_min - f.M, lambda f: f.e_max - 1 - f.M)
_ZEROS = {"o1": zero(), "o2": zero()}


def pow2_in(lo, hi):
    """A positive power of two 2^k with lo(f) <= k <= hi(f) (an enumeration takes only those)."""
    def at(k):
        return lambda f: f.hex(f.round(Fraction(2) ** k(f)))
    return Float(range=(at(lo), at(hi)), pow2=True)


#: layer 0's pre-activation z − z⁻ or z⁺ − z at x = z: a power of two 2^k, k in _KR
SPACING_DOM = pow2_in(_KR.lo, _KR.hi)
#: z⁺ − z = (z − z⁻)·2^e1 with e1 in {−1, 0, 1}: the two spacings are equal but where z is a
#: power of two above the least normal (e1 = 1) or its negation (e1 = −1).  So the pair
#: (p0, p1) is (p0, e1), about 3·2^11 points in float64 where every pair of powers of two is
#: about 2^22 (``amp_at_z`` took 974.6–1,537.9 s by enumeration over those)
E1 = Int(-1, 1)
_P = {"p0": SPACING_DOM, "e1": E1}


def spacings(s):
    """[p0, p1] of the variables p0, e1: p1 = p0 ⊗ 2^e1 (exact where it is in the range)."""
    return [s.p0, s.p0 * s.e1.pow2()]


def spacing_vars(s, q):
    """The variables (p0, e1) of layer 0's computed pre-activations q (q1 = q0·2^e1)."""
    return {"p0": q[0], "e1": s.iwhere(q[1] > q[0], 1, s.iwhere(q[1] < q[0], -1, 0))}


def spacing_ok(s, p):
    """p in the range of the spacings (SPACING_DOM's)."""
    return (p >= s.const(Fraction(2) ** _KR.lo(s.fmt))) & (p <= s.const(Fraction(2) ** _KR.hi(s.fmt)))


def if_spacing_ok(s, p, goals):
    """Each of ``goals`` where p is in the spacings' range (:func:`spacing_ok`): what the
    enumerated nodes state of every (p0, e1), some of whose p1 = p0 ⊗ 2^e1 no z gives."""
    ok = spacing_ok(s, p)
    return [ok.implies(g) for g in goals]


def same_spacings(s, q):
    """Layer 0's pre-activations q are the spacings (p0, p0 ⊗ 2^e1), the second in range."""
    p = spacings(s)
    return [q[0].same(p[0]), q[1].same(p[1]), spacing_ok(s, p[1])]


def _pre0(s):
    """Layer 0's pre-activations (ge, le) at x = z."""
    return _steps_run(s, s.z, b=1, ups=[s.const(0), s.const(0)])[2][2][0][0]


SPACING = Pred(f"{NAME}.spacing_at_z", {"z": X_DOM, **_P},
               lambda s: same_spacings(s, _pre0(s)),
               doc="layer 0's pre-activations at x = z are p0 = z − z⁻ and p1 = z⁺ − z = p0 ⊗ 2^e1, "
                   "e1 in {−1, 0, 1}, powers of two in the range of the spacings")


def _amp_goals(s):
    pre = spacings(s)
    ge, le = _steps_run(s, s.const(0), pre)[2][0]
    return if_spacing_ok(s, pre[1], [STEPS_AT_Z.holds(s, ge=ge, le=le)] + _steps_side(s, s.const(0), pre))


#: the amplification from layer 0's pre-activations p0, p1: what ``steps_at_z`` states
AMP_K = Pred(f"{NAME}.amp_at_z", {**_P, **_ZEROS}, _amp_goals,
             doc="from layer 0's pre-activations (p0, p1 = p0 ⊗ 2^e1), powers of two, p1 in the spacings' "
                 "range, for the zero upstream: the pair STEPS_AT_Z, D^AD(x) and every first-layer term a zero, "
                 "every hidden value and gradient finite")
FIRST_AT_Z = Pred(f"{NAME}.first_at_z", {**SPACING.variables, **AMP_K.variables},
                  lambda s: [SPACING.holds(s), AMP_K.holds(s)], doc="SPACING and AMP_K")


def steps_at_z_nodes(fmt):
    """The amplification at x = z in three nodes and a join: ``spacing_at_z`` (a solver
    claim without σ: layer 0's pre-activations are powers of two p0, p1 in the range of the
    spacings), ``amp_at_z`` (the run from every such (p0, p1), decided by enumeration: a few
    hundred powers per format, so σ meets a few hundred arguments), their join, and
    ``steps_at_z``: the run from (p0, p1) (:meth:`Scope.run` ``given_pre``), the
    enumerated run term for term.  That the run from layer 0's own pre-activations is the
    run at z is the code's (a test compares the terms).  As one claim over z,
    ``steps_at_z`` gave no answer in float32 within 600 s (GELU)."""
    spacing = stage(f"{NAME}.spacing_at_z", {"z": X_DOM}, SPACING, lambda s: spacing_vars(s, _pre0(s)))
    amp = stage(f"{NAME}.amp_at_z", {**AMP_K.variables}, AMP_K, lambda s: {}, enumerate=True)
    first = join(f"{NAME}.first_at_z", [SPACING, AMP_K], FIRST_AT_Z)
    pre = spacings
    steps = stage(f"{NAME}.steps_at_z", {}, STEPS_AT_Z,
                  lambda s: dict(zip(("ge", "le"), _steps_run(s, s.z, pre(s))[2][0])), FIRST_AT_Z,
                  side=lambda s: _steps_side(s, s.z, pre(s)))
    return [spacing, amp, first, steps]


def _image(fmt, lo, hi, act=None):
    """[min, max] of σ_F over the floats of [lo, hi] (Fractions): σ at the ends and at the
    ends of its monotone pieces inside (σ is monotone on each piece; the claims that use
    these bounds check them).  σ is ``act``, by default the rectifying family's."""
    from fpsmt.semantics.activations import get_activation
    fn = get_activation(act or RC.hidden()).function(fmt, "value")
    pts = {lo, hi}
    for p in fn.pieces:
        for e in (p.lo, p.hi):
            if e is not None and fmt.is_finite(e) and lo < fmt.to_fraction(e) < hi:
                pts.add(fmt.to_fraction(e))
    vals = [fmt.to_fraction(fn.value(fmt.round(q))) for q in pts]
    return min(vals), max(vals)


@functools.lru_cache(maxsize=None)
def off_intervals(fmt_name, act):
    """For x != z, layer by layer of the amplification: ((A_lo, A_hi), (B_lo, B_hi)) of
    each layer's pre-activations (A: the step indicator whose layer-0 pre-activation is
    positive, B: the other) and of its outputs.  A layer-0 pre-activation is x ⊖ z⁻ or
    z⁺ ⊖ x: in [ω, 2M] on A's side, in [−2M, 0] on B's (M the bound of X)."""
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(fmt_name)
    c = RC.block_constants(fmt)
    top = fmt.to_fraction(fmt.round(2 * theorem(fmt).M_sigma))
    rnd = lambda q: fmt.to_fraction(fmt.round(q))  # noqa: E731
    omega = fmt.to_fraction(1)  # the pattern 0x…1: the least positive subnormal
    pre, post = ((omega, top), (-top, Fraction(0))), None
    out = []
    for op in (None,) + tuple(c.stages):
        if op is not None:
            kind, v = op
            w = fmt.to_fraction(v)
            if kind == "mul":
                pre = tuple((rnd(w * lo), rnd(w * hi)) for lo, hi in post)
            else:
                pre = tuple((rnd(w - hi), rnd(w - lo)) for lo, hi in post)
        post = tuple(_image(fmt, lo, hi) for lo, hi in pre)
        out.append((pre, post))
    return tuple(out)


def _box(s, v, iv):
    lo, hi = iv
    return (v >= s.const(lo)) & (v <= s.const(hi))


@functools.lru_cache(maxsize=None)
def _off_pred(j):
    """OFF_j: the pair after amplification layer j (j >= 0) for x != z: one in A_j, the
    other in B_j (off_intervals)."""
    def fn(s):
        (_, (A, B)) = off_intervals(s.fmt.name, RC.hidden())[j]
        return (_box(s, s.ge, A) & _box(s, s.le, B)) | (_box(s, s.ge, B) & _box(s, s.le, A))
    return Pred(f"{NAME}.off_{j}", {"ge": Float(), "le": Float()}, fn,
                doc=f"after amplification layer {j}, x != z: one of ge, le in A_{j}, the other in B_{j}")


def _anchors(j):
    """The ends of layer j's pre-activation intervals, where the lazy encoding bounds σ."""
    def at(fmt):
        (pre, _) = off_intervals(fmt.name, RC.hidden())[j]
        return sorted({fmt.round(q) for iv in pre for q in iv})
    return at


def steps_off_nodes(fmt):
    """The amplification at x != z, a stage per layer: layer 0 takes (z, x) with x != z to
    OFF_0 (one pre-activation in [ω, 2M], the other in [−2M, 0]); layer j takes OFF_(j−1)
    to OFF_j, its bounds σ's image of the intervals (``off_intervals``), the last to
    STEPS_OFF.  Each stage's claim is anchored at its intervals' ends (Claim.anchors), so
    that σ's lazy encoding in a wide format bounds σ over an interval from the start.  For
    the zero upstream the layers above give, every gradient into a stage's inputs is a
    zero (layer 0: D^AD(x) and every first-layer term), every hidden value and gradient
    finite.  As one claim (the amplification over x != z) it gave no answer in float32
    within 600 s (GELU)."""
    amp, _, _ = _cuts(fmt)
    target = (lambda j: STEPS_OFF if j == amp - 1 else _off_pred(j))
    nodes = [stage(f"{NAME}.off_layer_0", dict(_ZEROS), target(0),
                   lambda s: dict(zip(("ge", "le"), _steps_run(s, s.x, b=1)[2][0])), OFF_X,
                   side=lambda s: _steps_side(s, s.x, b=1), anchors=_anchors(0))]
    for j in range(1, amp):
        nodes.append(stage(f"{NAME}.off_layer_{j}", dict(_ZEROS), target(j),
                           lambda s, j=j: dict(zip(("ge", "le"), _pair_layer(s, j)[0])), _off_pred(j - 1),
                           side=lambda s, j=j: _pair_side(s, j), anchors=_anchors(j)))
    return nodes


def _carry_node(at):
    """The carry layers of the pair (any number up to 2^12), by induction: the pair's side
    stays (σ(a) = a above 2^(m+2), σ maps [−1, 0] into itself), and zero upstreams give
    zero gradients."""
    inv = STEPS_AT_Z if at else STEPS_OFF
    tag = "at_z" if at else "off"
    run = Pred(f"{NAME}.carry_{tag}", {**inv.variables, "i": _ci, "n": _ci}, lambda s: [s.i <= s.n, inv.holds(s)],
               doc=f"after i of the n carry layers: {inv.name}")

    def amp(s):
        return _cuts(s.fmt)[0]
    return induction(
        f"{NAME}.carry_{tag}", run, "i", 0, _CARRY_MAX,
        stage(f"{NAME}.carry_{tag}.base", {"n": _ci}, run, lambda s: {"i": 0}, inv),
        lambda s: dict(zip(("ge", "le"), _pair_layer(s, amp(s))[0])), inv, step_vars=dict(_ZEROS),
        step_side=lambda s: _pair_side(s, amp(s)), done=lambda s: s.i.eq(s.n), doc="the step indicators' carry layers",
        step_anchors=side_anchors)


def side_anchors(fmt):
    """The ends of the pair's sides after the amplification (STEPS_AT_Z, STEPS_OFF): −1, 0
    and 2^(m+2), where the lazy encoding bounds σ in a carry or kill layer."""
    return [fmt.round(q) for q in (-1, 0, 2 ** (RC.block_constants(fmt).kill + 1))]


def _kill_run(s, ge, le):
    state = RC.value_state(s.fmt)
    amp, carries, kill = _cuts(s.fmt)
    net = _slice(s.fmt, amp + carries, kill + 1)
    return s.run(net, [ge, le], [s[u] for u in _ups(state)], trace=True)


def _kill_side(s):
    _, grad, (_, post, up) = _kill_run(s, s.ge, s.le)
    return [g.is_zero() for g in grad] + finite_inside(post, up)


def gate(fmt, at):
    """The step indicators and the killers at x = z (``at``) or at x != z: the amplification
    (with the zero upstream the carries and kill layers give: D^AD(x) and every first-layer
    term a zero), the carries, then kill A, kill B and the killers' layer for every
    upstream as UP_Z (UP_OFF) states it: the killers' layer is AT_Z (OFF), and the gradient
    into the pair is a zero."""
    state = RC.value_state(fmt)
    AT_Z, OFF, UP_Z, UP_OFF = _preds(state)
    _, carries, _ = _cuts(fmt)
    tag = "at_z" if at else "off"
    pair, target, ups = (STEPS_AT_Z, AT_Z, UP_Z) if at else (STEPS_OFF, OFF, UP_OFF)
    zeros = dict(_ZEROS)
    if fmt.nbits >= SPLIT_FROM_BITS:
        steps = steps_at_z_nodes(fmt) if at else steps_off_nodes(fmt)
    elif at:  # one stage over z: enumerable, so its answer can be confirmed where few solvers take the format
        steps = [stage(f"{NAME}.steps_at_z", {"z": X_DOM, **zeros}, pair,
                       lambda s: dict(zip(("ge", "le"), _steps_run(s, s.z)[2][0])), side=lambda s: _steps_side(s, s.z))]
    else:
        steps = [stage(f"{NAME}.steps_off", zeros, pair, lambda s: dict(zip(("ge", "le"), _steps_run(s, s.x)[2][0])),
                       OFF_X, side=lambda s: _steps_side(s, s.x))]
    kill_in = Pred(f"{NAME}.kill_in_{tag}", {**pair.variables, **ups.variables},
                   lambda s: [pair.holds(s), ups.holds(s)], doc=f"{pair.name} and the upstream {ups.name}")
    join_in = join(f"{NAME}.kill_in_{tag}", [pair, ups], kill_in)
    kill = stage(f"{NAME}.kill_{tag}", {}, target, lambda s: dict(zip(state, _kill_run(s, s.ge, s.le)[0])), kill_in,
                 side=_kill_side, premise=[ups])
    items = steps + ([_carry_node(at)] if carries else []) + [join_in, kill]
    return sequence(f"{NAME}.gate_{tag}", items)


def top_claim(fmt):
    state = RC.value_state(fmt)
    AT_Z, OFF, UP_Z, UP_OFF = _preds(state)
    kill = RC.value_layers(fmt, RC.depth(fmt))

    def goal(s):
        net = _slice(s.fmt, kill + 1, RC.depth(s.fmt))
        P = dict(zip(("n1", "n2", "w1", "w2"), RC.value_params(s, s.v)))
        last = len(net.layers) - 1
        out = []
        for prefix, at in (("a_", True), ("k_", False)):
            o, grad, trace = s.run(net, [s[prefix + n] for n in state], [s.y], params=P, trace=True)
            t1, t2 = s.row_terms(net, last, "forward", trace[1][-2], P)
            ups = dict(zip(_ups(state), grad))
            if at:
                big = abs(s.v) >= s.const(L(s.fmt))
                out += [o[0].same(s.v) | (o[0].is_zero() & s.v.is_zero()), approx(t1 + t2, s.v),
                        big.implies(t1.same(s.v) & t2.is_zero()), UP_Z.holds(s, **ups)]
            else:
                out += [o[0].is_zero(), t1.is_zero(), t2.is_zero(), UP_OFF.holds(s, **ups)]
            out += finite_inside(*trace[1:3])
        return out

    def given(s):
        return [AT_Z.holds(s, **{n: s["a_" + n] for n in state}), OFF.holds(s, **{n: s["k_" + n] for n in state})]
    bound = lambda f: f.hex(f.round(V(f)))  # noqa: E731
    states = {p + n: Float() for p in ("a_", "k_") for n in state}
    return forall(f"{NAME}.top", {"v": Float(range=(lambda f: f.hex(f.round(-V(f))), bound)),
                                  "y": Float(finite=True), **states}, goal=goal, given=given)


def repaired(fmt):
    state = RC.value_state(fmt)
    AT_Z, OFF, UP_Z, UP_OFF = _preds(state)
    top = Node("stage", f"{NAME}.top", top_claim(fmt), uses={"premise": [AT_Z, OFF], "side": [UP_Z, UP_OFF]})
    tree = Node("lemma", NAME, None, [gate(fmt, True), gate(fmt, False), top])
    return tree, (f"for all z, x in {xdesc(fmt)}, every v with |v| <= {show_bound(V(fmt))} and every finite upstream y: "
                  "out = v at x = z (bit for bit; a zero v by either zero), a zero elsewhere, and D^AD(y) = ±0; its two "
                  f"output terms are (v, ±0) at x = z when |v| >= {show_bound(L(fmt))} and two zeros elsewhere, every "
                  "term of D^AD is a zero, every hidden value and gradient finite; proved as a tree: the step "
                  "indicators and killers at x = z and at x != z, then the last layers from each; at depth "
                  f"{RC.depth(fmt)} or any depth up to {_CARRY_MAX} carries of the step pair (the carries are an "
                  "induction: construct --depth pads here)")


def shallow(fmt):
    """At the depth of the network with the shallow gradient atoms.  The tree does not depend
    on the depth as long as the step indicators carry their pair at least once (the carries
    are an induction over any number, every other stage a slice of the layers before or
    after them, the same at every depth): the repaired tree, after checking that the
    shallow depth has carries too (tests/test_rect_shallow.py compares the layers)."""
    least = RC.block_constants(fmt).value_depth
    if not (RC.depth(fmt, "shallow") > least and RC.depth(fmt) > least):
        raise ValueError(f"{fmt.name}: the value atom's tree at the shallow depth {RC.depth(fmt, 'shallow')} has no "
                         "carry layers; it is not the repaired one")
    tree, statement = repaired(fmt)
    return tree, statement + (f"; at the shallow network's depth {RC.depth(fmt, 'shallow')} (the same tree as at "
                              f"{RC.depth(fmt)}: its carries are an induction over any number)")


#: the atom as one claim about its whole block (at the theorem's depth), for any semantics profile
WHOLE = family_value_whole(
    "rect_value_atom", RC,
    {"z": X(), "x": X(), "v": Float(range=(lambda f: f.hex(f.round(-V(f))), lambda f: f.hex(f.round(V(f))))),
     "y": Float(finite=True)},
    lambda fmt: (
        f"for all z, x in {xdesc(fmt)}, every v with |v| <= {show_bound(V(fmt))} and every finite upstream y: "
        "out = v at x = z (bit for bit; a zero v by either zero), a zero elsewhere, and D^AD(y) = ±0 (as one "
        "claim about the whole block)"
    ))

LEMMA = Lemma("rect_value_atom", "Lemma 3.4's atom for a rectifying σ (GELU, Swish, ELU; reconstructed)",
              {"repaired": repaired, "shallow": shallow}, formats=formats, order=640, family="rectifying",
              construction=True, whole=WHOLE)
