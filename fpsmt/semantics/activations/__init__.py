"""Activations σ and their derivatives σ', in every interpretation.

An :class:`Activation` gives ``value(A, z)`` and ``derivative(A, z)`` in any arithmetic
interpretation ``A``; how the backward pass combines σ' with the incoming gradient is a
separate choice, the *backward formula* (:mod:`fpsmt.semantics.network`, the paper's ``g ⊗ σ'(z)``).

* Piecewise-linear activations are written over the interface and are exact everywhere
  (``relu``; ``leaky_relu`` when its slope s, or 1/s, is a float of the format, so that
  RNE(s·x) is one ⊗ or one ⊘).
* Every other activation is *correctly rounded*: σ_F(x) = RNE(σ(x)) from the exact real
  definition (:mod:`.realfun`, :mod:`.rounding`).  The executor looks values up in a table
  (formats of at most 16 bits) or computes them; the Z3 interpretation encodes the table
  (at most 16 bits) or uses an uninterpreted function refined lazily with true values
  (wider formats; see :mod:`.encode`).

Conventions (BRIEF §3, PyTorch's): ``relu(x) = x`` for x > 0 (and +inf), +0 for every
other number (-0, negatives, -inf), NaN for NaN; ``relu'(x) = 1`` for x > 0, 0 for
x <= 0 (so relu'(0) = 0), NaN for NaN.  ELU/SELU at 0 use the left branch; σ(±∞) and
σ'(±∞) are the limits where they exist, NaN where they do not (sin, cos).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fpsmt.errors import InputError
from fpsmt.semantics.activations import realfun


class Activation:
    """An activation function: its name, value and derivative over an interpretation."""

    name: str = ""
    #: True when σ is the identity, so the backward pass may skip ``g ⊗ 1`` (it is exact).
    is_identity = False
    #: the exact real function (:class:`.realfun.RealActivation`), when there is one
    real = None

    def value(self, A, z):
        raise NotImplementedError

    def derivative(self, A, z):
        raise NotImplementedError

    def __repr__(self):
        return f"<activation {self.name}>"


def _shape(z):
    return np.shape(z)


class Identity(Activation):
    name = "identity"
    is_identity = True

    def value(self, A, z):
        return z

    def derivative(self, A, z):
        return A.where(A.is_nan(z), A.full(_shape(z), A.fmt.nan_bits), A.full(_shape(z), A.fmt.one_bits))


class ReLU(Activation):
    name = "relu"
    real = realfun.BUILTIN["relu"]

    def value(self, A, z):
        shape = _shape(z)
        return A.where(A.gt(z, A.zero()), z,
                       A.where(A.is_nan(z), A.full(shape, A.fmt.nan_bits), A.full(shape, 0)))

    def derivative(self, A, z):
        shape = _shape(z)
        return A.where(A.gt(z, A.zero()), A.full(shape, A.fmt.one_bits),
                       A.where(A.is_nan(z), A.full(shape, A.fmt.nan_bits), A.full(shape, 0)))


class Rounded(Activation):
    """σ_F = RNE(σ), σ'_F = RNE(σ') of an exact real activation."""

    def __init__(self, real):
        self.real = real
        self.name = real.name

    def value(self, A, z):
        return A.activation(self, "value", z)

    def derivative(self, A, z):
        return A.activation(self, "derivative", z)


class LeakyReLU(Rounded):
    """x for x > 0, RNE(s·x) otherwise; exact over the interface when s or 1/s is a float of
    the format (s = 0.01 = 1/100 by default, PyTorch's), correctly rounded otherwise."""

    def __init__(self, slope="0.01"):
        super().__init__(realfun.LeakyRelu(slope))
        self.slope = self.real.slope

    def _op(self, fmt):
        s = self.slope
        b = fmt.round(s)
        if s != 0 and fmt.is_finite(b) and fmt.to_fraction(b) == s:
            return "mul", b
        inv = 1 / s if s != 0 else None
        if inv is not None and fmt.is_finite(fmt.round(inv)) and fmt.to_fraction(fmt.round(inv)) == inv:
            return "div", fmt.round(inv)
        return None, None

    def value(self, A, z):
        op, c = self._op(A.fmt)
        if op is None or not hasattr(A, "div"):
            return super().value(A, z)
        k = A.const(c)
        neg = A.mul(z, k) if op == "mul" else A.div(z, k)
        shape = _shape(z)
        return A.where(A.gt(z, A.zero()), z,
                       A.where(A.is_zero(z), A.full(shape, 0), neg))

    def derivative(self, A, z):
        b = A.fmt.round(self.slope)
        shape = _shape(z)
        return A.where(A.gt(z, A.zero()), A.full(shape, A.fmt.one_bits),
                       A.where(A.is_nan(z), A.full(shape, A.fmt.nan_bits), A.full(shape, b)))


def _builtin():
    out = {"identity": Identity(), "relu": ReLU(), "leaky_relu": LeakyReLU()}
    for name, real in realfun.BUILTIN.items():
        out.setdefault(name, Rounded(real))
    return out


REGISTRY: dict[str, Activation] = _builtin()
PAPER_SIX = ("relu", "elu", "gelu", "swish", "sigmoid", "tanh")


def get_activation(name) -> Activation:
    """By name (``relu``, ``leaky_relu:0.2``, ``silu``…) or ``FILE.py:NAME`` (user-defined)."""
    if isinstance(name, Activation):
        return name
    text = str(name).strip()
    key = text.lower()
    key = realfun.ALIASES.get(key, key)
    if key in REGISTRY:
        return REGISTRY[key]
    if key.startswith("leaky_relu:"):
        try:
            slope = Fraction(text.split(":", 1)[1])
        except (ValueError, ZeroDivisionError):
            raise InputError(f"bad leaky_relu slope in {text!r}") from None
        act = LeakyReLU(str(slope))
        REGISTRY[key] = act
        return act
    if ".py:" in text:
        from fpsmt.semantics.activations.user import load_user_activation
        act = load_user_activation(text)
        REGISTRY[key] = act
        return act
    raise InputError(f"unknown activation {name!r}: known are {', '.join(sorted(REGISTRY))}, "
                     "leaky_relu:SLOPE, or FILE.py:NAME")
