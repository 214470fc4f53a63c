"""Constants of Theorems 3.1 and 3.2 per activation and format (BRIEF §4).

Used by the other commands instead of literals.  Provenance: the paper's main text as
summarised in BRIEF §4; where its versions differ (the depth bounds) both are given.

* domain X = [−M_σ, M_σ] ∩ F (d = 1 here), M_σ = 2^(e_max − 2) for ReLU, ELU, GELU, Swish
  and 2^(e_max − 1) for Sigmoid and tanh;
* largest admissible upstream gradient H_σ = Ω for the first four, 2^(M − 1) for Sigmoid,
  2^(M − 2) for tanh;
* depth: Theorem 3.1 every L >= 7 (one version) or 9 (another); Theorem 3.2
  L >= 2^(E+1) + 2M + 9 (or + 11);
* the theorems assume E >= 6.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, pow2

FIRST_FOUR = ("relu", "elu", "gelu", "swish")
SATURATING = ("sigmoid", "tanh")


@dataclass(frozen=True)
class TheoremConstants:
    activation: str
    fmt: Format
    M_sigma: Fraction  # the domain is [-M_sigma, M_sigma]
    H_sigma: Fraction  # |h*| <= H_sigma
    depth_3_1: tuple  # (one version, another version)
    depth_3_2: tuple
    format_admissible: bool  # E >= 6

    def domain(self):
        """The domain's ends as bit patterns (both in the format)."""
        return self.fmt.round(-self.M_sigma), self.fmt.round(self.M_sigma)


def constants(activation: str, fmt: Format) -> TheoremConstants:
    name = str(activation).lower()
    if name in FIRST_FOUR:
        m_sigma, h_sigma = pow2(fmt.e_max - 2), fmt.Omega
    elif name == "sigmoid":
        m_sigma, h_sigma = pow2(fmt.e_max - 1), pow2(fmt.M - 1)
    elif name == "tanh":
        m_sigma, h_sigma = pow2(fmt.e_max - 1), pow2(fmt.M - 2)
    else:
        raise InputError(f"Theorems 3.1/3.2 name six activations ({', '.join(FIRST_FOUR + SATURATING)}); "
                         f"{activation!r} is not one of them")
    return stated(name, fmt, m_sigma, h_sigma)


def stated(activation: str, fmt: Format, m_sigma, h_sigma) -> TheoremConstants:
    """The constants with X and H given: a user's activation takes them from its
    construction family's requirements (specs/requirements.py, ``THEOREM``); the depths are
    the general theorems' (3.6, 3.8)."""
    base = (1 << (fmt.E + 1)) + 2 * fmt.M
    return TheoremConstants(activation, fmt, Fraction(m_sigma), Fraction(h_sigma), (7, 9), (base + 9, base + 11),
                            fmt.E >= 6)
