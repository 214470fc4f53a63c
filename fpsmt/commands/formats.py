"""``fpsmt formats``: the named formats and their constants."""

from __future__ import annotations

import json

from fpsmt.commands.options import out


def cmd_formats(args):
    from fpsmt.semantics.formats import NAMED, parse_format
    rows = []
    for name in NAMED:
        f = parse_format(name)
        rows.append({"format": name, "E": f.E, "M": f.M, "bits": f.nbits, "e_min": f.e_min, "e_max": f.e_max,
                     "omega": f.hex(1), "Omega": f.hex(f.max_bits),
                     "dtype": str(f.np_dtype) if f.np_dtype is not None else None})
    if args.json:
        out(json.dumps(rows))
        return 0
    out(f"{'format':<12} {'E':>2} {'M':>3} {'bits':>4} {'e_min':>6} {'e_max':>5}  {'Omega':<20} dtype")
    for r in rows:
        f = parse_format(r["format"])
        out(f"{r['format']:<12} {r['E']:>2} {r['M']:>3} {r['bits']:>4} {r['e_min']:>6} {r['e_max']:>5}  "
             f"{f.describe(f.max_bits):<20} {r['dtype']}")
    out("custom formats: ExMy with 2 <= x <= 15, 1 <= y <= 112 (e.g. E8M23)")
    return 0


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("formats", help="list the named floating-point formats")
    s.add_argument("--json", action="store_true", help="print JSON only on stdout")
    s.set_defaults(fn=cmd_formats)
