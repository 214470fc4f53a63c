"""What every subcommand shares: the one-line-error parser, output streams, and the
options and validators used by more than one subcommand (formats, solvers, time limits,
the results store, target files).  Each validator raises InputError (exit 2) before
any work is done."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import tempfile
from pathlib import Path

from fpsmt.errors import InputError



class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"fpsmt: error: {message} (see '{self.prog} --help')\n")


def out(text=""):
    sys.stdout.write(text + "\n")


def err(text=""):
    sys.stderr.write(text + "\n")


def pyplot():
    """matplotlib.pyplot with the file-only Agg back end; a missing extra is bad input."""
    try:
        import matplotlib
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'fpsmt[examples]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path) -> str:
    """Write a matplotlib figure to ``path`` as PNG, whole or not at all
    (:func:`atomic_output`), and say so on stderr."""
    with atomic_output(path, ".png") as pending:
        fig.savefig(pending.path, dpi=110, format="png")
    err(f"  plot written to {path}")
    return str(path)


def ticker(what: str, every: float = 10.0):
    """A progress line on stderr, ``what: i/n …``, every ``every`` seconds, with the time
    left by the rate so far, and at the last item if one was shown (work done within
    ``every`` seconds shows none): ``tick(i, n, note="")``."""
    import time
    t0 = last = time.monotonic()
    shown = False

    def tick(i, n, note=""):
        nonlocal last, shown
        now = time.monotonic()
        if now - last < every and not (i >= n and shown):
            return
        last, shown = now, True
        left = f", about {(now - t0) / i * (n - i):.0f} s left" if i < n and i else ""
        err(f"  {what}: {i}/{n}{note}{left} ({now - t0:.0f} s)")
    return tick


def parse_target(text):
    """FILE.py[:NAME] -> (path, name or None); FILE may be example:NAME.py."""
    from fpsmt.resources import resolve
    path, _, name = text.rpartition(":") if text.count(":") > (1 if text.startswith(("example:", "spec:", "proof:")) else 0) \
        else (text, "", "")
    return resolve(path), (name or None)


def format_names(args):
    """The formats of a repeatable ``--format`` option, commas allowed ([] when absent;
    given but naming nothing is an error)."""
    return listed(args.format, "--format") or []


@contextlib.contextmanager
def engine_session(args, **options):
    """An engine on the results store of ``args``; solver workers and store closed at the end."""
    from fpsmt.proof import solve as solve
    from fpsmt.proof.engine import Engine
    from fpsmt.proof.store import Store
    eng = Engine(solver=args.solver, timeout=args.timeout, recheck=args.recheck, progress=err, **options)
    eng.store = Store(args.store)
    try:
        yield eng
    finally:
        solve.shutdown()
        eng.store.close()


def check_requirements(args, fmt, construction):
    """A construction family's requirements for σ in ``fmt``, decided (from the store where
    it has them); refused with one line naming the first that is not PROVED."""
    from fpsmt.constructions import requirements
    if construction.family in requirements.families():
        with engine_session(args) as eng:
            req = requirements.check(eng, construction, fmt)
        err(f"fpsmt: the {construction.family} construction's requirements for {construction.activation} in "
            f"{fmt.name}: {', '.join(r['condition'] for r in req)} PROVED")


def solver_options(parser, default_solver, what, default_timeout, default_text=None):
    """The options every solving subcommand shares."""
    parser.add_argument("--solver", default=default_solver,
                        help=f"z3, cvc5, bitwuzla, bitwuzla-bv (fpsmt's own bit-vector encoding of the floats, any "
                             f"format), portfolio or exhaustive (enumeration, small formats); "
                             f"default {default_text or default_solver}")
    parser.add_argument("--timeout", type=seconds, default=default_timeout,
                        help=f"wall-clock limit per {what}, seconds (default {default_timeout:g})")
    parser.add_argument("--store", type=nonempty, default=None, help="results store (SQLite); default in the user cache folder")
    parser.add_argument("--recheck", action="store_true", help="solve again even when the store has the answer")
    parser.add_argument("--json", action="store_true", help="print JSON only on stdout")


def semantics_option(parser, what: str):
    """``--semantics SPEC``: the floating-point meaning ``what`` runs under."""
    parser.add_argument("--semantics", default=None, metavar="SPEC",
                        help=f"the semantics profile {what} runs under: key=value parts joined by commas, "
                             "order=left|reversed|pairwise|blocked:K|wide:FORMAT (any in claims), backward=paper|torch|jax, "
                             "activation=correct|numpy|torch (ulp:K in claims), fold=first|+0 (default: the paper's, "
                             "order=left,backward=paper,activation=correct)")


def semantics_of(args, fmt, activations=()):
    """The profile of ``--semantics``, checked against the format and the activations it
    will meet (InputError, one line, before any work)."""
    from fpsmt.semantics.network import parse_semantics
    return parse_semantics(getattr(args, "semantics", None)).check(fmt, activations)


# ------------------------------------------------------------------ validators
def seconds(text) -> float:
    """An argparse type: a finite, positive number of seconds."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: a time limit must be finite and positive")
    return v


def positive_int(text) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return v


def nonempty(text) -> str:
    """An argparse type: a non-empty value (a path, a name)."""
    if not str(text).strip():
        raise argparse.ArgumentTypeError("an empty value")
    return text


def listed(values, option: str):
    """The names of a repeatable, comma-separated option; None when the option is absent,
    an error when it is given but names nothing (``--format ,``)."""
    if values is None:
        return None
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    if not names:
        raise InputError(f"{option} names nothing")
    return names


def input_png(path) -> Path:
    """A PNG file to read (its signature checked), before any work."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{path} is a folder, not a PNG file")
    try:
        with open(p, "rb") as fh:
            head = fh.read(8)
    except OSError as e:
        raise InputError(f"{path} cannot be read: {e.strerror or e}") from None
    if head != b"\x89PNG\r\n\x1a\n":
        raise InputError(f"{path} is not a PNG file")
    return p


def output_path(path, option: str) -> Path:
    """An output file that can be written: its folder exists and is writable, and it is not
    a folder itself.  Checked before any work."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{option} {path} is a folder, not a file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"{option} {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise InputError(f"{option} {path}: the folder {parent} is not writable")
    return p


class PendingOutput:
    """The temporary file of :func:`atomic_output` (``path``); ``discard()`` keeps it from
    being renamed to the target (a result that failed its own check)."""

    def __init__(self, path):
        self.path = Path(path)
        self.kept = True

    def discard(self):
        self.kept = False


@contextlib.contextmanager
def atomic_output(path, suffix=""):
    """A temporary file in the target's folder (a :class:`PendingOutput`), renamed to
    ``path`` when the block succeeds and did not discard it; removed otherwise, so nothing
    half-written or rejected is left behind."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=suffix + ".tmp", dir=str(p.parent or "."))
    os.close(fd)
    mask = os.umask(0)  # mkstemp makes the file private; the output gets the usual permissions
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)
    pending = PendingOutput(tmp)
    try:
        yield pending
        if pending.kept:
            os.replace(tmp, p)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # gone already when it was renamed


def check_store(path):
    """Open (creating if absent) and close the results store: a path that cannot hold a
    store, or an SQLite file of another schema, is refused before any work."""
    from fpsmt.proof.store import Store
    Store(path).close()
