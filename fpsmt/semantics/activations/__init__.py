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
  (wider formats): σ_F and σ'_F are known functions (:mod:`.known`) that every
  interpretation applies its own way.

Conventions (BRIEF §3, PyTorch's): ``relu(x) = x`` for x > 0 (and +inf), +0 for every
other number (-0, negatives, -inf), NaN for NaN; ``relu'(x) = 1`` for x > 0, 0 for
x <= 0 (so relu'(0) = 0), NaN for NaN.  ELU/SELU at 0 use the left branch; σ(±∞) and
σ'(±∞) are the limits where they exist, NaN where they do not (sin, cos).
"""

from __future__ import annotations

from fractions import Fraction

from fpsmt.errors import InputError
from fpsmt.semantics.activations.kinds import Activation, Identity, LeakyReLU, ReLU, Rounded  # noqa: F401
from fpsmt.semantics.activations import realfun


def _builtin():
    out = {"identity": Identity(), "relu": ReLU(), "leaky_relu": LeakyReLU()}
    for name, real in realfun.BUILTIN.items():
        out.setdefault(name, Rounded(real))
    return out


REGISTRY: dict[str, Activation] = _builtin()
PAPER_SIX = ("relu", "elu", "gelu", "swish", "sigmoid", "tanh")


def register(act: Activation) -> Activation:
    """Make an activation known by its name (``get_activation(act.name)``)."""
    REGISTRY[act.name.lower()] = act
    return act


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
        if slope < 0:  # the monotone piece the Z3 encoding relies on needs slope >= 0
            raise InputError(f"leaky_relu slope must be >= 0, got {slope} in {text!r}")
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
