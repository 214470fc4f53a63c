"""The gradient-threshold indicator (Theorem 3.2's Lemma 3.7, BRIEF §9's smallest case:
ReLU, X = {0}, D(y) = ±1 exactly at y = ±1) per format: build, verify at every finite y
(formats of at most 16 bits), and decide the lemma ``gradient_threshold`` (its proof tree,
confirmation on, an empty store).  Each format runs in a fresh process, so that its peak
memory (max RSS) is its own.  Prints per format: staircase stages, depth beside the
paper's Theorem 3.2 depth 2^(E+1) + 2M + 9 (the ratio), parameters, build, verify and proof
seconds, the lemma's status and how many of its UNSAT answers were confirmed.

    python benchmarks/theorem32.py [--formats e4m2,float8_e4m3,float16,bfloat16,float32]
                                   [--timeout 300] [--no-proof]

Then the Theorem 3.2 network (``--network``, default bfloat16): f*(x) = x and a 3-piece
g*(x, y) — 0 for |y| < 2^-4, y ⊗ k(x) for 2^-4 <= |y| < 4, ±2·k(x) from 4 on, k(x) = 1 + |x| —
on N points (default 16), built and verified at every (x, y) (every finite y, both signs:
about 2·10^6 pairs in bfloat16), in a fresh process: seconds to tabulate g*, to build and to
verify, peak memory, depth beside the paper's, parameters, file size.

    python benchmarks/theorem32.py --network bfloat16 --points 16 --no-lemma [--activation relu,elu]

One row per activation (default ReLU and ELU, each in a fresh process), with ELU's depth,
parameters and verification time as ratios to ReLU's, measured in the same run.
"""

import argparse
import json
import subprocess
import sys
import tempfile

CHILD = r"""
import json, resource, sys, time
from fpsmt.constructions import threshold as T
from fpsmt.constructions.relu import constants
from fpsmt.semantics.formats import parse_format
fmt, prove, timeout, store = parse_format(sys.argv[1]), sys.argv[2] == "1", float(sys.argv[3]), sys.argv[4]
t0 = time.perf_counter()
net, plans = T.smallest_case(fmt)
t1 = time.perf_counter()
verify, bad = None, None
if fmt.nbits <= 16:
    blocks = [(p.t, p.c) for p in plans]
    bad = len(T.mismatches(fmt, net, blocks))
    verify = time.perf_counter() - t1
t2 = time.perf_counter()
status, confirmed = None, None
if prove:
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.lemmas import run
    from fpsmt.proof.store import Store
    row, = run(Engine(solver="portfolio", timeout=timeout, confirm=True, store=Store(store)), ["gradient_threshold"],
               ["repaired"], [fmt])
    status = row["status"]
    c = row.get("confirmed") or {"stages": 0, "unconfirmed": []}
    confirmed = f"{c['stages'] - len(c['unconfirmed'])}/{c['stages']}"
t3 = time.perf_counter()
print(json.dumps({"stages": [len(p.stages) for p in plans], "depth": net.depth, "params": net.n_parameters(),
                  "build": t1 - t0, "verify": verify, "bad": bad, "prove": (t3 - t2) if prove else None,
                  "status": status, "confirmed": confirmed,
                  "paper": constants(fmt).depth_3_2[0],
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


NETWORK = r"""
import contextlib, io, json, resource, sys, types
from fpsmt.commands import construct32
from fpsmt.constructions.registry import get_construction
from fpsmt.semantics.formats import parse_format
fmt, n, d, act = parse_format(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
with open(f"{d}/targets.py", "w") as fh:
    fh.write("\n".join([
        "from fractions import Fraction",
        "def domain():",
        f"    return [k / 4 for k in range(-({n} // 2), {n} - {n} // 2)]",
        "def f_star(x):",
        "    return x",
        "def g_star(x, y):",
        "    a, k = abs(Fraction(y)), 1 + abs(Fraction(x))",
        "    if a < Fraction(1, 16):",
        "        return 0",
        "    return k * Fraction(y) if a < 4 else 2 * k * (1 if y > 0 else -1)", ""]))
args = types.SimpleNamespace(max_pieces=64, certify=False, prove_network=False, prove=True, torch=False, plot=None,
                             json=True, solver="portfolio", timeout=600.0, recheck=False, store=f"{d}/store.sqlite")
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = construct32.construct(args, fmt, get_construction(act), f"{d}/targets.py", f"{d}/net.json")
rep = json.loads(buf.getvalue())
rep["rc"] = rc
rep["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
rep.pop("pieces")
print(json.dumps(rep))
"""


def network(name, points, activations):
    """The network per activation, each in a fresh process, one table; the ratios are to the
    first activation's row, measured in the same run."""
    rows = []
    for act in activations:
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-c", NETWORK, name, str(points), d, act], capture_output=True, text=True)
        if r.returncode not in (0, 1) or not r.stdout.strip():
            print(f"network in {name} ({act}): failed: "
                  f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
            continue
        rows.append((act, json.loads(r.stdout.strip().splitlines()[-1])))
    if not rows:
        return
    base = rows[0][1]
    print("| activation | format | points | (x, y) pairs | mismatches | depth | paper | parameters | file bytes | "
          "tabulate g* s | build s | verify s | s per point | peak MB | depth, parameters, verify s "
          f"÷ {rows[0][0]}'s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for act, m in rows:
        s = m["seconds"]
        ratio = (f"{m['depth'] / base['depth']:.2f}, {m['parameters'] / base['parameters']:.2f}, "
                 f"{s['verify'] / base['seconds']['verify']:.2f}")
        print(f"| {act} | {name} | {m['points']} | {m['pairs']} | {len(m['mismatches'])} | {m['depth']} | "
              f"{m['paper_depth']} | {m['parameters']} | {m['bytes']} | {s['targets']:.1f} | {s['build']:.1f} | "
              f"{s['verify']:.1f} | {s['verify'] / m['points']:.1f} | {m['peak_mb']:.0f} | {ratio} |", flush=True)
    print()


def _cell(v, fmt="{:.1f}"):
    return "-" if v is None else fmt.format(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="e4m2,float8_e4m3,float8_e5m2,float16,bfloat16,float32")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per claim")
    ap.add_argument("--no-proof", action="store_true", help="build and verify only")
    ap.add_argument("--network", default="bfloat16", help="the format of the Theorem 3.2 network ('' skips it)")
    ap.add_argument("--points", type=int, default=16, help="domain points of the Theorem 3.2 network")
    ap.add_argument("--activation", default="relu,elu", help="the network's activations, side by side (ratios to the first)")
    ap.add_argument("--no-lemma", action="store_true", help="skip the per-format lemma table")
    args = ap.parse_args()
    if args.network:
        network(args.network, args.points, [a for a in args.activation.split(",") if a])
    if args.no_lemma:
        return
    print("| format | stages (t = 1, 1⁺) | depth | paper 2^(E+1)+2M+9 | ratio | parameters | build s | "
          "verify s (every finite y) | mismatches | lemma | proof s | confirmed | peak MB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in [f for f in args.formats.split(",") if f]:
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-c", CHILD, name, "0" if args.no_proof else "1", str(args.timeout),
                                f"{d}/store.sqlite"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"| {name} | failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode} |")
            continue
        m = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"| {name} | {'/'.join(map(str, m['stages']))} | {m['depth']} | {m['paper']} | "
              f"{m['depth'] / m['paper']:.2f} | {m['params']} | {m['build']:.1f} | {_cell(m['verify'])} | "
              f"{_cell(m['bad'], '{}')} | {m['status'] or '-'} | {_cell(m['prove'])} | {m['confirmed'] or '-'} | "
              f"{m['peak_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
