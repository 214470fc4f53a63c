"""Deciding a claim's query by enumeration in the executor (no solver).

For small formats the whole space of a query's free variables can be run through the
bit-exact executor, vectorised: every float pattern (all NaN patterns count as one
NaN) and every integer of its range.  The answer is exact and independent of every
SMT solver, so it serves as a back end of its own (``--solver exhaustive``) and as the
confirmation of last resort when no second solver accepts a format (e.g. float8_e5m2,
whose additions Z3 refuses and Bitwuzla's PyPI build does not accept).
"""

from __future__ import annotations

import os
import time
from collections import deque
from contextlib import closing
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from fpsmt.semantics.arith import concrete
from fpsmt.proof.claims import FloatDomain
from fpsmt.semantics.arith.base import INT_BITS
from fpsmt.proof.encoding import Encoding

LIMIT = 1 << 26  # largest space enumerated (a claim marked ``enumerate``: CLAIM_LIMIT)
CLAIM_LIMIT = 1 << 33  # e.g. every (z, x) pair of bfloat16: 2^32 points, about 3.5 minutes on 2 cores
CHUNK = 1 << 20  # points per piece
WORKERS = max(1, min(4, os.cpu_count() or 1))
REPORT_FROM = 1 << 28  # enumerations this large report progress


def _float_values(fmt):
    pats = [b for b in range(1 << fmt.nbits) if not fmt.is_nan(b) or b == fmt.nan_bits]
    return np.asarray(pats, dtype=np.uint64)


def _range_values(fmt, dom, limit=LIMIT):
    """The patterns of a float variable with a finite ``range`` or ``magnitude`` (a
    superset: the domain constraint is part of the enumerated condition), or None when it
    is too large.  The patterns of [lo, hi] are one run per sign, so wide formats enumerate
    narrow ranges; a magnitude [lo, hi] is the range [lo, hi] and its negation."""
    from fractions import Fraction
    if dom.lo is None and dom.mag_lo is not None:
        pos = _range_values(fmt, FloatDomain(lo=dom.mag_lo, hi=dom.mag_hi), limit // 2)
        return None if pos is None else np.concatenate([pos, pos | np.uint64(fmt.sign_bit)])
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
    if dom.pow2:  # the powers of two in [lo, hi]: a few thousand at most
        pows = [fmt.round(Fraction(2) ** k) for k in range(fmt.e_min - fmt.M, fmt.e_max + 1)]
        return np.asarray([p for p in pows if lo <= fmt.to_fraction(p) <= hi], dtype=np.uint64)
    runs = []
    if hi >= 0:  # +0 … the positive end
        a = fmt.round(max(lo, Fraction(0)))
        runs.append((a & ~fmt.sign_bit, fmt.round(hi)))
    if lo <= 0:  # the negative patterns, sign bit set: −0 or −|hi| … −|lo| (−0 alone when lo = 0)
        runs.append((fmt.sign_bit | fmt.round(-min(hi, Fraction(0))), fmt.sign_bit | fmt.round(-lo)))
    if sum(max(0, b - a + 1) for a, b in runs) > limit:
        return None
    return np.concatenate([np.arange(a, b + 1, dtype=np.uint64) for a, b in runs])


def _in_domain(fmt, name, dom, ax):
    """The patterns of ``ax`` that satisfy the variable's domain (the domain is also part
    of the enumerated condition: this only spares points that cannot count)."""
    from fpsmt.proof.claims import F, Scope, domain_constraint
    s = Scope(concrete(fmt), fmt, {})
    s._vals[name] = F(s, s.A.const(ax))
    keep = np.broadcast_to(np.asarray(domain_constraint(s, name, dom).v), ax.shape)
    return ax[keep]


def space(claim, fmt, free, limit=LIMIT):
    """The values each free variable ranges over, or None when the space is too large (or
    the claim leaves an operation uninterpreted: the executor interprets every one)."""
    if claim.uninterpreted:
        return None
    axes = []
    total = 1
    for name in free:
        dom = claim.variables[name]
        if isinstance(dom, FloatDomain):
            if fmt.nbits > 16:  # sized before it is built: what is left of the limit, one axis at most LIMIT
                ranged = (dom.lo is not None and dom.hi is not None) or (dom.mag_lo is not None
                                                                         and dom.mag_hi is not None)
                ax = _range_values(fmt, dom, min(LIMIT, limit // total)) if ranged else None
                if ax is None:
                    return None
            else:
                ax = _float_values(fmt)
            ax = _in_domain(fmt, name, dom, ax)
        else:
            lo, hi = (int(b(fmt) if callable(b) else b) for b in (dom.lo, dom.hi))
            if total * (hi - lo + 1) > limit:
                return None
            ax = np.arange(lo, hi + 1, dtype=np.int64)
        total *= len(ax)
        if total > limit:
            return None
        axes.append(ax)
    return axes


class TimeUp(Exception):
    """The enumeration passed its deadline, or would: ``done`` is the fraction of the space
    seen, ``projected`` (when it stopped early) the seconds the whole space would take."""

    def __init__(self, done, projected=None):
        why = (f"stopped after enumerating {100 * done:.0f}% of the space: at its rate the whole space would "
               f"take about {projected:.0f} s, past the time limit") if projected is not None else \
            f"time limit reached after enumerating {100 * done:.0f}% of the space"
        super().__init__(why)
        self.done, self.projected = done, projected


#: an enumeration whose rate, measured over at least this many seconds, projects its end
#: past its deadline by a quarter of its time or more stops there (TimeUp) instead of at
#: the deadline
PROJECT_AFTER = 20.0


def decide(claim, fmt, condition, fixed: dict, free: list, registry=None, limit=LIMIT, progress=None,
           deadline=None, arith=None):
    """``("sat", {var: raw value})`` for the first assignment of ``free`` (with ``fixed``)
    that makes ``condition(encoding)`` true, ``("unsat", None)`` when none does, or None when
    the space has more than ``limit`` points.  Raw values: float patterns, integers as
    unsigned 32-bit words (as a solver's model gives them).  Pieces are evaluated on
    ``WORKERS`` threads (NumPy releases the GIL in its array operations) and scanned in
    order, so the assignment returned is the first in the enumeration order whatever the
    threads' timing; ``progress(message)`` hears about long enumerations.  Past
    ``deadline`` (``time.monotonic()``) it raises :class:`TimeUp`."""
    axes = space(claim, fmt, free, limit)
    if axes is None:
        return None
    filler = {n: 0 for n in claim.variables}  # variables this query does not mention
    A = arith if arith is not None else concrete(fmt)
    axes = _narrow(claim, fmt, A, getattr(condition, "hypotheses", None), {**filler, **fixed}, free, axes,
                   registry or {})
    if any(len(a) == 0 for a in axes):
        return "unsat", None

    def piece(chunk):
        values, shape = chunk
        enc = Encoding(claim, fmt, A, {**filler, **fixed, **values}, registry or {})
        hits = np.flatnonzero(np.broadcast_to(np.asarray(condition(enc).v), shape))
        if not len(hits):
            return None
        at = np.unravel_index(int(hits[0]), shape)
        return {name: int(np.broadcast_to(v, shape)[at]) for name, v in values.items()}

    total = int(np.prod([len(a) for a in axes])) if axes else 1
    started = time.monotonic()
    report = _Progress(progress if total > REPORT_FROM else None, total, free, fmt)
    with ThreadPoolExecutor(WORKERS) as pool, closing(_in_order(pool, piece, _chunks(free, axes))) as results:
        for future, shape in results:
            first = future.result()
            report.done(int(np.prod(shape)))
            if first is not None:
                return "sat", {name: first[name] & ((1 << INT_BITS) - 1)
                               if not isinstance(claim.variables[name], FloatDomain) else first[name] for name in free}
            if deadline is not None:
                now = time.monotonic()
                if now > deadline:
                    raise TimeUp(report.seen / total)
                ran = now - started
                if ran >= PROJECT_AFTER and report.seen < total:
                    whole = ran * total / report.seen
                    if whole > 1.25 * (deadline - started):
                        raise TimeUp(report.seen / total, whole)
    return "unsat", None


def _narrow(claim, fmt, A, hypotheses, base, free, axes, registry):
    """``axes`` with each variable's axis cut to the values that satisfy the hypotheses
    depending on that variable alone (e.g. ``c in K``): the points dropped fail the
    condition, and the order of those kept is unchanged, so the first hit is the same.
    A hypothesis's dependencies are read from the shape of its value on an open mesh of
    two values per axis (the executor computes elementwise, so a value that never met a
    variable's array is independent of it)."""
    if hypotheses is None or not free or any(len(a) == 0 for a in axes):
        return axes
    k = len(free)
    probe = {}
    for i, (name, ax) in enumerate(zip(free, axes)):
        dims = [1] * k
        dims[i] = min(2, len(ax))
        probe[name] = ax[:dims[i]].reshape(dims)
    shapes = [np.shape(np.asarray(h.v)) for h in hypotheses(Encoding(claim, fmt, A, {**base, **probe}, registry))]
    axes = list(axes)
    for j, shape in enumerate(shapes):
        deps = [i for i in range(len(shape)) if shape[i] > 1] if len(shape) == k else []
        if len(deps) != 1:
            continue
        i = deps[0]
        values = {name: (axes[i] if m == i else ax[:1]) for m, (name, ax) in enumerate(zip(free, axes))}
        keep = np.broadcast_to(np.asarray(hypotheses(Encoding(claim, fmt, A, {**base, **values}, registry))[j].v),
                               axes[i].shape)
        axes[i] = axes[i][keep]
    return axes


def _in_order(pool, piece, chunks):
    """(future of ``piece(chunk)``, the chunk's shape) for every chunk, in order, with at
    most 2 · WORKERS pieces submitted ahead; closing it cancels those not started."""
    pending = deque()
    try:
        for chunk in chunks:
            pending.append((pool.submit(piece, chunk), chunk[1]))
            if len(pending) >= 2 * WORKERS:
                yield pending.popleft()
        while pending:
            yield pending.popleft()
    finally:
        for f, _ in pending:
            f.cancel()


class _Progress:
    """A line to ``say`` about every tenth of a long enumeration."""

    def __init__(self, say, total, free, fmt):
        self.say, self.total, self.seen, self.next = say, total, 0, total / 10
        self.t0 = time.perf_counter()
        if say is not None:
            say(f"  enumerating {', '.join(free)} in {fmt.name}: {total:.3g} points on {WORKERS} thread(s)")

    def done(self, n):
        self.seen += n
        if self.say is not None and self.seen >= self.next and self.seen < self.total:
            dt = time.perf_counter() - self.t0
            self.say(f"  enumerated {100 * self.seen / self.total:.0f}% in {dt:.0f} s, "
                     f"about {dt * (self.total / self.seen - 1):.0f} s to go")
            self.next += self.total / 10


def _chunks(free, axes):
    """The product space of ``axes`` in pieces of about CHUNK points, as open meshes
    (``{name: array}``, the piece's shape): the trailing variables whose product fits a
    piece are whole axes of their own, the leading ones are enumerated together along
    axis 0.  Broadcasting then evaluates everything that depends on the leading
    variables alone (e.g. the weights a builder computes from z) once per value instead
    of once per point."""
    n = len(axes)
    t, tail = n, 1
    while t > 0 and tail * len(axes[t - 1]) <= CHUNK:
        t -= 1
        tail *= len(axes[t])
    head_shape = tuple(len(a) for a in axes[:t])
    head_total = int(np.prod(head_shape)) if head_shape else 1
    step = max(1, CHUNK // tail)
    for start in range(0, head_total, step):
        nb = min(head_total, start + step) - start
        idx = np.unravel_index(np.arange(start, start + nb), head_shape) if head_shape else ()
        lead = 1 if head_shape else 0
        shape = (nb,) * lead + tuple(len(a) for a in axes[t:])
        values = {}
        for name, ax, i in zip(free[:t], axes[:t], idx):
            values[name] = ax[i].reshape((nb,) + (1,) * (n - t))
        for j, (name, ax) in enumerate(zip(free[t:], axes[t:])):
            dims = [1] * len(shape)
            dims[lead + j] = len(ax)
            values[name] = ax.reshape(dims)
        yield values, shape
