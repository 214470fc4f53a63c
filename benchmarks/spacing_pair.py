"""The rectifying value atom's ``amp_at_z`` enumerated over the spacing pair as shipped,
(p0, e1) with z⁺ − z = (z − z⁻)·2^e1, e1 in {−1, 0, 1}, beside the earlier statement over
every pair of powers of two (p0, p1), side by side in one run.

Each claim's counterexample query is enumerated in the executor (what ``--solver
exhaustive`` does), then again on the integer executor, whose rounding shares no code
with it (how the engine confirms an enumeration's answer).  Each enumeration is cut at
--cap seconds (shown as "> cap").  Prints points, seconds and the ratios earlier /
shipped per format; both statements must be PROVED where they are decided.

    python benchmarks/spacing_pair.py [--formats float32,float64] [--activation gelu] [--cap 600]
"""

import argparse
import time


def claims(fmt, act):
    """(shipped, earlier): the two ``amp_at_z`` claims, built while ``act`` is the family's."""
    from fpsmt.constructions import rectifying as RC
    from fpsmt.proof.tree import Pred, stage
    from fpsmt.proofs import rect_value_atom as V

    def earlier_goals(s):
        pre = [s.p0, s.p1]
        ge, le = V._steps_run(s, s.const(0), pre)[2][0]
        return [V.STEPS_AT_Z.holds(s, ge=ge, le=le)] + V._steps_side(s, s.const(0), pre)
    with RC.hidden_activation(act):
        shipped = stage("amp_at_z", {**V.AMP_K.variables}, V.AMP_K, lambda s: {}, enumerate=True).claim
        pair = Pred("amp_at_z.pairs", {"p0": V.SPACING_DOM, "p1": V.SPACING_DOM, **V._ZEROS}, earlier_goals)
        earlier = stage("amp_at_z.pairs", {**pair.variables}, pair, lambda s: {}, enumerate=True).claim
    return shipped, earlier


def points(claim, fmt):
    from fpsmt.proof.exhaustive import CLAIM_LIMIT, space
    axes = space(claim, fmt, list(claim.variables), CLAIM_LIMIT)
    n = 1
    for a in axes:
        n *= len(a)
    return n


def decide(claim, fmt, act, cap, integer=False):
    """("unsat" (PROVED), "sat" or None past ``cap`` seconds, seconds): the claim's
    counterexample query enumerated in the executor, or on the integer executor."""
    from fpsmt.constructions import rectifying as RC
    from fpsmt.proof.encoding import conjunction, parts
    from fpsmt.proof.exhaustive import CLAIM_LIMIT, TimeUp, decide as enumerate_
    from fpsmt.semantics.arith.integer import IntegerArith
    with RC.hidden_activation(act):
        t = time.perf_counter()
        try:
            got = enumerate_(claim, fmt, conjunction(parts(claim, "forall")), {}, list(claim.variables),
                             {claim.name: claim}, CLAIM_LIMIT, None, time.monotonic() + cap,
                             arith=IntegerArith(fmt) if integer else None)
        except TimeUp:
            return None, time.perf_counter() - t
        return got[0], time.perf_counter() - t


def main(argv=None):
    from fpsmt.semantics.formats import parse_format
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formats", default="float32,float64")
    ap.add_argument("--activation", default="gelu")
    ap.add_argument("--cap", type=float, default=600.0, help="seconds for each decision (default 600)")
    a = ap.parse_args(argv)
    print("| format | statement | points | executor | s | integer executor | s |")
    print("| --- | --- | ---: | --- | ---: | --- | ---: |")
    for name in a.formats.split(","):
        fmt = parse_format(name)
        times = {}
        for label, claim in zip(("(p0, e1)", "(p0, p1)"), claims(fmt, a.activation)):
            row = []
            for integer in (False, True):
                st, dt = decide(claim, fmt, a.activation, a.cap, integer)
                if st == "sat":
                    raise SystemExit(f"{name} {label}: a counterexample: both statements must be PROVED")
                row.append(dt if st else None)
            shown = " | ".join(f"PROVED | {dt:.1f}" if dt is not None else f"stopped at the cap | > {a.cap:g}"
                               for dt in row)
            print(f"| {name} | {label} | {points(claim, fmt):,} | {shown} |", flush=True)
            times[label] = row
        new, old = times["(p0, e1)"], times["(p0, p1)"]
        print(f"{name}: earlier / shipped: executor {_ratio(old[0], new[0], a.cap)}, integer executor "
              f"{_ratio(old[1], new[1], a.cap)}", flush=True)


def _ratio(old, new, cap):
    if old is not None and new is not None:
        return f"{old / new:.1f}"
    return f"> {cap / new:.1f}" if new is not None else "—"


if __name__ == "__main__":
    main()
