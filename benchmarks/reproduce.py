"""Wall time of `fpsmt reproduce` per format from an empty store: with confirmation (the
default since every UNSAT must be confirmed) beside without it (`--no-confirm`, what
reproduce did before), measured one after the other in the same run.

Every lemma with a proof file, both variants, the portfolio, each claim capped at --cap
seconds (reproduce's default 600).  Prints a line per row as it is decided (and one per claim on stderr), then a table:
the two wall times, their ratio, the budget (bfloat16 15 min, float32 20 min on 2 cores),
the statuses and how many UNSAT answers stayed unconfirmed.  Then, from the confirmed
run's proof trees, the share of claim time spent in joins (join and cases nodes), in facts
(the finiteness facts of blocks beside blocks, u ⊗ 1 = u, congruence) and in induction
steps; and for the formats of --check (default bfloat16), the wall time of `fpsmt check`
on that run's certificate (every node decided again, no store).

    python benchmarks/reproduce.py [--formats bfloat16,float32] [--cap 600] [--check bfloat16] [--activation A,…] [--no-baseline]

``--no-baseline`` skips the run without confirmation (its columns print "-"), for a
budget check of the confirmed run alone.

``--activation`` (default relu): each activation's own lemma suite (its construction's
family: relu's lemmas, or the saturating family's for tanh or a user's FILE.py:NAME),
one table row per activation × format.
"""

import argparse
import sys
import time

from fpsmt.errors import InputError
from fpsmt.proof.engine import Engine
from fpsmt.proof.lemmas import DEFAULT_FORMATS, lemma_names, run
from fpsmt.proof.solve import shutdown
from fpsmt.proof.tree import walk_json

SHORT = {"PROVED": "P", "REFUTED": "R", "UNKNOWN": "?", "MISSING": "-", "VACUOUS": "V"}
BUDGET = {"bfloat16": 15 * 60, "float32": 20 * 60}


def shares(rows):
    """(seconds in join and cases nodes, in fact nodes, in induction base/step/conclusion
    nodes, in all claim nodes) over the rows' trees; a claim answered from this run's memo
    counts once."""
    seen, join, facts, ind, total = set(), 0.0, 0.0, 0.0, 0.0
    for r in rows:
        for n in walk_json(r["tree"]):
            if "seconds" not in n or n["name"] in seen:
                continue
            seen.add(n["name"])
            total += n["seconds"]
            join += n["seconds"] if n["kind"] in ("join", "cases") else 0.0
            facts += n["seconds"] if n["kind"] == "fact" else 0.0
            ind += n["seconds"] if n["kind"] in ("base", "step", "conclusion") else 0.0
    return join, facts, ind, total


def beside_times(rows):
    """Seconds per node of the blocks-beside-blocks subtrees (the finiteness facts, the
    layer chain and the whole claim: proofs/common.py absent_chain), once per claim."""
    out = {}
    for r in rows:
        for n in walk_json(r["tree"]):
            name = n["name"]
            fact = n["kind"] == "fact" and (".value" in name or ".grad" in name)
            if "seconds" in n and name not in out and (fact or ".absent." in name
                                                       or name.endswith((".whole", ".beside"))):
                out[name] = n["seconds"]
    return out


def check_time(rows, cap):
    from fpsmt.proof.certificate import certificate, check
    doc = certificate(rows)
    t0 = time.perf_counter()
    from fpsmt.constructions.registry import get_construction
    res = check(doc["rows"], Engine(solver="portfolio", timeout=cap, confirm=True),
                lambda a: get_construction(a).active())
    return time.perf_counter() - t0, sum(1 for r in res if r["ok"]), len(res)


def timed(confirm, fmt, cap, lemmas, out=None, construction=None):
    t0 = time.perf_counter()
    try:
        rows = run(Engine(solver="portfolio", timeout=cap, confirm=confirm), lemmas, ["released", "repaired"], [fmt],
                   progress=lambda line: print(line, file=sys.stderr, flush=True), construction=construction)
    except InputError as e:
        return None, str(e), 0
    if out is not None:
        out.extend(rows)
    took = time.perf_counter() - t0
    tag = "confirm" if confirm else "no-confirm"
    for r in rows:
        why = f"  ({r.get('reason', '')[:90]})" if r["status"] == "UNKNOWN" else ""
        left = r["confirmed"]["unconfirmed"]
        print(f"  {tag:<10} {r['activation']:<8} {fmt:<9} {r['lemma']:<24} {r['variant']:<8} {r['status']:<8} {r['seconds']:>8.1f} s"
              f"  confirmed {r['confirmed']['stages'] - len(left)}/{r['confirmed']['stages']}{why}", flush=True)
    unconfirmed = sum(len(r["confirmed"]["unconfirmed"]) for r in rows)
    return took, "".join(SHORT[r["status"]] for r in rows), unconfirmed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default=",".join(DEFAULT_FORMATS))
    ap.add_argument("--cap", type=float, default=600.0)
    ap.add_argument("--check", default="bfloat16", help="formats whose certificate `fpsmt check` re-decides")
    ap.add_argument("--activation", default="relu", help="activations with a construction, comma-separated")
    ap.add_argument("--no-baseline", action="store_true", help="skip the run without confirmation")
    args = ap.parse_args()
    from fpsmt.constructions.registry import get_construction
    from fpsmt.proof.lemmas import discover
    suites = []  # (activation, its construction, its family's lemmas)
    for a in args.activation.split(","):
        cons = get_construction(a)
        suites.append((a, cons, [n for n in lemma_names() if discover()[n].family == cons.family]))
    for a, cons, lemmas in suites:
        print(f"{a}: reproduce per format from an empty store: {len(lemmas)} lemmas of the {cons.family} family, "
              f"portfolio, cap {args.cap:g} s per claim")
        print(f"{a}: statuses in the order {', '.join(lemmas)} (each variant the family states)", flush=True)
    header = (f"{'activation':<10} {'format':<10} {'confirm s':>10} {'no-confirm s':>13} {'ratio':>6} {'budget s':>9} {'within':>7} "
              f"{'unconfirmed':>12}  statuses (confirm | no-confirm)")
    lines = []
    extra = []
    for a, cons, lemmas in suites:
        for fmt in args.formats.split(","):
            rows = []
            on, s_on, left = timed(True, fmt, args.cap, lemmas, rows, construction=cons)
            if rows:
                join, facts, ind, total = shares(rows)

                def pc(v):
                    return f"{v:.1f} s ({100 * v / max(total, 1e-9):.1f}%)"
                extra.append(f"{a} {fmt}: claim time {total:.1f} s, joins {pc(join)}, facts {pc(facts)}, "
                             f"induction nodes {pc(ind)}")
                print(extra[-1], flush=True)
                bt = beside_times(rows)
                if bt:
                    extra.append(f"{a} {fmt}: blocks beside blocks {sum(bt.values()):.1f} s in {len(bt)} claims ("
                                 + ", ".join(f"{k} {v:.1f}" for k, v in bt.items()) + ")")
                    print(extra[-1], flush=True)
            if rows and fmt in args.check.split(","):
                took, ok, n = check_time(rows, args.cap)
                extra.append(f"{a} {fmt}: fpsmt check on the certificate {took:.1f} s ({ok}/{n} rows re-established), "
                             f"reproduce with confirmation {on:.1f} s, ratio {took / on:.2f}")
                print(extra[-1], flush=True)
            off, s_off, _ = (None, "-", 0) if args.no_baseline else timed(False, fmt, args.cap, lemmas, construction=cons)
            budget = BUDGET.get(fmt)
            ratio = f"{on / off:.2f}" if on and off else "-"
            within = "-" if budget is None or on is None else ("yes" if on <= budget else "NO")
            lines.append(f"{a:<10} {fmt:<10} {'-' if on is None else f'{on:.1f}':>10} "
                         f"{'-' if off is None else f'{off:.1f}':>13} "
                         f"{ratio:>6} {budget or '-':>9} {within:>7} {left:>12}  {s_on} | {s_off}")
            print(f"\n{header}\n{lines[-1]}\n", flush=True)  # each row as soon as it is measured
    print(f"\n{header}\n" + "\n".join(lines) + "\n\n" + "\n".join(extra), flush=True)
    shutdown()


if __name__ == "__main__":
    main()
