"""Wall time of `fpsmt conditions --all` per format: the portfolio against Z3 alone.

For each format, the paper's six activations x Conditions 1-3 are decided twice without
the results store — by the portfolio and by Z3 alone — each claim capped at --cap seconds
(UNKNOWN at the cap counts as the cap).  Prints a table and the ratio portfolio / Z3.

    python benchmarks/conditions.py [--formats bfloat16,float16,...] [--cap 120]
"""

import argparse
import time

from fpsmt.semantics.activations import PAPER_SIX
from fpsmt.proof.conditions import ALL_FORMATS, run
from fpsmt.proof.engine import Engine
from fpsmt.errors import InputError
from fpsmt.proof.solve import shutdown


def timed(solver, fmt, cap):
    eng = Engine(solver=solver, timeout=cap)
    t0 = time.perf_counter()
    try:
        rows = run(eng, list(PAPER_SIX), [fmt])
    except InputError as e:  # e.g. Z3 cannot encode float8_e5m2
        return None, str(e)
    dt = time.perf_counter() - t0
    unknown = sum(r["status"] == "UNKNOWN" for r in rows)
    statuses = "".join({"PROVED": "P", "REFUTED": "R", "UNKNOWN": "?"}[r["status"]] for r in rows)
    return dt, f"{statuses} ({unknown} unknown)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default=",".join(ALL_FORMATS))
    ap.add_argument("--cap", type=float, default=120.0)
    args = ap.parse_args()
    print(f"conditions --all per format: 6 activations x C1-C3, cap {args.cap:g} s per claim")
    print(f"{'format':<13} {'portfolio s':>12} {'z3 alone s':>11} {'ratio':>7}  statuses (portfolio | z3)")
    total_p = total_z = 0.0
    for fmt in args.formats.split(","):
        tp, sp = timed("portfolio", fmt, args.cap)
        tz, sz = timed("z3", fmt, args.cap)
        ratio = f"{tp / tz:.2f}" if tp is not None and tz else "-"
        if tp is not None and tz is not None:  # the ratio compares formats both decided
            total_p += tp
            total_z += tz
        print(f"{fmt:<13} {tp if tp is None else round(tp, 1)!s:>12} {tz if tz is None else round(tz, 1)!s:>11} "
              f"{ratio:>7}  {sp} | {sz}", flush=True)
    print(f"{'total (both)':<13} {total_p:>12.1f} {total_z:>11.1f} {total_p / total_z if total_z else 0:>7.2f}")
    shutdown()


if __name__ == "__main__":
    main()
