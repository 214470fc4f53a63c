"""The proof engine: discharge any claim the same way.

For a claim and a format it (1) checks that every assumed claim is proved, (2) renders
the query to SMT-LIB 2 through Z3, (3) answers from the store when it can, (4) solves
with the requested back end or the portfolio under a wall-clock limit, (5) replays
every model in the executor (:mod:`fpsmt.proof.replay`), (6) shows a ∀ claim's domains
and hypotheses satisfiable by a replayed witness before calling it PROVED (otherwise it
is VACUOUS), (7) confirms an UNSAT answer with a second back end or by enumeration
(``confirm``), and (8) records the decided result in the store.

A SAT and an UNSAT for one query, from two back ends (in one portfolio race, or an UNSAT
and its confirmation), stop the run: the SAT's model is replayed first, then
:class:`~fpsmt.errors.Disagreement` names both answers.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from fpsmt.semantics.arith import symbolic
from fpsmt.proof.claims import Claim, FloatDomain
from fpsmt.proof.encoding import Encoding, conjunction, parts
from fpsmt.errors import Disagreement, InputError
from fpsmt.semantics.formats import Format
from fpsmt.proof.replay import NotAnInstance, replay_model, show
from fpsmt.proof.exhaustive import CHUNK as ENUM_CHUNK
from fpsmt.proof.exhaustive import CLAIM_LIMIT, LIMIT, Checkpoint, TimeUp, decide, space
from fpsmt.semantics.arith.integer import IntegerArith
from fpsmt.proof.solve import Answer, Query, named, plan_for, second_opinion, solve_plan, solver_versions
from fpsmt.proof.store import Store, fingerprint, result_key, sha, statement_hash

PROVED, REFUTED, UNKNOWN, VACUOUS = "PROVED", "REFUTED", "UNKNOWN", "VACUOUS"
#: who confirmed an enumeration's answer by enumerating again on the integer executor
INTEGER_ENUMERATION = "exhaustive-integer"
#: what a ∀ part's hypotheses check gets beside the claim's own time limit: they are
#: usually met by the first values tried
VACUITY_SECONDS = 60.0
#: how long the other back ends of a confirming race go on after the first UNSAT where
#: the space can be enumerated instead (bfloat16 up to 2^33 points: Engine._confirm_limit)
CONFIRM_GRACE = 60.0


def rests_on_unsat(kind: str, status: str) -> bool:
    """Whether a claim of ``kind`` gets ``status`` from an UNSAT answer (what --confirm
    checks), rather than from a replayed model: ∀ PROVED, ∃ REFUTED, ∃∀ either."""
    return status == (REFUTED if kind == "exists" else PROVED) or (kind == "exists_forall" and status == REFUTED)


@dataclass
class Result:
    claim: str
    format: Format
    kind: str
    status: str
    witness: dict = field(default_factory=dict)  # var -> bits (floats) or int
    solver: str = ""
    seconds: float = 0.0
    cached: bool = False
    reason: str = ""
    experimental: bool = False
    assumed: list = field(default_factory=list)
    rounds: int = 0
    confirmed_by: str = ""
    per_solver: dict = field(default_factory=dict)
    key: str = ""
    float_vars: tuple = ()
    #: a replayed assignment meeting the ∀ part's domains and hypotheses (bit patterns):
    #: what shows a PROVED ∀ claim is not vacuous
    satisfiable_by: dict = field(default_factory=dict)
    #: the hash of the claim's SMT-LIB text and format (solver-independent): what a
    #: certificate names a claim by
    statement: str = ""

    def witness_json(self):
        return self._shown(self.witness)

    def to_json(self):
        return {"claim": self.claim, "format": self.format.name, "status": self.status,
                "witness": self.witness_json(), "solver": self.solver, "seconds": round(self.seconds, 3),
                "cached": self.cached, "kind": self.kind, "reason": self.reason,
                "experimental": self.experimental, "confirmed_by": self.confirmed_by or None,
                "assumed": self.assumed, "rounds": self.rounds,
                "hypotheses_met_by": self._shown(self.satisfiable_by) or None}

    def _shown(self, values):
        return {k: (self.format.hex(v) if k in self.float_vars else v) for k, v in values.items()}


# -------------------------------------------------------------------- engine
class Engine:
    def __init__(self, *, solver="z3", timeout=60.0, confirm=False, store: Store | None = None, recheck=False,
                 max_rounds=64, progress=None):
        from fpsmt.proof.solve import SOLVERS
        if solver not in SOLVERS:
            raise InputError(f"unknown solver {solver!r}: use one of {', '.join(SOLVERS)}")
        if not timeout > 0:
            raise InputError("--timeout must be positive")
        self.solver, self.timeout, self.confirm = solver, timeout, confirm
        self.store, self.recheck, self.max_rounds = store, recheck, max_rounds
        self.progress = progress or (lambda msg: None)
        self.results: dict = {}  # (claim, format) -> Result of this run
        self._memo: dict = {}  # result key -> Result of this run (a statement is asked once)
        self._last_lazy = None  # (query, encoding, build) of the last lazily refined query
        self.executor = None  # a cluster's concurrent.futures executor: long enumerations go there

    def _query(self, claim, fmt, registry, build, fixed=None):
        anchors = claim.anchors(fmt) if claim.anchors is not None else ()
        enc = Encoding(claim, fmt, symbolic(fmt, claim.uninterpreted, anchors), fixed or {}, registry)
        enc.cond = conjunction(build)(enc).v[()]
        return enc, self._render_query(enc, build)

    def _render_query(self, enc, build):
        q = Query(enc.A.render([enc.cond]),
                  {n: enc.widths[n] for n in build.variables if n in enc.widths}, enc.fmt,
                  enc.A.lazy_variables())
        # the last query with lazily refined activation values, with its encoding: a second
        # back end asked to confirm it may return a model of the abstraction, which is
        # refined like the first back end's (_confirm), never replayed as it stands
        self._last_lazy = (q, enc, build) if q.extra else None
        return q

    def _statement(self, claim, fmt, registry):
        """The SMT-LIB 2 text that identifies a claim (for ∃∀: the witness constraints and the
        refutation template, every variable free)."""
        if claim.kind == "exists_forall":
            _, q1 = self._query(claim, fmt, registry, parts(claim, "propose"))
            _, q2 = self._query(claim, fmt, registry, parts(claim, "forall"))
            return q1.text + "\n; refutation template\n" + q2.text
        _, q = self._query(claim, fmt, registry, parts(claim, "exists" if claim.kind == "exists" else "forall"))
        return q.text

    # -- the main entry
    def prove(self, claim: Claim, fmt: Format, registry: dict, hints=()) -> Result:
        """Decide ``claim`` in ``fmt``.  ``hints``: candidate witnesses (partial assignments of
        the witness variables, bit patterns) tried first, each under a quarter of the time
        limit; a hint only steers the search — what is returned is solved and replayed."""
        plan = None if self.solver == "exhaustive" else plan_for(self.solver, fmt)
        if claim.uninterpreted:  # a candidate's model would be replayed with the format's own operations
            hints = ()
        assumed = self._check_assumptions(claim, fmt, registry)
        text = self._statement(claim, fmt, registry)
        stmt = statement_hash(text, fmt.name)
        versions = solver_versions(plan) if plan is not None else "exhaustive"
        key = result_key(text, fmt.name, self.solver, versions)
        float_vars = tuple(n for n, d in claim.variables.items() if isinstance(d, FloatDomain))
        if key in self._memo and not self.recheck:  # the same statement asked earlier in this run
            r = dataclasses.replace(self._memo[key], cached=True, statement=stmt)
            self.results[(claim.name, fmt.name)] = r
            return r
        if self.store is not None and not self.recheck:
            row = self.store.get(key)
            if row is not None:
                def parsed(values):
                    return {k: (fmt.parse_hex(v) if k in float_vars else v) for k, v in values.items()}
                witness, met = parsed(row["witness"]), parsed(row["detail"].get("hypotheses_met_by") or {})
                r = Result(claim.name, fmt, claim.kind, row["status"], witness, row["solver"],
                           row["total_seconds"], True, row["detail"].get("reason", ""),
                           row["detail"].get("experimental", False), [a["claim"] for a in row["assumed"]],
                           row["detail"].get("rounds", 0), row["detail"].get("confirmed_by", ""),
                           row["seconds"], key, float_vars, met, stmt)
                if self.confirm and not r.confirmed_by:
                    self._confirm_stored(r, claim, fmt, registry)
                self.results[(claim.name, fmt.name)] = r
                return r
        t0 = time.perf_counter()
        deadline = time.monotonic() + self.timeout
        r, cexs = self._hinted(claim, fmt, registry, plan, deadline, hints)
        if r is not None:
            pass
        elif claim.kind == "exists_forall":
            r = self._cegis(claim, fmt, registry, plan, deadline, cexs)
        else:
            r = self._single(claim, fmt, registry, plan, deadline)
        r.float_vars = float_vars
        if r.status == PROVED and claim.kind != "exists":
            self._nonvacuous(r, claim, fmt, registry, plan)
        r.seconds = time.perf_counter() - t0
        r.assumed, r.key, r.statement = [a["claim"] for a in assumed], key, stmt
        if r.status != UNKNOWN and self.store is not None:
            self.store.put(key=key, statement=stmt, claim=claim.name, fmt=fmt.name, kind=claim.kind,
                           status=r.status, witness=r.witness_json(), solver=r.solver, solver_version=versions,
                           seconds=r.per_solver, total_seconds=r.seconds, smt2=text, assumed=assumed,
                           detail={"reason": r.reason, "experimental": r.experimental, "rounds": r.rounds,
                                   "confirmed_by": r.confirmed_by, "requested_solver": self.solver,
                                   "hypotheses_met_by": r._shown(r.satisfiable_by)})
        self.results[(claim.name, fmt.name)] = r
        self._memo[key] = r  # UNKNOWN too: the same solvers and time limit would not do better in this run
        return r

    def _check_assumptions(self, claim, fmt, registry):
        out = []
        for name in claim.assumes:
            target = registry.get(name)
            if target is None:
                raise InputError(f"claim {claim.name} assumes {name!r}, which is not defined")
            mine = self.results.get((name, fmt.name))
            tstmt = statement_hash(self._statement(target, fmt, registry), fmt.name)
            ok = (mine is not None and mine.status == PROVED) or (self.store is not None and self.store.proved(tstmt))
            if not ok:
                why = f"it is {mine.status}" if mine is not None else "it is not proved"
                raise InputError(f"claim {claim.name} assumes {name}, but {why} in {fmt.name}: prove {name} first")
            out.append({"claim": name, "statement": tstmt})
        return out

    # -- asking: a solver plan, or enumeration
    def _ask(self, claim, fmt, registry, build, plan, deadline, fixed=None, confirm=False) -> tuple:
        """(the query, its answer).  ``confirm``: an UNSAT is to be confirmed — where the
        space is too large to enumerate, the other back ends of the race go on for it
        (:func:`~fpsmt.proof.solve.solve_plan`)."""
        t_build = time.monotonic()
        enc, q = self._query(claim, fmt, registry, build, fixed)
        built = time.monotonic()
        free = list(q.variables)
        race = confirm and plan is not None and space(claim, fmt, free) is None
        # where the enumeration can confirm what the other back ends do not (bfloat16), they
        # get CONFIRM_GRACE seconds after the first UNSAT, not the whole time limit
        grace = CONFIRM_GRACE if race and self._wide(claim, fmt, free) else None
        joiners = self._joiners(fmt, plan) if race else None
        if plan is None or claim.enumerate:  # --solver exhaustive, or a claim that asks for it
            ans = self._enumerate(claim, fmt, registry, build, fixed, free, deadline, q)
            if ans is not None or plan is None:
                return q, ans or Answer("unknown", None, "exhaustive", 0.0, reason=(
                    f"the space of {', '.join(free)} in {fmt.name} is too large to enumerate "
                    f"(more than 2^{CLAIM_LIMIT.bit_length() - 1} points)"))
        def solve(query, until):
            return solve_plan(query, plan, max(0.1, until - time.monotonic()), confirm=race, grace=grace,
                              joiners=joiners)
        refined, ans, rounds = self._refining(enc, build, solve(q, deadline), solve, deadline)
        q = refined or q
        if ans.status == "unknown" and built >= deadline:
            # the solvers got the 0.1 s floor: say where the time went, not "no answer within 0.1 s"
            ans.reason = (f"building the query took {built - t_build:.3g} s, past the time limit of "
                          f"{self.timeout:.3g} s; {ans.reason}")
        if rounds:
            self.progress(f"  {rounds} lazy refinement(s) of activation values")
            if ans.status == "unknown":
                ans.reason = (f"the lazily refined activation values did not settle within the time limit "
                              f"({rounds} refinements); {ans.reason}")
        if ans.status == "unknown":
            got = decide(claim, fmt, conjunction(build), fixed or {}, free, registry)
            if got is not None:
                said_unsat = bool(ans.solver and ans.experimental)  # an experimental UNSAT left unconfirmed
                if got[0] == "unsat" and said_unsat:
                    return q, Answer("unsat", None, ans.solver, ans.seconds, True, "", ans.per_solver,
                                     confirmed_by="exhaustive")
                return q, Answer(got[0], got[1], "exhaustive", ans.seconds, False,
                                 f"decided by enumeration ({ans.reason})", ans.per_solver,
                                 disputed_by=[named(ans.solver, True)] if said_unsat and got[0] == "sat" else [])
            axes = space(claim, fmt, free, CLAIM_LIMIT)
            if axes is not None:  # too large to enumerate on the way, not for the enumeration back end
                n = int(np.prod([len(a) for a in axes], dtype=object))
                ans.reason += (f"; --solver exhaustive decides it by enumeration (at most {n:.3g} points; "
                               "give it a --timeout to match)")
        return q, ans

    def _refining(self, enc, build, ans, again, until) -> tuple:
        """(the last refined query or None, its answer, rounds): while ``ans`` is a model
        that used a wrong activation value, add the true one to ``enc`` and ask
        ``again(query, until)``; "unknown" once ``until`` has passed.  The refinements are
        true facts of σ, so an UNSAT of a refined query holds of the claim."""
        q, rounds = None, 0
        while ans.status == "sat" and enc.A.refine(ans.model):
            rounds += 1
            if time.monotonic() >= until:
                return q, Answer("unknown", None, "", ans.seconds, reason="time limit reached"), rounds
            q = self._render_query(enc, build)
            ans = again(q, until)
        return q, ans, rounds

    def _joiners(self, fmt, plan) -> dict | None:
        """The portfolio's back ends that confirm but do not race for the answer, outside an
        experimental mode (bitwuzla-bv where Bitwuzla's own layer takes the format: float16,
        float32, float64): they join the race for a confirmation when its first UNSAT
        arrives, so that the race's confirmers are every back end the format has."""
        if self.solver != "portfolio" or plan is None:
            return None
        try:
            every = plan_for("portfolio", fmt, confirming=True)
        except InputError:
            return None
        return {b: e for b, e in every.items() if b not in plan and not e} or None

    def _enumerate(self, claim, fmt, registry, build, fixed, free, deadline, q=None):
        """The answer of enumerating the query's space in the executor (UNKNOWN at the
        deadline), or None when the space is too large.  ``q`` (the rendered query):
        a long enumeration keeps a checkpoint in the store under it (a stopped run goes on
        from there next time)."""
        t0 = time.perf_counter()
        keep = None
        if q is not None and self.store is not None:
            keep = Checkpoint(self.store, sha("enumeration", q.text, fmt.name, ",".join(free), str(ENUM_CHUNK),
                                              fingerprint()))
        try:
            got = decide(claim, fmt, conjunction(build), fixed or {}, free, registry, CLAIM_LIMIT, self.progress,
                         deadline, checkpoint=keep, executor=self.executor)
        except TimeUp as e:
            return Answer("unknown", None, "exhaustive", time.perf_counter() - t0, reason=str(e))
        if got is None:
            return None
        dt = time.perf_counter() - t0
        return Answer(got[0], got[1], "exhaustive", dt, per_solver={"exhaustive": round(dt, 3)})

    # -- ∃ and ∀
    def _single(self, claim, fmt, registry, plan, deadline) -> Result:
        part = "exists" if claim.kind == "exists" else "forall"
        build = parts(claim, part)
        q, ans = self._ask(claim, fmt, registry, build, plan, deadline, confirm=self.confirm)
        res = Result(claim.name, fmt, claim.kind, UNKNOWN, solver=ans.solver, experimental=ans.experimental,
                     per_solver=ans.per_solver, reason=ans.reason)
        if ans.status == "sat":
            try:
                res.witness = self._replay(claim, fmt, registry, ans, part)
            except NotAnInstance as e:
                res.reason = str(e)
                return res
            res.status = PROVED if claim.kind == "exists" else REFUTED
            res.reason = "witness replayed" if claim.kind == "exists" else "counterexample replayed"
        elif ans.status == "unsat":
            res.status = REFUTED if claim.kind == "exists" else PROVED
            res.reason = "no witness exists (unsat)" if claim.kind == "exists" else "negation unsat"
            res.confirmed_by = ans.confirmed_by
            if not (ans.confirm_raced and not ans.confirmed_by):
                self._confirm(res, claim, fmt, registry, build, q, deadline, part=part)
            elif self._wide(claim, fmt, list(q.variables)):
                # the others had CONFIRM_GRACE seconds in the race: the enumeration confirms
                self._confirm(res, claim, fmt, registry, build, q, deadline, part=part, raced=True)
            else:  # the others had the whole time limit
                res.reason += "; not confirmed: no second solver decided within the time limit"
        return res

    def _confirm(self, res: Result, claim, fmt, registry, build, q: Query, deadline, fixed=None, part="forall",
                 cexs=(), raced=False):
        """Check the UNSAT behind ``res`` by enumeration (where the space is small) or with
        the other back ends (not again where they were ``raced`` for it); a model found
        instead is replayed and the run stops."""
        if not self.confirm or res.confirmed_by:
            return
        try:  # an experimental mode may check a decisive back end's UNSAT, never one of its own kind
            others = plan_for("portfolio", fmt, exclude=(res.solver,), confirming=True)
            if res.experimental:
                others = {b: e for b, e in others.items() if not e}
        except InputError:
            others = {}
        status, who, model = "unknown", "", None
        # enumeration first where the space is small: seconds, and no solver involved.  An
        # answer the executor's enumeration gave is enumerated again on the integer executor,
        # whose rounding shares no code with it.
        arith, by = (IntegerArith(fmt), INTEGER_ENUMERATION) if res.solver == "exhaustive" else (None, "exhaustive")
        free = list(q.variables)
        wide = arith is None and self._wide(claim, fmt, free)

        def enumerate_(limit):
            try:
                return decide(claim, fmt, conjunction(build), fixed or {}, free, registry, limit, self.progress,
                              time.monotonic() + max(self.timeout, deadline - time.monotonic()), arith=arith)
            except TimeUp as e:
                res.reason += f"; the confirming enumeration stopped: {e}"
                return None

        lazy = self._last_lazy if self._last_lazy is not None and self._last_lazy[0] is q else None

        def ask(seconds):
            ans = second_opinion(q, others, seconds)
            if lazy is not None:  # its models are refined as the first back end's were
                _, ans, _ = self._refining(lazy[1], lazy[2], ans,
                                           lambda query, until: second_opinion(query, others, until - time.monotonic()),
                                           time.monotonic() + seconds)
            return ans.status, ans.model, named(ans.solver, ans.experimental)
        if wide:  # bfloat16 beyond 2^26 points: the others for CONFIRM_GRACE s (not again if raced), then enumeration
            if others and not raced:
                status, model, who = ask(CONFIRM_GRACE)
            if status == "unknown":
                got = enumerate_(self._confirm_limit(fmt))
                if got is not None:
                    status, who, model = got[0], by, got[1]
        else:
            got = enumerate_(LIMIT)
            if got is not None:
                status, who, model = got[0], by, got[1]
            if status == "unknown" and others and not raced:
                status, model, who = ask(max(self.timeout, deadline - time.monotonic()))
        if status == "unsat":
            res.confirmed_by = who
        elif status == "sat":
            self._replay(claim, fmt, registry,
                         Answer("sat", model, who, 0.0, disputed_by=[named(res.solver, res.experimental)]), part,
                         fixed, cexs)
        else:
            res.reason += "; not confirmed: no second solver decided"

    @staticmethod
    def _confirm_limit(fmt) -> int:
        """The most points a confirmation enumerates: CLAIM_LIMIT in a 16-bit format that
        fewer than two back ends take outside an experimental mode (bfloat16: z3, and
        cvc5's experimental mode, which gave no answer within the time limit on the step
        indicators and the large stages that z3 proves): such a space is raced for
        CONFIRM_GRACE seconds after the first UNSAT, then enumerated (a few minutes at
        2^32 points); LIMIT otherwise: a second back end confirms the larger spaces (in
        the 8-bit formats cvc5's experimental mode does so in seconds, where enumerating
        up to 2^33 points would take many minutes)."""
        if fmt.nbits != 16:
            return LIMIT
        try:
            plan = plan_for("portfolio", fmt)
        except InputError:
            return LIMIT
        return CLAIM_LIMIT if sum(1 for e in plan.values() if not e) < 2 else LIMIT

    def _wide(self, claim, fmt, free) -> bool:
        """The space of ``free`` is above LIMIT and within the format's wider confirmation
        limit (bfloat16: at most 2^33 points): the other back ends get CONFIRM_GRACE
        seconds for it, then the enumeration confirms."""
        limit = self._confirm_limit(fmt)
        return limit > LIMIT and space(claim, fmt, free) is None and space(claim, fmt, free, limit) is not None

    def _confirm_stored(self, r: Result, claim, fmt, registry):
        """--confirm on an answer read from the store that was not confirmed when found:
        the UNSAT query behind it is rebuilt and checked now (the row is updated)."""
        if not rests_on_unsat(claim.kind, r.status):  # a replayed model (witness or counterexample)
            return
        if claim.kind == "exists_forall" and r.status == REFUTED:  # its UNSAT rests on that run's refutations
            r.reason += "; not confirmed: the store keeps no query to check again"
            return
        if claim.kind == "exists_forall":
            part, fixed = "forall", {n: v for n, v in r.witness.items() if n in claim.witness}
        else:
            part, fixed = claim.kind, None
        build = parts(claim, part)
        _, q = self._query(claim, fmt, registry, build, fixed)
        self._confirm(r, claim, fmt, registry, build, q, time.monotonic() + self.timeout, fixed, part)
        if r.confirmed_by and self.store is not None:
            self.store.confirm(r.key, r.confirmed_by)

    # -- candidate witnesses first
    def _hinted(self, claim, fmt, registry, plan, deadline, hints):
        """(a PROVED result, or None; counterexamples found against the candidates)."""
        cexs: list = []
        if claim.kind == "forall":
            return self._hinted_counterexample(claim, fmt, registry, plan, deadline, hints), cexs
        first = "exists" if claim.kind == "exists" else "propose"
        for hint in hints:
            fixed = {n: int(v) for n, v in hint.items() if n in claim.witness}
            if not fixed or time.monotonic() >= deadline:
                continue
            until = min(deadline, time.monotonic() + max(1.0, self.timeout / 4))
            q, ans = self._ask(claim, fmt, registry, parts(claim, first, cexs), plan, until, fixed=fixed)
            if ans.status != "sat":
                continue
            cand = self._replay(claim, fmt, registry, ans, first, fixed=fixed, cexs=cexs)
            shown = ", ".join(f"{n}={show(claim, fmt, n, v)}" for n, v in fixed.items())
            told = f"from the candidate {shown}"
            if claim.kind == "exists":
                return Result(claim.name, fmt, claim.kind, PROVED, cand, ans.solver, experimental=ans.experimental,
                              per_solver=ans.per_solver, reason=f"witness replayed ({told})"), cexs
            vbuild = parts(claim, "forall")
            vq, vans = self._ask(claim, fmt, registry, vbuild, plan, until, fixed=cand)
            if vans.status == "unsat":
                res = Result(claim.name, fmt, claim.kind, PROVED, cand, vans.solver, experimental=vans.experimental,
                             per_solver=vans.per_solver, confirmed_by=vans.confirmed_by,
                             reason=f"witness replayed ({told}); its ∀ part unsat")
                self._confirm(res, claim, fmt, registry, vbuild, vq, deadline, fixed=cand, part="forall")
                return res, cexs
            if vans.status == "sat":
                cx = self._replay(claim, fmt, registry, vans, "refute", fixed=cand)
                cexs.append({n: cx[n] for n in claim.universal})
                self.progress(f"  candidate {shown} refuted")
        return None, cexs

    def _hinted_counterexample(self, claim, fmt, registry, plan, deadline, hints):
        """For a ∀ claim, a hint is a candidate counterexample: its variables fixed, the rest
        solved (a quarter of the time limit each).  A REFUTED result (replayed) or None."""
        build = parts(claim, "forall")
        for hint in hints:
            fixed = {n: int(v) for n, v in hint.items() if n in claim.universal}
            if not fixed or time.monotonic() >= deadline:
                continue
            until = min(deadline, time.monotonic() + max(1.0, self.timeout / 4))
            _, ans = self._ask(claim, fmt, registry, build, plan, until, fixed=fixed)
            if ans.status == "sat":
                shown = ", ".join(f"{n}={show(claim, fmt, n, v)}" for n, v in fixed.items())
                res = Result(claim.name, fmt, claim.kind, REFUTED, solver=ans.solver, experimental=ans.experimental,
                             per_solver=ans.per_solver, reason=f"counterexample replayed (from the candidate {shown})")
                res.witness = self._replay(claim, fmt, registry, ans, "forall", fixed=fixed)
                return res
        return None

    # -- ∃∀ by counterexample-guided refinement
    def _cegis(self, claim, fmt, registry, plan, deadline, cexs=()) -> Result:
        cexs: list = list(cexs)
        w, u = list(claim.witness), list(claim.universal)
        res = Result(claim.name, fmt, claim.kind, UNKNOWN)
        for rnd in range(1, self.max_rounds + 1):
            res.rounds = rnd
            build = parts(claim, "propose", cexs)
            q, ans = self._ask(claim, fmt, registry, build, plan, deadline)
            res.solver, res.experimental = ans.solver, res.experimental or ans.experimental
            res.per_solver = ans.per_solver
            if ans.status == "unsat":
                res.status = REFUTED
                res.reason = f"no witness survives the {len(cexs)} refutation(s) found (unsat)"
                res.confirmed_by = ans.confirmed_by
                self._confirm(res, claim, fmt, registry, build, q, deadline, part="propose", cexs=cexs)
                return res
            if ans.status != "sat":
                res.reason = f"round {rnd}: proposing a witness: {ans.reason}"
                return res
            cand = self._replay(claim, fmt, registry, ans, "propose", cexs=cexs)
            vbuild = parts(claim, "forall")
            vq, vans = self._ask(claim, fmt, registry, vbuild, plan, deadline, fixed=cand)
            res.per_solver = vans.per_solver
            if vans.status == "unsat":
                res.status, res.witness, res.solver = PROVED, cand, vans.solver
                res.confirmed_by = vans.confirmed_by
                res.reason = f"witness replayed; its ∀ part unsat after {rnd} round(s)"
                self._confirm(res, claim, fmt, registry, vbuild, vq, deadline, fixed=cand, part="forall")
                return res
            if vans.status != "sat":
                res.reason = f"round {rnd}: refuting the candidate: {vans.reason}"
                return res
            cx = self._replay(claim, fmt, registry, vans, "refute", fixed=cand)
            self.progress(f"  round {rnd}: candidate " + ", ".join(f"{n}={show(claim, fmt, n, cand[n])}"
                                                                      for n in w) + " refuted")
            cexs.append({n: cx[n] for n in u})
        res.reason = f"no decision within {self.max_rounds} rounds"
        return res

    def _replay(self, claim, fmt, registry, ans: Answer, part, fixed=None, cexs=()) -> dict:
        """The model of a SAT answer, decoded and replayed (a mismatch raises); when another
        back end said UNSAT to the same query, the run stops here naming both."""
        try:
            got = replay_model(claim, fmt, registry, ans.solver, ans.model, part, fixed, cexs)
        except NotAnInstance as e:
            # the model rests on an interpretation of ⊗ that is not fp.mul: no counterexample
            ops = ", ".join(claim.uninterpreted)
            if ans.disputed_by:
                raise Disagreement(f"SOLVERS DISAGREE on claim {claim.name} in {fmt.name} ({part} query, {ops} "
                                   f"uninterpreted): {ans.solver} says sat, {' and '.join(ans.disputed_by)} said "
                                   f"unsat; the model does not replay with the format's own {ops} ({e})") from None
            raise NotAnInstance(f"{ans.solver} found an interpretation of {ops} under which the claim fails "
                                 f"(sat, {part} query), but its model does not replay with the format's own "
                                 f"{ops}: not decided ({e})") from None
        if ans.disputed_by:
            shown = ", ".join(f"{n}={show(claim, fmt, n, v)}" for n, v in {**(fixed or {}), **got}.items())
            raise Disagreement(f"SOLVERS DISAGREE on claim {claim.name} in {fmt.name} ({part} query): {ans.solver} "
                               f"says sat with the model {shown or '(no variables)'}, replayed in the executor; "
                               f"{' and '.join(ans.disputed_by)} said unsat")
        return got

    # -- vacuity
    def _nonvacuous(self, r: Result, claim, fmt, registry, plan):
        """A PROVED ∀ part stays PROVED only when a replayed assignment meets its domains and
        hypotheses (with the ∃∀ witness fixed); VACUOUS when none does (UNSAT), UNKNOWN
        when that is not decided."""
        fixed = {n: v for n, v in r.witness.items() if n in claim.witness} or None
        deadline = time.monotonic() + max(self.timeout, VACUITY_SECONDS)
        _, ans = self._ask(claim, fmt, registry, parts(claim, "hypotheses"), plan, deadline, fixed=fixed)
        if ans.status == "sat":
            try:
                r.satisfiable_by = self._replay(claim, fmt, registry, ans, "hypotheses", fixed=fixed)
            except NotAnInstance as e:
                r.status, r.reason = UNKNOWN, f"{r.reason}, but its hypotheses were not shown satisfiable: {e}"
        elif ans.status == "unsat":
            r.status = VACUOUS
            r.reason = (f"{r.reason}, but no value meets its domains and hypotheses (unsat, {ans.solver}): "
                        "it holds vacuously")
        else:
            r.status = UNKNOWN
            r.reason = f"{r.reason}, but its hypotheses were not shown satisfiable: {ans.reason}"


def order_by_assumptions(claims: list) -> list:
    """Claims sorted so that every claim comes after those it assumes (stable otherwise)."""
    by_name = {c.name: c for c in claims}
    out, seen, stack = [], set(), set()

    def visit(c):
        if c.name in seen:
            return
        if c.name in stack:
            raise InputError(f"claims assume each other in a cycle through {c.name}")
        stack.add(c.name)
        for a in c.assumes:
            if a in by_name:
                visit(by_name[a])
        stack.discard(c.name)
        seen.add(c.name)
        out.append(c)
    for c in claims:
        visit(c)
    return out


def load_claims(path: str) -> dict:
    """The claims a Python file defines: every module-level Claim, by name."""
    from fpsmt.userfiles import import_file
    module = import_file(path, "claim")
    claims = {}
    for value in vars(module).values():
        if isinstance(value, Claim):
            if value.name in claims:
                raise InputError(f"{path} defines two claims named {value.name!r}")
            value.origin = str(path)
            claims[value.name] = value
    if not claims:
        raise InputError(f"{path} defines no claims")
    return claims
