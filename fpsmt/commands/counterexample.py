"""``fpsmt counterexample KIND``: the searches of ``specs/counterexamples.py``, decided by the
engine like any claim (results store, back ends or portfolio, wall-clock limit enforced
by killing the solver, every model replayed in the executor), then re-checked here in the
executor and printed with its derived values and exact rationals.

A search is an ∃ claim: PROVED gives the counterexample; REFUTED means none exists (an
UNSAT answer); UNKNOWN says why.  All three are results (exit 0).
"""

from __future__ import annotations

import importlib
import json

from fpsmt.commands.options import engine_session, err, out, solver_options
from fpsmt.commands.hypothesis import register_options as hypothesis_options
from fpsmt.errors import FpsmtError, InputError
from fpsmt.proof.engine import PROVED
from fpsmt.proof.replay import evaluate


def searches() -> dict:
    return importlib.import_module("fpsmt.specs.counterexamples").KINDS


def run(engine, kind: str, fmt) -> dict:
    claim = searches()[kind]
    registry = {claim.name: claim}
    r = engine.prove(claim, fmt, registry)
    doc = {"counterexample": kind, "format": fmt.name, "statement": claim.doc, "status": r.status,
           "solver": r.solver or None, "cached": r.cached, "reason": r.reason, "seconds": round(r.seconds, 3),
           "witness": {}, "values": {}, "exact": {}, "replayed": False}
    if r.status != PROVED:
        return doc
    conds, lets = evaluate(claim, fmt, registry, r.witness)
    bad = [k for k, ok in conds.items() if not ok]
    if bad:  # the engine replayed the model; a stored witness that fails now is a bug
        raise FpsmtError(f"{kind} in {fmt.name}: the witness {r.witness_json()} fails {', '.join(bad)} "
                         "in the executor")
    doc.update(witness=r.witness_json(), values={k: fmt.hex(v) for k, v in lets.items()}, replayed=True)
    if kind == "proportionality":
        q = {k: fmt.to_fraction(v) for k, v in {**r.witness, **lets}.items() if k in ("y1", "y2", "D(y1)", "D(y2)")}
        doc["exact"] = {"D(y2)·y1": str(q["D(y2)"] * q["y1"]), "D(y1)·y2": str(q["D(y1)"] * q["y2"])}
    return doc


def render(doc, fmt) -> str:
    lines = [f"{doc['counterexample']} in {fmt.name} ({doc['statement']}): {doc['status']}"
             + (f" ({doc['reason']})" if doc["status"] != PROVED else "")]
    if doc["status"] == PROVED:
        items = {**doc["witness"], **doc["values"]}
        w = max(len(k) for k in list(items) + list(doc["exact"]))
        lines += [f"  {k:<{w}} = {fmt.show(fmt.parse_hex(v))}" for k, v in items.items()]
        lines += [f"  {k:<{w}} = {v} (exact)" for k, v in doc["exact"].items()]
        lines.append("replayed: the executor reproduces every value bit for bit")
    elif doc["status"] == "REFUTED":
        lines.append("no counterexample exists in this format (an UNSAT answer)")
    lines.append(f"solver {doc['solver'] or '-'}, {doc['seconds']:.2f} s" + (" (cached)" if doc["cached"] else ""))
    return "\n".join(lines)


def cmd_counterexample(args):
    from fpsmt.commands import hypothesis
    from fpsmt.semantics.formats import parse_format
    if args.kind == "hypothesis":
        args.solver = args.solver or "portfolio"
        doc, text = hypothesis.cmd_hypothesis(args)
    else:
        args.solver = args.solver or "z3"
        given = [o for o, v in (("--drop", args.drop), ("--semantics", args.semantics), ("--out", args.out))
                 if v is not None]
        if given:
            raise InputError(f"{', '.join(given)}: options of counterexample hypothesis, not of {args.kind}")
        fmt = parse_format(args.format)
        err(f"searching for a {args.kind} counterexample in {fmt.name} with {args.solver} ...")
        with engine_session(args) as eng:
            doc = run(eng, args.kind, fmt)
        text = lambda: render(doc, fmt)  # noqa: E731
    out(json.dumps(doc, ensure_ascii=False) if args.json else text())
    return 0


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("counterexample", help="search, replay and print a counterexample",
                       description="associativity: a, b, c with (a⊗b)⊗c ≠ a⊗(b⊗c), all finite. "
                                   "proportionality: a 1-2-1 ReLU network, x, y1, y2 with "
                                   "D(y2)·y1 ≠ D(y1)·y2 as exact rationals, all finite and nonzero. "
                                   "hypothesis --drop H: under each semantics profile that drops H, the construct "
                                   "network run at every target point and two necessities of every network "
                                   "(zero upstream, oddness) decided for symbolic weights; --json prints a list "
                                   "of entries.")
    s.add_argument("kind", choices=sorted(searches()) + ["hypothesis"])
    s.add_argument("--format", required=True, help="format name, alias or ExMy")
    hypothesis_options(s)
    solver_options(s, None, "search", 300.0, default_text="z3, portfolio for hypothesis")
    s.set_defaults(fn=cmd_counterexample)
