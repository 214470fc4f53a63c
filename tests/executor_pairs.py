"""The executor against the integer reference (:mod:`fpsmt.semantics.arith.intrne`) on every pair of patterns of
a format, in pieces: what the slow suite runs and ``benchmarks/executor_rne.py`` times."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from fpsmt.semantics.arith import concrete
from fpsmt.semantics.arith.intrne import IntRNE

OPS = ("add", "sub", "mul", "div")


def executor_op(fmt, op):
    """``(a_bits, b_bits) -> result bits`` of the fpsmt executor."""
    A = concrete(fmt)
    return lambda a, b: A.to_bits(getattr(A, op)(A.const(a), A.const(b)))


def first_mismatch(fmt, op, a, b, got, want) -> str | None:
    """One line naming the first pair whose results differ (NaNs compared as one NaN)."""
    R = IntRNE(fmt.E, fmt.M)
    got, want = np.broadcast_arrays(R.canonical(np.asarray(got).astype(np.int64)), R.canonical(want))
    bad = np.argwhere(got != want)
    if not len(bad):
        return None
    at = tuple(bad[0])
    aa, bb = np.broadcast_arrays(a, b)
    return (f"{fmt.name} {op}({fmt.hex(int(aa[at]))}, {fmt.hex(int(bb[at]))}): the executor gives "
            f"{fmt.hex(int(got[at]))}, the integer reference {fmt.hex(int(want[at]))} "
            f"({int(np.count_nonzero(got != want))} mismatches in this piece)")


def all_pairs(fmt, ops=OPS, run=None, rows=128, workers=None, progress=None):
    """Every (a, b) of ``fmt`` through ``run(op)`` (default: the executor's operations) and
    the reference, a piece of ``rows`` values of a at a time; the reference's a − b is its
    a + (−b) (IEEE defines it so), read from the same piece.  Per op: (the first mismatch
    or None, pairs checked, seconds in ``run``, seconds in the reference)."""
    R = IntRNE(fmt.E, fmt.M)
    n = 1 << fmt.nbits
    b = np.arange(n, dtype=np.uint64)[None, :]
    negated = (np.arange(n, dtype=np.int64) ^ R.sign)  # column of −b for each b
    runs = {op: (run(op) if run else executor_op(fmt, op)) for op in ops}

    def piece(start):
        a = np.arange(start, min(start + rows, n), dtype=np.uint64)[:, None]
        out, ref = {}, {}
        for op in ops:
            t0 = time.perf_counter()
            got = runs[op](a, b)
            t1 = time.perf_counter()
            base = "add" if op == "sub" else op
            if base not in ref:
                ref[base] = getattr(R, base)(a, b)
            want = ref[base][:, negated] if op == "sub" else ref[base]
            t2 = time.perf_counter()
            out[op] = (first_mismatch(fmt, op, a, b, got, want), a.size * n, t1 - t0, t2 - t1)
        return out

    totals = {op: [None, 0, 0.0, 0.0] for op in ops}
    with ThreadPoolExecutor(workers or max(1, min(4, os.cpu_count() or 1))) as pool:
        for i, out in enumerate(pool.map(piece, range(0, n, rows))):
            for op, (bad, k, tr, tf) in out.items():
                t = totals[op]
                t[0], t[1], t[2], t[3] = t[0] or bad, t[1] + k, t[2] + tr, t[3] + tf
            if progress and i % 32 == 31:
                progress(f"  {fmt.name}: {(i + 1) * rows / n:.0%} of the pairs")
    return {op: tuple(t) for op, t in totals.items()}
