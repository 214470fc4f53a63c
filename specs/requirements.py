"""Requirements of the constructions on their activation, beyond Conditions 1–3.

A construction family builds its blocks from properties of σ that Conditions 1–3 (as
BRIEF §6 reads them) do not state.  Each family lists them here as claims, decided per
activation × format like the conditions (``fpsmt conditions`` reports them;
``fpsmt construct`` refuses a format where one is not PROVED, naming it).  The blocks'
constants are their witnesses (the saturation exponent T).  The construction's lemmas
(``proofs/sat_*.py``) are proved per activation × format with σ's own correctly rounded
values; the requirements are what the builder needs to exist and what a user's activation
must pass before its lemmas are tried.

Family ``saturating`` (fpsmt.constructions.saturating; tanh):

* ``R.zero``: σ(±0) is a zero (either sign) and σ'(±0) = 1 — the gradient atom's path is a
  zero at x = z and passes its gradient on unchanged;
* ``R.saturation``: ∃ k >= 1 (the witness is the blocks' T) ∀ finite t with |t| >= 2^k:
  σ(t) = sign(t)·1 and σ'(t) = 0 (+0 or −0) — the indicators land there, and the backward
  pass dies there;
* ``R.sign``: for every finite t, σ(t) > 0 if t > 0 and σ(t) <= 0 if t <= 0 — a step
  indicator's first layer x ⊖ z⁻ keeps its sign through σ (σ(ω) > 0 included);
* ``R.bounded``: |σ(t)| <= 1 for every finite t — hidden values stay finite under any
  weight of the blocks.

Family ``rectifying`` (fpsmt.constructions.rectifying; GELU, Swish):

* ``R.zero``: σ(±0) is a zero and σ'(±0) ∈ {1/2, 1} — the gradient atom's path is a zero
  at x = z and scales its gradient by an exact power of two;
* ``R.identity``: ∃ a >= 0 (the blocks' a) ∀ finite t >= 2^a: σ(t) = t and σ'(t) = 1 —
  every value the blocks carry is there or a zero;
* ``R.dead``: ∃ b >= 0 (the blocks' b) ∀ finite t <= −2^b: σ'(t) is a zero and σ(t) is δ,
  either a zero (GELU, Swish) or −1 throughout (ELU; the blocks then cancel δ exactly, see
  fpsmt.constructions.rectifying) — the indicators and gates land there, and the backward
  pass dies there;
* ``R.sign``: σ(t) > 0 for t > 0 and −1 <= σ(t) <= 0 for t <= 0 — the step indicator's
  first layer keeps its sign, and the negative side stays bounded under any weight;
* ``R.monotone``: σ(t) <= σ(t⁺) for every finite t >= 0 below the largest float (so σ is
  non-decreasing on [0, ∞)) — the amplification layers' bounds are σ's values at the ends
  of their intervals.

Family ``logistic`` (fpsmt.constructions.logistic; sigmoid):

* ``R.zero``: σ(±0) = 1/2 and σ'(±0) = 1/4 — the gradient atom's path sits at 1/2 and
  scales its gradient by 1/4 per neuron, which its weights undo;
* ``R.saturation``: ∃ k (the blocks' T) ∀ finite t: σ(t) = 1 for t >= 2^k and σ(t) a zero
  for t <= −2^k, σ'(t) a zero on both — the indicators and the gate land there (the blocks
  take either zero: a zero times a weight is a zero that no exact sum of theirs notices);
* ``R.limits``: σ(+∞) = 1, σ(−∞) a zero and σ'(±∞) zeros — a step indicator's first
  layer w ⊗ x may overflow;
* ``R.step``: σ(D) > σ(0) for D = 2^e_max·ω — the least pre-activation a step
  indicator's first layer gives at x = z is seen by σ;
* ``R.monotone``: σ(t) <= σ(t⁺) for every finite t — the separation layers' bounds are
  σ's values at the ends of their intervals.

How they relate to BRIEF §6: C2's |σ'(δ1)| = 2^k with δ1 = 0 and C3's route 2
(|σ'(0)| >= 2^−p) are implied by R.zero (k = 0); C1(b)'s step (σ(η) < σ(η⁺) with σ
separating the two sides) is what R.sign gives at η = 0 for the step indicators, and
R.saturation is the sharpening C1's iteration of σ∘affine performs, stated where it ends.
They are not equivalent to C1–C3: an activation can satisfy C1–C3 and fail R.saturation
(ReLU, ELU, GELU, Swish: one side is not constant) — those need another family.  The
rectifying family's R.zero gives C2's power-of-two σ'(δ1) at δ1 = 0 (k ∈ {−1, 0}) and C3's
route 2; R.sign gives C1(b)'s step at η = 0; R.identity and R.dead are where C1's
iteration of σ∘affine ends on each side (C2's δ0 is a dead point).
"""

from fractions import Fraction

from fpsmt.proof.claims import Float, Int, exists_forall, forall


def _T(fmt, activation):
    from fpsmt.constructions.saturating import saturation_exponent
    return saturation_exponent(fmt, activation)


def zero(activation):
    def goal(s):
        v, d = s.sigma(activation, s.t), s.sigma_prime(activation, s.t)
        return [v.is_zero(), d.same(1)]
    return forall("R.zero", {"t": Float(range=(0, 0))}, goal=goal,
                  doc="σ(±0) is a zero and σ'(±0) = 1")


def saturation(activation):
    def lo(f):
        T = _T(f, activation)
        return T if T is not None and T >= 1 else 1

    def hi(f):
        T = _T(f, activation)
        return T if T is not None and T >= 1 else f.e_max - 1

    def goal(s):
        big = s.k.pow2()
        v, d = s.sigma(activation, s.t), s.sigma_prime(activation, s.t)
        return [(s.t >= big).implies(v.same(1) & d.is_zero()), (s.t <= -big).implies(v.same(-1) & d.is_zero())]
    return exists_forall("R.saturation", {"k": Int(lo, hi)}, {"t": Float(finite=True)}, goal=goal,
                         doc="∃ k >= 1 ∀ finite t, |t| >= 2^k: σ(t) = sign(t)·1 and σ'(t) = ±0")


def sign(activation):
    def goal(s):
        v = s.sigma(activation, s.t)
        return [(s.t > 0).implies(v > 0), (s.t <= 0).implies(v <= 0)]
    return forall("R.sign", {"t": Float(finite=True)}, goal=goal,
                  doc="σ(t) > 0 for t > 0 and σ(t) <= 0 for t <= 0")


def bounded(activation):
    return forall("R.bounded", {"t": Float(finite=True)},
                  goal=lambda s: [abs(s.sigma(activation, s.t)) <= 1], doc="|σ(t)| <= 1 for every finite t")


def _rect(fmt, activation):
    from fpsmt.constructions.rectifying import block_constants
    from fpsmt.errors import InputError
    try:
        return block_constants(fmt, activation)
    except InputError:
        return None


def _pinned(which, default):
    """An Int domain pinned to the blocks' witness (``which`` of their constants), or the
    whole range when σ has none in the format (the solver then looks for one)."""
    def lo(f, act):
        c = _rect(f, act)
        return getattr(c, which) if c is not None else 0

    def hi(f, act):
        c = _rect(f, act)
        return getattr(c, which) if c is not None else default(f)
    return lo, hi


def rect_zero(activation):
    def goal(s):
        v, d = s.sigma(activation, s.t), s.sigma_prime(activation, s.t)
        return [v.is_zero(), d.same(1) | d.same(Fraction(1, 2))]
    return forall("R.zero", {"t": Float(range=(0, 0))}, goal=goal,
                  doc="σ(±0) is a zero and σ'(±0) ∈ {1/2, 1}")


def identity(activation):
    lo, hi = _pinned("a", lambda f: min(16, f.e_max - 2))

    def goal(s):
        v, d = s.sigma(activation, s.t), s.sigma_prime(activation, s.t)
        return [(s.t >= s.a.pow2()).implies(v.same(s.t) & d.same(1))]
    return exists_forall("R.identity", {"a": Int(lambda f: lo(f, activation), lambda f: hi(f, activation))},
                         {"t": Float(finite=True)}, goal=goal,
                         doc="∃ a >= 0 ∀ finite t >= 2^a: σ(t) = t and σ'(t) = 1")


def dead(activation):
    lo, hi = _pinned("b", lambda f: min(16, f.e_max - 2))

    def goal(s):
        v, d = s.sigma(activation, s.t), s.sigma_prime(activation, s.t)
        c = _rect(s.fmt, activation)  # δ as the blocks read it; a zero when they find none
        value = c.is_dead(v) if c is not None else v.is_zero()
        return [(s.t <= -s.b.pow2()).implies(value & d.is_zero())]
    return exists_forall("R.dead", {"b": Int(lambda f: lo(f, activation), lambda f: hi(f, activation))},
                         {"t": Float(finite=True)}, goal=goal,
                         doc="∃ b >= 0 ∀ finite t <= −2^b: σ'(t) is a zero and σ(t) is δ, a zero or −1 "
                             "throughout (the blocks' δ)")


def rect_sign(activation):
    def goal(s):
        v = s.sigma(activation, s.t)
        return [(s.t > 0).implies(v > 0), (s.t <= 0).implies((v <= 0) & (v >= -1))]
    return forall("R.sign", {"t": Float(finite=True)}, goal=goal,
                  doc="σ(t) > 0 for t > 0 and −1 <= σ(t) <= 0 for t <= 0")


def monotone(activation):
    def goal(s):
        return [s.sigma(activation, s.t) <= s.sigma(activation, s.t.next_up())]
    return forall("R.monotone", {"t": Float(range=(0, lambda f: f.hex(f.next_down(f.max_bits))))}, goal=goal,
                  doc="σ(t) <= σ(t⁺) for every finite t >= 0 below the largest float")


def rectifying_theorem(fmt):
    """X and H for a user's activation of the rectifying family: the paper's for GELU and
    Swish (M = 2^(e_max−2), so that the first layer's 2⊗x ⊖ 2⊗z stays finite; H = Ω, since
    every output weight of the blocks has magnitude <= 1)."""
    from fractions import Fraction
    return Fraction(2) ** (fmt.e_max - 2), fmt.Omega


def saturating_theorem(fmt):
    """X = [−M, M] and H for a user's activation of the saturating family, from its
    requirements: R.bounded keeps every hidden value within [−1, 1], so only the first
    layer's x ⊖ z can overflow, and |x − z| <= 2^e_max is finite for M = 2^(e_max−1) (tanh's
    and sigmoid's X in the paper).  Any H <= Ω would do — a value atom carries at most
    Ω/(H·W), larger values are sums of atoms — and H = 2^(M−2) is tanh's, so that a user's σ
    is held to the bound the paper states for tanh."""
    from fractions import Fraction
    return Fraction(2) ** (fmt.e_max - 1), Fraction(2) ** (fmt.M - 2)


def logi_zero(activation):
    def goal(s):
        v, d = s.sigma(activation, s.t), s.sigma_prime(activation, s.t)
        return [v.same(Fraction(1, 2)), d.same(Fraction(1, 4))]
    return forall("R.zero", {"t": Float(range=(0, 0))}, goal=goal, doc="σ(±0) = 1/2 and σ'(±0) = 1/4")


def levels(activation):
    from fpsmt.constructions.logistic import saturation_exponent

    def lo(f):
        T = saturation_exponent(f, activation)
        return T if T is not None else 1

    def hi(f):
        T = saturation_exponent(f, activation)
        return T if T is not None else f.e_max - 2

    def goal(s):
        big = s.k.pow2()
        v, d = s.sigma(activation, s.t), s.sigma_prime(activation, s.t)
        return [(s.t >= big).implies(v.same(1) & d.is_zero()), (s.t <= -big).implies(v.is_zero() & d.is_zero())]
    return exists_forall("R.saturation", {"k": Int(lo, hi)}, {"t": Float(finite=True)}, goal=goal,
                         doc="∃ k >= 1 ∀ finite t: σ(t) = 1 for t >= 2^k, σ(t) a zero for t <= −2^k, σ'(t) a zero "
                             "on both")


def limits(activation):
    def goal(s):
        inf = s.const(float("inf"))
        return [s.sigma(activation, inf).same(1), s.sigma_prime(activation, inf).is_zero(),
                s.sigma(activation, -inf).is_zero(), s.sigma_prime(activation, -inf).is_zero()]
    return forall("R.limits", {"t": Float(range=(0, 0))}, goal=goal,
                  doc="σ(+∞) = 1, σ(−∞) a zero, σ'(±∞) zeros (a first layer's w ⊗ x may overflow)")


def whole_monotone(activation):
    def goal(s):
        return [s.sigma(activation, s.t) <= s.sigma(activation, s.t.next_up())]
    return forall("R.monotone", {"t": Float(finite=True)}, goal=goal,
                  doc="σ(t) <= σ(t⁺) for every finite t (σ is non-decreasing)")


def separates(activation):
    def goal(s):
        return [s.sigma(activation, s.t) > s.sigma(activation, s.const(0))]
    return forall("R.step", {"t": Float(range=(lambda f: f.hex(_least_margin(f)), lambda f: f.hex(_least_margin(f))))},
                  goal=goal, doc="σ(D) > σ(0) for D = 2^e_max·ω (a step indicator's least first-layer margin)")


def _least_margin(fmt):
    from fpsmt.constructions.logistic import least_margin
    return least_margin(fmt)


#: family -> fmt -> (M_σ, H_σ) for an activation the paper does not name
THEOREM = {"saturating": saturating_theorem, "rectifying": rectifying_theorem}

#: requirement name -> builder(activation) -> claim, per construction family
FAMILIES = {"saturating": {"R.zero": zero, "R.saturation": saturation, "R.sign": sign, "R.bounded": bounded},
            "rectifying": {"R.zero": rect_zero, "R.identity": identity, "R.dead": dead, "R.sign": rect_sign,
                           "R.monotone": monotone},
            "logistic": {"R.zero": logi_zero, "R.saturation": levels, "R.limits": limits, "R.step": separates,
                         "R.monotone": whole_monotone}}
