"""Build and verify the Theorem 3.1 network (``fpsmt construct``) for growing domains.

For each size: N floats of the format in [−3, 3], evenly spaced in their order (so denser
near 0: bfloat16 has only 64 floats in [2, 3]), f* = sin x, h* = 1, g* = −cos x (the
misleading gradient), all rounded to the format.  Each size runs in a fresh process so
that its peak memory (max RSS) is its own.  Prints build and verification seconds, peak
memory, file size and how each grows against the previous size.

    python benchmarks/construct.py [--sizes 100,1000,5000] [--format bfloat16] [--activation relu,tanh]
    python benchmarks/construct.py --verify atoms [--sizes 100,1000,10000,all] [--compare-max 5000] [--dimension D]
    python benchmarks/construct.py --depths

``--verify atoms``: ReLU on N floats of X (``all``: every one; bfloat16's X has 64,513),
each point verified from its own atoms (``construct --verify atoms``); the full evaluation
beside it up to ``--compare-max`` points, with how many points agree bit for bit; the
fitted exponent of time and memory against N.  ``--dimension 2`` (or more): the
d-dimensional network on a grid of about N points of X^d.

With several activations, each size is built for each of them, side by side, with the
ratio of its build + verify time to the first activation's.

Under each size: the network's JSON and safetensors files side by side (size, write and
read time, the ratios, and whether the safetensors file reads back as the same network).

Last, the budget line: 24 points in float32, build and verify.
"""

import argparse
import json
import subprocess
import sys
import tempfile

CHILD = r"""
import json, math, resource, sys, time
from fractions import Fraction
from fpsmt.constructions.registry import get_construction
from fpsmt.commands import netio as netio
from fpsmt.commands import targets as targets
from fpsmt.semantics.formats import parse_format
fmt, n, out = parse_format(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
construction = get_construction(sys.argv[4])
three = fmt.round(Fraction(3))
size = 2 * three + 1  # the floats of [-3, 3] in order: -3 ... -min, +0, min ... 3 (index i)
at = lambda i: fmt.sign_bit | (three - i) if i < three else i - three
pick = sorted({round(i * (size - 1) / max(n - 1, 1)) for i in range(n)})
r = lambda v: fmt.round(Fraction(v))
points = []
for i in pick:
    xf = float(fmt.to_fraction(at(i)))
    points.append((at(i), r(math.sin(xf)), r(1.0), r(-math.cos(xf))))
t0 = time.perf_counter()
construction.check_points(fmt, points)
net = construction.network(fmt, points)
size = netio.save_network(net, out)
t1 = time.perf_counter()
bad, _, _ = targets.verify(fmt, netio.load_network(out), points)
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the file comparison below
files = {}
for kind, path in (("json", out), ("safetensors", out[:-len(".json")] + ".safetensors")):
    s0 = time.perf_counter()
    nbytes = netio.save_network(net, path)
    s1 = time.perf_counter()
    back = netio.load_network(path)
    files[kind] = {"bytes": nbytes, "write": s1 - s0, "read": time.perf_counter() - s1}
same = all(sorted(zip(a.rows.tolist(), a.cols.tolist(), a.weights)) == sorted(zip(b.rows.tolist(), b.cols.tolist(), b.weights))
           and list(a.bias) == list(b.bias) for a, b in zip(net.layers, back.layers))
print(json.dumps({"points": len(points), "build": t1 - t0, "verify": t2 - t1, "bytes": size, "depth": net.depth,
                  "files": files, "same": same,
                  "params": net.n_parameters(), "bad": len(bad),
                  "peak_mb": peak}))
"""

ATOMS_CHILD = r"""
import itertools, json, math, resource, sys, time
from fractions import Fraction
import numpy as np
from fpsmt.constructions import relu, relu_nd
from fpsmt.commands import construct_nd, netio, targets
from fpsmt.semantics.formats import parse_format
fmt, n, out, full, d = parse_format(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "full", int(sys.argv[5])
top = fmt.round(Fraction(2) ** (fmt.e_max - 2))  # X = [-2^(e_max-2), 2^(e_max-2)], its floats in order
allx = [fmt.sign_bit | b for b in range(top, 0, -1)] + list(range(0, top + 1))
side = len(allx) if n == "all" else round(int(n) ** (1 / d))  # d >= 2: a grid of side^d points
pick = sorted({round(i * (len(allx) - 1) / max(side - 1, 1)) for i in range(side)})
r = lambda v: fmt.round(Fraction(v))
num = lambda b: float(fmt.to_fraction(b))
points = []
if d == 1:
    for i in pick:
        xf = num(allx[i])
        points.append((allx[i], r(math.sin(xf)), r(1.0), r(-math.cos(xf))))
else:  # f* = sin(x1 + ... + xd), h* = 1, g*_j = -cos x_j
    for zs in itertools.product([allx[i] for i in pick], repeat=d):
        points.append((zs, r(math.sin(sum(num(b) for b in zs))), r(1.0), tuple(r(-math.cos(num(b))) for b in zs)))
t0 = time.perf_counter()
if d == 1:
    relu.CONSTRUCTIONS[0].check_points(fmt, points)
    net, kinds = relu.theorem_network(fmt, points), relu.atom_kinds(fmt, points)
else:
    relu_nd.check_points(fmt, points)
    net, kinds = relu_nd.theorem_network(fmt, points), relu_nd.atom_kinds(fmt, points)
t1 = time.perf_counter()
size = netio.save_network(net, out)
written = netio.load_network(out)
t2 = time.perf_counter()
bad, f, g = targets.verify_atoms(fmt, written, points, net, kinds)
t3 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
doc = {"points": len(points), "build": t1 - t0, "io": t2 - t1, "verify": t3 - t2, "bytes": size, "bad": len(bad),
       "peak_mb": peak}
if full:
    t4 = time.perf_counter()
    bad_full, f_full, g_full = (targets.verify if d == 1 else construct_nd.verify)(fmt, written, points)
    doc["full"] = time.perf_counter() - t4
    g, g_full = np.reshape(g, (len(points), -1)), np.reshape(g_full, (len(points), -1))
    same = (f == f_full) & (g == g_full).all(axis=1)
    zero = lambda u, v: fmt.is_zero(int(u)) and fmt.is_zero(int(v))
    close = [(a == b or zero(a, b)) and all(u == v or zero(u, v) for u, v in zip(ga, gb))
             for a, b, ga, gb in zip(f, f_full, g, g_full)]
    doc["agree"] = {"bits": int(same.sum()), "up_to_zero_sign": int(sum(close)), "full_bad": len(bad_full)}
print(json.dumps(doc))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default=None, help="comma-separated N (default 100,1000,5000; with --verify atoms "
                                                   "100,1000,10000,all: 'all' is every float of X)")
    ap.add_argument("--format", default="bfloat16")
    ap.add_argument("--activation", default="relu", help="activations with a construction, comma-separated")
    ap.add_argument("--verify", choices=["full", "atoms"], default="full",
                    help="atoms: ReLU on N floats of X, verified from each point's own atoms (construct --verify "
                         "atoms; the lemma rows are not looked up here), a safetensors file; the full evaluation "
                         "beside it up to --compare-max points, and the fitted exponents")
    ap.add_argument("--compare-max", type=int, default=5000,
                    help="with --verify atoms: also run the full evaluation for N up to this, and compare")
    ap.add_argument("--dimension", type=int, default=1,
                    help="with --verify atoms: d >= 2 builds the d-dimensional network on a grid of about N points "
                         "of X^d (side round(N^(1/d))): f* = sin(x1 + ... + xd), h* = 1, g*_j = -cos x_j")
    ap.add_argument("--depths", action="store_true",
                    help="the depth table: per activation x format the Theorem 3.1 network's depth, widest layer and "
                         "parameter count (3 points) beside the paper's depth, with its layer budget")
    args = ap.parse_args()
    if args.depths:
        return depths()
    if args.verify == "atoms":
        return atoms(args)
    args.sizes = args.sizes or "100,1000,5000"
    acts = [a for a in args.activation.split(",") if a]
    print(f"fpsmt construct in {args.format}: f* = sin x, h* = 1, g* = -cos x on N floats of [-3, 3]")
    print(f"{'activation':>10} {'N':>6} {'build s':>8} {'verify s':>9} {'peak MB':>8} {'file MB':>8} {'depth':>6} "
          f"{'params':>9} {'bad':>4}  growth vs previous N (N, time, memory, file); time vs {acts[0]}")
    prev = {}
    for n in (int(v) for v in args.sizes.split(",")):
        first = None
        for act in acts:
            m = _child(args.format, n, act)
            if m is None:
                continue
            t = m["build"] + m["verify"]
            grow = ""
            p = prev.get(act)
            if p:
                grow = (f"x{m['points'] / p['points']:.1f}, x{t / (p['build'] + p['verify']):.1f}, "
                        f"x{m['peak_mb'] / p['peak_mb']:.1f}, x{m['bytes'] / p['bytes']:.1f}")
            first = first or t
            ratio = f"; x{t / first:.2f}" if act != acts[0] else ""
            print(f"{act:>10} {m['points']:>6} {m['build']:>8.2f} {m['verify']:>9.2f} {m['peak_mb']:>8.0f} "
                  f"{m['bytes'] / 2**20:>8.1f} {m['depth']:>6} {m['params']:>9} {m['bad']:>4}  {grow}{ratio}", flush=True)
            prev[act] = m
            js, st = m["files"]["json"], m["files"]["safetensors"]
            print(f"{'':>10} {'':>6} files: JSON {js['bytes'] / 2**20:.2f} MB (write {js['write']:.2f} s, read "
                  f"{js['read']:.2f} s), safetensors {st['bytes'] / 2**20:.2f} MB (write {st['write']:.2f} s, read "
                  f"{st['read']:.2f} s): JSON/safetensors size x{js['bytes'] / st['bytes']:.2f}, read time "
                  f"x{js['read'] / st['read']:.1f}; same network read back: {m['same']}", flush=True)
    m = _child("float32", 24, "relu")
    if m:
        print(f"float32, {m['points']} points: build {m['build']:.2f} s + verify {m['verify']:.2f} s = "
              f"{m['build'] + m['verify']:.2f} s (goal: well under a minute), {m['bad']} mismatches")


def atoms(args):
    import math
    d = args.dimension
    if d < 1 or (d > 1 and "all" in (args.sizes or "")):
        sys.exit("benchmarks/construct.py: --dimension is at least 1, and 'all' is for d = 1")
    sizes = (args.sizes or ("100,1000,10000,all" if d == 1 else "100,1024,10000,65536")).split(",")
    what = "f* = sin x, h* = 1, g* = -cos x on N floats of X, spread evenly in their order" if d == 1 else \
        (f"f* = sin({' + '.join(f'x{j}' for j in range(1, d + 1)) if d <= 3 else f'x1 + ... + x{d}'}), h* = 1, g*_j = -cos x_j on a grid of N points of X^{d}, each side spread "
         "evenly over X's floats in their order")
    print(f"fpsmt construct --verify atoms in {args.format} (relu): {what}; a safetensors file written and read "
          f"back; each size in a fresh process")
    print(f"{'N':>7} {'build s':>8} {'file s':>7} {'verify s':>9} {'peak MB':>8} {'file MB':>8} {'bad':>4}  "
          f"{'full verify s':>13}  agreement with the full evaluation")
    rows = []
    for n in sizes:
        full = n != "all" and int(n) <= args.compare_max
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, "-c", ATOMS_CHILD, args.format, n, f"{tmp}/net.safetensors",
                                "full" if full else "atoms", str(d)], capture_output=True, text=True)
        if r.returncode:
            print(f"{n:>7} failed: {r.stderr.strip().splitlines()[-1] if r.stderr else r.returncode}")
            continue
        m = json.loads(r.stdout)
        rows.append(m)
        agree = (f"{m['full']:>13.2f}  bit-identical at {m['agree']['bits']}/{m['points']}, equal up to the sign of "
                 f"a zero at {m['agree']['up_to_zero_sign']}/{m['points']}; full: {m['agree']['full_bad']} bad"
                 if "full" in m else f"{'-':>13}")
        print(f"{m['points']:>7} {m['build']:>8.2f} {m['io']:>7.2f} {m['verify']:>9.2f} {m['peak_mb']:>8.0f} "
              f"{m['bytes'] / 2**20:>8.1f} {m['bad']:>4}  {agree}", flush=True)
    big = [m for m in rows if m["points"] >= 1000]
    if len(big) >= 2:
        def slope(key):
            xs = [math.log(m["points"]) for m in big]
            ys = [math.log(max(key(m), 1e-9)) for m in big]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            return sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / sum((a - mx) ** 2 for a in xs)
        print(f"fitted exponents over N >= 1000 (time or memory ~ N^b): build b = {slope(lambda m: m['build']):.2f}, "
              f"verify b = {slope(lambda m: m['verify']):.2f}, build + file + verify b = "
              f"{slope(lambda m: m['build'] + m['io'] + m['verify']):.2f}, peak memory b = "
              f"{slope(lambda m: m['peak_mb']):.2f}")
        last = rows[-1]
        total = last["build"] + last["io"] + last["verify"]
        print(f"N = {last['points']}: {total:.1f} s (build, file, verify) and {last['peak_mb'] / 1024:.2f} GB peak"
              + (" (goal for the whole bfloat16 domain: under 10 minutes and 8 GB on 2 cores)" if d == 1 else ""))


DEPTH_FORMATS = ("float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "float64")
DEPTH_ACTIVATIONS = ("relu", "elu", "gelu", "swish", "tanh", "sigmoid")


def budget(construction, fmt, variant="repaired"):
    """The least depth's layer budget: (indicator layers, transfer-chain layers, the rest),
    from the family's own depth formulas (the rest: the gate, killers, output).  ``variant``:
    the shallow gradient atom (relu's chain: the compact transfer, backwards up, a', b — or
    down and two ups in float64 —, |g| and the sign in the gate's row, and relu's
    indicator the step blocks' first four layers; the saturating family's: the compact
    transfer with ±|g| one weight and the top of weight 1; the logistic family's: the
    transfer with weights up to 2^(e_max − 2))."""
    from fpsmt.constructions import relu
    b = construction.blocks
    if construction.family == "relu":
        ind = relu.SHALLOW_STEP_LAYERS if variant == "shallow" else len(relu._step_layers(fmt, "ge", 1, 0))
        chain = relu.chain_length(fmt, variant)
        least = relu.least_depth(fmt, variant)
    else:
        kw = {} if variant == "repaired" else {"variant": variant}
        with construction.active():
            ind = b.block_constants(fmt).step_depth
            chain = (b.chain_length(fmt, variant) if getattr(b, "chain_length", None) is not None
                     else relu.transfer_length(fmt))
            least = max(b.gradient_depth(fmt, **kw), b.block_constants(fmt).value_depth)
    return ind, chain, least - ind - chain


def depths():
    """The depth table (README, § The paper's depth)."""
    from fractions import Fraction
    import math
    from fpsmt.constructions import relu
    from fpsmt.constructions.registry import get_construction
    from fpsmt.errors import InputError
    from fpsmt.semantics.formats import parse_format
    print("Theorem 3.1 networks at their least depth: 3 points x in {-1, 0, 1} (1-D), f* = sin x, h* = 1, "
          "g* = -cos x; the paper's depth beside them; budget = indicator + transfer chain + the rest (gate, "
          "killers, output)")
    print(f"{'activation':>16} {'format':>12} {'depth':>6} {'paper':>6} {'widest':>7} {'params':>7}  budget")
    rows = []
    for a in DEPTH_ACTIVATIONS:
        rows.append((a, "repaired"))
        if "shallow" in getattr(get_construction(a).blocks, "ATOM_VARIANTS", ()):
            rows.append((a, "shallow"))
    for act, variant in rows:
        cons = get_construction(act)
        label = act if variant == "repaired" else f"{act} ({variant})"
        for name in DEPTH_FORMATS:
            fmt = parse_format(name)
            r = lambda v: fmt.round(Fraction(v))  # noqa: E731
            pts = [(r(x), r(math.sin(x)), r(1), r(-math.cos(x))) for x in (-1.0, 0.0, 1.0)]
            try:
                cons.check_points(fmt, pts)
                net = cons.network(fmt, pts, variant=variant)
                ind, chain, rest = budget(cons, fmt, variant)
            except (InputError, ValueError) as e:
                print(f"{label:>16} {name:>12}  no network: {str(e).splitlines()[0]}")
                continue
            if act in ("relu", "tanh") and variant == "shallow":  # the compact transfer
                how = ("h to +-1 in " + ("3 (down, 2 ups)" if relu.transfer_route(fmt) == "subnormal"
                                          else "3 (up, a', b)")
                       + (", then |g| and the sign" if act == "relu" else ", then +-|g|, the top"))
            else:
                cap = getattr(cons.blocks, "shallow_cap", relu.shallow_cap)  # the logistic family's is e_max − 2
                q = cap(fmt) if variant == "shallow" else relu.step_cap(fmt)
                U_h, U_g = relu.transfer_slots(fmt, q)
                how = f"chain weights <= 2^{q}: {U_h} normalise h, {U_g} reach g"
            print(f"{label:>16} {name:>12} {net.depth:>6} {cons.paper_depth!s:>6} {max(L.n_out for L in net.layers):>7} "
                  f"{net.n_parameters():>7}  {ind} + {chain} + {rest}  ({how})", flush=True)


def _child(fmt, n, activation="relu"):
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.executable, "-c", CHILD, fmt, str(n), f"{d}/net.json", activation],
                           capture_output=True, text=True)
    if r.returncode:
        print(f"{n:>6} failed: {r.stderr.strip().splitlines()[-1] if r.stderr else r.returncode}")
        return None
    return json.loads(r.stdout)


if __name__ == "__main__":
    main()
