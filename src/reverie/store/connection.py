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


def connect(path, *, readonly: bool = False) -> apsw.Connection:
    """Open (creating if needed) a database with reverie's pragmas. ``path`` may also be an
    :class:`~reverie.store.engine.AgentDatabase` (the storage seam): its engine's connection."""
    if hasattr(path, "engine") and not isinstance(path, (str, Path)):
        return path.connect(readonly=readonly)
    path = Path(path)
    if not readonly:
        path.parent.mkdir(parents=True, exist_ok=True)
    if readonly:
        conn = read_only(path)
    else:
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE)
        conn.setbusytimeout(BUSY_TIMEOUT_MS)
        try:
            _wal(conn)
        except apsw.ReadOnlyError:
            # SQLite opened it read-only (a read-only file, folder or mount): reads work, and a
            # write fails with ReadOnlyError, which the command line names in one line
            conn.close()
            conn = read_only(path)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _wal(conn: apsw.Connection) -> None:
    """``journal_mode=WAL``. On a new file, switching the mode takes a lock the busy handler does
    not wait for: several first openers at once (threads of one process, or processes) get
    "database is locked" at once. Retried within the busy timeout, as any other wait is."""
    import time

    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except apsw.BusyError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)


def read_only(path: Path | str) -> apsw.Connection:
    """A read-only connection to a file nobody can write. A WAL database needs its ``-shm`` to be
    read; where that cannot be made (a read-only folder) the file is opened as immutable: nobody
    can change it while the folder is read-only."""
    path = Path(path)
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    conn.setbusytimeout(BUSY_TIMEOUT_MS)
    try:
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        return conn
    except (apsw.CantOpenError, apsw.ReadOnlyError):
        conn.close()
    from urllib.parse import quote

    conn = apsw.Connection(f"file:{quote(str(path.absolute()))}?immutable=1",
                           flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    conn.setbusytimeout(BUSY_TIMEOUT_MS)
    return conn


@contextlib.contextmanager
def transaction(conn: apsw.Connection, *, immediate: bool = True) -> Iterator[apsw.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception. On PostgreSQL, ``immediate`` takes
    the agent's write lock (see :mod:`reverie.store.postgres.connection`)."""
    if getattr(conn, "engine", None) == "postgres":
        conn.begin(immediate=immediate)
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        else:
            conn.commit()
        return
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
