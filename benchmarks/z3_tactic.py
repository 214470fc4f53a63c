"""Z3's default solver beside the bit-blasting tactic the z3 back end uses
(fpsmt.proof.solve.backends.Z3_TACTIC), on the same SMT-LIB texts, side by side.

The claims: the fixed suite of benchmarks/solvers.py (its ∀ and ∃ claims), the repaired
step indicators as they run beside each other, their finiteness facts and the step
pair's layer chain (proofs/common.py).  Each text is decided by each configuration in a
process of its own, killed at --cap seconds (shown as "> cap").  Prints one table per
format, the totals and the ratio tactic / default, and checks that the two configurations
never disagree.

    python benchmarks/z3_tactic.py [--formats bfloat16,float32] [--cap 120] [--only NAME,…]
"""

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _decide(text, mode, out):
    import z3

    from fpsmt.proof.solve.backends import Z3_TACTIC
    assertions = z3.parse_smt2_string(text)
    s = z3.Then(*Z3_TACTIC).solver() if mode == "tactic" else z3.Solver()
    s.add(assertions)
    t = time.perf_counter()
    r = s.check()
    out.put((str(r), time.perf_counter() - t))


def timed(text, mode, cap, target=_decide):
    """(answer, seconds or None past the cap, the further figures ``target`` reports):
    ``target(text, mode, queue)`` decides the text in a process of its own, killed at
    ``cap`` seconds, and puts (answer, seconds, *figures) on the queue."""
    q = mp.get_context("spawn").Queue()
    p = mp.get_context("spawn").Process(target=target, args=(text, mode, q))
    p.start()
    p.join(cap + 30)  # the process's own start-up is not counted in its figure
    if p.is_alive():
        p.kill()
        p.join()
        return "timeout", None, ()
    r, secs, *extra = q.get() if not q.empty() else ("error", None)
    if secs is not None and secs > cap:
        return "timeout", None, ()
    return r, secs, tuple(extra)


def claims(fmt):
    from suite_claims import SUITE

    from fpsmt.proof.tree import Node
    from fpsmt.proofs.common import pair_beside, step_node
    root = Node("lemma", "bench", None, [step_node("ge", fmt, True), step_node("le", fmt, True), pair_beside(fmt)])
    return [c for c in SUITE if c.kind in ("forall", "exists")] + root.claims()


def side_by_side(title, modes, claims_of, target=_decide, extra=None, argv=None, formats="bfloat16,float32",
                 more_options=()):
    """The benchmark: per format, each claim's SMT-LIB text decided in each of ``modes``
    (``timed`` with ``target``), a table with the seconds per mode (and ``extra``: (its
    column's heading, the mode whose first further figure it shows)), the totals and the
    ratio of the second mode's to the first's; two modes that disagree stop the run.
    ``claims_of(fmt, args)`` gives the claims; ``more_options``: (flag, help) of further
    store-true options."""
    from fpsmt.proof.engine import Engine
    from fpsmt.semantics.formats import parse_format
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default=formats)
    ap.add_argument("--cap", type=float, default=120.0)
    ap.add_argument("--only", default="", help="comma-separated substrings of claim names")
    for flag, help_ in more_options:
        ap.add_argument(flag, action="store_true", help=help_)
    args = ap.parse_args(argv)
    only = [o for o in args.only.split(",") if o]
    widths = [max(10, len(m)) for m in modes]
    for fname in args.formats.split(","):
        fmt = parse_format(fname)
        cs = claims_of(fmt, args)
        registry = {c.name: c for c in cs}
        eng = Engine(solver="z3")
        totals, capped = dict.fromkeys(modes, 0.0), dict.fromkeys(modes, False)
        print(f"\n{fmt.name}: {title} seconds per claim (cap {args.cap:g} s)")
        print(f"{'claim':<40} {'answer':<8} " + " ".join(f"{m:>{w}}" for m, w in zip(modes, widths))
              + (f" {extra[0]:>12}" if extra else ""))
        for c in cs:
            if only and not any(o in c.name for o in only):
                continue
            text = eng._statement(c, fmt, registry)
            answers, cells, extra_cell = set(), [], ""
            for mode in modes:
                r, secs, figures = timed(text, mode, args.cap, target)
                if secs is None:
                    cells.append(f"> {args.cap:g}")
                    totals[mode] += args.cap
                    capped[mode] = True
                else:
                    cells.append(f"{secs:.2f}")
                    totals[mode] += secs
                    if extra and mode == extra[1]:
                        extra_cell = f"{figures[0]:.2f}"
                if r in ("sat", "unsat"):
                    answers.add(r)
                print(f"  {c.name} {mode}: {r} {cells[-1]}", file=sys.stderr, flush=True)
            if len(answers) > 1:
                raise SystemExit(f"{c.name}: the two configurations disagree ({', '.join(sorted(answers))})")
            print(f"{c.name:<40} {(answers.pop() if answers else 'unknown'):<8} "
                  + " ".join(f"{x:>{w}}" for x, w in zip(cells, widths))
                  + (f" {extra_cell:>12}" if extra else ""), flush=True)
        bound = " (a bound: some runs hit the cap)" if any(capped.values()) else ""
        print(f"{'total':<49} " + " ".join(f"{totals[m]:>{w}.1f}" for m, w in zip(modes, widths)))
        first, second = modes
        if totals[first] > 0:
            print(f"ratio {second} / {first}: {totals[second] / totals[first]:.3f}{bound}")


def main():
    side_by_side("z3", ("default", "tactic"), lambda fmt, args: claims(fmt))


if __name__ == "__main__":
    main()
