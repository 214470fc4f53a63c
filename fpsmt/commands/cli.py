"""The ``fpsmt`` command line: the parser and the mapping from errors to exit codes.

Each subcommand is a module of :mod:`fpsmt.commands` with a ``register(sub)`` that adds
its parser (and its presentation: tables, reports, plots); adding a subcommand means
adding its module to :data:`COMMANDS`.

Exit codes: 0 for a run that produced results (a refuted claim is a result), 2 for bad
input or a missing dependency (one line on stderr), 1 for an internal error (a bug) or
two back ends that decide one query both ways (SOLVERS DISAGREE, both answers named).
With ``--json`` stdout holds JSON only; tables, progress and warnings go to stderr.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from fpsmt import __version__
from fpsmt.commands.options import Parser, err
from fpsmt.errors import Disagreement, InputError, ReplayMismatch

COMMANDS = ("formats", "evaluate", "counterexample", "prove", "activation", "conditions", "reproduce", "check", "construct",
            "paths")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="fpsmt", description="SMT-checked proofs about floating-point networks and their AD gradients")
    p.add_argument("--version", action="version", version=f"fpsmt {__version__}")
    sub = p.add_subparsers(dest="command", metavar="SUBCOMMAND", parser_class=Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"fpsmt.commands.{name}").register(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except InputError as e:
        err(f"fpsmt: error: {e}")
        return 2
    except ReplayMismatch as e:
        err(f"fpsmt: internal error: {e}")
        return 1
    except Disagreement as e:
        err(f"fpsmt: error: {e}")
        return 1
    except KeyboardInterrupt:
        err("fpsmt: interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
