"""``fpsmt reproduce``: the ReLU construction lemmas (``proofs/``), per format and variant.

A proof file defines ``LEMMA``, a :class:`Lemma`: for each variant (``released``,
``repaired``) a function ``fmt -> (claims, statement[, hints])`` giving the claims to
discharge in order (or a proof tree, :mod:`fpsmt.proof.tree`, whose claims are decided
depth first and whose nodes the row reports) (stages first; the row is PROVED only when every claim is; a REFUTED
stage ends the row, an UNKNOWN one does not — the row then names every UNKNOWN stage), a one-line statement of exactly what is proved, with every
range, and optionally candidate counterexamples per claim name (partial assignments of
bit patterns, e.g. where BRIEF §5.1 predicts a break): the engine tries each with those
variables fixed and solves the rest — a hint only steers, a REFUTED row is still a
solved, replayed counterexample.  Rows are PROVED,
REFUTED (with the counterexample, replayed) or UNKNOWN (with the reason).
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable

from fpsmt.proof.engine import rests_on_unsat
from fpsmt.proof.tree import Node, tie_hashes, to_json
from fpsmt.errors import InputError
from fpsmt.semantics.formats import Format, parse_format
from fpsmt.semantics.network import ANY
from fpsmt.proof import transfer

DEFAULT_FORMATS = ("bfloat16", "float32")


@dataclass
class Lemma:
    name: str
    paper: str  # where the paper states it
    variants: dict = field(default_factory=dict)  # variant -> fmt -> (claims, statement)
    formats: Callable | None = None  # fmt -> why it does not apply (then it has no row there), or None
    extra: Callable | None = None  # fmt -> [(variant, claims, statement)]: more rows of this lemma
    order: int = 1000  # where its rows stand in a report (lemmas a lemma builds on come first)
    #: the construction family whose blocks it proves (:mod:`fpsmt.constructions.registry`);
    #: its rows are decided for every activation with a construction of that family
    family: str = "relu"
    #: whether the network of ``fpsmt construct`` rests on this lemma (its repaired variant)
    construction: bool = False
    #: the variants it is stated for when that is by design (no released blocks exist for
    #: it): the others get no row rather than a MISSING one
    only: tuple = ()
    #: the lemma as one claim about its whole block for any semantics profile:
    #: ``(fmt, profile) -> (claims, statement)`` (``proofs/common.py`` ``whole``) — how
    #: ``reproduce --semantics`` decides it under a profile other than the paper's, where
    #: the proof tree's joins (argued for the paper's semantics) do not carry over
    whole: Callable | None = None
    #: why the lemma's claims mean the same under every profile (they involve no network:
    #: e.g. products of weights), or None; such a lemma's row under a profile is its own
    profile_free: str | None = None
    #: the lemma is Theorem 3.1 for the network ``fpsmt construct`` builds (1-D): under a
    #: profile that fixes one order and one implementation, that network on built-in
    #: targets is run, and a point it misses there refutes the lemma (its proof tree's
    #: joins are the paper's semantics', so a run that meets every target decides nothing)
    network: bool = False

    def build(self, variant, fmt):
        if variant not in self.variants:
            return None
        return self.variants[variant](fmt)

    def claims(self, variant, fmt) -> list:
        """The claims of a variant in ``fmt`` (a proof tree's, depth first)."""
        built = self.build(variant, fmt)
        return [] if built is None else claims_of(built)


_discovered: dict | None = None


def discover() -> dict:
    """Every lemma of the shipped proof files (a module of ``fpsmt.proofs`` that defines
    ``LEMMA``), by name, in report order: nothing to register by hand."""
    global _discovered
    if _discovered is None:
        import fpsmt.proofs
        found = {}
        for info in pkgutil.iter_modules(fpsmt.proofs.__path__):
            lemma = getattr(importlib.import_module(f"fpsmt.proofs.{info.name}"), "LEMMA", None)
            if isinstance(lemma, Lemma):
                if lemma.name in found:
                    raise InputError(f"two proof files define the lemma {lemma.name!r}")
                found[lemma.name] = lemma
        _discovered = dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))
    return _discovered


def lemma_names(family=None) -> list:
    """Every lemma's name, or those of one construction family."""
    return [n for n, lemma in discover().items() if family is None or lemma.family == family]


def construction_lemmas(family="relu") -> list:
    """The lemmas the network of ``fpsmt construct`` rests on (their repaired variants)."""
    return [n for n, lemma in discover().items() if lemma.construction and lemma.family == family]


def load(name) -> Lemma:
    lemmas = discover()
    if name not in lemmas:
        raise InputError(f"unknown lemma {name!r}: use one of {', '.join(lemmas)}")
    return lemmas[name]


def run(engine, lemmas, variants, formats, progress=None, construction=None, semantics=None, extra=True,
        network_row=None):
    """Rows (dicts) for every lemma x variant x format.  With a ``construction`` (an
    object with ``activation``, ``family`` and an ``active()`` context, see
    :mod:`fpsmt.constructions.registry`) the rows are that activation's: built and
    decided while it is active, lemmas of another family skipped; without, ReLU's.

    ``semantics`` (a profile other than the paper's): the rows of the construction's
    variant (repaired) under it (:func:`_profile_row`).  ``extra=False``: each lemma's
    own rows only, not its :attr:`Lemma.extra` rows (e.g. the whole-block cross-checks).
    ``network_row(name, activation, fmt, sem, construction, progress)``: the row under a
    profile of a lemma about the construct network (:attr:`Lemma.network`; the commands'
    :func:`fpsmt.commands.hypothesis.network_row` runs that network), else UNKNOWN."""
    from fpsmt.semantics.network import parse_semantics
    sem = parse_semantics(semantics)
    if not sem.is_paper:
        return _profile_rows(engine, lemmas, formats, progress, construction, sem, network_row)
    activation = construction.activation if construction is not None else "relu"
    family = construction.family if construction is not None else "relu"
    rows = []
    fmts = [parse_format(f) for f in formats]
    loaded = {n: load(n) for n in lemmas}
    # a variant no lemma of the family states does not exist for it (the saturating family
    # has no released blocks): no rows; one that some lemma lacks is a MISSING row
    stated = {v for lemma in discover().values() if lemma.family == family for v in lemma.variants}
    with construction.active() if construction is not None else contextlib.nullcontext():
        for name in lemmas:
            lemma = loaded[name]
            if lemma.family != family:
                continue
            for variant in (v for v in variants if v in stated and (not lemma.only or v in lemma.only)
                            and (v not in OWN_VARIANTS or v in lemma.variants)):
                for fmt in fmts:
                    why = lemma.formats(fmt) if lemma.formats else None
                    if why is not None:  # not stated for this σ in this format: no row, and a line saying why
                        if progress:
                            progress(f"{name} ({variant}, {activation}) in {fmt.name}: not stated here: {why}")
                        continue
                    rows.append(_row(engine, name, lemma, variant, fmt, progress, activation=activation))
                    for v, claims, statement in (lemma.extra(fmt) if lemma.extra and extra else []):
                        if v == variant:
                            rows.append(_row(engine, name, lemma, variant, fmt, progress, (claims, statement),
                                             activation=activation))
    return rows


#: the variant a profile's rows are decided for: the blocks ``fpsmt construct`` builds
PROFILE_VARIANT = "repaired"
#: variants only the lemmas whose blocks they change state (the shallow gradient atom,
#: proofs/gradient_atom.py): a lemma without one has no row for it, not a MISSING one
OWN_VARIANTS = ("shallow",)
#: every variant ``reproduce`` knows, in its order
VARIANTS = ("released", "repaired", "shallow")


def run_variant(engine, names, variant, formats, **kw) -> list:
    """:func:`run` for a network built with ``variant`` (repaired, or one of
    :data:`OWN_VARIANTS`): each lemma of ``names`` in that variant where it states it, in
    the repaired one otherwise (the shallow network's zero-gradient atoms and ⊞ are the
    repaired ones); the rows in the order of ``names``."""
    own = {n for n in names if variant in OWN_VARIANTS and variant in load(n).variants}
    rows = []
    for group, v in (([n for n in names if n not in own], "repaired"), ([n for n in names if n in own], variant)):
        if group:
            rows += run(engine, group, [v], formats, **kw)
    return sorted(rows, key=lambda r: names.index(r["lemma"]))


def _profile_rows(engine, lemmas, formats, progress, construction, sem, network_row=None):
    """Rows under the profile ``sem``, one per lemma x format, of the repaired variant: a
    lemma whose claims involve no network (:attr:`Lemma.profile_free`) is its own row; one
    with a whole-block statement (:attr:`Lemma.whole`) is decided by it under the profile
    (PROVED, or REFUTED with the block's counterexample, replayed under the profile);
    any other is UNKNOWN, saying so (its proof tree's joins are argued for the paper's
    semantics, and no single claim states it)."""
    activation = construction.activation if construction is not None else "relu"
    family = construction.family if construction is not None else "relu"
    fmts = [parse_format(f) for f in formats]
    rows = []
    with construction.active() if construction is not None else contextlib.nullcontext():
        for name in lemmas:
            lemma = load(name)
            if lemma.family != family or PROFILE_VARIANT not in lemma.variants:
                continue
            for fmt in fmts:
                why = lemma.formats(fmt) if lemma.formats else None
                if why is not None:
                    if progress:
                        progress(f"{name} ({PROFILE_VARIANT}, {activation}) in {fmt.name}: not stated here: {why}")
                    continue
                sem.check(fmt, [activation], claims=True)  # the command checked it before any work
                if lemma.profile_free:
                    built = lemma.build(PROFILE_VARIANT, fmt)
                    row = _row(engine, name, lemma, PROFILE_VARIANT, fmt, progress, built, activation, sem)
                    row["statement"] = f"{row['statement']} (the same under every profile: {lemma.profile_free})"
                elif lemma.whole is not None:
                    try:
                        built = lemma.whole(fmt, sem)
                    except InputError as e:  # e.g. order=any over a row too wide to encode every order of
                        built, why = None, f"its whole-block claim cannot be stated under the profile: {e}"
                    row = (_row(engine, name, lemma, PROFILE_VARIANT, fmt, progress, built, activation, sem)
                           if built is not None else unknown_row(name, activation, fmt, sem, why))
                    if built is None and progress:
                        progress(f"{name} ({PROFILE_VARIANT}, {activation}) in {fmt.name} under {sem.spec}: "
                                 f"UNKNOWN: {why}")
                elif lemma.network and not (sem.order == ANY and sem.ulp_rows) and (
                        network_row is not None or transfer.applies(sem)):
                    row, why = transfer_row(engine, name, lemma, fmt, progress, activation, sem)
                    if row is None:
                        row = (network_row(name, activation, fmt, sem, construction, progress)
                               if network_row is not None else unknown_row(name, activation, fmt, sem, "no network run"))
                        if why and row["status"] == "UNKNOWN":
                            row["reason"] = f"{why}; {row['reason']}"
                            row["statement"] = f"not decided under {sem.spec}: {row['reason']}"
                else:
                    row = unknown_row(name, activation, fmt, sem,
                                       "no whole-block claim states this lemma, and its proof tree's joins are "
                                       "argued for the paper's semantics")
                    if progress:
                        progress(f"{name} ({PROFILE_VARIANT}, {activation}) in {fmt.name} under {sem.spec}: "
                                 f"UNKNOWN: {row['reason']}")
                rows.append(row)
    return rows


def transfer_row(engine, name, lemma, fmt, progress, activation, sem):
    """(row, None) for a lemma about the construct network under a profile that keeps the
    paper's order and changes only how activations are computed (:mod:`fpsmt.proof.transfer`):
    PROVED when the transfer's claims and the lemma's tree (for the paper's semantics) are;
    else (None, why the transfer gives nothing here) — None where it does not apply to the
    profile."""
    if not transfer.applies(sem):
        return None, None
    part = transfer.node([activation], sem)
    claims = part.claims()
    registry = {c.name: c for c in claims}
    spent = 0.0  # decided here first: the row below finds them answered
    for c in claims:
        try:
            r = engine.prove(c, fmt, registry)
        except InputError as e:  # e.g. a formula computing σ' lazily in a second format (torch's ELU in bfloat16)
            return None, f"the transfer from the paper's semantics cannot be stated here: {c.name}: {e}"
        spent += 0.0 if r.cached else r.seconds
        if progress:
            progress(f"  {c.name} under {sem.spec}: {r.status}" + ("" if r.cached else f", {r.seconds:.1f} s"))
        if r.status != "PROVED":
            what = (f"REFUTED at {', '.join(f'{k}={v}' for k, v in (r.witness_json() or {}).items())}"
                    if r.status == "REFUTED" else r.status)
            why = {f"{transfer.PREFIX}.step": "the profile's backward step changes a value beyond a zero's sign",
                   f"{transfer.PREFIX}.value": "the profile's implementation changes a value of σ"}.get(
                c.name.rsplit(".", 1)[0])
            return None, (f"the transfer from the paper's semantics does not apply: {c.name} is {what} ({why})"
                          if why else f"the transfer's {c.name} is {what}")
    paper_tree, statement = lemma.build(PROFILE_VARIANT, fmt)[:2]
    root = Node("lemma", f"{name}.transferred", None, [tree_node(name, paper_tree), part],
                doc=f"the lemma for the paper's semantics, and its transfer to {sem.spec}")
    row = _row(engine, name, lemma, PROFILE_VARIANT, fmt, progress,
               (root, f"{statement}; under {sem.spec} too, by transfer (fpsmt.proof.transfer): the profile keeps the "
                      "paper's order and σ's values, and changes only backward steps, each keeps R (a is NaN, the "
                      "same float, or both zeros) with the paper's, as ⊕ and ⊗ do, so D^AD meets the same targets"),
               activation, sem)
    if row["status"] != "PROVED":
        return None, f"the lemma's tree for the paper's semantics is {row['status']} here, so nothing transfers"
    row["seconds"] = round(row["seconds"] + spent, 3)
    return row, None


def unknown_row(name, activation, fmt, sem, reason):
    """A row under ``sem`` that is not decided, saying why."""
    return {"lemma": name, "activation": activation, "variant": PROFILE_VARIANT, "format": fmt.name,
            "semantics": sem.spec, "status": "UNKNOWN", "statement": f"not decided under {sem.spec}: {reason}",
            "counterexample": None, "solver": None, "seconds": 0.0, "reason": reason, "cached": False, "keys": [],
            "stated": "", "confirmed": {"stages": 0, "by": [], "unconfirmed": []}, "tree": None}


def _row(engine, name, lemma, variant, fmt: Format, progress, built=None, activation="relu", sem=None):
    from fpsmt.semantics.network import PAPER
    sem = sem or PAPER  # the profile the row's claims are decided under
    base = {"lemma": name, "activation": activation, "variant": variant, "format": fmt.name,
            "semantics": sem.spec, "counterexample": None, "solver": None, "seconds": 0.0}
    built = built or lemma.build(variant, fmt)
    if built is None:
        return {**base, "status": "MISSING", "statement": f"no {variant} variant is stated for this lemma"}
    claims, statement = built[:2]
    stated = statement  # as the proof file states it (the row's statement may add which stage failed)
    tree = tree_node(name, claims)
    claims = tree.claims()
    hints = built[2] if len(built) > 2 else {}  # claim name -> candidate counterexamples (steer only)
    registry = {c.name: c for c in claims}
    total = 0.0
    keys = []  # the results-store key of every claim decided for this row
    if progress:
        progress(f"{name} ({variant}, {activation}) in {fmt.name}"
                 + ("" if sem.is_paper else f" under {sem.spec}") + " ...")
    unknown = []  # (claim, result) of the stages left UNKNOWN; the others are still decided
    for i, claim in enumerate(claims):
        r = engine.prove(claim, fmt, registry, hints=hints.get(claim.name, ()))
        if progress and len(claims) > 1:  # a tree's claims can take minutes each: say where the row is
            progress(f"  [{i + 1}/{len(claims)}] {claim.name}: {r.status}, "
                     + ("stored" if r.cached else f"{r.seconds:.1f} s" + (f", {r.solver}" if r.solver else ""))
                     + (f", confirmed by {r.confirmed_by}" if r.confirmed_by else ""))
        keys.append({"claim": claim.name, "status": r.status, "key": r.key or None,
                     "confirmed_by": r.confirmed_by or None, "statement": r.statement or None,
                     "solver": r.solver or None, "seconds": round(r.seconds, 3)})
        total += 0.0 if r.cached else r.seconds  # a stage shared with an earlier row costs nothing again
        if r.status in ("REFUTED", "VACUOUS"):  # a vacuous stage proves nothing: the row is not PROVED
            break
        if r.status == "UNKNOWN":
            unknown.append((claim, r))
    if r.status not in ("REFUTED", "VACUOUS") and unknown:
        claim, r = unknown[0]
    cx = r.witness_json() if r.status == "REFUTED" and r.witness else None
    if r.status in ("REFUTED", "VACUOUS") and len(claims) > 1:
        statement = f"stage {claim.name} is {r.status}: {statement}"
    elif r.status == "UNKNOWN" and len(claims) > 1:
        names = ", ".join(c.name for c, _ in unknown)
        statement = (f"stage{'s' if len(unknown) > 1 else ''} {names} {'are' if len(unknown) > 1 else 'is'} "
                     f"UNKNOWN, the other {len(claims) - len(unknown)} PROVED: {statement}")
    reason = "; ".join(f"{c.name}: {u.reason}" for c, u in unknown) if r.status == "UNKNOWN" else r.reason
    if progress:
        progress(f"  {r.status} in {total:.1f} s" + (f": {reason}" if r.status == "UNKNOWN" else ""))
    row = {**base, "status": r.status, "statement": statement, "counterexample": cx, "solver": r.solver or None,
           "seconds": round(total, 3), "reason": reason, "cached": r.cached, "keys": keys, "stated": stated}
    row["confirmed"] = _confirmation(claims, keys)
    by_claim = {k["claim"]: {x: k[x] for x in ("status", "statement", "solver", "seconds", "confirmed_by", "key")}
                for k in keys}
    row["tree"] = to_json(tree, {c.name: by_claim.get(c.name, {"status": "NOT DECIDED"}) for c in claims},
                          tie_hashes(tree, fmt))
    return row


def decide_tree(engine, name, root: Node, statement, fmt: Format, progress=None, activation="relu") -> dict:
    """A row like reproduce's for a proof tree built elsewhere (one domain point's ∀y
    claims of ``fpsmt construct``): status, the stage that decided it, the tree and its
    results; ``activation`` names the network's σ in the row."""
    return _row(engine, name, None, "repaired", fmt, progress, built=(root, statement), activation=activation)


def tree_node(name, claims) -> Node:
    """A variant's proof tree; a flat list of stages becomes a lemma node over them (their
    joins are argued in the proof file's docstring)."""
    if isinstance(claims, Node):
        return claims
    return Node("lemma", name, None, [Node("stage", c.name, c) for c in claims],
                doc="stages joined by the argument in the proof file's docstring (not yet a proof tree)")


def claims_of(built) -> list:
    """The claims of a built variant ``(claims or tree, statement[, hints])``."""
    return tree_node("", built[0]).claims()


def tree_of(name, built, fmt) -> dict:
    """The tree of a built variant as data, undecided (kinds, names, interface terms)."""
    node = tree_node(name, built[0])
    return to_json(node, None, tie_hashes(node, fmt))


def _confirmation(claims, keys):
    """Which of the row's UNSAT answers a second back end or an enumeration confirmed
    (now, or when the store's answer was found): the stages PROVED (∀, ∃∀) or REFUTED (∃)
    by an UNSAT, by whom, and those left unconfirmed."""
    kinds = {c.name: c.kind for c in claims}
    unsat = [k for k in keys if rests_on_unsat(kinds[k["claim"]], k["status"])]
    return {"stages": len(unsat), "by": sorted({k["confirmed_by"] for k in unsat if k["confirmed_by"]}),
            "unconfirmed": [k["claim"] for k in unsat if not k["confirmed_by"]]}
