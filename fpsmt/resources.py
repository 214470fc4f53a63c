"""The project's shipped folders (specs/, proofs/, examples/), found from any install.

They are packaged as ``fpsmt.specs``, ``fpsmt.proofs`` and ``fpsmt.examples``, so a
non-editable install carries them.  On the command line a path written
``example:NAME`` means the file NAME in the shipped examples.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from fpsmt.errors import InputError

FOLDERS = ("specs", "proofs", "examples")


def folder(name: str) -> Path:
    if name not in FOLDERS:
        raise InputError(f"unknown folder {name!r}")
    try:
        mod = importlib.import_module(f"fpsmt.{name}")
        return Path(mod.__file__).resolve().parent
    except ModuleNotFoundError:
        # Running from a source checkout that is not installed: the folder beside the package.
        here = Path(__file__).resolve().parent.parent / name
        if here.is_dir():
            return here
        raise InputError(f"the shipped folder {name}/ is missing: reinstall fpsmt") from None


def resolve(path: str) -> Path:
    """A user path, with ``example:NAME`` / ``spec:NAME`` / ``proof:NAME`` for shipped files."""
    for prefix, fold in (("example:", "examples"), ("spec:", "specs"), ("proof:", "proofs")):
        if str(path).startswith(prefix):
            name = str(path)[len(prefix):]
            p = folder(fold) / name
            if not p.is_file():
                known = sorted(q.name for q in folder(fold).iterdir() if q.is_file() and not q.name.startswith("_"))
                raise InputError(f"no shipped file {name!r} in {fold}/ (shipped: {', '.join(known) or 'none'})")
            return p
    return Path(path)
