"""Replay: every solver model is re-run in the executor before it is reported.

A model is decoded to bit patterns (:func:`fpsmt.semantics.arith.model_bits`); the executor
recomputes every quantity the claim talks about from those patterns alone, and each
is compared, bit for bit (NaN equal to NaN), with the solver's own value.  Any
difference raises :class:`ReplayMismatch` naming the solver, the quantity and both
values: it means an encoding bug or a solver bug, never something to pass over.
"""

from __future__ import annotations

import numpy as np

from fpsmt.semantics.arith import concrete, symbolic
from fpsmt.proof.claims import FloatDomain
from fpsmt.semantics.arith.base import INT_BITS
from fpsmt.proof.encoding import Encoding, parts
from fpsmt.errors import ReplayMismatch
from fpsmt.semantics.formats import Format


def check_same(fmt: Format, solver: str, name: str, solver_bits: int, executor_bits: int) -> None:
    a, b = fmt.canonical(int(solver_bits)), fmt.canonical(int(executor_bits))
    if a != b:
        raise ReplayMismatch(
            f"replay mismatch ({solver}, {fmt.name}) for {name}: the solver's model gives "
            f"{fmt.show(a)} but the executor computes {fmt.show(b)}")


def decode(claim, fmt: Format, name: str, raw) -> int:
    """A model's raw value as a canonical float pattern or a signed integer."""
    if isinstance(claim.variables[name], FloatDomain):
        return fmt.canonical(int(raw))
    v = int(raw)
    return v - (1 << INT_BITS) if v >> (INT_BITS - 1) else v


def show(claim, fmt: Format, name: str, v) -> str:
    return fmt.hex(v) if isinstance(claim.variables[name], FloatDomain) else str(v)


def truth(b) -> bool:
    """A claim boolean of a concrete or ground evaluation as a Python bool."""
    return bool(np.all(b.s.A.truth(b.v)))


class NotAnInstance(Exception):
    """The model of a claim that leaves an operation uninterpreted does not satisfy it
    with the operation interpreted (executor and Z3 agree): it rests on another function."""


def replay_model(claim, fmt, registry, solver: str, model: dict, part: str, fixed=None, cexs=()) -> dict:
    """Decode a model, re-run the claim on its bits in the executor and in Z3 (ground),
    and insist both agree with each other and with what the model must satisfy."""
    fixed = dict(fixed or {})
    wanted = list(claim.witness) if part in ("exists", "propose") else list(claim.universal)
    bits = {**fixed, **{n: decode(claim, fmt, n, model[n]) for n in wanted
                        if n in model and n not in fixed}}
    for n in claim.variables:  # a variable no condition mentions: any value of its domain
        bits.setdefault(n, 0)
    build = parts(claim, "exists" if part == "propose" else part, cexs)
    views = {}
    for label, A in (("executor", concrete(fmt)), ("z3", symbolic(fmt))):
        enc = Encoding(claim, fmt, A, bits, registry)
        views[label] = ({k: truth(v) for k, v in build(enc).items()}, enc.scope.lets, A)
    (ex_c, ex_lets, X), (z_c, z_lets, Z) = views["executor"], views["z3"]
    for name in ex_lets:
        check_same(fmt, f"{solver}, ground Z3", name, int(np.ravel(Z.to_bits(z_lets[name].v))[0]),
                   int(np.ravel(X.to_bits(ex_lets[name].v))[0]))
    for cond, ok in ex_c.items():
        if not ok or not z_c[cond]:
            shown = ", ".join(f"{n}={show(claim, fmt, n, bits[n])}" for n in claim.variables)
            if claim.uninterpreted and not ok and not z_c[cond]:  # both interpret the operation: it was another
                raise NotAnInstance(f"'{cond}' is false at {shown} with the format's own "
                                    f"{', '.join(claim.uninterpreted)} (executor and Z3 agree)")
            raise ReplayMismatch(
                f"replay mismatch ({solver}, {fmt.name}): claim {claim.name}, model {shown}: "
                f"'{cond}' is {z_c[cond]} in Z3's evaluation and {ok} in the executor, but the model "
                "must make it true")
    return {n: bits[n] for n in wanted}


def evaluate(claim, fmt, registry, bits: dict, part: str = "exists", A=None) -> tuple:
    """The claim's conditions (name -> bool) and named values (``s.let``: name -> pattern)
    in the executor (or the interpretation ``A``, e.g. the exact reference) at the given
    patterns: a stored witness re-checked without a solver."""
    A = A if A is not None else concrete(fmt)
    enc = Encoding(claim, fmt, A, {n: bits.get(n, 0) for n in claim.variables}, registry)
    conds = {k: truth(v) for k, v in parts(claim, part)(enc).items()}
    return conds, {k: int(np.ravel(A.to_bits(v.v))[0]) for k, v in enc.scope.lets.items()}
