"""The exit-code contract, tried as a careless or hostile user would: mutated network JSON,
points CSV, targets (CSV and Python) and arguments for every subcommand, run in-process
through the CLI entry point.  Every run must end in 0 (results) or 2 (bad input, one
line); an exception escaping ``main`` — a traceback, exit 1 — fails the test.  And the
contract is no blanket ``except``: an internal error injected into a command is exit 1."""

import contextlib
import io
import json
import string

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fpsmt.commands import cli

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
                derandomize=True)
NET = {"format": "bfloat16", "layers": [
    {"weights": [["0x3a80"]], "bias": ["0x43c0"], "activation": "relu"},
    {"weights": {"shape": [1, 1], "entries": [[0, 0, "0x3f80"]]}, "bias": ["0xc3c0"], "activation": "identity"}]}


def run(argv):
    """(exit status, stdout, stderr) of ``fpsmt argv`` in this process."""
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as x:  # argparse
            code = x.code if isinstance(x.code, int) else 2
    return code, o.getvalue(), e.getvalue()


def assert_contract(argv):
    code, out, err = run(argv)
    event(f"{argv[0]} exit {code}")  # --hypothesis-show-statistics: how often each exit status was seen
    assert code in (0, 2), f"fpsmt {' '.join(map(str, argv))} exited {code}: {err[-2000:]}"
    assert "Traceback" not in err
    if code == 2:
        lines = [ln for ln in err.splitlines() if ln.startswith("fpsmt: error") or "error:" in ln]
        assert lines, err
    return code


def fresh(tmp_path):
    """A folder of its own for one generated example (the fixture's folder is shared by all)."""
    import tempfile
    from pathlib import Path
    return Path(tempfile.mkdtemp(dir=tmp_path))


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch):
    monkeypatch.setenv("FPSMT_STORE", str(tmp_path / "store.sqlite"))
    monkeypatch.chdir(tmp_path)  # relative paths a generated argument names land here, not in the checkout


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                      st.text(string.printable, max_size=8), st.sampled_from(["0x3f80", "0x", "0xzz", "relu", "bfloat16"]))
json_value = st.recursive(json_leaf, lambda c: st.one_of(st.lists(c, max_size=3),
                                                         st.dictionaries(st.text(max_size=8), c, max_size=3)),
                          max_leaves=8)


def mutate(doc, data):
    """A copy of a JSON document with one node replaced, deleted or duplicated."""
    doc = json.loads(json.dumps(doc))
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + [i])
    walk(doc, [])
    path = data.draw(st.sampled_from(paths))
    if not path:
        return data.draw(json_value)
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    how = data.draw(st.sampled_from(["replace", "delete", "duplicate"]))
    if how == "replace":
        parent[path[-1]] = data.draw(json_value)
    elif how == "delete":
        del parent[path[-1]]
    elif isinstance(parent, list):
        parent.append(parent[path[-1]])
    return doc


@settings(max_examples=150, **SETTINGS)
@given(data=st.data())
def test_mutated_network_and_points(tmp_path, data):
    tmp_path = fresh(tmp_path)
    net = tmp_path / "n.json"
    mutated = data.draw(st.booleans())
    net.write_text(json.dumps(mutate(NET, data)) if mutated else json.dumps(NET))
    pts = tmp_path / "p.csv"
    lines = data.draw(st.lists(st.lists(st.sampled_from(["0x3f80", "0xc0f0", "0x7fc0", "", "x", "0x1ffff", "-1",
                                                         " 0x0"]), max_size=3), max_size=3))
    pts.write_text("\n".join(",".join(r) for r in lines) if lines else "0x3f80,0x3f80")
    code = assert_contract(["eval", net, "--points", pts] + data.draw(st.sampled_from([[], ["--fold-init", "+0"]])))
    if not mutated and not lines:
        assert code == 0  # a good input is still accepted


TARGET_BODIES = [
    "def domain(): return [0.5, 1.0]\ndef f_star(x): return 1\ndef h_star(x): return 1\ndef g_star(x): return 2\n",
    "def domain(): raise RuntimeError('boom')\ndef f_star(x): return 1\ndef h_star(x): return 1\ndef g_star(x): return 2\n",
    "import sys\ndef domain(): return [1.0]\ndef f_star(x): sys.exit(3)\ndef h_star(x): return 1\ndef g_star(x): return 1\n",
    "def domain(): return [1.0]\ndef f_star(x): return float('nan')\ndef h_star(x): return 1\ndef g_star(x): return 1\n",
    "def domain(): return ['zz']\ndef f_star(x): return 1\ndef h_star(x): return 1\ndef g_star(x): return 1\n",
    "def domain(): return [1.0, 1.0]\ndef f_star(x): return 1\ndef h_star(x): return 1\ndef g_star(x): return 1\n",
    "def domain(): return [1.0]\ndef f_star(x): return None\ndef h_star(x): return 1\ndef g_star(x): return 1\n",
    "def domain(): return [1e300]\ndef f_star(x): return 1\ndef h_star(x): return 0\ndef g_star(x): return 1\n",
    "import sys\nsys.exit(0)\n",
    "def domain(): return 5\n",
    "this is not python\n",
]


@settings(max_examples=100, **SETTINGS)
@given(data=st.data())
def test_mutated_targets(tmp_path, data):
    tmp_path = fresh(tmp_path)
    good = False
    if data.draw(st.booleans()):
        t = tmp_path / "t.py"
        body = data.draw(st.sampled_from(TARGET_BODIES))
        good = body == TARGET_BODIES[0]
        t.write_text(body)
    else:
        t = tmp_path / "t.csv"
        rows = data.draw(st.lists(st.lists(st.sampled_from(["0x38", "0x40", "0x00", "0x7f", "0xzz", "", "x", "f"]),
                                           max_size=5), max_size=4))
        header = data.draw(st.sampled_from(["x,f,h,g", "x,f", ""]))
        t.write_text("\n".join([header] + [",".join(r) for r in rows]))
    fmt = data.draw(st.sampled_from(["float8_e4m3", "bfloat16", "e9m9", "nope"]))
    out = data.draw(st.sampled_from([tmp_path / "o.json", tmp_path, tmp_path / "missing" / "o.json"]))
    code = assert_contract(["construct", "--targets", t, "--format", fmt, "--out", out])
    if good and fmt in ("float8_e4m3", "bfloat16") and out == tmp_path / "o.json":
        assert code == 0 and out.exists()  # a good input is still accepted and built
    if code != 0:
        assert not (tmp_path / "o.json").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# Option values a careless user types; each subcommand gets a random selection.
VALUES = ["", ",", "-1", "0", "nan", "inf", "1e-300", "2", "abc", "float8_e4m3", "bfloat16", "relu", "tanh",
          "leaky_relu:-1", "leaky_relu:x", "leaky_relu:1/0", "example:claims.py", "example:nope.py", "released", "repaired", "boxplus_neutrality", "z3", "exhaustive", "nope"]
SUBCOMMANDS = {
    "formats": (["--json"], {}),
    "counterexample": (["associativity"], {"--format": 1, "--timeout": 1, "--solver": 1, "--store": 1}),
    "prove": (["example:claims.py:mul_assoc"], {"--format": 1, "--timeout": 1, "--solver": 1, "--store": 1}),
    "conditions": ([], {"--activation": 1, "--format": 1, "--timeout": 1, "--store": 1}),
    "reproduce": (["--lemma", "boxplus_neutrality"], {"--format": 1, "--variant": 1, "--timeout": 1, "--lemma": 1,
                                                     "--report": 1, "--store": 1}),
    "activation table": ([], {"--activation": 1, "--format": 1, "--out": 1}),
    "activation compare": ([], {"--activation": 1, "--format": 1, "--samples": 1}),
    "paths": (["--json"], {}),
}


@settings(max_examples=300, **SETTINGS)
@given(data=st.data())
def test_arguments_of_every_subcommand(tmp_path, data):
    tmp_path = fresh(tmp_path)
    name = data.draw(st.sampled_from(sorted(SUBCOMMANDS)))
    fixed, options = SUBCOMMANDS[name]
    argv = name.split() + list(fixed)
    chosen = data.draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=len(options))) if options else []
    for opt in chosen:
        v = data.draw(st.sampled_from(VALUES + [str(tmp_path), str(tmp_path / "x" / "y")]))
        if opt in ("--out", "--report") and data.draw(st.booleans()):
            v = str(tmp_path / "out.file")
        argv += [opt, v]
    if "--timeout" not in argv and name in ("counterexample", "prove", "conditions", "reproduce"):
        argv += ["--timeout", "5"]
    if name == "conditions" and "--format" in argv and "--activation" in argv:
        argv += ["--solver", "z3"]
    assert_contract(argv)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_store_of_another_schema_is_refused(tmp_path):
    import sqlite3
    db = tmp_path / "other.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE results (a, b)")
    con.commit()
    con.close()
    code, _, err = run(["counterexample", "associativity", "--format", "float16", "--store", db])
    assert code == 2 and "another schema" in err


def test_an_internal_error_is_exit_1(monkeypatch):
    """The contract is not a blanket except: a bug in a command stays exit 1 (here raised)."""
    from fpsmt.commands import formats
    monkeypatch.setattr(formats, "cmd_formats", lambda args: 1 / 0)
    parser = cli.build_parser()
    args = parser.parse_args(["formats"])
    assert args.fn is not None
    with pytest.raises(ZeroDivisionError):
        cli.main(["formats"])


def test_user_code_that_exits_is_exit_2(tmp_path):
    t = tmp_path / "t.py"
    t.write_text(TARGET_BODIES[2])
    code, _, err = run(["construct", "--targets", t, "--format", "bfloat16", "--out", tmp_path / "o.json"])
    assert code == 2 and "SystemExit" in err and str(t) in err
    assert not (tmp_path / "o.json").exists()
    c = tmp_path / "c.py"
    c.write_text("from fpsmt.proof.claims import Float, forall\n"
                 "bad = forall('bad', {'a': Float()}, goal=lambda s: s.nothing)\n")
    code, _, err = run(["prove", c, "--format", "float8_e4m3", "--store", tmp_path / "s.sqlite"])
    assert code == 2 and "claim bad raised AttributeError" in err, err
