"""``fpsmt activation table|compare``: correctly rounded activations as tables, and other implementations against them."""

from __future__ import annotations

import json

from fpsmt.commands.options import Parser, err, out, positive_int
from fpsmt.errors import InputError


def cmd_activation_table(args):
    from fpsmt.commands.options import atomic_output, output_path
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.activations.rounding import TABLE_MAX_BITS, table
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(args.format)
    out_path = output_path(args.out, "--out")
    act = get_activation(args.activation)
    if act.real is None:
        raise InputError(f"{act.name} has no real definition to tabulate")
    if fmt.nbits > TABLE_MAX_BITS:
        raise InputError(f"{fmt.name} has {fmt.nbits} bits: tables are for formats of at most {TABLE_MAX_BITS} bits")
    err(f"tabulating {act.name} in {fmt.name} ({1 << fmt.nbits} inputs) ...")
    t = table(act.real, fmt, progress=lambda d, n: err(f"  {d}/{n}"))
    with atomic_output(out_path) as pending, open(pending.path, "w", encoding="utf-8") as fh:
        fh.write("x,sigma,sigma_prime\n")
        fh.writelines(f"{fmt.hex(b)},{fmt.hex(int(t[b, 0]))},{fmt.hex(int(t[b, 1]))}\n" for b in range(1 << fmt.nbits))
    err(f"wrote {args.out}: {1 << fmt.nbits} rows (hex patterns; NaN as {fmt.hex(fmt.nan_bits)}), "
         "every value decided by a rigorous Ziv loop")
    return 0


def cmd_activation_compare(args):
    from fpsmt.semantics.activations.compare import compare
    from fpsmt.semantics.activations import get_activation
    from fpsmt.semantics.formats import parse_format
    fmt = parse_format(args.format)
    act = get_activation(args.activation)
    rows = compare(act, fmt, samples=args.samples, progress=err)
    if args.json:
        out(json.dumps(rows))
        return 0
    out(f"{act.name} in {fmt.name}: correctly rounded values against other implementations "
         f"({rows[0]['inputs'] if rows else 0} inputs)")
    out(f"{'implementation':<34} {'which':<11} {'mismatches':>10} {'worst ulps':>10}  worst input")
    for r in rows:
        out(f"{r['implementation']:<34} {r['which']:<11} {r['mismatches']:>10} {r['worst_ulps']:>10}  "
             f"{r['worst_input'] or '-'}")
    for r in rows:
        if r.get("note"):
            out(f"note: {r['implementation']}: {r['note']}")
    return 0


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("activation", help="correctly rounded activations: tables and comparisons")
    asub = s.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    asub.required = True
    a = asub.add_parser("table", help="every input pattern of a format of <= 16 bits: x, σ_F(x), σ'_F(x)")
    a.add_argument("--activation", required=True, help="name (relu, gelu, leaky_relu:0.2 …) or FILE.py:NAME")
    a.add_argument("--format", required=True)
    a.add_argument("--out", required=True, help="CSV file to write (header x,sigma,sigma_prime; hex)")
    a.set_defaults(fn=cmd_activation_table)
    a = asub.add_parser("compare", help="compare σ_F, σ'_F with NumPy/ml_dtypes (and PyTorch, JAX if installed)")
    a.add_argument("--activation", required=True)
    a.add_argument("--format", required=True)
    a.add_argument("--samples", type=positive_int, default=20000, help="random inputs for formats of more than 16 bits")
    a.add_argument("--json", action="store_true", help="print JSON only on stdout")
    a.set_defaults(fn=cmd_activation_compare)

