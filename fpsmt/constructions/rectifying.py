"""Builders of the Theorem 3.1 construction for activations that are the identity on one
side and dead on the other: σ(t) = t and σ'(t) = 1 for t >= I = 2^a, σ(t) = δ and
σ'(t) = 0 for t <= −D = −2^b (after rounding), with δ a zero (GELU, Swish) or −1 (ELU),
σ(±0) a zero with σ'(±0) ∈ {1/2, 1} (a user's activation with the same requirements,
``specs/requirements.py`` family ``rectifying``).

Every hidden layer applies σ, the output layer is the identity.  The plan: every
pre-activation after the first layer is a zero, at least I (σ exact, σ' = 1) or at most −D
(σ a zero, σ' = 0), so that the blocks compute like ReLU blocks while nothing they carry
can overflow.  Constants (:func:`block_constants`) come from the format, from the
requirements' witnesses a, b and from σ's values (σ is non-decreasing on [0, ∞),
R.monotone, so an interval's image is bounded by the values at its ends).

* step indicator u = I for 1[x >= z] ("ge"; "le" for 1[x <= z], fed −x at −z), ±0
  otherwise, D^AD = ±0 for every finite upstream:
  layer 1 ``σ(x ⊖ z⁻)``: on the side x >= z it is in [σ(ω), σ(2^(e_max−1)⁺)] (R.sign:
  σ(ω) > 0; R.monotone), on the other side in [−1, 0] (R.sign).  Then *amplification*
  layers, each either a flip ``σ(β ⊖ a)`` with β the positive side's lower bound (that side
  goes to [−1, 0], the other to [σ(β), σ(β ⊕ 1)]: a bounded positive interval) or a
  product ``σ(K ⊗ a)`` with K·(upper bound) <= 2^e_max (the positive side's bounds grow,
  [−1, 0] stays), until the side x >= z holds values >= L = 2^(m+2),
  m = max(a, b); carries ``σ(1 ⊗ a)`` (exact there: L >= I) give the block any depth.
  Kill A ``σ(B1 ⊖ a)``, B1 = 2^(m+1): dead (±0) where a >= L, in [B1, B1 ⊕ 1] (σ' = 1)
  where a ∈ [−1, 0].  Kill B ``σ(I ⊖ a)``: exactly I where kill A is dead, dead where it is
  not.  So the last two layers leave one dead neuron on every path: the gradient is ±0
  for every finite upstream.
* killers ``G1 = σ(G ⊖ W ⊗ u_ge)``: G for x < z, dead for x >= z; G2 likewise for x > z
  (from u_le).  G is the largest float with top − G >= D (top the largest finite float),
  W·I = top: far above every value a gated neuron adds, so ``σ(−G1 − G2 + …)`` is dead
  at x ≠ z and sees two zeros at x = z.
* value atom v·1[x = z]: ``N1 = σ(−G1 − G2 ⊕ n1)``, ``N2 = σ(−G1 − G2 ⊕ n2)``, output
  ``w1 ⊗ N1 ⊕ w2 ⊗ N2``: either N1 = |v|·2^j >= I with w1 = ±2^−j (j >= 0 the least that
  reaches I; w2 = +0), or, for |v| < I·ω, N1 = I + |v|/ω, N2 = I, w1 = ±ω, w2 = ∓ω — every
  output weight has magnitude <= 1, so y ⊗ w is finite for every finite y, and the
  backward pass dies at the killers (x = z) or at N (x ≠ z).  Values above V = 2^(e_max−1)
  are sums of atoms (:func:`fpsmt.constructions.saturating.pieces`).
* gradient atom (value ±0 on X; D^AD(h) = g at x = z, ±0 elsewhere): a path
  ``r0 = σ(w_x ⊗ x ⊖ w_x ⊗ z)`` (exactly +0 at x = z, where σ' = 2^k0),
  ``r1 = σ(r0 ⊕ I)`` (I at x = z) carried beside the steps, the killers, a gate
  ``R = σ(−G1 − G2 ⊕ r)`` (I at x = z, dead elsewhere), fresh killers beside it and every
  chain layer from the step indicators' u carried (a carried killer would be a live zero
  at x = z, σ'(0) ≠ 0, where the chain's gradients pile up and overflow), then one layer
  ``σ(c ⊗ R − G1 − G2 ⊕ B)`` per transfer weight c
  (:func:`fpsmt.constructions.relu.transfer_weights`, every c in K = {−1} ∪ (0, 2^q]),
  its bias B = I ⊖ (c ⊗ I) resetting the neuron to exactly I at x = z (ReLU's reset chain
  scaled by I), so every σ' on the path is 1; the last layer also holds
  ``N = σ(−G1 − G2 ⊕ I)`` and the output is ``w_out ⊗ R ⊕ (−w_out) ⊗ N``.  The chain
  carries h to t = g/(w_x·2^k0): w_x = 1 unless 2^−k0·g is not finite (then w_x = 2).
* the shallow gradient atom (``variant="shallow"``, :func:`shallow_chain_neuron`): after
  the gate a normalize layer (the chain layer of weight 1, bias +0) adds K = I beside R;
  each later layer cancels c ⊗ R against (−c) ⊗ K exactly at x = z, so its weight needs no
  reset and goes up to 2^(e_max − 2 − a) (:func:`shallow_cap`); the killers enter with
  weight −1/2 so that every pre-activation stays finite where the chain is killed.
* the Theorem 3.1 network: the gradient atoms of the points with g* ≠ 0, then the value
  atoms' pieces, side by side at one depth (carries in the steps), one output row.

δ = −1 (ELU; the blocks need a = 0, I = 1, and check every sum below exactly in the
format, :func:`block_constants`).  A dead neuron is −1, not a zero, so what the blocks add
of it must cancel exactly:

* kill B's bias is I + δ = 0: (−1)·δ ⊕ 0 = I where kill A is dead.  u ∈ {I, δ}.
* the killers' bias is G + W·δ = G − W with W = 2^e_max: a dead u gives W ⊕ (G − W) = G,
  u = I gives G − 2W <= −D (finite).  Beside the killers, C = σ(+0 ⊗ u ⊕ 2) = 2 (:func:`constant`),
  and every gated neuron adds δ ⊗ C after −G1 − G2 (:func:`gated`; the killers and C come
  first in their layer): 1 ⊕ 1 ⊕ (−2) = +0 at x = z, then its own terms.
* u is carried by ``σ(2^b ⊗ u ⊕ (1 − 2^b))`` (:func:`carry_u`; σ(−1) is not −1): 1 stays
  1, −1 goes to 1 − 2^(b+1) <= −D, dead again.
* value atom: beside the killers K = ``σ(1 ⊖ u_ge/2 ⊖ u_le/2)`` (+0 at x = z, 1
  elsewhere), carried beside N1, N2; then ``M = σ(N ⊕ K)``: n at x = z, δ ⊕ 1 = +0
  elsewhere; the output is ``w1 ⊗ M1 ⊕ w2 ⊗ M2``.  With a = 0 the value is never capped
  (w2 = +0, one term).  One layer more than for δ a zero.  The backward pass dies at N
  (x ≠ z) and at the killers (x = z); K's path dies at kill A or kill B.
* gradient atom: the same chain; its output ``w_out ⊗ R ⊕ (−w_out) ⊗ N`` is
  (−w_out) ⊕ w_out = +0 at x ≠ z, where R and N are both −1 (the gradient atoms come first
  in the theorem's output row, so their terms meet a zero running sum).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from fractions import Fraction


from fpsmt.constructions import relu as R
from fpsmt.constructions.registry import Construction, HiddenActivation
from fpsmt.constructions import saturating as S
from fpsmt.constructions.saturating import first_bias, sigma_bits, step_biases
from fpsmt.errors import InputError
from fpsmt.semantics.network import Param

FAMILY = "rectifying"
NEG0 = R.NEG0

#: σ of the hidden layers while a construction of this family is active (default gelu)
hidden = HiddenActivation("gelu")
hidden_activation = hidden.using

#: the search for the witnesses a, b stops here (σ is refused beyond)
MAX_EXPONENT = 16
#: amplification layers at most
MAX_STAGES = 12


@dataclass(frozen=True)
class BlockConstants:
    activation: str
    a: int  # σ(t) = t, σ'(t) = 1 for finite t >= 2^a (R.identity)
    b: int  # σ(t), σ'(t) zeros for finite t <= −2^b (R.dead)
    k0: int  # σ'(±0) = 2^k0, k0 ∈ {0, −1} (R.zero)
    stages: tuple  # ("flip", β pattern) or ("mul", K pattern), input side first
    kill: int  # B1 = 2^kill
    G: int  # the killers' value (pattern)
    W: int  # the killers' weight on u (pattern)
    dead: int = 0  # δ: σ's value on its dead side, 0 (a zero: GELU, Swish) or −1 (ELU)
    Gb: int = 0  # the killers' bias (pattern): G + W·δ, so that a dead u gives exactly G
    recarry: int = 0  # δ ≠ 0: u ∈ {I, δ} is carried by σ(Kc ⊗ u ⊕ (I − Kc·I)), Kc = 2^recarry

    @property
    def I(self):  # noqa: E743 - the paper-style name of the identity threshold
        return Fraction(2) ** self.a

    @property
    def step_depth(self):
        return 1 + len(self.stages) + 2

    def is_dead(self, v):
        """v (a float of a scope) is σ's dead value δ: a zero (either sign), or −1."""
        return v.is_zero() if not self.dead else v.same(self.dead)

    @property
    def dead_text(self):
        return "a zero" if not self.dead else str(self.dead)

    @property
    def value_depth(self):
        """Layers of a value atom at its least depth: the steps, the killers, N, the output
        (δ ≠ 0: and the layer M = σ(N ⊕ K) that turns δ into +0)."""
        return self.step_depth + 3 + (1 if self.dead else 0)


def _witnesses(fmt, name):
    """(a, b, k0, δ) read off σ's values at a few points (δ: the dead value, 0 for a zero or
    −1), or an InputError naming the requirement that cannot hold.  The requirements prove
    them for every t."""
    one, minus_one = fmt.round(Fraction(1)), fmt.round(Fraction(-1))
    a, b, dead = _identity_exponent(fmt, name), None, 0
    for k in range(0, min(MAX_EXPONENT, fmt.e_max - 2) + 1):
        t = Fraction(2) ** k
        neg = [fmt.round(-t), fmt.next_down(fmt.round(-t)), fmt.round(-3 * t / 2), fmt.round(-2 * t)]
        vals = [sigma_bits(fmt, name, p) for p in neg]
        if all(fmt.is_zero(d) for _, d in vals):
            if all(fmt.is_zero(v) for v, _ in vals):
                b = k
                break
            if all(v == minus_one for v, _ in vals):
                b, dead = k, -1
                break
    if a is None:
        raise InputError(f"{name} is not the identity (σ(t) = t, σ'(t) = 1) beyond any 2^k <= 2^{MAX_EXPONENT} in "
                         f"{fmt.name}: the {FAMILY} construction needs it (requirement R.identity)")
    if b is None:
        raise InputError(f"{name} is not dead (σ(t) a zero or −1 throughout, σ'(t) a zero) below any −2^k >= "
                         f"−2^{MAX_EXPONENT} in {fmt.name}: "
                         f"the {FAMILY} construction needs it (requirement R.dead)")
    v0, d0 = sigma_bits(fmt, name, 0)
    if not fmt.is_zero(v0) or d0 not in (one, fmt.round(Fraction(1, 2))):
        raise InputError(f"{name}(0) is not a zero with σ'(0) ∈ {{1/2, 1}} in {fmt.name} (requirement R.zero)")
    k0 = 0 if d0 == one else -1
    if not fmt.is_finite(sigma_bits(fmt, name, 1)[0]) or fmt.to_fraction(sigma_bits(fmt, name, 1)[0]) <= 0:
        raise InputError(f"{name}(ω) is not positive in {fmt.name} (requirement R.sign)")
    return a, b, k0, dead


def _identity_exponent(fmt, name):
    """The least a (at most MAX_EXPONENT) with σ(t) = t and σ'(t) = 1 at 2^a and a few floats
    above it, or None."""
    one = fmt.round(Fraction(1))
    for k in range(0, min(MAX_EXPONENT, fmt.e_max - 2) + 1):
        t = Fraction(2) ** k
        pts = [fmt.round(t), fmt.next_up(fmt.round(t)), fmt.round(3 * t / 2), fmt.round(2 * t)]
        if all(sigma_bits(fmt, name, p) == (p, one) for p in pts):
            return k
    return None


@functools.lru_cache(maxsize=None)
def _constants(name, fmt_name):
    from fpsmt.semantics.formats import parse_format
    f = parse_format(fmt_name)
    if f.M > f.e_max:
        raise InputError(f"{f.name}: the {FAMILY} blocks need M <= e_max (the reset chain's values stay >= I)")
    a, b, k0, dead = _witnesses(f, name)
    if dead and a != 0:
        raise InputError(f"{name} in {f.name}: its dead side is −1 and its identity starts at 2^{a}; the {FAMILY} blocks "
                         "for a dead value −1 need the identity from 1 (a = 0)")
    m = max(a, b)
    I, D = Fraction(2) ** a, Fraction(2) ** b
    target = Fraction(2) ** (m + 2)
    om = f.to_fraction(1)
    top = Fraction(2) ** f.e_max
    rnd = lambda q: f.to_fraction(f.round(q))  # noqa: E731

    def sig(q):
        return f.to_fraction(sigma_bits(f, name, f.round(q))[0])

    def up(lo, hi):
        """σ's bounds on [lo, hi] ⊂ (0, ∞), floats: σ(lo), σ(hi) (R.monotone)."""
        return sig(lo), sig(hi)

    on_pos = True  # the side x >= z holds the positive interval
    lo, hi = up(om, rnd(top / 2 * (1 + Fraction(1, 2 ** f.M))))  # σ(x ⊖ z⁻) there
    stages = []
    while not (on_pos and lo >= target):
        if len(stages) >= MAX_STAGES:
            raise InputError(f"{name} in {f.name}: σ(ω) is not carried to 2^{m + 2} by {MAX_STAGES} layers")
        K = top
        while K * hi > top:
            K /= 2
        if K >= 4 and rnd(K * lo) > lo:
            stages.append(("mul", f.round(K)))
            lo, hi = up(rnd(K * lo), rnd(K * hi))
        else:
            stages.append(("flip", f.round(lo)))
            lo, hi = up(lo, rnd(lo + 1))
            on_pos = not on_pos
    B1 = Fraction(2) ** (m + 1)
    if rnd(B1 - lo) > -D or rnd(I - B1) > -D:
        raise InputError(f"{name} in {f.name}: the step indicator's kill layers do not reach −2^{b}")  # pragma: no cover
    topf = f.Omega
    W = topf / I if not dead else top  # δ = −1 (I = 1): W + (G − W) = G, and −W ⊕ (G − W) <= −D stays finite
    G = f.round(topf - D)
    while topf - f.to_fraction(G) < D:
        G = f.next_down(G)
    Gv = f.to_fraction(G)
    Gb = Gv + W * dead
    Kc = b if dead else 0  # δ = −1: u's carry Kc ⊗ u ⊕ (1 − Kc), 1 at u = 1 and 1 − 2·Kc <= −D at u = −1
    if dead:
        # every sum the δ = −1 blocks rely on, checked exactly in the format
        exact = lambda q: f.is_finite(f.round(q)) and rnd(q) == q  # noqa: E731
        checks = [("the kill layer's bias I − 1", exact(I - 1)), ("the killers' bias G − W", exact(Gb)),
                  ("the killers at u = −1", rnd(W + Gb) == Gv),
                  ("the killers at u = I", f.is_finite(f.round(-W + Gb)) and rnd(-W + Gb) <= -D),
                  ("u's carry bias 1 − 2^b", exact(1 - Fraction(2) ** Kc)),
                  ("u's carry at u = −1", rnd(-(Fraction(2) ** Kc) + 1 - Fraction(2) ** Kc) <= -D)]
        bad = [what for what, ok in checks if not ok]
        if bad:
            raise InputError(f"{name} in {f.name}: the {FAMILY} blocks for a dead value −1 do not compute exactly here "
                             f"({bad[0]})")
    r_max = rnd(top + I)  # the gradient atom's path at x ≠ z
    q = R.step_cap(f)
    # a chain neuron adds its bias, at most 2^(q+1)·I (its weight meets a zero at x ≠ z)
    need = max(r_max, Fraction(2) ** (f.e_max - 1), Fraction(2) ** (q + 1) * I) + D + 3 * abs(dead)
    if Gv < need:
        raise InputError(f"{name} in {f.name}: the killers' value {Gv} is below {need}: the gated neurons would not "
                         f"be dead at x ≠ z (e_max = {f.e_max} is too small for D = 2^{b})")
    return BlockConstants(name, a, b, k0, tuple(stages), m + 1, G, f.round(W), dead, f.round(Gb), Kc)


def block_constants(fmt, name=None) -> BlockConstants:
    """The blocks' constants for σ (default: the active one) in ``fmt``."""
    return _constants(name or hidden(), fmt.name)


def piece_bound(fmt, H=None) -> Fraction:
    """V = 2^(e_max−1): a value atom's N1 stays below the killers' value (H plays no part:
    every output weight has magnitude <= 1)."""
    return Fraction(2) ** (fmt.e_max - 1)


def uncapped_bound(fmt) -> Fraction:
    """L: a value atom of |v| >= L has the output terms (v, a zero); below L, 2^(a − e_v) does
    not fit beside |v| and the value is (I + |v|·2^j) ⊗ w ⊕ I ⊗ (−w), two nonzero terms
    (:func:`value_params`)."""
    return Fraction(2) ** (block_constants(fmt).a - fmt.M + fmt.e_min)


# ------------------------------------------------------------------ blocks
def block_plan(fmt):
    return R.Plan(fmt, activation=hidden())


def step_neurons(fmt, kind, tag=None, carries=0):
    """The layers of one step indicator as Plan neurons (one per layer), on input x."""
    c = block_constants(fmt)
    tag = tag or kind
    out = [[(f"{tag}0", [("x", 1 if kind == "ge" else -1)], Param(f"{tag}_b"))]]

    def nxt(ins, bias):
        i = len(out)
        out.append([(f"{tag}{i}", [(f"{tag}{i - 1}", w) for w in ins], bias)])
    for op, v in c.stages:  # Plan entries are numbers: the patterns' values
        if op == "mul":
            nxt([fmt.to_fraction(v)], NEG0)
        else:
            nxt([-1], fmt.to_fraction(v))
    for _ in range(carries):
        nxt([1], NEG0)
    nxt([-1], Fraction(2) ** c.kill)
    nxt([-1], c.I + c.dead)  # (−1)·δ ⊕ (I + δ) = I exactly
    return out


def step(s, z, kind):
    """The step indicator alone: output u (I where the step holds, ±0 elsewhere)."""
    return R.block_alone(block_plan(s.fmt), step_neurons(s.fmt, kind), 1, NEG0), {f"{kind}_b": first_bias(s, z, kind)}


def steps_and_killers(fmt, P, carries=0, side=None):
    """The two step indicators side by side, then the killers G1, G2.  ``side(k)`` adds
    neurons beside layer k (k = 0 … the killers' layer)."""
    c = block_constants(fmt)
    ge, le = step_neurons(fmt, "ge", carries=carries), step_neurons(fmt, "le", carries=carries)
    layers = [ge[k] + le[k] for k in range(len(ge))]
    layers.append(killers(fmt, c, ge[-1][0][0], le[-1][0][0]))
    for k, layer in enumerate(layers):
        P.add(layer + (side(k) if side else []))
    return len(layers)


def killers(fmt, c, ge, le, tag=""):
    """The killers ``G1{tag}`` = σ(Gb ⊖ W ⊗ u_ge) and ``G2{tag}`` (from u_le), ``ge`` and ``le``
    the names of u_ge, u_le: G where their step fails (x ≠ z, one side each), dead at x = z."""
    W, Gb = -fmt.to_fraction(c.W), fmt.to_fraction(c.Gb)
    return [(f"G1{tag}", [(ge, W)], Gb), (f"G2{tag}", [(le, W)], Gb)]


GATED = [("G1", -1), ("G2", -1)]


def constant(src, name="C"):
    """δ ≠ 0: the neuron C = σ(+0 ⊗ src ⊕ 2) = 2 (I = 1) beside every pair of killers.  Its one
    weight is +0, as every absent entry of its row is (src finite: +0 ⊗ src is a zero); it
    ties C to its block, so that the block-wise evaluator keeps the blocks apart."""
    return (name, [(src, 0)], 2)


def gated(c):
    """A gated neuron's inputs: −G1 − G2, and for δ = −1 also δ ⊗ C, so that the killers' two
    dead values at x = z, (−1)·δ twice, are cancelled exactly: 1 ⊕ 1 ⊕ (−2) = +0 (the killers
    and C come first in the previous layer)."""
    return GATED + ([("C", c.dead)] if c.dead else [])


def carry_u(c, src, name):
    """u ∈ {I, δ} carried one layer: σ(1 ⊗ u) for δ a zero; σ(Kc ⊗ u ⊕ (I − Kc)) for δ = −1
    (σ(−1) is not −1: the carry re-kills)."""
    if not c.dead:
        return (name, [(src, 1)], NEG0)
    Kc = Fraction(2) ** c.recarry
    return (name, [(src, Kc)], c.I - Kc * c.I)


def point(s, z):
    """1[x = z] alone: a value atom of value 1."""
    return value_atom(s, z, s.const(1))


def value_params(s, v):
    """(n1, n2, w1, w2) of a value atom of value v (see the module docstring)."""
    f = s.fmt
    c = block_constants(f)
    I = s.int_pow2(c.a)
    zero = v.is_zero()
    vv = s.where(zero, 1, v)
    av = abs(vv)
    e = R.true_exponent(s, vv)
    cap = f.M - f.e_min
    j = s.iwhere(e >= c.a, 0, c.a - e)
    capped = j > cap
    j = s.iwhere(capped, cap, j)
    q = R.step_cap(f)
    # |v| ⊗ 2^j in two exact scalings (2^j itself may not be finite)
    j1 = s.iwhere(j > q, q, j)
    Vp = (av * j1.pow2()) * (j - j1).pow2()
    w = (-j).pow2()
    sw = s.where(vv.is_negative(), -w, w)
    n1 = s.where(capped, I + Vp, Vp)
    n2 = I
    w2 = s.where(capped, -sw, s.const(0))
    return (s.where(zero, I, n1), s.where(zero, I, n2), s.where(zero, s.const(0), sw), s.where(zero, s.const(0), w2))


def _value_plan(fmt, depth=None):
    c = block_constants(fmt)
    depth = R.atom_depth(depth, c.value_depth, "value atom")
    P = block_plan(fmt)
    carries = depth - c.value_depth
    if not c.dead:
        steps_and_killers(fmt, P, carries=carries)
        P.add([("N1", GATED, Param("n1")), ("N2", GATED, Param("n2"))])
        P.add([("out", [("N1", Param("w1")), ("N2", Param("w2"))], NEG0)])
    else:
        # K = σ(1 ⊖ u_ge/2 ⊖ u_le/2): +0 at x = z, 1 elsewhere (exact); M = σ(N ⊕ K): N at x = z,
        # δ ⊕ 1 = +0 elsewhere, so the output terms are zeros there (σ'(N) = 0 kills the path)
        kill = c.step_depth + carries  # the killers' layer; the step indicators' last is kill − 1
        last = kill - 1
        half = Fraction(-1, 2)

        def side(k):
            return [constant(f"ge{last}"), ("K", [(f"ge{last}", half), (f"le{last}", half)], 1)] if k == kill else []
        steps_and_killers(fmt, P, carries=carries, side=side)
        P.add([("N1", gated(c), Param("n1")), ("N2", gated(c), Param("n2")), ("K", [("K", 1)], NEG0)])
        P.add([("M1", [("N1", 1), ("K", 1)], NEG0), ("M2", [("N2", 1), ("K", 1)], NEG0)])
        P.add([("out", [("M1", Param("w1")), ("M2", Param("w2"))], NEG0)])
    return P


def value_network(fmt, depth=None):
    """The value atom's network with its parameters named (:func:`value_atom` gives their
    values)."""
    return _value_plan(fmt, depth).network()


def value_layers(fmt, depth=None):
    """The killers' layer index: layers 0 … it are the atom's gate (the step indicators and
    the killers; δ ≠ 0: also C and K), the rest its top (N, for δ ≠ 0 M, the output)."""
    c = block_constants(fmt)
    return c.step_depth + R.atom_depth(depth, c.value_depth, "value atom") - c.value_depth


def value_state(fmt):
    """The names of the killers' layer's neurons, in order (G1, G2; δ ≠ 0: C, K)."""
    return tuple(_value_plan(fmt).names[value_layers(fmt) + 1])


def value_atom(s, z, v, depth=None):
    """v·1[x = z] with D^AD = ±0 for every finite upstream, for |v| <= V (:func:`piece_bound`);
    ``depth`` (>= the least, :attr:`BlockConstants.value_depth`) by carries in the steps."""
    n1, n2, w1, w2 = value_params(s, v)
    return value_network(s.fmt, depth), {**step_biases(s, z), "n1": n1, "n2": n2, "w1": w1, "w2": w2}


def gradient_depth(fmt, variant=R.REPAIRED):
    """Layers of a gradient atom at its least depth: the steps, the killers, the gate, one
    per transfer weight, the output.  ``variant="shallow"``: the normalize layer that adds
    K, then one per weight of the transfer with the cap 2^(e_max − 2 − a)
    (:func:`shallow_cap`) and ±m_g one weight."""
    return block_constants(fmt).step_depth + 3 + chain_length(fmt, variant)


def chain_length(fmt, variant=R.REPAIRED):
    """The layers after the gate but the output: the transfer's weights, or (shallow) the
    normalize layer and the shallow transfer's weights."""
    if variant == R.SHALLOW:
        return 1 + R.transfer_length(fmt, q=shallow_cap(fmt), merge_sign=True)
    return R.transfer_length(fmt)


def shallow_cap(fmt):
    """q of the shallow gradient atom's chain: e_max − 2 − a.  Its layers
    (:func:`shallow_chain_neuron`) cancel c ⊗ R against (−c) ⊗ K exactly at x = z, where R =
    K = I, so no reset bounds the weight; at x ≠ z the killers enter with weight −1/2 and
    −c ⊗ K (δ = −1: and c ⊗ δ) must stay finite beside −G/2: c·I·(1 − δ) + G/2 within the
    format (checked here, one line naming the format where it is not)."""
    c = block_constants(fmt)
    q = fmt.e_max - 2 - c.a
    worst = Fraction(2) ** q * c.I * (1 - c.dead) + fmt.to_fraction(c.G) / 2 + c.I + 2
    if q < 1 or worst > fmt.Omega:
        raise InputError(f"{c.activation} in {fmt.name}: the shallow gradient atom's chain weights up to 2^{q} do not "
                         "stay finite beside the killers (the rectifying family's shallow chain)")
    return q


def path_params(s, g):
    """(w_x, t): the path's input weight and the value the chain carries h to, so that
    (t ⊗ σ'(±0)) ⊗ w_x = g exactly (proofs/rect_gradient_atom.py ``path``)."""
    c = block_constants(s.fmt)
    if c.k0 == 0:
        return s.const(1), g
    big = abs(g) >= s.int_pow2(s.fmt.e_max)
    return s.where(big, 2, 1), s.where(big, g, g * 2)


def chain_bias(s, c, I):
    """A chain neuron's bias I ⊖ (c ⊗ I): the neuron is then exactly I at x = z for every
    weight c in K = {−1} ∪ (0, 2^q] (proofs/rect_gradient_atom.py ``chain_at_z``)."""
    return I - c * I


def gradient_layers(fmt, depth=None, variant=R.REPAIRED):
    """(gate, top): the gate's layer index (R = σ(−G1 − G2 ⊕ r)) and the top's (the last
    chain layer, with N); the output layer is top + 1.  The shallow atom's normalize layer
    is gate + 1.  Above its least depth the atom has more chain layers (weights 1 first,
    :func:`gradient_atom`); the gate stays where it is."""
    c = block_constants(fmt)
    depth = R.atom_depth(depth, gradient_depth(fmt, variant), "gradient atom")
    return c.step_depth + 1, depth - 2


def _gradient_plan(fmt, depth=None, variant=R.REPAIRED):
    c = block_constants(fmt)
    gate, top = gradient_layers(fmt, depth, variant)
    last = gate - 2  # the step indicators' last layer

    def side(k):
        if k == 0:
            return [("r", [("x", Param("wx"))], Param("zb"))]
        if k == 1:
            return [("r", [("r", 1)], c.I)]
        if k == last + 1:  # the killers' layer: u carried on
            first = [constant(f"ge{last}")] if c.dead else []
            return first + [("r", [("r", 1)], NEG0), carry_u(c, f"ge{last}", "uge"), carry_u(c, f"le{last}", "ule")]
        return [("r", [("r", 1)], NEG0)]
    P = block_plan(fmt)
    steps_and_killers(fmt, P, carries=last + 1 - c.step_depth, side=side)
    # fresh killers beside the gate and the chain, from the step indicators' u carried
    # (exact: I or a zero): dead at x = z, where a carried zero would be alive (σ'(0) ≠ 0) and
    # pile up the chain's gradients until they overflow
    carry = killers(fmt, c, "uge", "ule") + ([constant("uge")] if c.dead else []) \
        + [carry_u(c, "uge", "uge"), carry_u(c, "ule", "ule")]
    GT = gated(c)

    def with_carry(neurons):
        # δ = −1: the killers and C first, so that their terms cancel before R's is added
        return carry + neurons if c.dead else neurons + carry
    P.add(with_carry([("R", GT + [("r", 1)], NEG0)]))
    if variant == R.SHALLOW:
        # normalize: R carried (the repaired chain layer of weight 1, bias I ⊖ I = +0) and K = I
        P.add(with_carry([("R", [("R", 1)] + GT, NEG0), constant_k(c)]))
        for k in range(gate + 2, top):
            P.add(with_carry([shallow_chain_neuron(c, k), constant_k(c)]))
        P.add([shallow_chain_neuron(c, top), ("N", GT, c.I)])
    else:
        for k in range(gate + 1, top):
            P.add(with_carry([chain_neuron(c, k)]))
        P.add([chain_neuron(c, top), ("N", GT, c.I)])
    P.add([("out", [("R", Param("w_out")), ("N", Param("mw_out"))], NEG0)])
    return P


def constant_k(c):
    """The shallow chain's K = σ(+0 ⊗ u_ge ⊕ I) = I (R.identity), beside R in every layer
    after the gate: a constant (its one weight +0 ties it to its block, as C's)."""
    return ("K", [("uge", 0)], c.I)


def half_gated(c):
    """A shallow chain neuron's killer terms: (−1/2) ⊗ G1, (−1/2) ⊗ G2 (δ = −1: and
    (−1/2) ⊗ C, which cancels the killers' dead values exactly at x = z: 1/2 ⊕ 1/2 ⊕ (−1))."""
    half = Fraction(-1, 2)
    return [("G1", half), ("G2", half)] + ([("C", half)] if c.dead else [])


def shallow_chain_neuron(c, k):
    """Shallow chain layer k's path neuron R = σ(c_k ⊗ R ⊕ n_k ⊗ K ⊕ (−1/2) ⊗ G1 ⊕
    (−1/2) ⊗ G2 (⊕ (−1/2) ⊗ C) ⊕ I), n_k = −c_k: at x = z, R = K = I, so c ⊗ I ⊕ (−c) ⊗ I is
    +0 exactly and R is exactly I for every weight c with c ⊗ I finite; at x ≠ z, R is dead
    and one killer is G, so the pre-activation is at most −G/2 plus a few I: dead."""
    return ("R", [("R", Param(f"c{k}")), ("K", Param(f"n{k}"))] + half_gated(c), c.I)


def chain_neuron(c, k):
    """Chain layer k's path neuron R = σ(c_k ⊗ R − G1 − G2 (⊕ δ ⊗ C) ⊕ B_k) (``c`` the block
    constants)."""
    return ("R", [("R", Param(f"c{k}"))] + gated(c), Param(f"B{k}"))


def gradient_network(fmt, depth=None, variant=R.REPAIRED):
    """The gradient atom's network with its parameters named (:func:`gradient_atom` gives
    their values): the step indicators with the path r beside them, the killers, the gate
    R (layer ``gate`` of :func:`gradient_layers`), one chain layer per transfer weight (the
    last, ``top``, with N), the output."""
    return _gradient_plan(fmt, depth, variant).network()


def gradient_names(fmt, depth=None, variant=R.REPAIRED):
    """The names of every layer's neurons, layer by layer (the input x first)."""
    return [tuple(n) for n in _gradient_plan(fmt, depth, variant).names]


def gradient_state(fmt, variant=R.REPAIRED):
    """The names of the gate layer's neurons, in order: the state every chain layer but the
    top keeps (R, the fresh killers G1, G2, C for δ ≠ 0, and the carried u's); the shallow
    chain's (``variant``) adds K after R (the normalize layer's neurons)."""
    gate = gradient_layers(fmt, None, variant)[0]
    return gradient_names(fmt, None, variant)[gate + 1 + (1 if variant == R.SHALLOW else 0)]


def gradient_atom(s, z, h, g, depth=None, variant=R.REPAIRED):
    """Value ±0 on X; D^AD(h) = g at x = z; D^AD(y) = ±0 elsewhere for every finite y
    (h, g finite nonzero).  See the module docstring and :func:`gradient_network`: the
    chain weights (input side first) are c_{gate+1} … c_top, each bias I ⊖ (c ⊗ I); the
    shallow atom's (``variant``) c_{gate+2} … c_top with n_k = −c_k (the transfer with the
    cap 2^(e_max − 2 − a), ±m_g one weight)."""
    f = s.fmt
    net = gradient_network(f, depth, variant)
    gate, top = gradient_layers(f, depth, variant)
    I = s.int_pow2(block_constants(f).a)
    wx, t = path_params(s, g)
    shallow = variant == R.SHALLOW
    w_out, chain = (R.transfer_weights(s, h, t, q=shallow_cap(f), merge_sign=True) if shallow
                    else R.transfer_weights(s, h, t))
    params = {**step_biases(s, z), "wx": wx, "zb": -(wx * z), "w_out": w_out, "mw_out": -w_out}
    # forward order: input side first (shallow: after the normalize layer); above the least
    # depth, weights 1 first (bias I ⊖ I = +0; shallow: n = −1): u ⊗ 1 = u
    layers = range(gate + (2 if shallow else 1), top + 1)
    ws = [s.const(1)] * (len(layers) - len(chain)) + list(reversed(chain))
    for k, w in zip(layers, ws, strict=True):
        if shallow:
            params[f"c{k}"], params[f"n{k}"] = w, -w
        else:
            params[f"c{k}"], params[f"B{k}"] = w, chain_bias(s, w, I)
    return net, params


# ------------------------------------------------------------------ Theorem 3.1
def theorem_network(fmt, points, variant=R.REPAIRED, depth=None):
    """f = f2 ⊞ f1 for ``points`` = [(z, f*, h*, g*)] (bit patterns): the gradient atoms of
    the points with g* ≠ 0, then the value atoms' pieces (nonzero f* only), at one depth.
    ``variant="shallow"``: the shallow gradient atoms (:func:`shallow_chain_neuron`).
    ``depth``: at least :func:`least_depth` (:func:`theorem_depth`): the gradient atoms'
    chains begin with weights 1, the value atoms' step indicators carry longer."""
    from fpsmt.constructions.saturating import atoms_network
    _construction().check_points(fmt, points)
    return atoms_network(fmt, points, piece_bound(fmt), value_atom, functools.partial(gradient_atom, variant=variant),
                         block_constants(fmt).value_depth, gradient_depth(fmt, variant),
                         later_piece=uncapped_bound(fmt), depth=theorem_depth(fmt, depth, variant))


def value_atoms(fmt, points):
    """How many value atoms :func:`theorem_network` builds."""
    from fpsmt.constructions.saturating import pieces
    V = piece_bound(fmt)
    return sum(len(pieces(fmt, v, V)) for _, v, _, _ in points if not fmt.is_zero(v)) or 1


def check_points(fmt, points):
    """The blocks' hypotheses (:func:`fpsmt.constructions.relu.check_points`); a value needs
    at most a few pieces of V = 2^(e_max−1)."""
    R.check_points(fmt, points)


def check_format(fmt):
    """The blocks' constants exist in ``fmt`` (one line naming what fails)."""
    block_constants(fmt)


def depth(fmt, variant=R.REPAIRED):
    """The depth of the theorem's network with a gradient atom (of ``variant``)."""
    return max(gradient_depth(fmt, variant), block_constants(fmt).value_depth)


def least_depth(fmt, variant=R.REPAIRED):
    """The theorem's network's least depth (``construct --depth`` pads above it)."""
    return depth(fmt, variant)


def theorem_depth(fmt, depth=None, variant=R.REPAIRED):
    """``depth`` checked (None: the least): at least :func:`least_depth`, and at most
    :data:`fpsmt.constructions.relu.PADDING_MAX` above it, which the value atom's carry
    induction and the gradient atom's chain inductions cover (proofs/rect_value_atom.py,
    proofs/rect_gradient_atom.py); one error line otherwise."""
    return S.padded_depth(fmt, depth, least_depth(fmt, variant), block_constants(fmt).value_depth, hidden(),
                          "rect_value_atom's carry induction, rect_gradient_atom's chain inductions and padding")


#: the gradient atoms this family builds (``construct --variant``)
ATOM_VARIANTS = (R.REPAIRED, R.SHALLOW)


# ------------------------------------------------------------------ the construction
def _fits(activation):
    """Whether σ is the identity above some 2^a in float32: this family is then the one
    offered to an activation without a construction of its own (its requirements, R.dead
    included, decide per format whether a network is built)."""
    from fpsmt.semantics.formats import parse_format
    return _identity_exponent(parse_format("float32"), activation) is not None


def user_construction(activation):
    """This family's construction for an activation without one of its own whose shape is
    this family's (:func:`_fits`), else None.  X and H are the paper's for GELU and Swish's
    kind (specs/requirements.py ``THEOREM``)."""
    import importlib
    from fpsmt.constructions.saturating import theorem_constants
    from fpsmt.semantics.activations import get_activation
    theorems = importlib.import_module("fpsmt.specs.theorems")
    name = get_activation(activation).name
    if not _fits(activation):
        return None
    if name in theorems.FIRST_FOUR:
        return Construction(activation, FAMILY, sys.modules[__name__], theorem_constants(name), paper_depth=7)

    def constants(fmt):
        m, hb = importlib.import_module("fpsmt.specs.requirements").THEOREM[FAMILY](fmt)
        return theorems.stated(activation, fmt, m, hb)
    return Construction(activation, FAMILY, sys.modules[__name__], constants, paper_depth=None)


def _make(name):
    from fpsmt.constructions.saturating import theorem_constants
    return Construction(name, FAMILY, sys.modules[__name__], theorem_constants(name), paper_depth=7)


CONSTRUCTIONS = [_make("gelu"), _make("swish"), _make("elu")]


def _construction():
    from fpsmt.constructions.registry import constructions
    return constructions()[hidden()]
