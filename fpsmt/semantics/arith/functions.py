"""Functions of one float that an interpretation applies: *known functions*.

An activation's σ_F or σ'_F is such a function: its true value at any point is
computable (a correctly rounded real function), and true facts about it are known (its
limits, its value at ±0, monotone pieces, symmetry).  Each interpretation applies a
:class:`KnownFunction` its own way (:meth:`fpsmt.semantics.arith.base.Arith.apply`):

* the executor and the exact reference look the value up in the function's table
  (formats of at most :data:`TABLE_MAX_BITS` bits) or compute it at each distinct input;
* the Z3 interpretation encodes the table as a decision tree, or, for wider formats, an
  uninterpreted value bound only by the facts, refined lazily with true values.

Nothing here knows about activations or solvers: the activations build known functions
(:func:`fpsmt.semantics.activations.known_function`), the interpretations apply them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from fpsmt.semantics.formats import Format

TABLE_MAX_BITS = 16


@dataclass(frozen=True)
class Piece:
    """A monotone piece ``[lo, hi]`` (float patterns; None: unbounded on that side) on
    which the function is non-decreasing (``direction`` +1) or non-increasing (−1), with
    its values at the ends (the limit for an open end).  Unless ``constant``, the real
    function is monotone on the piece (so the rounded one is too, and the smaller end's
    value, attained or a limit, bounds the real function below); a ``constant`` piece is one
    where only the rounded function is known to be constant (a saturated tail found by
    enclosures: the real function need not be monotone there, and a zero constant is a
    zero of either sign)."""

    lo: int | None
    hi: int | None
    direction: int
    at_lo: int
    at_hi: int
    constant: bool = False


@dataclass(eq=False)
class KnownFunction:
    """A function F → F of one format, known by its true value and by true facts.

    ``value(bits)`` is the true result's pattern at any pattern (NaN canonical);
    ``table()`` gives every pattern's result at once (formats of at most
    :data:`TABLE_MAX_BITS` bits).  Facts: ``at_inf`` (results at +∞ and −∞), ``never_nan``
    (a non-NaN argument never gives NaN), ``pieces`` (:class:`Piece`), ``symmetry``
    (``"odd"``, ``"even"`` or None), ``identity`` ((lo, hi) patterns of finite floats on
    whose closed range F(t) = t exactly), ``bounds`` (F's range over the finite floats).
    ``key`` names the function (one key, one function).
    """

    key: str
    fmt: Format
    value_fn: Callable[[int], int]
    table_fn: Callable[[], np.ndarray] | None = None
    at_inf: tuple = (None, None)
    never_nan: bool = False
    pieces: tuple = ()
    symmetry: str | None = None
    identity: tuple = ()
    #: None or a callable giving (lo, hi) patterns (or None): lo <= F(t) <= hi for every finite
    #: t (:func:`fpsmt.semantics.activations.rounding.finite_bounds`; computed when a lazy
    #: encoding first needs it)
    bounds: Callable | None = None
    _memo: dict = field(default_factory=dict, repr=False)

    def value(self, bits: int) -> int:
        v = self._memo.get(bits)
        if v is None:
            v = self._memo[bits] = int(self.value_fn(int(bits)))
        return v

    @property
    def tabulated(self) -> bool:
        return self.table_fn is not None and self.fmt.nbits <= TABLE_MAX_BITS

    def table(self) -> np.ndarray:
        return self.table_fn()

    def values(self, bits) -> np.ndarray:
        """The results at an array of patterns (a table lookup where there is a table)."""
        bits = np.asarray(bits)
        fmt = self.fmt
        if self.tabulated:
            return np.asarray(self.table())[bits.astype(np.int64)]
        flat = bits.ravel()
        uniq, inv = np.unique(flat, return_inverse=True)
        vals = np.array([self.value(int(b)) for b in uniq], dtype=fmt.uint_dtype)
        return vals[inv].reshape(bits.shape)
