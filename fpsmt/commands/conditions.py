"""``fpsmt conditions``: Conditions 1–3 of an activation per format."""

from __future__ import annotations

import json

from fpsmt import cluster
from fpsmt.commands.options import engine_session, err, format_names, out, solver_options
from fpsmt.errors import InputError


def cmd_conditions(args):
    from fpsmt.proof import conditions
    from fpsmt.semantics.activations import PAPER_SIX
    if args.all:
        acts, fmts = list(PAPER_SIX), list(conditions.ALL_FORMATS)
    else:
        if not args.activation or not args.format:
            raise InputError("give --activation and --format, or --all")
        acts, fmts = [args.activation], format_names(args)
    from fpsmt.constructions import requirements
    requirements.check_family(args.family)
    spec = cluster.spec_of(args)
    with engine_session(args) as eng, cluster.session(spec, eng.store.path, err) as cl:
        if cl is None:
            rows = conditions.run(eng, acts, fmts, spec=args.spec, progress=err)
            rows += requirements.run(eng, acts, fmts, family=args.family, progress=err)
        else:
            rows = _cluster_rows(args, cl, eng, acts, fmts)
    if args.json:
        out(json.dumps([{k: r[k] for k in ("activation", "format", "condition", "status", "branch", "witness",
                                              "seconds")} for r in rows], ensure_ascii=False))
    else:
        out(markdown(rows))
    return 0



def _cluster_rows(args, cl, eng, acts, fmts):
    """The local run's rows, one task per activation on the cluster (:mod:`fpsmt.cluster`;
    its formats in order, since a condition's witnesses in one format are tried as hints in
    the next): every activation's conditions in the local order, then every activation's
    requirements; the tasks' store rows written into the command's store."""
    base = cluster.engine_payload(args, cl, False)
    payloads = [{**base, "activation": a, "formats": fmts, "spec": args.spec, "family": args.family} for a in acts]

    def describe(p, result):
        got = ", ".join(f"{r['condition']} in {r['format']} {r['status']}" for r in result["rows"] + result["requirements"])
        return f"{p['activation']}: {got}"
    results = cl.run(cluster.conditions_task, payloads, describe, err)
    cluster.merge(eng.store, results)
    return [r for res in results for r in res["rows"]] + [r for res in results for r in res["requirements"]]


def markdown(rows) -> str:
    out = ["| activation | format | condition | status | branch | witness | seconds |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        wit = ", ".join(f"{k}={v} ({r['decimal'][k]})" if str(v).startswith("0x") else f"{k}={v}"
                        for k, v in r["witness"].items()) or (r["reason"] if r["status"] != "PROVED" else "")
        out.append(f"| {r['activation']} | {r['format']} | {r['condition']} | {r['status']} | "
                   f"{r['branch'] or ''} | {wit} | {r['seconds']:.2f} |")
    return "\n".join(out)


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("conditions", help="Conditions 1-3 of an activation per format (spec: specs/conditions.py)",
                       description="Each condition of the spec file is decided per format: PROVED with replayed "
                                   "witnesses (and, for a disjunction, its branch), REFUTED, or UNKNOWN with the "
                                   "reason. The shipped spec states C1 (a reconstruction), C2 and C3 of BRIEF §6. "
                                   "Then the requirements of the activation's construction family "
                                   "(specs/requirements.py; R.* rows), or of --family.")
    s.add_argument("--activation", help="name or FILE.py:NAME")
    s.add_argument("--format", action="append", help="format(s); repeat or separate with commas")
    s.add_argument("--all", action="store_true", help="the paper's six activations x seven formats")
    s.add_argument("--spec", help="a spec file defining C1, C2, C3 (functions of the activation)")
    s.add_argument("--family", help="also decide the requirements of this construction family "
                                    "(specs/requirements.py; default: those of the activation's construction)")
    solver_options(s, "portfolio", "condition", 120.0)
    cluster.add_option(s)
    s.set_defaults(fn=cmd_conditions)
