"""``fpsmt reproduce``: the construction lemmas of ``proofs/`` per format and variant, and their report."""

from __future__ import annotations

import argparse
import json

from fpsmt.commands.options import (atomic_output, engine_session, err, format_names, input_png, listed, out,
                                    output_path, solver_options)
from fpsmt.errors import InputError


def cmd_reproduce(args):
    from fpsmt.proof import lemmas as reproduce
    from fpsmt.semantics.formats import parse_format
    from fpsmt.constructions.registry import constructions, get_construction
    activations = listed(args.activation, "--activation") or sorted(constructions())
    families = {get_construction(a).family for a in activations}  # an activation without one: exit 2
    known = [n for f in sorted(families) for n in reproduce.lemma_names(f)]
    lemmas = listed(args.lemma, "--lemma") or known
    for n in lemmas:
        if n not in known:
            raise InputError(f"unknown lemma {n!r}: use one of {', '.join(known)}")
    fmts = format_names(args) or list(reproduce.DEFAULT_FORMATS)
    for f in fmts:
        parse_format(f)
    variants = [args.variant] if args.variant else ["released", "repaired"]
    for v in variants:
        if v not in ("released", "repaired"):
            raise InputError(f"unknown variant {v!r}: use released or repaired")
    path = output_path(args.report, "--report")
    cert_path = output_path(args.certificate, "--certificate") if args.certificate else None
    html_path = output_path(args.html, "--html") if args.html else None
    plots = [input_png(p) for p in (args.html_plot or [])]
    if plots and html_path is None:
        raise InputError("--html-plot needs --html")
    with engine_session(args, confirm=args.confirm) as eng:
        rows = [r for a in activations
                for r in reproduce.run(eng, lemmas, variants, fmts, progress=err, construction=get_construction(a))]
    report = markdown(rows)
    with atomic_output(path) as pending:
        pending.path.write_text(report, encoding="utf-8")
    err(report)
    err(f"fpsmt: report written to {path}")
    if html_path is not None:
        from fpsmt.proof.html_report import page
        with atomic_output(html_path) as pending:
            pending.path.write_text(page(rows, "fpsmt reproduce", plots=plots), encoding="utf-8")
        err(f"fpsmt: HTML report written to {html_path}")
    if cert_path is not None:
        from fpsmt.proof.certificate import certificate
        with atomic_output(cert_path) as pending:
            pending.path.write_text(json.dumps(certificate(rows), ensure_ascii=False, indent=1), encoding="utf-8")
        err(f"fpsmt: certificate written to {cert_path} (re-check it with: fpsmt check {cert_path})")
    missing = sorted({r["lemma"] for r in rows if r["status"] == "MISSING"})
    if missing:
        err(f"fpsmt: warning: no proof yet for {', '.join(missing)} (rows marked MISSING)")
    if args.json:
        fields = ("lemma", "activation", "variant", "format", "semantics", "status", "statement", "counterexample",
                  "solver", "seconds", "confirmed", "tree")  # confirmed: {"stages", "by", "unconfirmed"}, see
        # lemmas._confirmation; tree: the row's proof tree with each claim's result (lemmas.tree_node)
        out(json.dumps([{k: r.get(k) for k in fields} for r in rows], ensure_ascii=False))
    return 0



def _confirmed_cell(c) -> str:
    if not c["stages"]:
        return ""  # no UNSAT answer in the row (e.g. refuted at its first stage)
    done = c["stages"] - len(c["unconfirmed"])
    cell = f"{done}/{c['stages']}" + (f" by {', '.join(c['by'])}" if c["by"] else "")
    return cell + (f"; not: {', '.join(c['unconfirmed'])}" if c["unconfirmed"] else "")


def markdown(rows) -> str:
    """The report; its last column says how many of a row's UNSAT answers a second back end
    or an enumeration confirmed."""
    out = ["# fpsmt reproduce: the construction lemmas", "",
           "| lemma | activation | variant | format | status | statement | counterexample | solver | seconds |"
           " confirmed |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        cx = ", ".join(f"{k}={v}" for k, v in (r["counterexample"] or {}).items())
        statement = r["statement"].replace("|", "\\|")  # |h| in a statement must not end the cell
        out.append(f"| {r['lemma']} | {r['activation']} | {r['variant']} | {r['format']} | {r['status']} | {statement} | "
                   f"{cx} | {r['solver'] or ''} | {r['seconds']:.2f} |"
                   f" {_confirmed_cell(r['confirmed']) if r.get('confirmed') else ''} |")
    return "\n".join(out) + "\n"


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("reproduce", help="the construction lemmas (proofs/) per activation and format, released and "
                                         "repaired",
                       description="Each lemma of proofs/ is stated for all its parameters and discharged per "
                                   "format: PROVED, REFUTED with a replayed counterexample, or UNKNOWN with the "
                                   "reason. A markdown report goes to --report and to stderr.")
    s.add_argument("--format", action="append", help="format(s); repeat or separate with commas "
                                                     "(default bfloat16,float32)")
    s.add_argument("--lemma", action="append", help="lemma name(s); default all")
    s.add_argument("--activation", action="append",
                   help="activation(s) with a construction; repeat or separate with commas (default: every one)")
    s.add_argument("--variant", help="released or repaired (default both)")
    s.add_argument("--report", default="fpsmt-reproduce.md", help="markdown report file (default fpsmt-reproduce.md)")
    s.add_argument("--html", help="also write a self-contained HTML report (table, proof trees, counterexamples)")
    s.add_argument("--html-plot", action="append", help="a PNG to embed in the HTML report (e.g. construct --plot's); "
                                                        "repeatable")
    s.add_argument("--certificate", help="also write a certificate (JSON: every row's proof tree and each node's "
                                         "result) that `fpsmt check` re-establishes independently")
    s.add_argument("--confirm", action=argparse.BooleanOptionalAction, default=True,
                   help="confirm every UNSAT answer with a second back end or by enumeration (default on; "
                        "--no-confirm skips it)")
    solver_options(s, "portfolio", "claim", 600.0)
    s.set_defaults(fn=cmd_reproduce)
