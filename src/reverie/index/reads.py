"""The index's two small tables, read once per search.

A search asks several times what the index is: its identity and progress (``memory_index_meta``:
a handful of JSON rows) and its counters (``memory_index_state``: units, vectors, tokens,
revision). Each ask is a statement; on PostgreSQL each is a round trip to the server (0.3 to 7 ms,
more on a loaded machine), and a search asked eight of them. Inside :func:`once` the first ask
reads both tables in one statement and every later ask on the same connection is answered from
that read: a search sees the index as it was at one moment, which is what it would see anyway a
few milliseconds earlier. :func:`forget` drops the read after the caller changed what it
describes (the search's preflight starting a sync), so the next ask reads again.

Outside :func:`once` (indexing, status, repair) every ask reads the database, as before.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from ..store.engine import engine_of

STATE = "#state"  # (no meta key starts with "#")


class _Read:
    def __init__(self, conn):
        self.conn = conn
        self.rows: dict[str, str] | None = None

    def load(self) -> dict[str, str]:
        if self.rows is None:
            self.rows = _read_both(self.conn)
        return self.rows


_current: ContextVar[_Read | None] = ContextVar("reverie_index_reads", default=None)


def _read_both(conn) -> dict[str, str]:
    """``{meta key: JSON text}`` plus the state row as JSON text under :data:`STATE`."""
    if engine_of(conn) == "postgres":
        rows = conn.execute(
            "SELECT key, value FROM memory_index_meta UNION ALL "
            "SELECT '#state', json_build_object('revision', revision, 'chunks', chunks, 'vectors', vectors, "
            "'tokens', tokens)::text FROM memory_index_state WHERE id = 1").fetchall()
        return dict(rows)
    out = dict(conn.execute("SELECT key, value FROM memory_index_meta").fetchall())
    cur = conn.cursor()
    row = cur.execute("SELECT * FROM memory_index_state WHERE id = 1").fetchone()
    if row is not None:
        out[STATE] = json.dumps({d[0]: v for d, v in zip(cur.getdescription(), row)})
    return out


def _cached(conn) -> dict[str, str] | None:
    read = _current.get()
    return read.load() if read is not None and read.conn is conn else None


@contextmanager
def once(conn) -> Iterator[None]:
    """Within this block, asks on ``conn`` share one read of the two tables (taken at the first)."""
    token = _current.set(_Read(conn))
    try:
        yield
    finally:
        _current.reset(token)


def forget() -> None:
    """The read no longer holds (the caller changed the index or started work that will)."""
    read = _current.get()
    if read is not None:
        read.rows = None


def meta(conn, key: str) -> dict | None:
    """The JSON value of one ``memory_index_meta`` row, or None."""
    rows = _cached(conn)
    if rows is not None:
        raw = rows.get(key)
    else:
        row = conn.execute("SELECT value FROM memory_index_meta WHERE key = ?", (key,)).fetchone()
        raw = row[0] if row else None
    return json.loads(raw) if raw is not None else None


def state(conn, *columns: str) -> tuple[int, ...]:
    """Columns of the ``memory_index_state`` row (0 for a missing row or column)."""
    rows = _cached(conn)
    if rows is not None:
        values = json.loads(rows.get(STATE) or "{}")
        return tuple(int(values.get(c) or 0) for c in columns)
    row = conn.execute(f"SELECT {', '.join(columns)} FROM memory_index_state WHERE id = 1").fetchone()
    return tuple(int(v or 0) for v in row) if row else (0,) * len(columns)
