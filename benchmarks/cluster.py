"""Runs over a cluster: the same grid with 1 and 2 Dask workers, and a float32 enumeration's
throughput per worker — each beside the local run, in one run of this script.

* the grid: ``fpsmt reproduce --activation relu --format float8_e4m3`` on the lemmas of
  ``--lemmas`` (both variants; one task per row), Z3 alone, each run from an empty store:
  locally, then ``--cluster local:1`` and ``--cluster local:2``; wall seconds and the
  ratio to one worker;
* the enumeration: ``fpsmt prove example:claims.py:mul_one_identity --format float32
  --solver exhaustive`` (every float32 pattern, about 4.3e9): locally (this process's
  threads), then on 1 and 2 workers; points per second, and per worker.

The machine's cores bound what the second worker can add: on a 2-core machine the
client, the scheduler and two workers share them.

    python benchmarks/cluster.py [--lemmas step_indicator_ge,step_indicator_le,zero_indicator,point_indicator]
                                 [--no-enumeration]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time

POINTS_F32 = 2**32 - 2 * (2**23 - 1) + 1  # float32 patterns, NaNs as one


def fpsmt(args):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "fpsmt.commands.cli", *args], capture_output=True, text=True)
    return r, time.perf_counter() - t0


def grid(lemmas):
    print(f"reproduce --activation relu --format float8_e4m3 --lemma {lemmas} (both variants), z3, empty store:")
    base = None
    for where in ([], ["--cluster", "local:1"], ["--cluster", "local:2"]):
        with tempfile.TemporaryDirectory() as d:
            r, dt = fpsmt(["reproduce", "--activation", "relu", "--format", "float8_e4m3", "--lemma", lemmas,
                           "--solver", "z3", "--store", f"{d}/s.sqlite", "--report", f"{d}/r.md", "--json", *where])
        if r.returncode:
            print(f"  {' '.join(where) or 'local':<18} exit {r.returncode}: {r.stderr.strip().splitlines()[-1]}")
            continue
        rows = json.loads(r.stdout)
        statuses = ", ".join(f"{s} {sum(x['status'] == s for x in rows)}" for s in ("PROVED", "REFUTED", "UNKNOWN"))
        if where and base is None:
            base = dt
        ratio = f"  x{base / dt:.2f} of one worker's speed" if where and base else ""
        print(f"  {' '.join(where) or 'local':<18} {dt:7.1f} s  {len(rows)} rows ({statuses}){ratio}", flush=True)


def enumeration():
    print(f"prove mul_one_identity --format float32 --solver exhaustive ({POINTS_F32:.3g} points), empty store:")
    for where, workers in (([], None), (["--cluster", "local:1"], 1), (["--cluster", "local:2"], 2)):
        with tempfile.TemporaryDirectory() as d:
            r, dt = fpsmt(["prove", "example:claims.py:mul_one_identity", "--format", "float32", "--solver",
                           "exhaustive", "--timeout", "3600", "--store", f"{d}/s.sqlite", "--json", *where])
        if r.returncode:
            print(f"  {' '.join(where) or 'local':<18} exit {r.returncode}: {r.stderr.strip().splitlines()[-1]}")
            continue
        status = json.loads(r.stdout)[0]["status"]
        rate = POINTS_F32 / dt
        per = f", {rate / workers / 1e6:.1f} M points/s per worker" if workers else " (this process's threads)"
        print(f"  {' '.join(where) or 'local':<18} {dt:7.1f} s  {status}, {rate / 1e6:.1f} M points/s{per}",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lemmas", default="step_indicator_ge,step_indicator_le,zero_indicator,point_indicator")
    ap.add_argument("--no-enumeration", action="store_true")
    a = ap.parse_args()
    grid(a.lemmas)
    if not a.no_enumeration:
        enumeration()


if __name__ == "__main__":
    main()
