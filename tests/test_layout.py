"""The architecture, checked on the source: layers import only downwards, z3 stays inside
the Z3 interpretation and the solver back ends, no module reaches into another's private
names, and there is no import cycle — every import counted, those inside functions too."""

import ast
from pathlib import Path

import pytest

import fpsmt
import fpsmt.examples
import fpsmt.proofs
import fpsmt.specs

ROOTS = {"fpsmt": Path(fpsmt.__file__).parent, "fpsmt.specs": Path(fpsmt.specs.__file__).parent,
         "fpsmt.proofs": Path(fpsmt.proofs.__file__).parent, "fpsmt.examples": Path(fpsmt.examples.__file__).parent}
Z3_ALLOWED = ("fpsmt.semantics.arith.symbolic", "fpsmt.semantics.arith.symbolic_functions", "fpsmt.proof.solve")
LAYERS = ["fpsmt.semantics", "fpsmt.proof", "fpsmt.constructions", "fpsmt.commands"]  # each imports only from those before it


def modules():
    out = {}
    for pkg, root in ROOTS.items():
        for path in root.rglob("*.py"):
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([pkg, *parts])
            if pkg == "fpsmt" and parts[:1] in (["specs"], ["proofs"], ["examples"]):
                continue
            out[name] = path
    return out


def imports(name, path, known):
    """(imported module, imported name or None, line) for every import of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    pkg = name if is_pkg else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")
                up = up[:len(up) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                yield (sub, None, node.lineno) if sub in known else (base, a.name, node.lineno)


def _all():
    mods = modules()
    return mods, {m: list(imports(m, p, mods)) for m, p in mods.items()}


def z3_violations(imps):
    return [f"{m}:{line}" for m, im in imps.items() for target, _, line in im
            if target.split(".")[0] == "z3" and not m.startswith(Z3_ALLOWED)]


def test_z3_only_in_the_z3_interpretation_and_the_back_ends():
    mods, imps = _all()
    bad = z3_violations(imps)
    assert not bad, "z3 imported outside the Z3 interpretation: " + ", ".join(bad)


def test_the_checks_fail_on_wrong_imports():
    """Each check finds what it is for, on invented modules (a checker that cannot fail proves nothing)."""
    assert z3_violations({"fpsmt.proof.engine": [("z3", None, 3)]}) == ["fpsmt.proof.engine:3"]
    assert not z3_violations({"fpsmt.proof.solve.backends": [("z3", None, 3)]})
    assert private_violations({"fpsmt.proof.x": [("fpsmt.semantics.network", "_fold", 7)]})
    assert private_violations({"fpsmt.proof.x": [("fpsmt.proofs._common", "zero", 7)]})
    assert not private_violations({"fpsmt.proof.x": [("fpsmt.semantics.network", "fold", 7)]})
    assert layer_violations({"fpsmt.semantics.network": [("fpsmt.proof.claims", "Scope", 1)]})
    assert not layer_violations({"fpsmt.proof.claims": [("fpsmt.semantics.network", "run", 1)]})


def private_violations(imps):
    bad = []
    for m, im in imps.items():
        for target, name, line in im:
            if target.split(".")[0] not in ("fpsmt",):
                continue
            private_mod = any(p.startswith("_") and not p.startswith("__") for p in target.split("."))
            if private_mod or (name and name.startswith("_") and not name.startswith("__")):
                bad.append(f"{m}:{line} imports {target}{'.' + name if name else ''}")
    return bad


def layer_of(module):
    """The index of a module's layer in LAYERS, or None outside them."""
    return next((i for i, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + ".")), None)


def layer_violations(imps):
    bad = []
    for m, im in imps.items():
        mine = layer_of(m)
        if mine is None:
            continue
        for target, _, line in im:
            theirs = layer_of(target)
            if theirs is not None and theirs > mine:
                bad.append(f"{m}:{line} imports {target}")
    return bad


@pytest.mark.parametrize("check", [private_violations, layer_violations], ids=["private names", "layers"])
def test_the_source_passes(check):
    mods, imps = _all()
    bad = check(imps)
    assert not bad, "\n".join(bad)


def cycles(graph):
    """The strongly connected components with more than one module (or a self-loop)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    mods, imps = _all()
    graph = {m: {t for t, _, _ in im if t in mods and t != m} for m, im in imps.items()}
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def interpretation_branches(sources):
    """Places outside the interpretations that ask which interpretation they hold:
    ``isinstance(…, …Arith)`` or an ``A.concrete``-style flag."""
    bad = []
    for m, src in sources.items():
        if m.startswith("fpsmt.semantics.arith"):
            continue
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
                names = [n.id if isinstance(n, ast.Name) else getattr(n, "attr", "") for n in ast.walk(node.args[1])
                         if isinstance(n, (ast.Name, ast.Attribute))]
                if any(str(n).endswith("Arith") for n in names):
                    bad.append(f"{m}:{node.lineno} isinstance on an interpretation")
            if isinstance(node, ast.Attribute) and node.attr in ("concrete", "symbolic") and \
                    isinstance(node.ctx, ast.Load) and getattr(node.value, "id", "") in ("A", "Z", "X"):
                bad.append(f"{m}:{node.lineno} reads {node.value.id}.{node.attr}")
    return bad


def test_nothing_outside_the_interpretations_asks_which_one_it_holds():
    mods = modules()
    assert interpretation_branches({"fpsmt.proof.x": "if isinstance(A, Z3Arith): pass"})
    assert interpretation_branches({"fpsmt.proof.x": "if A.concrete: pass"})
    bad = interpretation_branches({m: p.read_text(encoding="utf-8") for m, p in mods.items()})
    assert not bad, "\n".join(bad)
