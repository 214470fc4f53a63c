"""``fpsmt counterexample hypothesis --drop H``: drop one hypothesis of the theorems and
look for what breaks (BRIEF §7: "Generate counterexamples").

For each semantics profile that alters the dropped hypothesis, two kinds of entry:

* ``construct`` — the network of ``fpsmt construct`` for the activation and format, built
  for the paper's semantics on built-in targets (``--targets`` for one's own) and verified
  there bit for bit, then run under the profile at every domain point with upstream h*(x).
  Every point is checked, so the entry is decided: REFUTED with the first point that
  misses its targets — replayed in the exact reference (rationals rounded once per
  operation), not only in the executor that found it — or PROVED (every point meets its
  targets under the profile: the construct claim is finite and was checked everywhere).
* ``necessity.zero_upstream`` and ``necessity.odd`` — properties every network has in the
  paper's semantics (BRIEF §3): a zero upstream gives a zero gradient, and D(−y) = −D(y)
  up to the sign of zero, for finite weights and a forward pass free of ∞ and NaN.  They
  are ∀ claims over a network of the activation (``--shape``, default 1-2-1) with every
  weight and bias symbolic, decided by the engine under the profile (store, solver, time limit, every
  model replayed): PROVED, REFUTED with the network and point, or UNKNOWN.

Semantic hypotheses: ``order`` (reversed, pairwise, blocked:2, blocked:4, wide:float32
where the format fits in float32, any: every order, a choice the lemma claims quantify
over), ``backward`` (torch, jax, where they have a formula for the activation) and
``activation`` (numpy, torch: those libraries' σ and σ' as tables; ulp:1: every σ and σ'
within one ulp, a choice the lemma claims quantify over — formats of at most 16 bits).

* lemma entries — each lemma of the construction that has a whole-block claim
  (:attr:`fpsmt.proof.lemmas.Lemma.whole`; ``--lemma`` to choose), decided under the
  profile by the engine: PROVED (it survives), REFUTED (the block's counterexample,
  replayed in the executor and the exact reference, with ``expected`` the paper's output
  at the same point; ``--out`` writes the block and its point) or UNKNOWN.
* the construction's Theorem 3.1 row (``theorem_3_1_relu``, ``rect_theorem_3_1``, …; by
  default under ``--drop backward`` and ``--drop activation``, by name under ``--drop
  order``): ``reproduce``'s row under the profile (:func:`theorem_entry`).  Where the
  profile keeps the paper's order and only changes how σ is computed, it is carried over
  from the paper's semantics by :mod:`fpsmt.proof.transfer` — PROVED for every target and
  every point (the row's proof tree and the transfer claims, decided per format);
  elsewhere its network decides it (:func:`network_row`: REFUTED with the point it misses,
  under ``order=any`` by ``order=reversed``, one of its orders, under ``ulp:K`` by one
  implementation; or UNKNOWN, naming why no transfer applies).

The ``construct`` entry under ``order=any`` runs ``order=reversed`` and under
``activation=ulp:K`` searches for one implementation within K ulps that breaks the
network (:func:`ulp_break`); a break's entry names the runnable profile in ``semantics``
(``order=reversed,…`` or ``…,activation=ulp:1,step=…``), so ``fpsmt eval --semantics``
replays the files ``--out`` writes; no break is UNKNOWN there (one order or one search,
not every order or implementation).

Hypotheses on the inputs, one ``construct`` entry each, in the paper's semantics.  The
construction's lemmas promise, on X and for |y| <= H_σ, the targets at the target points
and silence elsewhere (value ±0, D^AD ±0: every atom is ±0 off its point); the entry runs
the network where the hypothesis is dropped and compares with that promise, extended:

* ``exponent`` — a format with E < 6: the network on the built-in targets, run at them.
* ``domain`` — the network on the built-in targets (in X), run at x beyond M_σ (the next
  float above M, 2M, 16M and the largest float, both signs) with y = 1: expected f = ±0,
  D = ±0, as off-target inside X.
* ``gradient-bound`` — the network of the targets' values alone (g* = 0, value atoms:
  D^AD = ±0 for every |y| <= H_σ), run at each target with y beyond H_σ (the next float
  above H, 2H, 16H and the largest float, both signs): expected f = f*(x), D = ±0.

REFUTED gives the first broken (x, y), replayed in the exact reference; PROVED means every
point checked meets the promise.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np

from fpsmt.commands.options import engine_session, err
from fpsmt.errors import FpsmtError, InputError

HYPOTHESES = ("order", "backward", "activation", "exponent", "domain", "gradient-bound")
AVAILABLE = HYPOTHESES
SEMANTIC = ("order", "backward", "activation")  # the others alter the inputs, not the semantics
ORDER_PROFILES = ("order=reversed", "order=pairwise", "order=blocked:2", "order=blocked:4", "order=wide:float32",
                  "order=any")
BACKWARD_PROFILES = ("backward=torch", "backward=jax")
ACTIVATION_PROFILES = ("activation=numpy", "activation=torch", "activation=ulp:1")
PROFILES = {"order": ORDER_PROFILES, "backward": BACKWARD_PROFILES, "activation": ACTIVATION_PROFILES}
DEFAULT_TARGETS = "example:sin_misleading.py"


def profiles(drop, fmt, activation, given=None) -> list:
    """The profiles that alter hypothesis ``drop`` (or the one given), checked for the
    format and activation; InputError (one line) when none applies."""
    from fpsmt.semantics.network import parse_semantics
    if drop not in HYPOTHESES:
        raise InputError(f"unknown hypothesis {drop!r} (known: {', '.join(HYPOTHESES)})")
    if drop not in SEMANTIC:
        if given is not None:
            raise InputError(f"--drop {drop} keeps the paper's semantics; --semantics is for order, backward, activation")
        return [parse_semantics(None)]
    if given is not None:
        sem = parse_semantics(given)
        altered = {"order": sem.order != "left" or sem.wide is not None,
                   "backward": dict(sem.backward).get("*") != "paper",
                   "activation": sem.activation != "correct"}[drop]
        if not altered:
            raise InputError(f"--semantics {given} does not drop the {drop} hypothesis (it keeps the paper's {drop})")
        return [sem.check(fmt, [activation], claims=True)]
    out_ = []
    for spec in PROFILES[drop]:
        if spec.startswith("activation=ulp") and fmt.nbits > 16:
            continue  # every σ within K ulps: decided on the lemmas' blocks, up to 16 bits (as the survival table)
        try:
            out_.append(parse_semantics(spec).check(fmt, [activation], claims=True))
        except InputError:
            continue  # this profile does not apply here (a format too wide, no formula for σ)
    if not out_:
        raise InputError(f"no {drop} profile applies to {activation} in {fmt.name}")
    return out_


def targets_for(path, fmt, construction, n):
    """Up to n targets of the file spread over its domain, those the construction takes."""
    from fpsmt.commands import targets
    from fpsmt.resources import resolve
    pts = targets.load_targets(resolve(path), fmt)
    ok, seen = [], set()
    for p in pts:
        key = p[0] & ~fmt.sign_bit if fmt.is_zero(p[0]) else p[0]
        if key in seen:  # a target file for a wider format may round two x's to one
            continue
        try:
            construction.check_points(fmt, [p])
        except InputError:
            continue
        seen.add(key)
        ok.append(p)
    if not ok:
        raise InputError(f"no target of {path} lies in the domain of the {construction.activation} construction "
                         f"in {fmt.name}")
    idx = np.unique(np.linspace(0, len(ok) - 1, min(n, len(ok))).round().astype(int))
    return [ok[i] for i in idx]


def _hexes(fmt, v):
    return [fmt.hex(int(b)) for b in np.ravel(v)]


def exact_replay(net, x, y, sem, got):
    """Value and D^AD at one point in the exact reference (patterns), which must be ``got``
    (the executor's (f, D)); a mismatch is an error naming both."""
    from fpsmt.semantics.arith import ExactArith
    from fpsmt.semantics.network import run
    fmt = net.fmt
    A = ExactArith(fmt)
    t = run(A, net, A.const(np.asarray([[x]], dtype=object)), A.const(np.asarray([[y]], dtype=object)), sem=sem)
    ef, eg = int(np.ravel(A.to_bits(t.out))[0]), int(np.ravel(A.to_bits(t.grad))[0])
    if (ef, eg) != tuple(int(v) for v in got):
        raise FpsmtError(f"replay mismatch under {sem.spec} at x = {fmt.hex(x)}, y = {fmt.hex(y)}: the executor "
                         f"gives f = {fmt.hex(int(got[0]))}, D = {fmt.hex(int(got[1]))}; the exact reference "
                         f"f = {fmt.hex(ef)}, D = {fmt.hex(eg)}")
    return ef, eg


def _entry(drop, spec, lemma, status, method, **extra) -> dict:
    """An entry of the ``--json`` list, no counterexample yet."""
    return {"hypothesis": drop, "semantics": spec, "lemma": lemma, "status": status, "counterexample": {},
            "expected": None, "obtained": None, "replayed": False, "method": method, **extra}


def _refuted(e, fmt, net, sem, x, y, expected, got, broken):
    """Mark ``e`` REFUTED at (x, y) once the exact reference has recomputed the executor's
    ``got`` (f, D) there; ``expected`` the (f, D) patterns the paper's semantics promises."""
    ef, eg = exact_replay(net, x, y, sem, got)
    e.update(status="REFUTED", counterexample={"x": fmt.hex(x), "y": fmt.hex(y)},
             expected={"f": [fmt.hex(int(expected[0]))], "grad": [fmt.hex(int(expected[1]))]},
             obtained={"f": [fmt.hex(ef)], "grad": [fmt.hex(eg)]}, replayed=True, broken_points=broken)


def _built(fmt, construction, points):
    """The construction's network on ``points``, verified there in the paper's semantics
    (a miss is a construction bug): (network, f, D) as computed."""
    from fpsmt.commands import targets
    net = construction.network(fmt, points)
    bad, f, g = targets.verify(fmt, net, points)
    if bad:
        raise FpsmtError(f"the {construction.activation} network misses its targets in the paper's semantics at "
                         f"x = {bad[0]['x']}: a construction bug")
    return net, f, g


def construct_entries(fmt, construction, points, sems, drop):
    """One ``construct`` entry per profile (module docstring); also returns the network."""
    from fpsmt.commands import targets
    from fpsmt.semantics.network import ANY, SteppedAt
    net, f_paper, g_paper = _built(fmt, construction, points)
    entries = []
    for sem in sems:
        t0 = time.perf_counter()
        run = None
        if sem.ulp_rows and sem.order != ANY:  # every implementation: one that breaks the network?
            found, tried = ulp_break(fmt, net, points, sem)
            if found is None:
                entries.append(_entry(drop, sem.spec, "construct", "UNKNOWN", "-",
                                      seconds=round(time.perf_counter() - t0, 3),
                                      reason=f"no implementation that moves σ or σ' one float at one input ({tried} "
                                             "tried, at the run's most frequent pre-activations) makes the network "
                                             "miss a target (a search, not a proof)"))
                continue
            sem, run = found  # the entry's semantics names it (step=…): fpsmt eval --semantics replays it
        if sem.chooses and sem.ulp_rows:  # every order and every implementation: not searched
            entries.append(_entry(drop, sem.spec, "construct", "UNKNOWN", "-", seconds=0.0,
                                  reason=f"{sem.spec} is a choice claims quantify over (lemma entries: their blocks); "
                                         "the construct network is run, in one order and one implementation"))
            continue
        member = any_member(sem)  # order=any: one of its orders, named in the entry (eval replays it)
        broken, f_got, g_got = run or targets.verify(fmt, net, points, member)
        if member is not sem and not broken:
            entries.append(_entry(drop, sem.spec, "construct", "UNKNOWN", "-",
                                  seconds=round(time.perf_counter() - t0, 3),
                                  reason=f"{member.spec}, one of every order's ({ANY_MEMBER}), meets every target; "
                                         "no other order was run"))
            continue
        e = _entry(drop, member.spec, "construct", "PROVED", f"executor at all {len(points)} domain points",
                   seconds=None)
        if isinstance(sem, SteppedAt):
            e["method"] = f"one implementation within {sem.ulp} ulp(s): {sem.describe(fmt)}; executor at all points"
        elif member is not sem:
            e["method"] = f"{member.spec}, one of {sem.spec}'s orders ({ANY_MEMBER}); executor at all points"
        sem = member
        if broken:
            i = next(k for k, p in enumerate(points) if fmt.hex(p[0]) == broken[0]["x"])
            x, f_t, h, g_t = points[i]
            _refuted(e, fmt, net, sem, x, h, (f_paper[i], g_paper[i]), (f_got[i], g_got[i]), len(broken))
            e["targets"] = {"f": [fmt.hex(f_t)], "grad": [fmt.hex(g_t)]}
            e["_point"] = i
        e["seconds"] = round(time.perf_counter() - t0, 3)
        entries.append(e)
    return entries, net


#: why ``order=reversed`` is one of ``order=any``'s orders
ANY_MEMBER = "each row's present terms in reverse, folded left to right, the bias last: a permutation"


def any_member(sem):
    """The profile a run executes for ``sem``: ``sem`` itself, or under ``order=any`` (every
    order: each row's present terms permuted, folded left to right, bias last) the same
    profile with ``order=reversed``, which is one of those orders — a network that misses a
    target under it refutes a claim made for every order."""
    import dataclasses
    from fpsmt.semantics.network import ANY
    return dataclasses.replace(sem, order="reversed") if sem.order == ANY else sem


#: the targets a theorem row's network is built on under a profile (:func:`_network_row`)
NETWORK_TARGETS, NETWORK_POINTS = "example:sin_misleading.py", 64


def network_row(name, activation, fmt, sem, construction, progress=None):
    """A Theorem 3.1 row under a profile, decided by running the construction's network on
    up to NETWORK_POINTS targets of NETWORK_TARGETS, built and verified for the paper's
    semantics, under the profile at every target point
    (:func:`fpsmt.commands.hypothesis.construct_entries`) — under ``order=any`` under
    ``order=reversed``, one of its orders (:func:`any_member`); under ``activation=ulp:K``
    under the first implementation within K ulps that breaks it (:func:`ulp_break`: σ or
    σ' correctly rounded except at one input, moved one float).  REFUTED with the first
    point it misses — replayed in the exact reference — or UNKNOWN: a network that meets
    its targets under the profile on these targets proves nothing about every domain, and
    a search that finds no implementation proves nothing about every implementation."""
    from fpsmt.commands import targets
    from fpsmt.constructions.registry import get_construction
    from fpsmt.proof import lemmas
    t0 = time.perf_counter()
    cons = construction or get_construction(activation)
    try:
        points = targets_for(NETWORK_TARGETS, fmt, cons, NETWORK_POINTS)
    except InputError as e:
        return lemmas.unknown_row(name, activation, fmt, sem, f"no whole-block claim states this lemma, and no "
                                                              f"built-in target lies in its domain here ({e})")
    net = _built(fmt, cons, points)[0]
    where = f"the network of fpsmt construct on {len(points)} targets of {NETWORK_TARGETS}"
    if sem.ulp_rows:  # every implementation within K ulps (one named by step= runs as any profile)
        found, tried = ulp_break(fmt, net, points, sem)
        run_sem, broken = (found[0], found[1][0]) if found else (None, [])
        why = (f"no implementation that moves σ or σ' one float at one input ({tried} tried: the {ULP_PATTERNS} most "
               f"frequent pre-activations of {where}) makes it miss a target (a search, not a proof)")
    else:
        run_sem = any_member(sem)
        broken = targets.verify(fmt, net, points, run_sem)[0]
        if run_sem is not sem:
            where = f"{run_sem.spec}, one of {sem.spec}'s orders ({ANY_MEMBER}): {where}"
        why = (f"no whole-block claim states this lemma, and its proof tree's joins are argued for the paper's "
               f"semantics; {where} meets every target under {run_sem.spec} (a check, not a proof)")
    if not broken:
        row = lemmas.unknown_row(name, activation, fmt, sem, why)
    else:
        e, net, first, shrunk = _smallest_break(fmt, cons, points, broken, run_sem)
        i = e["_point"]
        x, f_t, h, g_t = first[i]
        cex = {"x": fmt.hex(x), "y": fmt.hex(h), "f*": fmt.hex(f_t), "g*": fmt.hex(g_t),
               "f": e["obtained"]["f"][0], "D": e["obtained"]["grad"][0]}
        if sem.ulp_rows:
            where = (f"the network of fpsmt construct on the one target x = {fmt.hex(first[0][0])} of "
                     f"{NETWORK_TARGETS} (on {len(points)} of its targets: {len(broken)} missed)" if shrunk
                     else f"{where} ({len(broken)} of them missed)")
            what, correct, given = _stepped_value(fmt, run_sem)
            cex[what] = given
            said = (f"under one implementation within {sem.ulp} ulp(s) — {what} = {given} instead of {correct}, every "
                    f"other σ and σ' correctly rounded (fpsmt eval --semantics {run_sem.spec}) — {where}, built and "
                    "verified for the paper's semantics, misses:")
        else:
            where += f" misses {len(broken)} of them under {run_sem.spec}"
            if shrunk:
                where += f"; so does the network on the one target x = {fmt.hex(first[0][0])}"
            said = f"{where} (each built and verified for the paper's semantics):"
        row = {**lemmas.unknown_row(name, activation, fmt, sem, ""), "status": "REFUTED", "reason": None,
               "statement": f"{said} at x = {cex['x']} with upstream h* = {cex['y']}, f = {cex['f']} and D^AD = "
                            f"{cex['D']} (targets f* = {cex['f*']}, g* = {cex['g*']}), replayed in the exact reference",
               "counterexample": cex, "replayed": True, "targets": NETWORK_TARGETS, "points": len(first),
               "_break": (net, first, i, run_sem.spec)}
    row["seconds"] = round(time.perf_counter() - t0, 3)
    if progress:
        progress(f"{name} ({lemmas.PROFILE_VARIANT}, {activation}) in {fmt.name} under {sem.spec}: {row['status']}"
                 + (f" ({row['reason']})" if row["status"] != "REFUTED" else f": {row['statement']}"))
    return row


def _smallest_break(fmt, cons, points, broken, run_sem):
    """The ``construct`` entry of a break under ``run_sem`` (replayed in the exact
    reference): from the network on the first broken point alone where it breaks too (a
    small counterexample), else from the network on ``points``; (entry, network, its
    points, whether it is the one point's)."""
    first = [p for p in points if fmt.hex(p[0]) == broken[0]["x"]]
    (e,), net = construct_entries(fmt, cons, first, [run_sem], "semantics")
    if e["status"] == "REFUTED":
        return e, net, first, True
    (e,), net = construct_entries(fmt, cons, points, [run_sem], "semantics")
    return e, net, points, False


def _stepped_value(fmt, impl):
    """(``σ(at)`` or ``σ'(at)`` as text, the correctly rounded value, the implementation's)
    of a :class:`fpsmt.semantics.network.SteppedAt` implementation's one step, in hex."""
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.arith import concrete
    act_name, part, at, _ = impl.steps[0]
    A = concrete(fmt)
    z = A.const(np.asarray([at], dtype=np.uint64))
    act = get_activation(act_name)
    right, given = ((f.value(A, z) if part == "value" else f.derivative(A, z)) for f in (act, impl.act_of(act)))
    what = f"{act_name}{'' if part == 'value' else chr(39)}({fmt.hex(at)})"
    return what, fmt.hex(int(np.ravel(A.to_bits(right))[0])), fmt.hex(int(np.ravel(A.to_bits(given))[0]))


#: how many pre-activation patterns :func:`ulp_break` tries (the most frequent first)
ULP_PATTERNS = 32


def ulp_candidates(fmt, net, points, sem) -> list:
    """The hidden neurons' pre-activation patterns in a run of ``net`` at ``points`` under
    ``sem`` with correctly rounded activations: [(activation name, pattern)], the most
    frequent first (ties by pattern)."""
    import collections
    import dataclasses
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import run
    A = concrete(fmt)
    xs = np.asarray([[p[0]] for p in points], dtype=np.uint64)
    ys = np.asarray([[p[2]] for p in points], dtype=np.uint64)
    base = dataclasses.replace(sem, activation="correct")
    trace = run(A, net, A.const(xs), A.const(ys), sem=base)
    count = collections.Counter()
    for k, layer in enumerate(net.layers):
        if not layer.act.is_identity:
            count.update((layer.act.name, int(b)) for b in np.ravel(A.to_bits(trace.pre[k])))
    return [key for key, _ in sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))]


def ulp_break(fmt, net, points, sem):
    """((implementation, its run: (broken points, f, D^AD) as targets.verify gives them),
    tries) for the first implementation within ``sem``'s K ulps that makes ``net`` miss a
    target at ``points`` — σ or σ' correctly rounded except at one input, moved one float
    (:class:`fpsmt.semantics.network.SteppedAt`), for the :data:`ULP_PATTERNS` most frequent
    pre-activations of the run, value then derivative, +1 then −1 — or (None, tries)."""
    from fpsmt.commands import targets
    from fpsmt.semantics.network import SteppedAt
    tried = 0
    for act_name, at in ulp_candidates(fmt, net, points, sem)[:ULP_PATTERNS]:
        for part in ("value", "derivative"):
            for k in (1, -1):
                impl = SteppedAt(order=sem.order, fold_init=sem.fold_init, backward=sem.backward, wide=sem.wide,
                                 activation=sem.activation, steps=((act_name, part, at, k),))
                tried += 1
                got = targets.verify(fmt, net, points, impl)
                if got[0]:
                    return (impl, got), tried
    return None, tried


# ------------------------------------------------------------------ input hypotheses
def _beyond(fmt, bound, count=4):
    """Up to ``count`` positive floats above ``bound`` (a Fraction): the next float, 2×, 16×
    and the largest finite one."""
    from fractions import Fraction
    top = fmt.to_fraction(fmt.max_bits)
    if bound >= top:
        return []
    first = fmt.round(Fraction(bound))
    if fmt.to_fraction(first) <= bound:
        first = first + 1  # the next float up (positive patterns are ordered)
    cands = [first, fmt.round(2 * Fraction(bound)), fmt.round(16 * Fraction(bound)), fmt.max_bits]
    out = []
    for b in cands:
        if fmt.is_finite(b) and fmt.to_fraction(b) > bound and b not in out:
            out.append(b)
    return out[:count]


def input_points(drop, fmt, construction, base):
    """(targets to build on, [(x, y, f expected, D expected)] to run, what is dropped).
    InputError (one line) when the hypothesis cannot be dropped here."""
    from fractions import Fraction
    c = construction.constants(fmt)
    if drop == "exponent":
        if fmt.E >= 6:
            raise InputError(f"--drop exponent: the theorems ask E >= 6 and {fmt.name} has E = {fmt.E}; give a "
                             "format with E < 6 (e.g. float8_e4m3, float8_e5m2, float16)")
        return list(base), [(x, h, f, g) for x, f, h, g in base], f"E = {fmt.E} < 6"
    if drop == "domain":
        xs = _beyond(fmt, Fraction(c.M_sigma))
        if not xs:
            raise InputError(f"--drop domain: X = [-M, M] of {construction.activation} in {fmt.name} holds every float")
        runs = [(b, fmt.one_bits, 0, 0) for x in xs for b in (x, x | fmt.sign_bit)]
        return list(base), runs, f"|x| > M = {float(c.M_sigma):g}"
    hs = _beyond(fmt, Fraction(c.H_sigma))
    if not hs:
        raise InputError(f"--drop gradient-bound: H of {construction.activation} in {fmt.name} is the largest float; "
                         "no finite |y| exceeds it")
    values = [(x, f, fmt.one_bits, 0) for x, f, _, _ in base]  # value atoms only: D = ±0 for |y| <= H
    runs = [(x, y, f, 0) for x, f, _, _ in values for h in hs for y in (h, h | fmt.sign_bit)]
    return values, runs, f"|y| > H = {float(c.H_sigma):g}"


def input_entry(drop, fmt, construction, base):
    """One ``construct`` entry for a hypothesis on the inputs (module docstring)."""
    from fpsmt.commands import targets
    from fpsmt.constructions.blockrun import blockwise
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import PAPER
    build, runs, what = input_points(drop, fmt, construction, base)
    e = _entry(drop, PAPER.spec, "construct", "PROVED", f"executor at all {len(runs)} points", dropped=what,
               seconds=None)
    t0 = time.perf_counter()
    net, _, _ = _built(fmt, construction, build)
    A = concrete(fmt)
    xs = np.asarray([r[0] for r in runs], dtype=np.uint64)
    ys = np.asarray([r[1] for r in runs], dtype=np.uint64)
    f_got, g_got = (np.ravel(A.to_bits(v)) for v in blockwise(A, net, A.const(xs), A.const(ys)))
    broken = [i for i, (x, y, f, g) in enumerate(runs)
              if not (targets.meets(fmt, int(f_got[i]), f) and targets.meets(fmt, int(g_got[i]), g))]
    if broken:
        i = broken[0]
        x, y, f, g = runs[i]
        _refuted(e, fmt, net, PAPER, x, y, (f, g), (f_got[i], g_got[i]), len(broken))
        e["_run"] = (x, y)
    e["seconds"] = round(time.perf_counter() - t0, 3)
    return e, net, build


# ------------------------------------------------------------------ necessities
def necessity_network(fmt, activation, shape=(1, 2, 1)):
    """A network of the given widths (one input, one output), σ after every hidden layer,
    every weight and bias a symbolic parameter ``w{layer}_{row}_{col}``, ``b{layer}_{row}``."""
    from fpsmt.semantics.network import Layer, Network
    from fpsmt.semantics.network import Param as P
    layers = []
    for k, (n_in, n_out) in enumerate(zip(shape, shape[1:]), start=1):
        act = "identity" if k == len(shape) - 1 else activation
        layers.append(Layer.dense([[P(f"w{k}_{i}_{j}") for j in range(n_in)] for i in range(n_out)],
                                  [P(f"b{k}_{i}") for i in range(n_out)], act))
    return Network(fmt, layers)


def parse_shape(text) -> tuple:
    try:
        shape = tuple(int(t) for t in str(text).split("-"))
    except ValueError:
        shape = ()
    if len(shape) < 2 or shape[0] != 1 or shape[-1] != 1 or any(w < 1 for w in shape) or sum(shape) > 12:
        raise InputError(f"--shape {text}: widths joined by '-', one input and one output, at most 12 neurons "
                         "in all (e.g. 1-2-1)")
    return shape


def necessity_claims(fmt, activation, sem, shape=(1, 2, 1)):
    """The two necessity claims under ``sem`` (module docstring).  Under ``order=any`` and
    ``activation=ulp:K`` the choices are ∀ variables too (:func:`fpsmt.proof.claims.choice_variables`),
    one order per row and one implementation (the same steps in every run of a claim: the
    forward pass, and so each σ's input, does not depend on y) by hypothesis."""
    from fpsmt.proof.claims import Float, Param, choice_variables, forall
    net = necessity_network(fmt, activation, shape)
    WEIGHTS = net.params()
    variables = {**{p: Param(finite=True) for p in WEIGHTS}, "x": Float(finite=True), "y": Float(finite=True),
                 **choice_variables(net, sem)}

    def run_(s, y):
        return s.chosen_run(net, [s.x], y, params={p: s[p] for p in WEIGHTS}, pre=True)

    def clean(s, pre, chosen):
        return s.all(*[v.is_finite() for layer in pre for v in layer], chosen)

    def zero(s):
        _, _, chosen, pre = run_(s, [s.y])
        _, (d0,), _, _ = run_(s, [s.const(0)])
        _, (dm,), _, _ = run_(s, [s.const(fmt.hex(fmt.sign_bit))])
        s.let("D(+0)", d0)
        s.let("D(-0)", dm)
        return [clean(s, pre, chosen).implies(s.all(d0.is_zero(), dm.is_zero()))]

    def odd(s):
        _, (dp,), chosen, pre = run_(s, [s.y])
        _, (dn,), _, _ = run_(s, [-s.y])
        s.let("D(y)", dp)
        s.let("D(-y)", dn)
        same = (-dn).same(dp)
        return [clean(s, pre, chosen).implies(s.any(same, s.all(dp.is_zero(), dn.is_zero())))]
    tag = f"[{activation},{'-'.join(map(str, shape))},{sem.spec}]"
    kind = "-".join(map(str, shape))
    return [
        ("necessity.zero_upstream", forall(f"necessity.zero_upstream{tag}", variables, goal=zero, semantics=sem.spec,
                                           doc=f"{kind} {activation} net, every weight finite and symbolic: forward "
                                               "free of ∞/NaN implies D(±0) = ±0")),
        ("necessity.odd", forall(f"necessity.odd{tag}", variables, goal=odd, semantics=sem.spec,
                                 doc=f"{kind} {activation} net, every weight finite and symbolic: forward free of "
                                     "∞/NaN implies D(−y) = −D(y) (or both zero)")),
    ]


#: the dropped hypotheses under which the Theorem 3.1 row is a default lemma entry (a
#: profile that keeps the paper's order: fpsmt.proof.transfer may prove it)
TRANSFER_DROPS = ("backward", "activation")


def _lemmas(values, construction, drop=None) -> list:
    """``--lemma``: the lemma names (each of the construction's family with a whole-block
    claim, and under ``--drop backward`` its Theorem 3.1 row too: decided by transfer,
    :mod:`fpsmt.proof.transfer`), [] for ``none``, every such lemma when absent;
    InputError (one line) otherwise."""
    from fpsmt.commands.options import listed
    from fpsmt.proof import lemmas as L
    found = [(n, lemma) for n, lemma in L.discover().items() if lemma.family == construction.family]
    known = [n for n, lemma in found if lemma.whole or lemma.network]
    names = listed(values, "--lemma")
    if names is None:  # the Theorem 3.1 row by default where a transfer may prove it
        return [n for n, lemma in found if lemma.whole or (drop in TRANSFER_DROPS and lemma.network)]
    if names == ["none"]:
        return []
    for n in names:
        if n not in known:
            raise InputError(f"--lemma {n}: not a lemma of the {construction.activation} construction with a "
                             f"whole-block claim or its Theorem 3.1 row (known: {', '.join(known) or 'none'})")
    return names


def theorem_entry(engine, fmt, construction, sem, drop, name):
    """A Theorem 3.1 row under a profile, as an entry: what ``reproduce --semantics`` gives
    for it (:func:`fpsmt.proof.lemmas.run`) — carried over from the paper's semantics by
    :mod:`fpsmt.proof.transfer` where the profile keeps the paper's order and σ's values
    (PROVED when the transfer's claims and the row's tree are), else decided by its network
    (:func:`network_row`: REFUTED with the point it misses, replayed; or UNKNOWN)."""
    from fpsmt.proof import lemmas as L
    lemma = L.load(name)
    why = lemma.formats(fmt) if lemma.formats else None
    if why is not None:
        return _entry(drop, sem.spec, name, "UNKNOWN", "-", seconds=0.0, reason=f"not stated in {fmt.name}: {why}")
    row = L.run(engine, [name], ["repaired"], [fmt.name], progress=err, construction=construction, semantics=sem,
                network_row=network_row)[0]
    cex = row.get("counterexample") or {}
    e = _entry(drop, sem.spec, name, row["status"], "transfer from the paper's semantics (fpsmt.proof.transfer): its "
               "proof tree and the transfer claims" if row["status"] == "PROVED" else "the construct network on "
               f"{NETWORK_POINTS} targets of {NETWORK_TARGETS}", seconds=row["seconds"],
               reason=(row.get("reason") or None) if row["status"] == "UNKNOWN" else None)
    if row["status"] == "REFUTED":  # its network and points for --out, under the semantics that runs the break
        net, points, i, spec = row["_break"]
        e.update(semantics=spec, counterexample=cex, replayed=True, expected={"f": [cex["f*"]], "grad": [cex["g*"]]},
                 obtained={"f": [cex["f"]], "grad": [cex["D"]]}, statement=row["statement"], _point=i,
                 _net=net, _points=points)
    return e


def lemma_entries(engine, fmt, construction, sems, drop, lemmas=None):
    """One entry per profile x lemma of the construction's family that has a whole-block
    claim (:attr:`fpsmt.proof.lemmas.Lemma.whole`): decided under the profile by the engine
    (store, solver, time limit, every model replayed in the executor); a REFUTED one is
    re-run at the counterexample in the exact reference too (the two must agree, else an
    error names both), and ``expected`` is the same block at the same point in the paper's
    semantics."""
    from fpsmt.proof import lemmas as L
    from fpsmt.proof.replay import evaluate
    from fpsmt.semantics.arith import ExactArith
    from fpsmt.semantics.network import PAPER
    names = lemmas if lemmas is not None else _lemmas(None, construction, drop)
    entries = []
    with construction.active():
        for sem in sems:
            for name in names:
                lemma = L.load(name)
                if lemma.whole is None:  # a Theorem 3.1 row: by transfer, or its network
                    e = theorem_entry(engine, fmt, construction, sem, drop, name)
                    err(f"  {name} under {sem.spec}: {e['status']}, {e['seconds']:.1f} s"
                        + (f" ({e['reason']})" if e["reason"] else ""))
                    entries.append(e)
                    continue
                try:
                    claims, _ = lemma.whole(fmt, sem)
                except InputError as ex:  # e.g. order=any over a row too wide to encode every order of
                    entries.append(_entry(drop, sem.spec, name, "UNKNOWN", "-", seconds=0.0,
                                          reason=f"its whole-block claim cannot be stated under the profile: {ex}"))
                    err(f"  {name} under {sem.spec}: UNKNOWN ({entries[-1]['reason']})")
                    continue
                total, r, claim = 0.0, None, None
                for claim in claims:
                    r = engine.prove(claim, fmt, {claim.name: claim})
                    total += 0.0 if r.cached else r.seconds
                    if r.status != "PROVED":
                        break
                e = _entry(drop, sem.spec, name, r.status, f"solver {r.solver or '-'}" + (" (cached)" if r.cached else ""),
                           seconds=round(total, 3), reason=r.reason or None, claim=claim.name)
                if r.status == "REFUTED":
                    w = dict(r.witness)
                    got = _breaks(claim, fmt, r)
                    _, exact = evaluate(claim, fmt, {claim.name: claim}, w, part="counterexample", A=ExactArith(fmt))
                    for k in got:
                        if fmt.canonical(got[k]) != fmt.canonical(exact[k]):
                            raise FpsmtError(f"replay mismatch under {sem.spec} for {claim.name}'s {k} at "
                                             f"{r.witness_json()}: the executor gives {fmt.hex(got[k])}, the exact "
                                             f"reference {fmt.hex(exact[k])}")
                    paper = {c.name: c for c in lemma.whole(fmt, PAPER)[0]}[claim.name]
                    _, want = evaluate(paper, fmt, {paper.name: paper}, {k: v for k, v in w.items()
                                                                         if k in paper.variables}, part="counterexample")

                    def fd(d):
                        return {"f": [fmt.hex(d["f"])] if "f" in d else [], "grad": [fmt.hex(d["D"])] if "D" in d else []}
                    e.update(counterexample=r.witness_json(), replayed=True, expected=fd(want), obtained=fd(got))
                    e["_witness"], e["_claim"] = w, claim
                err(f"  {name} under {sem.spec}: {e['status']}" + ("" if r.cached else f", {total:.1f} s"))
                entries.append(e)
    return entries


def _breaks(claim, fmt, r) -> dict:
    """The claim's named values (``s.let``) at a REFUTED result's counterexample, re-run in
    the executor, which must find it in the domains with the hypotheses met and the goal
    false (else an error naming it)."""
    from fpsmt.proof.replay import evaluate
    conds, lets = evaluate(claim, fmt, {claim.name: claim}, dict(r.witness), part="counterexample")
    if not all(conds.values()):
        raise FpsmtError(f"{claim.name}: the solver's counterexample {r.witness_json()} does not break the claim in "
                         "the executor")
    return lets


def necessity_entries(engine, fmt, activation, sems, drop, shape=(1, 2, 1)):
    entries = []
    for sem in sems:
        for lemma, claim in necessity_claims(fmt, activation, sem, shape):
            r = engine.prove(claim, fmt, {claim.name: claim})
            e = _entry(drop, sem.spec, lemma, r.status, f"solver {r.solver or '-'}" + (" (cached)" if r.cached else ""),
                       seconds=round(r.seconds, 3), reason=r.reason or None)
            if r.status == "REFUTED":
                w = dict(r.witness)
                lets = _breaks(claim, fmt, r)
                e.update(counterexample=r.witness_json(), replayed=True,
                         obtained={k: fmt.hex(v) for k, v in lets.items()})
                e["_witness"] = w
            entries.append(e)
    return entries


# ------------------------------------------------------------------ output
def write_break(out_dir: Path, n: int, entry, fmt, net, points):
    """DIR/n.json (the network) and DIR/n.csv (its points, the break's first), atomically."""
    from fpsmt.commands import netio
    from fpsmt.commands.options import atomic_output
    if "_net" in entry:  # a theorem row's network (the one target it misses, or its targets)
        net, points = entry["_net"], entry["_points"]
    if "_run" in entry:
        x, y = entry["_run"]
        rows = [[fmt.hex(x), fmt.hex(y)]] + [[fmt.hex(p[0]), fmt.hex(p[2])] for p in points]
    elif entry["lemma"] == "construct" or "_net" in entry:
        i = entry["_point"]
        order = [i] + [k for k in range(len(points)) if k != i]
        rows = [[fmt.hex(points[k][0]), fmt.hex(points[k][2])] for k in order]
    elif "_claim" in entry:  # a lemma's block at its counterexample (its parameters there, concrete)
        net, xs, ys = _block_at(entry["_claim"], fmt, entry["_witness"])
        ys = ys or [0] * net.n_out  # a value-only claim: +0 upstream (the value does not read it)
        rows = [[fmt.hex(v) for v in xs] + [fmt.hex(v) for v in ys]]
    else:
        w = entry["_witness"]
        net = net.bound(w)
        rows = [[fmt.hex(w["x"]), fmt.hex(w["y"])]]
        if entry["lemma"] == "necessity.zero_upstream":
            rows = [[fmt.hex(w["x"]), fmt.hex(0)], [fmt.hex(w["x"]), fmt.hex(fmt.sign_bit)]]
        else:
            rows.append([fmt.hex(w["x"]), fmt.hex(w["y"] ^ fmt.sign_bit)])
    with atomic_output(out_dir / f"{n}.json") as pj, atomic_output(out_dir / f"{n}.csv") as pc:
        netio.write_network(net, pj.path)
        with open(pc.path, "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
    return [str(out_dir / f"{n}.json"), str(out_dir / f"{n}.csv")]


def _block_at(claim, fmt, witness):
    """(network with its parameters' patterns, input patterns, upstream patterns) of a
    whole-block claim's run at a counterexample, in the executor."""
    from fpsmt.proof.encoding import Encoding
    from fpsmt.semantics.arith import concrete
    A = concrete(fmt)
    s = Encoding(claim, fmt, A, {n: witness.get(n, 0) for n in claim.variables}, {}).scope
    net, params, xs, ys = claim.block(s)

    def bits(t):
        return int(np.ravel(A.to_bits(s.lift(t).v))[0])
    P = {k: bits(v) for k, v in (params or {}).items()}
    net = net.bound(P)
    return net, [bits(x) for x in xs], [bits(y) for y in (ys or [])]


def render(entries, fmt) -> str:
    lines = []
    for e in entries:
        head = f"{e['lemma']:<24} {e['semantics']:<52} {e['status']}"
        if e["status"] == "REFUTED" and e["lemma"] == "construct":
            c = e["counterexample"]
            head += (f" at x = {c['x']} (y = {c['y']}): f = {e['obtained']['f'][0]} (paper's "
                     f"{e['expected']['f'][0]}), D = {e['obtained']['grad'][0]} (paper's {e['expected']['grad'][0]}); "
                     f"{e['broken_points']} point(s) broken, replayed in the exact reference")
        elif e["status"] == "REFUTED":
            head += f": {json.dumps(e['counterexample'])}, replayed"
        elif e["status"] == "UNKNOWN":
            head += f" ({e.get('reason')})"
        else:
            head += f" ({e['method']})"
        lines.append(head)
    return "\n".join(lines)


def cmd_hypothesis(args):
    """The entries (JSON-ready) and a function giving their text table."""
    from fpsmt.commands.options import output_path
    from fpsmt.constructions.registry import get_construction
    from fpsmt.semantics.formats import parse_format
    if args.drop is None:
        raise InputError("counterexample hypothesis needs --drop H (one of: " + ", ".join(HYPOTHESES) + ")")
    fmt = parse_format(args.format)
    construction = get_construction(args.activation)
    sems = profiles(args.drop, fmt, construction.activation, args.semantics)
    out_dir = None
    if args.out:
        out_dir = Path(args.out)
        if out_dir.exists() and not out_dir.is_dir():
            raise InputError(f"--out {args.out} exists and is not a folder")
        if out_dir.is_dir():
            output_path(out_dir / "0.json", "--out")  # a writable folder
        else:
            output_path(out_dir, "--out")  # its parent exists and is writable
    shape = parse_shape(args.shape)
    lemmas = _lemmas(args.lemma, construction, args.drop)
    points = targets_for(args.targets, fmt, construction, args.points)
    if args.drop in SEMANTIC:
        err(f"fpsmt: dropping the {args.drop} hypothesis for {construction.activation} in {fmt.name}: "
            f"{len(sems)} profile(s) ({', '.join(s.spec for s in sems)}); the construct network on {len(points)} "
            f"target(s), and the necessities of a {args.shape} network with symbolic weights")
    else:
        input_points(args.drop, fmt, construction, points)  # refused here, before any work, when it cannot drop
        err(f"fpsmt: dropping the {args.drop} hypothesis for {construction.activation} in {fmt.name}: the construct "
            f"network built anyway on {len(points)} target(s) and targets that drop it, verified at every point")
    if args.drop in SEMANTIC:
        entries, net = construct_entries(fmt, construction, points, sems, args.drop)
        with engine_session(args) as eng:
            entries += lemma_entries(eng, fmt, construction, sems, args.drop, lemmas)
            entries += necessity_entries(eng, fmt, construction.activation, sems, args.drop, shape)
    else:
        entry, net, points = input_entry(args.drop, fmt, construction, points)
        entries = [entry]
    if out_dir is not None:
        out_dir.mkdir(exist_ok=True)
        n = 0
        for e in entries:
            if e["status"] == "REFUTED":
                e["files"] = write_break(out_dir, n, e, fmt, net, points)
                n += 1
    for e in entries:
        e.pop("_point", None)
        e.pop("_witness", None)
        e.pop("_run", None)
        e.pop("_claim", None)
        e.pop("_net", None)
        e.pop("_points", None)
    return entries, lambda: render(entries, fmt)


def register_options(s):
    s.add_argument("--drop", default=None, choices=HYPOTHESES,
                   help="hypothesis: the hypothesis to drop: order, backward, activation (semantics profiles), "
                        "exponent (a format with E < 6), domain (x beyond M), gradient-bound (|h*| beyond H)")
    s.add_argument("--activation", default="relu", help="hypothesis: an activation with a construction (default relu)")
    s.add_argument("--targets", default=DEFAULT_TARGETS,
                   help=f"hypothesis: targets of the construct network (default {DEFAULT_TARGETS})")
    s.add_argument("--points", type=int, default=16,
                   help="hypothesis: how many of the targets, spread over the domain (default 16)")
    s.add_argument("--shape", default="1-2-1",
                   help="hypothesis: the widths of the network whose necessities are decided (default 1-2-1)")
    s.add_argument("--semantics", default=None, metavar="SPEC",
                   help="hypothesis: one profile to try instead of every profile of the dropped hypothesis")
    s.add_argument("--lemma", action="append",
                   help="hypothesis: the lemmas whose whole-block claims are decided under each profile (repeat or "
                        "separate with commas; default every lemma of the activation's construction that has one, "
                        "and under --drop backward and --drop activation its Theorem 3.1 row (by transfer, else its "
                        "network; by name under --drop order); 'none' for none)")
    s.add_argument("--out", default=None, metavar="DIR",
                   help="hypothesis: write the n-th REFUTED entry's network and points as DIR/n.json and DIR/n.csv "
                        "(DIR is created if absent; its parent must exist)")
