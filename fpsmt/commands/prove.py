"""``fpsmt prove``: decide the claims a Python file defines, per format."""

from __future__ import annotations

import json

from fpsmt import cluster
from fpsmt.commands.options import engine_session, err, format_names, out, parse_target, solver_options
from fpsmt.errors import InputError


def cmd_prove(args):
    from fpsmt.proof.engine import load_claims, order_by_assumptions
    from fpsmt.semantics.formats import parse_format
    path, name = parse_target(args.target)
    claims = load_claims(path)
    if name is not None and name not in claims:
        raise InputError(f"{path}: no claim named {name!r} (defined: {', '.join(sorted(claims))})")
    fmts = [parse_format(f) for f in format_names(args)]
    wanted = [claims[name]] if name else list(claims.values())
    if args.semantics is not None:  # the claims that name no profile of their own take this one
        import dataclasses

        from fpsmt.semantics.network import parse_semantics
        sem = parse_semantics(args.semantics)
        for f in fmts:
            sem.check(f, claims=True)
        if not sem.is_paper:
            claims = {n: (dataclasses.replace(c, semantics=sem.spec) if c.semantics is None else c)
                      for n, c in claims.items()}
            wanted = [claims[c.name] for c in wanted]
    todo = order_by_assumptions(wanted)
    results = []
    spec = cluster.spec_of(args)
    with engine_session(args, confirm=args.confirm) as eng, cluster.session(spec, eng.store.path, err) as cl:
        if cl is not None:  # long enumerations go to the cluster's workers in slices
            eng.executor = cl.client.get_executor(pure=False)
        for fmt in fmts:
            for c in todo:
                if not c.applies_to(fmt):
                    err(f"skipping {c.name} in {fmt.name}: stated for {', '.join(c.formats)} only")
                    continue
                err(f"proving {c.name} ({c.kind}) in {fmt.name} with {args.solver}"
                    + (f" under {c.semantics}" if c.semantics else "") + " ...")
                r = eng.prove(c, fmt, claims)
                results.append((r, c.profile.spec))
                err(f"  {r.status}{' (cached)' if r.cached else ''} by {r.solver or '-'} in {r.seconds:.2f} s"
                     + (f": {r.reason}" if r.reason else ""))
    if args.json:
        out(json.dumps([{**r.to_json(), "semantics": spec} for r, spec in results], ensure_ascii=False))
    else:
        _print_results([r for r, _ in results])
    return 0


def _print_results(results):
    out(f"{'claim':<24} {'format':<12} {'status':<8} {'solver':<9} {'seconds':>8}  witness / counterexample")
    for r in results:
        wit = ", ".join(f"{k}={v}" for k, v in r.witness_json().items())
        tag = " (cached)" if r.cached else ""
        out(f"{r.claim:<24} {r.format.name:<12} {r.status:<8} {r.solver or '-':<9} {r.seconds:>8.2f}  "
             f"{wit}{tag}" + (f"  [{r.reason}]" if r.status in ("UNKNOWN", "VACUOUS") else ""))
        if r.witness:
            f = r.format
            out("    " + ", ".join(f"{k} = {f.describe(v)}" if k in r.float_vars else f"{k} = {v}"
                                    for k, v in r.witness.items()))


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("prove", help="prove the claims a Python file defines, per format",
                       description="Claims are exists / forall / exists_forall statements (fpsmt.proof.claims). "
                                   "PROVED: a replayed witness or an unsat negation whose hypotheses a "
                                   "replayed assignment meets; VACUOUS: an unsat negation whose hypotheses "
                                   "nothing meets; REFUTED: a replayed counterexample or an unsat proof that no "
                                   "witness exists; UNKNOWN: why.")
    s.add_argument("target", help="FILE.py or FILE.py:NAME (FILE may be example:claims.py)")
    s.add_argument("--format", required=True, action="append",
                   help="format(s); repeat or separate with commas")
    solver_options(s, "z3", "claim", 60.0)
    s.add_argument("--cluster", metavar="ADDRESS|local:N",
                   help=f"enumerate long spaces (--solver exhaustive, more than 2^28 points) on a Dask cluster, in "
                        f"runs of pieces scanned in order: local:N starts N workers on this machine for the run, "
                        f"ADDRESS (tcp://host:8786) uses a running scheduler (default ${cluster.ENV}; needs the extra "
                        f"fpsmt[cluster])")
    s.add_argument("--confirm", action="store_true", help="re-check every UNSAT answer with a second solver")
    s.add_argument("--semantics", default=None, metavar="SPEC",
                   help="the semantics profile of every claim that names none (semantics=... in forall/exists): "
                        "key=value parts joined by commas, as eval takes it; order=any and activation=ulp:K need the "
                        "claim's choice variables (choice_variables, Scope.chosen_run)")
    s.set_defaults(fn=cmd_prove)
