"""A lemma about a network's D^AD carried from the paper's semantics to a profile that
keeps the paper's summation order and changes only how activations are computed: their
backward formulas (``--semantics backward=torch|jax``) and/or their implementation
(``activation=numpy|torch``, tables).

Under such a profile the forward pass is the paper's, operation for operation — the same
weights, the same sums in the same order — once each σ the network uses gives the
correctly rounded value at every input (``transfer.value.<σ>``, stated only where the
profile's implementation is not the correctly rounded one).  Only each activation's
backward step may differ — ``g ⊗ σ'(z)`` (the paper's) against the framework's formula
with the implementation's σ' (e.g. PyTorch's relu backward selects g or +0 instead of
multiplying).  Let

    R(a, b)  :=  a is NaN,  or a and b are the same float,  or both are zeros

(a value of the paper's backward pass against the profile's; a NaN of the paper's says
nothing of the other).  The claims here, decided like any other (per format, by the
solvers or by enumeration, every SAT model replayed):

* ``transfer.value.<σ>`` for each activation of the network whose implementation is not
  the correctly rounded one: ∀ z. the implementation's σ(z) is σ(z) (the same float, or
  both NaN) — the forward passes are the same;
* ``transfer.step.<σ>`` for each activation of the network (the hidden σ and the output's
  identity): ∀ z, u, u'. R(u, u') → R(u ⊗ σ'(z), formula(u', z, σ_impl(z))) with the
  implementation's σ' in the formula — the backward step keeps R, at every pre-activation
  z, finite or not;
* ``transfer.add``: ∀ a, a', b, b'. R(a, a') ∧ R(b, b') → R(a ⊕ b, a' ⊕ b');
* ``transfer.mul``: ∀ a, a', w. R(a, a') → R(a ⊗ w, a' ⊗ w) (a backward sum's terms are
  the upstream times the weight);
* ``transfer.conclusion``: ∀ d, d' and finite g. R(d, d') ∧ (d = g, or both zeros) →
  (d' = g, or both zeros) — "D^AD = g* (a zero target met by either zero)" passes from the
  paper's D to the profile's.

The join is argued, not a claim: the forward passes agree value for value (the same
operations in the same order, each σ the same by ``transfer.value``); by induction over
the backward pass from the output (the upstream y is the same in both), every value of the
profile's pass is R-related to the paper's — a backward step by ``transfer.step``, each
term of a column's sum by ``transfer.mul`` (the same weight), each ⊕ of the sum in the
same order by ``transfer.add`` (the same first term or +0 start in both) — so D^AD under
the profile is R-related to the paper's; the lemma's tree (decided for the paper's
semantics) gives the paper's D = g* (finite, so not NaN), and ``transfer.conclusion``
gives the profile's.  f is the forward pass's: the same.  Where a value or step claim is
REFUTED the transfer does not apply (the implementation changes a value, or the
framework's formula changes a gradient beyond a zero's sign), which refutes nothing; the
row is then decided as before (:func:`fpsmt.commands.hypothesis.network_row`).
"""

from __future__ import annotations

import dataclasses

from fpsmt.proof.claims import Float, forall
from fpsmt.proof.tree import Node

PREFIX = "transfer"


def applies(sem) -> bool:
    """Whether ``sem`` differs from the paper's semantics in its backward formulas and its
    activation implementation (tables) only: the paper's order, fold and accumulation, and
    not a choice (``ulp:K``) or one stepped implementation of it."""
    from fpsmt.semantics.network import PAPER, Semantics
    if sem.is_paper or type(sem) is not Semantics or sem.ulp is not None:
        return False
    return dataclasses.replace(sem, backward=PAPER.backward, activation=PAPER.activation) == PAPER


def related(a, b):
    """R(a, b): a is NaN, a and b are the same float, or both are zeros."""
    return a.is_nan() | a.same(b) | (a.is_zero() & b.is_zero())


def _step(activation, spec):
    from fpsmt.proof.claims import F
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.network import paper_backward

    def goal(s):
        act = get_activation(activation)
        impl = s.sem.act_of(act)
        paper = F(s, paper_backward(s.A, act, s.u.v, s.z.v, act.value(s.A, s.z.v)))
        other = F(s, s.sem.backward_formula(act)(s.A, impl, s.u2.v, s.z.v, impl.value(s.A, s.z.v)))
        return related(paper, other)
    name = get_activation(activation).name
    return forall(f"{PREFIX}.step.{name}", {"z": Float(), "u": Float(), "u2": Float()},
                  given=lambda s: related(s.u, s.u2), goal=goal, semantics=spec,
                  doc=f"R(u, u') → R(u ⊗ σ'(z), the profile's backward step of {name} on u') at every z")


def _value(activation, spec):
    from fpsmt.proof.claims import F
    from fpsmt.semantics.activations import get_activation

    def goal(s):
        act = get_activation(activation)
        return F(s, s.sem.act_of(act).value(s.A, s.z.v)).same(F(s, act.value(s.A, s.z.v)))
    name = get_activation(activation).name
    return forall(f"{PREFIX}.value.{name}", {"z": Float()}, goal=goal, semantics=spec,
                  doc=f"the profile's {name}(z) is the correctly rounded {name}(z) (the same float, or both NaN) at "
                      "every z")


def claims(activations, sem) -> list:
    """The transfer's claims for a network whose activations are ``activations`` (names;
    the identity is added) under ``sem`` (:func:`applies`)."""
    from fpsmt.semantics.activations import get_activation
    names = list(dict.fromkeys([*activations, "identity"]))
    out = [_value(a, sem.spec) for a in names if sem.activation != "correct" and not get_activation(a).is_identity]
    out += [_step(a, sem.spec) for a in names]
    out.append(forall(f"{PREFIX}.add", {"a": Float(), "a2": Float(), "b": Float(), "b2": Float()},
                      given=lambda s: [related(s.a, s.a2), related(s.b, s.b2)],
                      goal=lambda s: related(s.a + s.b, s.a2 + s.b2), doc="R is kept by ⊕"))
    out.append(forall(f"{PREFIX}.mul", {"a": Float(), "a2": Float(), "w": Float()},
                      given=lambda s: related(s.a, s.a2), goal=lambda s: related(s.a * s.w, s.a2 * s.w),
                      doc="R is kept by ⊗ with one weight"))

    def meets(s, d):
        return d.same(s.g) | (d.is_zero() & s.g.is_zero())
    out.append(forall(f"{PREFIX}.conclusion", {"d": Float(), "d2": Float(), "g": Float(finite=True)},
                      given=lambda s: [related(s.d, s.d2), meets(s, s.d)], goal=lambda s: meets(s, s.d2),
                      doc="D = g (a zero g met by either zero) passes along R"))
    return out


def node(activations, sem) -> Node:
    """The transfer's claims as one node of a row's tree (their join is argued: module
    docstring)."""
    return Node("lemma", PREFIX, None, [Node("stage", c.name, c) for c in claims(activations, sem)],
                doc=f"the paper's backward pass and {sem.spec}'s are related by R at every value (argued: "
                    "induction over the backward pass with these claims)")
