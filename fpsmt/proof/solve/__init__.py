"""Solving: one SMT-LIB 2 text, several back ends, wall-clock limits, a portfolio.

:func:`solve` sends a :class:`Query` to one back end (``z3``, ``cvc5``, ``bitwuzla``)
or to every back end that accepts the format (``portfolio``, in parallel processes,
first decisive answer wins).  An UNSAT from an experimental mode (cvc5's ``fp-exp``)
is not decisive on its own: it must be confirmed by another back end.  When one race
holds both a SAT and an UNSAT, the SAT is returned with the UNSAT in ``disputed_by``:
the engine replays the model and stops the run naming both answers.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format
from fpsmt.proof.solve.backends import BACKENDS, accepts, installed, version
from fpsmt.proof.solve.pool import run_query, shutdown  # noqa: F401

SOLVERS = BACKENDS + ("portfolio", "exhaustive")  # exhaustive: enumeration, see fpsmt.proof.exhaustive
_warned: set = set()


@dataclass
class Query:
    text: str  # SMT-LIB 2: declarations and assertions, no check-sat
    variables: dict  # name -> bit-vector width: what a model must give
    fmt: Format
    extra: dict = field(default_factory=dict)  # further bit-vectors the model must give (not reported)


@dataclass
class Answer:
    status: str  # "sat" | "unsat" | "unknown"
    model: dict | None
    solver: str  # the back end whose answer this is ("" when none answered)
    seconds: float  # wall-clock time of the race
    experimental: bool = False
    reason: str = ""
    per_solver: dict = field(default_factory=dict)  # backend -> seconds, or "timeout"/"cancelled"/"error: …"
    confirmed_by: str = ""
    #: the race went on after this UNSAT for another back end's answer (solve_plan's confirm)
    confirm_raced: bool = False
    disputed_by: list = field(default_factory=list)  # back ends that said unsat to this sat answer


def _warn(msg):
    if msg not in _warned:
        _warned.add(msg)
        sys.stderr.write(f"fpsmt: note: {msg}\n")


def plan_for(solver: str, fmt: Format, exclude=(), confirming: bool = False) -> dict:
    """{backend: experimental} for a requested solver name in a format.  The portfolio
    races ``bitwuzla-bv`` only where Bitwuzla's own floating-point layer refuses the
    format (two Bitwuzla processes would share two cores for one opinion's worth of
    speed), and an experimental mode only where fewer than two back ends take the format
    outside one (its UNSAT decides nothing alone, and it would take a core from the two
    that do); a ``confirming`` plan, which checks another back end's UNSAT, takes them all."""
    if solver not in SOLVERS or solver == "exhaustive":
        raise InputError(f"unknown solver {solver!r}: use one of {', '.join(SOLVERS)}")
    if solver != "portfolio":
        if not installed(solver):
            raise InputError(f"solver {solver} is not installed (pip install {solver if solver != 'z3' else 'z3-solver'})")
        ok, experimental, why = accepts(solver, fmt.E, fmt.M)
        if not ok:
            raise InputError(f"{why}; choose another --solver")
        return {solver: experimental}
    plan = {}
    native_bitwuzla = accepts("bitwuzla", fmt.E, fmt.M)[0]
    for b in BACKENDS:
        if b in exclude:
            continue
        if b == "bitwuzla-bv" and not confirming and native_bitwuzla:
            continue
        ok, experimental, why = accepts(b, fmt.E, fmt.M)
        if ok:
            plan[b] = experimental
        elif b == "bitwuzla" and accepts("bitwuzla-bv", fmt.E, fmt.M)[0]:
            _warn(f"Bitwuzla's floating-point layer does not take {fmt.name}: bitwuzla-bv (fpsmt's bit-vector "
                  "encoding, Bitwuzla's bit-vector engine) stands in")
        else:
            _warn(f"skipping {why}")
    if not confirming and sum(1 for e in plan.values() if not e) >= 2:
        plan = {b: e for b, e in plan.items() if not e}
    for b, e in plan.items():
        if e:
            _warn(f"{b} answers {fmt.name} only in its experimental mode; its UNSAT answers need confirmation")
    if not plan:
        raise InputError(f"no installed solver accepts {fmt.name}")
    return plan


def solver_versions(plan) -> str:
    return ",".join(f"{b}-{version(b)}{'-exp' if plan[b] else ''}" for b in sorted(plan))


def solve(q: Query, solver: str = "z3", timeout: float = 60.0, exclude=()) -> Answer:
    plan = plan_for(solver, q.fmt, exclude)
    return solve_plan(q, plan, timeout)


def _race(q: Query, plan: dict, timeout: float, decisive, confirm=False, grace=None, joiners=None):
    """(the pool's outcome, wall seconds, seconds or fate per back end)."""
    t0 = time.perf_counter()
    out = run_query(q.text, {**q.variables, **q.extra}, plan, timeout, decisive=decisive, confirm=confirm,
                    grace=grace, joiners=joiners)
    wall = time.perf_counter() - t0
    per = {b: (round(a[3], 3) if a[0] != "unknown" else f"unknown: {a[2]}") for b, a in out.answers.items()}
    per.update({b: "timeout" for b in out.timed_out})
    per.update({b: "cancelled" for b in out.cancelled})
    return out, wall, per


def _undecided(out, wall, per, timeout) -> Answer:
    reasons = [f"{b}: {a[2] or a[0]}" for b, a in out.answers.items()]
    reasons += [f"{b}: no answer within {timeout:.3g} s" for b in out.timed_out]
    return Answer("unknown", None, "", wall, False, "; ".join(reasons) or "no answer", per)


def named(backend: str, experimental: bool) -> str:
    """A back end as answers name it: ``cvc5 (experimental)`` for an experimental mode."""
    return backend + (" (experimental)" if experimental else "")


def _decided(out, plan, wall, per, unsat_decides) -> Answer | None:
    """The race's answer: a SAT first (with every UNSAT of the same race as disputing it, so
    the replayed model stops the run), else an UNSAT that ``unsat_decides``, else None."""
    unsats = [b for b, a in out.answers.items() if a[0] == "unsat"]
    for b, (status, model, reason, secs) in out.answers.items():
        if status == "sat":
            return Answer("sat", model, b, wall, plan[b], "", per, disputed_by=[named(u, plan[u]) for u in unsats])
    for b in unsats:
        if unsat_decides(b):
            return Answer("unsat", None, b, wall, plan[b], "", per)
    return None


def solve_plan(q: Query, plan: dict, timeout: float, confirm: bool = False, grace: float | None = None,
               joiners: dict | None = None) -> Answer:
    """The race's answer.  ``confirm``: the back ends still working when one says UNSAT go
    on, to the same deadline (or for ``grace`` seconds more, where the caller has another
    way to confirm), and ``joiners`` (back ends that confirm but did not race) start
    then; the first of them to say UNSAT too is its ``confirmed_by`` (a SAT is a
    disagreement: returned with the UNSAT disputing it) — every back end gets the whole
    time limit, concurrently, instead of a second race started from scratch after the
    first."""
    out, wall, per = _race(q, plan, timeout, lambda b, status, exp: status == "sat" or (status == "unsat" and not exp),
                           confirm, grace, joiners)
    kinds = {**(joiners or {}), **plan}  # every back end that may have answered
    ans = _decided(out, kinds, wall, per, lambda b: b in plan and not plan[b])
    if ans is not None:
        if ans.status == "unsat":
            others = [b for b, a in out.answers.items() if a[0] == "unsat" and b != ans.solver]
            ans.confirmed_by = named(others[0], kinds[others[0]]) if others else ""
            ans.confirm_raced = confirm and (len(plan) > 1 or bool(out.joined))
        return ans
    exp_unsat = [b for b, a in out.answers.items() if a[0] == "unsat"]
    if exp_unsat:
        return _confirm_experimental(q, exp_unsat[0], plan, wall, per, timeout - wall)
    return _undecided(out, wall, per, timeout)


def second_opinion(q: Query, plan: dict, timeout: float) -> Answer:
    """The first answer any of ``plan``'s back ends decides, experimental modes included:
    the check of an UNSAT another back end found (a wrong PROVED would need both wrong)."""
    out, wall, per = _race(q, plan, timeout, lambda b, status, exp: status in ("sat", "unsat"))
    ans = _decided(out, plan, wall, per, lambda b: True)
    return ans if ans is not None else _undecided(out, wall, per, timeout)


def _confirm_experimental(q: Query, who: str, plan: dict, wall: float, per: dict, left: float) -> Answer:
    """An experimental UNSAT is confirmed by Z3 (or another non-experimental back end)."""
    try:
        others = {b: e for b, e in plan_for("portfolio", q.fmt, exclude=(who,), confirming=True).items() if not e}
    except InputError:
        others = {}
    if not others or left <= 0:
        why = "no time left" if others else f"no non-experimental solver accepts {q.fmt.name}"
        return Answer("unknown", None, who, wall, True,
                      f"{who} (experimental) says unsat; cannot confirm it: {why}", per)
    t0 = time.perf_counter()
    ans = solve_plan(q, others, left)
    per = {**per, **{f"confirm:{k}": v for k, v in ans.per_solver.items()}}
    wall += time.perf_counter() - t0
    if ans.status == "unsat":
        return Answer("unsat", None, who, wall, True, "", per, confirmed_by=ans.solver)
    if ans.status == "sat":  # replayed by the engine, which then stops the run naming both
        return Answer("sat", ans.model, ans.solver, wall, False, f"{who} (experimental) said unsat", per,
                      disputed_by=[named(who, True), *ans.disputed_by])
    return Answer("unknown", None, who, wall, True,
                  f"{who} (experimental) says unsat, not confirmed: {ans.reason}", per)
