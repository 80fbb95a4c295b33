"""What transcript search indexes for an event: a pure function of the session's stored events.

An agent message (``assistant``, ``tool_call``) is indexed without the lines, else sentences, that
reproduce memory recalled into the session before it -- the recall marks (:mod:`.recall_marks`)
and the results of the recall tools, in position order -- so recalled memory is never ingested
again through transcript search (docs/trust.md). A user message is indexed as written; other
events have no search row.

Every write (:meth:`TranscriptStore.append`, a restored session, forget's rewrite) and every
rebuild (``reverie doctor --repair``, ``reverie db move``) call these functions over the same
stored documents, so a rebuilt index holds exactly the rows the writes made. The stripped text
itself is never stored: it is made again from the events whenever it is needed.
"""

from __future__ import annotations

import json
import threading
from typing import Callable, Iterable, Iterator

from ..trust.recall import RECALL_TOOLS, RecallPool, items_from_result, strip_recalled

INDEXED_KINDS = ("user", "assistant", "tool_call")
AGENT_KINDS = ("assistant", "tool_call")  # what the agent says: recalled spans are stripped
POOL_KINDS = ("system", "tool_result")  # where recalled memory is recorded
READ_KINDS = INDEXED_KINDS + POOL_KINDS  # what a rebuild reads of a session


def recalled_texts(kind: str, doc: dict) -> list[str]:
    """The memory an event put into the context: a recall mark's items, or what a recall tool
    returned (transcripts recorded before recall marks have only the latter)."""
    if kind == "system" and doc.get("event") == "recall":
        return [str(i.get("text") or "") for i in doc.get("items") or [] if isinstance(i, dict)]
    msg = doc.get("message")
    if kind == "tool_result" and isinstance(msg, dict) and msg.get("name") in RECALL_TOOLS:
        try:
            result = json.loads(msg.get("content") or "")
        except (TypeError, ValueError):
            return []
        return [i.text for i in items_from_result(msg["name"], result)]
    return []


def search_row(kind: str, doc: dict, recalled: RecallPool | None) -> tuple[str, str] | None:
    """(indexed text, role) of an event, given the memory recalled into its session before it;
    None when it has no search row."""
    if kind not in INDEXED_KINDS:
        return None
    msg = doc.get("message")
    text = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(text, str):
        return None
    if kind in AGENT_KINDS and recalled:
        text = strip_recalled(text, recalled)
    if not text.strip():
        return None
    return text, "user" if kind == "user" else "assistant"


def observe(pool: RecallPool, kind: str, doc: dict) -> None:
    """Add what an event recalled to its session's pool (events are observed in position order)."""
    for text in recalled_texts(kind, doc):
        pool.add(text)


def session_rows(events: Iterable[tuple[int, str, dict]]) -> Iterator[tuple[int, str, str]]:
    """(seq, indexed text, role) of one session's events, given as (seq, kind, document) in
    position order; a document that could not be read is passed as None and contributes nothing."""
    pool = RecallPool()
    for seq, kind, doc in events:
        if doc is None:
            continue
        row = search_row(kind, doc, pool)
        if row is not None:
            yield seq, row[0], row[1]
        observe(pool, kind, doc)


class PoolCache:
    """The recall pools of the sessions written to, kept between writes: a pool is good for the
    next position only, so a write it did not see (another process, a rollback) makes it load
    again. Pools only grow (adding a text twice changes nothing), and a pool handed out is only
    read, or added to with texts its session recorded."""

    def __init__(self, keep: int = 8):
        self.keep = keep
        self._pools: dict[str, tuple[int, RecallPool]] = {}  # session -> (last position seen, pool)
        self._lock = threading.Lock()

    def before(self, session_id: str, position: int,
               load: Callable[[], Iterable[tuple[str, dict]]]) -> RecallPool:
        """The pool of what came before ``position``; ``load()`` gives those events' (kind,
        document) in position order when it is not at hand."""
        with self._lock:
            cached = self._pools.get(session_id)
            if cached is not None and cached[0] == position - 1:
                return cached[1]
        pool = RecallPool()
        for kind, doc in load():
            observe(pool, kind, doc)
        with self._lock:
            self._pools.pop(session_id, None)
            while len(self._pools) >= self.keep:
                self._pools.pop(next(iter(self._pools)))
            self._pools[session_id] = (position - 1, pool)
        return pool

    def written(self, session_id: str, position: int, kind: str, doc: dict) -> None:
        """An event was written at ``position``."""
        with self._lock:
            cached = self._pools.get(session_id)
            if cached is None:
                return
            if cached[0] != position - 1:
                del self._pools[session_id]
                return
            observe(cached[1], kind, doc)
            self._pools[session_id] = (position, cached[1])

    def drop(self, session_ids: Iterable[str]) -> None:
        with self._lock:
            for sid in session_ids:
                self._pools.pop(sid, None)


# One cache per agent database file in a process: a warm server (or a host adapter) opens a new
# store for many calls of one conversation, and each call loading the whole session's recall again
# made every turn cost more than the last.
_SHARED: dict[str, PoolCache] = {}
_SHARED_LOCK = threading.Lock()


def shared_pools(key: str | None) -> PoolCache:
    """The process's cache for the database ``key`` (a file path), or a cache of one's own."""
    if key is None:
        return PoolCache()
    with _SHARED_LOCK:
        return _SHARED.setdefault(key, PoolCache(keep=32))
