"""Remember across conversations (addendum row 7): the agent's other private conversations as a
recall source for Active Memory.

The boundary is fixed in code, and holds from both sides:

* **destination**: only a direct, interactive session of the owner recalls across conversations;
  a group or channel session (or cron, heartbeat, sub-agent, or a kind reverie does not know) never
  does -- it would carry private conversations into a shared room;
* **source**: only the agent's *direct*, interactive sessions, never a group or channel session
  (what was said in a room stays in that room), never a forgotten one, and never the current
  conversation (this session: its messages are already in the context). An earlier session of the
  same key (before ``/new``) is another conversation and counts;
* **never another agent**: each agent's transcripts live in its own database, opened by path; the
  lookup runs on this agent's database only.

What comes back keeps the origin class the program recorded; an untrusted message is never
injected (the Active Memory gate).
"""

from __future__ import annotations

from ..sessions.store import SessionRow, TranscriptStore

SOURCE_LIMIT = 6


def may_recall_across(chat_type: str | None, session_kind: str | None, owner: bool) -> tuple[bool, str]:
    """Whether a session may be a destination of cross-conversation recall, and why not."""
    if chat_type != "direct":
        return False, f"a {chat_type or 'unknown'} chat never recalls other conversations"
    if session_kind != "interactive":
        return False, f"a {session_kind or 'unknown'} session never recalls other conversations"
    if not owner:
        return False, "only the owner's turns recall other conversations"
    return True, "ok"


def is_source(row: SessionRow, current_session_id: str) -> bool:
    """Whether a session's messages may be recalled into another conversation."""
    return (row.chat_type == "direct" and row.session_kind == "interactive" and row.forgotten_at is None
            and row.session_id != current_session_id)


def search_conversations(db_path, current_session_id: str, query: str, limit: int = SOURCE_LIMIT) -> list[dict]:
    """Hits from the agent's other private conversations, shaped like ``memory_search`` results
    (``path`` ``session:<id>``), with their recorded origin."""
    from ..sessions.search import search

    store = TranscriptStore(db_path)  # its own connection: Active Memory runs in its own thread
    try:
        caller = store.session(current_session_id)
        if caller is None:
            return []
        out = search(store, caller, query, visibility="agent", owner=True, limit=limit,
                     only=lambda row: is_source(row, current_session_id))
    finally:
        store.close()
    hits = []
    for r in out.get("results") or []:
        origin = r.get("originClass") or "untrusted"
        hits.append({"path": f"session:{r['sessionId']}", "snippet": r["snippet"], "score": r["score"],
                     "citation": f"session:{r['sessionId']}#{r['messageId']}", "source": "sessions",
                     "sessionKey": r["sessionKey"], "role": r["role"], "timestamp": r["timestamp"],
                     "provenance": {"originClass": origin, "sessionKind": "interactive"},
                     **({"untrusted": True} if r.get("untrusted") else {})})
    return hits
