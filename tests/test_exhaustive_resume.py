"""Enumeration of a whole float32 variable (2^32 patterns, not built as an array) and
checkpoints: a stopped enumeration goes on where it stopped, with the answer an
uninterrupted one gives."""

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import fpsmt

from fpsmt.proof import exhaustive as E
from fpsmt.proof.claims import Float, forall
from fpsmt.proof.engine import Engine
from fpsmt.proof.store import Store
from fpsmt.semantics.formats import Format, parse_format


@pytest.mark.parametrize("fmt", [parse_format("bfloat16"), parse_format("float16"), Format(5, 12), Format(6, 11)],
                         ids=str)
def test_pattern_axis_is_the_formats_patterns_in_order(fmt):
    """Every pattern in increasing order, the NaNs as the canonical one, at any index —
    checked against the list built pattern by pattern."""
    want = np.asarray([b for b in range(1 << fmt.nbits) if not fmt.is_nan(b) or b == fmt.nan_bits], dtype=np.uint64)
    ax = E.PatternAxis(fmt)
    assert len(ax) == len(want)
    assert np.array_equal(ax[np.arange(len(want))], want)
    pick = np.asarray([0, 1, len(want) - 1, len(want) // 2, 12345 % len(want)])
    assert np.array_equal(ax[pick], want[pick])


def test_a_whole_float32_variable_is_enumerable():
    f32 = parse_format("float32")
    claim = forall("c", {"x": Float(finite=True)}, goal=lambda s: (s.x * 1).same(s.x))
    axes = E.space(claim, f32, ["x"], E.CLAIM_LIMIT)
    assert isinstance(axes[0], E.PatternAxis) and len(axes[0]) == 2**32 - 2 * (2**23 - 1) + 1
    assert E.space(claim, f32, ["x"]) is None  # beyond LIMIT: not on the way (confirmations, races)
    two = forall("d", {"x": Float(), "y": Float()}, goal=lambda s: (s.x + s.y).same(s.y + s.x))
    assert E.space(two, f32, ["x", "y"], E.CLAIM_LIMIT) is None


def _threshold_claim(t):
    """∀ x: x < t or x is NaN (bfloat16; t a pattern, +inf: nothing above) — REFUTED first
    at the smallest pattern whose value is at least t, far into the enumeration when t is
    large; PROVED when t is +inf and +inf itself is let through."""
    if t is None:
        return forall("below", {"x": Float()}, goal=lambda s: (s.x < s.const("0x7f80")) | s.x.is_nan() | s.x.is_inf())
    return forall("below", {"x": Float()}, goal=lambda s: (s.x < s.const(hex(t))) | s.x.is_nan())


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces of 2^10 points and a checkpoint for every enumeration, saved after each
    piece: a 16-bit space (65,409 values) is 64 pieces."""
    monkeypatch.setattr(E, "CHUNK", 1 << 10)
    monkeypatch.setattr(E, "CHECKPOINT_FROM", 0)
    monkeypatch.setattr(E, "CHECKPOINT_EVERY", 0.0)
    monkeypatch.setattr(E, "REPORT_FROM", 0)


class Stop(Exception):
    pass


def _prove(store_path, claim, fmt, say=None):
    eng = Engine(solver="exhaustive", timeout=600, progress=say)
    eng.store = Store(store_path)
    try:
        return eng.prove(claim, fmt, {claim.name: claim})
    finally:
        eng.store.close()


@pytest.mark.parametrize("t,status", [(0x7f00, "REFUTED"), (None, "PROVED")])
def test_a_stopped_enumeration_resumes_with_the_same_answer(tmp_path, small_pieces, t, status):
    """Stopped at 30% (as a killed run stops: the checkpoint rows are what it committed),
    the next run skips the pieces done and gives the uninterrupted run's answer and
    counterexample; the checkpoint is gone once the answer is known."""
    fmt = parse_format("bfloat16")
    whole = _prove(tmp_path / "a.sqlite", _threshold_claim(t), fmt)
    assert whole.status == status

    def stop_at_30(msg):
        m = re.search(r"enumerated (\d+)%", msg)
        if m and int(m.group(1)) >= 30:
            raise Stop
    with pytest.raises(Stop):
        _prove(tmp_path / "b.sqlite", _threshold_claim(t), fmt, stop_at_30)
    s = Store(tmp_path / "b.sqlite")
    (job, pieces), = s.con.execute("SELECT job, pieces FROM enumerations").fetchall()
    s.close()
    assert 0.25 * 64 <= pieces <= 0.35 * 64
    said = []
    resumed = _prove(tmp_path / "b.sqlite", _threshold_claim(t), fmt, said.append)
    assert (resumed.status, resumed.witness) == (whole.status, whole.witness)
    assert any(f"resuming the enumeration after {pieces} pieces" in m for m in said)
    s = Store(tmp_path / "b.sqlite")
    assert s.con.execute("SELECT COUNT(*) FROM enumerations").fetchone()[0] == 0
    s.close()


def test_a_checkpoint_is_never_applied_to_another_enumeration(tmp_path, small_pieces):
    """A checkpoint of one claim's enumeration (stopped at 30%) does not skip any piece of
    another claim's: that one is enumerated from the start and finds its early hit."""
    fmt = parse_format("bfloat16")

    def stop_at_30(msg):
        m = re.search(r"enumerated (\d+)%", msg)
        if m and int(m.group(1)) >= 30:
            raise Stop
    with pytest.raises(Stop):
        _prove(tmp_path / "s.sqlite", _threshold_claim(None), fmt, stop_at_30)
    said = []
    other = _prove(tmp_path / "s.sqlite", _threshold_claim(0x0001), fmt, said.append)
    assert other.status == "REFUTED" and other.witness["x"] == 0x0001
    assert not any("resuming" in m for m in said)


@pytest.mark.slow
def test_a_killed_float32_enumeration_resumes(tmp_path):
    """The whole float32 space of one variable (about 70 s on 2 cores): the process is
    killed (SIGKILL) a third of the way; the next run says where it resumes and PROVES
    the claim, as an uninterrupted run does."""
    store = tmp_path / "s.sqlite"
    args = ["prove", "example:claims.py:mul_one_identity", "--format", "float32", "--solver", "exhaustive",
            "--store", str(store), "--timeout", "1800"]
    script = os.path.join(os.path.dirname(sys.executable), "fpsmt")
    p = subprocess.Popen([script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        m = re.search(r"enumerated (\d+)%", line)
        if m and int(m.group(1)) >= 30:
            break
    time.sleep(1)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    r = fpsmt(*args)
    assert r.returncode == 0, r.stderr
    assert "resuming the enumeration after" in r.stderr and "PROVED" in r.stdout


@pytest.fixture(scope="module")
def two_workers():
    """A local Dask cluster of two worker processes (the optional extra fpsmt[cluster])."""
    pytest.importorskip("distributed")
    import dask
    from distributed import Client, LocalCluster
    with dask.config.set({"distributed.worker.daemon": False}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            Client(c) as client:
        yield client


@pytest.mark.parametrize("t,status", [(0x7f00, "REFUTED"), (0x0100, "REFUTED"), (None, "PROVED")])
def test_an_enumeration_in_slices_on_a_cluster_gives_the_local_answer(tmp_path, small_pieces, monkeypatch,
                                                                      two_workers, t, status):
    """Runs of 4 pieces as tasks on two workers, scanned in order: the first hit (the
    counterexample) and the status are the local run's; a checkpoint left by a stopped
    local run is resumed there too."""
    monkeypatch.setattr(E, "SLICE", 4)
    monkeypatch.setattr(E, "CLUSTER_FROM", 0)
    fmt = parse_format("bfloat16")
    local = _prove(tmp_path / "a.sqlite", _threshold_claim(t), fmt)

    def stop_at_10(msg):
        m = re.search(r"enumerated (\d+)%", msg)
        if m and int(m.group(1)) >= 10:
            raise Stop
    if t != 0x0100:  # a hit in the first tenth leaves nothing to stop
        with pytest.raises(Stop):
            _prove(tmp_path / "b.sqlite", _threshold_claim(t), fmt, stop_at_10)
    said = []
    eng = Engine(solver="exhaustive", timeout=600, progress=said.append)
    eng.store = Store(tmp_path / "b.sqlite")
    eng.executor = two_workers.get_executor(pure=False)
    try:
        spread = eng.prove(_threshold_claim(t), fmt, {"below": _threshold_claim(t)})
    finally:
        eng.store.close()
    assert (spread.status, spread.witness) == (local.status, local.witness) and local.status == status
    assert any("in slices of 4 pieces on the cluster" in m for m in said)
    assert any("resuming the enumeration after" in m for m in said) == (t != 0x0100)


@pytest.mark.parametrize("fmt", [Format(5, 12), Format(8, 13)], ids=str)
def test_a_whole_variable_of_a_format_between_16_and_32_bits(tmp_path, fmt):
    """18 bits (a whole axis of its own, built) and 22 bits (the lazy axis, in pieces):
    ∀ x: x ⊗ 1 = x for finite x is PROVED by enumeration, and ∀ x: x < 2 or NaN is
    REFUTED at the first pattern whose value is 2."""
    ok = forall("mul_one", {"x": Float(finite=True)}, goal=lambda s: (s.x * 1).same(s.x))
    r = _prove(tmp_path / "s.sqlite", ok, fmt)
    assert r.status == "PROVED" and r.solver == "exhaustive"
    below = forall("below2", {"x": Float()}, goal=lambda s: (s.x < s.const(2)) | s.x.is_nan())
    r = _prove(tmp_path / "s.sqlite", below, fmt)
    assert r.status == "REFUTED" and r.witness["x"] == fmt.round(2)
