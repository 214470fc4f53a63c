"""Runs spread over a cluster: a ``reproduce`` or ``conditions`` grid, the verification of
``construct``'s network and long enumerations (``prove``) as tasks on Dask distributed
workers.

Without ``--cluster`` (and without ``$FPSMT_CLUSTER``) nothing here runs and no engine is
started: fpsmt works in local processes as always.  With it:

* ``--cluster local:N`` starts a Dask ``LocalCluster`` of N worker processes on this
  machine for the run (one thread each; closed at the end);
* ``--cluster ADDRESS`` (``tcp://host:8786``) uses a running Dask scheduler, whose workers
  must have this fpsmt installed and be started with
  ``DASK_DISTRIBUTED__WORKER__DAEMON=False`` (fpsmt's solver workers are child processes,
  which a daemonic process may not start).

A task is one part of a grid: a ``reproduce`` row (lemma × variant × format, for one
activation and profile) or a ``conditions`` activation (its conditions in every format,
then its construction requirements: one task, because a condition's witnesses in one
format are the hints of the next).  ``construct``'s full verification sends the network
once and its points in parts (:func:`fpsmt.commands.targets.verify`); ``prove`` sends a
long enumeration's pieces in runs (:func:`fpsmt.proof.exhaustive.decide`).  Each task runs the same function the local run
calls, with its own engine (the command's solver, time limit, confirmation and
``--recheck``), so its rows are the local run's.  Its results store: on a local cluster
the command's own store file (SQLite in WAL mode takes writers from several processes);
on a remote one the worker's default store (``$FPSMT_STORE`` on the worker, else its user
cache).  A task returns its rows and the store rows of every claim it used, found or
decided, and the command writes those into its own store — so the store ends with the
rows a local run would have left.  Rows come back in the local run's order; a line per
finished task goes to stderr.
"""

from __future__ import annotations

import contextlib
import os
import re

from fpsmt.errors import InputError

ENV = "FPSMT_CLUSTER"
_LOCAL = re.compile(r"local:(\d+)")
_ADDRESS = re.compile(r"(tcp|tls|inproc|ws|wss)://\S+|[\w.-]+:\d+")


def add_option(parser):
    parser.add_argument("--cluster", metavar="ADDRESS|local:N",
                        help=f"run the grid's cells as tasks on a Dask cluster: local:N starts N workers on this "
                             f"machine for the run, ADDRESS (tcp://host:8786) uses a running scheduler (default "
                             f"${ENV}, else local processes; needs the extra fpsmt[cluster])")


def spec_of(args) -> str | None:
    """The cluster asked for (``--cluster``, else ``$FPSMT_CLUSTER``), checked: None for
    none; a malformed one, or a missing Dask, is one error line (before any work)."""
    given = getattr(args, "cluster", None)
    spec = given or os.environ.get(ENV) or None
    if spec is None:
        return None
    spec, where = spec.strip(), "--cluster" if given else f"${ENV}"
    m = _LOCAL.fullmatch(spec)
    if m and not 1 <= int(m.group(1)) <= 256:
        raise InputError(f"{where} {spec}: local:N needs 1 <= N <= 256")
    if not m and not _ADDRESS.fullmatch(spec):
        raise InputError(f"{where} {spec!r}: expected local:N or a scheduler address such as tcp://host:8786")
    import importlib.util
    if importlib.util.find_spec("distributed") is None:
        raise InputError("--cluster needs Dask distributed: pip install 'fpsmt[cluster]'")
    return spec


class Cluster:
    """A Dask client, and where its workers keep their results store."""

    def __init__(self, client, local: bool, store):
        self.client, self.local = client, local
        self.store = str(store) if local and store is not None else None  # remote workers: their own default store

    def run(self, fn, payloads: list, describe, progress) -> list:
        """``fn(payload)`` for every payload as tasks; results in payload order.  A line per
        finished task (``describe(payload, result)``) to ``progress``.  An error a task
        raises is raised here, as it was raised there."""
        return _gathered(self.client.map(fn, payloads, pure=False), payloads, describe, progress, "")

    def map_shared(self, fn, shared, payloads: list, describe, progress) -> list:
        """``fn(shared, payload)`` for every payload as tasks, ``shared`` sent to the workers
        once; results in payload order, a line per finished task."""
        big = self.client.scatter(shared, broadcast=True)
        futures = [self.client.submit(fn, big, p, pure=False) for p in payloads]
        return _gathered(futures, payloads, describe, progress, "  ")

    def workers(self) -> int:
        return max(1, len(self.client.scheduler_info().get("workers", {})))


def _gathered(futures, payloads, describe, progress, indent) -> list:
    """The futures' results in payload order, a line to ``progress`` as each finishes."""
    from distributed import as_completed
    index = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(futures)
    for done, f in enumerate(as_completed(futures), start=1):
        i = index[f.key]
        results[i] = f.result()
        progress(f"{indent}[{done}/{len(futures)}] {describe(payloads[i], results[i])}")
    return results


@contextlib.contextmanager
def session(spec, store_path, progress):
    """The cluster of ``spec`` (from :func:`spec_of`) for one run, or None; a scheduler that
    cannot be reached is one error line."""
    if spec is None:
        yield None
        return
    import logging

    import dask
    from distributed import Client, LocalCluster
    m = _LOCAL.fullmatch(spec)
    with contextlib.ExitStack() as stack:
        if m:
            n = int(m.group(1))
            stack.enter_context(dask.config.set({"distributed.worker.daemon": False}))
            progress(f"fpsmt: starting a local Dask cluster of {n} worker process(es) ...")
            cluster = stack.enter_context(LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                       dashboard_address=None, silence_logs=logging.ERROR))
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(spec, timeout="10s"))
            except (OSError, TimeoutError) as e:
                raise InputError(f"--cluster {spec}: cannot reach the scheduler ({e})") from None
            progress(f"fpsmt: using the Dask cluster at {spec} "
                     f"({len(client.scheduler_info().get('workers', {}))} workers)")
        yield Cluster(client, bool(m), store_path)


# ------------------------------------------------------------------ tasks (run on the workers)
@contextlib.contextmanager
def _engine(p):
    from fpsmt.proof import solve
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.store import Store
    eng = Engine(solver=p["solver"], timeout=p["timeout"], recheck=p["recheck"], confirm=p["confirm"])
    eng.store = Store(p["store"])
    try:
        yield eng
    finally:
        solve.shutdown()
        eng.store.close()


def _used(eng) -> list:
    """The store rows of every claim the engine found or decided (in the order asked)."""
    keys = list(dict.fromkeys(r.key for r in eng.results.values() if getattr(r, "key", None)))
    return eng.store.export(keys)


def reproduce_task(p) -> dict:
    """One ``reproduce`` row (and its extra rows): :func:`fpsmt.proof.lemmas.run` for one
    lemma, variant and format."""
    from fpsmt.commands.hypothesis import network_row
    from fpsmt.constructions.registry import get_construction
    from fpsmt.proof import lemmas
    with _engine(p) as eng:
        rows = lemmas.run(eng, [p["lemma"]], [p["variant"]], [p["format"]],
                          construction=get_construction(p["activation"]), semantics=p["semantics"],
                          network_row=network_row)
        return {"rows": rows, "store": _used(eng)}


def conditions_task(p) -> dict:
    """One activation of a ``conditions`` grid: its conditions in every format, then its
    construction requirements (as the local run decides them; the formats in order, since
    a condition's witnesses in one format are the next one's hints)."""
    from fpsmt.constructions import requirements
    from fpsmt.proof import conditions
    with _engine(p) as eng:
        rows = conditions.run(eng, [p["activation"]], p["formats"], spec=p["spec"])
        reqs = requirements.run(eng, [p["activation"]], p["formats"], family=p["family"])
        return {"rows": rows, "requirements": reqs, "store": _used(eng)}


def engine_payload(args, cl: Cluster, confirm) -> dict:
    return {"solver": args.solver, "timeout": args.timeout, "recheck": args.recheck, "confirm": confirm,
            "store": cl.store}


def merge(store, results):
    """Write the tasks' store rows into the command's store."""
    for r in results:
        store.merge(r["store"])
