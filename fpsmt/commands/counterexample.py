"""First counterexamples, end to end: solver -> model -> bit patterns -> replay -> report.

* :func:`associativity` — a, b, c with (a⊗b)⊗c ≠ a⊗(b⊗c), every value finite.
* :func:`proportionality` — a 1-2-1 ReLU network with symbolic weights, an input x and
  upstream gradients y1, y2 with D(y2)·y1 ≠ D(y1)·y2 as exact rationals, every value
  (weights, x, y's, pre-activations, outputs, gradients) finite and y1, y2, D(y1), D(y2)
  nonzero.  In
  exact arithmetic D(y) = J·y, so D(y2)·y1 = D(y1)·y2 always; in floating point it fails.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import z3

from fpsmt.semantics.arith import Z3Arith, concrete, model_bits
from fpsmt.semantics.arith.symbolic import fold_bits
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format
from fpsmt.semantics.network import Layer, Network, Param, run
from fpsmt.proof.replay import check_same


@dataclass
class Witness:
    """A replayed counterexample: named patterns, derived values, and the claim's text."""

    kind: str
    fmt: Format
    statement: str
    inputs: dict  # name -> bits (the model)
    derived: dict  # name -> bits (recomputed by the executor, checked against the model)
    exact: dict = field(default_factory=dict)  # name -> Fraction
    seconds: float = 0.0
    replayed: bool = False

    def to_json(self):
        f = self.fmt
        return {"counterexample": self.kind, "format": f.name, "statement": self.statement,
                "witness": {k: f.hex(v) for k, v in self.inputs.items()},
                "values": {k: f.hex(v) for k, v in self.derived.items()},
                "exact": {k: str(v) for k, v in self.exact.items()},
                "replayed": self.replayed, "seconds": round(self.seconds, 3)}

    def render(self) -> str:
        f = self.fmt
        w = max(len(k) for k in list(self.inputs) + list(self.derived) + list(self.exact))
        lines = [f"{self.kind} counterexample in {f.name} ({self.statement})"]
        lines += [f"  {k:<{w}} = {f.show(v)}" for k, v in self.inputs.items()]
        lines += [f"  {k:<{w}} = {f.show(v)}" for k, v in self.derived.items()]
        lines += [f"  {k:<{w}} = {v} (exact)" for k, v in self.exact.items()]
        lines.append("replayed: the executor reproduces every value bit for bit"
                     if self.replayed else "NOT replayed")
        lines.append(f"solver time {self.seconds:.2f} s")
        return "\n".join(lines)


def _solve(constraints, timeout_s: float):
    s = z3.Solver()
    s.set("timeout", int(timeout_s * 1000))
    s.add(*constraints)
    t0 = time.perf_counter()
    r = s.check()
    dt = time.perf_counter() - t0
    if r == z3.unsat:
        return None, dt
    if r != z3.sat:
        raise InputError(f"no answer within {timeout_s:g} s (z3: {s.reason_unknown()}); raise --timeout")
    return s.model(), dt


def _finite(Z, *vals):
    """'is finite' for every element of the given values."""
    return [c for v in vals for c in np.ravel(Z.is_finite(v))]


def associativity(fmt: Format, timeout_s: float = 60.0) -> Witness:
    Z = Z3Arith(fmt)
    a, b, c = (Z.var(n) for n in "abc")
    lhs = Z.mul(Z.mul(a, b), c)
    rhs = Z.mul(a, Z.mul(b, c))
    cons = _finite(Z, a, b, c, lhs, rhs) + [Z.not_(Z.eq(lhs, rhs))[()]] + Z.side
    model, dt = _solve(cons, timeout_s)
    if model is None:
        raise InputError(f"multiplication is associative on all finite values of {fmt.name} (UNSAT)")
    bits = {n: model_bits(fmt, model, Z.vars[n]) for n in "abc"}
    # replay
    X = concrete(fmt)
    ca, cb, cc = (X.const(np.asarray(bits[n], dtype=np.uint64 if fmt.nbits <= 64 else object)) for n in "abc")
    ex_l = int(X.to_bits(X.mul(X.mul(ca, cb), cc)))
    ex_r = int(X.to_bits(X.mul(ca, X.mul(cb, cc))))
    check_same(fmt, "z3", "(a⊗b)⊗c", fold_bits(fmt, model.eval(lhs[()], model_completion=True)), ex_l)
    check_same(fmt, "z3", "a⊗(b⊗c)", fold_bits(fmt, model.eval(rhs[()], model_completion=True)), ex_r)
    if fmt.to_fraction(ex_l) == fmt.to_fraction(ex_r):
        raise AssertionError("replayed witness does not break associativity")  # a bug, exit 1
    return Witness("associativity", fmt, "(a⊗b)⊗c ≠ a⊗(b⊗c), all finite", bits,
                   {"(a⊗b)⊗c": ex_l, "a⊗(b⊗c)": ex_r}, seconds=dt, replayed=True)


def proportionality_network(fmt: Format) -> Network:
    """1 input -> 2 ReLU neurons -> 1 output, every weight and bias symbolic."""
    return Network(fmt, [
        Layer.dense([[Param("w1_0")], [Param("w1_1")]], [Param("b1_0"), Param("b1_1")], "relu"),
        Layer.dense([[Param("w2_0"), Param("w2_1")]], [Param("b2_0")], "identity"),
    ])


def _exact_product_sort(fmt: Format):
    """A sort in which the product of two values of ``fmt`` is exact (no rounding, no overflow)."""
    need = max(2 * fmt.e_max + 2, -2 * (fmt.e_min - fmt.M) + 2)
    E = 2
    while (1 << (E - 1)) - 1 < need:
        E += 1
    return z3.FPSort(E, 2 * (fmt.M + 1) + 1)


def proportionality(fmt: Format, timeout_s: float = 60.0) -> Witness:
    net = proportionality_network(fmt)
    Z = Z3Arith(fmt)
    params = {p: Z.var(p)[()] for p in net.params()}
    x, y1, y2 = Z.var("x"), Z.var("y1"), Z.var("y2")
    t1 = run(Z, net, x.reshape(1), y1.reshape(1), params)
    t2 = run(Z, net, x.reshape(1), y2.reshape(1), params)
    d1, d2 = t1.grad[0], t2.grad[0]
    wide = _exact_product_sort(fmt)
    rm = z3.RNE()

    def w(t):
        return z3.fpToFP(rm, t, wide)
    lhs = z3.fpMul(rm, w(d2), w(y1[()]))  # exact: the wide sort holds every product
    rhs = z3.fpMul(rm, w(d1), w(y2[()]))
    cons = [c for v in [*params.values()] for c in [z3.Not(z3.fpIsNaN(v)), z3.Not(z3.fpIsInf(v))]]
    cons += _finite(Z, x, y1, y2, d1, d2, *t1.pre)
    cons += [z3.Not(z3.fpIsZero(v)) for v in (y1[()], y2[()], d1, d2)]
    cons += [z3.Not(z3.fpEQ(lhs, rhs))] + Z.side
    model, dt = _solve(cons, timeout_s)
    if model is None:
        raise InputError(f"no non-proportional gradient exists for this network in {fmt.name} (UNSAT)")
    names = list(params) + ["x", "y1", "y2"]
    bits = {n: model_bits(fmt, model, Z.vars[n]) for n in names}
    # replay in the executor
    X = concrete(fmt)
    dt_ = np.uint64 if fmt.nbits <= 64 else object

    def c(n):
        return X.const(np.asarray([bits[n]], dtype=dt_))
    cparams = {p: X.const(np.asarray(bits[p], dtype=dt_)) for p in params}
    r1 = run(X, net, c("x"), c("y1"), cparams)
    r2 = run(X, net, c("x"), c("y2"), cparams)
    e1, e2 = int(X.to_bits(r1.grad)[0]), int(X.to_bits(r2.grad)[0])
    out = int(X.to_bits(r1.out)[0])
    check_same(fmt, "z3", "D(y1)", fold_bits(fmt, model.eval(d1, model_completion=True)), e1)
    check_same(fmt, "z3", "D(y2)", fold_bits(fmt, model.eval(d2, model_completion=True)), e2)
    check_same(fmt, "z3", "f(x)", fold_bits(fmt, model.eval(t1.out[0], model_completion=True)), out)
    q = {n: fmt.to_fraction(bits[n]) for n in ("y1", "y2")}
    L = fmt.to_fraction(e2) * q["y1"]
    R = fmt.to_fraction(e1) * q["y2"]
    if L == R:
        raise AssertionError("replayed witness is proportional")  # a bug, exit 1
    return Witness("proportionality", fmt,
                   "1-2-1 ReLU net: D(y2)·y1 ≠ D(y1)·y2 exactly; all values finite; y1, y2, D(y1), D(y2) ≠ 0",
                   bits, {"f(x)": out, "D(y1)": e1, "D(y2)": e2},
                   exact={"D(y2)·y1": L, "D(y1)·y2": R}, seconds=dt, replayed=True)


KINDS = {"associativity": associativity, "proportionality": proportionality}
