"""The ``fpsmt`` command line.

Exit codes: 0 for a run that produced results (a refuted claim is a result), 2 for bad
input or a missing dependency (one line on stderr), 1 for an internal error (a bug).
With ``--json`` stdout holds JSON only; tables, progress and warnings go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import __version__
from .errors import InputError


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"fpsmt: error: {message} (see '{self.prog} --help')\n")


def _out(text=""):
    sys.stdout.write(text + "\n")


def _err(text=""):
    sys.stderr.write(text + "\n")


# ------------------------------------------------------------------ commands
def cmd_formats(args):
    from .formats import NAMED, parse_format
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
    from .arith import concrete
    from .netio import load_network, load_points
    from .network import Semantics, run
    from .resources import resolve
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
    from .counterexamples import KINDS
    from .formats import parse_format
    fmt = parse_format(args.format)
    _err(f"searching for a {args.kind} counterexample in {fmt.name} with z3 ...")
    w = KINDS[args.kind](fmt, timeout_s=args.timeout)
    if args.json:
        _out(json.dumps(w.to_json(), ensure_ascii=False))
        _err("replayed" if w.replayed else "NOT replayed")
    else:
        _out(w.render())
    return 0


def cmd_paths(args):
    from .resources import FOLDERS, folder
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
    except KeyboardInterrupt:
        _err("fpsmt: interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
