"""What ``fpsmt construct`` shares between 1-D and d-dimensional targets: the lemma rows
``--verify atoms`` rests on, the bound on the atoms they cover, the listing of missed
points, and the second run under another semantics profile."""

from __future__ import annotations

from fpsmt.commands import certify
from fpsmt.commands.options import engine_session, err
from fpsmt.errors import InputError


def atoms_within_the_lemmas(points, kinds):
    """The lemma rows' inductions cover at most SLOTS atoms in the output row and SLOTS
    first-layer neurons: a larger network (``kinds``: its atom kinds, template and owners)
    is refused for --verify atoms (one line)."""
    from fpsmt.proof.approx import SLOTS
    atoms = sum(len(own) for _, own in kinds)
    first = sum(len(own) * T.layers[0].n_out for T, own in kinds)
    if atoms > SLOTS or first > SLOTS:
        raise InputError(f"--verify atoms: {len(points)} points make {atoms} atoms and {first} first-layer neurons; "
                         f"the lemma rows' inductions cover at most {SLOTS} of each; use --verify full")


def atom_lemmas(args, fmt, construction, names=None) -> list:
    """--verify atoms: the lemma rows that state every atom's zeros away from its point
    (``names``; default the family's ``ATOM_LEMMAS``), their own rows, from the store
    (proved where missing), before any network is built; refused in one line when one is
    not PROVED with every UNSAT answer confirmed."""
    from fpsmt.proof import lemmas as reproduce
    names = list(names or construction.blocks.ATOM_LEMMAS)
    err(f"  --verify atoms rests on {', '.join(names)} for {construction.activation} in {fmt.name} "
        f"(from the store {args.store or 'default'}, proved where missing) ...")
    with engine_session(args, confirm=args.confirm) as eng:
        rows = reproduce.run_variant(eng, names, getattr(args, "variant", None) or "repaired", [fmt.name],
                                     progress=err, construction=construction, extra=False)
    certs = certify.summarize(rows)
    for c in certs:
        err(f"    {c['lemma']}: {c['status']}" + (f" ({c['reason']})" if c["status"] != "PROVED" else "")
            + f", {len(c['keys'] or [])} store entries")
        if c["status"] != "PROVED" or c["confirmed"]["unconfirmed"]:
            why = c["status"] if c["status"] != "PROVED" else "PROVED with unconfirmed UNSAT answers"
            raise InputError(f"--verify atoms: {c['lemma']} is {why} in {fmt.name}; use --verify full")
    return [{k: c[k] for k in ("lemma", "status", "keys")} for c in certs]


def list_points(word, bad, more=False):
    """The first ten points of a verification's list (:func:`fpsmt.commands.targets.verify`,
    or its d-dimensional twin, whose x and gradients are lists) on stderr (``more``: and
    how many were left out)."""
    show = lambda v: f"({', '.join(v)})" if isinstance(v, list) else v  # noqa: E731
    for b in bad[:10]:
        err(f"  {word} at x = {show(b['x'])}: f = {b['f']} (target {b['f_target']}), "
            f"D^AD = {show(b['grad'])} (target {show(b['g_target'])})")
    if more and len(bad) > 10:
        err(f"  … and {len(bad) - 10} more (--json lists them all)")


def under(fmt, net, points, sem, check=None) -> dict:
    """The network (built and verified for the paper's semantics) run under another profile:
    the points where it misses its targets there (a result, not an error).  ``check(fmt,
    net, points, sem)`` gives those points (default the 1-D :func:`fpsmt.commands.targets.verify`'s)."""
    import time
    from fpsmt.commands import targets
    t0 = time.perf_counter()
    broken = (check or (lambda *a: targets.verify(*a)[0]))(fmt, net, points, sem)
    secs = time.perf_counter() - t0
    err(f"  under --semantics {sem.spec}: {len(points) - len(broken)}/{len(points)} points still meet their "
        f"targets ({secs:.2f} s)")
    list_points("BROKEN", broken, more=True)
    return {"spec": sem.spec, "met": len(points) - len(broken), "broken": broken, "seconds": round(secs, 3)}
