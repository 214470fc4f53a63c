"""A user's Python files (claims, specs, activations, targets): importing them and calling
into them, with one clear error line naming the file for anything they raise —
exceptions and ``sys.exit`` alike (exit 2).  Errors of fpsmt's own code are not caught
here: they stay internal errors (exit 1)."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from pathlib import Path

from fpsmt.errors import InputError


def import_file(path, what: str):
    """The module of ``path``; a missing file or one that does not import is bad input."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} file {path} is a folder, not a file")
    if not p.is_file():
        raise InputError(f"{what} file {path} does not exist")
    mod_name = f"fpsmt_user_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, p)
    module = importlib.util.module_from_spec(spec)
    try:
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    except (Exception, SystemExit) as e:
        raise InputError(f"{path} does not import: {_describe(e)}") from None
    return module


def _describe(e) -> str:
    msg = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


@contextlib.contextmanager
def user_code(path, what: str):
    """Around a call into a user's file: what it raises (``SystemExit`` included) becomes
    one InputError line naming the file and the call."""
    try:
        yield
    except InputError as e:
        raise InputError(f"{path}: {what}: {e}") from None
    except (Exception, SystemExit) as e:
        raise InputError(f"{path}: {what} raised {_describe(e)}") from None
