"""Conditions 1–3 on an activation, as claims (BRIEF §6).

Every statement is built per activation by a function returning a claim of the claim
language; integers come from the format through the domains.  Read them beside BRIEF §6.

* **C2** (role: suppress or amplify a gradient without overflow).  Provenance: a third-party
  reading of the arXiv text.  ∃ δ0, δ1 ∈ F and integers η0, η1, η2, k with
  (1) σ(δ0) ≠ σ(δ1) and |σ(δ0)|, |σ(δ1)|, |σ(δ0) ⊖ σ(δ1)| <= 2^e_max;
  (2) η0 >= 1, 2^η0 · |σ'(δ0)| <= |σ'(δ1)|, 2^−p <= |σ'(δ1)| <= 1, |σ'(δ1)| = 2^k;
  (3) −k <= η1 <= e_max and k <= η2 <= −e_min + p;
  (4) 2^(e_min + η2) <= max(|σ(δ0)|, |σ(δ1)|) <= 2^(e_max − η1).
  Products by 2^η are exact unless they over- or underflow, and in both cases the float
  comparison agrees with the real one here (|σ'(δ1)| lies in [2^−p, 1]).
* **C3** (role: the first layer can produce a prescribed gradient).  Same provenance; a
  disjunction.  Route 1: ∃ ζ, x ∈ F with x ∉ (−ζ, ζ), ζ ⊕ |x| finite, |σ'(x)| >= 2^−p, x
  with an even significand, and σ finite with magnitude <= 2^e_max at −(ζ ⊕ |x|), 0 and
  ζ ⊕ |x|.  Route 2: |σ'(0)| >= 2^−p and σ finite with |σ(0)| <= 2^e_max ("bounded near
  0", read as at 0 — a reconstruction).
* **C1** (role: the network can distinguish inputs).  Not recovered verbatim: this is
  BRIEF §6's best candidate, the CAV-2025 condition generalised with ε = 2^−M — a
  *reconstruction*.  ∃ finite c1, c2, η with
  (a) σ(c1) = 0; ε/2 + 2ε² <= |σ(c2)| <= 5/4 − 2ε; max(|c1|, |c2|) >= 2^(e_min+1); and
      ∀ finite x between c1 and c2, σ(x) lies between σ(c1) and σ(c2);
  (b) 2^(e_min+5) <= |η| <= 4 − 8ε; σ(η), σ(η⁺) finite with magnitudes in
      [2^(e_min+5), 2^(e_max−6)·|η|]; σ(η) ≠ σ(η⁺); and ∀ finite x <= η, y >= η⁺:
      σ(x) <= σ(η) < σ(η⁺) <= σ(y), or the mirror image (the direction is the one σ(η), σ(η⁺)
      take).  The optional Lipschitz clause (c) is real-valued and not stated here.
  Rational bounds are compared exactly (v >= q as v >= the least float >= q, and so on);
  the products 2^(e_max−6)·|η| are compared exactly: the float product is exact or
  overflows, and an overflow makes the bound vacuous in both readings.
"""

from fractions import Fraction

from fpsmt.proof.claims import Float, Int, exists, exists_forall


def C1(activation):
    def witness(s):
        f = s.fmt
        eps = Fraction(1, 2 ** f.M)
        sc1, sc2 = s.sigma(activation, s.c1), s.sigma(activation, s.c2)
        eta_up = s.eta.next_up()
        se, su = s.sigma(activation, s.eta), s.sigma(activation, eta_up)
        lo_b, hi_b = s.int_pow2(f.e_min + 5), s.int_pow2(f.e_max - 6) * abs(s.eta)
        return [
            sc1.eq(0), abs(sc2) >= s.ceil(eps / 2 + 2 * eps ** 2), abs(sc2) <= s.floor(Fraction(5, 4) - 2 * eps),
            (abs(s.c1) >= s.int_pow2(f.e_min + 1)) | (abs(s.c2) >= s.int_pow2(f.e_min + 1)),          # (a)
            abs(s.eta) >= s.int_pow2(f.e_min + 5), abs(s.eta) <= s.floor(4 - 8 * eps),
            se.is_finite(), su.is_finite(), abs(se) >= lo_b, abs(su) >= lo_b, abs(se) <= hi_b,
            abs(su) <= hi_b, se.ne(su), eta_up.is_finite(),                                            # (b)
        ]

    def forall_part(s):
        sx, sy = s.sigma(activation, s.x), s.sigma(activation, s.y)
        sc1, sc2 = s.sigma(activation, s.c1), s.sigma(activation, s.c2)
        se, su = s.sigma(activation, s.eta), s.sigma(activation, s.eta.next_up())
        between_x = ((s.c1 <= s.x) & (s.x <= s.c2)) | ((s.c2 <= s.x) & (s.x <= s.c1))
        between_s = ((sc1 <= sx) & (sx <= sc2)) | ((sc2 <= sx) & (sx <= sc1))
        up = (sx <= se) & (se < su) & (su <= sy)
        down = (sx >= se) & (se > su) & (su >= sy)
        sides = (s.x <= s.eta) & (s.y >= s.eta.next_up())
        return [between_x.implies(between_s), sides.implies((se < su).implies(up) & (se > su).implies(down))]
    return exists_forall(
        "C1", {"c1": Float(finite=True), "c2": Float(finite=True), "eta": Float(finite=True, nonzero=True)},
        {"x": Float(finite=True), "y": Float(finite=True)},
        such_that=witness, goal=forall_part,
        doc="Condition 1 (BRIEF §6), a reconstruction of the CAV-2025 condition with ε = 2^−M.")


def C2(activation):
    def cond(s):
        f = s.fmt
        a0, a1 = s.sigma(activation, s.d0), s.sigma(activation, s.d1)
        g0, g1 = abs(s.sigma_prime(activation, s.d0)), abs(s.sigma_prime(activation, s.d1))
        big = s.int_pow2(f.e_max)
        top = s.where(abs(a0) >= abs(a1), abs(a0), abs(a1))
        return [
            a0.ne(a1), abs(a0) <= big, abs(a1) <= big, abs(a0 - a1) <= big,                      # (1)
            s.eta0.pow2() * g0 <= g1, g1 >= s.int_pow2(-f.M), g1 <= 1, g1.eq(s.k.pow2()),          # (2)
            -s.k <= s.eta1, s.k <= s.eta2,                                                         # (3)
            (s.eta2 + f.e_min).pow2() <= top, top <= (-s.eta1 + f.e_max).pow2(),                   # (4)
        ]
    return exists(
        "C2", {"d0": Float(finite=True), "d1": Float(finite=True),
               "eta0": Int(1, lambda f: f.e_max - f.e_min + f.M),
               "eta1": Int(lambda f: -f.M, lambda f: f.e_max),
               "eta2": Int(lambda f: -f.M, lambda f: -f.e_min + f.M),
               "k": Int(lambda f: -f.M, 0)},
        such_that=cond, doc="Condition 2 (BRIEF §6), a third-party reading of the paper.")


def C3(activation):
    def route1(s):
        f = s.fmt
        w = s.zeta + abs(s.x)
        big = s.int_pow2(f.e_max)
        bounded = [(v.is_finite() & (abs(v) <= big)) for v in
                   (s.sigma(activation, -w), s.sigma(activation, 0), s.sigma(activation, w))]
        return s.all(abs(s.x) >= s.zeta, w.is_finite(),
                     abs(s.sigma_prime(activation, s.x)) >= s.int_pow2(-f.M), ~s.x.significand_odd(), *bounded)

    def route2(s):
        f = s.fmt
        v = s.sigma(activation, 0)
        return s.all(abs(s.sigma_prime(activation, 0)) >= s.int_pow2(-f.M), v.is_finite(),
                     abs(v) <= s.int_pow2(f.e_max))
    return exists(
        "C3", {"zeta": Float(finite=True, sign="+"), "x": Float(finite=True)},
        such_that=lambda s: route1(s) | route2(s), branches={"route 1": route1, "route 2": route2},
        doc="Condition 3 (BRIEF §6): route 1 or route 2; a third-party reading of the paper.")
