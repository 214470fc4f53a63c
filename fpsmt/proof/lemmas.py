"""``fpsmt reproduce``: the ReLU construction lemmas (``proofs/``), per format and variant.

A proof file defines ``LEMMA``, a :class:`Lemma`: for each variant (``released``,
``repaired``) a function ``fmt -> (claims, statement[, hints])`` giving the claims to
discharge in order (stages first; the row is PROVED only when every claim is; a REFUTED
stage ends the row, an UNKNOWN one does not — the row then names every UNKNOWN stage), a one-line statement of exactly what is proved, with every
range, and optionally candidate counterexamples per claim name (partial assignments of
bit patterns, e.g. where BRIEF §5.1 predicts a break): the engine tries each with those
variables fixed and solves the rest — a hint only steers, a REFUTED row is still a
solved, replayed counterexample.  Rows are PROVED,
REFUTED (with the counterexample, replayed) or UNKNOWN (with the reason).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from fpsmt.proof.engine import rests_on_unsat
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, parse_format

LEMMAS = ("step_indicator_ge", "step_indicator_le", "zero_indicator", "point_indicator", "cancellation_block",
          "multiplication_transfer", "zero_gradient_atom", "gradient_atom", "boxplus_neutrality",
          "theorem_3_1_relu")
DEFAULT_FORMATS = ("bfloat16", "float32")
# What the network of ``fpsmt construct`` rests on (its repaired variants): the blocks it
# is made of, the transfer its gradient atoms use, ⊞ and the composition.  The zero and
# cancellation lemmas are not used (the point indicator covers z = 0).
CONSTRUCTION = ("step_indicator_ge", "step_indicator_le", "point_indicator", "multiplication_transfer",
                "zero_gradient_atom", "gradient_atom", "boxplus_neutrality", "theorem_3_1_relu")


@dataclass
class Lemma:
    name: str
    paper: str  # where the paper states it
    variants: dict = field(default_factory=dict)  # variant -> fmt -> (claims, statement)
    formats: Callable | None = None  # fmt -> why it does not apply, or None
    extra: Callable | None = None  # fmt -> [(variant, claims, statement)]: more rows of this lemma

    def build(self, variant, fmt):
        if variant not in self.variants:
            return None
        return self.variants[variant](fmt)


def load(name) -> Lemma:
    if name not in LEMMAS:
        raise InputError(f"unknown lemma {name!r}: use one of {', '.join(LEMMAS)}")
    try:
        module = importlib.import_module(f"fpsmt.proofs.{name}")
    except ModuleNotFoundError:
        return None
    return getattr(module, "LEMMA", None)


def run(engine, lemmas, variants, formats, progress=None):
    """Rows (dicts) for every lemma x variant x format; lemmas without a proof file yet
    give a row with status MISSING so that nothing is silently left out."""
    rows = []
    fmts = [parse_format(f) for f in formats]
    loaded = {n: load(n) for n in lemmas}
    for name in lemmas:
        lemma = loaded[name]
        for variant in variants:
            for fmt in fmts:
                rows.append(_row(engine, name, lemma, variant, fmt, progress))
                for v, claims, statement in (lemma.extra(fmt) if lemma and lemma.extra else []):
                    if v == variant:
                        rows.append(_row(engine, name, lemma, variant, fmt, progress, (claims, statement)))
    return rows


def _row(engine, name, lemma, variant, fmt: Format, progress, built=None):
    base = {"lemma": name, "variant": variant, "format": fmt.name, "counterexample": None, "solver": None,
            "seconds": 0.0}
    if lemma is None:
        return {**base, "status": "MISSING", "statement": "no proof file in this version of fpsmt"}
    built = built or lemma.build(variant, fmt)
    if built is None:
        return {**base, "status": "MISSING", "statement": f"no {variant} variant is stated for this lemma"}
    claims, statement = built[:2]
    hints = built[2] if len(built) > 2 else {}  # claim name -> candidate counterexamples (steer only)
    registry = {c.name: c for c in claims}
    total = 0.0
    keys = []  # the results-store key of every claim decided for this row
    if progress:
        progress(f"{name} ({variant}) in {fmt.name} ...")
    unknown = []  # (claim, result) of the stages left UNKNOWN; the others are still decided
    for claim in claims:
        r = engine.prove(claim, fmt, registry, hints=hints.get(claim.name, ()))
        keys.append({"claim": claim.name, "status": r.status, "key": r.key or None,
                     "confirmed_by": r.confirmed_by or None})
        total += 0.0 if r.cached else r.seconds  # a stage shared with an earlier row costs nothing again
        if r.status == "REFUTED":
            break
        if r.status == "UNKNOWN":
            unknown.append((claim, r))
    if r.status != "REFUTED" and unknown:
        claim, r = unknown[0]
    cx = r.witness_json() if r.status == "REFUTED" and r.witness else None
    if r.status == "REFUTED" and len(claims) > 1:
        statement = f"stage {claim.name} is REFUTED: {statement}"
    elif r.status == "UNKNOWN" and len(claims) > 1:
        names = ", ".join(c.name for c, _ in unknown)
        statement = (f"stage{'s' if len(unknown) > 1 else ''} {names} {'are' if len(unknown) > 1 else 'is'} "
                     f"UNKNOWN, the other {len(claims) - len(unknown)} PROVED: {statement}")
    reason = "; ".join(f"{c.name}: {u.reason}" for c, u in unknown) if r.status == "UNKNOWN" else r.reason
    if progress:
        progress(f"  {r.status} in {total:.1f} s" + (f": {reason}" if r.status == "UNKNOWN" else ""))
    row = {**base, "status": r.status, "statement": statement, "counterexample": cx, "solver": r.solver or None,
           "seconds": round(total, 3), "reason": reason, "cached": r.cached, "keys": keys}
    if engine.confirm:
        row["confirmed"] = _confirmation(claims, keys)
    return row


def _confirmation(claims, keys):
    """Which of the row's UNSAT answers a second back end confirmed (--confirm): the
    stages PROVED (∀, ∃∀) or REFUTED (∃) by an UNSAT, by whom, and those left unconfirmed."""
    kinds = {c.name: c.kind for c in claims}
    unsat = [k for k in keys if rests_on_unsat(kinds[k["claim"]], k["status"])]
    return {"stages": len(unsat), "by": sorted({k["confirmed_by"] for k in unsat if k["confirmed_by"]}),
            "unconfirmed": [k["claim"] for k in unsat if not k["confirmed_by"]]}


def _confirmed_cell(c) -> str:
    if not c["stages"]:
        return ""  # no UNSAT answer in the row (e.g. refuted at its first stage)
    done = c["stages"] - len(c["unconfirmed"])
    cell = f"{done}/{c['stages']}" + (f" by {', '.join(c['by'])}" if c["by"] else "")
    return cell + (f"; not: {', '.join(c['unconfirmed'])}" if c["unconfirmed"] else "")


def markdown(rows) -> str:
    confirm = any("confirmed" in r for r in rows)  # --confirm: a column of UNSAT answers confirmed
    out = ["# fpsmt reproduce: the ReLU construction lemmas", "",
           "| lemma | variant | format | status | statement | counterexample | solver | seconds |"
           + (" confirmed |" if confirm else ""),
           "| --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if confirm else "")]
    for r in rows:
        cx = ", ".join(f"{k}={v}" for k, v in (r["counterexample"] or {}).items())
        statement = r["statement"].replace("|", "\\|")  # |h| in a statement must not end the cell
        out.append(f"| {r['lemma']} | {r['variant']} | {r['format']} | {r['status']} | {statement} | "
                   f"{cx} | {r['solver'] or ''} | {r['seconds']:.2f} |"
                   + (f" {_confirmed_cell(r['confirmed']) if r.get('confirmed') else ''} |" if confirm else ""))
    return "\n".join(out) + "\n"
