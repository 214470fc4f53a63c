"""The coordinates' induction: what the d-dimensional atoms' rows that sum over the
coordinates compute, for every number of coordinates.

In the atoms of fpsmt.constructions.relu_nd two rows add the killer terms of every
coordinate, −1 ⊗ G_0a, −1 ⊗ G_0b, …, −1 ⊗ G_(d−1)b, left to right (the paper's fold;
the columns in that order), after a lead term t (none here: the fold starts at −0, its
identity), then a zero Z (the row's absent terms, if any) and the bias B; each killer G
is +0 or K:

* the zero-gradient atom's N row: K = |v|, B = |v|;
* the gradient atom's A row: K = C = 2^e_max, B = C (A = C at x = z, +0 elsewhere; two
  layers on, the 1-D atom's gate and chain take over).

``coordinates_nd.fold`` is an induction over the killer terms (k = 0 … 2^16: every d up
to 2^15), for any lead t, killer K >= +0 and bound U >= t ⊕ (−K): after k terms the sum
S is the lead bit for bit while every killer so far is +0 (m = 0; then the row's
pre-activation is (t ⊕ Z) ⊕ B, as the 1-D atom's row computes it where its killers are
+0), and at most U once one of them is K (m = 1).  Two claims, one per kind of row,
show its t, K and U satisfy U >= t ⊕ (−K) and that every S <= U gives a pre-activation
(S ⊕ Z) ⊕ B <= 0 over the row's ranges; ``relu_off``, that a pre-activation <= 0 gives
ReLU = a zero and ReLU' = 0: a row with a killer on is off and passes no gradient.

The rest of the d-dimensional argument — each coordinate's blocks inside d-wide layers,
the top and collapse layers — is in the atoms' trees (proofs/zero_gradient_atom_nd.py,
gradient_atom_nd.py), which take this induction as a node.
"""

from fpsmt.constructions import relu as C
from fpsmt.proof.claims import Float, Int, forall
from fpsmt.proof.lemmas import Lemma
from fpsmt.proof.tree import Node, Pred, induction, stage
from fpsmt.proofs.common import zero

#: the most killer terms the induction covers (two per coordinate)
TERMS_MAX = 2 ** 16

_k = Int(0, TERMS_MAX)
_m = Int(0, 1)
_fin = Float(finite=True)
_K = Float(finite=True, sign="+")  # +0 or a positive finite killer

STATE = {"t": _fin, "K": _K, "U": _fin, "n": _k}
FOLD = Pred("coordinates_nd.fold", {**STATE, "S": Float(), "m": _m, "k": _k},
            lambda s: [s.k <= s.n, s.t + (-s.K) <= s.U, ~s.S.is_nan(), s.m.eq(0).implies(s.S.same(s.t)),
                       s.m.eq(1).implies(s.S <= s.U)],
            doc="after k of the row's n killer terms (U >= t ⊕ (−K)): S = t bit for bit if every killer was +0 "
                "(m = 0), S <= U once one was K (m = 1)")
START = Pred("coordinates_nd.start", {**STATE}, lambda s: s.t + (-s.K) <= s.U,
             doc="a lead t, a killer K >= +0 and a bound U >= t ⊕ (−K)")
FOLDED = Pred("coordinates_nd.folded", {**STATE, "S": Float(), "m": _m},
              lambda s: [~s.S.is_nan(), s.m.eq(0).implies(s.S.same(s.t)), s.m.eq(1).implies(s.S <= s.U)],
              doc="the row's sum over its killer terms: t bit for bit if every killer is +0, at most U if one is K")


def fold(fmt):
    def step(s):
        on = ~s.G.is_zero()
        return {"S": s.S + (-1 * s.G), "m": s.iwhere(on, 1, s.m)}
    base = stage("coordinates_nd.fold.base", {}, FOLD, lambda s: {"S": s.t, "m": 0, "k": 0}, START)
    return induction("coordinates_nd.fold", FOLD, "k", 0, TERMS_MAX, base, step, FOLDED,
                     step_vars={"G": Float()}, step_given=lambda s: s.any(s.G.same(0), s.G.same(s.K)),
                     done=lambda s: s.k.eq(s.n),
                     doc="the killer terms, one at a time: S ⊕ (−1 ⊗ G) with G = +0 or K")


def _use(name, doc, variables, t, K, U, B):
    """A kind of row: its lead, killer and bound satisfy START (t ⊕ −K <= U), and every sum
    S <= U gives a pre-activation (S ⊕ Z) ⊕ B <= 0, for every Z = ±0 and the row's ranges."""
    def goal(s):
        return [t(s) + (-K(s)) <= U(s), (s.S <= U(s)).implies((s.S + s.Z) + B(s) <= 0)]
    c = forall(f"coordinates_nd.{name}", {**variables, "Z": zero(), "S": Float()}, goal=goal, doc=doc)
    return Node("stage", c.name, c, doc=doc)


def uses(fmt):
    Cc = C.killer_constant(fmt)
    neg0 = lambda s: -s.const(0)  # noqa: E731
    return [
        _use("zga_n", "the zero-gradient atom's N row: t = −0, K = b = |v|, U = −b, B = b",
             {"b": Float(finite=True, sign="+")}, neg0, lambda s: s.b, lambda s: -s.b, lambda s: s.b),
        _use("ga_any", "the gradient atom's A row: t = −0, K = C, U = −C, B = C",
             {}, neg0, lambda s: s.const(Cc), lambda s: s.const(-Cc), lambda s: s.const(Cc)),
    ]


def relu_off(fmt):
    c = forall("coordinates_nd.relu_off", {"pre": Float(range=(None, 0))},
               goal=lambda s: [s.sigma(C.hidden(), s.pre).is_zero(), s.sigma_prime(C.hidden(), s.pre).is_zero()],
               doc="a pre-activation <= 0 (−inf included): ReLU gives a zero and ReLU' = 0")
    return Node("fact", c.name, c, doc=c.doc)


def repaired(fmt):
    tree = Node("lemma", "coordinates_nd", None, [fold(fmt), *uses(fmt), relu_off(fmt)])
    return tree, (f"for every number of killer terms up to {TERMS_MAX} (d <= {TERMS_MAX // 2} coordinates), every "
                  "finite lead t and killer K >= +0: the fold t ⊕ (−1 ⊗ G_1) ⊕ … (each G = +0 or K) is t bit for "
                  "bit while every G is +0 and at most t ⊕ (−K) after one is K; the two kinds of row that sum over "
                  "the coordinates are then <= 0 (ReLU +0, ReLU' 0) once a killer is on")


LEMMA = Lemma("coordinates_nd", "Theorem 3.1 on X^d: the sums over the coordinates (BRIEF §5)",
              {"repaired": repaired}, order=74, only=("repaired",))
