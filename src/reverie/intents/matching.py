"""Matching one user turn against the standing intents, with no model call (reference §11.4).

1. The FTS prefilter finds armed, unexpired intents with budget left, in scope for this turn, whose
   keywords share a word with the message (paged 32 at a time, at most 256 candidates, oldest first).
2. The exact recheck keeps those that can fire (armed, unexpired, budget left, cooldown elapsed, a
   known creator), whose scopes hold, and with at least one keyword entry all of whose words occur
   in the message.
3. Each kept intent is fired (fire_count + 1, last_fired_at, ``fired`` or ``done``) only while the
   block still fits: at most 3 intents and 1,200 characters.

All of it, with the lifecycle maintenance first, runs in ONE ``BEGIN IMMEDIATE`` transaction, so two
matchers of the same turn serialise and the second finds the intent already fired. Matching fails
open: on any error, or when the deadline passes before the commit, the transaction is rolled back:
nothing is injected and no fire is spent.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import apsw

from ..store import engine_of, transaction
from ..store.connection import BUSY_TIMEOUT_MS
from ..text.cjk import LazyPattern
from .model import (COLUMNS, MAX_CANDIDATES, MAX_INJECTED, MAX_INJECTED_CHARS, PAGE_SIZE, IntentRow, TurnContext,
                    now_ms)
from .store import maintain
from .words import Message, normalize, prefilter_query, prefilter_terms, split_words

if TYPE_CHECKING:  # pragma: no cover
    from .store import IntentStore

log = logging.getLogger("reverie.intents")

OPEN_TAG = "<standing_intents>"
CLOSE_TAG = "</standing_intents>"
_TAG_RE = LazyPattern(r"<\s*/?\s*standing_intents\s*>", re.IGNORECASE)


class DeadlineExceeded(Exception):
    pass


class _DryRun(Exception):
    """Raised inside the matching transaction to roll back what a dry run would have fired."""


@dataclass
class MatchResult:
    """What one turn's matching produced. ``block`` is empty when nothing is to be injected."""

    block: str = ""
    fired: list[dict] = field(default_factory=list)
    candidates: int = 0
    skipped: str | None = None  # why the turn was not matched at all (ineligible, empty)
    error: str | None = None  # set when matching failed open
    ms: float = 0.0

    def as_dict(self) -> dict:
        return {"block": self.block, "fired": self.fired, "candidates": self.candidates,
                "skipped": self.skipped, "error": self.error, "ms": round(self.ms, 3)}


def render_line(row: IntentRow, tz) -> str:
    created = datetime.fromtimestamp(row.created_at / 1000, timezone.utc).astimezone(tz).date().isoformat()
    text = " ".join(_TAG_RE.sub("", row.description).split())  # one line; cannot close the frame
    return f"Standing intent (created {created}): {text}"


def render_block(lines: list[str]) -> str:
    return "\n".join([OPEN_TAG, *lines, CLOSE_TAG]) if lines else ""


def _trigger_hit(row: IntentRow, message: Message) -> bool:
    return any(message.contains(split_words(normalize(kw))) for kw in row.keywords)


def match_turn(store: "IntentStore", message: str, ctx: TurnContext | None, *, now: datetime | None = None,
               deadline_seconds: float = 15.0, dry_run: bool = False) -> MatchResult:
    """``dry_run``: everything runs as for a real turn, then the transaction is rolled back, so
    the result says what would fire and no fire is spent (``reverie intent check``)."""
    started = time.monotonic()
    result = MatchResult()
    try:
        _match(store, message, ctx, now, started + deadline_seconds, result, dry_run)
    except Exception as exc:  # fail open: the reply must never wait on, or break over, an intent
        late = isinstance(exc, (DeadlineExceeded, apsw.InterruptError)) or time.monotonic() >= started + deadline_seconds
        reason = f"deadline of {deadline_seconds:g} s exceeded" if late else f"{type(exc).__name__}: {exc}"
        log.warning("reverie: standing intent matching failed: %s", reason)
        result = MatchResult(error=reason)
    result.ms = (time.monotonic() - started) * 1000
    return result


def _match(store: "IntentStore", message: str, ctx: TurnContext | None, now: datetime | None,
           deadline_at: float, result: MatchResult, dry_run: bool = False) -> None:
    def check_deadline() -> None:
        if time.monotonic() >= deadline_at:
            raise DeadlineExceeded()

    check_deadline()
    if not isinstance(message, str):
        raise TypeError(f"message must be a string, not {type(message).__name__}")
    if ctx is None or ctx.provider is None:
        result.skipped = "ineligible turn: no channel"
        return
    msg = Message.of(message)
    query = prefilter_query(msg)
    t = now_ms(now)
    channel_keys = [k for k in (ctx.channel_key(), ctx.conversation_key()) if k]
    sender_key = ctx.sender_key()
    with store._lock:
        conn = store.conn()
        remaining_ms = int((deadline_at - time.monotonic()) * 1000)
        # Waiting for another writer counts against the deadline too.
        conn.setbusytimeout(max(1, min(BUSY_TIMEOUT_MS, remaining_ms)))
        guard = {"on": True}  # off before COMMIT or ROLLBACK: those must never be interrupted
        conn.set_progress_handler(lambda: guard["on"] and time.monotonic() >= deadline_at, 1000)
        lines: list[str] = []
        try:
            with transaction(conn):
                try:
                    maintain(conn, t)
                    if query is not None:
                        _fire(conn, store, query, msg, ctx, t, channel_keys, sender_key, lines, result,
                              check_deadline)
                    check_deadline()  # the last moment: past it, roll back rather than inject late
                finally:
                    guard["on"] = False
                if dry_run:
                    raise _DryRun()
        except _DryRun:
            # nothing was spent: each intent is as it was, and says what a real turn would make it
            for f in result.fired:
                f["wouldBecome"] = {"fireCount": f["fireCount"], "status": f["status"]}
                f["fireCount"] -= 1
                f["status"] = "armed"
        finally:
            conn.set_progress_handler(None)
            conn.setbusytimeout(BUSY_TIMEOUT_MS)
    result.block = render_block(lines)


def _prefilter(conn, msg) -> tuple[str, tuple]:
    """The FROM and keyword condition finding candidate intents, and its parameters, per engine."""
    if engine_of(conn) == "postgres":
        words, solo = prefilter_terms(msg)
        return "FROM standing_intents s WHERE (s.words && ?::text[] OR s.solo && ?::text[]) ", (words, solo)
    # CROSS JOIN keeps the FTS as the outer loop: one full-text query per page, then rowid
    # lookups. Left to itself the planner walks every armed intent and runs MATCH for each.
    return ("FROM standing_intents_fts f CROSS JOIN standing_intents s ON s.intent_key = f.rowid "
            "WHERE standing_intents_fts MATCH ? ", (prefilter_query(msg),))


def _fire(conn, store, query, msg, ctx, t, channel_keys, sender_key, lines, result, check_deadline) -> None:
    placeholders = ",".join("?" * len(channel_keys)) or "NULL"
    source, keyword = _prefilter(conn, msg)
    sql = (f"SELECT {', '.join('s.' + c.strip() for c in COLUMNS.split(','))} " + source +
           "AND s.status = 'armed' AND s.creator_sender IS NOT NULL "
           "AND s.expires_at > ? AND s.fire_count < s.max_fires "
           f"AND (s.channel_scope IS NULL OR s.channel_scope IN ({placeholders})) "
           "AND (s.sender_scope IS NULL OR s.sender_scope = ?) "
           "AND (s.created_at, s.id) > (?, ?) ORDER BY s.created_at, s.id LIMIT ?")
    after: tuple = (-1, "")
    seen = 0
    while seen < MAX_CANDIDATES and len(result.fired) < MAX_INJECTED:
        rows = conn.execute(sql, (*keyword, t, *channel_keys, sender_key, *after,
                                  min(PAGE_SIZE, MAX_CANDIDATES - seen))).fetchall()
        if not rows:
            break
        for raw in rows:
            row = IntentRow.from_row(raw)
            after = (row.created_at, row.id)
            seen += 1
            check_deadline()
            # the exact recheck: never trust the prefilter alone
            if not row.can_fire(t):
                continue
            if row.channel_scope is not None and row.channel_scope not in channel_keys:
                continue
            if row.sender_scope is not None and row.sender_scope != sender_key:
                continue
            if not _trigger_hit(row, msg):
                continue
            line = render_line(row, store.tz)
            if len(render_block([*lines, line])) > MAX_INJECTED_CHARS:
                continue  # does not fit beside what is already in the block; a later one may
            count = row.fire_count + 1
            status = "done" if count >= row.max_fires else "fired"
            conn.execute("UPDATE standing_intents SET fire_count = ?, last_fired_at = ?, status = ? "
                         "WHERE intent_key = ? AND status = 'armed' AND fire_count = ?",
                         (count, t, status, row.key, row.fire_count))
            if conn.changes() != 1:  # cannot happen inside our write lock; never double-fire anyway
                continue
            conn.execute("INSERT INTO standing_intent_fires(intent_key, fired_at, fire_number, channel, "
                         "conversation, sender, session_id) VALUES (?,?,?,?,?,?,?)",
                         (row.key, t, count, ctx.provider, ctx.conversation, ctx.sender, ctx.session))
            lines.append(line)
            result.fired.append({"id": row.id, "description": row.description, "fireCount": count,
                                 "status": status})
            if len(result.fired) >= MAX_INJECTED:
                break
    result.candidates = seen
