"""``--cluster``: a ``reproduce`` or ``conditions`` grid as tasks on Dask workers gives the
local run's statuses, witnesses and store rows (a local cluster of two workers on this
machine, and a "remote" one reached by its address, whose workers keep their own store)."""

import json
import os
import sqlite3

import pytest
from conftest import fpsmt

distributed = pytest.importorskip("distributed")  # the optional extra fpsmt[cluster]


def _store_rows(path):
    """Every stored answer: key, claim, format, status, witness, assumptions."""
    with sqlite3.connect(str(path)) as con:
        return con.execute("SELECT key, claim, format, status, witness, assumed FROM results ORDER BY key").fetchall()


def _without_seconds(x):
    """A row without what depends on timing: seconds, whether the store had it, and which
    back end confirmed an UNSAT answer first (the confirmation is a race)."""
    if isinstance(x, dict):
        return {k: _without_seconds(v) for k, v in x.items() if k not in ("seconds", "cached", "by", "confirmed_by")}
    if isinstance(x, list):
        return [_without_seconds(v) for v in x]
    return x


def _both(tmp_path, *args, cluster="local:2", env=None, solver="z3"):
    """The same command locally and on the cluster, each with an empty store, with one
    solver (Z3 alone, or enumeration: every model is that back end's, not the first of a
    race)."""
    runs = []
    for name, extra in (("local", []), ("cluster", ["--cluster", cluster])):
        store = tmp_path / f"{name}.sqlite"
        r = fpsmt(*args, "--solver", solver, "--store", str(store), "--json", *extra, env=env)
        assert r.returncode == 0, r.stderr
        runs.append((json.loads(r.stdout), _store_rows(store), r.stderr))
    return runs


def test_conditions_grid_on_a_local_cluster_equals_the_local_run(tmp_path):
    """tanh in both 8-bit formats, decided by enumeration (the first witness in the
    enumeration order, whatever the machine's load; the second format's hints are the
    first's witnesses): its conditions and its construction requirements."""
    (rows_a, store_a, _), (rows_b, store_b, err) = _both(
        tmp_path, "conditions", "--activation", "tanh", "--format", "float8_e4m3,float8_e5m2", solver="exhaustive")
    assert _without_seconds(rows_b) == _without_seconds(rows_a) and len(rows_a) == 14
    assert all(r["status"] == "PROVED" for r in rows_a) and all(r["witness"] for r in rows_a[:6])
    assert store_b == store_a and store_a
    assert "starting a local Dask cluster of 2 worker process(es)" in err and "[1/1] tanh: C1 in float8_e4m3" in err


@pytest.mark.slow  # long: the default suite keeps under about 10 minutes
def test_reproduce_grid_on_a_local_cluster_equals_the_local_run(tmp_path):
    """Released rows REFUTED with counterexamples, repaired rows PROVED: the same rows,
    counterexamples, proof trees (but their seconds) and store rows."""
    (rows_a, store_a, _), (rows_b, store_b, err) = _both(
        tmp_path, "reproduce", "--activation", "relu", "--format", "float8_e4m3",
        "--lemma", "step_indicator_ge,point_indicator", "--report", str(tmp_path / "r.md"))
    assert [(r["lemma"], r["variant"], r["status"]) for r in rows_a] == [
        ("step_indicator_ge", "released", "PROVED"), ("step_indicator_ge", "repaired", "PROVED"),
        ("point_indicator", "released", "REFUTED"), ("point_indicator", "repaired", "PROVED")]
    assert _without_seconds(rows_b) == _without_seconds(rows_a)
    assert rows_a[2]["counterexample"] and rows_b[2]["counterexample"] == rows_a[2]["counterexample"]
    assert store_b == store_a and store_a
    assert "[4/4]" in err


def test_a_remote_cluster_s_store_rows_are_merged_into_the_command_s_store(tmp_path):
    """A scheduler reached by its address, whose workers keep their own store (as on other
    machines): the command's store still ends with every row the local run leaves."""
    import dask
    from distributed import LocalCluster
    worker_store = tmp_path / "worker.sqlite"
    with dask.config.set({"distributed.worker.daemon": False}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                         env={"FPSMT_STORE": str(worker_store)}) as cluster:
        (rows_a, store_a, _), (rows_b, store_b, err) = _both(
            tmp_path, "conditions", "--activation", "tanh", "--format", "float8_e4m3", cluster=cluster.scheduler_address,
            solver="exhaustive")
    assert _without_seconds(rows_b) == _without_seconds(rows_a)
    assert store_b == store_a and _store_rows(worker_store) == store_a  # decided there, merged here
    assert f"using the Dask cluster at {cluster.scheduler_address} (2 workers)" in err


@pytest.mark.parametrize("spec,word", [("local:0", "local:N needs 1 <= N <= 256"),
                                       ("not an address", "expected local:N or a scheduler address")])
def test_bad_cluster_is_one_line(tmp_path, spec, word):
    r = fpsmt("conditions", "--activation", "relu", "--format", "float8_e4m3", "--store", str(tmp_path / "s.sqlite"),
              "--cluster", spec)
    assert r.returncode == 2 and word in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_cluster_from_the_environment(tmp_path):
    """$FPSMT_CLUSTER stands for --cluster: a bad value names the variable; a good one is used."""
    env = {**os.environ, "FPSMT_CLUSTER": "bogus"}
    r = fpsmt("conditions", "--activation", "relu", "--format", "float8_e4m3", "--store", str(tmp_path / "s.sqlite"),
              env=env)
    assert r.returncode == 2 and "$FPSMT_CLUSTER 'bogus'" in r.stderr
    env["FPSMT_CLUSTER"] = "local:1"
    r = fpsmt("conditions", "--activation", "relu", "--format", "float8_e4m3", "--store", str(tmp_path / "s.sqlite"),
              "--json", env=env)
    assert r.returncode == 0 and "starting a local Dask cluster of 1 worker" in r.stderr
    assert [x["status"] for x in json.loads(r.stdout)] == ["PROVED"] * 3


def test_unreachable_scheduler_is_one_line(tmp_path):
    r = fpsmt("conditions", "--activation", "relu", "--format", "float8_e4m3", "--store", str(tmp_path / "s.sqlite"),
              "--cluster", "tcp://127.0.0.1:9")
    assert r.returncode == 2 and "cannot reach the scheduler" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_construct_verification_on_a_local_cluster(tmp_path):
    """The network sent once, the points in parts: the same verification, and the same
    values and gradients at every point, as the local run."""
    outs = []
    for extra in ([], ["--cluster", "local:2"]):
        out = tmp_path / f"n{len(extra)}.json"
        r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", "bfloat16", "--out", str(out),
                  "--json", *extra)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(r.stdout))
    a, b = outs
    assert a["verified"] == b["verified"] == 500 and a["mismatches"] == b["mismatches"] == []
    assert (tmp_path / "n0.json").read_bytes() == (tmp_path / "n2.json").read_bytes()


def test_construct_on_a_cluster_catches_a_wrong_network(tmp_path, monkeypatch):
    """A network one bit off (changed as read back, before it is sent to the workers): the
    workers' evaluation reports the point, exit 1, nothing written."""
    import contextlib
    import io

    from conftest import read_back_one_bit_off

    from fpsmt.commands import cli
    read_back_one_bit_off(monkeypatch)
    out = tmp_path / "n.json"
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        code = cli.main(["construct", "--targets", "example:sin_misleading.py", "--format", "bfloat16",
                         "--out", str(out), "--json", "--cluster", "local:2"])
    doc = json.loads(o.getvalue())
    assert code == 1 and len(doc["mismatches"]) == 1 and not out.exists()
    assert "points evaluated" in e.getvalue()


def test_construct_cluster_refusals(tmp_path):
    r = fpsmt("construct", "--targets", "example:sin_misleading.py", "--format", "bfloat16", "--out",
              str(tmp_path / "n.json"), "--verify", "atoms", "--cluster", "local:2")
    assert r.returncode == 2 and "--verify atoms is linear and runs here" in r.stderr


def test_construct_d_dimensional_on_a_cluster(tmp_path):
    """A 2-D float8_e4m3 network verified on two local workers (the points in parts): the
    same summary (points verified, mismatches) as the local run, and the workers' lines."""
    from conftest import grid_targets_nd, targets_csv_nd

    from fpsmt.semantics.formats import parse_format
    fmt = parse_format("float8_e4m3")
    csv = targets_csv_nd(tmp_path, fmt, grid_targets_nd(fmt, 2, [-2.0, 0.0, 1.0, 3.0]))
    docs = []
    for extra in ([], ["--cluster", "local:2"]):
        r = fpsmt("construct", "--targets", str(csv), "--format", "float8_e4m3", "--out",
                  str(tmp_path / f"n{len(extra)}.json"), "--json", *extra)
        assert r.returncode == 0, r.stderr
        docs.append(json.loads(r.stdout))
    assert "points evaluated" in r.stderr and "starting a local Dask cluster of 2" in r.stderr
    keep = ("points", "dimension", "verified", "mismatches", "parameters", "depth")
    assert [{k: d[k] for k in keep} for d in docs] == [{k: docs[0][k] for k in keep}] * 2
    assert docs[0]["verified"] == 16
    assert (tmp_path / "n0.json").read_bytes() == (tmp_path / "n2.json").read_bytes()


def test_construct_d_dimensional_on_a_cluster_catches_a_wrong_network(tmp_path, monkeypatch):
    """The 2-D network one bit off as read back (the last zero-gradient atom's output
    weight): the workers report that point alone, exit 1, nothing written."""
    from conftest import cli_in_process, grid_targets_nd, read_back_one_bit_off, targets_csv_nd

    from fpsmt.semantics.formats import parse_format
    fmt = parse_format("float8_e4m3")
    pts = grid_targets_nd(fmt, 2, [-2.0, 0.0, 1.0, 3.0])
    read_back_one_bit_off(monkeypatch)
    out = tmp_path / "n.json"
    code, stdout, stderr = cli_in_process(["construct", "--targets", str(targets_csv_nd(tmp_path, fmt, pts)),
                                           "--format", "float8_e4m3", "--out", str(out), "--json",
                                           "--cluster", "local:2"])
    doc = json.loads(stdout)
    assert code == 1 and [b["x"] for b in doc["mismatches"]] == [[fmt.hex(b) for b in pts[-1][0]]]
    assert not out.exists() and "points evaluated" in stderr
