"""The executor against an independent integer implementation of RNE on every pair of a
16-bit format (fpsmt/semantics/arith/intrne.py; the slow suite's test_every_pair_of_the_16_bit_formats):
per operation the pairs checked, the mismatches, and the seconds spent in the executor
and in the reference (summed over the threads; the reference's a − b is its a + (−b),
so sub's reference seconds are only the reading of add's), measured side by side in one
run; "wall s" is the whole format's wall time.

    python benchmarks/executor_rne.py [--formats bfloat16,float16] [--ops add,sub,mul,div]
"""

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

from executor_pairs import OPS, all_pairs  # noqa: E402
from fpsmt.semantics.formats import parse_format  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="bfloat16,float16")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--workers", type=int, default=None, help="threads (default: up to 4, one per core)")
    args = ap.parse_args()
    print(f"{'format':<10} {'op':<4} {'pairs':>14} {'mismatches':>10} {'executor s':>11} {'reference s':>12} "
          f"{'ratio':>6} {'wall s':>8}  executor pairs/s", flush=True)
    failed = False
    for name in args.formats.split(","):
        fmt = parse_format(name)
        t0 = time.perf_counter()
        got = all_pairs(fmt, tuple(args.ops.split(",")), workers=args.workers,
                        progress=lambda m: print(m, file=sys.stderr, flush=True))
        wall = time.perf_counter() - t0
        for op, (found, pairs, t_ex, t_ref) in got.items():
            print(f"{fmt.name:<10} {op:<4} {pairs:>14,} {0 if found is None else 'some':>10} {t_ex:>11.1f} "
                  f"{t_ref:>12.1f} {t_ex / t_ref if t_ref else float('nan'):>6.2f} {wall:>8.1f}  {pairs / t_ex:.3g}",
                  flush=True)
            if found:
                print(f"  first mismatch: {found}", flush=True)
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
