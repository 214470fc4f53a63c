"""``fpsmt construct`` for Theorem 3.2 targets (a ``g_star(x, y)`` of two parameters): the
network with f(x) = f*(x) and D^AD(y) = g*(x, y) at every x of the domain and every finite
y (:mod:`fpsmt.constructions.theorem32`), saved, and verified bit for bit at every (x, y)."""

from __future__ import annotations

import json
import time

from fpsmt.commands.options import err, out, pyplot, save_figure, ticker
from fpsmt.errors import InputError


def _gated_module(construction):
    """The module of a family's gated network (ReLU's is :mod:`theorem32`'s own)."""
    from fpsmt.constructions import gated_logi, gated_rect, gated_sat
    return {"saturating": gated_sat, "logistic": gated_logi}.get(construction.family, gated_rect)


def programs_of(fmt, construction, pcs):
    """One point's programs: the pieces' (ReLU's arithmetic, :func:`theorem32.piece_programs`),
    or for the logistic family the point's quarter program (:func:`gated_logi.point_program`)."""
    from fpsmt.constructions import gated_logi
    from fpsmt.constructions import theorem32 as M
    if construction.family == "logistic":
        with construction.active():
            return gated_logi.point_program(fmt, pcs)
    return M.piece_programs(fmt, pcs)


def _pieces(fmt, points, tables, max_pieces, construction):
    """Per point its pieces and their programs: more than ``max_pieces``, or a piece the
    construction cannot build, is refused here with one line, before any output."""
    from fpsmt.constructions import theorem32 as M
    half = len(tables[0]) // 2
    found, programs = [], []
    for (x, _), tab in zip(points, tables):
        pcs = M.find_pieces(fmt, tab[1:half], limit=max_pieces)
        if len(pcs) > max_pieces:
            n = M.count_pieces(fmt, tab[1:half])
            raise InputError(f"at x = {fmt.show(x)}: g*(x, ·) has {n} pieces over |y| (constant c·sign(y) or linear "
                             f"y ⊗ k); the construction builds at most {max_pieces} (--max-pieces)")
        programs.append(programs_of(fmt, construction, pcs))
        found.append(pcs)
    return found, programs


def _network(fmt, construction, points, programs, progress):
    """The Theorem 3.2 network: ReLU's (:func:`theorem32.network`), for an activation of
    the rectifying family :func:`gated_rect.theorem_network` (gap mode for ELU's kind,
    offset mode for GELU and Swish), for one of the saturating family (tanh)
    :func:`gated_sat.theorem_network`, for one of the logistic family (sigmoid)
    :func:`gated_logi.theorem_network`."""
    from fpsmt.constructions import theorem32 as M
    if construction.activation == "relu":
        return M.network(fmt, points, progress=progress, programs=programs)
    with construction.active():
        return _gated_module(construction).theorem_network(fmt, points, programs, progress=progress)


def y_bound(fmt, construction):
    """The largest |y| the network is built and verified for: H_σ for the saturating and
    logistic families (their gates send G ⊗ y into p or np), None (every finite y) for ReLU
    and the rectifying family."""
    if construction.family not in ("saturating", "logistic"):
        return None
    return construction.constants(fmt).H_sigma


def _ys_text(fmt, bound):
    return "every finite y of both signs" if bound is None else \
        f"every finite y with |y| <= H = {fmt.show(fmt.round(bound))}, both signs"


def check_options(args, fmt, construction):
    """What the Theorem 3.2 path does not offer yet, refused before any work (``--torch``'s
    format and PyTorch itself are checked by cmd_construct, as for Theorem 3.1)."""
    if construction.activation != "relu":
        if construction.family not in ("rectifying", "saturating", "logistic"):
            raise InputError(f"Theorem 3.2 networks (a g_star(x, y) of two parameters) are built for relu, the "
                             f"rectifying family (ELU, GELU, Swish), the saturating family (tanh) and the logistic "
                             f"family (sigmoid) only so far, not {construction.activation}")
    if args.max_pieces < 1:
        raise InputError(f"--max-pieces must be at least 1, got {args.max_pieces}")
    for flag, on in (("--prove-network", args.prove_network), ("--certify", args.certify)):
        if on and not args.prove:
            raise InputError(f"{flag} decides each point's claims (--prove); it cannot be combined with --no-prove")


def _check_gated(args, fmt, construction):
    """The family's gated network exists in ``fmt`` (the rectifying family's blocks, and in
    gap mode σ's identity on (0, I); the saturating family's blocks and its gate's G·H) and
    the activation's requirements are PROVED there: one line before any work where not."""
    from fpsmt.commands.options import check_requirements
    with construction.active():
        _gated_module(construction).check_format(fmt)
    check_requirements(args, fmt, construction)


def construct(args, fmt, construction, path, out_path):
    from fpsmt.commands import netio, targets
    from fpsmt.commands.options import check_store
    from fpsmt.constructions import theorem32 as M
    check_options(args, fmt, construction)
    if targets.given_pieces(path):
        return construct_pieces(args, fmt, construction, path, out_path)
    if construction.activation != "relu":
        _check_gated(args, fmt, construction)
    if args.certify or args.prove_network:
        check_store(args.store)
    t0 = time.perf_counter()
    points, tables = targets.load_targets32(path, fmt, progress=ticker("g*(x, y) at every finite y, points"),
                                            constants=construction.constants(fmt))
    bound = y_bound(fmt, construction)
    pieces, programs = _pieces(fmt, points, tables, args.max_pieces, construction)
    tabulated = time.perf_counter() - t0
    n_pieces = [sum(1 for p in pcs if p.c != 0) for pcs in pieces]
    err(f"fpsmt: Theorem 3.2 network for {len(points)} points in {fmt.name}: g* tabulated at {len(tables[0])} finite y "
        f"per point ({tabulated:.1f} s); nonzero pieces per point: {_summary(n_pieces)}")
    t1 = time.perf_counter()
    net = _network(fmt, construction, [(x, v, pcs) for (x, v), pcs in zip(points, pieces)], programs,
                   ticker("building, points"))
    built = time.perf_counter() - t1
    with netio.pending_network(net, out_path) as (pending, size, written):  # verified as written, not as built
        t2 = time.perf_counter()
        tick = ticker("verifying at every finite y" + ("" if bound is None else " up to H") + ", points")
        bad, pairs, failing = M.verify(fmt, written, [(x, v) for x, v in points], tables, bound=bound,
                              progress=lambda i, n, nbad: tick(i, n, f", {nbad} mismatches at the last" if nbad else ""))
        checked = time.perf_counter() - t2
        # the executor has checked every (x, y); the claims (--prove-network, --certify) add
        # each point's proof for every y, on the pieces found
        proofs, t3 = None, time.perf_counter()
        if not bad and (args.certify or args.prove_network):
            proofs = _prove_points(args, fmt, points, pieces, construction, written.depth)
        proved_s = time.perf_counter() - t3
        refuted = _refuted(proofs)
        if bad or refuted:
            pending.discard()
    failed = bool(bad or refuted)
    paper = construction.constants(fmt).depth_3_2[0]
    summary = {"theorem": "3.2", "format": fmt.name, "activation": construction.activation, "points": len(points),
               "pairs": pairs, "verified": pairs - failing,
               "y_bound": None if bound is None else fmt.hex(fmt.round(bound)),
               "pieces": {fmt.hex(x): [{"from": fmt.hex(fmt.round(p.t)), "kind": p.kind, "c": fmt.hex(fmt.round(p.c))}
                                       for p in pcs] for (x, _), pcs in zip(points, pieces)},
               "depth": net.depth, "paper_depth": paper, "max_width": max(L.n_out for L in net.layers),
               "parameters": net.n_parameters(), "bytes": size, "out": None if failed else str(out_path),
               "mismatches": [{"x": fmt.hex(x), "y": fmt.hex(y), "what": w, "got": fmt.hex(g), "want": fmt.hex(t)}
                              for x, y, w, g, t in bad],
               "claims": _claims_summary(fmt, points, proofs),
               "seconds": {"targets": round(tabulated, 3), "build": round(built, 3), "verify": round(checked, 3),
                           "claims": round(proved_s, 3)}}
    err(f"  depth {net.depth} (the paper: L >= {paper}), max width {summary['max_width']}, {summary['parameters']} "
        f"parameters, {size} bytes" + ("" if failed else f" -> {out_path}"))
    err(f"  verified in the executor: f(x) and D^AD(y) at {pairs} (x, y) pairs (every x of the domain, "
        f"{_ys_text(fmt, bound)}): {pairs - failing} bit-exact, {failing} mismatched (a zero target met by either zero); "
        f"build {built:.1f} s, verify {checked:.1f} s")
    for x, y, w, g, t in bad[:10]:
        err(f"  MISMATCH at x = {fmt.show(x)}, y = {fmt.show(y)}: {w} = {fmt.show(g)}, target {fmt.show(t)}")
    if proofs is not None:
        _report_claims(args, fmt, points, proofs, proved_s, bound if construction.family == "logistic" else None)
    if failed:
        _failure(bad, out_path)
    if args.plot and not failed:
        summary["plot"] = _plot(args, fmt, points, tables, written, bound=bound)
    if not failed and not _profile(args).is_paper:
        summary["semantics"] = _under(fmt, written, _profile(args),
                                      lambda sem: M.verify(fmt, written, [(x, v) for x, v in points], tables, sem=sem,
                                                           bound=bound),
                                      f"every x of the domain, {_ys_text(fmt, bound)}")
    if args.torch and not failed:
        summary["torch"] = torch_check(fmt, written, points, tables, pieces, bound=bound)
    if args.certify and not failed:
        summary["certificates"], summary["certified"] = _certify(args, fmt, construction, points, pieces, proofs,
                                                                 written.depth)
    if args.json:
        out(json.dumps(summary))
    return 1 if failed else 0


def torch_pairs(fmt, points, tables, pieces, per_x=64, seed=0, bound=None):
    """(x, y, f*, g*) patterns where the PyTorch run is compared: per point ±0, each
    piece's first y with its neighbours, and ``per_x`` more y drawn at random (seeded),
    each with both signs."""
    import numpy as np

    from fpsmt.constructions.theorem32 import all_ys, within
    ys = all_ys(fmt)
    half = len(ys) // 2
    rng = np.random.default_rng(seed)
    X, Y, F, G = [], [], [], []
    for (x, v), tab, pcs in zip(points, tables, pieces):
        idx = {0}
        for p in pcs:
            j = int(fmt.round(p.t))  # positive patterns are their own index in all_ys
            idx |= {j - 1, j, j + 1} & set(range(half))
        idx |= set(rng.integers(0, half, per_x).tolist())
        if bound is not None:  # the network is built for |y| <= bound
            ok = within(fmt, ys[:half], bound)
            idx = {i for i in idx if ok[i]}
        idx = sorted(idx)
        both = idx + [i + half for i in idx]
        X += [x] * len(both)
        Y += [int(ys[i]) for i in both]
        F += [v] * len(both)
        G += [int(tab[i]) for i in both]
    return [np.asarray(a, dtype=np.uint64) for a in (X, Y, F, G)]


def torch_check(fmt, net, points, tables, pieces, bound=None):
    """The written network as PyTorch scalar operations in the paper's order
    (torch_export.scalar_network), run by torch.autograd with the upstream gradients y as
    ``grad_outputs`` at :func:`torch_pairs`; compared with f* and g* bit for bit (a zero
    target met by either zero)."""
    return torch_run(fmt, net, *torch_pairs(fmt, points, tables, pieces, bound=bound))


def torch_run(fmt, net, X, Y, F, G):
    """The PyTorch run of :func:`torch_check` at given (x, y, f*, g*) patterns."""
    from fpsmt.commands import torch_export as TE
    from fpsmt.commands.targets import meets
    torch = TE.torch_module()
    err(f"  PyTorch {torch.__version__}: the network as scalar operations, torch.autograd at {len(X)} (x, y) pairs "
        f"(every piece's first y and its neighbours, and random y, both signs) ...")
    t0 = time.perf_counter()
    x = TE.to_tensor(fmt, X).clone().requires_grad_(True)
    out = TE.scalar_network(net)(x)
    grad, = torch.autograd.grad(out, x, grad_outputs=TE.to_tensor(fmt, Y))
    o, g = TE.to_bits(fmt, out.detach()).ravel().tolist(), TE.to_bits(fmt, grad).ravel().tolist()
    seconds = time.perf_counter() - t0
    diff = [{"x": fmt.hex(int(a)), "y": fmt.hex(int(b)), "f": fmt.hex(oo), "f_target": fmt.hex(int(f)),
             "grad": fmt.hex(gg), "g_target": fmt.hex(int(w))}
            for a, b, f, w, oo, gg in zip(X, Y, F, G, o, g) if not (meets(fmt, oo, int(f)) and meets(fmt, gg, int(w)))]
    rep = {"torch": str(torch.__version__), "pairs": len(X), "bit_exact": len(X) - len(diff),
           "differences": diff[:20], "seconds": round(seconds, 3)}
    err(f"  torch {torch.__version__} {fmt.name}, scalar operations, torch.autograd with grad_outputs = y: "
        f"{rep['bit_exact']}/{len(X)} (x, y) pairs bit-exact ({seconds:.1f} s)")
    for d in diff[:5]:
        err(f"    x = {d['x']}, y = {d['y']}: f = {d['f']} (target {d['f_target']}), D^AD = {d['grad']} "
            f"(target {d['g_target']})")
    return rep


def _summary(counts):
    lo, hi = min(counts), max(counts)
    return f"{lo}" if lo == hi else f"{lo} to {hi}"


def _plot(args, fmt, points, tables, net, n_x=4, bound=None):
    """D^AD(y) against y > 0 (up to ``bound``) at up to ``n_x`` domain points beside
    g*(x, y), log-scaled (g* is odd; both signs were verified)."""
    from fpsmt.constructions.theorem32 import positive_ys, within
    ys = positive_ys(fmt)
    if bound is not None:
        ys = ys[within(fmt, ys, bound)]
    return _draw(args, fmt, points, net, ys, lambda i, num: num(tables[i][1:len(ys) + 1]), "target g*(x, y)", 2,
                 "upstream gradient y > 0 (g* is odd; negative y verified too)",
                 f"fpsmt construct (Theorem 3.2): {len(points)} points in {fmt.name}, D^AD at every finite y"
                 + ("" if bound is None else f" with |y| <= {fmt.show(fmt.round(bound))}"), n_x)


def _draw(args, fmt, points, net, ys, want_of, target, ms, xlabel, title, n_x):
    """The Theorem 3.2 plots: per picked point (up to ``n_x``) the target ``want_of(i,
    num)`` and the network's D^AD at the positive patterns ``ys`` (run block-aware), y on
    a log axis, D on a symlog one; written by :func:`save_figure`."""
    import numpy as np

    from fpsmt.constructions.blockrun import blockwise
    from fpsmt.semantics.arith.concrete import concrete
    plt = pyplot()
    A = concrete(fmt)
    ys = np.asarray(ys, dtype=np.uint64)
    num = np.vectorize(lambda b: float(fmt.to_fraction(int(b))) if fmt.is_finite(int(b)) else float("nan"))
    yv = num(ys)
    pick = np.unique(np.linspace(0, len(points) - 1, min(n_x, len(points))).round().astype(int))
    fig, axes = plt.subplots(len(pick), 1, figsize=(8, 2.4 * len(pick)), squeeze=False, sharex=True)
    for ax, i in zip(axes[:, 0], pick):
        x = points[i][0]
        _, grad = blockwise(A, net, A.const(np.full(len(ys), x, dtype=np.uint64)), A.const(ys))
        ax.plot(yv, want_of(i, num), "-", color="0.6", lw=3, label=target)
        ax.plot(yv, num(np.ravel(A.to_bits(grad))), ".", ms=ms, color="C3", label="reverse-mode AD of the network")
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=float(fmt.min_normal))
        ax.set_title(f"x = {fmt.show(x)}", fontsize=9)
        ax.set_ylabel("D(y)")
        ax.legend(loc="upper left", fontsize=8)
    axes[-1, 0].set_xlabel(xlabel)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, args.plot)


# ------------------------------------------------------------------ targets given as pieces
def sample_ys(fmt, pieces_lists, per_x=64, seed=0):
    """The positive y (patterns, sorted) where the executor checks a pieces network in a
    format too wide for every y: ω, the least normal, 1, Ω and the float below it, every
    breakpoint of every point with two neighbours on each side, and ``per_x`` patterns
    drawn at random (seeded; uniform over the positive finite patterns, so spread over
    the binades)."""
    import numpy as np
    top = fmt.round(fmt.Omega)
    want = {1, fmt.round(fmt.min_normal), fmt.one_bits, top, top - 1}
    for pcs in pieces_lists:
        for p in pcs:
            b = fmt.round(p.t)
            want |= {b + d for d in range(-2, 3) if 1 <= b + d <= top}
    rng = np.random.default_rng(seed)
    want |= {int(v) for v in rng.integers(1, top + 1, per_x, dtype=np.uint64)}
    return sorted(want)


def check_points_at(fmt, net, pairs, sem=None):
    """Run ``net`` by the executor at the (x, y, f*, g*) patterns ``pairs``
    (:func:`_sampled`), one x at a time; compare f and D^AD bit for bit (a zero target met
    by either zero).  Returns the mismatches [(x, y, what, got, want)], at most 20 of each
    kind per x."""
    import numpy as np

    from fpsmt.constructions.blockrun import blockwise
    from fpsmt.constructions.theorem32 import meets
    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import PAPER
    A = concrete(fmt)
    X, Y, F, G = pairs
    bad = []
    for x in dict.fromkeys(X.tolist()):
        at = np.flatnonzero(X == x)
        out, grad = blockwise(A, net, A.const(X[at]), A.const(Y[at]), sem or PAPER)
        ob, gb = np.ravel(A.to_bits(out)), np.ravel(A.to_bits(grad))
        for what, got, w in (("f(x)", ob, F[at]), ("D(y)", gb, G[at])):
            ok = meets(fmt, got, w)
            bad += [(int(x), int(Y[at][j]), what, int(got[j]), int(w[j])) for j in np.flatnonzero(~ok)[:20]]
    return bad


def _prove_points(args, fmt, points, pieces, construction=None, depth=None):
    """Each distinct point's ∀y claims (proofs/theorem_3_2_relu.py: the point's backward
    program gives g(y) at every finite y; the logistic family's, proofs/logi_theorem_3_2.py:
    the program its gated network at ``depth`` runs, carries included, for every
    |y| <= H_σ), decided once per distinct list of pieces; with --prove-network, each
    point's network claims (the gated network of ``construction``'s activation, ReLU's by
    default; a family's at ``depth``, the whole network's, as it sits in the ⊞)."""
    from fpsmt.commands.options import engine_session
    from fpsmt.proof.lemmas import decide_tree
    from fpsmt.proof.tree import Node
    from fpsmt.proofs import theorem_3_2_relu as PT
    rows, by = [], {}
    with engine_session(args, confirm=args.confirm) as eng:
        for n, ((x, _), pcs) in enumerate(zip(points, pieces)):
            key = tuple(pcs)
            if not PT.segments(pcs):
                rows.append(None)  # g = 0 at x: no program, the zero-gradient atom's D
                continue
            if key not in by:
                err(f"fpsmt: the ∀y claims of x = {fmt.show(x)} ({n + 1}/{len(points)}) ...")
                every = "finite y"
                if construction is not None and construction.family == "logistic":
                    from fpsmt.proofs import logi_theorem_3_2 as PL
                    with construction.active():
                        root = Node("lemma", f"theorem_3_2.x{n + 1}", None,
                                    [PL.program_node(fmt, pcs, f"theorem_3_2.x{n + 1}.program", depth)])
                    every = "y with |y| <= H_σ, in the family's arithmetic (u ⊗ 1/4) ⊗ w"
                else:
                    root, _ = PT.point_root(fmt, pcs, f"theorem_3_2.x{n + 1}")
                statement = (f"the backward program of a point with these {len(PT.segments(pcs))} nonzero pieces "
                             f"gives g*(x, y) for every {every} (decided once for every point that has them)")
                by[key] = decide_tree(eng, f"theorem_3_2.x{n + 1}", root, statement, fmt, progress=_quiet_progress(),
                                      activation=construction.activation if construction else "relu")
            row = dict(by[key])
            if (args.prove_network or args.certify) and row["status"] == "PROVED":
                row["network"] = _prove_network(eng, fmt, points, n, pcs, construction, depth)
            rows.append(row)
    return rows


def _prove_network(eng, fmt, points, n, pcs, construction=None, depth=None):
    """The point's gated network: at x = z its layers compute the program, at every other
    domain point its D is a zero, for every finite y (proofs/theorem_3_2_relu.py
    ``chain_nodes``, ``killed_nodes``; for the rectifying family proofs/rect_theorem_3_2.py
    ``chain_root``, built while its construction is active)."""
    from fpsmt.proof.lemmas import decide_tree
    from fpsmt.proofs import theorem_3_2_relu as PT
    x = points[n][0]
    err(f"fpsmt: the network claims of x = {fmt.show(x)} ({n + 1}/{len(points)}) ...")
    others = [p for i, (p, _) in enumerate(points) if i != n]
    name = f"theorem_3_2.net.x{n + 1}"
    if construction is None or construction.activation == "relu":
        root = PT.chain_root(fmt, fmt.to_fraction(x), pcs, name, others)
    else:
        if construction.family == "saturating":
            from fpsmt.proofs import sat_theorem_3_2 as PE
        elif construction.family == "logistic":
            from fpsmt.proofs import logi_theorem_3_2 as PE
        else:
            from fpsmt.proofs import rect_theorem_3_2 as PE
        with construction.active():
            root, _ = PE.chain_root(fmt, fmt.to_fraction(x), pcs, name, others, depth=depth)
    zeros = "" if construction is None or construction.activation == "relu" else {
        "saturating": ", every upstream within ±H_σ on the top layer, a zero on the step indicators",
        "logistic": " in the family's arithmetic (u ⊗ 1/4) ⊗ w, the top's for every |y| <= H_σ, a zero on the step "
                    "indicators"}.get(construction.family, ", a zero on the carried step indicators")
    logistic = construction is not None and construction.family == "logistic"
    statement = (f"the gated network of x = {fmt.hex(x)}: at x its layers compute the program (every finite "
                 f"upstream per layer{zeros}) and "
                 + ("layer 0 (the paths' weights) gives x's gradient" if logistic else "the gate passes it to x")
                 + f"; at the {len(others)} other domain points its D^AD is a zero for every "
                 + ("|y| <= H_σ" if logistic else "finite y"))
    return decide_tree(eng, name, root, statement, fmt, progress=_quiet_progress(),
                       activation=construction.activation if construction else "relu")


def _point_network(fmt, construction, z, pcs, depth=None):
    """The gated network of the point z alone (ReLU's, or a family's at ``depth``, as it
    sits in the ⊞), None where g = 0 there (no program)."""
    from fpsmt.constructions import theorem32 as M
    if construction is not None and construction.family == "logistic":  # its own quarter program
        from fpsmt.constructions import gated_logi
        with construction.active():
            prog = gated_logi.point_program(fmt, pcs)
            return None if prog is None else gated_logi.gated_program(fmt, fmt.to_fraction(z), *prog, depth)
    programs = M.piece_programs(fmt, pcs)
    if construction is None or construction.activation == "relu":
        return M.point_network(fmt, fmt.to_fraction(z), programs)
    if not programs:
        return None
    with construction.active():
        return _gated_module(construction).gated_program(fmt, fmt.to_fraction(z), M.binary_sums(M.tree_sum(programs)), depth)


def _forward_not_finite(fmt, points, pieces, construction=None, depth=None):
    """Ground facts the ⊞ argument needs (approx.congruence: an absent term is a zero where
    the value is finite): each point's gated network, run alone at every domain point,
    has finite values in every layer.  Returns (z, x, layer) where one is not."""
    import numpy as np

    from fpsmt.semantics.arith.concrete import concrete
    from fpsmt.semantics.network import run
    A = concrete(fmt)
    xs = np.asarray([[x] for x, _ in points], dtype=np.uint64)
    bad = []
    for (z, _), pcs in zip(points, pieces):
        net = _point_network(fmt, construction, z, pcs, depth)
        if net is None:
            continue
        tr = run(A, net, A.const(xs))
        for k, post in enumerate(tr.post):
            bits = np.asarray(A.to_bits(post), dtype=np.uint64).reshape(len(points), -1)
            inf_or_nan = (bits >> np.uint64(fmt.M)) & np.uint64(fmt.exp_all_ones) == np.uint64(fmt.exp_all_ones)
            for i in np.flatnonzero(inf_or_nan.any(axis=1)):
                bad.append((z, points[i][0], k))
    return bad


def _certify(args, fmt, construction, points, pieces, proofs, depth=None):
    """The Theorem 3.1 lemmas the network's value atoms, gate and ⊞ rest on (construct's
    --certify rows: zero_gradient_atom, gradient_atom's gate stages, boxplus_neutrality,
    theorem_3_1_relu's approx.congruence), then each point's program and network trees
    (decided above): certified when every one is PROVED with every UNSAT answer confirmed."""
    from fpsmt.commands import certify
    certs, ok = certify.link_lemmas(args, fmt, construction, last=False)
    why = [f"the gated network of x = {fmt.hex(z)} has a value that is not finite at x = {fmt.hex(x)} (layer {k})"
           for z, x, k in _forward_not_finite(fmt, points, pieces, construction, depth)]
    for (x, _), r in zip(points, proofs):
        for what, row in (("program", r), ("network", None if r is None else r.get("network"))):
            if r is None:
                break  # g = 0 at x: the zero-gradient atom's D, in the lemmas above
            if row is None:
                why.append(f"x = {fmt.hex(x)}: its {what} claims were not decided")
            elif row["status"] != "PROVED":
                why.append(f"x = {fmt.hex(x)}: its {what} claims are {row['status']}")
            elif row["confirmed"]["unconfirmed"]:
                why.append(f"x = {fmt.hex(x)}: its {what} claims have UNSAT answers no second back end confirmed"
                           + ("" if args.confirm else " (--no-confirm)"))
    for w in why:
        err(f"  NOT certified: {w}")
    if ok and not why:
        err("  certified: the value atoms, the gate and ⊞ (Theorem 3.1's lemmas, for all their parameters) and every "
            "point's program and gated network are PROVED, every UNSAT answer confirmed")
    return certs, ok and not why


def _failure(bad, out_path):
    err(f"fpsmt: internal error: {'the network does not meet its targets' if bad else 'a claim above is REFUTED'}; "
        f"nothing written to {out_path}")


def _refuted(proofs) -> bool:
    """Whether a point's program or network claims were REFUTED (or VACUOUS)."""
    rows = [r for r in (proofs or []) if r is not None]
    rows += [r["network"] for r in rows if "network" in r]
    return any(r["status"] in ("REFUTED", "VACUOUS") for r in rows)


def _claims_summary(fmt, points, proofs):
    """The JSON report's per-point claims (None when none were decided)."""
    if proofs is None:
        return None
    return [{"x": fmt.hex(x), "status": "NO PROGRAM" if r is None else r["status"],
             **({} if r is None else _claims_json(r)),
             **({"network": {"status": r["network"]["status"], **_claims_json(r["network"])}}
                if r is not None and "network" in r else {})}
            for (x, _), r in zip(points, proofs)]


def _report_claims(args, fmt, points, proofs, seconds, bound=None):
    """The per-point claims on stderr: tallies, then every point not PROVED with its reason."""
    statuses = [None if r is None else r["status"] for r in proofs]
    err("  ∀y claims per point (the point's backward program at every " + ("finite y" if bound is None else
                                                                            "y up to H") + "): "
        + ", ".join(f"{statuses.count(s)} {'without a program (g = 0)' if s is None else s}"
                    for s in dict.fromkeys(statuses)) + f" ({seconds:.1f} s)")
    nets = [r["network"]["status"] for r in proofs if r is not None and "network" in r]
    if args.prove_network or args.certify:
        err("  network claims per point (at x its layers compute the program; at the other points D is a zero): "
            + (", ".join(f"{nets.count(s)} {s}" for s in dict.fromkeys(nets)) or "none decided"))
    for (x, _), r in zip(points, proofs):
        for what in ([r] + ([r["network"]] if "network" in r else [])) if r is not None else []:
            if what["status"] != "PROVED":
                err(f"  x = {fmt.show(x)}: {what['status']}: {what['statement']}"
                    + (f"; counterexample {what['counterexample']}" if what["counterexample"] else ""))


def _claims_json(r):
    return {"stages": len(r["keys"]), "seconds": r["seconds"], "confirmed": r["confirmed"],
            "counterexample": r["counterexample"], "reason": r.get("reason"), "statement": r["statement"]}


def _quiet_progress():
    """The engine's per-stage lines as a ticker: a line every 10 s of work, and the end."""
    state = {"last": time.monotonic()}

    def show(msg):
        now = time.monotonic()
        if not msg.startswith("  [") or now - state["last"] >= 10:
            err(msg)
            state["last"] = now
    return show


def construct_pieces(args, fmt, construction, path, out_path):
    """The Theorem 3.2 network for targets given as pieces, in any format: built, written,
    checked by the executor at every breakpoint and its neighbours (every finite y in
    formats of at most 16 bits), and each point's ∀y claims decided (``--prove``)."""
    from fpsmt.commands import netio, targets
    from fpsmt.commands.options import check_store
    from fpsmt.constructions import theorem32 as M
    if construction.activation != "relu":
        _check_gated(args, fmt, construction)
    if args.prove:
        check_store(args.store)
    t0 = time.perf_counter()
    points, pieces = targets.load_pieces(path, fmt, constants=construction.constants(fmt))
    bound = y_bound(fmt, construction)
    for (x, _), pcs in zip(points, pieces):
        if len(pcs) > args.max_pieces:
            raise InputError(f"at x = {fmt.show(x)}: g_pieces(x) gives {len(pcs)} pieces; the construction builds at "
                             f"most {args.max_pieces} (--max-pieces)")
    programs = [programs_of(fmt, construction, pcs) for pcs in pieces]  # refuses a piece it cannot build, first
    n_pieces = [sum(1 for p in pcs if p.c != 0) for pcs in pieces]
    err(f"fpsmt: Theorem 3.2 network for {len(points)} points in {fmt.name}, g* given as pieces; nonzero pieces per "
        f"point: {_summary(n_pieces)}")
    net = _network(fmt, construction, [(x, v, pcs) for (x, v), pcs in zip(points, pieces)], programs,
                   ticker("building, points"))
    built = time.perf_counter() - t0
    every_y = fmt.nbits <= 16
    proofs = None
    with netio.pending_network(net, out_path) as (pending, size, written):  # checked as written, not as built
        t1 = time.perf_counter()
        if every_y:
            tables = [_table(fmt, pcs) for pcs in pieces]
            bad, pairs, _ = M.verify(fmt, written, points, tables, bound=bound,
                                     progress=ticker("verifying at every finite y, points"))
            where = _ys_text(fmt, bound)
        else:
            sampled = _sampled(fmt, points, pieces, bound)
            bad, pairs = check_points_at(fmt, written, sampled), len(sampled[0])
            where = ("±0 and, with both signs, every breakpoint with two neighbours each side, ω, the least normal, "
                     "1, Ω and 64 random y" + ("" if bound is None else
                                                f", those with |y| <= H = {fmt.show(fmt.round(bound))}"))
        checked = time.perf_counter() - t1
        err(f"  executor: f(x) and D^AD(y) at {pairs} (x, y) pairs ({where}): "
            f"{'all bit-exact' if not bad else f'{len(bad)} mismatches'} ({checked:.1f} s)")
        t2 = time.perf_counter()
        if args.prove and not bad:
            proofs = _prove_points(args, fmt, points, pieces, construction, written.depth)
        proved_s = time.perf_counter() - t2
        refuted = _refuted(proofs)
        if bad or refuted:
            pending.discard()
    failed = bool(bad or refuted)
    summary = {"theorem": "3.2", "format": fmt.name, "activation": construction.activation, "points": len(points),
               "given": "pieces", "pairs": pairs, "executor": "every finite y" if every_y else "breakpoints",
               "pieces": {fmt.hex(x): [{"from": fmt.hex(fmt.round(p.t)), "kind": p.kind, "c": fmt.hex(fmt.round(p.c))}
                                       for p in pcs] for (x, _), pcs in zip(points, pieces)},
               "y_bound": None if bound is None else fmt.hex(fmt.round(bound)),
               "depth": net.depth, "paper_depth": construction.constants(fmt).depth_3_2[0],
               "max_width": max(L.n_out for L in net.layers), "parameters": net.n_parameters(), "bytes": size,
               "out": None if failed else str(out_path),
               "mismatches": [{"x": fmt.hex(x), "y": fmt.hex(y), "what": w, "got": fmt.hex(g), "want": fmt.hex(t)}
                              for x, y, w, g, t in bad],
               "claims": _claims_summary(fmt, points, proofs),
               "seconds": {"build": round(built, 3), "executor": round(checked, 3), "claims": round(proved_s, 3)}}
    err(f"  depth {net.depth} (the paper: L >= {summary['paper_depth']}), max width {summary['max_width']}, "
        f"{summary['parameters']} parameters, {size} bytes" + ("" if failed else f" -> {out_path}"))
    for x, y, w, g, t in bad[:10]:
        err(f"  MISMATCH at x = {fmt.show(x)}, y = {fmt.show(y)}: {w} = {fmt.show(g)}, target {fmt.show(t)}")
    if proofs is not None:
        _report_claims(args, fmt, points, proofs, proved_s, bound if construction.family == "logistic" else None)
    elif not bad:
        err("  ∀y claims not decided (--no-prove): the network is checked by the executor only")
    if failed:
        _failure(bad, out_path)
    if not failed and not _profile(args).is_paper:
        if every_y:
            def check(sem):
                return M.verify(fmt, written, points, tables, sem=sem, bound=bound)
        else:
            def check(sem):
                return check_points_at(fmt, written, sampled, sem), len(sampled[0]), None
        summary["semantics"] = _under(fmt, written, _profile(args), check, where)
    if args.torch and not failed:
        summary["torch"] = _torch_pieces(fmt, written, points, pieces, bound)
    if args.plot and not failed:
        summary["plot"] = _plot_pieces(args, fmt, points, pieces, written, bound=bound)
    if args.certify and not failed:
        summary["certificates"], summary["certified"] = _certify(args, fmt, construction, points, pieces, proofs,
                                                                 written.depth)
    if args.json:
        out(json.dumps(summary))
    return 1 if failed else 0


def _profile(args):
    """The profile of ``construct --semantics`` (the paper's when absent: a caller that builds
    its own arguments, benchmarks/theorem32.py)."""
    from fpsmt.semantics.network import PAPER
    return getattr(args, "semantics_profile", None) or PAPER


def _under(fmt, net, sem, check, where) -> dict:
    """The network (built and verified for the paper's semantics) checked again under
    another profile at the same (x, y) pairs: the pairs where it misses its targets there
    (a result, not an error).  ``check(sem)`` -> (mismatches, pairs, failing pairs or None)."""
    t0 = time.perf_counter()
    bad, pairs, failing = check(sem)
    secs = time.perf_counter() - t0
    failing = len({(x, y) for x, y, *_ in bad}) if failing is None else failing
    err(f"  under --semantics {sem.spec}: {pairs - failing}/{pairs} (x, y) pairs still meet their targets ({where}; "
        f"{secs:.1f} s)")
    for x, y, w, g, t in bad[:10]:
        err(f"  BROKEN at x = {fmt.show(x)}, y = {fmt.show(y)}: {w} = {fmt.show(g)}, target {fmt.show(t)}")
    return {"spec": sem.spec, "pairs": pairs, "met": pairs - failing, "seconds": round(secs, 3),
            "broken": [{"x": fmt.hex(x), "y": fmt.hex(y), "what": w, "got": fmt.hex(g), "want": fmt.hex(t)}
                       for x, y, w, g, t in bad]}


def _table(fmt, pcs):
    """g at every finite y (all_ys order) from the pieces, each value rounded once."""
    import numpy as np

    from fpsmt.constructions.theorem32 import all_ys, piece_value
    return np.asarray([fmt.round(piece_value(fmt, pcs, fmt.to_fraction(int(y)))) for y in all_ys(fmt)],
                      dtype=np.uint64)


def _sampled(fmt, points, pieces, bound=None):
    """(x, y, f*, g*) patterns at :func:`sample_ys` (those with |y| <= ``bound``), both signs,
    per point."""
    import numpy as np

    from fpsmt.constructions.theorem32 import piece_value
    ys = _bounded(fmt, sample_ys(fmt, pieces), bound)
    ys = [0, fmt.sign_bit] + ys + [y | fmt.sign_bit for y in ys]
    X, Y, F, G = [], [], [], []
    for (x, v), pcs in zip(points, pieces):
        X += [x] * len(ys)
        Y += ys
        F += [v] * len(ys)
        G += [fmt.round(piece_value(fmt, pcs, fmt.to_fraction(y))) for y in ys]
    return [np.asarray(a, dtype=np.uint64) for a in (X, Y, F, G)]


def _bounded(fmt, ys, bound):
    """The positive patterns ``ys`` with y <= ``bound`` (all of them for None)."""
    return list(ys) if bound is None else [y for y in ys if fmt.to_fraction(y) <= bound]


def _torch_pieces(fmt, net, points, pieces, bound=None):
    return torch_run(fmt, net, *_sampled(fmt, points, pieces, bound))


def _plot_pieces(args, fmt, points, pieces, net, n_x=4, bound=None):
    """D^AD(y) against y > 0 at the checked y (:func:`sample_ys`, up to ``bound``) beside the
    pieces' g, at up to ``n_x`` domain points."""
    from fpsmt.constructions.theorem32 import piece_value
    ys = _bounded(fmt, sample_ys(fmt, pieces), bound)
    return _draw(args, fmt, points, net, ys,
                 lambda i, num: [float(piece_value(fmt, pieces[i], fmt.to_fraction(b))) for b in ys],
                 "target g*(x, y) (pieces)", 4,
                 "upstream gradient y > 0 at the checked y (breakpoints, neighbours, random)",
                 f"fpsmt construct (Theorem 3.2, pieces): {len(points)} points in {fmt.name}", n_x)
