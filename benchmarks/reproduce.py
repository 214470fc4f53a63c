"""Wall time of `fpsmt reproduce` per format from an empty store: with confirmation (the
default since every UNSAT must be confirmed) beside without it (`--no-confirm`, what
reproduce did before), measured one after the other in the same run.

Every lemma with a proof file, both variants, the portfolio, each claim capped at --cap
seconds (reproduce's default 600).  Prints a line per row as it is decided, then a table:
the two wall times, their ratio, the budget (bfloat16 15 min, float32 20 min on 2 cores),
the statuses and how many UNSAT answers stayed unconfirmed.

    python benchmarks/reproduce.py [--formats bfloat16,float32] [--cap 600]
"""

import argparse
import time

from fpsmt.errors import InputError
from fpsmt.proof.engine import Engine
from fpsmt.proof.lemmas import DEFAULT_FORMATS, lemma_names, run
from fpsmt.proof.solve import shutdown

SHORT = {"PROVED": "P", "REFUTED": "R", "UNKNOWN": "?", "MISSING": "-", "VACUOUS": "V"}
BUDGET = {"bfloat16": 15 * 60, "float32": 20 * 60}


def timed(confirm, fmt, cap, lemmas):
    t0 = time.perf_counter()
    try:
        rows = run(Engine(solver="portfolio", timeout=cap, confirm=confirm), lemmas, ["released", "repaired"], [fmt])
    except InputError as e:
        return None, str(e), 0
    took = time.perf_counter() - t0
    tag = "confirm" if confirm else "no-confirm"
    for r in rows:
        why = f"  ({r.get('reason', '')[:90]})" if r["status"] == "UNKNOWN" else ""
        left = r["confirmed"]["unconfirmed"]
        print(f"  {tag:<10} {fmt:<9} {r['lemma']:<24} {r['variant']:<8} {r['status']:<8} {r['seconds']:>8.1f} s"
              f"  confirmed {r['confirmed']['stages'] - len(left)}/{r['confirmed']['stages']}{why}", flush=True)
    unconfirmed = sum(len(r["confirmed"]["unconfirmed"]) for r in rows)
    return took, "".join(SHORT[r["status"]] for r in rows), unconfirmed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default=",".join(DEFAULT_FORMATS))
    ap.add_argument("--cap", type=float, default=600.0)
    args = ap.parse_args()
    lemmas = lemma_names()
    print(f"reproduce per format from an empty store: {len(lemmas)} lemmas x 2 variants, portfolio, "
          f"cap {args.cap:g} s per claim")
    print(f"statuses in the order {', '.join(lemmas)} (released, repaired each)", flush=True)
    header = (f"{'format':<10} {'confirm s':>10} {'no-confirm s':>13} {'ratio':>6} {'budget s':>9} {'within':>7} "
              f"{'unconfirmed':>12}  statuses (confirm | no-confirm)")
    lines = []
    for fmt in args.formats.split(","):
        on, s_on, left = timed(True, fmt, args.cap, lemmas)
        off, s_off, _ = timed(False, fmt, args.cap, lemmas)
        budget = BUDGET.get(fmt)
        ratio = f"{on / off:.2f}" if on and off else "-"
        within = "-" if budget is None or on is None else ("yes" if on <= budget else "NO")
        lines.append(f"{fmt:<10} {'-' if on is None else f'{on:.1f}':>10} {'-' if off is None else f'{off:.1f}':>13} "
                     f"{ratio:>6} {budget or '-':>9} {within:>7} {left:>12}  {s_on} | {s_off}")
        print(f"\n{header}\n{lines[-1]}\n", flush=True)  # each format as soon as it is measured
    print(f"\n{header}\n" + "\n".join(lines), flush=True)
    shutdown()


if __name__ == "__main__":
    main()
