"""Executor throughput: forward + D^AD of a 1-input, depth-7, width-64 ReLU network over
all 65,536 bfloat16 inputs, against a plain NumPy float32 implementation of the same
arithmetic (same order, no bfloat16 rounding) measured in the same run.

    python benchmarks/executor.py [--repeat N]
"""

import argparse
import time

import numpy as np

from fpsmt.semantics.arith import concrete
from fpsmt.semantics.formats import parse_format
from fpsmt.semantics.network import Layer, Network, run


def make_network(fmt, rng, width=64, depth=7):
    widths = [1] + [width] * (depth - 1) + [1]
    layers = []
    for li in range(depth):
        n_in, n_out = widths[li], widths[li + 1]
        scale = 1.0 / np.sqrt(n_in)
        W = [[fmt.from_float(float(v)) for v in rng.normal(0, scale, n_in)] for _ in range(n_out)]
        b = [fmt.from_float(float(v)) for v in rng.normal(0, 0.1, n_out)]
        layers.append(Layer.dense(W, b, "identity" if li == depth - 1 else "relu"))
    return Network(fmt, layers)


def plain_float32(net, x, y):
    """The same left-to-right arithmetic in NumPy float32, vectorised over inputs and rows."""
    fmt = net.fmt
    Ws, bs = [], []
    for layer in net.layers:
        W = np.zeros((layer.n_out, layer.n_in), dtype=np.float32)
        W[layer.rows, layer.cols] = [fmt.to_float(w) for w in layer.weights]
        Ws.append(W)
        bs.append(np.array([fmt.to_float(b) for b in layer.bias], dtype=np.float32))
    h, zs = x, []
    with np.errstate(all="ignore"):
        for layer, W, b in zip(net.layers, Ws, bs):
            s = h[:, 0:1] * W[:, 0]
            for j in range(1, layer.n_in):
                s = s + h[:, j:j + 1] * W[:, j]
            z = s + b
            zs.append(z)
            h = np.where(z > 0, z, np.where(np.isnan(z), z, np.float32(0))) if layer.activation == "relu" else z
        g = y
        for layer, W, z in reversed(list(zip(net.layers, Ws, zs))):
            if layer.activation == "relu":
                g = g * np.where(z > 0, np.float32(1), np.where(np.isnan(z), z, np.float32(0)))
            s = g[:, 0:1] * W[0, :]
            for i in range(1, layer.n_out):
                s = s + g[:, i:i + 1] * W[i, :]
            g = s
    return h, g


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    fmt = parse_format("bfloat16")
    net = make_network(fmt, np.random.default_rng(7))
    A = concrete(fmt)
    xs = np.arange(1 << 16, dtype=np.uint64)[:, None]
    ys = np.full((1 << 16, 1), fmt.one_bits, dtype=np.uint64)
    x, y = A.const(xs), A.const(ys)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    t_exec = best_of(lambda: run(A, net, x, y), args.repeat)
    t_np = best_of(lambda: plain_float32(net, xf, yf), args.repeat)
    n = len(xs)
    print(f"network: 1 input, depth {net.depth}, width 64, ReLU, bfloat16; {n} inputs (every pattern); "
          f"best of {args.repeat}")
    print(f"{'implementation':<38} {'seconds':>9} {'inputs/s':>12}")
    print(f"{'fpsmt executor (' + type(A).__name__ + ', bit-exact bf16)':<38} {t_exec:>9.3f} {n / t_exec:>12,.0f}")
    print(f"{'plain NumPy float32 (same order)':<38} {t_np:>9.3f} {n / t_np:>12,.0f}")
    print(f"ratio executor / plain float32: {t_exec / t_np:.2f}x")


if __name__ == "__main__":
    main()
