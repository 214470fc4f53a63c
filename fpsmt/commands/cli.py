"""The ``fpsmt`` command line.

Exit codes: 0 for a run that produced results (a refuted claim is a result), 2 for bad
input or a missing dependency (one line on stderr), 1 for an internal error (a bug).
With ``--json`` stdout holds JSON only; tables, progress and warnings go to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path

from fpsmt import __version__
from fpsmt.errors import InputError, ReplayMismatch


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"fpsmt: error: {message} (see '{self.prog} --help')\n")


def _out(text=""):
    sys.stdout.write(text + "\n")


def _err(text=""):
    sys.stderr.write(text + "\n")


# ------------------------------------------------------------------ commands
def cmd_formats(args):
    from fpsmt.semantics.formats import NAMED, parse_format
    rows = []
    for name in NAMED:
        f = parse_format(name)
        rows.append({"format": name, "E": f.E, "M": f.M, "bits": f.nbits, "e_min": f.e_min, "e_max": f.e_max,
                     "omega": f.hex(1), "Omega": f.hex(f.max_bits),
                     "dtype": str(f.np_dtype) if f.np_dtype is not None else None})
    if args.json:
        _out(json.dumps(rows))
        return 0
    _out(f"{'format':<12} {'E':>2} {'M':>3} {'bits':>4} {'e_min':>6} {'e_max':>5}  {'Omega':<20} dtype")
    for r in rows:
        f = parse_format(r["format"])
        _out(f"{r['format']:<12} {r['E']:>2} {r['M']:>3} {r['bits']:>4} {r['e_min']:>6} {r['e_max']:>5}  "
             f"{f.describe(f.max_bits):<20} {r['dtype']}")
    _out("custom formats: ExMy with 2 <= x <= 15, 1 <= y <= 112 (e.g. E8M23)")
    return 0


def cmd_eval(args):
    import numpy as np
    from fpsmt.semantics.arith import concrete
    from fpsmt.commands.netio import load_network, load_points
    from fpsmt.semantics.network import Semantics, run
    from fpsmt.resources import resolve
    net = load_network(resolve(args.network))
    fmt = net.fmt
    xs, ys = load_points(resolve(args.points), fmt, net.n_in, net.n_out)
    A = concrete(fmt)
    t = run(A, net, A.const(xs), A.const(ys), sem=Semantics(fold_init=args.fold_init))
    fb, gb = A.to_bits(t.out), A.to_bits(t.grad)
    lines = []
    for i in range(len(xs)):
        lines.append(json.dumps({"f": [fmt.hex(int(v)) for v in np.ravel(fb[i])],
                                 "grad": [fmt.hex(int(v)) for v in np.ravel(gb[i])]}))
    sys.stdout.write("\n".join(lines) + "\n")
    _err(f"evaluated {len(xs)} point(s) of a depth-{net.depth} {fmt.name} network "
         f"({net.n_in} -> {net.n_out}) with the bit-exact executor ({type(A).__name__})")
    return 0


def cmd_counterexample(args):
    from fpsmt.commands.counterexample import KINDS
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(args.format)
    _err(f"searching for a {args.kind} counterexample in {fmt.name} with z3 ...")
    w = KINDS[args.kind](fmt, timeout_s=args.timeout)
    if args.json:
        _out(json.dumps(w.to_json(), ensure_ascii=False))
        _err("replayed" if w.replayed else "NOT replayed")
    else:
        _out(w.render())
    return 0


def _parse_target(text):
    """FILE.py[:NAME] -> (path, name or None); FILE may be example:NAME.py."""
    from fpsmt.resources import resolve
    path, _, name = text.rpartition(":") if text.count(":") > (1 if text.startswith(("example:", "spec:", "proof:")) else 0) \
        else (text, "", "")
    return resolve(path), (name or None)


def _format_names(args):
    """The formats of a repeatable ``--format`` option, commas allowed."""
    return [f for fs in args.format or [] for f in fs.split(",") if f]


@contextlib.contextmanager
def _engine_session(args, **options):
    """An engine on the results store of ``args``; solver workers and store closed at the end."""
    from fpsmt.proof import solve as solve
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.store import Store
    eng = Engine(solver=args.solver, timeout=args.timeout, recheck=args.recheck, progress=_err, **options)
    eng.store = Store(args.store)
    try:
        yield eng
    finally:
        solve.shutdown()
        eng.store.close()


def _solver_options(parser, default_solver, what, default_timeout):
    """The options every solving subcommand shares."""
    parser.add_argument("--solver", default=default_solver,
                        help=f"z3, cvc5, bitwuzla, portfolio or exhaustive (enumeration, small formats); "
                             f"default {default_solver}")
    parser.add_argument("--timeout", type=float, default=default_timeout,
                        help=f"wall-clock limit per {what}, seconds (default {default_timeout:g})")
    parser.add_argument("--store", default=None, help="results store (SQLite); default in the user cache folder")
    parser.add_argument("--recheck", action="store_true", help="solve again even when the store has the answer")
    parser.add_argument("--json", action="store_true", help="print JSON only on stdout")


def cmd_prove(args):
    from fpsmt.proof.engine import load_claims, order_by_assumptions
    from fpsmt.semantics.formats import parse_format
    path, name = _parse_target(args.target)
    claims = load_claims(path)
    if name is not None and name not in claims:
        raise InputError(f"{path}: no claim named {name!r} (defined: {', '.join(sorted(claims))})")
    fmts = [parse_format(f) for f in _format_names(args)]
    wanted = [claims[name]] if name else list(claims.values())
    todo = order_by_assumptions(wanted)
    results = []
    with _engine_session(args, confirm=args.confirm) as eng:
        for fmt in fmts:
            for c in todo:
                if not c.applies_to(fmt):
                    _err(f"skipping {c.name} in {fmt.name}: stated for {', '.join(c.formats)} only")
                    continue
                _err(f"proving {c.name} ({c.kind}) in {fmt.name} with {args.solver} ...")
                r = eng.prove(c, fmt, claims)
                results.append(r)
                _err(f"  {r.status}{' (cached)' if r.cached else ''} by {r.solver or '-'} in {r.seconds:.2f} s"
                     + (f": {r.reason}" if r.reason else ""))
    if args.json:
        _out(json.dumps([r.to_json() for r in results], ensure_ascii=False))
    else:
        _print_results(results)
    return 0


def _print_results(results):
    _out(f"{'claim':<24} {'format':<12} {'status':<8} {'solver':<9} {'seconds':>8}  witness / counterexample")
    for r in results:
        wit = ", ".join(f"{k}={v}" for k, v in r.witness_json().items())
        tag = " (cached)" if r.cached else ""
        _out(f"{r.claim:<24} {r.format.name:<12} {r.status:<8} {r.solver or '-':<9} {r.seconds:>8.2f}  "
             f"{wit}{tag}" + (f"  [{r.reason}]" if r.status == "UNKNOWN" else ""))
        if r.witness:
            f = r.format
            _out("    " + ", ".join(f"{k} = {f.describe(v)}" if k in r.float_vars else f"{k} = {v}"
                                    for k, v in r.witness.items()))


def cmd_activation_table(args):
    import os
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.activations.rounding import TABLE_MAX_BITS, table
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(args.format)
    act = get_activation(args.activation)
    if act.real is None:
        raise InputError(f"{act.name} has no real definition to tabulate")
    if fmt.nbits > TABLE_MAX_BITS:
        raise InputError(f"{fmt.name} has {fmt.nbits} bits: tables are for formats of at most {TABLE_MAX_BITS} bits")
    _err(f"tabulating {act.name} in {fmt.name} ({1 << fmt.nbits} inputs) ...")
    t = table(act.real, fmt, progress=lambda d, n: _err(f"  {d}/{n}"))
    tmp = f"{args.out}.tmp"
    with open(tmp, "w") as fh:
        fh.write("x,sigma,sigma_prime\n")
        fh.writelines(f"{fmt.hex(b)},{fmt.hex(int(t[b, 0]))},{fmt.hex(int(t[b, 1]))}\n" for b in range(1 << fmt.nbits))
    os.replace(tmp, args.out)
    _err(f"wrote {args.out}: {1 << fmt.nbits} rows (hex patterns; NaN as {fmt.hex(fmt.nan_bits)}), "
         "every value decided by a rigorous Ziv loop")
    return 0


def cmd_activation_compare(args):
    from fpsmt.semantics.activations.compare import compare
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(args.format)
    act = get_activation(args.activation)
    rows = compare(act, fmt, samples=args.samples, progress=_err)
    if args.json:
        _out(json.dumps(rows))
        return 0
    _out(f"{act.name} in {fmt.name}: correctly rounded values against other implementations "
         f"({rows[0]['inputs'] if rows else 0} inputs)")
    _out(f"{'implementation':<34} {'which':<11} {'mismatches':>10} {'worst ulps':>10}  worst input")
    for r in rows:
        _out(f"{r['implementation']:<34} {r['which']:<11} {r['mismatches']:>10} {r['worst_ulps']:>10}  "
             f"{r['worst_input'] or '-'}")
    for r in rows:
        if r.get("note"):
            _out(f"note: {r['implementation']}: {r['note']}")
    return 0


def cmd_conditions(args):
    from fpsmt.proof import conditions as conditions
    from fpsmt.semantics.activations import PAPER_SIX
    if args.all:
        acts, fmts = list(PAPER_SIX), list(conditions.ALL_FORMATS)
    else:
        if not args.activation or not args.format:
            raise InputError("give --activation and --format, or --all")
        acts, fmts = [args.activation], _format_names(args)
    with _engine_session(args) as eng:
        rows = conditions.run(eng, acts, fmts, spec=args.spec, progress=_err)
    if args.json:
        _out(json.dumps([{k: r[k] for k in ("activation", "format", "condition", "status", "branch", "witness",
                                              "seconds")} for r in rows], ensure_ascii=False))
    else:
        _out(conditions.markdown(rows))
    return 0


def cmd_reproduce(args):
    from fpsmt.proof import lemmas as reproduce
    from fpsmt.semantics.formats import parse_format
    lemmas = [n for ns in args.lemma or [] for n in ns.split(",") if n] or list(reproduce.LEMMAS)
    for n in lemmas:
        if n not in reproduce.LEMMAS:
            raise InputError(f"unknown lemma {n!r}: use one of {', '.join(reproduce.LEMMAS)}")
    fmts = _format_names(args) or list(reproduce.DEFAULT_FORMATS)
    for f in fmts:
        parse_format(f)
    variants = [args.variant] if args.variant else ["released", "repaired"]
    for v in variants:
        if v not in ("released", "repaired"):
            raise InputError(f"unknown variant {v!r}: use released or repaired")
    with _engine_session(args, confirm=args.confirm) as eng:
        rows = reproduce.run(eng, lemmas, variants, fmts, progress=_err)
    report = reproduce.markdown(rows)
    path = Path(args.report)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(report, encoding="utf-8")
    os.replace(tmp, path)
    _err(report)
    _err(f"fpsmt: report written to {path}")
    missing = sorted({r["lemma"] for r in rows if r["status"] == "MISSING"})
    if missing:
        _err(f"fpsmt: warning: no proof yet for {', '.join(missing)} (rows marked MISSING)")
    if args.json:
        fields = ("lemma", "variant", "format", "status", "statement", "counterexample", "solver", "seconds")
        fields += ("confirmed",) if args.confirm else ()  # {"stages", "by", "unconfirmed"}: see reproduce
        _out(json.dumps([{k: r.get(k) for k in fields} for r in rows], ensure_ascii=False))
    return 0


def _torch_check(fmt, net, points):
    import time

    from fpsmt.commands import targets as targets
    from fpsmt.commands import torch_export as torch_export
    t0 = time.perf_counter()
    _err(f"  PyTorch: running the network at {len(points)} points (scalar module, then nn.Linear stack) ...")
    rep = torch_export.compare(fmt, net, points, targets.meets)
    rep["seconds"] = round(time.perf_counter() - t0, 3)
    for key, what in (("scalar", "scalar operations in the paper's order, torch.autograd"),
                      ("linear", "plain nn.Linear/nn.ReLU stack, same weights")):
        r = rep[key]
        if "skipped" in r:
            _err(f"  torch {rep['torch']} {rep['dtype']}, {what}: skipped ({r['skipped']})")
            continue
        _err(f"  torch {rep['torch']} {rep['dtype']}, {what}: {r['bit_exact']}/{r['points']} points bit-exact "
             f"({r['value_differs']} values and {r['grad_differs']} gradients differ)")
        for d in r["differences"][:5]:
            _err(f"    x = {d['x']}: f = {d['f']} (target {d['f_target']}), D^AD = {d['grad']} "
                 f"(target {d['g_target']}): {d['why']}")
    if fmt.name in ("bfloat16", "float16"):
        _err(f"  note: PyTorch's CPU kernels compute {fmt.name} operations in float32 and round once per "
             "operation (exact for one + or ×); its matmul accumulates a row in higher precision and rounds "
             "once (in bfloat16 [256, 1, 1]·[1, 1, 1] gives 258, left-to-right rounding 256)")
    return rep


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'fpsmt[examples]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _plot(args, fmt, points, f_got, g_got, depth, n_bad):
    """Two panels: the network's value against f*, and its D^AD against g* and, when the
    targets file defines ``df_star(x)``, the true derivative of f*."""
    from fpsmt.resources import resolve
    from fpsmt.commands.targets import true_derivative
    plt = _matplotlib()
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
    fig.suptitle(f"fpsmt construct: {len(points)} points in {fmt.name}, ReLU network of depth {depth}, {exact}",
                 fontsize=10)
    fig.tight_layout()
    path = Path(args.plot)
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, path)
    _err(f"  plot written to {path}")
    return str(path)


def _certify(args, fmt):
    """The repaired lemmas the construction rests on, from the results store (proved now
    where missing): per lemma its status and the store keys of its claims."""
    from fpsmt.proof import lemmas as reproduce
    _err(f"  certificates: the repaired lemmas of {', '.join(reproduce.CONSTRUCTION)} in {fmt.name} "
         f"(from the store {args.store or 'default'}, proved where missing) ...")
    with _engine_session(args) as eng:
        rows = reproduce.run(eng, list(reproduce.CONSTRUCTION), ["repaired"], [fmt.name], progress=_err)
    certs = [{k: r.get(k) for k in ("lemma", "status", "statement", "seconds", "reason", "keys")} for r in rows]
    for c in certs:
        _err(f"    {c['lemma']}: {c['status']}" + (f" ({c['reason']})" if c["status"] != "PROVED" else "")
             + f", {len(c['keys'] or [])} store entries")
    ok = all(c["status"] == "PROVED" for c in certs)
    _err("  certified: every lemma the network rests on is PROVED for all its parameters" if ok else
         "  NOT certified: " + ", ".join(f"{c['lemma']} is {c['status']}" for c in certs if c["status"] != "PROVED"))
    return certs, ok


def _runs(values):
    """``[5, 5, 5, 3]`` as ``5 (3 layers), 3``: a long list of layer widths in one short line."""
    out, i = [], 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        out.append(f"{values[i]} ({j - i} layers)" if j - i > 1 else str(values[i]))
        i = j
    return ", ".join(out)


def cmd_construct(args):
    import time

    from fpsmt.constructions import relu as construct
    from fpsmt.commands import netio as netio
    from fpsmt.commands import targets as targets
    from fpsmt.semantics.formats import parse_format
    from fpsmt.resources import resolve
    fmt = parse_format(args.format)
    if args.torch:
        from fpsmt.commands import torch_export as torch_export
        torch_export.check_format(fmt)
        torch_export.torch_module()
    points = targets.load_targets(resolve(args.targets), fmt)
    if args.plot:
        _matplotlib()
    t0 = time.perf_counter()
    net = construct.theorem_network(fmt, points)
    built = time.perf_counter() - t0
    out = Path(args.out)
    size = netio.save_network(net, out)
    t1 = time.perf_counter()
    written = netio.load_network(out)  # verified and exported as written, not as built
    bad, f_got, g_got = targets.verify(fmt, written, points)
    checked = time.perf_counter() - t1
    n_ga = sum(1 for p in points if not fmt.is_zero(p[3]))
    summary = {"format": fmt.name, "points": len(points), "gradient_atoms": n_ga, "depth": net.depth,
               "paper_depth": 7, "max_width": max(L.n_out for L in net.layers),
               "widths": [L.n_out for L in net.layers],
               "parameters": net.n_parameters(), "bytes": size, "out": str(out),
               "verified": len(points) - len(bad), "mismatches": bad,
               "seconds": {"build": round(built, 3), "verify": round(checked, 3)}}
    _err(f"fpsmt: {len(points)} points in {fmt.name}: {n_ga} gradient atoms, {len(points)} zero-gradient atoms")
    _err(f"  depth {net.depth} (the paper: L >= 7), widths {_runs(summary['widths'])}, "
         f"{summary['parameters']} parameters, {size} bytes -> {out}")
    _err(f"  verified in the executor: {summary['verified']}/{len(points)} points bit-exact "
         f"(value and D^AD(h*(x)); a zero target met by either zero); build {built:.2f} s, verify {checked:.2f} s")
    for b in bad[:10]:
        _err(f"  MISMATCH at x = {b['x']}: f = {b['f']} (target {b['f_target']}), "
             f"D^AD = {b['grad']} (target {b['g_target']})")
    if args.plot:
        summary["plot"] = _plot(args, fmt, points, f_got, g_got, net.depth, len(bad))
    if args.torch and not bad:
        summary["torch"] = _torch_check(fmt, written, points)
    if args.certify and not bad:
        summary["certificates"], summary["certified"] = _certify(args, fmt)
    if args.json:
        _out(json.dumps(summary))
    return 1 if bad else 0


def cmd_paths(args):
    from fpsmt.resources import FOLDERS, folder
    paths = {name: str(folder(name)) for name in FOLDERS}
    if args.json:
        _out(json.dumps(paths))
    else:
        for k, v in paths.items():
            _out(f"{k:<9} {v}")
    return 0


# ------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fpsmt", description="SMT-checked proofs about floating-point networks and their AD gradients")
    p.add_argument("--version", action="version", version=f"fpsmt {__version__}")
    sub = p.add_subparsers(dest="command", metavar="SUBCOMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("formats", help="list the named floating-point formats")
    s.add_argument("--json", action="store_true", help="print JSON only on stdout")
    s.set_defaults(fn=cmd_formats)

    s = sub.add_parser("eval", help="run a network JSON on points: forward value and D^AD, bit-exact",
                       description="Each CSV row (no header) holds the input's hex patterns, then the upstream "
                                   "gradient's (one per output). Prints one JSON object per row on stdout: "
                                   '{"f": [hex, ...], "grad": [hex, ...]}. Paths may be example:NAME.')
    s.add_argument("network", help="network JSON file (or example:NAME)")
    s.add_argument("--points", required=True, help="points CSV file (or example:NAME)")
    s.add_argument("--fold-init", choices=["first", "+0"], default="first",
                   help="start of each row sum: the first product (the paper's, default) or +0")
    s.set_defaults(fn=cmd_eval)

    s = sub.add_parser("counterexample", help="search, replay and print a counterexample",
                       description="associativity: a, b, c with (a⊗b)⊗c ≠ a⊗(b⊗c), all finite. "
                                   "proportionality: a 1-2-1 ReLU network, x, y1, y2 with "
                                   "D(y2)·y1 ≠ D(y1)·y2 as exact rationals, all finite and nonzero.")
    s.add_argument("kind", choices=["associativity", "proportionality"])
    s.add_argument("--format", required=True, help="format name, alias or ExMy")
    s.add_argument("--timeout", type=float, default=300.0, help="solver time limit in seconds (default 300)")
    s.add_argument("--json", action="store_true", help="print JSON only on stdout")
    s.set_defaults(fn=cmd_counterexample)

    s = sub.add_parser("prove", help="prove the claims a Python file defines, per format",
                       description="Claims are exists / forall / exists_forall statements (fpsmt.proof.claims). "
                                   "PROVED: a replayed witness or an unsat negation; REFUTED: a replayed "
                                   "counterexample or an unsat proof that no witness exists; UNKNOWN: why.")
    s.add_argument("target", help="FILE.py or FILE.py:NAME (FILE may be example:claims.py)")
    s.add_argument("--format", required=True, action="append",
                   help="format(s); repeat or separate with commas")
    _solver_options(s, "z3", "claim", 60.0)
    s.add_argument("--confirm", action="store_true", help="re-check every UNSAT answer with a second solver")
    s.set_defaults(fn=cmd_prove)

    s = sub.add_parser("activation", help="correctly rounded activations: tables and comparisons")
    asub = s.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
    asub.required = True
    a = asub.add_parser("table", help="every input pattern of a format of <= 16 bits: x, σ_F(x), σ'_F(x)")
    a.add_argument("--activation", required=True, help="name (relu, gelu, leaky_relu:0.2 …) or FILE.py:NAME")
    a.add_argument("--format", required=True)
    a.add_argument("--out", required=True, help="CSV file to write (header x,sigma,sigma_prime; hex)")
    a.set_defaults(fn=cmd_activation_table)
    a = asub.add_parser("compare", help="compare σ_F, σ'_F with NumPy/ml_dtypes (and PyTorch, JAX if installed)")
    a.add_argument("--activation", required=True)
    a.add_argument("--format", required=True)
    a.add_argument("--samples", type=int, default=20000, help="random inputs for formats of more than 16 bits")
    a.add_argument("--json", action="store_true", help="print JSON only on stdout")
    a.set_defaults(fn=cmd_activation_compare)

    s = sub.add_parser("conditions", help="Conditions 1-3 of an activation per format (spec: specs/conditions.py)",
                       description="Each condition of the spec file is decided per format: PROVED with replayed "
                                   "witnesses (and, for a disjunction, its branch), REFUTED, or UNKNOWN with the "
                                   "reason. The shipped spec states C1 (a reconstruction), C2 and C3 of BRIEF §6.")
    s.add_argument("--activation", help="name or FILE.py:NAME")
    s.add_argument("--format", action="append", help="format(s); repeat or separate with commas")
    s.add_argument("--all", action="store_true", help="the paper's six activations x seven formats")
    s.add_argument("--spec", help="a spec file defining C1, C2, C3 (functions of the activation)")
    _solver_options(s, "portfolio", "condition", 120.0)
    s.set_defaults(fn=cmd_conditions)

    s = sub.add_parser("reproduce", help="the ReLU construction lemmas (proofs/) per format, released and repaired",
                       description="Each lemma of proofs/ is stated for all its parameters and discharged per "
                                   "format: PROVED, REFUTED with a replayed counterexample, or UNKNOWN with the "
                                   "reason. A markdown report goes to --report and to stderr.")
    s.add_argument("--format", action="append", help="format(s); repeat or separate with commas "
                                                     "(default bfloat16,float32)")
    s.add_argument("--lemma", action="append", help="lemma name(s); default all")
    s.add_argument("--variant", help="released or repaired (default both)")
    s.add_argument("--report", default="fpsmt-reproduce.md", help="markdown report file (default fpsmt-reproduce.md)")
    s.add_argument("--confirm", action="store_true", help="confirm UNSAT answers with a second solver")
    _solver_options(s, "portfolio", "claim", 600.0)
    s.set_defaults(fn=cmd_reproduce)

    s = sub.add_parser("construct", help="build the Theorem 3.1 ReLU network for target values and gradients, "
                                         "save it and verify it bit for bit",
                       description="Targets: a CSV table with header x,f,h,g (hex patterns) or a Python file "
                                   "with domain(), f_star(x), h_star(x), g_star(x).  The network is f2 ⊞ f1 of "
                                   "the repaired blocks (fpsmt reproduce proves their lemmas).")
    s.add_argument("--targets", required=True, help="CSV (x,f,h,g) or Python file")
    s.add_argument("--format", required=True, help="the floating-point format")
    s.add_argument("--out", required=True, help="network JSON to write")
    s.add_argument("--torch", action="store_true",
                   help="also run the network in PyTorch (extra fpsmt[torch]): as scalar operations in the paper's "
                        "order with torch.autograd, and as a plain nn.Linear stack; compare with the targets")
    s.add_argument("--certify", action="store_true",
                   help="also link the certificates of the lemmas the network rests on (fpsmt reproduce's repaired "
                        "rows) from the results store, proving them first where missing")
    s.add_argument("--plot", default=None, metavar="PNG",
                   help="draw the network's value and D^AD against the targets (needs matplotlib: fpsmt[examples])")
    _solver_options(s, "portfolio", "claim (with --certify)", 600.0)
    s.set_defaults(fn=cmd_construct)

    s = sub.add_parser("paths", help="where the shipped specs/, proofs/ and examples/ are")
    s.add_argument("--json", action="store_true", help="print JSON only on stdout")
    s.set_defaults(fn=cmd_paths)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except InputError as e:
        _err(f"fpsmt: error: {e}")
        return 2
    except ReplayMismatch as e:
        _err(f"fpsmt: internal error: {e}")
        return 1
    except KeyboardInterrupt:
        _err("fpsmt: interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
