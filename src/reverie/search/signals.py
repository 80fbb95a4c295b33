"""Recall signals: each surfaced result from a dated daily note is counted (reference §15.1-15.2)
in the agent database, for Dreaming to promote what keeps proving useful.

Recording happens on a background thread with its own connection: it never slows a search down
and its failures are swallowed (a lost signal costs nothing but a little ranking evidence).
"""

from __future__ import annotations

import hashlib
import json
import queue
import threading
import time
from datetime import datetime
from pathlib import Path

from ..store import Migration, Migrations, connect, transaction
from .rescore import note_date

MAX_QUERY_HASHES = 32
MAX_RECALL_DAYS = 16
SNIPPET_CHARS = 800

SIGNAL_MIGRATIONS = Migrations("recall_signals", [Migration("0001_signals", """
CREATE TABLE memory_recall_signals (
  key TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  source TEXT NOT NULL DEFAULT 'memory',
  snippet TEXT NOT NULL,
  recall_count INTEGER NOT NULL DEFAULT 0,
  total_score REAL NOT NULL DEFAULT 0,
  max_score REAL NOT NULL DEFAULT 0,
  first_recalled_at INTEGER NOT NULL,
  last_recalled_at INTEGER NOT NULL,
  query_hashes TEXT NOT NULL DEFAULT '[]',
  recall_days TEXT NOT NULL DEFAULT '[]'
) STRICT;
CREATE INDEX memory_recall_signals_path ON memory_recall_signals(path);
""")])


def query_hash(query: str) -> str:
    return hashlib.sha1(query.strip().lower().encode("utf-8")).hexdigest()[:12]


def signal_key(path: str, start: int, end: int) -> str:
    return f"memory:{path}:{start}:{end}"


def record(db_path: Path, query: str, results: list[dict], day: str, now: int | None = None) -> int:
    """Count the surfaced daily-note results of one search. Returns how many were recorded."""
    rows = [r for r in results if r.get("source") == "memory" and note_date(r["path"]) is not None]
    if not rows:
        return 0
    now = now or int(time.time())
    qh = query_hash(query)
    conn = connect(db_path)
    try:
        SIGNAL_MIGRATIONS.apply(conn)
        with transaction(conn):  # one writer at a time: no lost counts between processes
            for r in rows:
                key = signal_key(r["path"], r["startLine"], r["endLine"])
                old = conn.execute("SELECT query_hashes, recall_days FROM memory_recall_signals WHERE key=?",
                                   (key,)).fetchone()
                hashes = json.loads(old[0]) if old else []
                days = json.loads(old[1]) if old else []
                if qh in hashes:
                    hashes.remove(qh)
                hashes = (hashes + [qh])[-MAX_QUERY_HASHES:]
                if day not in days:
                    days = (days + [day])[-MAX_RECALL_DAYS:]
                score = float(r["score"])
                conn.execute(
                    "INSERT INTO memory_recall_signals(key, path, start_line, end_line, source, snippet, recall_count, "
                    "total_score, max_score, first_recalled_at, last_recalled_at, query_hashes, recall_days) "
                    "VALUES (?,?,?,?,?,?,1,?,?,?,?,?,?) ON CONFLICT(key) DO UPDATE SET "
                    "recall_count = recall_count + 1, total_score = total_score + excluded.total_score, "
                    "max_score = max(max_score, excluded.max_score), last_recalled_at = excluded.last_recalled_at, "
                    "snippet = excluded.snippet, query_hashes = excluded.query_hashes, recall_days = excluded.recall_days",
                    (key, r["path"], r["startLine"], r["endLine"], r["source"], r["snippet"][:SNIPPET_CHARS],
                     score, score, now, now, json.dumps(hashes), json.dumps(days)))
    finally:
        conn.close()
    return len(rows)


class SignalRecorder:
    """A queue drained by one daemon thread; ``flush`` waits (bounded) for what is queued."""

    def __init__(self, db_path: Path):
        self.db_path = db_path
        self._q: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.recorded = 0
        self.errors = 0

    def submit(self, query: str, results: list[dict], day: str) -> None:
        if not any(note_date(r["path"]) for r in results):
            return
        self._q.put((query, results, day))
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._drain, name="reverie-signals", daemon=True)
                self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                query, results, day = self._q.get(timeout=0.5)
            except queue.Empty:
                return
            try:
                self.recorded += record(self.db_path, query, results, day)
            except Exception:
                self.errors += 1  # never let bookkeeping hurt a search
            finally:
                self._q.task_done()

    def flush(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while self._q.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)


def today(tz) -> str:
    return datetime.now(tz).strftime("%Y-%m-%d")
