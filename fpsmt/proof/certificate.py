"""Certificates: what ``fpsmt reproduce --certificate`` claims, row by row, and an
independent re-check of it (``fpsmt check``).

A certificate is JSON: ``{"certificate": "fpsmt", "version": 1, "fpsmt": VERSION, "rows":
[…]}``, each row its lemma, activation, variant, format, status, statement and proof tree
(:func:`fpsmt.proof.tree.to_json`: every node's kind and name, its interface terms'
hashes, and for a claim node the hash of its SMT-LIB text and format, its status, back
end, seconds, confirmer and store key).

:func:`check` rebuilds each row from the installed proof files, compares the trees node
by node (kind, name, interface terms, children, then each claim's SMT hash), and decides
every node again with a fresh engine: no store, every UNSAT confirmed by a second back
end or by enumeration.  A row is re-established when every node it lists as decided gets
the same status again (an UNSAT confirmed) and the row's status follows.
"""

from __future__ import annotations

from fpsmt.errors import InputError

KIND, VERSION = "fpsmt", 1
#: ``stated``: the statement as the proof file gives it (``statement`` may add which stage failed)
ROW_FIELDS = ("lemma", "activation", "variant", "format", "status", "statement", "stated", "tree")
#: the counterexample is for people: check re-finds its own; ``semantics``: the row's profile
#: (absent or the paper's: the proof file's row; another: the row ``reproduce --semantics`` gives)
WRITTEN = ROW_FIELDS + ("semantics", "counterexample")
DECIDED = ("PROVED", "REFUTED", "VACUOUS", "UNKNOWN")


def certificate(rows) -> dict:
    from fpsmt import __version__
    return {"certificate": KIND, "version": VERSION, "fpsmt": __version__,
            "rows": [{k: r.get(k) for k in WRITTEN} for r in rows]}


def parse(doc, name) -> list:
    """The rows of a certificate document; InputError (exit 2) for anything else."""
    if not isinstance(doc, dict) or doc.get("certificate") != KIND or not isinstance(doc.get("rows"), list):
        raise InputError(f"{name}: not an fpsmt certificate (expected an object with \"certificate\": \"{KIND}\" "
                         "and \"rows\")")
    if doc.get("version") != VERSION:
        raise InputError(f"{name}: certificate version {doc.get('version')!r}; this fpsmt reads version {VERSION}")
    for i, r in enumerate(doc["rows"]):
        if not isinstance(r, dict) or any(k not in r for k in ROW_FIELDS) or not isinstance(r["tree"], dict):
            raise InputError(f"{name}: row {i + 1} is not a certificate row (needs {', '.join(ROW_FIELDS)})")
    return doc["rows"]


def row_id(r) -> str:
    return f"{r.get('lemma')} ({r.get('variant')}, {r.get('activation')}) in {r.get('format')}"


def _built(r):
    """The installed proof file's (claims or tree, statement) for a certificate row, or a
    problem string."""
    from fpsmt.proof.lemmas import discover
    from fpsmt.semantics.formats import parse_format
    lemma = discover().get(r["lemma"])
    if lemma is None:
        return None, f"no installed lemma {r['lemma']!r}"
    try:
        fmt = parse_format(r["format"])
    except InputError as e:
        return None, f"format: {e}"
    built = lemma.build(r["variant"], fmt)
    if built is not None and built[1] == r["stated"]:
        return (lemma, fmt, built), None
    for v, claims, statement in (lemma.extra(fmt) if lemma.extra else []):
        if v == r["variant"] and statement == r["stated"]:
            return (lemma, fmt, (claims, statement)), None
    return None, "no row of the installed proof files has this statement"


def _shape(node, path=""):
    """(path, kind, terms, number of children) of every node, depth first."""
    here = f"{path}/{node.get('name')}"
    yield here, node.get("kind"), node.get("terms"), len(node.get("children") or [])
    for c in node.get("children") or []:
        yield from _shape(c, here)


def _claims(node):
    from fpsmt.proof.tree import walk_json
    return (n for n in walk_json(node) if "status" in n)


def compare(cert_tree, rebuilt_tree, *, decided=True) -> list:
    """What differs between two trees (as data), node by node."""
    a, b = list(_shape(cert_tree)), list(_shape(rebuilt_tree))
    out = []
    pa, pb = {p: (k, t, n) for p, k, t, n in a}, {p: (k, t, n) for p, k, t, n in b}
    for p in pa:
        if p not in pb:
            out.append(f"node {p} is not in the installed proof")
        elif pa[p][0] != pb[p][0]:
            out.append(f"node {p}: kind {pa[p][0]!r} in the certificate, {pb[p][0]!r} installed")
        elif (pa[p][1] or {}) != (pb[p][1] or {}):
            out.append(f"node {p}: interface terms differ")
    for p in pb:
        if p not in pa:
            out.append(f"node {p} is missing from the certificate")
    if not decided:
        return out
    ca, cb = {n["name"]: n for n in _claims(cert_tree)}, {n["name"]: n for n in _claims(rebuilt_tree)}
    for name, n in ca.items():
        m = cb.get(name)
        if m is None or n.get("status") == "NOT DECIDED":
            continue
        if n.get("statement") != m.get("statement"):
            out.append(f"node {name}: SMT statement hash {n.get('statement')} in the certificate, "
                       f"{m.get('statement')} rebuilt")
    return out


def _profile(r):
    """The row's semantics profile, None for the paper's; InputError for a bad one."""
    from fpsmt.semantics.network import parse_semantics
    sem = parse_semantics(r.get("semantics"))
    return None if sem.is_paper else sem


def _check_profile_row(r, engine, construction_of):
    """(re-decided row, problems) for a row under a profile: decided again as ``reproduce
    --semantics`` decides it (:func:`fpsmt.proof.lemmas.run`), with no network run."""
    from fpsmt.proof import lemmas as L
    if r["lemma"] not in L.discover():
        return None, [f"no installed lemma {r['lemma']!r}"]
    if construction_of is None:
        return None, ["a row under a profile needs its construction (fpsmt check passes it)"]
    try:
        rows = L.run(engine, [r["lemma"]], [r["variant"]], [r["format"]], construction=construction_of(r["activation"]),
                     semantics=r["semantics"])
    except InputError as e:
        return None, [f"{e}"]
    if len(rows) != 1 or not isinstance(rows[0].get("tree"), dict):
        return None, ["the installed proof files give no row with a proof tree for it under its profile"]
    row = rows[0]
    problems = compare(r["tree"], row["tree"], decided=False)
    if row.get("stated") != r["stated"]:
        problems.append("no row of the installed proof files has this statement under its profile")
    return row, problems


def _kinds_under(r, construction_of) -> dict:
    """Claim name -> kind for a profile row's claims: the lemma's own (its tree for the
    paper's semantics, which a transferred row holds) and its whole-block claims."""
    from fpsmt.proof import lemmas as L
    from fpsmt.semantics.formats import parse_format
    from fpsmt.semantics.network import parse_semantics
    lemma, fmt, kinds = L.load(r["lemma"]), parse_format(r["format"]), {}
    with construction_of(r["activation"]).active():
        for make in (lambda: lemma.build(r["variant"], fmt),
                     lambda: lemma.whole(fmt, parse_semantics(r["semantics"])) if lemma.whole else None):
            try:
                built = make()
            except InputError:
                continue
            if built is not None:
                kinds.update({c.name: c.kind for c in L.claims_of(built)})
    return kinds


def check(rows, engine, activate, progress=lambda msg: None, construction_of=None) -> list:
    """One result per certificate row: {"row", "ok", "problems", "nodes"}.  ``activate``:
    activation name -> a context in which that activation's construction is the one the
    proof files build (InputError for an activation without one); ``construction_of``:
    activation name -> its construction (rows under a profile other than the paper's)."""
    from fpsmt.proof.engine import rests_on_unsat
    from fpsmt.proof import lemmas as L
    results = []
    for r in rows:
        rid = row_id(r)
        progress(f"checking {rid} ...")
        problems, nodes = [], []
        try:
            sem = _profile(r)
        except InputError as e:
            results.append({"row": rid, "ok": False, "problems": [f"semantics: {e}"], "nodes": []})
            continue
        if sem is not None:
            row, problems = _check_profile_row(r, engine, construction_of)
            if row is not None and not problems:
                problems, nodes = _compare_decided(r, row, _kinds_under(r, construction_of), rests_on_unsat)
            results.append({"row": f"{rid} under {sem.spec}", "ok": not problems, "problems": problems,
                            "nodes": nodes})
            continue
        got, why = _built(r)
        if got is None:
            results.append({"row": rid, "ok": False, "problems": [why], "nodes": []})
            continue
        lemma, fmt, built = got
        try:
            context = activate(r["activation"])
        except InputError as e:
            results.append({"row": rid, "ok": False, "problems": [f"activation: {e}"], "nodes": []})
            continue
        with context:
            skeleton = L.tree_of(r["lemma"], built, fmt)
            problems += compare(r["tree"], skeleton, decided=False)
            if not problems:
                row = L._row(engine, r["lemma"], lemma, r["variant"], fmt, None, built, activation=r["activation"])
                more, nodes = _compare_decided(r, row, {c.name: c.kind for c in L.claims_of(built)}, rests_on_unsat)
                problems += more
        results.append({"row": rid, "ok": not problems, "problems": problems, "nodes": nodes})
    return results


def _compare_decided(r, row, kinds, rests_on_unsat):
    """(problems, nodes): the certificate row ``r`` against the re-decided ``row`` — the
    trees, every decided node's status (an UNSAT confirmed), the row's status and
    statement.  ``kinds``: claim name -> kind (default a ∀ claim)."""
    problems = compare(r["tree"], row["tree"])
    nodes = []
    mine = {n["name"]: n for n in _claims(row["tree"])}
    for n in _claims(r["tree"]):
        want = n.get("status")
        if want == "NOT DECIDED":
            continue
        m = mine.get(n["name"], {})
        have = m.get("status")
        ok = have == want and want in DECIDED and want != "UNKNOWN"
        if ok and rests_on_unsat(kinds.get(n["name"], "forall"), have) and not m.get("confirmed_by"):
            ok = False
            why = "its UNSAT was not confirmed by a second back end or by enumeration"
        elif want == "UNKNOWN":
            why = "the certificate says UNKNOWN: nothing to re-establish"
        else:
            why = f"re-decided {have}, the certificate says {want}"
        nodes.append({"node": n["name"], "status": have, "certificate": want,
                      "confirmed_by": m.get("confirmed_by"), "ok": ok})
        if not ok:
            problems.append(f"node {n['name']}: {why}")
    if row["status"] != r["status"]:
        problems.append(f"row status {r['status']} in the certificate, {row['status']} re-decided")
    elif row["statement"] != r["statement"]:
        problems.append("the row's statement is not the one the re-decided row gives")
    return problems, nodes
