"""``fpsmt construct`` for d-dimensional targets (d >= 2): the ReLU network of
:mod:`fpsmt.constructions.relu_nd`, written, read back and verified in the executor at every
domain point — value and every component of D^AD(h*(x)), bit for bit: the whole network
(``--verify full``, here or on a Dask cluster) or each point's own atoms with the PROVED
d-dimensional lemma rows (``--verify atoms``) — then optionally run again under another
semantics profile, run in PyTorch and drawn (d = 2: heat maps)."""

from __future__ import annotations

import json
import time

import numpy as np

from fpsmt.commands.options import err, out, pyplot, save_figure
from fpsmt.errors import InputError

#: the executor's working set per evaluated batch (points × the widest layer)
BATCH_CELLS = 1 << 22


def check_options(construction):
    """What d-dimensional targets do not take, refused in one line before any work."""
    if construction.activation != "relu":
        raise InputError(f"d-dimensional targets are built for relu only, not {construction.activation}")


def construct(args, fmt, construction, path, out_path, sem):
    from fpsmt.commands import netio, targets
    from fpsmt.constructions import relu_nd
    from fpsmt import cluster
    from fpsmt.commands.construct_common import atom_lemmas, atoms_within_the_lemmas, list_points, under
    check_options(construction)
    points = targets.load_targets_nd(path, fmt)
    relu_nd.check_points(fmt, points)
    d = len(points[0][0])
    atom_rows = None
    if args.verify == "atoms":
        if d > relu_nd.D_MAX:
            raise InputError(f"--verify atoms: the lemma rows are stated for d <= {relu_nd.D_MAX}, the targets have "
                             f"d = {d}; use --verify full")
        with construction.active():
            kinds = relu_nd.atom_kinds(fmt, points, depth=args.depth, variant=args.variant)
        atoms_within_the_lemmas(points, kinds)
        atom_rows = atom_lemmas(args, fmt, construction, names=relu_nd.LEMMAS)
    spread = cluster.spec_of(args) if atom_rows is None else None
    with cluster.session(spread, None, err) as cl:  # a cluster is reached before anything is built
        err(f"fpsmt: building the relu network for {len(points)} points of {fmt.name}^{d} ...")
        t0 = time.perf_counter()
        with construction.active():
            net = relu_nd.theorem_network(fmt, points, depth=args.depth, variant=args.variant)
        built = time.perf_counter() - t0
        with netio.pending_network(net, out_path) as (pending, size, written):  # verified as written
            t1 = time.perf_counter()
            if atom_rows is None:
                err(f"  verifying at {len(points)} points (value and the {d} components of D^AD, bit for bit) ...")
                bad, f_got, g_got = verify(fmt, written, points, cluster=cl, progress=err)
            else:
                err(f"  verifying at {len(points)} points from each point's own atoms (value and the {d} components "
                    f"of D^AD, bit for bit; every other atom's zeros by the lemmas above) ...")
                bad, f_got, g_got = targets.verify_atoms(fmt, written, points, net, kinds)
            checked = time.perf_counter() - t1
            if bad:
                pending.discard()
    n_ga = [sum(1 for p in points if not fmt.is_zero(p[3][i])) for i in range(d)]
    summary = {"format": fmt.name, "dimension": d, "points": len(points), "gradient_atoms": n_ga,
               "value_atoms": len(points), "depth": net.depth, "least_depth": relu_nd.least_depth(fmt, args.variant),
               "variant": args.variant,
               "activation": "relu", "paper_depth": 7,
               "widths": [L.n_out for L in net.layers], "max_width": max(L.n_out for L in net.layers),
               "parameters": net.n_parameters(), "bytes": size, "out": None if bad else str(out_path),
               "verified": len(points) - len(bad), "mismatches": bad, "verify": args.verify,
               "seconds": {"build": round(built, 3), "verify": round(checked, 3)}}
    if atom_rows is not None:
        summary["lemmas"] = atom_rows
    err(f"fpsmt: {len(points)} points in {fmt.name}^{d}: gradient atoms per input {n_ga}, {len(points)} value atoms; "
        f"depth {net.depth} (the paper: L >= 7"
        + (f"; padded from the least, {summary['least_depth']}" if net.depth > summary["least_depth"] else "")
        + f"), {summary['parameters']} parameters, {size} bytes"
        + ("" if bad else f" -> {out_path}"))
    how = "" if atom_rows is None else ", each from its own atoms and the PROVED lemma rows " + \
        ", ".join(r["lemma"] for r in atom_rows)
    err(f"  verified in the executor: {summary['verified']}/{len(points)} points bit-exact (value and every component "
        f"of D^AD(h*(x)); a zero target met by either zero{how}); build {built:.2f} s, verify {checked:.2f} s")
    if atom_rows is None:
        err("  for every d the network rests on the lemma rows theorem_3_1_relu_nd, zero_gradient_atom_nd and "
            "gradient_atom_nd (fpsmt reproduce); this run verified it at every domain point")
    list_points("MISMATCH", bad)
    if bad:
        err(f"fpsmt: internal error: the network does not meet its targets at {len(bad)} point(s); "
            f"nothing written to {out_path}")
    if not sem.is_paper and not bad:
        summary["semantics"] = under(fmt, written, points, sem, lambda *a: verify(*a)[0])
    if args.plot and not bad:
        summary["plot"] = _plot(args, fmt, points, f_got, g_got, net.depth)
    if args.torch and not bad:
        summary["torch"] = _torch(fmt, written, points)
    if args.certify and not bad:
        from fpsmt.commands import certify
        summary["certificates"], summary["certified"] = certify.link_lemmas(args, fmt, construction,
                                                                            names=relu_nd.LEMMAS)
    if args.json:
        out(json.dumps(summary))
    return 1 if bad else 0


def verify(fmt, net, points, sem=None, cluster=None, progress=None):
    """``(bad, f, grad)``: the points where the value or a component of D^AD differs from
    the targets (a zero target met by either zero), the values (n,) and gradients (n, d)
    computed — the whole network in the executor under ``sem`` (default the paper's), in
    batches of points.  ``cluster`` (:class:`fpsmt.cluster.Cluster`): the network goes to
    its workers once and the points in parts, two per worker (each point's bits are its
    own, whatever the other points of a batch)."""
    from fpsmt.commands.targets import evaluate_parts, mismatches_nd
    X = np.asarray([list(p[0]) for p in points], dtype=np.uint64)
    Y = np.asarray([[p[2]] for p in points], dtype=np.uint64)
    f, g = evaluate_parts(_evaluate, net, X, Y, sem, cluster, progress)
    return mismatches_nd(fmt, points, (f, g)), f, g


def _evaluate(net, part):
    """Value (n,) and D^AD (n, d) bits of ``net`` at inputs ``X`` (n, d) with upstreams
    ``Y`` (n, 1), in batches of points (a task on a cluster's worker, or the local run)."""
    from fpsmt.semantics.arith import concrete
    from fpsmt.semantics.network import run
    X, Y, sem = part
    A = concrete(net.fmt)
    step = max(1, BATCH_CELLS // max(L.n_out for L in net.layers))
    fs, gs = [], []
    for a in range(0, len(X), step):
        t = run(A, net, A.const(X[a:a + step]), A.const(Y[a:a + step]), sem=sem)
        fs.append(np.asarray(A.to_bits(t.out)).reshape(-1))
        gs.append(np.asarray(A.to_bits(t.grad)).reshape(-1, net.n_in))
    return np.concatenate(fs), np.concatenate(gs)


def _torch(fmt, net, points):
    """The scalar-operation module (torch.autograd, d inputs) at every point: how many meet
    the value and every gradient component."""
    from fpsmt.commands import torch_export as T
    from fpsmt.commands.targets import meets
    torch = T.torch_module()
    t0 = time.perf_counter()
    X = np.asarray([list(p[0]) for p in points], dtype=np.uint64)
    Y = np.asarray([p[2] for p in points], dtype=np.uint64)
    x = T.to_tensor(fmt, X).clone().requires_grad_(True)
    outv = T.scalar_network(net)(x)
    outv.backward(T.to_tensor(fmt, Y))
    f = T.to_bits(fmt, outv).ravel().tolist()
    g = T.to_bits(fmt, x.grad).reshape(len(points), -1).tolist()
    diff = [{"x": [fmt.hex(b) for b in p[0]], "f": fmt.hex(o), "grad": [fmt.hex(b) for b in gr]}
            for p, o, gr in zip(points, f, g)
            if not (meets(fmt, o, p[1]) and all(meets(fmt, a, b) for a, b in zip(gr, p[3])))]
    rep = {"torch": str(torch.__version__), "dtype": fmt.name,
           "scalar": {"points": len(points), "bit_exact": len(points) - len(diff), "differences": diff[:20],
                      "seconds": round(time.perf_counter() - t0, 3)}}
    err(f"  torch {torch.__version__} {fmt.name}, scalar operations in the paper's order, torch.autograd on "
        f"{net.n_in} inputs: {rep['scalar']['bit_exact']}/{len(points)} points bit-exact")
    return rep


def _plot(args, fmt, points, f_got, g_got, depth):
    """d = 2: heat maps over the domain's points of the network's value and of each
    component of D^AD, beside the targets (d > 2: not drawn, said so)."""
    d = len(points[0][0])
    if d != 2:
        err(f"  --plot draws d = 2 (heat maps); not drawn for d = {d}")
        return None
    plt = pyplot()
    num = lambda b: float(fmt.to_fraction(int(b))) if fmt.is_finite(int(b)) else float("nan")  # noqa: E731
    x1 = [num(p[0][0]) for p in points]
    x2 = [num(p[0][1]) for p in points]
    panels = [("value f*", [num(p[1]) for p in points]), ("network f", [num(v) for v in f_got])]
    for i in range(2):
        panels += [(f"target g*{i + 1}", [num(p[3][i]) for p in points]),
                   (f"D^AD component {i + 1}", [num(v) for v in g_got[:, i]])]
    fig, axes = plt.subplots(3, 2, figsize=(9, 11), squeeze=False)
    for ax, (title, c) in zip(axes.ravel(), panels):
        sc = ax.scatter(x1, x2, c=c, s=18, marker="s", cmap="viridis")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
        fig.colorbar(sc, ax=ax)
    fig.suptitle(f"fpsmt construct: {len(points)} points of {fmt.name}^2, relu network of depth {depth}, "
                 "every point bit-exact", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, args.plot)
