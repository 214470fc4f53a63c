"""The project's exception types.

:class:`InputError` is bad input from the user (unknown format, malformed file,
non-representable constant, missing solver …): the CLI prints its message as one
line and exits with status 2.  Anything else escaping the CLI is a bug (status 1).
"""


class FpsmtError(Exception):
    """Base class of fpsmt's own errors."""


class InputError(FpsmtError):
    """Bad input or a missing dependency: one clear line, exit status 2."""


class ReplayMismatch(FpsmtError):
    """A solver model that the executor does not reproduce (an internal error)."""


class Disagreement(FpsmtError):
    """Two back ends decide one query both ways: a replayed model against an UNSAT.  One of
    them is wrong, so the run stops (exit status 1) naming both answers."""
