"""Deciding a claim's query by enumeration in the executor (no solver).

For small formats the whole space of a query's free variables can be run through the
bit-exact executor, vectorised: every float pattern (all NaN patterns count as one
NaN) and every integer of its range.  The answer is exact and independent of every
SMT solver, so it serves as a back end of its own (``--solver exhaustive``) and as the
confirmation of last resort when no second solver accepts a format (e.g. float8_e5m2,
whose additions Z3 refuses and Bitwuzla's PyPI build does not accept).
"""

from __future__ import annotations

import contextlib
import functools
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
#: points per piece with another arithmetic (the integer executor, which confirms an
#: enumeration's answer): it takes tens of points a second in float64, and a run's deadline
#: is checked between pieces, so a piece of CHUNK points would overrun any time limit
ARITH_CHUNK = 1 << 14
WORKERS = max(1, min(4, os.cpu_count() or 1))
REPORT_FROM = 1 << 28  # enumerations this large report progress


class PatternAxis:
    """Every pattern of a format of 17 to 32 bits in increasing order, the NaNs as one (the
    canonical NaN) — the order :func:`_float_values` gives narrower formats — without
    building the array (float32: 4,278,190,083 values): an axis of :func:`space` that
    :func:`_chunks` indexes piece by piece."""

    def __init__(self, fmt):
        top = 1 << fmt.nbits
        nans = []  # the NaN patterns of each sign, as half-open runs
        for sign in (0, fmt.sign_bit):
            lo = sign | (fmt.exp_all_ones << fmt.M)
            nans.append((lo + 1, lo + (1 << fmt.M)))
        runs, at = [], 0
        for lo, hi in sorted(nans):
            if lo <= fmt.nan_bits < hi:  # the canonical NaN stays, alone
                runs += [(at, lo), (fmt.nan_bits, fmt.nan_bits + 1)]
            else:
                runs.append((at, lo))
            at = hi
        runs.append((at, top))
        self.starts = np.asarray([a for a, b in runs if b > a], dtype=np.int64)
        lengths = np.asarray([b - a for a, b in runs if b > a], dtype=np.int64)
        self.cum = np.concatenate([[0], np.cumsum(lengths)])
        self.shape = (int(self.cum[-1]),)

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, idx):
        idx = np.asarray(idx, dtype=np.int64)
        k = np.searchsorted(self.cum, idx, side="right") - 1
        return (self.starts[k] + (idx - self.cum[k])).astype(np.uint64)


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
                if ax is None and fmt.nbits <= 32 and not axes and limit >= (1 << fmt.nbits):
                    ax = PatternAxis(fmt)  # the whole format, not built: the first variable only
                    if len(ax) <= CHUNK:  # small enough to be a piece's whole axis: built
                        ax = ax[np.arange(len(ax))]
                if ax is None:
                    return None
            else:
                ax = _float_values(fmt)
            if not isinstance(ax, PatternAxis):  # a lazy axis keeps every pattern: the condition has the domain
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


#: enumerations of more points than this keep a checkpoint (:class:`Checkpoint`) when the
#: caller gives one
CHECKPOINT_FROM = REPORT_FROM
CHECKPOINT_EVERY = 2.0  # seconds between two saved checkpoints


class Checkpoint:
    """Where a long enumeration has got to, kept in the results store so that a run that
    was stopped (time limit, Ctrl-C, a killed process) goes on from there: the number of
    pieces (:func:`_chunks`, in order) enumerated without a hit.  ``job`` names the
    enumeration: its query, format, free variables, piece size and the code fingerprint,
    so that a checkpoint is never applied to another enumeration."""

    def __init__(self, store, job: str):
        self.store, self.job = store, job

    def load(self) -> int:
        return self.store.enumeration_done(self.job)

    def save(self, pieces: int, total: int):
        self.store.save_enumeration(self.job, pieces, total)

    def clear(self):
        self.store.clear_enumeration(self.job)


def decide(claim, fmt, condition, fixed: dict, free: list, registry=None, limit=LIMIT, progress=None,
           deadline=None, arith=None, checkpoint=None, executor=None):
    """``("sat", {var: raw value})`` for the first assignment of ``free`` (with ``fixed``)
    that makes ``condition(encoding)`` true, ``("unsat", None)`` when none does, or None when
    the space has more than ``limit`` points.  Raw values: float patterns, integers as
    unsigned 32-bit words (as a solver's model gives them).  Pieces are evaluated on
    ``WORKERS`` threads (NumPy releases the GIL in its array operations) and scanned in
    order, so the assignment returned is the first in the enumeration order whatever the
    threads' timing; ``progress(message)`` hears about long enumerations.  Past
    ``deadline`` (``time.monotonic()``) it raises :class:`TimeUp`, checked between pieces
    (CHUNK points; ARITH_CHUNK with ``arith``).  ``checkpoint`` (a
    :class:`Checkpoint`, used above CHECKPOINT_FROM points): the pieces it records as
    done are skipped, and the pieces done are recorded as the run goes (every
    CHECKPOINT_EVERY seconds) and forgotten once the answer is known.  ``executor`` (a
    ``concurrent.futures`` executor of a cluster's workers, the executor itself with no
    ``arith``): the pieces go to it in runs of SLICE (:func:`_scan`), still scanned in
    order, so the answer is the local one."""
    if executor is not None and arith is not None:
        raise ValueError("a cluster's enumeration runs in the executor itself")
    axes = space(claim, fmt, free, limit)
    if axes is None:
        return None
    filler = {n: 0 for n in claim.variables}  # variables this query does not mention
    A = arith if arith is not None else concrete(fmt)
    if not any(isinstance(a, PatternAxis) for a in axes):  # narrowing builds the axes it cuts
        axes = _narrow(claim, fmt, A, getattr(condition, "hypotheses", None), {**filler, **fixed}, free, axes,
                       registry or {})
    if any(len(a) == 0 for a in axes):
        return "unsat", None

    base = {**filler, **fixed}
    total = int(np.prod([len(a) for a in axes], dtype=object)) if axes else 1
    if total <= CLUSTER_FROM:  # a short enumeration stays in this process's threads
        executor = None
    started = time.monotonic()
    keep = checkpoint if checkpoint is not None and total > CHECKPOINT_FROM else None
    skip = keep.load() if keep is not None else 0
    pieces = _chunks(free, axes, skip, None if arith is None else min(CHUNK, ARITH_CHUNK))
    report = _Progress(progress if total > REPORT_FROM else None, total, free, fmt, pieces.seen,
                       "" if executor is None else f" in slices of {SLICE} pieces on the cluster")
    if skip and progress is not None:
        progress(f"  resuming the enumeration after {skip} pieces ({100 * pieces.seen / total:.0f}% of the space) "
                 f"recorded in the results store")
    saved, done = time.monotonic(), skip
    if executor is None:
        pool = ThreadPoolExecutor(WORKERS)
        units = _in_order(pool, functools.partial(_piece, claim, fmt, A, condition, base, registry or {}), pieces,
                          2 * WORKERS)
    else:
        pool = contextlib.nullcontext()
        units = _slices(executor, (claim, fmt, condition, base, free, axes, registry or {}, pieces.chunk), pieces)
    with pool, closing(units):
        for future, n_pieces, n_points in units:
            first = future.result()
            report.done(n_points)
            done += n_pieces
            if first is not None:
                if keep is not None:
                    keep.clear()
                return "sat", {name: first[name] & ((1 << INT_BITS) - 1)
                               if not isinstance(claim.variables[name], FloatDomain) else first[name] for name in free}
            now = time.monotonic()
            if keep is not None and now - saved >= CHECKPOINT_EVERY:
                keep.save(done, total)
                saved = now
            if deadline is not None:
                if now > deadline:
                    if keep is not None:
                        keep.save(done, total)
                    raise TimeUp(report.seen / total)
                ran = now - started
                if ran >= PROJECT_AFTER and report.seen < total:
                    rest = ran * (total - report.seen) / (report.seen - report.start)  # this run's rate
                    if ran + rest > 1.25 * (deadline - started):
                        if keep is not None:
                            keep.save(done, total)
                        raise TimeUp(report.seen / total, ran + rest)
    if keep is not None:
        keep.clear()
    return "unsat", None


def _piece(claim, fmt, A, condition, base, registry, chunk):
    """The first assignment of one piece (``chunk``: values and shape) that makes the
    condition true, or None."""
    values, shape = chunk
    enc = Encoding(claim, fmt, A, {**base, **values}, registry)
    hits = np.flatnonzero(np.broadcast_to(np.asarray(condition(enc).v), shape))
    if not len(hits):
        return None
    at = np.unravel_index(int(hits[0]), shape)
    return {name: int(np.broadcast_to(v, shape)[at]) for name, v in values.items()}


#: pieces per cluster task (2^26 points): a task is a run of pieces, scanned in order
SLICE = 64
CLUSTER_FROM = REPORT_FROM  # enumerations of more points than this go to a cluster when one is given


def _scan(claim, fmt, condition, base, free, axes, registry, chunk, first, stop):
    """A cluster task: pieces ``first`` … ``stop`` − 1 (of ``chunk`` points, as the caller
    cut them) in order, in the executor; the first hit, or None."""
    A = concrete(fmt)
    pieces = _chunks(free, axes, first, chunk)
    for _ in range(stop - first):
        hit = _piece(claim, fmt, A, condition, base, registry, next(pieces))
        if hit is not None:
            return hit
    return None


def _slices(executor, args, pieces):
    """(future of :func:`_scan` over SLICE pieces, its pieces, its points) for the pieces
    from ``pieces.first`` on, in order, with a few slices submitted ahead of the one
    awaited (the cluster's workers each have one); closing it cancels those not started."""
    step, tail, head_total = pieces.step, pieces.tail, pieces.head_total
    n = -(-head_total // step)  # pieces in all
    first = pieces.first // step

    def points(a, b):
        return (min(head_total, b * step) - a * step) * tail

    units = ((executor.submit(_scan, *args, a, min(n, a + SLICE)), min(n, a + SLICE) - a,
              points(a, min(n, a + SLICE))) for a in range(first, n, SLICE))
    return _ahead(units, 8)


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


def _in_order(pool, piece, chunks, ahead):
    """(future of ``piece(chunk)``, 1 piece, the chunk's points) for every chunk, in order,
    with at most ``ahead`` pieces submitted ahead; closing it cancels those not started."""
    return _ahead(((pool.submit(piece, chunk), 1, int(np.prod(chunk[1]))) for chunk in chunks), ahead)


def _ahead(units, ahead):
    """The (future, pieces, points) of ``units`` (a generator that submits each as it is
    drawn) in order, with at most ``ahead`` submitted before the one awaited; closing it
    cancels those not started."""
    pending = deque()
    try:
        for unit in units:
            pending.append(unit)
            if len(pending) >= ahead:
                yield pending.popleft()
        while pending:
            yield pending.popleft()
    finally:
        for f, _, _ in pending:
            f.cancel()


class _Progress:
    """A line to ``say`` about every tenth of a long enumeration (``start``: the points a
    checkpoint says were enumerated before)."""

    def __init__(self, say, total, free, fmt, start=0, where=""):
        self.say, self.total, self.seen, self.start = say, total, start, start
        self.next = (start // (total / 10) + 1) * (total / 10)
        self.t0 = time.perf_counter()
        if say is not None:
            say(f"  enumerating {', '.join(free)} in {fmt.name}: {total:.3g} points"
                + (where or f" on {WORKERS} thread(s)"))

    def done(self, n):
        self.seen += n
        if self.say is not None and self.seen >= self.next and self.seen < self.total:
            dt = time.perf_counter() - self.t0
            self.say(f"  enumerated {100 * self.seen / self.total:.0f}% in {dt:.0f} s, "
                     f"about {dt * (self.total - self.seen) / (self.seen - self.start):.0f} s to go")
            self.next += self.total / 10


class _Pieces:
    """:func:`_chunks`'s pieces from the ``skip``-th on (an iterator), and ``seen``: how many
    points the skipped pieces hold."""

    def __init__(self, free, axes, skip=0, chunk=None):
        self.free, self.axes = free, axes
        self.chunk = chunk = chunk or CHUNK
        n = len(axes)
        t, tail = n, 1
        while t > 0 and tail * len(axes[t - 1]) <= chunk:
            t -= 1
            tail *= len(axes[t])
        self.t, self.tail = t, tail
        self.head_shape = tuple(len(a) for a in axes[:t])
        self.head_total = int(np.prod(self.head_shape, dtype=object)) if self.head_shape else 1
        self.step = max(1, chunk // tail)
        self.first = min(skip * self.step, self.head_total)
        self.seen = self.first * tail
        self._it = self._pieces()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def _pieces(self):
        free, axes, t = self.free, self.axes, self.t
        n = len(axes)
        head_shape, head_total, step = self.head_shape, self.head_total, self.step
        for start in range(self.first, head_total, step):
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


def _chunks(free, axes, skip=0, chunk=None):
    """The product space of ``axes`` in pieces of about CHUNK points, as open meshes
    (``{name: array}``, the piece's shape), from the ``skip``-th piece on (a
    :class:`_Pieces`): the trailing variables whose product fits a piece are whole axes
    of their own, the leading ones are enumerated together along axis 0.  Broadcasting
    then evaluates everything that depends on the leading variables alone (e.g. the
    weights a builder computes from z) once per value instead of once per point."""
    return _Pieces(free, axes, skip, chunk)
