"""Dreaming's durable state in the agent database, beside the short-term store it reads
(:mod:`reverie.search.signals`, table ``memory_recall_signals``):

* ``memory_phase_signals`` -- per entry key: light and REM hits and when they last happened
  (reference §15.2), which give the deep ranking its phase boost;
* ``memory_dream_ingestion`` -- what daily notes and transcripts were already ingested (per note,
  the claim hashes of its entries; per session, the hashes of its messages), so a sweep never
  counts the same words twice;
* ``memory_dream_state`` -- small named values (the last sweep, the last heartbeat review).

Phases work on a :class:`StoreView` (everything loaded once) and write back *deltas* in one
transaction per phase (``daily_count = daily_count + 1``, never a snapshot), so recalls recorded
by searches while a sweep runs are never lost. A dry run computes the same deltas and drops them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import apsw

from ..search import signals as sig
from ..store import Migration, Migrations, as_database, connect, transaction

DREAM_MIGRATIONS = Migrations("dreaming", [Migration("0001_dreaming", """
CREATE TABLE memory_phase_signals (
  key TEXT PRIMARY KEY,
  light_hits INTEGER NOT NULL DEFAULT 0,
  rem_hits INTEGER NOT NULL DEFAULT 0,
  last_light_at INTEGER,
  last_rem_at INTEGER,
  last_rem_considered_at INTEGER
) STRICT;
CREATE TABLE memory_dream_ingestion (
  scope TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  fingerprint TEXT NOT NULL DEFAULT '',
  seen TEXT NOT NULL DEFAULT '[]',
  updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE memory_dream_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
""")])

MAX_SEEN_PER_SCOPE = 4096
GROUNDED_SCORE = 0.62  # what a grounded (backfill) signal adds to an entry's total score
MAX_SCOPES = 2048


@dataclass
class ShortTermEntry:
    key: str
    path: str
    start_line: int
    end_line: int
    snippet: str
    recall_count: int = 0
    daily_count: int = 0
    grounded_count: int = 0
    total_score: float = 0.0
    max_score: float = 0.0
    first_recalled_at: int = 0
    last_recalled_at: int = 0
    query_hashes: list[str] = field(default_factory=list)
    recall_days: list[str] = field(default_factory=list)
    concept_tags: list[str] = field(default_factory=list)
    claim_hash: str | None = None
    promoted_at: int | None = None
    provenance: dict | None = None
    recall_contexts: list[str] = field(default_factory=list)  # conversations whose tool calls recalled it

    @property
    def signals(self) -> int:
        return self.recall_count + self.daily_count + self.grounded_count

    @property
    def source(self) -> str:
        return "sessions" if (self.provenance or {}).get("source") == "sessions" else "memory"

    def as_dict(self) -> dict:
        return {"key": self.key, "path": self.path, "startLine": self.start_line, "endLine": self.end_line,
                "snippet": self.snippet, "recallCount": self.recall_count, "dailyCount": self.daily_count,
                "groundedCount": self.grounded_count, "totalScore": round(self.total_score, 6),
                "maxScore": round(self.max_score, 6), "firstRecalledAt": self.first_recalled_at,
                "lastRecalledAt": self.last_recalled_at, "queryHashes": self.query_hashes,
                "recallDays": self.recall_days, "conceptTags": self.concept_tags, "claimHash": self.claim_hash,
                "promotedAt": self.promoted_at, "provenance": self.provenance,
                "recallContexts": len(self.recall_contexts)}


@dataclass
class PhaseSignal:
    key: str
    light_hits: int = 0
    rem_hits: int = 0
    last_light_at: int | None = None
    last_rem_at: int | None = None
    last_rem_considered_at: int | None = None


_COLS = ("key, path, start_line, end_line, snippet, recall_count, daily_count, grounded_count, total_score, "
         "max_score, first_recalled_at, last_recalled_at, query_hashes, recall_days, concept_tags, claim_hash, "
         "promoted_at, provenance")


def _entry(row) -> ShortTermEntry:
    (key, path, a, b, snippet, rc, dc, gc, total, mx, first, last, qh, days, tags, claim, promoted, prov,
     *rest) = row
    return ShortTermEntry(key, path, a, b, snippet, rc, dc, gc, total, mx, first, last, json.loads(qh or "[]"),
                          json.loads(days or "[]"), json.loads(tags or "[]"), claim, promoted,
                          json.loads(prov) if prov else None, json.loads(rest[0] or "[]") if rest else [])


def open_db(db_path: Path) -> apsw.Connection:
    conn = connect(db_path)
    sig.SIGNAL_MIGRATIONS.apply(conn)
    DREAM_MIGRATIONS.apply(conn)
    return conn


def open_readonly(db_path: Path) -> apsw.Connection | None:
    """For dry runs and status: nothing is created when the database or tables are missing."""
    if not as_database(db_path).exists():
        return None
    return connect(db_path, readonly=True)


def _has(conn, table: str) -> bool:
    return conn is not None and conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                                             (table,)).fetchone() is not None


@dataclass
class StoreView:
    entries: dict[str, ShortTermEntry] = field(default_factory=dict)
    phases: dict[str, PhaseSignal] = field(default_factory=dict)
    ingestion: dict[str, tuple[str, str, list[str]]] = field(default_factory=dict)  # scope -> (kind, fp, seen)
    state: dict[str, object] = field(default_factory=dict)

    def phase(self, key: str) -> PhaseSignal:
        return self.phases.get(key) or PhaseSignal(key)


def load(conn: apsw.Connection | None) -> StoreView:
    view = StoreView()
    if conn is None:
        return view
    if _has(conn, sig.TABLE):
        cols = {r[1] for r in conn.execute(f"PRAGMA table_info({sig.TABLE})")}
        if "daily_count" in cols:
            extra = ", recall_contexts" if "recall_contexts" in cols else ""
            for row in conn.execute(f"SELECT {_COLS}{extra} FROM {sig.TABLE}"):
                e = _entry(row)
                view.entries[e.key] = e
        else:  # a store from before Dreaming (read-only look: no migration)
            for row in conn.execute(f"SELECT key, path, start_line, end_line, snippet, recall_count, total_score, "
                                    f"max_score, first_recalled_at, last_recalled_at, query_hashes, recall_days "
                                    f"FROM {sig.TABLE}"):
                key, path, a, b, snippet, rc, total, mx, first, last, qh, days = row
                view.entries[key] = ShortTermEntry(key, path, a, b, snippet, rc, 0, 0, total, mx, first, last,
                                                   json.loads(qh), json.loads(days))
    if _has(conn, "memory_phase_signals"):
        for row in conn.execute("SELECT key, light_hits, rem_hits, last_light_at, last_rem_at, "
                                "last_rem_considered_at FROM memory_phase_signals"):
            view.phases[row[0]] = PhaseSignal(*row)
    if _has(conn, "memory_dream_ingestion"):
        for scope, kind, fp, seen in conn.execute("SELECT scope, kind, fingerprint, seen FROM memory_dream_ingestion"):
            view.ingestion[scope] = (kind, fp, json.loads(seen))
    if _has(conn, "memory_dream_state"):
        for key, value in conn.execute("SELECT key, value FROM memory_dream_state"):
            view.state[key] = json.loads(value)
    return view


# -- deltas ----------------------------------------------------------------------------------------------
@dataclass
class Deltas:
    """What a phase changes, applied in one transaction (or dropped by a dry run)."""

    signals: list[tuple[sig.Recall, dict]] = field(default_factory=list)  # (entry, upsert kwargs)
    light: list[str] = field(default_factory=list)
    rem: list[str] = field(default_factory=list)
    rem_considered: list[str] = field(default_factory=list)
    ingestion: dict[str, tuple[str, str, list[str]]] = field(default_factory=dict)
    promoted: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # grounded-only entries a rollback takes away
    grounded_rollback: list[str] = field(default_factory=list)
    state: dict[str, object] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return any((self.signals, self.light, self.rem, self.rem_considered, self.ingestion, self.promoted,
                    self.removed, self.grounded_rollback, self.state))


def apply(conn: apsw.Connection, d: Deltas, at: int) -> None:
    with transaction(conn):
        for rec, kw in d.signals:
            sig.upsert_recall(conn, rec, kw.get("qh"), kw.get("day"), kw.get("at", at), count=kw.get("count", 0),
                              daily=kw.get("daily", 0), grounded=kw.get("grounded", 0),
                              provenance=kw.get("provenance"), key=kw.get("key"))
        for key in d.light:
            conn.execute("INSERT INTO memory_phase_signals(key, light_hits, last_light_at) VALUES (?,1,?) "
                         "ON CONFLICT(key) DO UPDATE SET light_hits = memory_phase_signals.light_hits + 1, "
                         "last_light_at = excluded.last_light_at", (key, at))
        for key in d.rem:
            conn.execute("INSERT INTO memory_phase_signals(key, rem_hits, last_rem_at) VALUES (?,1,?) "
                         "ON CONFLICT(key) DO UPDATE SET rem_hits = memory_phase_signals.rem_hits + 1, last_rem_at = excluded.last_rem_at",
                         (key, at))
        for key in d.rem_considered:
            conn.execute("INSERT INTO memory_phase_signals(key, last_rem_considered_at) VALUES (?,?) "
                         "ON CONFLICT(key) DO UPDATE SET last_rem_considered_at = excluded.last_rem_considered_at",
                         (key, at))
        for scope, (kind, fp, seen) in d.ingestion.items():
            conn.execute("INSERT INTO memory_dream_ingestion(scope, kind, fingerprint, seen, updated_at) "
                         "VALUES (?,?,?,?,?) ON CONFLICT(scope) DO UPDATE SET fingerprint = excluded.fingerprint, "
                         "seen = excluded.seen, updated_at = excluded.updated_at",
                         (scope, kind, fp, json.dumps(seen[-MAX_SEEN_PER_SCOPE:]), at))
        n = conn.execute("SELECT count(*) FROM memory_dream_ingestion").fetchone()[0]
        if n > MAX_SCOPES:
            conn.execute("DELETE FROM memory_dream_ingestion WHERE scope IN (SELECT scope FROM memory_dream_ingestion "
                         "ORDER BY updated_at LIMIT ?)", (n - MAX_SCOPES,))
        for key in d.promoted:
            conn.execute(f"UPDATE {sig.TABLE} SET promoted_at = ? WHERE key = ? AND promoted_at IS NULL", (at, key))
        for key in d.grounded_rollback:
            conn.execute(f"UPDATE {sig.TABLE} SET grounded_count = 0, "
                         f"total_score = max(0, total_score - {GROUNDED_SCORE} * grounded_count) WHERE key = ?", (key,))
        for key in d.removed:
            conn.execute(f"DELETE FROM {sig.TABLE} WHERE key = ?", (key,))
            conn.execute("DELETE FROM memory_phase_signals WHERE key = ?", (key,))
        for key, value in d.state.items():
            conn.execute("INSERT INTO memory_dream_state(key, value, updated_at) VALUES (?,?,?) ON CONFLICT(key) "
                         "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                         (key, json.dumps(value, ensure_ascii=False), at))
        sig.enforce_cap(conn)
        conn.execute("DELETE FROM memory_phase_signals WHERE key NOT IN (SELECT key FROM memory_recall_signals)")
