"""Search and read transcripts (reference §8.4): ``sessions_search`` and ``sessions_history``.

Visibility is decided before any limit, from the caller's session (never from the model):

| ``sessions.visibility`` | caller | may read |
|---|---|---|
| ``agent`` (default) | the owner's direct session | every session of this agent |
| ``agent`` | another direct session | its own key, and direct sessions of the same sender |
| ``agent`` | a group session | its own key only: a group never sees a private chat |
| ``self`` | anyone | its own key only |

Another agent's sessions live in another database and are out of reach by construction.
Search uses the transcript FTS (CJK bigrams, see :mod:`reverie.sessions.schema`): user and
assistant text only, no tool results. Scores are in [0, 1], the keyword score memory search uses
(:mod:`reverie.search.keyword`): the share of the query's information, each word weighed by its
rarity among the transcripts, that the message holds. Snippets are cut to 300 characters, secrets
redacted; the whole answer stays under 32 KiB. Every hit and message carries the origin class the
program recorded (``originClass``); untrusted ones are framed as untrusted (docs/trust.md).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Callable

from ..trust.framing import UNTRUSTED_NOTICE, frame_untrusted

if TYPE_CHECKING:  # the package imports this module for its names: the store loads when a search runs
    from .store import Event, SessionRow, TranscriptStore

SNIPPET_CHARS = 300
MAX_PAYLOAD_BYTES = 32 * 1024
KEY_CHUNK = 200
HISTORY_MESSAGE_CHARS = 8_000
OMITTED = "[sessions_history omitted: message too large]"
REDACTED = "[redacted]"

_SECRET = re.compile(
    r"(sk-[A-Za-z0-9_\-]{12,}|xox[abpr]-[A-Za-z0-9\-]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}"
    r"|(?i:bearer)\s+[A-Za-z0-9._\-]{16,}|(?i:(?:password|passwd|api[_-]?key|secret|token)\s*[:=]\s*)\S+)")


class Forbidden(Exception):
    pass


def redact_shapes(text: str) -> str:
    """``text`` with the key shapes above replaced by ``[redacted]`` (Dreaming's ingest uses this
    alone: it withholds a whole piece that still holds a secret, rather than keep it masked)."""
    def repl(m: re.Match) -> str:
        s = m.group(0)
        kv = re.match(r"(?i)((?:password|passwd|api[_-]?key|secret|token)\s*[:=]\s*)", s)
        return (kv.group(1) if kv else "") + REDACTED

    return _SECRET.sub(repl, text)


def redact(text: str) -> str:
    """``text`` with secrets replaced by ``[redacted]``: the shapes above, then every value the
    shared detector finds (:mod:`reverie.trust.secrets`: JSON and Chinese credentials, PEM private
    keys, cards, random-looking tokens), so a past conversation never hands one back."""
    from ..trust.secrets import mask

    return mask(redact_shapes(text), REDACTED)


def can_see(caller: SessionRow, target: SessionRow, *, visibility: str, owner: bool) -> bool:
    if target.session_key == caller.session_key:
        return True
    if visibility == "self" or caller.chat_type == "group":
        return False
    if owner:
        return True
    return target.chat_type == "direct" and caller.sender is not None and target.sender == caller.sender


def visible_sessions(store: TranscriptStore, caller: SessionRow, *, visibility: str, owner: bool) -> list[SessionRow]:
    return [s for s in store.sessions() if can_see(caller, s, visibility=visibility, owner=owner)]


def _snippet(text: str, terms: list[str]) -> str:
    flat = " ".join(redact(text).split())
    if len(flat) <= SNIPPET_CHARS:
        return flat
    low = flat.lower()
    pos = min((low.find(t) for t in terms if t and low.find(t) >= 0), default=0)
    start = max(0, min(pos - SNIPPET_CHARS // 3, len(flat) - SNIPPET_CHARS))
    cut = flat[start:start + SNIPPET_CHARS]
    return ("…" if start else "") + cut + ("…" if start + SNIPPET_CHARS < len(flat) else "")


def _origin(ev: Event) -> str:
    return ev.origin or "untrusted"  # an event recorded before origins were is not vouched for


def _frame(item: dict, key: str, origin: str) -> dict:
    item["originClass"] = origin
    if origin == "untrusted":
        item["untrusted"] = True
        item[key] = frame_untrusted(item[key])
    return item


def _notice(out: dict, items: list[dict]) -> dict:
    n = sum(1 for i in items if i.get("untrusted"))
    if n:
        out["trustNotice"] = f"{n} item(s) marked untrusted. {UNTRUSTED_NOTICE}"
    return out


def search(store: TranscriptStore, caller: SessionRow, query: str, *, visibility: str, owner: bool,
           session_key: str | None = None, limit: int = 10, only: Callable[[SessionRow], bool] | None = None) -> dict:
    """``only`` narrows the visible sessions further (Active Memory's cross-conversation boundary)."""
    limit = max(1, min(25, int(limit or 10)))
    seen = [s for s in visible_sessions(store, caller, visibility=visibility, owner=owner) if only is None or only(s)]
    if session_key:
        if not any(s.session_key == session_key for s in store.sessions(session_key, limit=1)):
            return {"status": "error", "error": f"no session with key {session_key!r}"}
        seen = [s for s in seen if s.session_key == session_key]
        if not seen:
            return {"status": "forbidden", "error": f"session {session_key!r} is not visible from this session"}
    by_id = {s.session_id: s for s in seen}
    if not by_id or not (query or "").strip():
        return {"results": []}
    from ..search.keyword import analyse_query
    from . import search_rows

    n_docs = search_rows.count(store.conn)
    q = analyse_query(store.conn, query, "cjk", "transcript_fts", n_docs,
                      frequencies=lambda tokens: search_rows.frequencies(store.conn, tokens))
    if q.empty:
        return {"results": []}
    window = limit * 4
    hits: dict[int, int] = {}  # seq -> created
    ids = list(by_id)
    for match, tokens in ((q.strict, q.tokens), (q.match, q.fetch)):
        if not match or len(hits) >= window:
            continue
        for i in range(0, len(ids), KEY_CHUNK):
            chunk = ids[i:i + KEY_CHUNK]
            rows = search_rows.matches(store.conn, match, match is q.strict, chunk, window, tokens)
            for seq, _rank, created in rows:
                hits.setdefault(seq, created)
    results = []
    for seq, created in hits.items():
        ev = store.event(seq)
        if ev is None:
            continue
        text = ev.text
        score = round(q.coverage(q.mask(text, "cjk")), 6)
        results.append(_frame({"sessionKey": ev.session_key, "timestamp": ev.timestamp,
                               "role": "user" if ev.kind == "user" else "assistant",
                               "snippet": _snippet(text, q.tokens), "score": score, "sessionId": ev.session_id,
                               "messageId": ev.event_id, "_created": created}, "snippet", _origin(ev)))
    results.sort(key=lambda r: (-r["score"], -r["_created"], r["sessionKey"], r["messageId"]))
    out: dict = {"results": []}
    for r in results[:limit]:
        r.pop("_created")
        out["results"].append(r)
        if len(json.dumps(out, ensure_ascii=False).encode()) > MAX_PAYLOAD_BYTES:
            out["results"].pop()
            out["truncated"] = True
            break
    return _notice(out, out["results"])


def history(store: TranscriptStore, caller: SessionRow, *, visibility: str, owner: bool,
            session_key: str | None = None, session_id: str | None = None, limit: int = 20, offset: int | None = None,
            include_tools: bool = False) -> dict:
    if session_id:
        target = store.session(session_id)
        if target is None:
            return {"status": "error", "error": f"no session {session_id!r}"}
    else:
        key = session_key or caller.session_key
        target = store.latest_session(key)
        if target is None:
            return {"status": "error", "error": f"no session with key {key!r}"}
    if not can_see(caller, target, visibility=visibility, owner=owner):
        return {"status": "forbidden", "error": f"session {target.session_key!r} is not visible from this session"}
    kinds = ("user", "assistant", "tool_call", "tool_result") if include_tools else ("user", "assistant", "tool_call")
    events = [e for e in store.events(target.session_id, kinds=kinds)
              if include_tools or e.kind != "tool_call" or e.text.strip()]
    limit = max(1, min(200, int(limit or 20)))
    skip = max(0, int(offset or 0))
    total = len(events)
    end = total - skip
    window = events[max(0, end - limit):max(0, end)]
    messages = []
    for e in window:
        msg = e.message
        role = "user" if e.kind == "user" else ("tool" if e.kind == "tool_result" else "assistant")
        content = redact(msg.content if msg else e.text)
        if len(content) > HISTORY_MESSAGE_CHARS:
            content = OMITTED
        item = _frame({"role": role, "content": content, "timestamp": e.timestamp, "messageId": e.event_id,
                       "position": e.position}, "content", _origin(e))
        if include_tools and msg and msg.tool_calls:
            item["toolCalls"] = [{"name": c.name, "arguments": c.arguments} for c in msg.tool_calls]
        if include_tools and msg and msg.name:
            item["name"] = msg.name
        messages.append(item)
    from .store import iso_ms

    out: dict = {"sessionKey": target.session_key, "sessionId": target.session_id, "chatType": target.chat_type,
                 "startedAt": iso_ms(target.started_at), "total": total, "messages": messages}
    if offset is not None or end - limit > 0:
        out["offset"] = skip
        if end - limit > 0:
            out["nextOffset"] = skip + limit
    while len(json.dumps(out, ensure_ascii=False).encode()) > MAX_PAYLOAD_BYTES and out["messages"]:
        out["messages"].pop(0)  # the oldest go first; the newest tail is what was asked for
        out["truncated"] = True
    return _notice(out, out["messages"])
