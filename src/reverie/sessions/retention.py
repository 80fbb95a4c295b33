"""Retention of automation run sessions (``cron.sessionRetention``, reference §22; default 24 h).

Every run of an agent-turn automation (``cron:<job id>``) and every heartbeat review starts a
session of its own; without retention they pile up for ever. A run session is *expired* when it
ended (the run finished) longer ago than the retention; one never ended (its run was killed) only
once it has also been quiet longer than the scheduler's watchdog, after which the scheduler has
declared that run lost. A session still running is never touched, nor any session that is not a
run session: only sessions the runtime started as ``origin`` cron or heartbeat *and* recorded as
that kind qualify, so an interactive conversation (even one typed into a ``cron:`` key) never does.

What an expired run session loses is its transcript: its events and their search rows. What memory
the run wrote stays where it is, with its provenance (docs/trust.md): the daily-note lines of its
``memory_append`` calls, entries promoted from it, intents it created. So that ``reverie forget
--session`` (by id, key or participant) can still reach them, the session row and its participants
are kept, emptied (0 events), while any of these names the session; otherwise the row goes too.
"""

from __future__ import annotations

from dataclasses import dataclass

from .store import TranscriptStore, delete_transcripts, now_ms

RUN_ORIGINS = ("cron", "heartbeat")  # sessions the scheduler's runs start (cron_turns, the heartbeat)
BATCH = 500  # sessions per transaction: the write lock is never held for long
# where something in memory names the session it came from (forget --session follows these)
REFERENCES = (("memory_daily_segments", "session_id"), ("memory_entry_origins", "session_id"),
              ("standing_intents", "source_session_id"))


@dataclass
class Pruned:
    sessions: int = 0  # run sessions whose transcript was deleted
    rows_kept: int = 0  # of them, rows kept (emptied) because memory names them
    events: int = 0
    search_rows: int = 0

    def as_dict(self) -> dict:
        return {"sessions": self.sessions, "rowsKept": self.rows_kept, "events": self.events,
                "searchRows": self.search_rows}


def prune_run_sessions(store: TranscriptStore, retention_ms: int | None, *, quiet_ms: int,
                       now: int | None = None) -> Pruned:
    """Delete the transcripts of the run sessions expired at ``now`` (epoch ms, the clock the
    sessions were stamped with); ``retention_ms`` None keeps them all. ``quiet_ms``: how long a
    run session never ended must have been quiet (the scheduler's watchdog)."""
    out = Pruned()
    if retention_ms is None:
        return out
    now = now_ms() if now is None else now
    ended_before = now - retention_ms
    open_before = min(ended_before, now - quiet_ms)
    while True:
        with store.writing() as conn:  # chosen and deleted in one transaction: a run cannot slip in
            ids = _expired(conn, ended_before, open_before)
            if not ids:
                break
            keep = _named_by_memory(conn, ids)
            events, rows = delete_transcripts(conn, ids, drop_rows=[s for s in ids if s not in keep])
        store.drop_cached(ids)
        out.sessions += len(ids)
        out.rows_kept += len(keep)
        out.events += events
        out.search_rows += rows
    return out


def _expired(conn, ended_before: int, open_before: int) -> list[str]:
    marks = ",".join("?" * len(RUN_ORIGINS))
    return [r[0] for r in conn.execute(
        f"SELECT session_id FROM sessions WHERE origin IN ({marks}) AND session_kind IN ({marks}) "
        "AND event_count > 0 AND ((ended_at IS NOT NULL AND ended_at <= ?) OR (ended_at IS NULL "
        "AND coalesce(last_interaction_at, started_at) <= ? AND started_at <= ?)) ORDER BY started_at LIMIT ?",
        (*RUN_ORIGINS, *RUN_ORIGINS, ended_before, open_before, open_before, BATCH)).fetchall()]


def _named_by_memory(conn, ids: list[str]) -> set[str]:
    """The sessions some memory record names as its source."""
    marks = ",".join("?" * len(ids))
    named: set[str] = set()
    for table, column in REFERENCES:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone():
            named.update(r[0] for r in conn.execute(
                f"SELECT DISTINCT {column} FROM {table} WHERE {column} IN ({marks})", tuple(ids)).fetchall())
    return named


def prune_after_run(store: TranscriptStore, settings) -> int:
    """After a run (a cron turn, the heartbeat review): delete the transcripts of the agent's run
    sessions older than ``cron.sessionRetention``; how many. Never fails the run that called it."""
    import logging

    from ..automation.scheduler import STALE_CLAIM_MS  # a run claimed this recently may still be writing

    try:
        return prune_run_sessions(store, settings.cron.session_retention_ms, quiet_ms=STALE_CLAIM_MS).sessions
    except Exception as exc:  # housekeeping: the run's own result stands
        logging.getLogger("reverie.automation").warning("pruning run sessions failed: %s", exc)
        return 0
