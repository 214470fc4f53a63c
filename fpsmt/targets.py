"""Targets of Theorem 3.1 on a finite 1-D domain, and building and verifying its network.

Two sources:

* a CSV table with the header ``x,f,h,g``: hex bit patterns of the input, the target
  value f*(x), the upstream gradient h*(x) and the target gradient g*(x);
* a Python file defining ``domain()`` (a list of floats or hex strings) and
  ``f_star(x)``, ``h_star(x)``, ``g_star(x)``, called with the point as a Python float
  (exact: every float of the formats fpsmt knows is a float64).  Their results (ints,
  floats, Fractions) are rounded to the format once, to nearest, ties to even, from
  their exact value; a result that rounds to ±inf, or NaN, is rejected.

Checks (one line naming the offending x, exit 2): every value finite, x in X, no
duplicate x (+0 and −0 are one point), h* = 0 ⇒ g* = 0 (|h*| <= Ω holds for every
finite h*).  Verification compares f(x) and D^AD(h*(x)) bit for bit with the targets; a
zero target is met by either zero (proofs/boxplus_neutrality.py: no ReLU network of this
form can give −0 at one point and a positive value at another).
"""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from .errors import InputError
from .formats import Format


def load_targets(path, fmt: Format):
    """[(x, f*, h*, g*)] as bit patterns, from a CSV table or a Python file."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"targets file {path} does not exist")
    return _from_python(p, fmt) if p.suffix == ".py" else _from_csv(p, fmt)


def _from_csv(p, fmt):
    with open(p, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or [c.strip() for c in rows[0]] != ["x", "f", "h", "g"]:
        raise InputError(f"{p}: the first line must be the header x,f,h,g")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 4:
            raise InputError(f"{p}:{n}: expected 4 hex patterns (x,f,h,g), got {len(row)} fields")
        try:
            out.append(tuple(fmt.parse_hex(c.strip()) for c in row))
        except InputError as e:
            raise InputError(f"{p}:{n}: {e}") from None
    return out


def _round(fmt, v, what, x):
    if isinstance(v, str):
        return fmt.parse_hex(v)
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        raise InputError(f"at x = {x!r}: {what} = {v} is not finite")
    try:
        q = Fraction(v)
    except (TypeError, ValueError):
        raise InputError(f"at x = {x!r}: {what} returned {type(v).__name__}, not a number") from None
    b = fmt.round(q, negative_zero=isinstance(v, float) and math.copysign(1.0, v) < 0)
    if not fmt.is_finite(b):
        raise InputError(f"at x = {x!r}: {what} = {v} rounds to {fmt.show(b)} in {fmt.name}: not finite")
    return b


def _from_python(p, fmt):
    from .userfiles import import_file
    mod = import_file(p, "targets")
    for name in ("domain", "f_star", "h_star", "g_star"):
        if not callable(getattr(mod, name, None)):
            raise InputError(f"{p} does not define {name}()")
    out = []
    for x in mod.domain():
        xb = _round(fmt, x, "domain()", x)
        xf = float(fmt.to_fraction(xb)) if not fmt.is_zero(xb) else (-0.0 if xb == fmt.sign_bit else 0.0)
        out.append((xb,) + tuple(_round(fmt, getattr(mod, n)(xf), f"{n}(x)", x) for n in ("f_star", "h_star",
                                                                                          "g_star")))
    return out


def verify(fmt, net, points):
    """Run the network at every domain point with upstream h*(x): the points where the
    value or D^AD differs from the targets (a zero target met by either zero).  Block
    aware (:func:`blockwise`): each ⊞ part runs alone on all points."""
    from .arith import concrete
    A = concrete(fmt)
    xs = np.asarray([p[0] for p in points], dtype=np.uint64)
    ys = np.asarray([p[2] for p in points], dtype=np.uint64)
    out, grad = blockwise(A, net, A.const(xs), A.const(ys))
    bad = []
    for p, o, d in zip(points, np.ravel(A.to_bits(out)), np.ravel(A.to_bits(grad))):
        if not (_meets(fmt, int(o), p[1]) and _meets(fmt, int(d), p[3])):
            bad.append({"x": fmt.hex(p[0]), "f": fmt.hex(int(o)), "f_target": fmt.hex(p[1]),
                        "grad": fmt.hex(int(d)), "g_target": fmt.hex(p[3])})
    return bad


def _blocks(net):
    """The hidden neurons of each block of a network whose hidden layers are block diagonal
    on one shared input: [[indices in hidden layer k] for k …] per block, or None."""
    L = net.layers
    parent = {}

    def find(a):
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for k in range(len(L) - 1):
        for i in range(L[k].n_out):
            find((k, i))
    for k in range(1, len(L) - 1):
        for r, c in zip(L[k].rows.tolist(), L[k].cols.tolist()):
            parent[find((k, r))] = find((k - 1, c))
    groups = {}
    for node in list(parent):
        groups.setdefault(find(node), []).append(node)
    blocks = []
    for nodes in groups.values():
        per = [sorted(i for k2, i in nodes if k2 == k) for k in range(len(L) - 1)]
        if any(not p for p in per):
            return None
        blocks.append(per)
    return sorted(blocks, key=lambda b: b[0][0])


def blockwise(A, net, x, y):
    """Value and D^AD of a one-input, one-output network at inputs ``x`` (shape (n,)) with
    upstream ``y`` — the same bits as :func:`fpsmt.network.run` (the test suite compares
    them), computed per block: each block runs alone on every point, its output terms
    w ⊗ a and its layer-1 row terms are then summed left to right across blocks in the
    network's order, with the absent entries' zero term and the bias as the IR does.
    Cost: the blocks' sizes times the points, not the whole width squared."""
    from .network import Layer, Network, run
    L = net.layers
    blocks = _blocks(net) if net.n_in == 1 and net.n_out == 1 and len(L) >= 2 else None
    if blocks is None:
        return _whole(A, net, x, y)
    out_l = L[-1]
    terms_v, terms_g, absent_v = [], [], []
    for per in blocks:
        layers = []
        for k in range(len(L) - 1):
            Lk = L[k]
            rows = {r: n for n, r in enumerate(per[k])}
            cols = {c: n for n, c in enumerate(per[k - 1])} if k else {0: 0}
            keep = [e for e in range(len(Lk.weights)) if int(Lk.rows[e]) in rows]
            layers.append(Layer(len(rows), len(cols), [rows[int(Lk.rows[e])] for e in keep],
                                [cols[int(Lk.cols[e])] for e in keep], [Lk.weights[e] for e in keep],
                                [Lk.bias[r] for r in per[k]], Lk.activation))
        last = {c: n for n, c in enumerate(per[-1])}
        mine = [e for e in range(len(out_l.weights)) if int(out_l.cols[e]) in last]
        if not mine:  # a block that does not reach the output: evaluate the whole network
            return _whole(A, net, x, y)
        layers.append(Layer(len(mine), len(last), list(range(len(mine))), [last[int(out_l.cols[e])] for e in mine],
                            [out_l.weights[e] for e in mine], [A.fmt.sign_bit] * len(mine), "identity"))
        t = run(A, Network(A.fmt, layers), x[:, None], np.repeat(y[:, None], len(mine), axis=1))
        for n, e in enumerate(mine):
            terms_v.append((int(out_l.cols[e]), t.out[:, n]))
        used = {int(out_l.cols[e]) for e in mine}
        absent_v += [t.post[-2][:, last[c]] for c in per[-1] if c not in used]
        L0 = layers[0]
        g_pre = A.mul(t.upstream[0], L0.act.derivative(A, t.pre[0]))
        W0 = {int(r): w for r, w in zip(L0.rows.tolist(), L0.weights)}
        for n, r in enumerate(per[0]):
            if n in W0:
                terms_g.append((r, A.mul(g_pre[:, n], A.const(np.asarray(W0[n], dtype=np.uint64)))))
            else:
                return _whole(A, net, x, y)
    out = _sum(A, [v for _, v in sorted(terms_v, key=lambda t: t[0])], absent_v)
    out = A.add(out, A.const(np.asarray(out_l.bias[0], dtype=np.uint64)))
    grad = _sum(A, [g for _, g in sorted(terms_g, key=lambda t: t[0])], [])
    return out, grad


def _whole(A, net, x, y):
    from .network import run
    t = run(A, net, x[:, None], y[:, None])
    return t.out[:, 0], t.grad[:, 0]


def _sum(A, terms, absent):
    """Left to right from the first term; then the absent entries' term (+0 ⊗ a for each
    absent column a: NaN if some a is not finite, −0 if every a is negative-signed, else +0)."""
    S = terms[0]
    for t in terms[1:]:
        S = A.add(S, t)
    if absent:
        V = np.stack(absent, axis=-1)
        nf = ~np.asarray(A.is_finite(V))
        neg = np.asarray(A.signbit(V))
        Z = np.where(nf.any(-1), A.fmt.nan_bits, np.where(neg.all(-1), A.fmt.sign_bit, 0))
        S = A.add(S, A.const(Z.astype(np.uint64)))
    return S


def _meets(fmt, got, want):
    if fmt.is_zero(want):
        return fmt.is_zero(got)
    return got == want
