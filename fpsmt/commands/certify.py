"""``fpsmt construct --certify``: the repaired lemmas a constructed network rests on, linked
from the results store (proved where missing), shared by Theorem 3.1's and 3.2's paths."""

from __future__ import annotations

from fpsmt.commands.options import engine_session, err


def summarize(rows) -> list:
    """A lemma row's certificate fields: status, statement, store keys, confirmation."""
    return [{k: r.get(k) for k in ("lemma", "status", "statement", "seconds", "reason", "keys", "confirmed")}
            for r in rows]


def link_lemmas(args, fmt, construction, last=True, names=None):
    """The repaired lemmas the construction rests on, from the results store (proved now
    where missing): per lemma its status and the store keys of its claims.  ``last``: the
    lemmas are all the network rests on (the verdict line says "certified"); otherwise
    the caller adds its own parts and says the verdict.  ``names``: those lemmas (default:
    the family's construction lemmas); only their own rows, not their extra ones."""
    from fpsmt.proof import lemmas as reproduce
    names = list(names or reproduce.construction_lemmas(construction.family))
    variant = getattr(args, "variant", None) or "repaired"
    which = "repaired" if variant == "repaired" else f"{variant} (where stated, else repaired)"
    err(f"  certificates: the {which} lemmas of {', '.join(names)} for {construction.activation} in {fmt.name} "
        f"(from the store {args.store or 'default'}, proved where missing) ...")
    with engine_session(args, confirm=args.confirm) as eng:
        rows = reproduce.run_variant(eng, names, variant, [fmt.name], progress=err, construction=construction,
                                     extra=False)
    certs = summarize(rows)
    why = []  # what keeps the network from being certified
    for c in certs:
        left = c["confirmed"]["unconfirmed"]
        err(f"    {c['lemma']}: {c['status']}" + (f" ({c['reason']})" if c["status"] != "PROVED" else "")
            + f", {len(c['keys'] or [])} store entries, {c['confirmed']['stages'] - len(left)}/"
              f"{c['confirmed']['stages']} UNSAT answers confirmed"
            + (f" by {', '.join(c['confirmed']['by'])}" if c["confirmed"]["by"] else ""))
        if c["status"] != "PROVED":
            why.append(f"{c['lemma']} is {c['status']}")
        elif left:
            why.append(f"{c['lemma']} has UNSAT answers no second back end or enumeration confirmed "
                       f"({', '.join(left)})" + ("" if args.confirm else "; --no-confirm skipped confirmation"))
    ok = not why
    if not ok:
        err("  NOT certified: " + "; ".join(why))
    elif last:
        err("  certified: every lemma the network rests on is PROVED for all its parameters, every UNSAT answer "
            "confirmed by a second back end or by enumeration")
    else:
        err("  the lemmas: every one PROVED for all its parameters, every UNSAT answer confirmed")
    return certs, ok
