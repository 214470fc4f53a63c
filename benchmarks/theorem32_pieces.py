"""Issue 19's stage 6: how the Theorem 3.2 network grows with the number of pieces of
g*(x, ·).  One domain point (x = 0), g* a staircase of n constant pieces over |y| (breakpoints
spread evenly over the positive finite y, values alternating in sign), built and verified at
every finite y, in a fresh process per n: depth, max width, parameters, file size, build and
verify seconds, peak memory; and the same per piece, to extrapolate.

    python benchmarks/theorem32_pieces.py [--format float8_e5m2] [--pieces 1,4,16,64,128]
"""

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time, tempfile, os
from fractions import Fraction
import numpy as np
from fpsmt.commands import netio
from fpsmt.constructions import theorem32 as M
from fpsmt.semantics.formats import parse_format
fmt, n = parse_format(sys.argv[1]), int(sys.argv[2])
pos = M.positive_ys(fmt)
cuts = [int(pos[0])] + [int(pos[len(pos) * i // n]) for i in range(1, n)]
vals = [Fraction((-1) ** i * (i % 7 + 1), 4) for i in range(n)]
def g(y):
    if y == 0:
        return Fraction(0)
    a = abs(y); s = 1 if y > 0 else -1
    i = max(j for j, c in enumerate(cuts) if fmt.to_fraction(c) <= a)
    return vals[i] * s
tab = np.array([fmt.round(g(fmt.to_fraction(int(b)))) for b in M.all_ys(fmt)], dtype=np.uint64)
pieces = M.find_pieces(fmt, tab[1:len(tab) // 2], limit=None)
t0 = time.perf_counter()
net = M.network(fmt, [(0, 0, pieces)])
t1 = time.perf_counter()
fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
size = netio.write_network(net, path); os.unlink(path)
t2 = time.perf_counter()
bad, pairs, _ = M.verify(fmt, net, [(0, 0)], [tab])
t3 = time.perf_counter()
print(json.dumps({"pieces": len(pieces), "depth": net.depth, "width": max(L.n_out for L in net.layers),
                  "params": net.n_parameters(), "bytes": size, "build": t1 - t0, "verify": t3 - t2,
                  "pairs": pairs, "bad": len(bad), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", default="float8_e5m2")
    ap.add_argument("--pieces", default="1,4,16,64,128")
    args = ap.parse_args()
    print(f"Theorem 3.2 network, one point, n constant pieces, {args.format}, verified at every finite y")
    print("| pieces | depth | max width | parameters | bytes | build s | verify s | mismatches | peak MB | "
          "parameters per piece | verify s per piece |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in [int(v) for v in args.pieces.split(",") if v]:
        r = subprocess.run([sys.executable, "-c", CHILD, args.format, str(n)], capture_output=True, text=True)
        if r.returncode:
            print(f"| {n} | failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode} |")
            continue
        m = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"| {m['pieces']} | {m['depth']} | {m['width']} | {m['params']} | {m['bytes']} | {m['build']:.1f} | "
              f"{m['verify']:.1f} | {m['bad']} | {m['peak_mb']:.0f} | {m['params'] / m['pieces']:.0f} | "
              f"{m['verify'] / m['pieces']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
