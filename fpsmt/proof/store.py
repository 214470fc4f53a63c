"""The results store: one SQLite file of decided claims, their certificates and timings.

Key = SHA-256 of (the rendered SMT-LIB 2 query, the format, the solver name and version,
the fpsmt version, and the *fingerprint*: a hash of the source of every module an answer
depends on — the semantics layer (formats, IR, interpretations, activations) and the
claim language, encoding, enumeration, replay and the engine, which decides what PROVED,
VACUOUS and confirmation mean).  An encoder change renders a
different query, a solver upgrade is a different key, and a change to the executor that
decides answers by enumeration changes the fingerprint, so a stale answer is never
served.  The fingerprint is also kept in each row's ``detail``; an assumed claim counts
as proved only under the current fingerprint.  A row holds the status, the witness
bit patterns, the seconds per solver, the compressed SMT-LIB 2 text and the claims the
result rests on.  Rows are written in one transaction after the result is complete, so
a run killed midway leaves no partial row.  A second table records how far a long
enumeration has got (:class:`fpsmt.proof.exhaustive.Checkpoint`), so that a stopped run
goes on from there; a row is removed when its enumeration's answer is known.

Default location: ``$FPSMT_STORE``, else ``$XDG_CACHE_HOME/fpsmt/results.sqlite``, else
``~/.cache/fpsmt/results.sqlite``; every subcommand that uses it takes ``--store PATH``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import zlib
from pathlib import Path

from fpsmt import __version__
from fpsmt.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    statement TEXT NOT NULL,      -- hash of the query and format, solver-independent
    claim TEXT NOT NULL,
    format TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,         -- PROVED | REFUTED | VACUOUS
    witness TEXT NOT NULL,        -- JSON {var: hex or int}
    solver TEXT NOT NULL,
    solver_version TEXT NOT NULL,
    fpsmt_version TEXT NOT NULL,
    seconds TEXT NOT NULL,        -- JSON {solver: seconds or note}
    total_seconds REAL NOT NULL,
    smt2 BLOB NOT NULL,           -- zlib-compressed SMT-LIB 2 text
    assumed TEXT NOT NULL,        -- JSON [{"claim": name, "statement": hash}]
    detail TEXT NOT NULL,         -- JSON: confirmation, experimental flag, rounds
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS results_statement ON results (statement, status);
CREATE TABLE IF NOT EXISTS enumerations (
    job TEXT PRIMARY KEY,         -- hash of the query, format, free variables, piece size, fingerprint
    pieces INTEGER NOT NULL,      -- pieces enumerated, in order, without a hit
    total INTEGER NOT NULL,       -- points of the whole space (for the record)
    updated REAL NOT NULL
);
"""


COLUMNS = ["key", "statement", "claim", "format", "kind", "status", "witness", "solver", "solver_version",
           "fpsmt_version", "seconds", "total_seconds", "smt2", "assumed", "detail", "created"]


def default_path() -> Path:
    if os.environ.get("FPSMT_STORE"):
        return Path(os.environ["FPSMT_STORE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fpsmt" / "results.sqlite"


def sha(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


#: what an answer depends on, besides its query text: these packages and modules
FINGERPRINTED = ("fpsmt.semantics", "fpsmt.proof.claims", "fpsmt.proof.encoding", "fpsmt.proof.exhaustive",
                 "fpsmt.proof.replay", "fpsmt.proof.engine")
_fingerprint: list = []


def fingerprint() -> str:
    """A hash of the source of the modules an answer depends on (:data:`FINGERPRINTED`),
    read once per process."""
    if not _fingerprint:
        import importlib
        h = hashlib.sha256()
        for name in FINGERPRINTED:
            mod = importlib.import_module(name)
            path = Path(mod.__file__)
            files = sorted(path.parent.rglob("*.py")) if path.name == "__init__.py" else [path]
            for f in files:
                h.update(str(f.relative_to(path.parent.parent)).encode())
                h.update(b"\0")
                h.update(f.read_bytes())
        _fingerprint.append(h.hexdigest()[:32])
    return _fingerprint[0]


def statement_hash(smt2: str, fmt_name: str) -> str:
    return sha("statement", smt2, fmt_name)


def result_key(smt2: str, fmt_name: str, solver: str, solver_version: str) -> str:
    return sha("result", smt2, fmt_name, solver, solver_version, __version__, fingerprint())


def _db_errors(method):
    """A database error while using the store (locked, full disk, a file changed under us)
    is the user's path's problem: one line, exit 2."""
    import functools

    @functools.wraps(method)
    def wrapped(self, *args, **kw):
        try:
            return method(self, *args, **kw)
        except sqlite3.DatabaseError as e:
            raise InputError(f"results store {self.path}: {e}") from None
    return wrapped


class Store:
    def __init__(self, path=None):
        self.path = Path(path) if path else default_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.con = sqlite3.connect(str(self.path), timeout=60)
            self.con.execute("PRAGMA journal_mode=WAL")
            have = [r[1] for r in self.con.execute("PRAGMA table_info(results)")]
            if have and have != COLUMNS:
                self.con.close()
                raise InputError(f"results store {self.path} is an SQLite file of another schema "
                                 f"(its results table has {', '.join(have)}); give another --store")
            self.con.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise InputError(f"results store {self.path} cannot be used: {e}") from None
        except OSError as e:
            raise InputError(f"results store {self.path} cannot be created: {e}") from None

    @_db_errors
    def get(self, key):
        row = self.con.execute("SELECT status, witness, solver, seconds, total_seconds, assumed, detail "
                               "FROM results WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return {"status": row[0], "witness": json.loads(row[1]), "solver": row[2], "seconds": json.loads(row[3]),
                "total_seconds": row[4], "assumed": json.loads(row[5]), "detail": json.loads(row[6])}

    @_db_errors
    def proved(self, statement: str) -> bool:
        """Whether the statement is PROVED in this store under the current fingerprint."""
        return self.con.execute("SELECT 1 FROM results WHERE statement = ? AND status = 'PROVED' "
                                "AND json_extract(detail, '$.fingerprint') = ? LIMIT 1",
                                (statement, fingerprint())).fetchone() is not None

    @_db_errors
    def put(self, *, key, statement, claim, fmt, kind, status, witness, solver, solver_version, seconds,
            total_seconds, smt2, assumed, detail):
        with self.con:  # one transaction: all or nothing
            self.con.execute(
                "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, statement, claim, fmt, kind, status, json.dumps(witness), solver, solver_version,
                 __version__, json.dumps(seconds), total_seconds, zlib.compress(smt2.encode()),
                 json.dumps(assumed), json.dumps({**detail, "fingerprint": fingerprint()}), time.time()))

    @_db_errors
    def confirm(self, key, who: str):
        """Record that ``who`` confirmed the stored answer ``key``."""
        with self.con:
            self.con.execute("UPDATE results SET detail = json_set(detail, '$.confirmed_by', ?) WHERE key = ?",
                             (who, key))

    @_db_errors
    def smt2(self, key) -> str | None:
        row = self.con.execute("SELECT smt2 FROM results WHERE key = ?", (key,)).fetchone()
        return zlib.decompress(row[0]).decode() if row else None

    @_db_errors
    def rows(self):
        return self.con.execute("SELECT claim, format, status, solver, total_seconds, key FROM results "
                                "ORDER BY created").fetchall()

    @_db_errors
    def enumeration_done(self, job: str) -> int:
        """The pieces of the enumeration ``job`` recorded as done (0 when none)."""
        row = self.con.execute("SELECT pieces FROM enumerations WHERE job = ?", (job,)).fetchone()
        return int(row[0]) if row else 0

    @_db_errors
    def save_enumeration(self, job: str, pieces: int, total: int):
        with self.con:
            self.con.execute("INSERT OR REPLACE INTO enumerations VALUES (?,?,?,?)", (job, pieces, int(total), time.time()))

    @_db_errors
    def clear_enumeration(self, job: str):
        with self.con:
            self.con.execute("DELETE FROM enumerations WHERE job = ?", (job,))

    @_db_errors
    def export(self, keys) -> list:
        """The whole rows of these keys (those present), as tuples of :data:`COLUMNS`."""
        out = []
        for key in keys:
            row = self.con.execute(f"SELECT {', '.join(COLUMNS)} FROM results WHERE key = ?", (key,)).fetchone()
            if row is not None:
                out.append(tuple(row))
        return out

    @_db_errors
    def merge(self, rows):
        """Write rows from another store (:meth:`export`) as they are, in one transaction; a
        row of the same key is replaced (the same content-hashed answer, perhaps confirmed
        since)."""
        with self.con:
            self.con.executemany(f"INSERT OR REPLACE INTO results VALUES ({','.join('?' * len(COLUMNS))})",
                                 [tuple(r) for r in rows])

    def close(self):
        self.con.close()
