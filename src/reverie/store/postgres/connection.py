"""A connection to one agent's rows on PostgreSQL, with the small surface the stores use on apsw.

It is not one server connection: each statement outside a transaction borrows a pooled connection
(``psycopg_pool``) for its own round trip and returns it, so a store that is never closed holds
nothing. A transaction keeps one pooled connection for its whole length, per thread, as an apsw
connection would. Every borrowed connection is first pointed at the agent
(``reverie.agent_id``), which the row-level security policies read.

``BEGIN IMMEDIATE`` on SQLite takes the database's write lock: one writer per agent database at a
time, which the stores rely on for their read-then-write steps (an event's position, a recall's
query list). Here ``transaction(immediate=True)`` takes a transaction-level advisory lock on the
agent instead: the same one-writer-per-agent rule, across processes and hosts, while other agents
write in parallel.
"""

from __future__ import annotations

import threading
from typing import Any, Iterable, Iterator

from ...errors import UserError
from ..connection import BUSY_TIMEOUT_MS
from .dialect import NOTHING, translate


def _lost_errors() -> tuple:
    import psycopg
    import psycopg_pool

    return (psycopg.OperationalError, psycopg_pool.PoolTimeout)


_LOST = _lost_errors()


def _is_lost(exc: BaseException) -> bool:
    """The server is gone (not a lock timeout, a cancel or a deadlock, which keep their own errors)."""
    state = getattr(exc, "sqlstate", None)
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")

AGENT_SETTING = "reverie.agent_id"
_CONTROL = {"BEGIN", "BEGIN IMMEDIATE", "BEGIN DEFERRED", "BEGIN EXCLUSIVE", "COMMIT", "END", "ROLLBACK"}


class Rows:
    """The result of one statement, read in full (what apsw's cursor offers the stores)."""

    def __init__(self, rows: list[tuple], rowcount: int, description=None):
        self._rows = rows
        self._pos = 0
        self.rowcount = rowcount
        self.description = description

    def fetchone(self) -> tuple | None:
        if self._pos >= len(self._rows):
            return None
        self._pos += 1
        return self._rows[self._pos - 1]

    def fetchall(self) -> list[tuple]:
        out = self._rows[self._pos:]
        self._pos = len(self._rows)
        return out

    def __iter__(self) -> Iterator[tuple]:
        while self._pos < len(self._rows):
            self._pos += 1
            yield self._rows[self._pos - 1]


def agent_lock_key(agent: str) -> str:
    return f"reverie.agent:{agent}"


class PgConnection:
    """One agent's view of the database (see the module text)."""

    engine = "postgres"

    def __init__(self, pool, agent: str, label: str, *, lock_key: str | None = None, nested: bool = False):
        """``lock_key``: the advisory lock a write transaction takes (the agent's by default; the
        search index has its own, so a long index batch never holds up a transcript write).
        ``nested``: a transaction begun inside another is a savepoint of it (the index's forced
        rebuild runs the whole sync, batches and all, in one transaction)."""
        self._pool = pool
        self.agent = agent
        self.lock_key = lock_key or agent_lock_key(agent)
        self._nested = nested
        self.filename = label  # what apsw calls the database's name; used as a cache key
        self._local = threading.local()
        self._changes = 0
        self._total = 0
        self._closed = False
        self._busy_ms = BUSY_TIMEOUT_MS

    # -- borrowing ----------------------------------------------------------------------------
    def _held(self):
        return getattr(self._local, "conn", None)

    def _prepare(self, conn) -> None:
        if getattr(conn, "_reverie_agent", None) != self.agent:
            conn.execute("SELECT set_config(%s, %s, false)", (AGENT_SETTING, self.agent))
            conn._reverie_agent = self.agent

    def _run(self, conn, sql: str, params, many: bool = False) -> Rows:
        with conn.cursor() as cur:
            if many:
                cur.executemany(sql, params)
                return Rows([], cur.rowcount)
            if not params:  # no interpolation: the dialect's doubled % must be single again
                sql, params = sql.replace("%%", "%"), None
            cur.execute(sql, params, binary=True)  # bytea (vectors) in binary: hex text cost 30 ms a search
            rows = cur.fetchall() if cur.description else []
            return Rows(rows, cur.rowcount, cur.description)

    def _unreachable(self, exc: BaseException) -> UserError:
        """A server that went away (or a pool that cannot get a connection): one clear line."""
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        try:  # drop the pool's other dead connections, so that the next call after a restart works
            self._pool.check()
        except Exception:
            pass
        return UserError(f"lost the connection to PostgreSQL ({self.filename.split('#')[0]}): {why}")

    def _statement(self, sql: str, params, many: bool = False) -> Rows:
        held = self._held()
        try:
            if held is not None:
                out = self._run(held, sql, params, many)
            else:
                with self._pool.connection() as conn:
                    self._prepare(conn)
                    out = self._run(conn, sql, params, many)
        except _LOST as exc:
            if not _is_lost(exc):
                raise
            raise self._unreachable(exc) from None
        if out.description is None:  # as apsw: only INSERT, UPDATE and DELETE count as changes
            n = max(out.rowcount, 0)
            self._changes = n
            self._total += n
        return out

    # -- the apsw surface ---------------------------------------------------------------------
    def execute(self, sql: str, params: Iterable[Any] | None = None) -> Rows:
        word = " ".join(sql.strip().rstrip(";").upper().split())
        if word in _CONTROL:
            if word.startswith("BEGIN"):
                self.begin(immediate=word != "BEGIN DEFERRED" and word != "BEGIN")
            elif word == "ROLLBACK":
                self.rollback()
            else:
                self.commit()
            return Rows([], 0)
        pg = translate(sql)
        if pg == NOTHING:
            return Rows([], 0)
        return self._statement(pg, tuple(params) if params is not None else None)

    def executemany(self, sql: str, seq: Iterable[Iterable[Any]]) -> Rows:
        rows = [tuple(p) for p in seq]
        if not rows:
            return Rows([], 0)
        return self._statement(translate(sql), rows, many=True)

    def changes(self) -> int:
        return self._changes

    def total_changes(self) -> int:
        return self._total

    # deadlines: a lock wait or a statement may not outlast what the caller has left
    def setbusytimeout(self, ms: int) -> None:
        """How long a transaction waits for the agent's write lock (apsw: for SQLite's)."""
        self._busy_ms = int(ms)

    def set_progress_handler(self, *args) -> None:
        """apsw's hook to interrupt a long statement; the statement timeout does that here."""

    # -- transactions -------------------------------------------------------------------------
    def _depth(self) -> int:
        return getattr(self._local, "depth", 0)

    def begin(self, immediate: bool = True) -> None:
        held = self._held()
        if held is not None:
            if not self._nested:
                raise RuntimeError("a transaction is already open on this connection")
            self._local.depth = self._depth() + 1
            held.execute(f"SAVEPOINT reverie_{self._local.depth}")
            return
        try:
            conn = self._pool.getconn()
        except _LOST as exc:
            if not _is_lost(exc):
                raise
            raise self._unreachable(exc) from None
        try:
            self._prepare(conn)
            conn.execute("BEGIN")
            conn.execute("SELECT set_config('lock_timeout', %s, true)", (f"{self._busy_ms}ms",))
            if immediate:
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (self.lock_key,))
        except BaseException as exc:
            self._pool.putconn(conn)
            if isinstance(exc, _LOST) and _is_lost(exc):
                raise self._unreachable(exc) from None
            raise
        self._local.conn = conn

    def _end(self, word: str) -> None:
        conn = self._held()
        depth = self._depth()
        if conn is not None and depth:
            if word == "ROLLBACK":
                conn.execute(f"ROLLBACK TO SAVEPOINT reverie_{depth}")
            conn.execute(f"RELEASE SAVEPOINT reverie_{depth}")
            self._local.depth = depth - 1
            return
        if conn is None:
            if word == "ROLLBACK":
                return
            raise RuntimeError("no transaction is open")
        self._local.conn = None
        try:
            conn.execute(word)
        except _LOST as exc:
            if word == "ROLLBACK" and _is_lost(exc):
                return  # the server dropped the transaction with the connection
            if _is_lost(exc):
                raise self._unreachable(exc) from None
            raise
        finally:
            self._pool.putconn(conn)

    def commit(self) -> None:
        self._end("COMMIT")

    def rollback(self) -> None:
        self._end("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        return self._held() is not None

    def close(self) -> None:
        while self._held() is not None:
            self.rollback()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
