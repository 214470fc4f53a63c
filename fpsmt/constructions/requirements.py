"""The requirements of the construction families (``specs/requirements.py``): claims about
σ beyond Conditions 1–3 that a family's builder needs, decided per activation × format.
``fpsmt conditions`` reports them beside C1–C3; ``fpsmt construct`` refuses a format in
which one is not PROVED (:func:`check`)."""

from __future__ import annotations

import importlib
import time

from fpsmt.errors import InputError


def families() -> dict:
    """{family: {requirement name: builder(activation) -> claim}}."""
    return importlib.import_module("fpsmt.specs.requirements").FAMILIES


def family_of(activation) -> str | None:
    """The family whose requirements ``fpsmt conditions`` reports by default: that of the
    activation's registered construction, or for a user's ``FILE.py:NAME`` the family
    offered to it.  A built-in activation without a construction gets none by default
    (``--family`` asks; sigmoid's would be decided for nothing: its blocks do not exist)."""
    from fpsmt.constructions.registry import constructions, find_construction
    from fpsmt.semantics.activations import get_activation
    if get_activation(activation).name not in constructions() and ".py:" not in str(activation):
        return None
    c = find_construction(activation)
    return c.family if c is not None and c.family in families() else None


def check_family(family):
    """Refuse a family that has no requirements (before any work)."""
    if family is not None and family not in families():
        raise InputError(f"no construction family {family!r} has requirements (families: {', '.join(families())})")


def run(engine, activations, formats, family=None, progress=None) -> list:
    """Rows like ``fpsmt conditions``' (condition = the requirement's name) for each
    activation's family (or ``family`` for all of them); none for an activation whose
    construction has no requirements (ReLU's blocks use its exact values only)."""
    from fpsmt.semantics.activations import get_activation
    from fpsmt.proof.conditions import row
    from fpsmt.semantics.formats import parse_format
    check_family(family)
    rows = []
    for a in activations:
        act = get_activation(a)
        fam = family or family_of(a)
        if fam is None:
            continue
        name = act.name if ".py:" not in str(a) else a
        for f in formats:
            fmt = parse_format(f)
            for rname, build in families()[fam].items():
                claim = build(name)
                if progress:
                    progress(f"{rname} ({fam}) for {act.name} in {fmt.name} ...")
                t0 = time.perf_counter()
                r = engine.prove(claim, fmt, {claim.name: claim})
                rows.append({**row(act, fmt, rname, r, 0.0 if r.cached else time.perf_counter() - t0), "family": fam})
    return rows


def check(engine, construction, fmt, progress=None):
    """Every requirement of the construction's family PROVED in ``fmt``, or an InputError
    naming the first that is not."""
    if construction.family not in families():
        return []
    rows = run(engine, [construction.activation], [fmt.name], family=construction.family, progress=progress)
    for r in rows:
        if r["status"] != "PROVED":
            raise InputError(f"{construction.activation} in {fmt.name}: requirement {r['condition']} of the "
                             f"{construction.family} construction is {r['status']} ({r['reason']}); "
                             "no network is built")
    check_format = getattr(construction.blocks, "check_format", None)
    if check_format is not None:  # what the format itself allows the blocks (finite constants)
        with construction.active():
            check_format(fmt)
    return rows
