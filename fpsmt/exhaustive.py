"""Deciding a claim's query by enumeration in the executor (no solver).

For small formats the whole space of a query's free variables can be run through the
bit-exact executor, vectorised: every float pattern (all NaN patterns count as one
NaN) and every integer of its range.  The answer is exact and independent of every
SMT solver, so it serves as a back end of its own (``--solver exhaustive``) and as the
confirmation of last resort when no second solver accepts a format (e.g. float8_e5m2,
whose additions Z3 refuses and Bitwuzla's PyPI build does not accept).
"""

from __future__ import annotations

import numpy as np

from .arith import concrete
from .claims import INT_BITS, FloatDomain
from .encoding import Encoding

LIMIT = 1 << 26  # largest space enumerated
CHUNK = 1 << 18


def _float_values(fmt):
    pats = [b for b in range(1 << fmt.nbits) if not fmt.is_nan(b) or b == fmt.nan_bits]
    return np.asarray(pats, dtype=np.uint64)


def space(claim, fmt, free):
    """The values each free variable ranges over, or None when the space is too large."""
    axes = []
    total = 1
    for name in free:
        dom = claim.variables[name]
        if isinstance(dom, FloatDomain):
            if fmt.nbits > 16:
                return None
            ax = _float_values(fmt)
        else:
            lo, hi = (b(fmt) if callable(b) else b for b in (dom.lo, dom.hi))
            ax = np.arange(int(lo), int(hi) + 1, dtype=np.int64)
        total *= len(ax)
        if total > LIMIT:
            return None
        axes.append(ax)
    return axes


def decide(claim, fmt, condition, fixed: dict, free: list, registry=None):
    """``("sat", {var: raw value})`` for the first assignment of ``free`` (with ``fixed``)
    that makes ``condition(encoding)`` true, ``("unsat", None)`` when none does, or None when
    the space is too large to enumerate.  Raw values: float patterns, integers as unsigned
    32-bit words (as a solver's model gives them)."""
    axes = space(claim, fmt, free)
    if axes is None:
        return None
    shape = tuple(len(a) for a in axes)
    total = int(np.prod(shape)) if shape else 1
    A = concrete(fmt)
    for start in range(0, total, CHUNK):
        n = min(total, start + CHUNK) - start
        idx = np.unravel_index(np.arange(start, start + n), shape) if shape else ()
        values = {name: ax[i] for name, ax, i in zip(free, axes, idx)}
        filler = {n: 0 for n in claim.variables}  # variables this query does not mention
        enc = Encoding(claim, fmt, A, {**filler, **fixed, **values}, registry or {})
        hits = np.nonzero(np.broadcast_to(np.asarray(condition(enc).v), (n,)))[0]
        if len(hits):
            k = int(hits[0])
            return "sat", {name: int(values[name][k]) & ((1 << INT_BITS) - 1)
                           if not isinstance(claim.variables[name], FloatDomain) else int(values[name][k])
                           for name in free}
    return "unsat", None
