"""``fpsmt eval``: a network's value and D^AD at points, bit-exact, in the executor."""

from __future__ import annotations

import json
import sys

from fpsmt.commands.options import err, semantics_of, semantics_option


def cmd_eval(args):
    import numpy as np
    from fpsmt.semantics.arith import concrete
    from fpsmt.commands.netio import load_network, load_points
    from dataclasses import replace
    from fpsmt.errors import InputError
    from fpsmt.semantics.network import run
    from fpsmt.resources import resolve
    net = load_network(resolve(args.network))
    fmt = net.fmt
    xs, ys = load_points(resolve(args.points), fmt, net.n_in, net.n_out)
    sem = semantics_of(args, fmt, {L.activation for L in net.layers})
    if args.fold_init != "first":
        if sem.fold_init != "first" and sem.fold_init != args.fold_init:
            raise InputError(f"--fold-init {args.fold_init} contradicts --semantics {args.semantics}")
        sem = replace(sem, fold_init=args.fold_init)
    A = concrete(fmt)
    t = run(A, net, A.const(xs), A.const(ys), sem=sem)
    fb, gb = A.to_bits(t.out), A.to_bits(t.grad)
    lines = []
    for i in range(len(xs)):
        lines.append(json.dumps({"f": [fmt.hex(int(v)) for v in np.ravel(fb[i])],
                                 "grad": [fmt.hex(int(v)) for v in np.ravel(gb[i])]}))
    sys.stdout.write("\n".join(lines) + "\n")
    err(f"evaluated {len(xs)} point(s) of a depth-{net.depth} {fmt.name} network "
         f"({net.n_in} -> {net.n_out}) with the bit-exact executor ({type(A).__name__}), semantics {sem.spec}")
    return 0


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("eval", help="run a network file (JSON or safetensors) on points: forward value and D^AD, bit-exact",
                       description="Each CSV row (no header) holds the input's hex patterns, then the upstream "
                                   "gradient's (one per output). Prints one JSON object per row on stdout: "
                                   '{"f": [hex, ...], "grad": [hex, ...]}. Paths may be example:NAME.')
    s.add_argument("network", help="network file: safetensors if it ends in .safetensors, else JSON (or example:NAME)")
    s.add_argument("--points", required=True, help="points CSV file (or example:NAME)")
    s.add_argument("--fold-init", choices=["first", "+0"], default="first",
                   help="start of each row sum: the first product (the paper's, default) or +0 "
                        "(the same as --semantics fold=+0)")
    semantics_option(s, "the network")
    s.set_defaults(fn=cmd_eval)
