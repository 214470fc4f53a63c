"""Solver back ends and the portfolio on a fixed suite of the project's claims.

Every claim of benchmarks/suite_claims.py (>= 8, including the parametric step indicator
of BRIEF §5.1) is decided per format by each back end alone and by the portfolio, each run
capped at --cap seconds (shown as "> cap"; the run is killed), without the results store.
Prints one table per format and the ratio of total time, portfolio / Z3 alone.

    python benchmarks/solvers.py [--formats bfloat16,float32,float64] [--cap 60]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from suite_claims import SUITE  # noqa: E402

from fpsmt.proof.engine import UNKNOWN, Engine  # noqa: E402
from fpsmt.errors import InputError  # noqa: E402
from fpsmt.semantics.formats import parse_format  # noqa: E402
from fpsmt.proof.solve import shutdown  # noqa: E402

SOLVERS = ["z3", "cvc5", "bitwuzla", "portfolio"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="bfloat16,float32,float64")
    ap.add_argument("--cap", type=float, default=60.0)
    args = ap.parse_args()
    registry = {c.name: c for c in SUITE}
    for fname in args.formats.split(","):
        fmt = parse_format(fname)
        totals = {s: 0.0 for s in SOLVERS}
        capped = {s: False for s in SOLVERS}
        print(f"\n{fmt.name}: seconds per claim (cap {args.cap:g} s)")
        print(f"{'claim':<20} {'status':<8} " + " ".join(f"{s:>10}" for s in SOLVERS) + "  portfolio winner")
        for claim in SUITE:
            cells, status, winner = [], "", ""
            for s in SOLVERS:
                eng = Engine(solver=s, timeout=args.cap)
                try:
                    r = eng.prove(claim, fmt, registry)
                except InputError as e:
                    cells.append("n/a")
                    if "choose another" not in str(e) and "accepts" not in str(e):
                        raise
                    continue
                if r.status == UNKNOWN:
                    cells.append(f"> {args.cap:g}")
                    totals[s] += args.cap
                    capped[s] = True
                else:
                    cells.append(f"{r.seconds:.2f}")
                    totals[s] += r.seconds
                    status = status or r.status
                    if s == "portfolio":
                        winner = r.solver
                print(f"  {claim.name} {s}: {cells[-1]}", file=sys.stderr, flush=True)
            print(f"{claim.name:<20} {status or UNKNOWN:<8} " + " ".join(f"{c:>10}" for c in cells) + f"  {winner}",
                  flush=True)
        tot = " ".join(f"{('>=' if capped[s] else '') + format(totals[s], '.1f'):>10}" for s in SOLVERS)
        print(f"{'total':<29} {tot}")
        if totals["z3"] > 0:
            bound = " (a bound: some runs hit the cap)" if capped["z3"] or capped["portfolio"] else ""
            print(f"ratio portfolio / z3 alone: {totals['portfolio'] / totals['z3']:.3f}{bound}")
    shutdown()


if __name__ == "__main__":
    main()
