"""The gradient atom of Lemma 3.5 (f2, the gradient network, is a ⊞ of them): value 0 on
X, and D^AD(h) = g at x = z, ±0 elsewhere for every admissible upstream |y| <= H_σ = Ω
(h ≠ 0 with |h| <= Ω, g ≠ 0 finite; for g = 0 the theorem uses no atom).

released — BRIEF §5.1: relu(v ⊗ relu((1/d) ⊗ Ind_z(x))) beside a released zero-gradient
atom of value −v/d, summed, with v = g ⊘ h (fpsmt.constructions.relu.released_gradient_atom).
Stated and refuted as one claim.

repaired — fpsmt.constructions.relu.repaired_gradient_atom (see its docstring for the layers), proved
in stages, each for all of its parameters:

* ``gate``: layers 1–7 as a network with outputs (R, G1, G2): for all z, x in X and
  finite upstreams (u_R, u_1, u_2), zeros where x != z: the outputs are (d, 0, 0) at x = z
  (d = z − z⁻), (0, C, 0) for x < z and (0, 0, C) for x > z (C = 2^e_max); D^AD is u_R at
  x = z (u_R != 0) and ±0 elsewhere.
* ``layer``: one chain layer with weight c and its reset bias 1 ⊖ c, for every c in
  K = {−1} ∪ (0, 2^q] (q = min(p, e_max)) and finite upstreams: (1, 0, 0) ↦ (1, 0, 0), R's
  pre-activation is > 0, and the gradient w.r.t. R is (u_R ⊗ ReLU'(pre)) ⊗ c, which is
  u_R ⊗ c (ReLU'(pre) = 1 and u ⊗ 1 = u in IEEE arithmetic; stating it through ReLU' keeps
  the query free of a multiplier-equivalence problem), the others finite.  This is the stage lemma for every
  stage index of the chain at once: the transfer stages show every chain weight is in K.
* ``shrink``: one reset layer of weight 1 on a power of two F = 2^k in the gate's range
  [ω, 2^(e_max − 2 − p)]: F ↦ 1 if F <= 2^q, else F's spacing below it (a power of two
  2^(p+1) times smaller); gradient u_R exactly; ``spacing``: for every z in X,
  d = z − z⁻ is a power of two 2^k with e_min − p <= k <= e_max − 2 − p; and ``shrinks``:
  for every such k the shrink layers as built take 2^k to exactly 1 (an integer
  variable: decided by enumeration, about 2,100 values in float64) — together: the
  shrinks take d to 1 for every z.
* ``kill``: one chain layer, any c in K, any finite bias B <= 2: (0, C, 0) ↦ (0, C, 0)
  and (0, 0, C) ↦ (0, 0, C), and zero upstreams (+0 or −0) on the killers give zero
  gradients, whatever the finite upstream on R.
* ``output``: the last chain layer (with N) and the output layer, for every c in K,
  every w_out = 2^k in (0, 1] and every finite y: (1, 0, 0) ↦ out = +0 with gradient
  ((y ⊗ w_out) ⊗ ReLU'(pre)) ⊗ c = (y ⊗ w_out) ⊗ c w.r.t. R (pre > 0, as in ``layer``); (0, C, 0) and (0, 0, C) ↦ out = ±0 with zero gradients.
* the multiplication transfer's stages (proofs/multiplication_transfer.py: its proof tree, whose
  stages follow the format's route, fpsmt.constructions.relu.transfer_route).

The chain (induction over the stage index).  At x = z the gate gives (d, 0, 0); the
shrinks take it to (1, 0, 0); every chain layer keeps (1, 0, 0); the output is +0.  The
backward pass starts from h: ``output`` gives (h ⊗ w_out) ⊗ c_m at the last R, each
``layer`` multiplies by its weight, the shrinks by 1: the gate receives
h ⊗ w_out ⊗ c_m ⊗ … ⊗ c_1, which the transfer stages show is exactly g (every partial
product finite and nonzero, as ``layer`` and ``gate`` need), and the gate passes it to x.
At x ≠ z the gate gives (0, C, 0) or (0, 0, C), ``kill`` keeps it through every layer,
``output`` gives ±0 and zero gradients for any |y| <= Ω, and the gate turns zero upstreams
into a zero D^AD.  At layer 1 the gradient w.r.t. x is the left-to-right sum of the
step blocks' ±0 (their lemmas: D^AD = ±0 for every finite upstream, and ``gate_top`` shows
their upstreams are finite) and T's term (``gate_T``), which boxplus_neutrality's steps
turn into that term.  Independently of the solver, tests run the atom in the executor for
every x of X (all z in the 8-bit formats, extreme and random z in bfloat16).
"""

from fractions import Fraction

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proofs.common import X, step_claims, xdesc, zero
from fpsmt.proofs.multiplication_transfer import transfer_tree
from fpsmt.proof.lemmas import Lemma

def _in_k(s, c):
    return c.eq(-1) | ((c > 0) & (c <= s.int_pow2(C.step_cap(s.fmt))))


def _killers(s):
    C_ = s.const(C.killer_constant(s.fmt))
    return [(s.const(0), C_, s.const(0)), (s.const(0), s.const(0), C_)]


def gate_t_claim(fmt):
    def goal(s):
        from fpsmt.constructions.relu import Plan
        P = Plan(s.fmt)
        for k in range(6):  # T through layers 1–6, as the gate carries it
            P.add([C.t_carry(k)])
        params = C.step_params(s, "ge", s.z)
        out, grad = s.run(P.network(last_act=None), [s.x], [s.u], params=params)
        T = out[0]
        d = s.z - s.z.next_down()
        top = s.int_pow2(s.fmt.e_max - 1)
        return [(s.x < s.z).implies(T.same(0)), s.x.eq(s.z).implies(T.same(d)),
                (s.x > s.z).implies((T >= d) & (T <= top)), (T > 0).implies(grad[0].same(s.u)),
                T.eq(0).implies(grad[0].is_zero())]
    return forall("gradient_atom.gate_T", {"z": X(), "x": X(), "u": Float(finite=True, nonzero=True)}, goal=goal)


def gate_top_claim(fmt):
    def goal(s):
        from fpsmt.constructions.relu import Plan
        P = Plan(s.fmt, inputs=("ge4", "le4", "T"))
        for layer in C.gate_top(s.fmt):
            P.add(layer)
        net = P.network(last_act=None)
        C_ = s.const(C.killer_constant(s.fmt))
        res = []
        for case, (ge, le) in (("at", (1, 1)), ("below", (0, 1)), ("above", (1, 0))):
            T = s.const(0) if case == "below" else s.T
            ups = [s.uR, s.u1, s.u2] if case == "at" else [u * 0 for u in (s.uR, s.u1, s.u2)]
            out, grad = s.run(net, [ge, le, T], ups)
            want = {"at": (s.T, 0, 0), "below": (0, C_, 0), "above": (0, 0, C_)}[case]
            res += [o.same(w) for o, w in zip(out, want)] + [grad[0].is_finite(), grad[1].is_finite()]
            res.append(((~s.uR.is_zero()).implies(grad[2].same(s.uR))) if case == "at" else grad[2].is_zero())
        return res
    fin = Float(finite=True)
    top = lambda f: f.hex(f.round(Fraction(2) ** (f.e_max - 1)))  # noqa: E731
    return forall("gradient_atom.gate_top", {"T": Float(range=(0, top), nonzero=True), "uR": fin, "u1": fin,
                                               "u2": fin}, goal=goal)


def _layer_net(fmt, with_n=False, output=False):
    from fpsmt.constructions.relu import Plan
    P = Plan(fmt, inputs=("R", "G1", "G2"))
    P.add(C.chain_layer("c", "B", with_n=with_n))
    if output:
        P.add(C.OUTPUT_LAYER)
    return P.network(last_act="identity" if output else None)


def layer_claim(fmt):
    def goal(s):
        net = _layer_net(s.fmt)
        out, grad, (pre, _, _) = s.run(net, [1, 0, 0], [s.uR, s.u1, s.u2],
                                       params={"c": s.c, "B": C.reset_bias(s, s.c)}, trace=True)
        prod = (s.uR * s.sigma_prime(C.hidden(), pre[0][0])) * s.c  # the backward step as AD takes it
        return [out[0].same(1), out[1].same(0), out[2].same(0), pre[0][0] > 0,
                (~prod.is_zero()).implies(grad[0].same(prod)), grad[1].is_finite(), grad[2].is_finite()]
    fin = Float(finite=True)
    return forall("gradient_atom.layer", {"c": Float(finite=True), "uR": fin, "u1": fin, "u2": fin}, goal=goal,
                  given=lambda s: _in_k(s, s.c))


def shrink_claim(fmt):
    def goal(s):
        F = s.k.pow2()
        net = _layer_net(s.fmt)
        out, grad = s.run(net, [F, 0, 0], [s.uR, s.u1, s.u2], params={"c": s.const(1), "B": C.reset_bias(s, F)})
        small = F <= s.int_pow2(C.step_cap(s.fmt))
        return [out[0].same(s.where(small, 1, F - F.next_down())), out[0] > 0, (~small).implies(out[0] < F),
                (~s.uR.is_zero()).implies(grad[0].same(s.uR))]
    fin = Float(finite=True)
    return forall("gradient_atom.shrink", {"k": Int(lambda f: f.e_min - f.M, lambda f: f.e_max - 2 - f.M),
                                           "uR": fin, "u1": fin, "u2": fin}, goal=goal)


def spacing_claim(fmt):
    def goal(s):
        d = s.z - s.z.next_down()
        e = C.true_exponent(s, d)
        return [d > 0, d.same(e.pow2()), e >= s.fmt.e_min - s.fmt.M, e <= s.fmt.e_max - 2 - s.fmt.M]
    return forall("gradient_atom.spacing", {"z": X()}, goal=goal)


def shrinks_claim(fmt):
    def goal(s):
        from fpsmt.constructions.relu import Plan
        P = Plan(s.fmt, inputs=("R", "G1", "G2"))
        d = s.k.pow2()
        params = C.reset_chain(s, P, d, [s.const(1)] * C.shrink_count(s.fmt))
        out, _ = s.run(P.network(last_act=None), [d, 0, 0], params=params)
        return out[0].same(1)
    return forall("gradient_atom.shrinks", {"k": Int(lambda f: f.e_min - f.M, lambda f: f.e_max - 2 - f.M)},
                  goal=goal, enumerate=True)


def kill_claim(fmt):
    def goal(s):
        net = _layer_net(s.fmt)
        res = []
        for ins in _killers(s):
            out, grad = s.run(net, list(ins), [s.uR, s.o1, s.o2], params={"c": s.c, "B": s.B})
            res += [o.same(i) for o, i in zip(out, ins)] + [g.is_zero() for g in grad]
        return res
    fin = Float(finite=True)
    return forall("gradient_atom.kill", {"c": fin, "B": fin, "uR": fin, "o1": zero(), "o2": zero()}, goal=goal,
                  given=lambda s: [_in_k(s, s.c), s.B <= 2])


def output_claim(fmt):
    def goal(s):
        net = _layer_net(s.fmt, with_n=True, output=True)
        w = s.k.pow2()
        P = {"c": s.c, "B": C.reset_bias(s, s.c), "w_out": w}
        out, grad, (pre, _, _) = s.run(net, [1, 0, 0], [s.y], params=P, trace=True)
        prod = ((s.y * w) * s.sigma_prime(C.hidden(), pre[0][0])) * s.c
        res = [out[0].same(0), pre[0][0] > 0, (~prod.is_zero()).implies(grad[0].same(prod)), grad[1].is_finite(),
               grad[2].is_finite()]
        for ins in _killers(s):
            out, grad = s.run(net, list(ins), [s.y], params=P)
            res += [out[0].is_zero()] + [g.is_zero() for g in grad]
        return res
    return forall("gradient_atom.output", {"c": Float(finite=True), "k": Int(lambda f: -f.e_max, 0),
                                           "y": Float(finite=True)}, goal=goal, given=lambda s: _in_k(s, s.c))


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


def repaired(fmt):
    stages = step_claims(fmt) + [gate_t_claim(fmt), gate_top_claim(fmt), layer_claim(fmt), shrink_claim(fmt), spacing_claim(fmt),
              shrinks_claim(fmt), kill_claim(fmt),
              output_claim(fmt)] + transfer_tree(fmt).claims()
    how = (f"; depth {C.gradient_atom_depth(fmt)}, proved in stages (the step indicators, T, the gate's top, a "
           f"chain layer for every weight the chain can hold, shrinks, killed layers, output, transfer) joined by "
           f"the induction over the chain written in proofs/gradient_atom.py")
    return stages, _statement(fmt, "z in X") + how


def released(fmt):
    c = _direct(C.RELEASED)
    # BRIEF §5.1: a negative v is zeroed by the outer ReLU (the gradient at z is ±0, not g)
    hint = {"z": fmt.round(1), "x": fmt.round(1), "h": fmt.round(1), "g": fmt.round(-1), "y": fmt.round(1)}
    return [c], _statement(fmt, "z != 0 in X"), {c.name: [hint]}


LEMMA = Lemma("gradient_atom", "Lemma 3.5 (BRIEF §5, §5.1)", {"released": released, "repaired": repaired},
              order=80, construction=True)
