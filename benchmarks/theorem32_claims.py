"""Theorem 3.2's ∀y claims and its networks for targets given as pieces, per format.

First table: the lemma row ``theorem_3_2_relu`` (one point's backward program for the
3-piece g — 0 for |y| < 1/16, y ⊗ 3 up to 4, ±2 from 4 — proved for every finite y), each
format in a fresh process with an empty results store, confirmation on: the tree's claims,
how many were answered from an identical claim decided earlier in the same row (shared
staircase stages), the solvers' seconds, the wall-clock seconds, the status, the
confirmed UNSAT answers, and the Theorem 3.2 network's depth beside the paper's
2^(E+1) + 2M + 9.

    python benchmarks/theorem32_claims.py [--formats e4m2,float8_e5m2,float16,bfloat16,float32]
                                          [--timeout 300] [--no-claims] [--lemma theorem_3_2_relu_network]
                                          [--activation elu] [--pieces-activations relu,elu,gelu,swish]

``--lemma theorem_3_2_relu_network``: the same table for the network row (depth not
stated by that row: "-").  ``--activation elu --lemma rect_theorem_3_2`` (or
``rect_theorem_3_2_network``): the rectifying family's rows (proofs/rect_theorem_3_2.py;
``--activation gelu`` or ``swish`` for offset mode).

Second table (``--pieces``, default float32,float64): ``fpsmt construct`` on the example
clipping_pieces_<format>.py (4 points, g* = k(x)·clamp(y, −1, 1) as pieces) with
``--no-prove``, per activation of ``--pieces-activations`` (default relu; elu, gelu, swish
build the rectifying family's gated network): build and executor seconds, the (x, y) pairs
checked, mismatches, depth, parameters, file size, peak memory — each in a fresh process.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, sys, time
from fpsmt.proof.engine import Engine
from fpsmt.proof.lemmas import run
from fpsmt.proof.store import Store
from fpsmt.constructions.registry import get_construction
fmt, timeout, store, lemma, act = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
t0 = time.perf_counter()
row, = run(Engine(solver="portfolio", timeout=timeout, confirm=True, store=Store(store)), [lemma], ["repaired"], [fmt],
           construction=get_construction(act))
wall = time.perf_counter() - t0
keys = row.get("keys", [])
c = row.get("confirmed") or {"stages": 0, "unconfirmed": []}
import re
m = re.search(r"has depth (\d+) \(the paper's .* = (\d+)\)", row["statement"])
print(json.dumps({"status": row["status"], "claims": len(keys), "solver_s": row["seconds"], "wall": wall,
                  "stored": len(keys) - len({k["key"] for k in keys}),
                  "confirmed": f"{c['stages'] - len(c['unconfirmed'])}/{c['stages']}",
                  "depth": m and int(m.group(1)), "paper": m and int(m.group(2)),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def claims(name, timeout, lemma, activation="relu"):
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.executable, "-c", CHILD, name, str(timeout), f"{d}/store.sqlite", lemma, activation],
                           capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{name}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def pieces(name, activation="relu"):
    from pathlib import Path
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        cmd = [sys.executable, "-c", "import resource, sys; from fpsmt.commands.cli import main; rc = main(sys.argv[1:]); "
               "sys.stderr.write('PEAK %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(rc)",
               "construct", "--targets", f"example:clipping_pieces_{name}.py", "--format", name, "--out",
               f"{d}/n.json", "--activation", activation, "--no-prove", "--json"]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=d)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(f"{name}, {activation}: {r.stderr.strip()}")
        rep = json.loads(r.stdout)
        peak = [int(line.split()[1]) for line in r.stderr.splitlines() if line.startswith("PEAK ")]
        rep["peak_mb"] = peak[0] / 1024 if peak else None
        rep["wall"] = wall
        rep["file"] = Path(f"{d}/n.json").stat().st_size
    return rep


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--formats", default="e4m2,float8_e5m2,float16,bfloat16,float32")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per claim")
    ap.add_argument("--no-claims", action="store_true", help="skip the claims table")
    ap.add_argument("--lemma", default="theorem_3_2_relu",
                    help="the row of the claims table: theorem_3_2_relu (the program) or theorem_3_2_relu_network "
                         "(the gated network's layers at x = ±0, and a zero D at four other points); for ELU, GELU, Swish "
                         "rect_theorem_3_2 or rect_theorem_3_2_network with --activation elu, gelu or swish")
    ap.add_argument("--activation", default="relu", help="the activation the claims row is decided for")
    ap.add_argument("--pieces", default="float32,float64", help="formats of the pieces networks ('' skips them)")
    ap.add_argument("--pieces-activations", default="relu",
                    help="activations of the pieces networks, comma-separated (relu, elu, gelu, swish)")
    a = ap.parse_args()
    if not a.no_claims:
        print("| format | status | claims | answered again (shared) | solver s | wall s | confirmed | depth | paper's | "
              "ratio | peak MB |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for name in [f for f in a.formats.split(",") if f]:
            r = claims(name, a.timeout, a.lemma, a.activation)
            ratio = f"{r['depth'] / r['paper']:.2f}" if r["depth"] and r["paper"] else "-"
            r["depth"], r["paper"] = r["depth"] or "-", r["paper"] or "-"
            print(f"| {name} | {r['status']} | {r['claims']} | {r['stored']} | {r['solver_s']:.1f} | {r['wall']:.1f} | "
                  f"{r['confirmed']} | {r['depth']} | {r['paper']} | {ratio} | {r['peak_mb']:.0f} |", flush=True)
    if a.pieces:
        print()
        print("| format | activation | points | (x, y) pairs | mismatches | depth | paper's | parameters | file MB | "
              "build s | executor s | wall s | peak MB |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, act in [(f, x) for f in a.pieces.split(",") if f for x in a.pieces_activations.split(",") if x]:
            r = pieces(name, act)
            print(f"| {name} | {act} | {r['points']} | {r['pairs']} | {len(r['mismatches'])} | {r['depth']} | "
                  f"{r['paper_depth']} | {r['parameters']:,} | {r['file'] / 2**20:.1f} | {r['seconds']['build']:.1f} | "
                  f"{r['seconds']['executor']:.1f} | {r['wall']:.1f} | {r['peak_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
