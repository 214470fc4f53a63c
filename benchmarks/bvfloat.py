"""Bitwuzla on its own floating-point layer (SymFPU) beside Bitwuzla on fpsmt's own
encoding of the floats into bit-vectors (``bitwuzla-bv``, fpsmt/proof/solve/bvfloat.py),
on the same SMT-LIB texts, side by side.

The claims: those of benchmarks/z3_tactic.py (the fixed suite's ∀ and ∃ claims, the
repaired step indicators as they run beside each other, their finiteness facts and the
step pair's layer chain) and, with --released, the released ReLU step indicators (the
float32 claims only Bitwuzla's own layer proves, in minutes).  Each text is decided by
each configuration in a process of its own, killed at --cap seconds (shown as "> cap");
bitwuzla-bv's figure includes its translation, whose share is printed beside it.  Prints
one table per format (formats Bitwuzla's layer takes: float16, float32, float64), the
totals and the ratio bitwuzla-bv / bitwuzla, and checks that the two never disagree.

    python benchmarks/bvfloat.py [--formats float16,float32] [--cap 120] [--only NAME,…] [--released]
"""

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MODES = ("bitwuzla", "bitwuzla-bv")


def _decide(text, mode, out):
    from fpsmt.proof.solve.backends import run_bitwuzla
    from fpsmt.proof.solve.bvfloat import to_bitvectors
    t = time.perf_counter()
    translate = 0.0
    if mode == "bitwuzla-bv":
        text = to_bitvectors(text)
        translate = time.perf_counter() - t
    r = run_bitwuzla(text, {})[0]
    out.put((r, time.perf_counter() - t, translate))


def timed(text, mode, cap):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_decide, args=(text, mode, q))
    p.start()
    p.join(cap + 30)  # the process's own start-up is not counted in its figure
    if p.is_alive():
        p.kill()
        p.join()
        return "timeout", None, None
    r, secs, tr = q.get() if not q.empty() else ("error", None, None)
    if secs is not None and secs > cap:
        return "timeout", None, None
    return r, secs, tr


def claims(fmt, released):
    from z3_tactic import claims as base

    from fpsmt.proof.lemmas import load
    cs = base(fmt)
    if released:
        for name in ("step_indicator_ge", "step_indicator_le"):
            node, _ = load(name).build("released", fmt)
            cs += node.claims()
    return cs


def main():
    from fpsmt.proof.engine import Engine
    from fpsmt.semantics.formats import parse_format
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="float16,float32")
    ap.add_argument("--cap", type=float, default=120.0)
    ap.add_argument("--only", default="", help="comma-separated substrings of claim names")
    ap.add_argument("--released", action="store_true", help="add the released ReLU step indicators")
    args = ap.parse_args()
    only = [o for o in args.only.split(",") if o]
    for fname in args.formats.split(","):
        fmt = parse_format(fname)
        cs = claims(fmt, args.released)
        registry = {c.name: c for c in cs}
        eng = Engine(solver="z3")
        totals, capped = dict.fromkeys(MODES, 0.0), dict.fromkeys(MODES, False)
        print(f"\n{fmt.name}: Bitwuzla seconds per claim (cap {args.cap:g} s)")
        print(f"{'claim':<40} {'answer':<8} {'bitwuzla':>10} {'bitwuzla-bv':>12} {'(translate)':>12}")
        for c in cs:
            if only and not any(o in c.name for o in only):
                continue
            text = eng._statement(c, fmt, registry)
            answers, cells, tr_cell = set(), [], ""
            for mode in MODES:
                r, secs, tr = timed(text, mode, args.cap)
                if secs is None:
                    cells.append(f"> {args.cap:g}")
                    totals[mode] += args.cap
                    capped[mode] = True
                else:
                    cells.append(f"{secs:.2f}")
                    totals[mode] += secs
                    if mode == "bitwuzla-bv":
                        tr_cell = f"{tr:.2f}"
                if r in ("sat", "unsat"):
                    answers.add(r)
                print(f"  {c.name} {mode}: {r} {cells[-1]}", file=sys.stderr, flush=True)
            if len(answers) > 1:
                raise SystemExit(f"{c.name}: the two configurations disagree ({', '.join(sorted(answers))})")
            print(f"{c.name:<40} {(answers.pop() if answers else 'unknown'):<8} {cells[0]:>10} {cells[1]:>12} "
                  f"{tr_cell:>12}", flush=True)
        bound = " (a bound: some runs hit the cap)" if any(capped.values()) else ""
        print(f"{'total':<49} {totals['bitwuzla']:>10.1f} {totals['bitwuzla-bv']:>12.1f}")
        if totals["bitwuzla"] > 0:
            print(f"ratio bitwuzla-bv / bitwuzla: {totals['bitwuzla-bv'] / totals['bitwuzla']:.3f}{bound}")


if __name__ == "__main__":
    main()
