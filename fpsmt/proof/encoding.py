"""A claim in one interpretation: its variables, domains, conditions and instances.

:class:`Encoding` binds a claim's variables to values of an arithmetic interpretation
(fresh Z3 variables, or fixed patterns in the executor or as Z3 constants) and evaluates
its parts.  :func:`parts` says which conditions a query asks to satisfy:

* ``exists`` / ``propose``: the witness domains, ``such_that`` and, while the ∃∀ loop
  runs, one ``given → goal`` instance per refutation found so far;
* ``forall`` / ``refute``: the universal domains, ``given`` and ``not goal``;
* ``hypotheses``: the universal domains and ``given`` alone (what shows a ∀ claim is not
  vacuous).

The solver query, the replay and the enumeration all use these same builders.
"""

from __future__ import annotations

import numpy as np

from fpsmt.proof.claims import B, Claim, F, FloatDomain, I, Scope, domain_constraint
from fpsmt.semantics.arith.base import INT_BITS
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format


class Encoding:
    """A claim's variables and constraints in one interpretation."""

    def __init__(self, claim: Claim, fmt: Format, A, fixed: dict, registry: dict):
        self.claim, self.fmt, self.A = claim, fmt, A
        self.registry = registry
        self.scope = Scope(A, fmt, {}, instances=self._instance, sem=claim.profile)
        self.widths = {}
        vals = {}
        for name, dom in claim.variables.items():
            if name in fixed and isinstance(fixed[name], (F, I)):
                vals[name] = fixed[name]  # a value of another encoding over the same interpretation
            elif name in fixed:
                vals[name] = self._const(dom, fixed[name])
            elif isinstance(dom, FloatDomain):  # a fresh variable (a symbolic interpretation)
                vals[name] = F(self.scope, A.var(name))
                self.widths[name] = fmt.nbits
            else:
                vals[name] = I(self.scope, A.int_var(name))
                self.widths[name] = INT_BITS
        self.scope._vals = vals

    def _const(self, dom, value):
        if isinstance(dom, FloatDomain):
            return F(self.scope, self.A.const(np.asarray(value, dtype=np.uint64 if self.fmt.nbits <= 64 else object)))
        return I(self.scope, self.A.int_const(value))

    def domains(self, names) -> B:
        return self.scope.all(*[domain_constraint(self.scope, n, self.claim.variables[n]) for n in names])

    def part(self, fn) -> B:
        if fn is None:
            return self.scope.true()
        r = self.call(fn, self.scope)
        if isinstance(r, (list, tuple)):
            return self.scope.all(*r)
        if not isinstance(r, B):
            raise InputError(f"claim {self.claim.name}: a condition returned {type(r).__name__}, "
                             "expected a claim boolean (comparisons, .eq(), & | ~)")
        return r

    def conjuncts(self, fn) -> list:
        """The conditions ``fn`` states, one boolean each (a list stays a list)."""
        if fn is None:
            return []
        r = self.call(fn, self.scope)
        return [self.part(lambda _: c) for c in (r if isinstance(r, (list, tuple)) else [r])]

    def _instance(self, scope, name, terms) -> B:
        if name not in self.claim.assumes:
            raise InputError(f"claim {self.claim.name} uses {name!r} without listing it in assumes")
        target = self.registry.get(name)
        if target is None or target.kind != "forall":
            raise InputError(f"claim {self.claim.name}: instance() needs a forall claim, {name!r} is not one")
        missing = set(target.universal) - set(terms)
        if missing:
            raise InputError(f"claim {self.claim.name}: instance of {name} lacks {', '.join(sorted(missing))}")
        sub = Scope(scope.A, scope.fmt, {}, instances=None, sem=target.profile)
        sub._vals = {k: (v if isinstance(v, (F, I)) else
                         (sub.const(v) if isinstance(target.universal[k], FloatDomain) else I(sub, sub.int_const(v))))
                     for k, v in terms.items()}
        dom = sub.all(*[domain_constraint(sub, n, target.universal[n]) for n in target.universal])
        given = self._part_in(sub, target.given)
        goal = self._part_in(sub, target.goal)
        return (dom & given).implies(goal)

    def call(self, fn, scope):
        """A function of the claim at ``scope``; for a claim from a user's file, what it
        raises is one error line naming the file."""
        if self.claim.origin is None:
            return fn(scope)
        from fpsmt.userfiles import user_code
        with user_code(self.claim.origin, f"claim {self.claim.name}"):
            return fn(scope)

    def _part_in(self, scope, fn):
        if fn is None:
            return scope.true()
        r = self.call(fn, scope)
        return scope.all(*r) if isinstance(r, (list, tuple)) else r


def parts(claim, part, cexs=()):
    """A builder ``encoding -> {name: boolean}`` of the conditions a query asks for; its
    ``variables`` attribute lists the variables the query solves for."""
    w, u = list(claim.witness), list(claim.universal)

    def build(enc):
        if part in ("exists", "propose"):
            conds = {"domains": enc.domains(w), "such_that": enc.part(claim.such_that)}
            for i, cx in enumerate(cexs):
                sub = Encoding(claim, enc.fmt, enc.A, {**{n: enc.scope[n] for n in w}, **cx}, enc.registry)
                conds[f"refutation {i + 1}"] = (sub.domains(u) & sub.part(claim.given)).implies(
                    sub.part(claim.goal))
            return conds
        if part == "hypotheses":
            return {"domains": enc.domains(u), "given": enc.part(claim.given)}
        return {"domains": enc.domains(u), "given": enc.part(claim.given), "not goal": ~enc.part(claim.goal)}
    build.variables = w if part in ("exists", "propose") else u
    if part not in ("exists", "propose"):  # each is necessary for the query (lets an enumeration narrow its axes)
        build.hypotheses = lambda enc: enc.conjuncts(claim.given)
    return build


def conjunction(build):
    """``encoding -> boolean``: all conditions of a builder."""
    def cond(enc):
        out = None
        for c in build(enc).values():
            out = c if out is None else out & c
        return out
    cond.variables = build.variables
    cond.hypotheses = getattr(build, "hypotheses", None)
    return cond
