"""``fpsmt paths``: where the shipped folders are."""

from __future__ import annotations

import json

from fpsmt.commands.options import out


def cmd_paths(args):
    from fpsmt.resources import FOLDERS, folder
    paths = {name: str(folder(name)) for name in FOLDERS}
    if args.json:
        out(json.dumps(paths))
    else:
        for k, v in paths.items():
            out(f"{k:<9} {v}")
    return 0


def register(sub):
    """Add the subcommand to the parser's subcommands."""
    s = sub.add_parser("paths", help="where the shipped specs/, proofs/ and examples/ are")
    s.add_argument("--json", action="store_true", help="print JSON only on stdout")
    s.set_defaults(fn=cmd_paths)
