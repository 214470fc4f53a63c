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


def _range_values(fmt, dom):
    """The patterns of a float variable with a finite ``range`` (a superset: the domain
    constraint is part of the enumerated condition), or None when it is too large.  The
    patterns of [lo, hi] are one run per sign, so wide formats enumerate narrow ranges."""
    from fractions import Fraction
    ends = []
    for b in (dom.lo, dom.hi):
        b = b(fmt) if callable(b) else b
        if b is None or (isinstance(b, float) and b != b):
            return None
        pat = fmt.parse_hex(b) if isinstance(b, str) else fmt.round(Fraction(b))
        if not fmt.is_finite(pat):
            return None
        ends.append(fmt.to_fraction(pat))
    lo, hi = ends
    runs = []
    if hi >= 0:  # +0 … the positive end
        a = fmt.round(max(lo, Fraction(0)))
        runs.append((a & ~fmt.sign_bit, fmt.round(hi)))
    if lo <= 0:  # the negative patterns, sign bit set: −0 or −|hi| … −|lo| (−0 alone when lo = 0)
        runs.append((fmt.sign_bit | fmt.round(-min(hi, Fraction(0))), fmt.sign_bit | fmt.round(-lo)))
    if sum(max(0, b - a + 1) for a, b in runs) > LIMIT:
        return None
    return np.concatenate([np.arange(a, b + 1, dtype=np.uint64) for a, b in runs])


def space(claim, fmt, free):
    """The values each free variable ranges over, or None when the space is too large."""
    axes = []
    total = 1
    for name in free:
        dom = claim.variables[name]
        if isinstance(dom, FloatDomain):
            if fmt.nbits > 16:
                ax = _range_values(fmt, dom) if dom.lo is not None and dom.hi is not None else None
                if ax is None:
                    return None
            else:
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
