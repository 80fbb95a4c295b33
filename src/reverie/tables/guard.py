"""Opening a table file safely: the authorizer, the limits and the time limit.

A table file is SQL written by an agent (and may be a file someone else made), so it gets its own
connection hook instead of the one reverie's own databases use (:func:`reverie.store.connect`):
no WAL (one self-contained file that can be copied and versioned), no extensions, triggers off,
``trusted_schema`` off, defensive mode on, no attached databases, bounded value and statement
sizes, a bounded file size, and an authorizer that admits only what the caller asked for:

* read: ``SELECT`` (recursive CTEs included), reading columns, ordinary functions and the
  schema-reading pragmas (``table_info`` and friends);
* write: the same plus ``CREATE/DROP TABLE|INDEX|VIEW``, ``ALTER TABLE``, ``INSERT``, ``UPDATE``,
  ``DELETE`` on the file's own tables.

Everything else is refused with a reason: ``ATTACH``/``DETACH`` (``VACUUM`` and ``VACUUM INTO``
attach internally, so they are refused too), ``load_extension`` and the shell's file functions,
triggers (they would write behind the statement's back), temporary objects (they outlive the
statement in no file), virtual tables (a module may reach files), writable pragmas
(``writable_schema`` among them) and writes to ``sqlite_*`` tables.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Iterator

import apsw

BUSY_TIMEOUT_MS = 5_000
MAX_VALUE_BYTES = 8 * 1024 * 1024  # one string or BLOB; larger ones fail as "too big"
MAX_SQL_CHARS = 100_000
MAX_FILE_BYTES = 256 * 1024 * 1024
PROGRESS_STEPS = 1_000  # VM instructions between deadline checks (about 10 µs each)

# Pragmas that only read the schema; anything else (and any of these with "=") is refused.
READ_PRAGMAS = {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
                "foreign_key_list"}
DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "fts5_tokenizer"}
# The schema table is written by CREATE/DROP/ALTER themselves (SQLite refuses direct writes to it
# without writable_schema, which is never allowed); sqlite_sequence by AUTOINCREMENT.
SCHEMA_TABLES = {"sqlite_master", "sqlite_schema", "sqlite_sequence"}

_A = apsw
_READ_OPS = {_A.SQLITE_SELECT, _A.SQLITE_READ, _A.SQLITE_RECURSIVE}
_WRITE_OPS = {_A.SQLITE_INSERT, _A.SQLITE_UPDATE, _A.SQLITE_DELETE}
_DDL_OPS = {_A.SQLITE_CREATE_TABLE, _A.SQLITE_CREATE_INDEX, _A.SQLITE_CREATE_VIEW, _A.SQLITE_DROP_TABLE,
            _A.SQLITE_DROP_INDEX, _A.SQLITE_DROP_VIEW, _A.SQLITE_ALTER_TABLE}
_REASONS = {
    _A.SQLITE_ATTACH: "ATTACH, DETACH and VACUUM are not allowed: a table file cannot reach another file",
    _A.SQLITE_DETACH: "ATTACH, DETACH and VACUUM are not allowed: a table file cannot reach another file",
    _A.SQLITE_CREATE_TRIGGER: "triggers are not allowed: every write must be the statement you see",
    _A.SQLITE_CREATE_VTABLE: "virtual tables are not allowed",
    _A.SQLITE_DROP_VTABLE: "virtual tables are not allowed",
    _A.SQLITE_TRANSACTION: "transaction control is not allowed: each call is one transaction already",
    _A.SQLITE_SAVEPOINT: "transaction control is not allowed: each call is one transaction already",
}


class Guard:
    """The authorizer of one connection; remembers why it refused, for the error message."""

    def __init__(self, write: bool):
        self.write = write
        self.internal = False  # our own BEGIN/COMMIT, prepared while this is set
        self.refused: str | None = None

    def __call__(self, op: int, p1: str | None, p2: str | None, db: str | None, trigger: str | None) -> int:
        reason = self._check(op, p1, p2, db)
        if reason is None:
            return apsw.SQLITE_OK
        self.refused = self.refused or reason
        return apsw.SQLITE_DENY

    def _check(self, op: int, p1, p2, db) -> str | None:
        kind = apsw.mapping_authorizer_function.get(op, str(op)).removeprefix("SQLITE_")
        if "TEMP" in kind:
            return "temporary tables, views and triggers are not allowed: they belong to no file"
        if db == "temp":
            return "temporary tables, views and triggers are not allowed: they belong to no file"
        if db not in (None, "main"):
            return f"only the table file itself can be used (not {db!r})"
        if op in _READ_OPS:
            return None
        if op == apsw.SQLITE_FUNCTION:
            return f"function {p2}() is not allowed" if (p2 or "").lower() in DENIED_FUNCTIONS else None
        if op == apsw.SQLITE_PRAGMA:
            name = (p1 or "").lower()
            if name in READ_PRAGMAS:
                return None
            return f"PRAGMA {name} is not allowed (only schema-reading pragmas such as table_info)"
        if op in (apsw.SQLITE_TRANSACTION, apsw.SQLITE_SAVEPOINT) and self.internal:
            return None
        if op in _REASONS:
            return _REASONS[op]
        if not self.write:
            return f"{kind.replace('_', ' ')} is not allowed in table_query (read-only); use table_write"
        if op in _WRITE_OPS:
            table = (p1 or "").lower()
            if table.startswith("sqlite_") and table not in SCHEMA_TABLES:
                return f"writing to {p1} is not allowed"
            return None
        if op in _DDL_OPS:
            target = ((p2 if op == apsw.SQLITE_ALTER_TABLE else p1) or "").lower()
            if target.startswith("sqlite_") and not target.startswith("sqlite_autoindex_"):
                return f"{kind.replace('_', ' ')} on {p1} is not allowed"
            return None
        return f"{kind.replace('_', ' ')} is not allowed"


def open_table_file(path: Path, *, write: bool, create: bool = False) -> tuple[apsw.Connection, Guard]:
    """A hardened connection to one table file (see the module docstring)."""
    if path.is_symlink():
        raise apsw.CantOpenError(f"{path.name} is a symlink")
    flags = apsw.SQLITE_OPEN_NOFOLLOW
    if write:
        flags |= apsw.SQLITE_OPEN_READWRITE | (apsw.SQLITE_OPEN_CREATE if create else 0)
    else:
        flags |= apsw.SQLITE_OPEN_READONLY
    conn = apsw.Connection(str(path), flags=flags)
    try:
        conn.setbusytimeout(BUSY_TIMEOUT_MS)
        for option, value in ((apsw.SQLITE_DBCONFIG_DEFENSIVE, 1), (apsw.SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0),
                              (apsw.SQLITE_DBCONFIG_ENABLE_TRIGGER, 0),
                              (apsw.SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0)):
            conn.config(option, value)
        conn.limit(apsw.SQLITE_LIMIT_ATTACHED, 0)
        conn.limit(apsw.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        conn.limit(apsw.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_CHARS)
        if write:
            # One file, copied and versioned like the notes: a rollback journal, never WAL files.
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=FULL")
            page = conn.execute("PRAGMA page_size").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count={MAX_FILE_BYTES // page}")
        else:
            conn.execute("PRAGMA query_only=1")
        guard = Guard(write)
        conn.authorizer = guard
    except BaseException:
        conn.close()
        raise
    return conn, guard


@contextlib.contextmanager
def time_limit(conn: apsw.Connection, seconds: float) -> Iterator[None]:
    """Interrupt whatever runs on ``conn`` after ``seconds`` (a recursive CTE that never ends)."""
    deadline = time.monotonic() + seconds
    conn.set_progress_handler(lambda: time.monotonic() > deadline, PROGRESS_STEPS)
    try:
        yield
    finally:
        conn.set_progress_handler(None)
