"""Activations σ and their derivatives σ', written over the arithmetic interface.

Each activation gives its value ``value(A, z)`` and its derivative
``derivative(A, z)`` in any interpretation ``A``.  How the backward pass combines
them with the incoming gradient is a separate choice, the *backward formula*
(:mod:`fpsmt.network`); the paper's is ``g ⊗ σ'(z)``.

Conventions (BRIEF §3, PyTorch's): ``relu(x) = x`` for x > 0 (and +inf), +0 for
every other number (-0, negatives, -inf), NaN for NaN; ``relu'(x) = 1`` for x > 0,
0 for x <= 0 (so relu'(0) = 0), NaN for NaN.
"""

from __future__ import annotations

from ..errors import InputError


class Activation:
    """An activation function: its name, value and derivative over an interpretation."""

    name: str = ""
    #: True when σ is the identity, so the backward pass may skip ``g ⊗ 1`` (it is exact).
    is_identity = False

    def value(self, A, z):
        raise NotImplementedError

    def derivative(self, A, z):
        raise NotImplementedError

    def __repr__(self):
        return f"<activation {self.name}>"


class Identity(Activation):
    name = "identity"
    is_identity = True

    def value(self, A, z):
        return z

    def derivative(self, A, z):
        return A.where(A.is_nan(z), A.full(_shape(z), A.fmt.nan_bits), A.full(_shape(z), A.fmt.one_bits))


class ReLU(Activation):
    name = "relu"

    def value(self, A, z):
        shape = _shape(z)
        return A.where(A.gt(z, A.zero()), z,
                       A.where(A.is_nan(z), A.full(shape, A.fmt.nan_bits), A.full(shape, 0)))

    def derivative(self, A, z):
        shape = _shape(z)
        return A.where(A.gt(z, A.zero()), A.full(shape, A.fmt.one_bits),
                       A.where(A.is_nan(z), A.full(shape, A.fmt.nan_bits), A.full(shape, 0)))


def _shape(z):
    import numpy as np
    return np.shape(z)


REGISTRY: dict[str, Activation] = {a.name: a for a in (Identity(), ReLU())}


def get_activation(name) -> Activation:
    if isinstance(name, Activation):
        return name
    act = REGISTRY.get(str(name).lower())
    if act is None:
        raise InputError(f"unknown activation {name!r}: known are {', '.join(sorted(REGISTRY))}")
    return act
