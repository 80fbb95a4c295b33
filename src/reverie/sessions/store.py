"""Sessions and their transcripts in the agent database.

Every event is one complete JSON document written in its own transaction the moment it happens
(with its FTS row, for user and assistant text), so a process killed mid-turn loses nothing that
was recorded and leaves no half-written event. Bodies over 4 KiB are stored zlib-compressed.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from typing import Any, Iterable

from ..models.base import ChatMessage, ToolCall
from ..store import as_database, transaction
from ..text.cjk import estimate_tokens
from ..trust.classes import ORIGINS, SESSION_KINDS
from ..trust.recall import RecallPool
from . import search_rows, search_text
from .schema import COMPRESS_OVER, KINDS, open_transcripts_db

MESSAGE_KINDS = ("user", "assistant", "tool_call", "tool_result")
INTERACTION_KINDS = ("user", "assistant", "tool_call", "tool_result", "command")  # system events never extend freshness


def now_ms() -> int:
    return int(time.time() * 1000)


def iso_ms(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- messages <-> JSON ------------------------------------------------------------------------------
def message_to_dict(msg: ChatMessage) -> dict:
    out: dict[str, Any] = {"role": msg.role, "content": msg.content or ""}
    if msg.tool_calls:
        out["toolCalls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in msg.tool_calls]
    if msg.tool_call_id:
        out["toolCallId"] = msg.tool_call_id
    if msg.name:
        out["name"] = msg.name
    return out


def message_from_dict(d: dict) -> ChatMessage:
    calls = [ToolCall(c.get("id") or "", c.get("name") or "", c.get("arguments") or {}) for c in d.get("toolCalls") or []]
    return ChatMessage(role=d.get("role", "user"), content=d.get("content") or "", tool_calls=calls,
                       tool_call_id=d.get("toolCallId"), name=d.get("name"))


def message_tokens(msg: ChatMessage) -> int:
    n = 4 + estimate_tokens(msg.content or "")
    for c in msg.tool_calls:
        n += 4 + estimate_tokens(c.name) + estimate_tokens(json.dumps(c.arguments, ensure_ascii=False))
    return n


@dataclass
class Event:
    seq: int
    session_id: str
    session_key: str
    position: int
    event_id: str
    kind: str
    created_at: int
    data: dict
    bytes: int
    tokens: int
    origin: str | None = None  # origin class recorded by the program (None: recorded before trust)

    @property
    def is_recall(self) -> bool:
        """A recall mark: memory the runtime put into the context (see :meth:`Runtime.inject`)."""
        return self.kind == "system" and self.data.get("event") == "recall"

    @property
    def message(self) -> ChatMessage | None:
        m = self.data.get("message")
        return message_from_dict(m) if self.kind in MESSAGE_KINDS and isinstance(m, dict) else None

    @property
    def text(self) -> str:
        m = self.data.get("message")
        if isinstance(m, dict):
            return m.get("content") or ""
        return self.data.get("text") or ""

    @property
    def timestamp(self) -> str:
        return iso_ms(self.created_at) or ""


@dataclass
class SessionRow:
    session_id: str
    session_key: str
    channel: str
    sender: str | None
    chat_type: str
    origin: str
    model: str | None
    started_at: int
    last_interaction_at: int | None
    ended_at: int | None
    ended_reason: str | None
    compaction_count: int
    memory_flush_at: int | None
    memory_flush_compaction_count: int | None
    total_tokens: int
    total_tokens_fresh: int
    input_tokens: int
    output_tokens: int
    transcript_bytes: int
    event_count: int
    session_kind: str = "unknown"
    hook_source: str | None = None
    low_trust: int = 0
    forgotten_at: int | None = None

    @property
    def flushed_this_cycle(self) -> bool:
        return self.memory_flush_compaction_count is not None and self.memory_flush_compaction_count == self.compaction_count

    def as_dict(self) -> dict:
        return {"sessionId": self.session_id, "sessionKey": self.session_key, "channel": self.channel,
                "sender": self.sender, "chatType": self.chat_type, "origin": self.origin, "model": self.model,
                "startedAt": iso_ms(self.started_at), "lastInteractionAt": iso_ms(self.last_interaction_at),
                "endedAt": iso_ms(self.ended_at), "endedReason": self.ended_reason,
                "compactionCount": self.compaction_count, "memoryFlushAt": iso_ms(self.memory_flush_at),
                "memoryFlushCompactionCount": self.memory_flush_compaction_count,
                "totalTokens": self.total_tokens, "totalTokensFresh": bool(self.total_tokens_fresh),
                "inputTokens": self.input_tokens, "outputTokens": self.output_tokens,
                "transcriptBytes": self.transcript_bytes, "events": self.event_count,
                "sessionKind": self.session_kind, "hookSource": self.hook_source, "lowTrust": bool(self.low_trust),
                "forgottenAt": iso_ms(self.forgotten_at)}


_SESSION_COLS = ", ".join(f.name for f in fields(SessionRow))
_EVENT_COLS = ("seq, session_id, session_key, position, event_id, kind, created_at, encoding, body, bytes, tokens, "
               "origin_class")
_UPDATABLE = {f.name for f in fields(SessionRow)} - {"session_id", "session_key"}


def rebuild_search_index(conn) -> int:
    """Make the transcript search rows again from the events (after a repair that saved events
    whose search rows were damaged, or a move to another engine); returns the rows written. The
    rows are exactly those the original writes made (:mod:`.search_text`). Call inside a
    transaction."""
    search_rows.clear(conn)
    sessions = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM transcript_events").fetchall()]
    return sum(index_session(conn, sid) for sid in sessions)


def index_session(conn, session_id: str) -> int:
    """Write the search rows of one session's events (it has none now); returns how many."""
    rows = conn.execute(
        f"SELECT seq, kind, encoding, body FROM transcript_events WHERE session_id = ? "
        f"AND kind IN ({','.join('?' * len(search_text.READ_KINDS))}) ORDER BY position",
        (session_id, *search_text.READ_KINDS)).fetchall()

    def documents():
        for seq, kind, encoding, body in rows:
            try:
                doc = _decode(encoding, body)
            except Exception:  # an event whose body was damaged: no search row, nothing recalled
                doc = None
            yield seq, kind, doc

    written = 0
    for seq, text, role in search_text.session_rows(documents()):
        search_rows.add(conn, seq, text, session_id, role)
        written += 1
    return written


def delete_transcripts(conn, session_ids: list[str], *, drop_rows: Iterable[str] = ()) -> tuple[int, int]:
    """Delete the events and search rows of these sessions (call inside a transaction). Their
    rows stay, emptied (0 events, 0 bytes), except those in ``drop_rows``: these are deleted
    with their participants. Returns (events, search rows) removed."""
    if not session_ids:
        return 0, 0
    marks = ",".join("?" * len(session_ids))
    fts = search_rows.drop_sessions(conn, session_ids)
    n = conn.execute(f"SELECT count(*) FROM transcript_events WHERE session_id IN ({marks})",
                     tuple(session_ids)).fetchone()[0]
    conn.execute(f"DELETE FROM transcript_events WHERE session_id IN ({marks})", tuple(session_ids))
    conn.execute(f"UPDATE sessions SET event_count = 0, transcript_bytes = 0 WHERE session_id IN ({marks})",
                 tuple(session_ids))
    drop = [sid for sid in dict.fromkeys(drop_rows)]
    if drop:
        gone = ",".join("?" * len(drop))
        conn.execute(f"DELETE FROM session_participants WHERE session_id IN ({gone})", tuple(drop))
        conn.execute(f"DELETE FROM sessions WHERE session_id IN ({gone})", tuple(drop))
    return n, fts


def _decode(encoding: str, body: bytes) -> dict:
    raw = zlib.decompress(body) if encoding == "zlib" else body
    return json.loads(raw)


def _row_to_event(row) -> Event:
    seq, sid, key, pos, eid, kind, created, encoding, body, nbytes, tokens, origin = row
    return Event(seq, sid, key, pos, eid, kind, created, _decode(encoding, body), nbytes, tokens, origin)


class TranscriptStore:
    """Sessions and events of one agent (its database). Safe to share between threads: calls are
    serialised by a lock; a background writer may also open its own store on the same file."""

    def __init__(self, db_path):
        self.db = as_database(db_path)  # a path (SQLite) or an AgentDatabase (the storage seam)
        self.db_path = getattr(self.db, "path", None)
        self._conn = open_transcripts_db(self.db)
        self._lock = threading.RLock()
        # the recall pools of the search rows it writes, shared by the stores of one file in this process
        self._pools = search_text.shared_pools(os.path.realpath(self.db_path) if self.db_path else None)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @property
    def conn(self):
        return self._conn

    @contextmanager
    def writing(self):
        """The connection inside one write transaction, this store's other calls held off (for
        changes that read and write together, such as :mod:`.retention`'s)."""
        with self._lock, transaction(self._conn) as conn:
            yield conn

    @property
    def cache_key(self):
        """What names this store's database for the caches a process keeps of it."""
        return os.path.realpath(self.db_path) if self.db_path else id(self)

    def event_count(self, session_id: str) -> int:
        with self._lock:
            row = self._conn.execute("SELECT event_count FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return int(row[0]) if row else 0

    def drop_cached(self, session_ids: Iterable[str]) -> None:
        """Forget what this process keeps in memory about these sessions (their events changed)."""
        from . import folds

        session_ids = list(session_ids)
        with self._lock:
            self._pools.drop(session_ids)
        folds.drop(self.cache_key, session_ids)

    # -- sessions -------------------------------------------------------------------------------
    def start_session(self, session_key: str, *, chat_type: str = "direct", channel: str = "cli",
                      sender: str | None = None, origin: str = "chat", model: str | None = None,
                      started_at: int | None = None, session_kind: str = "unknown",
                      hook_source: str | None = None) -> SessionRow:
        sid = str(uuid.uuid4())
        with self._lock, transaction(self._conn):
            self._conn.execute(
                "INSERT INTO sessions(session_id, session_key, channel, sender, chat_type, origin, model, started_at, "
                "session_kind, hook_source) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (sid, session_key, channel or "cli", sender, chat_type, origin, model, started_at or now_ms(),
                 session_kind, hook_source))
        row = self.session(sid)
        assert row is not None
        return row

    def session(self, session_id: str) -> SessionRow | None:
        with self._lock:
            row = self._conn.execute(f"SELECT {_SESSION_COLS} FROM sessions WHERE session_id = ?",
                                     (session_id,)).fetchone()
        return SessionRow(*row) if row else None

    def current_session(self, session_key: str) -> SessionRow | None:
        """The open (not ended) session of a key, newest first."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_SESSION_COLS} FROM sessions WHERE session_key = ? AND ended_at IS NULL "
                "ORDER BY started_at DESC, rowid DESC LIMIT 1", (session_key,)).fetchone()
        return SessionRow(*row) if row else None

    def latest_session(self, session_key: str) -> SessionRow | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_SESSION_COLS} FROM sessions WHERE session_key = ? ORDER BY started_at DESC, rowid DESC "
                "LIMIT 1", (session_key,)).fetchone()
        return SessionRow(*row) if row else None

    def sessions(self, session_key: str | None = None, limit: int | None = None) -> list[SessionRow]:
        sql = f"SELECT {_SESSION_COLS} FROM sessions"
        params: list = []
        if session_key:
            sql += " WHERE session_key = ?"
            params.append(session_key)
        sql += " ORDER BY started_at DESC, rowid DESC"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        with self._lock:
            return [SessionRow(*r) for r in self._conn.execute(sql, params)]

    def update_session(self, session_id: str, **values: Any) -> None:
        bad = set(values) - _UPDATABLE
        if bad:
            raise ValueError(f"not updatable: {sorted(bad)}")
        if not values:
            return
        sets = ", ".join(f"{k} = ?" for k in values)
        with self._lock, transaction(self._conn):
            self._conn.execute(f"UPDATE sessions SET {sets} WHERE session_id = ?", (*values.values(), session_id))

    def add_usage(self, session_id: str, input_tokens: int, output_tokens: int, total_tokens: int) -> None:
        with self._lock, transaction(self._conn):
            self._conn.execute(
                "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
                "total_tokens = ?, total_tokens_fresh = 1 WHERE session_id = ?",
                (input_tokens, output_tokens, total_tokens, session_id))

    def end_session(self, session_id: str, reason: str, at: int | None = None) -> None:
        self.update_session(session_id, ended_at=at or now_ms(), ended_reason=reason)

    # -- events ---------------------------------------------------------------------------------
    def append(self, session_id: str, kind: str, payload: dict, *, at: int | None = None,
               origin: str | None = None, event_id: str | None = None) -> Event:
        """Record one event now, in its own transaction (with its search row: an agent message is
        indexed without the memory recalled into the session before it, :mod:`.search_text`).

        ``origin`` is the event's origin class (decided by the runtime)."""
        with self._lock:
            try:
                with transaction(self._conn):
                    return self._insert_event(session_id, kind, payload, at, origin=origin, event_id=event_id)
            except BaseException:
                self._pools.drop([session_id])  # it may hold what was rolled back
                raise

    def restore_session(self, row: dict, events: list[tuple[str, dict, int | None, str | None]]) -> bool:
        """Insert a whole session from an archive or another system, keeping its id: the session
        row (``SessionRow`` field names) and its events as (kind, payload, epoch ms, event id), all in
        one transaction. False, writing nothing, when a session with that id exists already.

        Trust (docs/trust.md): an event keeps the origin class its archive recorded (the owner
        moving their own reverie archive vouches for it, as for the files it carries); an event
        without one stays unclassified, which reads as untrusted. Messages that ``reverie forget``
        removed are left out."""
        cols = [f.name for f in fields(SessionRow) if f.name not in ("event_count", "transcript_bytes")]
        values = {c: row.get(c) for c in cols}
        values.update(channel=values["channel"] or "cli", chat_type=values["chat_type"] or "direct",
                      origin=values["origin"] or "import", started_at=values["started_at"] or now_ms())
        for c in ("compaction_count", "total_tokens", "total_tokens_fresh", "input_tokens", "output_tokens"):
            values[c] = values[c] or 0
        if values["session_kind"] not in SESSION_KINDS:
            values["session_kind"] = "unknown"
        values["low_trust"] = 1 if values["low_trust"] else 0
        values["forgotten_at"] = None
        events = unforgotten(self._conn, events)
        with self._lock, transaction(self._conn):
            if self._conn.execute("SELECT 1 FROM sessions WHERE session_id = ?", (values["session_id"],)).fetchone():
                return False
            self._conn.execute(f"INSERT INTO sessions({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                               [values[c] for c in cols])
            for kind, payload, at, event_id in events:
                origin = payload.get("originClass") if payload.get("originClass") in ORIGINS else None
                payload = {k: v for k, v in payload.items() if k != "originClass"}
                self._insert_event(values["session_id"], kind, payload, at, event_id=event_id,
                                   touch=False, origin=origin)
        return True

    def is_forgotten(self, session_id: str) -> bool:
        """Whether ``reverie forget`` removed this session (a restore must not bring it back)."""
        from ..trust.tombstones import Tombstones

        with self._lock:
            if session_id in Tombstones(self._conn).sessions:
                return True
            row = self._conn.execute("SELECT forgotten_at FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return bool(row and row[0])

    def _insert_event(self, session_id: str, kind: str, payload: dict, at: int | None, *,
                      event_id: str | None = None, touch: bool = True, origin: str | None = None) -> Event:
        """The body of :meth:`append`; the caller holds the lock and a transaction."""
        if kind not in KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        payload = _scrub(payload)  # a lone surrogate (bad stdin byte, odd model output) must not lose the event
        at = at or now_ms()
        event_id = event_id or uuid.uuid4().hex
        row = self._conn.execute("SELECT session_key, event_count FROM sessions WHERE session_id = ?",
                                 (session_id,)).fetchone()
        if row is None:
            raise ValueError(f"no session {session_id!r}")
        key, count = row
        position = count + 1
        doc = {"id": event_id, "type": kind, "sessionId": session_id, "sessionKey": key,
               "position": position, "timestamp": iso_ms(at), **payload}
        if origin is not None:
            doc["originClass"] = origin
        raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
        encoding, body = ("zlib", zlib.compress(raw, 6)) if len(raw) > COMPRESS_OVER else ("json", raw)
        msg = payload.get("message")
        tokens = message_tokens(message_from_dict(msg)) if isinstance(msg, dict) else \
            estimate_tokens(str(payload.get("summary") or payload.get("text") or ""))
        seq = self._conn.execute(
            f"INSERT INTO transcript_events({_EVENT_COLS.replace('seq, ', '')}) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
            "RETURNING seq", (session_id, key, position, event_id, kind, at, encoding, body, len(raw), tokens,
                              origin)).fetchone()[0]
        recalled = None
        if kind in search_text.AGENT_KINDS:
            recalled = self._pools.before(session_id, position, lambda: self._recall_events(session_id, position))
        search = search_text.search_row(kind, doc, recalled)
        self._pools.written(session_id, position, kind, doc)
        if search is not None:
            search_rows.add(self._conn, seq, search[0], session_id, search[1])
        # a restored session keeps its own last_interaction_at
        freshness = ", last_interaction_at = ?" if kind in INTERACTION_KINDS and touch else ""
        params = (len(raw), *((at,) if freshness else ()), session_id)
        self._conn.execute(
            f"UPDATE sessions SET event_count = event_count + 1, transcript_bytes = transcript_bytes + ?{freshness} "
            "WHERE session_id = ?", params)
        return Event(seq, session_id, key, position, event_id, kind, at, doc, len(raw), tokens, origin)

    def append_message(self, session_id: str, kind: str, msg: ChatMessage, *, at: int | None = None,
                       origin: str | None = None, **extra: Any) -> Event:
        return self.append(session_id, kind, {"message": message_to_dict(msg), **extra}, at=at, origin=origin)

    def _recall_events(self, session_id: str, position: int):
        """(kind, document) of the events before ``position`` that can recall memory."""
        for kind, encoding, body in self._conn.execute(
                "SELECT kind, encoding, body FROM transcript_events WHERE session_id = ? AND position < ? "
                "AND kind IN (?, ?) ORDER BY position", (session_id, position, *search_text.POOL_KINDS)).fetchall():
            try:
                yield kind, _decode(encoding, body)
            except Exception:  # a damaged body recalls nothing, as in a rebuild
                continue

    # -- trust ----------------------------------------------------------------------------------
    def add_participant(self, session_id: str, actor: str | None) -> None:
        """Remember that ``actor`` spoke in the session (``forget --participant``)."""
        if not actor:
            return
        with self._lock, transaction(self._conn):
            self._conn.execute("INSERT OR IGNORE INTO session_participants(session_id, actor, first_seen_at) "
                               "VALUES (?,?,?)", (session_id, actor, now_ms()))

    def participants(self, session_id: str) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute(
                "SELECT actor FROM session_participants WHERE session_id = ? ORDER BY first_seen_at", (session_id,))]

    def mark_low_trust(self, session_id: str) -> None:
        self.update_session(session_id, low_trust=1)

    def forget_sessions(self, session_ids: list[str]) -> tuple[int, int]:
        """Delete the events and search rows of sessions (``reverie forget``); the session rows stay,
        marked forgotten and emptied, so the forget can be repeated. Deleted bytes are zeroed on disk
        (``secure_delete``) and the search index merged, so no copy of the text is left in the file.
        Returns (events, search rows) removed."""
        if not session_ids:
            return 0, 0
        ids = list(dict.fromkeys(session_ids))
        marks = ",".join("?" * len(ids))
        with self._lock:
            self.drop_cached(ids)
            self._conn.execute("PRAGMA secure_delete=ON")
            with transaction(self._conn):
                n, fts = delete_transcripts(self._conn, ids)
                now = now_ms()
                self._conn.execute(
                    f"UPDATE sessions SET forgotten_at = ?, "
                    f"ended_at = coalesce(ended_at, ?), ended_reason = coalesce(ended_reason, 'forgotten') "
                    f"WHERE session_id IN ({marks})", (now, now, *ids))
            search_rows.optimize(self._conn)
        return n, fts

    def scrub_events(self, seqs: list[int], scrub) -> int:
        """Rewrite events through ``scrub`` (a function over the event document returning the new
        one, or None to leave it); the search rows of their sessions are made again from the
        rewritten events (what a later rebuild would make). Returns how many changed."""
        changed = 0
        sessions: set[str] = set()
        with self._lock:
            self._conn.execute("PRAGMA secure_delete=ON")
            with transaction(self._conn):
                for seq in seqs:
                    row = self._conn.execute("SELECT session_id, encoding, body FROM transcript_events "
                                             "WHERE seq = ?", (seq,)).fetchone()
                    if row is None:
                        continue
                    session_id, encoding, body = row
                    doc = scrub(_decode(encoding, body))
                    if doc is None:
                        continue
                    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
                    enc, new_body = ("zlib", zlib.compress(raw, 6)) if len(raw) > COMPRESS_OVER else ("json", raw)
                    self._conn.execute("UPDATE transcript_events SET encoding = ?, body = ?, bytes = ? WHERE seq = ?",
                                       (enc, new_body, len(raw), seq))
                    sessions.add(session_id)
                    changed += 1
                for session_id in sorted(sessions):  # a rewritten recall mark changes later rows too
                    self._pools.drop([session_id])
                    search_rows.drop_sessions(self._conn, [session_id])
                    index_session(self._conn, session_id)
            if changed:
                search_rows.optimize(self._conn)
        return changed

    def recall_pool(self, session_id: str):
        """Every text memory put into this session's context (recall marks, and the results of the
        recall tools for transcripts recorded without marks), ready for stripping. Kept between
        calls (:class:`~reverie.sessions.search_text.PoolCache`): read it, do not change it."""
        with self._lock:
            row = self._conn.execute("SELECT event_count FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
            if row is None:
                return RecallPool()
            position = row[0] + 1
            return self._pools.before(session_id, position, lambda: list(self._recall_events(session_id, position)))

    def events(self, session_id: str, *, kinds: Iterable[str] | None = None, from_position: int = 1,
               limit: int | None = None, newest: bool = False) -> list[Event]:
        sql = f"SELECT {_EVENT_COLS} FROM transcript_events WHERE session_id = ? AND position >= ?"
        params: list = [session_id, from_position]
        kinds = list(kinds) if kinds is not None else None
        if kinds is not None:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            params.extend(kinds)
        sql += " ORDER BY position DESC" if newest else " ORDER BY position"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        out = [_row_to_event(r) for r in rows]
        return list(reversed(out)) if newest else out

    def event(self, seq: int) -> Event | None:
        with self._lock:
            row = self._conn.execute(f"SELECT {_EVENT_COLS} FROM transcript_events WHERE seq = ?", (seq,)).fetchone()
        return _row_to_event(row) if row else None

    def count_events(self, session_id: str, kind: str) -> int:
        with self._lock:
            return self._conn.execute("SELECT count(*) FROM transcript_events WHERE session_id = ? AND kind = ?",
                                      (session_id, kind)).fetchone()[0]

    def event_by_id(self, event_id: str) -> Event | None:
        """The event with this id (ids are unique: a caller that names its events finds them
        without reading the session)."""
        with self._lock:
            row = self._conn.execute(f"SELECT {_EVENT_COLS} FROM transcript_events WHERE event_id = ?",
                                     (event_id,)).fetchone()
        return _row_to_event(row) if row else None

    def latest_event(self, session_id: str, kind: str) -> Event | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_EVENT_COLS} FROM transcript_events WHERE session_id = ? AND kind = ? "
                "ORDER BY position DESC LIMIT 1", (session_id, kind)).fetchone()
        return _row_to_event(row) if row else None

    def events_of_key(self, session_key: str, kind: str, limit: int = 50) -> list[Event]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_EVENT_COLS} FROM transcript_events WHERE session_key = ? AND kind = ? "
                "ORDER BY seq DESC LIMIT ?", (session_key, kind, limit)).fetchall()
        return [_row_to_event(r) for r in reversed(rows)]


def unforgotten(conn, events: list) -> list:
    """``(kind, payload, at, id)`` events without the messages ``reverie forget`` removed (and the
    tool results answering a removed call)."""
    from ..trust.tombstones import Tombstones, message_texts

    tombs = Tombstones(conn)
    if not tombs:
        return events
    out, dropped = [], set()
    for ev in events:
        msg = ev[1].get("message") if isinstance(ev[1].get("message"), dict) else {}
        calls = [c for c in msg.get("toolCalls") or [] if isinstance(c, dict)]
        texts = message_texts(msg.get("content") or "", [c.get("arguments") for c in calls])
        if any(tombs.forgotten(t) for t in texts) or (msg.get("toolCallId") and msg["toolCallId"] in dropped):
            dropped.update(c.get("id") for c in calls)
            continue
        out.append(ev)
    return out


def _scrub(value: Any) -> Any:
    """The same structure with every string made encodable as UTF-8 (lone surrogates -> U+FFFD)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(v) for v in value]
    return value
