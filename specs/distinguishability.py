"""Distinguishability of a domain by a first layer (BRIEF §6; from the ICML-2025 predecessor).

A hypothesis of Lemmas 3.4–3.5: the first layer maps distinct inputs of X to distinct
outputs — for all x ≠ x' in X (d = 1; +0 and −0 are one point) some first-layer neuron
σ(w_i ⊗ x ⊕ b_i) differs.  For a given layer this is a two-variable ∀ claim, checked per
format over every pair of floats of X.
"""

from fractions import Fraction

from fpsmt.proof.claims import Float, forall


def distinguishing(activation, neurons, lo, hi, name="distinguishing"):
    """∀ finite x ≠ x' in [lo, hi]: some σ(w ⊗ x ⊕ b) ≠ σ(w ⊗ x' ⊕ b); ``neurons`` = [(w, b)]
    with exactly representable numbers; lo, hi numbers or functions of the format."""
    def goal(s):
        outs = [(s.sigma(activation, s.x * w + b)).ne(s.sigma(activation, s.x2 * w + b)) for w, b in neurons]
        return s.any(*outs)
    return forall(name, {"x": Float(finite=True, range=(lo, hi)), "x2": Float(finite=True, range=(lo, hi))},
                  given=lambda s: s.x.ne(s.x2), goal=goal,
                  doc="The first layer distinguishes every pair of distinct points of [lo, hi].")


def relu_first_layer():
    """The first layer the ReLU construction starts from: relu(x) and relu(−x)."""
    return [(1, 0), (-1, 0)]


def relu_first_layer_distinguishes():
    """relu(x), relu(−x) distinguish X = [−2^(e_max−2), 2^(e_max−2)] (Theorem 3.1's domain for ReLU)."""
    m = lambda f: Fraction(2) ** (f.e_max - 2)  # noqa: E731  (M_σ of specs/theorems.py for ReLU)
    return distinguishing("relu", relu_first_layer(), lambda f: -m(f), m, name="relu_first_layer_distinguishes")


def single_relu_does_not_distinguish():
    """A negative control: relu(x) alone maps every x <= 0 to +0."""
    return distinguishing("relu", [(1, 0)], -1, 1, name="single_relu_does_not_distinguish")
