"""Wall time of `fpsmt reproduce` per format: the portfolio against Z3 alone.

Every lemma with a proof file, both variants, decided twice without the results store
(portfolio, then Z3 alone), each claim capped at --cap seconds (UNKNOWN at the cap counts
as the cap).  Prints a table and the ratio portfolio / Z3.

    python benchmarks/reproduce.py [--formats bfloat16,float32] [--cap 300]
"""

import argparse
import time

from fpsmt.proof.engine import Engine
from fpsmt.errors import InputError
from fpsmt.proof.lemmas import DEFAULT_FORMATS, lemma_names, run
from fpsmt.proof.solve import shutdown

SHORT = {"PROVED": "P", "REFUTED": "R", "UNKNOWN": "?", "MISSING": "-"}


def timed(solver, fmt, cap, lemmas):
    t0 = time.perf_counter()
    try:
        rows = run(Engine(solver=solver, timeout=cap), lemmas, ["released", "repaired"], [fmt])
    except InputError as e:
        return None, str(e)
    took = time.perf_counter() - t0
    for r in rows:
        why = f"  ({r.get('reason', '')[:90]})" if r["status"] == "UNKNOWN" else ""
        print(f"  {solver:<9} {fmt:<9} {r['lemma']:<24} {r['variant']:<8} {r['status']:<8} {r['seconds']:>8.1f} s{why}",
              flush=True)
    return took, "".join(SHORT[r["status"]] for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default=",".join(DEFAULT_FORMATS))
    ap.add_argument("--cap", type=float, default=300.0)
    args = ap.parse_args()
    lemmas = lemma_names()
    print(f"reproduce per format: {len(lemmas)} lemmas x 2 variants, cap {args.cap:g} s per claim")
    print(f"statuses in the order {', '.join(lemmas)} (released, repaired each)")
    print(f"{'format':<13} {'portfolio s':>12} {'z3 alone s':>11} {'ratio':>7}  statuses (portfolio | z3)")
    for fmt in args.formats.split(","):
        tp, sp = timed("portfolio", fmt, args.cap, lemmas)
        tz, sz = timed("z3", fmt, args.cap, lemmas)
        ratio = f"{tp / tz:.2f}" if tp is not None and tz else "-"
        print(f"{fmt:<13} {tp if tp is None else round(tp, 1)!s:>12} {tz if tz is None else round(tz, 1)!s:>11} "
              f"{ratio:>7}  {sp} | {sz}", flush=True)
    shutdown()


if __name__ == "__main__":
    main()
