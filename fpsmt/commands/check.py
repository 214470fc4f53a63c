"""``fpsmt check CERT.json``: re-establish a certificate of ``fpsmt reproduce`` from scratch."""

from __future__ import annotations

import json

from fpsmt.commands.options import atomic_output, err, out, output_path, solver_options
from fpsmt.errors import InputError

#: exit status of a certificate that is not re-established (a node differs, is missing,
#: is UNKNOWN or is decided otherwise)
NOT_ESTABLISHED = 3


def cmd_check(args):
    from fpsmt.commands.netio import read_text
    from fpsmt.proof import solve
    from fpsmt.proof.certificate import check, parse
    from fpsmt.proof.engine import Engine
    if args.store is not None or args.recheck:
        raise InputError("fpsmt check decides every node from scratch: it takes no --store or --recheck")
    html_path = output_path(args.html, "--html") if args.html else None
    text = read_text(args.certificate, "certificate")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{args.certificate}: not JSON ({e.msg} at line {e.lineno})") from None
    rows = parse(doc, args.certificate)
    from fpsmt.constructions.registry import get_construction
    eng = Engine(solver=args.solver, timeout=args.timeout, confirm=True, store=None, progress=err)
    try:
        results = check(rows, eng, lambda a: get_construction(a).active(), progress=err,
                        construction_of=get_construction)
    finally:
        solve.shutdown()
    bad = [r for r in results if not r["ok"]]
    for r in results:
        err(f"{'OK ' if r['ok'] else 'NOT'} {r['row']}: {len(r['nodes'])} node(s) re-decided"
            + "".join(f"\n    {p}" for p in r["problems"]))
    err(f"fpsmt check: {len(results) - len(bad)} of {len(results)} row(s) re-established"
        + ("" if not bad else f"; {len(bad)} not (exit {NOT_ESTABLISHED})"))
    if html_path is not None:
        from fpsmt.proof.html_report import page
        with atomic_output(html_path) as pending:
            pending.path.write_text(page(rows, f"fpsmt check {args.certificate}", checks=results), encoding="utf-8")
        err(f"fpsmt: HTML report written to {html_path}")
    if args.json:
        out(json.dumps({"certificate": args.certificate, "ok": not bad, "rows": results}, ensure_ascii=False))
    return NOT_ESTABLISHED if bad else 0


def register(sub):
    s = sub.add_parser("check", help="re-establish a certificate of `fpsmt reproduce --certificate` from scratch",
                       description="Rebuilds every row's proof tree from the installed proof files, compares it "
                                   "node by node with the certificate, and decides every node again (no store; "
                                   "every UNSAT confirmed by a second back end or by enumeration). Exit 0 when "
                                   "every row is re-established, 3 when a node differs, is missing, is UNKNOWN "
                                   "or is decided otherwise, 2 for a file that is not a certificate.")
    s.add_argument("certificate", help="CERT.json written by `fpsmt reproduce --certificate`")
    s.add_argument("--html", help="also write a self-contained HTML page: the rows, each re-established or not, "
                                  "and their trees")
    solver_options(s, "portfolio", "claim", 600.0)
    s.set_defaults(fn=cmd_check)
