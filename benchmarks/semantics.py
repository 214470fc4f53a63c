"""Semantics profiles: the executor's throughput per profile against the paper's, one run.

The ReLU network of ``fpsmt construct`` for the built-in sin targets (every domain point of
examples/sin_misleading.py, 500 in bfloat16) is run as a whole network (``run``, not the
block-aware path, so that every profile does the same work) at all its points with upstream
h*(x) = 1, under each profile; the best of ``--repeat`` runs is reported as points per
second with its ratio to the paper's order, and how many points still meet their targets
under the profile.  Also: ``fpsmt counterexample hypothesis`` wall time per format, for the
order and backward hypotheses (construct entries on 16 targets and the 1-2-1 necessities,
``--lemma none``, an empty results store), and the survival table's wall time per format
(``fpsmt reproduce --survival --activation relu``, an empty results store, ``--timeout``
per claim), with its cells counted by status.

    python benchmarks/semantics.py [--format bfloat16] [--repeat 3] [--hypothesis-formats float8_e4m3,bfloat16]
                                   [--survival-formats float8_e4m3,bfloat16,float32] [--survival-timeout 60]
                                   [--survival-keep DIR]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time

import numpy as np

PROFILES = ["order=left", "order=reversed", "order=pairwise", "order=blocked:8", "order=wide:float32",
            "backward=torch", "backward=jax"]


def throughput(fmt_name, repeat):
    from fpsmt.commands import targets
    from fpsmt.constructions.registry import get_construction
    from fpsmt.resources import resolve
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.formats import parse_format
    from fpsmt.semantics.network import parse_semantics, run
    fmt = parse_format(fmt_name)
    points = targets.load_targets(resolve("example:sin_misleading.py"), fmt)
    net = get_construction("relu").network(fmt, points)
    A = concrete(fmt)
    xs = A.const(np.asarray([[p[0]] for p in points], dtype=np.uint64))
    ys = A.const(np.asarray([[p[2]] for p in points], dtype=np.uint64))
    print(f"{fmt.name}: the ReLU construct network on {len(points)} points, depth {net.depth}, "
          f"{net.n_parameters()} parameters; whole-network runs, best of {repeat}", flush=True)
    print(f"  {'profile':<22} {'points/s':>10} {'vs paper':>9} {'meets targets':>14}")
    base = None
    for spec in PROFILES:
        sem = parse_semantics(spec).check(fmt, ["relu"])
        best = None
        for _ in range(repeat):
            net = get_construction("relu").network(fmt, points)  # fresh: patterns are built per profile
            t0 = time.perf_counter()
            t = run(A, net, xs, ys, sem=sem)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        f, g = np.ravel(A.to_bits(t.out)), np.ravel(A.to_bits(t.grad))
        met = sum(targets.meets(fmt, int(a), p[1]) and targets.meets(fmt, int(b), p[3]) for a, b, p in zip(f, g, points))
        rate = len(points) / best
        base = base or rate
        print(f"  {spec:<22} {rate:>10.1f} {rate / base:>8.2f}x {met:>7}/{len(points)}", flush=True)


def hypothesis_times(formats):
    print("fpsmt counterexample hypothesis (16 targets, 1-2-1 necessities, empty store, --timeout 120):")
    for name in formats:
        for drop in ("order", "backward"):
            with tempfile.TemporaryDirectory() as d:
                t0 = time.perf_counter()
                r = subprocess.run([sys.executable, "-m", "fpsmt.commands.cli", "counterexample", "hypothesis",
                                    "--drop", drop, "--format", name, "--store", f"{d}/s.sqlite", "--timeout", "120",
                                    "--lemma", "none", "--json"], capture_output=True, text=True)
                dt = time.perf_counter() - t0
            if r.returncode != 0:
                print(f"  {name:<12} --drop {drop:<9} exit {r.returncode}: {r.stderr.strip().splitlines()[-1]}")
                continue
            entries = json.loads(r.stdout)
            counts = {}
            for e in entries:
                counts[e["status"]] = counts.get(e["status"], 0) + 1
            print(f"  {name:<12} --drop {drop:<9} {dt:7.1f} s  {len(entries)} entries: "
                  + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)


def survival_times(formats, timeout, keep=None):
    print(f"fpsmt reproduce --survival --activation relu (empty store, --timeout {timeout} per claim):")
    for name in formats:
        with tempfile.TemporaryDirectory() as d:
            out = keep or d
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "fpsmt.commands.cli", "reproduce", "--survival", "--activation",
                                "relu", "--format", name, "--store", f"{d}/s.sqlite", "--timeout", str(timeout),
                                "--report", f"{out}/survival-{name}.md", "--table", f"{out}/survival-{name}.json"],
                               capture_output=True, text=True)
            dt = time.perf_counter() - t0
            if r.returncode != 0:
                print(f"  {name:<12} exit {r.returncode}: {r.stderr.strip().splitlines()[-1]}")
                continue
            data = json.load(open(f"{out}/survival-{name}.json"))
        counts = {}
        for row in data["rows"]:
            for c in row["cells"].values():
                counts[c["status"]] = counts.get(c["status"], 0) + 1
        print(f"  {name:<12} {dt:8.1f} s  {len(data['rows'])} lemmas x {len(data['profiles'])} profiles: "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--format", default="bfloat16")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hypothesis-formats", default="float8_e4m3,bfloat16")
    ap.add_argument("--survival-formats", default="float8_e4m3",
                    help="formats of the survival table's timing (bfloat16 and float32 take long: see the README)")
    ap.add_argument("--survival-timeout", type=int, default=60)
    ap.add_argument("--survival-keep", metavar="DIR",
                    help="keep each format's survival report and table as DIR/survival-FORMAT.md and .json")
    a = ap.parse_args()
    throughput(a.format, a.repeat)
    if a.hypothesis_formats:
        hypothesis_times([f for f in a.hypothesis_formats.split(",") if f])
    if a.survival_formats:
        survival_times([f for f in a.survival_formats.split(",") if f], a.survival_timeout, a.survival_keep)


if __name__ == "__main__":
    main()
