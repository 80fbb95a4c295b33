"""sessions_search and sessions_history (reference §8.4): the transcripts, read from the caller's
session with its visibility (decided by the program from the session row, never by the model)."""

from __future__ import annotations

from typing import Callable

from .base import Tool

SEARCH_DESCRIPTION = (
    "Search the transcripts of earlier conversations (what the user and the assistant said, not tool "
    "output) for words in any language, Chinese included. Returns up to `limit` messages with sessionKey, "
    "timestamp, role and a snippet of at most 300 characters. Use it when the user refers to something said "
    "in another or an earlier session; use memory_search first for saved notes and decisions. Only sessions "
    "visible from this one are searched.")
HISTORY_DESCRIPTION = (
    "Read the transcript of one session: the newest `limit` messages (default 20) of sessionKey (default: "
    "this conversation) or of an exact sessionId; `offset` skips that many newest messages to page back "
    "(the answer gives nextOffset). Tool calls and results only with includeTools. A session that is not "
    "visible from this one answers status forbidden.")

SEARCH_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 4096, "description": "what to look for, in any language"},
        "sessionKey": {"type": "string", "description": "only this session key"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 25, "description": "how many messages (default 10)"},
    },
    "required": ["query"],
    "additionalProperties": False,
}
HISTORY_SCHEMA = {
    "type": "object",
    "properties": {
        "sessionKey": {"type": "string", "description": "the session key (default: this conversation)"},
        "sessionId": {"type": "string", "description": "an exact session id (an earlier session of a key)"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "newest messages to return (default 20)"},
        "offset": {"type": "integer", "minimum": 0, "description": "skip this many newest messages (paging back)"},
        "includeTools": {"type": "boolean", "description": "include tool calls and results (default false)"},
    },
    "additionalProperties": False,
}


def sessions_tools(store, caller: Callable[[], object], *, visibility: str = "agent",
                   owner: Callable[[], bool] | bool = False) -> list[Tool]:
    """The two tools for a caller. ``caller`` returns the calling session's row (it changes on
    /new); ``owner`` says the caller is the agent's owner (a callable is asked at each call)."""
    from ..errors import UserError
    from ..sessions import history, search

    def is_owner() -> bool:
        return bool(owner()) if callable(owner) else bool(owner)

    def do_search(args: dict) -> dict:
        if not args["query"].strip():
            raise UserError("sessions_search: query is empty")
        return search(store, caller(), args["query"], visibility=visibility, owner=is_owner(),
                      session_key=args.get("sessionKey"), limit=args.get("limit", 10))

    def do_history(args: dict) -> dict:
        return history(store, caller(), visibility=visibility, owner=is_owner(), session_key=args.get("sessionKey"),
                       session_id=args.get("sessionId"), limit=args.get("limit", 20), offset=args.get("offset"),
                       include_tools=bool(args.get("includeTools")))

    return [
        Tool("sessions_search", SEARCH_DESCRIPTION, SEARCH_SCHEMA, do_search, title="Search conversation transcripts"),
        Tool("sessions_history", HISTORY_DESCRIPTION, HISTORY_SCHEMA, do_history, title="Read a conversation transcript"),
    ]
