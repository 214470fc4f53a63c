"""Build and verify the Theorem 3.1 network (``fpsmt construct``) for growing domains.

For each size: N floats of the format in [−3, 3], evenly spaced in their order (so denser
near 0: bfloat16 has only 64 floats in [2, 3]), f* = sin x, h* = 1, g* = −cos x (the
misleading gradient), all rounded to the format.  Each size runs in a fresh process so
that its peak memory (max RSS) is its own.  Prints build and verification seconds, peak
memory, file size and how each grows against the previous size.

    python benchmarks/construct.py [--sizes 100,1000,5000] [--format bfloat16]
"""

import argparse
import json
import subprocess
import sys
import tempfile

CHILD = r"""
import json, math, resource, sys, time
from fractions import Fraction
from fpsmt import construct, netio, targets
from fpsmt.formats import parse_format
fmt, n, out = parse_format(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
three = fmt.round(Fraction(3))
grid = [fmt.sign_bit | b for b in range(three, 0, -1)] + list(range(0, three + 1))  # [-3, 3] in order
pick = sorted({round(i * (len(grid) - 1) / max(n - 1, 1)) for i in range(n)})
r = lambda v: fmt.round(Fraction(v))
points = []
for i in pick:
    xf = float(fmt.to_fraction(grid[i]))
    points.append((grid[i], r(math.sin(xf)), r(1.0), r(-math.cos(xf))))
t0 = time.perf_counter()
net = construct.theorem_network(fmt, points)
size = netio.save_network(net, out)
t1 = time.perf_counter()
bad, _, _ = targets.verify(fmt, netio.load_network(out), points)
t2 = time.perf_counter()
print(json.dumps({"points": len(points), "build": t1 - t0, "verify": t2 - t1, "bytes": size, "depth": net.depth,
                  "params": net.n_parameters(), "bad": len(bad),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000,5000")
    ap.add_argument("--format", default="bfloat16")
    args = ap.parse_args()
    print(f"fpsmt construct in {args.format}: f* = sin x, h* = 1, g* = -cos x on N floats of [-3, 3]")
    print(f"{'N':>6} {'build s':>8} {'verify s':>9} {'peak MB':>8} {'file MB':>8} {'depth':>6} {'params':>9} "
          f"{'bad':>4}  growth vs previous (N, time, memory, file)")
    prev = None
    for n in (int(v) for v in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-c", CHILD, args.format, str(n), f"{d}/net.json"],
                               capture_output=True, text=True)
        if r.returncode:
            print(f"{n:>6} failed: {r.stderr.strip().splitlines()[-1] if r.stderr else r.returncode}")
            continue
        m = json.loads(r.stdout)
        t = m["build"] + m["verify"]
        grow = ""
        if prev:
            grow = (f"x{m['points'] / prev['points']:.1f}, x{t / (prev['build'] + prev['verify']):.1f}, "
                    f"x{m['peak_mb'] / prev['peak_mb']:.1f}, x{m['bytes'] / prev['bytes']:.1f}")
        print(f"{m['points']:>6} {m['build']:>8.2f} {m['verify']:>9.2f} {m['peak_mb']:>8.0f} {m['bytes'] / 2**20:>8.1f} "
              f"{m['depth']:>6} {m['params']:>9} {m['bad']:>4}  {grow}", flush=True)
        prev = m


if __name__ == "__main__":
    main()
