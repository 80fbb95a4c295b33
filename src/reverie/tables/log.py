"""The write log of table files, in the agent database: who changed which file, how, from where.

Every attempt to write is recorded, refused ones included, with its origin class (owner, agent,
untrusted, system: set by the program from the caller, never by the SQL) and its surface (``tool``
for the agent tools, ``cli`` for ``reverie table import``). A row is written as ``started`` before
the table file is touched and settled as ``ok``/``failed`` after, so a crash in between leaves a
visible ``started`` row instead of a silent write. Calls from the chat runtime are also in that
session's transcript (the tool call and its result, which names the origin).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..store import Migration, Migrations, connect, transaction

ORIGINS = ("owner", "agent", "untrusted", "system")
MAX_LOGGED_SQL = 4_000
MAX_LOGGED_PARAMS = 2_000

_CREATE = f"""
CREATE TABLE table_writes (
  seq INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,                          -- epoch ms
  file TEXT NOT NULL,                           -- tables/<file>.sqlite
  origin TEXT NOT NULL CHECK (origin IN ({", ".join(repr(o) for o in ORIGINS)})),
  surface TEXT NOT NULL,                        -- tool | cli
  session_id TEXT,
  sender TEXT,
  statement TEXT NOT NULL,                      -- cut at {MAX_LOGGED_SQL} characters
  params TEXT,                                  -- JSON, cut
  param_sets INTEGER NOT NULL DEFAULT 1,
  status TEXT NOT NULL CHECK (status IN ('started', 'ok', 'failed', 'refused')),
  changes INTEGER,
  error TEXT
) STRICT;
CREATE INDEX table_writes_by_file ON table_writes(file, at);
"""

TABLE_LOG_MIGRATIONS = Migrations("table_writes", [Migration("0001_table_writes", _CREATE)])


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"…[+{len(text) - limit} chars]"


class WriteLog:
    def __init__(self, db_path: Path):
        self.db_path = db_path

    def _conn(self):
        conn = connect(self.db_path)
        TABLE_LOG_MIGRATIONS.apply(conn)
        return conn

    def start(self, *, file: str, origin: str, surface: str, statement: str, params, param_sets: int,
              session: str | None, sender: str | None, status: str = "started", error: str | None = None) -> int:
        blob = None if params is None else _cut(json.dumps(params, ensure_ascii=False, default=repr),
                                                MAX_LOGGED_PARAMS)
        conn = self._conn()
        try:
            with transaction(conn):
                conn.execute(
                    "INSERT INTO table_writes(at, file, origin, surface, session_id, sender, statement, params, "
                    "param_sets, status, error) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (int(time.time() * 1000), file, origin, surface, session, sender,
                     _cut(statement, MAX_LOGGED_SQL), blob, param_sets, status, error))
                return conn.last_insert_rowid()
        finally:
            conn.close()

    def settle(self, seq: int, status: str, *, changes: int | None = None, error: str | None = None) -> None:
        conn = self._conn()
        try:
            with transaction(conn):
                conn.execute("UPDATE table_writes SET status = ?, changes = ?, error = ? WHERE seq = ?",
                             (status, changes, error, seq))
        finally:
            conn.close()

    def entries(self, file: str | None = None, limit: int = 50) -> list[dict]:
        if not self.db_path.exists():
            return []
        conn = self._conn()
        try:
            sql = ("SELECT seq, at, file, origin, surface, session_id, sender, statement, params, param_sets, "
                   "status, changes, error FROM table_writes")
            args: list = []
            if file:
                sql += " WHERE file = ?"
                args.append(file)
            sql += " ORDER BY seq DESC LIMIT ?"
            args.append(limit)
            keys = ("seq", "at", "file", "origin", "surface", "session", "sender", "statement", "params",
                    "paramSets", "status", "changes", "error")
            return [dict(zip(keys, row)) for row in conn.execute(sql, args)]
        finally:
            conn.close()
