"""The kinds of activation: the interface (:class:`Activation`), the identity, ReLU, the
correctly rounded activations (:class:`Rounded`) and leaky ReLU."""

from __future__ import annotations

import numpy as np

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
        return A.apply(self.function(A.fmt, "value"), z)

    def derivative(self, A, z):
        return A.apply(self.function(A.fmt, "derivative"), z)

    def function(self, fmt, which):
        """σ_F (``which="value"``) or σ'_F (``"derivative"``) as a known function of ``fmt``."""
        from fpsmt.semantics.activations.known import known_function
        return known_function(self, fmt, which)


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
        if op is None:
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
