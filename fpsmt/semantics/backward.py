"""Activation backward formulas of real frameworks (``--semantics backward=torch|jax``).

A backward formula turns the gradient ``g`` w.r.t. an activation's output into the
gradient w.r.t. its pre-activation ``z`` (``y = σ_F(z)`` is the forward value).  The
paper's is ``g ⊗ σ'_F(z)`` (:func:`fpsmt.semantics.network.paper_backward`).  Frameworks
write their own, from the forward value, in their own rounding steps (BRIEF §3):

``torch`` (PyTorch's CPU kernels, ``derivatives.yaml``):

* relu: ``threshold_backward(g, y, 0)``: +0 where ``y <= 0``, else g itself (a select, no
  product: g = ±inf stays, z = NaN passes g);
* sigmoid: ``(g ⊗ (1 ⊖ y)) ⊗ y``;
* tanh: ``g ⊗ (1 ⊖ (y ⊗ y))``;
* elu (α = 1): ``g ⊗ exp(z)`` where ``z <= 0``, else ``g`` (``g ⊗ 1``; z = NaN passes g);
* bfloat16 (every formula above) and float16 (tanh, elu) are computed in float32 and
  rounded once to the format; float16's sigmoid rounds after each step.  Those are
  PyTorch 2's measured behaviour: tests/test_semantics_profiles.py compares these formulas
  with torch's autograd at every bfloat16 and float16 pre-activation.  Other formats
  compute the formula in their own arithmetic (what the kernel would do in them).

``jax`` (JAX's JVP rules, transposed; the formula in the format's arithmetic, one rounding
per step — not compared with JAX, which is not a dependency):

* relu: ``select(z > 0, g, 0)``;
* sigmoid: ``g ⊗ (y ⊗ (1 ⊖ y))``;
* tanh: ``c ⊕ (c ⊗ y)`` with ``c = g ⊗ (1 ⊖ y)`` (``mul(add(g, mul(g, ans)), sub(1, ans))``);
* elu: ``g ⊗ (y ⊕ 1)`` where ``z <= 0`` (expm1's rule ``g ⊗ (ans ⊕ 1)``), else g.

An activation a framework formula does not cover is refused by
:meth:`fpsmt.semantics.network.Semantics.check` before any work.
"""

from __future__ import annotations

import numpy as np

from fpsmt.errors import InputError
from fpsmt.semantics.formats import parse_format

BFLOAT16, FLOAT16 = (8, 7), (5, 10)


def _shape(*vs):
    return np.broadcast_shapes(*[np.shape(v) for v in vs])


def _zero(A, *vs):
    return A.full(_shape(*vs), 0)


def _in(A, wide, compute, *vals):
    """``compute(B, *vals)`` in ``wide`` (the values converted exactly), rounded once to A's format."""
    if wide is None:
        return compute(A, *vals)
    B = A.sibling(parse_format(wide))
    return A.convert(B, compute(B, *[B.convert(A, v) for v in vals]))


# ------------------------------------------------------------------ torch
def _torch_relu(A, act, g, z, y):
    return A.where(A.le(y, _zero(A, y)), _zero(A, g, y), g)


def _torch_sigmoid(B, act, g, z, y):
    return B.mul(B.mul(g, B.sub(B.one(), y)), y)


def _torch_tanh(B, act, g, z, y):
    return B.mul(g, B.sub(B.one(), B.mul(y, y)))


def _torch_elu(B, act, g, z, y):
    return B.where(B.le(z, _zero(B, z)), B.mul(g, act.derivative(B, z)), g)


#: activation -> (formula, the formats (E, M) whose kernel computes in float32); elu's
#: formula also evaluates σ' (exp) there
TORCH = {
    "relu": (_torch_relu, ()),
    "sigmoid": (_torch_sigmoid, (BFLOAT16,)),
    "tanh": (_torch_tanh, (BFLOAT16, FLOAT16)),
    "elu": (_torch_elu, (BFLOAT16, FLOAT16)),
}
USES_DERIVATIVE = {_torch_elu}


# -------------------------------------------------------------------- jax
def _jax_relu(A, act, g, z, y):
    return A.where(A.gt(z, _zero(A, z)), g, _zero(A, g, z))


def _jax_sigmoid(A, act, g, z, y):
    return A.mul(g, A.mul(y, A.sub(A.one(), y)))


def _jax_tanh(A, act, g, z, y):
    c = A.mul(g, A.sub(A.one(), y))
    return A.add(c, A.mul(c, y))


def _jax_elu(A, act, g, z, y):
    return A.where(A.gt(z, _zero(A, z)), g, A.mul(g, A.add(y, A.one())))


JAX = {"relu": (_jax_relu, ()), "sigmoid": (_jax_sigmoid, ()), "tanh": (_jax_tanh, ()), "elu": (_jax_elu, ())}


def framework(name, table):
    def formula(A, act, g, z, y):
        if act.is_identity:
            return g
        if act.name not in table:
            raise InputError(f"backward={name} has no formula for {act.name} (it has: {', '.join(table)})")
        f, wide_in = table[act.name]
        wide = "float32" if (A.fmt.E, A.fmt.M) in wide_in else None
        return _in(A, wide, lambda B, g_, z_, y_: f(B, act, g_, z_, y_), g, z, y)

    def why_not(act, fmt):
        """Why the formulas cannot apply to ``act`` (as the profile evaluates it) in ``fmt``, or None."""
        if act.is_identity:
            return None
        if act.name not in table:
            return f"backward={name} has no formula for {act.name}"
        f, wide_in = table[act.name]
        impl = getattr(act, "impl", None)  # a library's tables (activation=numpy|torch): formats of <= 16 bits
        if f in USES_DERIVATIVE and (fmt.E, fmt.M) in wide_in and impl is not None:
            return (f"backward={name} computes {act.name}'s exp in float32 in {fmt.name}; with "
                    f"activation={impl} that exp is not modelled")
        return None
    formula.why_not = why_not
    formula.__doc__ = f"The {name} backward formulas (module docstring)."
    return formula


def register(formulas: dict):
    formulas["torch"] = framework("torch", TORCH)
    formulas["jax"] = framework("jax", JAX)
