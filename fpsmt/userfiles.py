"""Importing a user's Python file (claims, activations) with one clear error line."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from fpsmt.errors import InputError


def import_file(path, what: str):
    """The module of ``path``; a missing file or one that does not import is bad input."""
    p = Path(path)
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
    except Exception as e:
        msg = str(e).splitlines()[0] if str(e) else ""
        raise InputError(f"{path} does not import: {type(e).__name__}: {msg}") from None
    return module
