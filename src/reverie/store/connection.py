"""The one place connections are made.

Every connection gets WAL, a busy timeout, foreign keys and, where the ``sqlite-vec`` package is
installed and extensions can load, the ``vec0`` extension. apsw bundles a recent SQLite with FTS5
and trigram, whatever the system library is.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Iterator

import apsw

BUSY_TIMEOUT_MS = 10_000

_vec_state: dict[str, object] = {"checked": False, "path": None, "error": None}
_vec_lock = threading.Lock()


def _vec_path() -> str | None:
    with _vec_lock:
        if not _vec_state["checked"]:
            _vec_state["checked"] = True
            try:
                import sqlite_vec  # optional

                _vec_state["path"] = sqlite_vec.loadable_path()
            except Exception as exc:  # not installed, or no binary for this platform
                _vec_state["error"] = f"sqlite-vec unavailable: {exc}"
        return _vec_state["path"]  # type: ignore[return-value]


def vec_available() -> tuple[bool, str | None]:
    """Whether sqlite-vec can be loaded here, and why not."""
    path = _vec_path()
    if path is None:
        return False, str(_vec_state["error"])
    return True, None


def connect(path: Path | str, *, readonly: bool = False, load_vec: bool = False) -> apsw.Connection:
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
    if load_vec:
        ext = _vec_path()
        if ext is not None:
            try:
                conn.enable_load_extension(True)
                conn.load_extension(ext)
                conn.enable_load_extension(False)
            except apsw.Error as exc:  # keep going without vec0; status reports it
                _vec_state["error"] = f"sqlite-vec failed to load: {exc}"
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
