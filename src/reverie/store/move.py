"""Moving an agent's database rows from one engine to the other (``reverie db migrate --to``).

What moves is what the files cannot give back: transcripts and sessions, standing intents and
their fires, daily-note provenance, forget tombstones and lineage, recall and Dreaming signals,
the table write log and the embedding cache (so nothing is embedded again). The search index is
derived from the workspace files and is rebuilt where it lives; the session search rows are made
again from the moved events, in the events' own transaction.

How it stays safe:

* The source is read inside one write transaction (SQLite ``BEGIN IMMEDIATE``; on PostgreSQL the
  agent's write lock): one consistent picture, and no process of this agent writes meanwhile.
* Each table is copied in one transaction of the target, parents before children. A table whose
  rows and hash already equal the source's is skipped, so a run that was killed resumes where it
  stopped; a table copied again first empties its children, which are then copied again too.
* At the end every table's row count and content hash are compared, source against target.
* A target that already holds rows of this agent is refused unless it is one this command began
  filling (a marker file beside the agent's folder) or ``replace`` is given.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from .connection import transaction
from .engine import AgentDatabase, engine_of

# every agent table but the derived session search rows, parents before children
TABLES = (
    "sessions", "transcript_events", "session_participants",
    "standing_intents", "standing_intent_fires",
    "memory_daily_provenance", "memory_daily_segments", "trust_meta",
    "memory_forget_tombstones", "memory_entry_origins",
    "memory_recall_signals", "memory_phase_signals", "memory_dream_ingestion", "memory_dream_state",
    "memory_embedding_cache", "table_writes",
)
# foreign keys point from these tables to their parent: emptying a parent empties them first
CHILDREN = {"sessions": ("session_participants", "transcript_events"),
            "standing_intents": ("standing_intent_fires",),
            "memory_daily_provenance": ("memory_daily_segments",)}
BATCH = 1000


@dataclass
class TableReport:
    table: str
    rows: int
    digest: str
    copied: bool = False

    def as_dict(self) -> dict:
        return {"table": self.table, "rows": self.rows, "sha256": self.digest[:16], "copied": self.copied}


@dataclass
class MoveReport:
    source: str
    target: str
    tables: list[TableReport] = field(default_factory=list)
    search_rows: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"source": self.source, "target": self.target, "verified": True,
                "rows": sum(t.rows for t in self.tables), "copiedTables": sum(t.copied for t in self.tables),
                "searchRows": self.search_rows, "seconds": round(self.seconds, 2),
                "tables": [t.as_dict() for t in self.tables]}


# -- reading -------------------------------------------------------------------------------------
def _exists(conn, table: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None


def pg_columns(conn, table: str) -> list[str]:
    """The columns reverie writes (not the agent key, not the generated token arrays)."""
    return [r[0] for r in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = ? AND column_name <> 'agent_id' AND is_generated = 'NEVER' ORDER BY ordinal_position",
        (table,))]


def _sqlite_columns(conn, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")} | {"rowid"}


def _value(v) -> object:
    """One value as both engines agree to read it: numbers by value (SQLite may hold 0 where
    PostgreSQL holds 0.0), bytes as hex."""
    if isinstance(v, memoryview):
        v = bytes(v)
    if isinstance(v, bytes):
        return "x" + v.hex()
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    return v


def rows_of(conn, table: str, columns: list[str]) -> list[tuple]:
    if engine_of(conn) != "postgres" and not _exists(conn, table):
        return []
    return [tuple(r) for r in conn.execute(f"SELECT {', '.join(columns)} FROM {table}")]


def digest(rows: list[tuple]) -> str:
    h = hashlib.sha256()
    for line in sorted(json.dumps([_value(v) for v in r], ensure_ascii=False) for r in rows):
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()


# -- writing -------------------------------------------------------------------------------------
def _empty(conn, table: str) -> None:
    for child in CHILDREN.get(table, ()):
        _empty(conn, child)
    if engine_of(conn) == "postgres" or _exists(conn, table):
        if table == "transcript_events":
            from ..sessions import search_rows

            search_rows.clear(conn)
        conn.execute(f"DELETE FROM {table}")


def _insert(conn, table: str, columns: list[str], rows: list[tuple]) -> None:
    sql = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    for i in range(0, len(rows), BATCH):
        conn.executemany(sql, rows[i:i + BATCH])


def _advance_identities(conn, table: str) -> None:
    """Explicit ids leave PostgreSQL's identity sequence behind: move it past the largest id (it
    is shared by all agents, so it only ever moves up)."""
    for (col,) in conn.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = "
                               "current_schema() AND table_name = ? AND is_identity = 'YES'", (table,)).fetchall():
        seq = conn.execute("SELECT pg_get_serial_sequence(?, ?)", (f"{conn_schema(conn)}.{table}", col)).fetchone()[0]
        top = conn.execute(f"SELECT max({col}) FROM {table}").fetchone()[0]
        if seq and top is not None:
            conn.execute(f"SELECT setval(?::regclass, greatest(?, (SELECT last_value FROM {seq})))", (seq, top))


def conn_schema(conn) -> str:
    return conn.execute("SELECT current_schema()").fetchone()[0]


def _prepare_target(conn) -> None:
    """SQLite builds its tables per component on first use: make them all now."""
    if engine_of(conn) == "postgres":
        return
    from ..repair import agent_migrations

    for m in agent_migrations():
        m.apply(conn)


def _holds_rows(conn) -> bool:
    return any(conn.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() is not None
               for t in TABLES if engine_of(conn) == "postgres" or _exists(conn, t))


# -- the move ------------------------------------------------------------------------------------
def move(source: AgentDatabase, target: AgentDatabase, marker: Path, *, replace: bool = False,
         progress=None) -> MoveReport:
    """Copy the agent's rows from ``source`` to ``target`` and verify them (see the module text)."""
    if source.engine == target.engine and source.label == target.label:
        raise UserError("source and target are the same database")
    if source.engine == "sqlite" and not source.exists():
        raise UserError(f"nothing to move: {source.label} does not exist")
    t0 = time.perf_counter()
    report = MoveReport(source.label, target.label)
    src, dst = source.connect(), target.connect()
    try:
        had_rows = _holds_rows(dst)  # before SQLite's first migrations record their install time
        _prepare_target(dst)
        pg = src if engine_of(src) == "postgres" else dst
        with transaction(src):  # one picture of the source; this agent's writers wait
            columns = {t: pg_columns(pg, t) for t in TABLES}
            if engine_of(src) == "sqlite":
                _check_columns(src, columns)
            wanted = {t: rows_of(src, t, columns[t]) for t in TABLES}
            sums = {t: digest(rows) for t, rows in wanted.items()}
            differ = [t for t in TABLES if not _equal(dst, t, columns[t], wanted[t], sums[t])]
            if differ and had_rows and not replace and not _marked(marker, target):
                raise UserError(f"{target.label} already holds other rows of this agent; pass --replace to "
                                "overwrite them with the source's")
            if differ:
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text(json.dumps({"target": target.label, "started": time.time()}) + "\n")
            copied: set[str] = set()
            for i, table in enumerate(TABLES):
                entry = TableReport(table, len(wanted[table]), sums[table])
                # a parent copied again has emptied its children: they are copied again too
                if table in differ or any(table in CHILDREN.get(p, ()) for p in copied):
                    copied.add(table)
                    _copy(dst, table, columns[table], wanted[table], report)
                    entry.copied = True
                report.tables.append(entry)
                if progress:
                    progress(table, i + 1, len(TABLES))
            _verify(dst, columns, wanted, sums)
        marker.unlink(missing_ok=True)
    finally:
        src.close()
        dst.close()
    report.seconds = time.perf_counter() - t0
    return report


def _equal(dst, table: str, columns: list[str], rows: list[tuple], digest_: str) -> bool:
    have = rows_of(dst, table, columns)
    return len(have) == len(rows) and digest(have) == digest_


def _copy(dst, table: str, columns: list[str], rows: list[tuple], report: MoveReport) -> None:
    with transaction(dst):
        _empty(dst, table)
        _insert(dst, table, columns, rows)
        if table == "transcript_events":  # the search rows, made from the events they index
            from ..sessions.store import rebuild_search_index

            report.search_rows = rebuild_search_index(dst)
        if engine_of(dst) == "postgres":
            _advance_identities(dst, table)


def _marked(marker: Path, target: AgentDatabase) -> bool:
    try:
        return json.loads(marker.read_text()).get("target") == target.label
    except (OSError, ValueError):
        return False


def _check_columns(conn, columns: dict[str, list[str]]) -> None:
    """Every SQLite column must have its place on PostgreSQL: nothing may be left behind."""
    for table, cols in columns.items():
        if not _exists(conn, table):
            continue
        extra = _sqlite_columns(conn, table) - set(cols) - {"rowid"}
        if extra:
            raise UserError(f"{table} has columns PostgreSQL's schema lacks ({', '.join(sorted(extra))}); "
                            "upgrade reverie where the shared database is managed, then migrate")


def _verify(dst, columns, wanted, sums) -> None:
    for table in TABLES:
        if not _equal(dst, table, columns[table], wanted[table], sums[table]):
            raise UserError(f"verification failed for {table}: the target's rows differ from the source's; "
                            "nothing was switched, run the migration again")
