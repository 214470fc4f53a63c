"""Replay: every solver model is re-run in the executor before it is reported.

A model is decoded to bit patterns (:func:`fpsmt.arith.model_bits`); the executor
recomputes every quantity the claim talks about from those patterns alone, and each
is compared, bit for bit (NaN equal to NaN), with the solver's own value.  Any
difference raises :class:`ReplayMismatch` naming the solver, the quantity and both
values: it means an encoding bug or a solver bug, never something to pass over.
"""

from __future__ import annotations

from .errors import ReplayMismatch
from .formats import Format


def check_same(fmt: Format, solver: str, name: str, solver_bits: int, executor_bits: int) -> None:
    a, b = fmt.canonical(int(solver_bits)), fmt.canonical(int(executor_bits))
    if a != b:
        raise ReplayMismatch(
            f"replay mismatch ({solver}, {fmt.name}) for {name}: the solver's model gives "
            f"{fmt.show(a)} but the executor computes {fmt.show(b)}")
