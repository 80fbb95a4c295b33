"""The short-term recall store (reference §15.1-15.2): what searches surfaced from dated daily
notes, counted per entry in the agent database, for Dreaming to promote what keeps proving useful.

One row per entry (``memory_recall_signals``), keyed ``memory:<path>:<start>:<end>``: recall count,
total and best score, when it was first and last recalled, the newest 32 query hashes, the newest
16 recall days, the newest 16 conversations (or MCP connections) whose tool calls recalled it, concept tags, the claim hash of its text; Dreaming adds its daily-ingestion and
grounded counts and marks it promoted. Caps: 512 entries (promoted, then least recently recalled
ones leave first), snippets of 800 characters.

A result is counted for its entries that share the most content words with the query. One that
shares none (a semantic neighbour) counts only as the answer's first result and only when it is a
single entry: a search lists the nearest one-off lines beside the answer, and filler that sits near
many questions must not collect the recalls Dreaming promotes on. A recall is dated by the search's clock (``now``), so tests,
benchmarks and backfills can place recalls on past days.

Recording happens on a background thread with its own connection and one transaction per search:
it never slows a search down, concurrent processes never lose a count, and its failures are
swallowed (a lost signal costs nothing but a little ranking evidence).
"""

from __future__ import annotations

import hashlib
import json
import queue
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..store import Migration, Migrations, connect, transaction
from ..text.concepts import concept_tags, content_words
from ..workspace.entries import Entry, snippet_of, split_entries

MAX_QUERY_HASHES = 32
MAX_RECALL_DAYS = 16
MAX_ENTRIES = 512
SNIPPET_CHARS = 800
TABLE = "memory_recall_signals"
# Dated notes directly under memory/ (and session notes memory/YYYY-MM-DD-<slug>.md); reports under
# memory/dreaming/ and anything in a sub-folder are not short-term memory.
SHORT_TERM_RE = re.compile(r"^memory/\d{4}-\d{2}-\d{2}(?:-[^/]+)?\.md$")

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
"""), Migration("0002_short_term_store", """
ALTER TABLE memory_recall_signals ADD COLUMN daily_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_recall_signals ADD COLUMN grounded_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_recall_signals ADD COLUMN concept_tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE memory_recall_signals ADD COLUMN claim_hash TEXT;
ALTER TABLE memory_recall_signals ADD COLUMN promoted_at INTEGER;
ALTER TABLE memory_recall_signals ADD COLUMN provenance TEXT;
CREATE INDEX memory_recall_signals_last ON memory_recall_signals(last_recalled_at);
"""), Migration("0003_recall_contexts", """
ALTER TABLE memory_recall_signals ADD COLUMN recall_contexts TEXT NOT NULL DEFAULT '[]';
""")])
MAX_RECALL_CONTEXTS = 16


def query_hash(query: str) -> str:
    return hashlib.sha1(query.strip().lower().encode("utf-8")).hexdigest()[:12]


def claim_hash(snippet: str) -> str:
    """First 12 hex of sha1 of the normalised snippet (case and spacing do not matter)."""
    return hashlib.sha1(" ".join(snippet.lower().split()).encode("utf-8")).hexdigest()[:12]


def signal_key(path: str, start: int, end: int) -> str:
    return f"memory:{path}:{start}:{end}"


def is_short_term(path: str) -> bool:
    return SHORT_TERM_RE.match(path or "") is not None


@dataclass(frozen=True)
class Recall:
    """One entry surfaced by one search."""

    path: str
    start: int
    end: int
    snippet: str
    score: float


def _result_lines(result: dict, workspace: Path | None) -> tuple[int, list[str]] | None:
    """(first line, lines) of what a result surfaced: its snippet when it maps line for line onto
    the cited range, else the cited lines read from the file."""
    snippet = str(result.get("snippet") or "")
    lines = snippet.split("\n")
    for a_key, b_key in (("snippetStartLine", "snippetEndLine"), ("startLine", "endLine")):
        a, b = result.get(a_key), result.get(b_key)
        if isinstance(a, int) and isinstance(b, int) and b - a + 1 == len(lines) and "…" not in lines:
            return a, lines
    if workspace is None:
        return None
    try:
        text = (workspace / result["path"]).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    a, b = int(result.get("startLine") or 1), int(result.get("endLine") or 1)
    return a, text.split("\n")[a - 1:b]


def recalls_of(query: str, result: dict, workspace: Path | None = None, *, lead: bool = False) -> list[Recall]:
    """The entries of one surfaced result that the recall counts for (see the module text).
    ``lead``: the result is the answer's first, which counts even when it shares no word with the
    query (a semantic hit on a single entry)."""
    got = _result_lines(result, workspace)
    score = float(result.get("score") or 0.0)
    if got is None:
        return []
    first, lines = got
    entries = [Entry(e.start + first - 1, e.end + first - 1, e.text, e.heading)
               for e in split_entries("\n".join(lines))]
    if not entries:
        return []
    q = set(content_words(query, matching=True))
    overlap = [len(q & set(content_words(e.text, matching=True))) for e in entries]
    best = max(overlap)
    if best:
        entries = [e for e, n in zip(entries, overlap) if n == best]
    elif not (lead and len(entries) == 1):
        # no word in common: a semantic neighbour. Results are single entries, so a search returns
        # the few nearest one-off lines beside the answer; crediting them would let filler that
        # sits near many questions collect the recalls Dreaming promotes on. Only the first
        # result counts without a shared word; in a result of several entries, which one a
        # semantic hit meant is unknown, and none counts.
        entries = []
    return [Recall(result["path"], e.start, e.end, snippet_of(e.text)[:SNIPPET_CHARS], score)
            for e in entries if snippet_of(e.text)]


def upsert_recall(conn, rec: Recall, qh: str | None, day: str | None, at: int, *, count: int = 1,
                  daily: int = 0, grounded: int = 0, provenance: dict | None = None, key: str | None = None,
                  context: str | None = None) -> str:
    """Add one signal to an entry (creating it). Call inside a transaction. ``qh``/``day`` are
    None for signals that must not count as query or day diversity (daily ingestion, backfill);
    ``context`` is the conversation or connection whose tool call recalled it (None: not a tool's)."""
    key = key or signal_key(rec.path, rec.start, rec.end)
    old = conn.execute(f"SELECT query_hashes, recall_days, recall_contexts FROM {TABLE} WHERE key=?",
                       (key,)).fetchone()
    hashes = json.loads(old[0]) if old else []
    days = json.loads(old[1]) if old else []
    contexts = json.loads(old[2] or "[]") if old else []
    if context is not None and context not in contexts:
        contexts = (contexts + [context])[-MAX_RECALL_CONTEXTS:]
    if qh is not None:
        if qh in hashes:
            hashes.remove(qh)
        hashes = (hashes + [qh])[-MAX_QUERY_HASHES:]
    if day is not None and day not in days:
        days = sorted(days + [day])[-MAX_RECALL_DAYS:]
    snippet = rec.snippet[:SNIPPET_CHARS]
    # the old row's columns are named with the table: PostgreSQL finds a bare name ambiguous
    conn.execute(
        f"INSERT INTO {TABLE}(key, path, start_line, end_line, source, snippet, recall_count, daily_count, "
        "grounded_count, total_score, max_score, first_recalled_at, last_recalled_at, query_hashes, recall_days, "
        "concept_tags, claim_hash, provenance, recall_contexts) VALUES (?,?,?,?,'memory',?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
        f"ON CONFLICT(key) DO UPDATE SET recall_count = {TABLE}.recall_count + excluded.recall_count, "
        f"daily_count = {TABLE}.daily_count + excluded.daily_count, "
        f"grounded_count = {TABLE}.grounded_count + excluded.grounded_count, "
        f"total_score = {TABLE}.total_score + excluded.total_score, max_score = max({TABLE}.max_score, excluded.max_score), "
        f"first_recalled_at = min({TABLE}.first_recalled_at, excluded.first_recalled_at), "
        f"last_recalled_at = max({TABLE}.last_recalled_at, excluded.last_recalled_at), snippet = excluded.snippet, "
        "query_hashes = excluded.query_hashes, recall_days = excluded.recall_days, "
        "concept_tags = excluded.concept_tags, claim_hash = excluded.claim_hash, "
        f"provenance = coalesce(excluded.provenance, {TABLE}.provenance), recall_contexts = excluded.recall_contexts",
        (key, rec.path, rec.start, rec.end, snippet, count, daily, grounded,
         rec.score * (count + daily + grounded), rec.score, at, at, json.dumps(hashes), json.dumps(days),
         json.dumps(concept_tags(snippet, rec.path), ensure_ascii=False), claim_hash(snippet),
         json.dumps(provenance, ensure_ascii=False) if provenance else None, json.dumps(contexts)))
    return key


def enforce_cap(conn, cap: int = MAX_ENTRIES) -> int:
    """Drop entries over the cap: promoted ones first, then the least recently recalled."""
    n = conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]
    if n <= cap:
        return 0
    conn.execute(f"DELETE FROM {TABLE} WHERE key IN (SELECT key FROM {TABLE} ORDER BY promoted_at IS NULL, "
                 "last_recalled_at, key LIMIT ?)", (n - cap,))
    return n - cap


def record(db_path: Path, query: str, results: list[dict], day: str, now: int | None = None,
           workspace: Path | None = None, context: str | None = None) -> int:
    """Count the surfaced daily-note entries of one search. Returns how many were recorded."""
    rows = [r for r in results if r.get("source") == "memory" and is_short_term(r.get("path", ""))]
    if not rows:
        return 0
    at = int(now if now is not None else time.time())
    qh = query_hash(query)
    recalls = [rec for r in rows for rec in recalls_of(query, r, workspace, lead=r is results[0])]
    if not recalls:
        return 0
    conn = connect(db_path)
    try:
        SIGNAL_MIGRATIONS.apply(conn)
        with transaction(conn):  # one writer at a time: no lost counts between processes
            seen: set[str] = set()
            for rec in recalls:
                key = signal_key(rec.path, rec.start, rec.end)
                if key in seen:  # the same entry twice in one answer counts once
                    continue
                seen.add(key)
                upsert_recall(conn, rec, qh, day, at, context=context)
            enforce_cap(conn)
    finally:
        conn.close()
    return len(recalls)


class SignalRecorder:
    """A queue drained by one daemon thread; ``flush`` waits (bounded) for what is queued."""

    def __init__(self, db_path: Path, workspace: Path | None = None):
        self.db_path = db_path
        self.workspace = workspace
        self._q: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.recorded = 0
        self.errors = 0

    def submit(self, query: str, results: list[dict], day: str, at: int | None = None,
               context: str | None = None) -> None:
        if not any(is_short_term(r.get("path", "")) for r in results):
            return
        self._q.put((query, results, day, at, context))
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._drain, name="reverie-signals", daemon=True)
                self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                query, results, day, at, context = self._q.get(timeout=0.5)
            except queue.Empty:
                return
            try:
                self.recorded += record(self.db_path, query, results, day, at, self.workspace, context)
            except Exception:
                self.errors += 1  # never let bookkeeping hurt a search
            finally:
                self._q.task_done()

    def flush(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while self._q.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)


def today(tz, now: datetime | None = None) -> str:
    return (now.astimezone(tz) if now is not None else datetime.now(tz)).strftime("%Y-%m-%d")
