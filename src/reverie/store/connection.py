"""The one place connections are made.

Every connection gets WAL, a busy timeout and foreign keys. apsw bundles a recent SQLite with FTS5
and trigram, whatever the system library is. No extension is loaded: vectors are searched in
numpy, which measured faster than sqlite-vec's ``vec0`` (docs/benchmarks.md).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Iterator

import apsw

BUSY_TIMEOUT_MS = 10_000


def connect(path: Path | str, *, readonly: bool = False) -> apsw.Connection:
    """Open (creating if needed) a database with reverie's pragmas."""
    path = Path(path)
    if not readonly:
        path.parent.mkdir(parents=True, exist_ok=True)
    flags = apsw.SQLITE_OPEN_READONLY if readonly else (apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE)
    conn = apsw.Connection(str(path), flags=flags)
    conn.setbusytimeout(BUSY_TIMEOUT_MS)
    if not readonly:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


@contextlib.contextmanager
def transaction(conn: apsw.Connection, *, immediate: bool = True) -> Iterator[apsw.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


class LazyConnection:
    """A connection opened on first use and closed on demand; one per owner, shared by its threads
    (apsw serialises calls on a connection)."""

    def __init__(self, opener):
        self._opener = opener
        self._conn: apsw.Connection | None = None
        self._lock = threading.RLock()

    def get(self) -> apsw.Connection:
        with self._lock:
            if self._conn is None:
                self._conn = self._opener()
            return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
