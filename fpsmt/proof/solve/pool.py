"""Solver worker processes: wall-clock timeouts and the portfolio.

Each back end runs in its own long-lived worker process (started on first use).  A
query is sent to one or more workers; the caller waits on their pipes with a
wall-clock deadline.  A worker that exceeds the deadline, or that is still busy when
another back end has answered, is killed (Z3's own timeout does not always fire on
FP problems) and restarted on next use.  Workers die with the parent process, so a
killed ``fpsmt`` leaves no solver running: on Linux the kernel kills them
(``PR_SET_PDEATHSIG``; cvc5's and Bitwuzla's Python bindings hold the GIL while they
solve, so no thread of the worker could notice in time), elsewhere a thread watches
the parent between queries.  The kernel ties a worker to the thread that started it:
one started from a short-lived thread dies with that thread and is restarted on next
use.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait

from fpsmt.proof.solve.backends import RUNNERS


def _watch_parent(parent_pid):
    while True:
        time.sleep(0.5)
        if os.getppid() != parent_pid:
            os._exit(0)


def _die_with_parent(parent_pid):
    """Ask the kernel to SIGKILL this process when its parent goes (Linux), then check
    the parent did not go before the request was made."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(0)


def _serve(conn, backend, runner, parent_pid):
    _die_with_parent(parent_pid)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    while True:
        try:
            text, variables, experimental = conn.recv()
        except (EOFError, OSError):
            return
        t0 = time.perf_counter()
        try:
            status, model, reason = runner(text, variables, experimental)
            conn.send(("ok", status, model, reason, time.perf_counter() - t0))
        except Exception as e:  # parse errors, unsupported sorts, solver exceptions
            msg = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
            conn.send(("error", "unknown", None, f"{backend} failed: {msg}", time.perf_counter() - t0))


def home_nice() -> int:
    """The niceness fpsmt itself runs at, which its workers inherit."""
    return os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else 0


class Worker:
    def __init__(self, backend):
        self.backend = backend
        self.proc = None
        self.conn = None
        self.busy = False
        self.demoted = False

    def start(self):
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        # the runner goes to the worker by reference (module and name): a back end added to
        # RUNNERS (a test's fake one, say) runs like the built-in ones
        self.proc = ctx.Process(target=_serve, args=(child, self.backend, RUNNERS[self.backend], os.getpid()),
                                daemon=True, name=f"fpsmt-{self.backend}")
        self.proc.start()
        child.close()
        self.conn = parent

    def submit(self, text, variables, experimental):
        if self.proc is None or not self.proc.is_alive():
            self.start()
        self.conn.send((text, variables, experimental))
        self.busy = True

    def _nice(self, value) -> bool:
        """Set the niceness of every thread of the worker process; False if not allowed
        (lowering it again needs privileges) or the process is gone."""
        if self.proc is None or not hasattr(os, "setpriority"):
            return False
        pid = self.proc.pid
        try:
            tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            tids = [pid]
        try:
            for tid in tids:  # on Linux niceness belongs to a thread
                os.setpriority(os.PRIO_PROCESS, tid, value)
        except OSError:  # PermissionError among them
            return False
        return True

    def step_back(self):
        """Lower this busy worker's CPU priority (niceness 19), so that a back end started
        later takes the cores first.  It goes on working."""
        self.demoted = self._nice(19) or self.demoted

    def restore(self):
        """Undo :meth:`step_back` for a worker that stays alive: back to fpsmt's own niceness
        (:func:`home_nice`: a run started with ``nice`` keeps it); one whose priority cannot
        be raised again is stopped (it restarts on next use at fpsmt's priority)."""
        if self.demoted:
            if not self._nice(home_nice()):
                self.kill()
            self.demoted = False

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
        if self.conn is not None:
            self.conn.close()
        self.proc, self.conn, self.busy, self.demoted = None, None, False, False


_workers: dict = {}


def worker(backend) -> Worker:
    if backend not in _workers:
        _workers[backend] = Worker(backend)
    return _workers[backend]


def shutdown():
    for w in _workers.values():
        w.kill()
    _workers.clear()


@dataclass
class Outcome:
    """What each back end said about one query."""

    answers: dict = field(default_factory=dict)  # backend -> (status, model, reason, seconds)
    timed_out: list = field(default_factory=list)
    cancelled: list = field(default_factory=list)
    joined: list = field(default_factory=list)  # back ends that joined at the first UNSAT (``joiners``)


def run_query(text, variables, plan, timeout, decisive, confirm=False, grace=None, joiners=None):
    """Send the query to every back end in ``plan`` ({backend: experimental}) and wait.

    ``decisive(backend, status, experimental)`` says whether an answer ends the race.
    ``confirm``: a decisive UNSAT does not end it while another back end is still
    working: the race goes on (to the same deadline, or for ``grace`` seconds after that
    UNSAT when given) until one of them says SAT or UNSAT too — its confirmation, or a
    disagreement.  ``joiners`` ({backend: experimental}, confirming only): back ends that
    did not race for the answer and join the race for its confirmation when that first
    UNSAT arrives.  The back ends still racing then step back (lowest CPU priority, still
    working): they have had the cores since the race began without an answer, and a
    joiner starts from nothing, so on a machine with fewer cores than live back ends it
    gets a core of its own (the released float32 step indicator: README).  Returns an
    :class:`Outcome`; busy workers left at the end are killed, the others get their
    priority back.
    """
    out = Outcome()
    decided_by = None  # the back end whose answer ended (or, confirming, began to end) the race
    joiners = {b: e for b, e in (joiners or {}).items() if b not in plan} if confirm else {}
    live = {}
    for b, experimental in plan.items():
        w = worker(b)
        w.submit(text, variables, experimental)
        live[w.conn] = (w, experimental)
    deadline = time.monotonic() + timeout
    done = False

    def take(conns):
        nonlocal done, decided_by, deadline
        for conn in conns:
            w, experimental = live.pop(conn)
            try:
                _, status, model, reason, secs = conn.recv()
            except (EOFError, OSError):  # the worker died (e.g. out of memory)
                status, model, reason, secs = "unknown", None, f"{w.backend} worker died", 0.0
                w.kill()
            w.busy = False
            out.answers[w.backend] = (status, model, reason, secs)
            decided = [b for b, a in out.answers.items() if a[0] in ("sat", "unsat")]
            if decided_by is None and decisive(w.backend, status, experimental):
                decided_by = w.backend
                if confirm and grace is not None and status == "unsat":
                    deadline = min(deadline, time.monotonic() + grace)
                if confirm and status == "unsat" and joiners:
                    for other, _ in live.values():
                        other.step_back()
                    for b, e in joiners.items():
                        j = worker(b)
                        j.submit(text, variables, e)
                        live[j.conn] = (j, e)
                        out.joined.append(b)
            if decided_by is not None:
                done = not confirm or out.answers[decided_by][0] != "unsat" or len(decided) > 1 or not live
    while live and not done:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        take(wait(list(live), timeout=left))
    if live:  # answers that arrived meanwhile are heard too: a SAT beside an UNSAT is a disagreement
        take(wait(list(live), timeout=0))
    for conn, (w, _) in live.items():
        (out.cancelled if done else out.timed_out).append(w.backend)
        w.kill()
    for b in plan:
        worker(b).restore()
    return out
