"""``fpsmt construct``: the Theorem 3.1 network for targets, saved, verified bit for bit, and
optionally plotted, run in PyTorch and linked to its lemma certificates."""

from __future__ import annotations

import argparse
import json

from fpsmt import cluster
from fpsmt.commands import certify
from fpsmt.commands.construct_common import atom_lemmas, atoms_within_the_lemmas, list_points, under
from fpsmt.commands.options import (check_requirements, err, out, positive_int, pyplot, save_figure,
                                   semantics_of, semantics_option, solver_options)
from fpsmt.errors import InputError


def _torch_check(fmt, net, points):
    import time

    from fpsmt.commands import targets as targets
    from fpsmt.commands import torch_export as torch_export
    t0 = time.perf_counter()
    torch = torch_export.torch_module()
    hidden = torch_export.torch_activation(net.layers[0].activation)[1].__name__
    what = {"scalar": "scalar operations in the paper's order, torch.autograd",
            "scalar_rounded": f"the same with the correctly rounded σ and σ' looked up instead of torch's {hidden}",
            "linear": f"plain nn.Linear/nn.{hidden} stack, same weights"}
    dense = sum(L.n_out * L.n_in for L in net.layers)
    err(f"  PyTorch: running the network at {len(points)} points (scalar module, then nn.Linear stack: "
        f"{dense:,} dense multiply-adds per point, forward; minutes in {fmt.name} on a CPU when that is large) ...")

    def show(key, r):
        head = f"  torch {torch.__version__} {fmt.name}, {what[key]}"
        if "skipped" in r:
            err(f"{head}: skipped ({r['skipped']})")
            return
        err(f"{head}: {r['bit_exact']}/{r['points']} points bit-exact ({r['value_differs']} values and "
            f"{r['grad_differs']} gradients differ; {r['seconds']:.1f} s)")
        for d in r["differences"][:5]:
            err(f"    x = {d['x']}: f = {d['f']} (target {d['f_target']}), D^AD = {d['grad']} "
                 f"(target {d['g_target']}): {d['why']}")
    rep = torch_export.compare(fmt, net, points, targets.meets, progress=show)
    rep["seconds"] = round(time.perf_counter() - t0, 3)
    sig = torch_export.sigma_mismatches(fmt, net.layers[0].activation)
    if sig is not None:
        rep["sigma"] = sig
        name = net.layers[0].activation
        if sig["value"] or sig["derivative"]:
            ex = "; ".join(f"at {x}: σ {v} (correctly rounded {cv}), σ' {d} ({cd})" for x, v, cv, d, cd in
                           sig["examples"])
            err(f"  torch's {name} differs from the correctly rounded σ at {sig['value']} and σ' at "
                f"{sig['derivative']} of the {sig['inputs']} finite {fmt.name} inputs ({ex}): the construction "
                "assumes correctly rounded σ and σ' (the paper's assumption), so a network that meets such an "
                "input can differ")
        else:
            err(f"  torch's {name} and its autograd derivative are correctly rounded at every finite {fmt.name} "
                "input" + (f" (up to the sign of a zero at {sig['zero_signs']})" if sig["zero_signs"] else ""))
    if fmt.name in ("bfloat16", "float16"):
        err(f"  note: PyTorch's CPU kernels compute {fmt.name} operations in float32 and round once per "
             "operation (exact for one + or ×); its matmul accumulates a row in higher precision and rounds "
             "once (in bfloat16 [256, 1, 1]·[1, 1, 1] gives 258, left-to-right rounding 256)")
    return rep


def _plot(args, fmt, points, f_got, g_got, depth, n_bad):
    """Two panels: the network's value against f*, and its D^AD against g* and, when the
    targets file defines ``df_star(x)``, the true derivative of f*."""
    from fpsmt.resources import resolve
    from fpsmt.commands.targets import true_derivative
    plt = pyplot()
    num = lambda b: float(fmt.to_fraction(int(b))) if fmt.is_finite(int(b)) else float("nan")  # noqa: E731
    xs = [num(p[0]) for p in points]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    ax1.plot(xs, [num(p[1]) for p in points], "-", color="0.6", lw=3, label="target f*(x)")
    ax1.plot(xs, [num(v) for v in f_got], ".", ms=3, color="C0", label="network f(x)")
    ax1.set_ylabel("value")
    ax1.legend(loc="best")
    df = true_derivative(resolve(args.targets), xs)
    if df is not None:
        ax2.plot(xs, df, "-", color="0.6", lw=3, label="true derivative of f*")
    ax2.plot(xs, [num(p[3]) for p in points], "--", color="C1", lw=1, label="target gradient g*(x)")
    ax2.plot(xs, [num(v) for v in g_got], ".", ms=3, color="C3", label="reverse-mode AD of the network, D^AD(h*)")
    ax2.set_xlabel("x")
    ax2.set_ylabel("gradient")
    ax2.legend(loc="best")
    exact = "every point bit-exact" if not n_bad else f"{n_bad} points NOT bit-exact"
    fig.suptitle(f"fpsmt construct: {len(points)} points in {fmt.name}, {args.activation} network of depth {depth}, {exact}",
                 fontsize=10)
    fig.tight_layout()
    return save_figure(fig, args.plot)


def _runs(values):
    """``[5, 5, 5, 3]`` as ``5 (3 layers), 3``: a long list of layer widths in one short line."""
    parts, i = [], 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        parts.append(f"{values[i]} ({j - i} layers)" if j - i > 1 else str(values[i]))
        i = j
    return ", ".join(parts)


# Measured with benchmarks/construct.py (bfloat16; the README's table): peak memory and
# verification time of the block-aware check grow with the number of points N; the
# estimate errs on the high side.
MEMORY_BASE, MEMORY_PER_POINT = 64 << 20, 560 << 10
VERIFY_SECONDS_5000 = 84.0
# --verify atoms (benchmarks/construct.py --verify atoms; the whole bfloat16 domain, 64,513
# points, peaked at 4.6 GB with a safetensors file, 15 s verification): linear in N.  A JSON
# file read back costs about 130 KB more per point than safetensors
ATOMS_MEMORY_PER_POINT = {"safetensors": 80 << 10, "json": 210 << 10}
ATOMS_SECONDS_PER_POINT = 0.0005


def estimate(n_points: int, verify: str = "full", kind: str = "json") -> tuple:
    """(bytes, seconds) a construct of ``n_points`` points is expected to need at most
    (``verify``: the verification mode, full or atoms; ``kind``: the network file's, json
    or safetensors)."""
    if verify == "atoms":
        return MEMORY_BASE + ATOMS_MEMORY_PER_POINT[kind] * n_points, ATOMS_SECONDS_PER_POINT * n_points
    return MEMORY_BASE + MEMORY_PER_POINT * n_points, VERIFY_SECONDS_5000 * (n_points / 5000) ** 1.5


def available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) << 10
    except OSError:
        pass
    return None


def cmd_construct(args):
    import time

    from fpsmt.commands import netio, targets
    from fpsmt.commands.options import check_store, output_path
    from fpsmt.constructions.registry import get_construction
    from fpsmt.resources import resolve
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(args.format)
    construction = get_construction(args.activation)
    netio.check_network_path(args.out)
    out_path = output_path(args.out, "--out")  # every input, output path and store before any work
    if args.plot:
        output_path(args.plot, "--plot")
        pyplot()
    if args.torch:
        from fpsmt.commands import torch_export
        torch_export.check_format(fmt)
        torch_export.torch_module()
        torch_export.torch_activation(construction.activation)  # torch has σ (or the user's file gives it)
    if args.certify or args.verify == "atoms":
        check_store(args.store)
    cluster.spec_of(args)  # a malformed --cluster or $FPSMT_CLUSTER, before any work
    if args.cluster and args.verify == "atoms":
        raise InputError("--cluster spreads the full verification; --verify atoms is linear and runs here")
    sem = semantics_of(args, fmt, [construction.activation])
    if args.verify == "atoms":
        if getattr(construction.blocks, "atom_kinds", None) is None:
            raise InputError(f"--verify atoms is built for the relu family's networks, not for {construction.activation} "
                             f"(the {construction.family} family); use --verify full")
        if not sem.is_paper:
            raise InputError("--verify atoms rests on lemmas proved for the paper's semantics; --semantics needs "
                             "--verify full")
    nd = targets.dimension(resolve(args.targets)) > 1
    variant = args.variant
    vkw = {} if variant == "repaired" else {"variant": variant}  # the builders of a family that has it take it
    if variant != "repaired":  # before any work: the families that build it, 1-D, Theorem 3.1
        if variant not in getattr(construction.blocks, "ATOM_VARIANTS", ("repaired",)):
            from fpsmt.constructions.registry import constructions
            have = sorted({c.family for c in constructions().values()
                           if variant in getattr(c.blocks, "ATOM_VARIANTS", ())})
            raise InputError(f"--variant {variant}: the {variant} gradient atom is built for the {', '.join(have)} "
                             f"families, not for {construction.activation} (the {construction.family} family)")
        if nd and construction.family != "relu":
            raise InputError(f"--variant {variant}: d-dimensional targets are built for relu")
        if targets.theorem_of(resolve(args.targets)) == "3.2":
            raise InputError(f"--variant {variant}: built for Theorem 3.1 targets (not yet for Theorem 3.2 ones)")
    if args.depth is not None:  # before any work: a depth the lemmas cover, at or above the least
        if targets.theorem_of(resolve(args.targets)) == "3.2":
            raise InputError("--depth pads Theorem 3.1 networks; a Theorem 3.2 network has the depth its pieces need")
        from fpsmt.constructions import relu, relu_nd
        if nd:
            relu.theorem_depth(fmt, args.depth, least=relu_nd.least_depth(fmt, **vkw))
        else:
            with construction.active():
                construction.blocks.theorem_depth(fmt, args.depth, **vkw)
    if nd:
        from fpsmt.commands import construct_nd
        return construct_nd.construct(args, fmt, construction, resolve(args.targets), out_path, sem)
    if targets.theorem_of(resolve(args.targets)) == "3.2":
        if args.verify == "atoms":
            raise InputError("--verify atoms is for Theorem 3.1 targets; Theorem 3.2 networks are verified at every "
                             "(x, y)")
        if args.cluster:
            raise InputError("--cluster spreads the verification of Theorem 3.1 networks; Theorem 3.2 targets are "
                             "verified here")
        args.semantics_profile = sem
        from fpsmt.commands import construct32
        return construct32.construct(args, fmt, construction, resolve(args.targets), out_path)
    points = targets.load_targets(resolve(args.targets), fmt)
    construction.check_points(fmt, points)
    need, secs = estimate(len(points), args.verify, netio.kind_of(out_path))
    have = available_memory()
    if have is not None and need > have and not args.force:
        raise InputError(f"{len(points)} points need about {need / 2**30:.1f} GiB and {secs / 60:.0f} min by the "
                         f"estimate; {have / 2**30:.1f} GiB are available (--force builds anyway"
                         + ("; --verify atoms needs less" if args.verify != "atoms" else
                            "; a .safetensors --out needs less" if netio.kind_of(out_path) == "json" else "") + ")")
    check_requirements(args, fmt, construction)
    kinds = construction.blocks.atom_kinds(fmt, points, depth=args.depth, **vkw) if args.verify == "atoms" else None
    if kinds is not None:
        atoms_within_the_lemmas(points, kinds)
    atom_rows = atom_lemmas(args, fmt, construction) if args.verify == "atoms" else None
    spread = cluster.spec_of(args) if atom_rows is None else None
    with cluster.session(spread, None, err) as cl:  # a cluster is reached before anything is built
        err(f"fpsmt: building the {construction.activation} network for {len(points)} points in {fmt.name} (estimate: at most "
            f"{need / 2**20:.0f} MiB, verification about {secs:.0f} s) ...")
        t0 = time.perf_counter()
        net = construction.network(fmt, points, depth=args.depth, variant=variant)
        built = time.perf_counter() - t0
        with netio.pending_network(net, out_path) as (pending, size, written):  # verified and exported as written
            t1 = time.perf_counter()
            if atom_rows is None:
                err(f"  verifying at {len(points)} points (value and D^AD, bit for bit) ...")
                bad, f_got, g_got = targets.verify(fmt, written, points, cluster=cl, progress=err)
            else:
                err(f"  verifying at {len(points)} points from each point's own atoms (value and D^AD, bit for bit; every "
                    f"other atom's zeros by the lemmas above) ...")
                bad, f_got, g_got = targets.verify_atoms(fmt, written, points, net, kinds)
            checked = time.perf_counter() - t1
            if bad:
                pending.discard()  # a network that fails its verification is not left at --out
    n_ga = sum(1 for p in points if not fmt.is_zero(p[3]))
    summary = {"format": fmt.name, "points": len(points), "gradient_atoms": n_ga, "depth": net.depth,
               "activation": construction.activation, "variant": variant, "paper_depth": construction.paper_depth,
               "max_width": max(L.n_out for L in net.layers),
               "widths": [L.n_out for L in net.layers],
               "parameters": net.n_parameters(), "bytes": size, "out": str(out_path) if not bad else None,
               "verified": len(points) - len(bad), "mismatches": bad, "verify": args.verify,
               "seconds": {"build": round(built, 3), "verify": round(checked, 3)}}
    counts = getattr(construction.blocks, "value_atoms", None)  # the family's own count, where it differs
    with construction.active():
        n_va = counts(fmt, points) if counts is not None else len(points)
    summary["value_atoms"] = n_va
    err(f"fpsmt: {len(points)} points in {fmt.name}: {n_ga} gradient atoms, {n_va} value atoms"
        + (" (zero-gradient atoms)" if counts is None else " (one per piece of each nonzero f*)"))
    paper = f"the paper: L >= {construction.paper_depth}" if construction.paper_depth is not None else \
        "not one of the paper's activations"
    with construction.active():
        summary["least_depth"] = construction.blocks.least_depth(fmt, **vkw)
    padded = f"; padded from the least, {summary['least_depth']}" if net.depth > summary["least_depth"] else ""
    err(f"  depth {net.depth} ({paper}{padded}), widths {_runs(summary['widths'])}, "
        f"{summary['parameters']} parameters, {size} bytes" + (f" -> {out_path}" if not bad else ""))
    if atom_rows is not None:
        summary["lemmas"] = atom_rows
    how = "" if atom_rows is None else ", each from its own atoms and the PROVED lemma rows " + \
        ", ".join(r["lemma"] for r in atom_rows)
    err(f"  verified in the executor: {summary['verified']}/{len(points)} points bit-exact "
        f"(value and D^AD(h*(x)); a zero target met by either zero{how}); build {built:.2f} s, verify {checked:.2f} s")
    list_points("MISMATCH", bad)
    if bad:
        err(f"fpsmt: internal error: the network does not meet its targets at {len(bad)} point(s); "
            f"nothing written to {out_path}")
    if not sem.is_paper and not bad:
        summary["semantics"] = under(fmt, written, points, sem)
    if args.plot:
        summary["plot"] = _plot(args, fmt, points, f_got, g_got, net.depth, len(bad))
    if args.torch and not bad:
        summary["torch"] = _torch_check(fmt, written, points)
    if args.certify and not bad:
        summary["certificates"], summary["certified"] = certify.link_lemmas(args, fmt, construction)
    if args.json:
        out(json.dumps(summary))
    return 1 if bad else 0


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("construct", help="build the Theorem 3.1 network (an activation with a construction) for "
                                         "target values and gradients, save it and verify it bit for bit",
                       description="Targets: a CSV table with header x,f,h,g (hex patterns) or a Python file "
                                   "with domain(), f_star(x), h_star(x), g_star(x).  The network is f2 ⊞ f1 of "
                                   "the repaired blocks (fpsmt reproduce proves their lemmas).  A Python file "
                                   "whose g_star(x, y) takes two parameters selects Theorem 3.2: D^AD(y) = "
                                   "g*(x, y) for every finite y (ReLU, ELU, GELU, Swish; tanh for |y| <= H), "
                                   "in formats of at most 16 bits; g_pieces(x) gives g* as pieces in any format.")
    s.add_argument("--targets", required=True, help="CSV (x,f,h,g) or Python file")
    s.add_argument("--format", required=True, help="the floating-point format")
    s.add_argument("--activation", default="relu", help="an activation with a construction (default relu)")
    s.add_argument("--out", required=True, help="network file to write: safetensors if it ends in .safetensors, "
                                                  "else JSON")
    s.add_argument("--torch", action="store_true",
                   help="also run the network in PyTorch (extra fpsmt[torch]): as scalar operations in the paper's "
                        "order with torch.autograd, and as a plain nn.Linear stack; compare with the targets")
    s.add_argument("--certify", action="store_true",
                   help="also link the certificates of the lemmas the network rests on (fpsmt reproduce's repaired "
                        "rows) from the results store, proving them first where missing; Theorem 3.2 targets given "
                        "as pieces: also every point's program and network claims (--prove-network)")
    s.add_argument("--confirm", action=argparse.BooleanOptionalAction, default=True,
                   help="with --certify, and for Theorem 3.2's per-point claims: confirm every UNSAT answer with a "
                        "second back end or by enumeration "
                        "(default on; --no-confirm skips it, and the network is then certified only if the "
                        "store's answers were confirmed when found)")
    s.add_argument("--verify", choices=["full", "atoms"], default="full",
                   help="full (default): run the whole network at every point; atoms (relu): at each point run the "
                        "atoms built for it, and take every other atom's contribution — a zero value and a zero "
                        "gradient — from the PROVED lemma rows zero_gradient_atom, gradient_atom, "
                        "boxplus_neutrality and theorem_3_1_relu (d-dimensional targets: zero_gradient_atom_nd, "
                        "gradient_atom_nd, boxplus_neutrality and theorem_3_1_relu_nd; from the store, proved first "
                        "where missing): linear in the number of points")
    s.add_argument("--cluster", metavar="ADDRESS|local:N",
                   help=f"run the full verification on a Dask cluster: the network sent once, the points in parts; "
                        f"local:N starts N workers on this machine for the run, ADDRESS (tcp://host:8786) uses a "
                        f"running scheduler (default ${cluster.ENV}; needs the extra fpsmt[cluster])")
    s.add_argument("--variant", choices=("repaired", "shallow"), default="repaired",
                   help="1-D Theorem 3.1 targets: shallow builds the shallow gradient atoms (chain weights up to "
                        "about 2^e_max: relu 14-15 layers, tanh 11-12, sigmoid 12-13, gelu, swish and elu 17-18 from "
                        "bfloat16 up; the lemma rows of the gradient atom, the value atom and the theorem in their "
                        "shallow variant); default repaired")
    s.add_argument("--depth", type=positive_int, metavar="L",
                   help="Theorem 3.1 networks: L layers, at least the least depth (refused below it, naming it). "
                        "relu (1-D and d-dimensional): every atom padded by copies of its last hidden layer, which "
                        "the lemma row boxplus_neutrality proves for any number of copies; tanh, sigmoid, gelu, "
                        "swish, elu: the gradient atoms' chains begin with weights 1 (sigmoid: network weights 4) "
                        "and the value atoms carry longer, which the atoms' inductions cover (up to 2048 layers "
                        "more)")
    s.add_argument("--force", action="store_true",
                   help="build even when the estimated memory exceeds what is available")
    s.add_argument("--prove", action=argparse.BooleanOptionalAction, default=True,
                   help="Theorem 3.2 targets given as pieces (g_pieces): decide each point's ∀y claims "
                        "(default on; --no-prove leaves the executor's checks only; sigmoid's are decided by "
                        "enumerating y in formats of at most 16 bits, by a proof tree in wider ones)")
    s.add_argument("--prove-network", action="store_true",
                   help="Theorem 3.2 targets given as pieces, with --prove: also decide each point's network claims "
                        "(one per layer of its gated network at x, one per layer of the period for a run of layers "
                        "that repeats, and a zero D at every other domain point): about 100 claims per point in "
                        "bfloat16, 180 in float32 (sigmoid's built-in g at x = ±0: 438 in float32)")
    s.add_argument("--max-pieces", type=int, default=64, metavar="N",
                   help="Theorem 3.2 targets: the most pieces (constant or linear runs over |y|) per domain point "
                        "(default 64)")
    s.add_argument("--plot", default=None, metavar="PNG",
                   help="draw the network's value and D^AD against the targets (needs matplotlib: fpsmt[examples])")
    semantics_option(s, "a second verification of the network (built for the paper's semantics; the points "
                        "where it misses its targets under the profile are listed, exit 0)")
    solver_options(s, "portfolio", "claim (with --certify)", 600.0)
    s.set_defaults(fn=cmd_construct)
