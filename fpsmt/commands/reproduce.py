"""``fpsmt reproduce``: the construction lemmas of ``proofs/`` per format and variant, and their report."""

from __future__ import annotations

import argparse
import json

from fpsmt import cluster
from fpsmt.commands.options import (atomic_output, engine_session, err, format_names, input_png, listed, out,
                                    output_path, solver_options)
from fpsmt.errors import InputError


def cmd_reproduce(args):
    from fpsmt.proof import lemmas as reproduce
    from fpsmt.semantics.formats import parse_format
    from fpsmt.constructions.registry import constructions, get_construction
    from fpsmt.commands import hypothesis
    activations = listed(args.activation, "--activation") or sorted(constructions())
    families = {get_construction(a).family for a in activations}  # an activation without one: exit 2
    known = [n for f in sorted(families) for n in reproduce.lemma_names(f)]
    from fpsmt.proof import survival
    lemmas = listed(args.lemma, "--lemma") or (
        [n for f in sorted(families) for n in survival.default_lemmas(f)] if args.survival else known)
    for n in lemmas:
        if n not in known:
            raise InputError(f"unknown lemma {n!r}: use one of {', '.join(known)}")
    fmts = format_names(args) or list(survival.FORMATS if args.survival else reproduce.DEFAULT_FORMATS)
    parsed = [parse_format(f) for f in fmts]
    named = listed(args.variant, "--variant")
    variants = named or (["repaired"] if args.survival else list(reproduce.VARIANTS))
    for v in variants:
        if v not in reproduce.VARIANTS:
            raise InputError(f"unknown variant {v!r}: use {', '.join(reproduce.VARIANTS)}")
    profiles = _profiles(args, parsed, activations)
    if any(not p.is_paper for p, _ in profiles) and "released" in (named or ()):
        raise InputError("a semantics profile other than the paper's is decided for the blocks construct builds: "
                         "--variant repaired (the default under --semantics)")
    if args.ulp_max is not None and not args.survival:
        raise InputError("--ulp-max goes with --survival")
    kmax = 3 if args.ulp_max is None else args.ulp_max
    if not 1 <= kmax <= 64:
        raise InputError(f"--ulp-max must be from 1 to 64, got {kmax}")
    table_path = output_path(args.table, "--table") if args.table else None
    if table_path is not None and len(profiles) < 2 and not args.survival:
        raise InputError("--table collects rows under several profiles: give --survival or --semantics twice or more")
    path = output_path(args.report, "--report")
    cert_path = output_path(args.certificate, "--certificate") if args.certificate else None
    html_path = output_path(args.html, "--html") if args.html else None
    plots = [input_png(p) for p in (args.html_plot or [])]
    if plots and html_path is None:
        raise InputError("--html-plot needs --html")
    smallest = {} if args.survival else None
    spec = cluster.spec_of(args)
    with engine_session(args, confirm=args.confirm) as eng, \
            cluster.session(spec, eng.store.path, err) as cl:
        def run_rows(names, vs, fs, a, sem):
            if cl is None:
                return reproduce.run(eng, names, vs, fs, progress=err, construction=get_construction(a), semantics=sem,
                                     network_row=hypothesis.network_row)
            return _cluster_rows(args, cl, eng, names, vs, fs, a, sem)
        rows = []
        for sem, where in profiles:
            for a in activations:
                fs = [f for f in where if a in where[f]]  # one call: rows lemma by lemma, as without a profile
                if fs:
                    rows += run_rows(lemmas, variants if sem.is_paper else ["repaired"], fs, a, sem)
        if args.survival:
            for a in activations:
                for f in parsed:
                    if f.nbits > survival.SMALL_BITS or survival.applicable("activation=ulp:1", f, a):
                        continue

                    def rows_for(spec, names, a=a, f=f):
                        return run_rows(names or lemmas, ["repaired"], [f.name], a, spec)
                    for (lemma, act, fname), k in survival.smallest_ulp(kmax, rows_for).items():
                        smallest[(lemma, act, fname)] = k
    report = markdown(rows)
    several = len(profiles) > 1 or args.survival
    data = None
    if several:
        data = survival.table([r for r in rows if r["variant"] == "repaired"], smallest)
        report += "\n" + survival.markdown(data)
    with atomic_output(path) as pending:
        pending.path.write_text(report, encoding="utf-8")
    err(report)
    err(f"fpsmt: report written to {path}")
    if table_path is not None:
        with atomic_output(table_path) as pending:
            pending.path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        err(f"fpsmt: survival table written to {table_path}")
    if html_path is not None:
        from fpsmt.proof.html_report import page
        with atomic_output(html_path) as pending:
            pending.path.write_text(page(rows, "fpsmt reproduce", plots=plots), encoding="utf-8")
        err(f"fpsmt: HTML report written to {html_path}")
    if cert_path is not None:
        from fpsmt.proof.certificate import certificate
        treed = [r for r in rows if isinstance(r.get("tree"), dict)]
        with atomic_output(cert_path) as pending:
            pending.path.write_text(json.dumps(certificate(treed), ensure_ascii=False, indent=1), encoding="utf-8")
        err(f"fpsmt: certificate written to {cert_path} (re-check it with: fpsmt check {cert_path})")
        if len(treed) < len(rows):
            err(f"fpsmt: note: {len(rows) - len(treed)} row(s) without a proof tree are not in the certificate "
                "(decided by running a network, or not decided; the report has them)")
    missing = sorted({r["lemma"] for r in rows if r["status"] == "MISSING"})
    if missing:
        err(f"fpsmt: warning: no proof yet for {', '.join(missing)} (rows marked MISSING)")
    if args.json:
        fields = ("lemma", "activation", "variant", "format", "semantics", "status", "statement", "counterexample",
                  "solver", "seconds", "confirmed", "tree")  # confirmed: {"stages", "by", "unconfirmed"}, see
        # lemmas._confirmation; tree: the row's proof tree with each claim's result (lemmas.tree_node)
        out(json.dumps([{k: r.get(k) for k in fields} for r in rows], ensure_ascii=False))
    return 0



def _cluster_rows(args, cl, eng, names, variants, fmts, activation, sem):
    """The rows :func:`fpsmt.proof.lemmas.run` gives, one task per lemma × variant × format
    on the cluster (:mod:`fpsmt.cluster`), in its order; the tasks' store rows written into
    the command's store."""
    from fpsmt.proof.lemmas import OWN_VARIANTS, load
    from fpsmt.semantics.network import parse_semantics
    sem = parse_semantics(sem)
    base = cluster.engine_payload(args, cl, args.confirm)
    payloads = [{**base, "lemma": n, "variant": v, "format": f, "activation": activation,
                 "semantics": None if sem.is_paper else sem.spec}
                for n in names for v in variants for f in fmts
                if v not in OWN_VARIANTS or v in load(n).variants]  # no task for a row that cannot exist

    def describe(p, result):
        got = ", ".join(f"{r['status']}" for r in result["rows"]) or "no row"
        where = "" if sem.is_paper else f" under {sem.spec}"
        return f"{p['lemma']} ({p['variant']}, {activation}) in {p['format']}{where}: {got}"
    results = cl.run(cluster.reproduce_task, payloads, describe, err)
    cluster.merge(eng.store, results)
    return [r for res in results for r in res["rows"]]


def _profiles(args, fmts, activations):
    """[(profile, {format name: [activations it applies to]})], checked before any work:
    ``--semantics`` (each one must apply to every format and activation asked: one line,
    exit 2), or with ``--survival`` every profile of the table where it applies (those that
    do not are table cells "n/a")."""
    from fpsmt.proof import survival
    from fpsmt.semantics.network import parse_semantics
    specs = listed_semantics(args.semantics)
    if args.survival and specs:
        raise InputError("--survival decides every profile of the table: give it or --semantics, not both")
    if not args.survival:
        out = []
        for spec in specs or ["paper"]:
            sem = parse_semantics(spec)
            for f in fmts:
                sem.check(f, activations, claims=True)
            out.append((sem, {f.name: list(activations) for f in fmts}))
        return out
    where: dict = {}
    for f in fmts:
        for spec in survival.profiles(f):
            sem = parse_semantics(spec)
            ok = [a for a in activations if survival.applicable(spec, f, a) is None]
            if ok:
                where.setdefault(sem, {})[f.name] = ok
    return list(where.items())


def listed_semantics(values) -> list:
    """``--semantics`` values: repeated, each one profile (commas join a profile's parts)."""
    out = []
    for v in values or []:
        if not v.strip():
            raise InputError("--semantics needs a profile (e.g. order=reversed, or paper)")
        out.append(v.strip())
    return out


def _confirmed_cell(c) -> str:
    if not c["stages"]:
        return ""  # no UNSAT answer in the row (e.g. refuted at its first stage)
    done = c["stages"] - len(c["unconfirmed"])
    cell = f"{done}/{c['stages']}" + (f" by {', '.join(c['by'])}" if c["by"] else "")
    return cell + (f"; not: {', '.join(c['unconfirmed'])}" if c["unconfirmed"] else "")


def markdown(rows) -> str:
    """The report; its last column says how many of a row's UNSAT answers a second back end
    or an enumeration confirmed."""
    from fpsmt.semantics.network import PAPER
    profiled = any(r.get("semantics", PAPER.spec) != PAPER.spec for r in rows)  # then a column says which
    out = ["# fpsmt reproduce: the construction lemmas", "",
           "| lemma | activation | variant | format |" + (" semantics |" if profiled else "")
           + " status | statement | counterexample | solver | seconds | confirmed |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if profiled else "")]
    for r in rows:
        cx = ", ".join(f"{k}={v}" for k, v in (r["counterexample"] or {}).items())
        statement = r["statement"].replace("|", "\\|")  # |h| in a statement must not end the cell
        sem = f" {r['semantics']} |" if profiled else ""
        out.append(f"| {r['lemma']} | {r['activation']} | {r['variant']} | {r['format']} |{sem} {r['status']} | {statement} | "
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
    s.add_argument("--variant", action="append",
                   help="released, repaired or shallow, repeat or separate with commas (shallow: the shallow gradient "
                        "atoms: each family's "
                                     "gradient atom, value atom (at the shallow depth) and Theorem 3.1 rows; a "
                                     "lemma that does not state it has no row); default all three; repaired only "
                                     "under a profile other than the paper's")
    s.add_argument("--semantics", action="append", metavar="SPEC",
                   help="decide the lemmas under this semantics profile (key=value parts joined by commas, as eval "
                        "takes it, plus order=any and activation=ulp:K: every order, every implementation within K "
                        "ulps; 'paper' is the paper's); repeat for several — the report then has a survival table. "
                        "Under a profile other than the paper's a lemma is decided by one claim about its whole block "
                        "(its proof tree's joins are argued for the paper's semantics); a Theorem 3.1 row by transfer "
                        "from the paper's semantics where the profile keeps the paper's order (backward formulas, "
                        "implementations), else by its construct network (order=any: order=reversed, one of its "
                        "orders; ulp:K: one implementation within K ulps that breaks it)")
    s.add_argument("--survival", action="store_true",
                   help="the survival table: every lemma under the paper's semantics and every profile of the table "
                        "(orders, backward formulas, activation implementations, ulp:1) where it applies, and the "
                        "smallest K that breaks each lemma under activation=ulp:K (default formats float8_e4m3, "
                        "bfloat16, float32; wider than 16 bits: the order profiles)")
    s.add_argument("--ulp-max", type=int, help="with --survival: search K = 1 … this for activation=ulp:K "
                                                "(default 3)")
    s.add_argument("--table", help="write the survival table (lemma x profile) as JSON to this file")
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
    cluster.add_option(s)
    s.set_defaults(fn=cmd_reproduce)
