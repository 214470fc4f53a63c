"""The survival table: which construction lemma holds under which semantics profile.

``fpsmt reproduce --survival`` decides every lemma of the construction (its repaired
variant) under each profile of :func:`profiles` and collects the rows as lemma × profile
→ PROVED / REFUTED (with the counterexample, replayed under the profile) / UNKNOWN
(with the reason).  The paper's own column is its proof tree; every other column is the
lemma's whole-block claim under the profile (:attr:`fpsmt.proof.lemmas.Lemma.whole`).

``activation=ulp:K`` is monotone in K (an implementation within K ulps is one within
K + 1), so the smallest K that breaks a lemma is found by deciding K = 1, 2, … in turn up
to a bound and stopping at the first REFUTED: the lemma then holds for K − 1 (PROVED
there, or K − 1 = 0, the paper's correctly rounded σ) only if that row says so.
"""

from __future__ import annotations

#: the formats of ``reproduce --survival`` by default
FORMATS = ("float8_e4m3", "bfloat16", "float32")
#: the profiles of the table, each changing one hypothesis of the paper's semantics
ORDER_PROFILES = ("order=reversed", "order=pairwise", "order=blocked:2", "order=wide:{wide}", "order=any")
OTHER_PROFILES = ("backward=torch", "backward=jax", "activation=numpy", "activation=torch", "activation=ulp:1")
#: formats wider than this get the order profiles only (the tables of activation=numpy and
#: torch exist up to 16 bits, and the issue's table asks float32 for orders)
SMALL_BITS = 16


def default_lemmas(family) -> list:
    """The lemmas ``--survival`` decides unless ``--lemma`` names others: those of the
    family with a whole-block claim or that no profile changes, and the lemmas ``fpsmt
    construct`` rests on (a row per profile: UNKNOWN where neither exists, which says so)."""
    from fpsmt.proof.lemmas import discover
    return [n for n, lemma in discover().items()
            if lemma.family == family and (lemma.whole or lemma.profile_free or lemma.construction)]


def profiles(fmt) -> list:
    """The profile specs of the table's columns in ``fmt`` (the paper's first)."""
    wide = "float32" if fmt.nbits <= 16 else "float64"
    out = ["paper"] + [p.format(wide=wide) for p in ORDER_PROFILES]
    if fmt.nbits <= SMALL_BITS:
        out += list(OTHER_PROFILES)
    return out


def applicable(spec, fmt, activation) -> str | None:
    """Why the profile cannot apply to ``activation`` networks in ``fmt`` (one line), or None."""
    from fpsmt.errors import InputError
    from fpsmt.semantics.network import parse_semantics
    try:
        parse_semantics(spec).check(fmt, [activation], claims=True)
    except InputError as e:
        return str(e)
    return None


def cell(row) -> str:
    """A row as a table cell: its status, and for REFUTED the counterexample's float
    variables (hex patterns)."""
    if row is None:
        return "n/a"
    st = row["status"]
    if st == "REFUTED" and row.get("counterexample"):
        cx = ", ".join(f"{k}={v}" for k, v in row["counterexample"].items() if isinstance(v, str))
        return f"REFUTED ({cx})"
    return st


def table(rows, smallest=None) -> dict:
    """The table as data: {"profiles": [...], "rows": [{"lemma", "activation", "format",
    "cells": {profile: {"status", "counterexample", "reason"}}, "smallest_ulp_k": ...}]}."""
    from fpsmt.semantics.network import parse_semantics
    profs, keyed = [], {}
    for r in rows:
        if r["semantics"] not in profs:
            profs.append(r["semantics"])
        keyed.setdefault((r["lemma"], r["activation"], r["format"]), {})[r["semantics"]] = r
    out = []
    for (lemma, act, fmt), by in keyed.items():
        cells = {p: {"status": r["status"], "counterexample": r.get("counterexample"),
                     "reason": r.get("reason") or None, "seconds": r.get("seconds")} for p, r in by.items()}
        entry = {"lemma": lemma, "activation": act, "format": fmt, "cells": cells}
        if smallest is not None:
            entry["smallest_ulp_k"] = smallest.get((lemma, act, fmt))
        out.append(entry)
    return {"profiles": profs, "paper": parse_semantics(None).spec, "rows": out}


def markdown(data) -> str:
    profs = data["profiles"]
    names = [_short(p) for p in profs]
    with_k = any("smallest_ulp_k" in r for r in data["rows"])
    head = "| lemma | activation | format | " + " | ".join(names) + (" | smallest breaking K (ulp:K) |" if with_k else " |")
    out = ["## Survival table: lemma × semantics profile", "",
           f"Columns: the paper's semantics ({data['paper']}), then each profile changing one part of it.  "
           "REFUTED cells name the counterexample (hex), replayed under the profile.", "", head,
           "|" + " --- |" * (3 + len(profs) + (1 if with_k else 0))]
    for r in data["rows"]:
        cells = [cell(r["cells"].get(p)) for p in profs]
        line = f"| {r['lemma']} | {r['activation']} | {r['format']} | " + " | ".join(cells) + " |"
        if with_k:
            line += f" {_k_cell(r.get('smallest_ulp_k'))} |"
        out.append(line)
    return "\n".join(out) + "\n"


def _short(spec) -> str:
    """A column heading: the parts of the profile that differ from the paper's."""
    from fpsmt.semantics.network import PAPER, parse_semantics
    sem = parse_semantics(spec)
    if sem.is_paper:
        return "paper"
    paper = dict(p.split("=", 1) for p in PAPER.spec.split(","))
    mine = dict(p.split("=", 1) for p in sem.spec.split(","))
    return ",".join(f"{k}={v}" for k, v in mine.items() if paper.get(k) != v)


def _k_cell(k) -> str:
    if k is None:
        return ""
    st = k["statuses"]  # {K: status} for K = 1 … searched
    if k["breaks_at"] is None:
        return f"none up to {k['searched_to']} (" + ", ".join(f"ulp:{j} {v}" for j, v in st.items()) + ")"
    below = [f"ulp:{j} {v}" for j, v in st.items() if int(j) < k["breaks_at"] and v != "PROVED"]
    return str(k["breaks_at"]) + (f" (at most; {', '.join(below)})" if below else "")


def smallest_ulp(kmax, rows_for) -> dict:
    """{(lemma, activation, format): {"breaks_at": K or None, "searched_to": K, "statuses":
    {K: status}}} — K = 1, 2, … up to ``kmax``, a lemma's search ending at its first
    REFUTED (an implementation within K ulps is one within K + 1: it breaks for every larger
    K).  ``breaks_at`` is the least K refuted; it is *the* smallest when every smaller K is
    PROVED (K − 1 = 0 is the paper's σ, its own column).  ``rows_for(spec, lemmas)``
    decides rows under a profile."""
    out: dict = {}
    left = None
    for k in range(1, kmax + 1):
        if left is not None and not left:
            break
        rows = rows_for(f"activation=ulp:{k}", left)
        still = []
        for r in rows:
            key = (r["lemma"], r["activation"], r["format"])
            e = out.setdefault(key, {"breaks_at": None, "searched_to": 0, "statuses": {}})
            e["statuses"][k] = r["status"]
            e["searched_to"] = k
            if r["status"] == "REFUTED":
                e["breaks_at"] = k
            else:
                still.append(r["lemma"])
        left = sorted(set(still))
    return out
