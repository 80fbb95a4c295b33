"""Recall marks: every piece of memory put into a session's context, recorded as it goes in.

A mark is a ``system`` transcript event ``{"event": "recall", "lane", "items": [{text, path,
lines, originClass}], "refused": [...]}``. Automatic lanes (startup files, standing intents,
trigger recall, Active Memory) admit only ``owner``/``agent`` items; explicit lanes (the recall
tools) record everything they returned. The marks are what the flush, the session-memory hook and
the transcript search index strip before they see the conversation (see
:mod:`reverie.trust.recall`; the search index strips through :mod:`.search_text`, from the stored
events); :meth:`reverie.runtime.Runtime.inject` is the public way in.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Callable

from ..trust import AUTO_LANES, RECALL_TOOLS, RecallItem, RecallPool, Trust, injection_decision, least_trusted
from .compaction import active_context
from .store import Event, TranscriptStore


@dataclass
class Marked:
    admitted: list[RecallItem] = field(default_factory=list)
    refused: list[tuple[RecallItem, str]] = field(default_factory=list)
    event: Event | None = None


class RecallLedger:
    """Marks of one runtime (the recall pool of its session is kept by the store)."""

    def __init__(self, store: TranscriptStore, trust: Trust | None):
        self.store = store
        self.trust = trust
        self._startup: set[str] = set()

    def reset(self) -> None:
        self._startup.clear()

    def pool(self, session_id: str) -> RecallPool:
        """The session's recall pool as its transcript holds it now (the store keeps it between
        calls, so a runtime made per call does not read the whole session again)."""
        return self.store.recall_pool(session_id)

    def _decide(self, lane: str, item: RecallItem, auto: bool):
        origin, kind = item.origin, item.kind
        if auto and item.path and self.trust is not None and not item.path.startswith("session:") and not item.checked:
            from ..trust.policy import Candidate

            return self.trust.may_inject(lane, Candidate(item.text, item.path, item.start_line or 1,
                                                         item.end_line, origin, kind))
        return injection_decision(lane if auto else "explicit", origin, kind, item.text)  # secrets: never automatic

    def mark(self, session_id: str, lane: str, items: list[RecallItem], *, auto: bool | None = None) -> Marked:
        auto = lane in AUTO_LANES if auto is None else auto
        out = Marked()
        for item in items:
            d = self._decide(lane, item, auto)
            item.origin, item.kind = d.origin, d.kind  # as the program found them
            if d.allowed:
                out.admitted.append(item)
            else:
                out.refused.append((item, d.reason))
        if not out.admitted and not out.refused:
            return out
        payload = {"event": "recall", "lane": lane, "auto": auto,
                   "text": f"recall ({lane}): {len(out.admitted)} item(s)"
                           + (f", {len(out.refused)} refused" if out.refused else ""),
                   "items": [i.as_dict() for i in out.admitted],
                   # refused text stays out of the context and out of the transcript
                   "refused": [{**{k: v for k, v in i.as_dict().items() if k != "text"}, "reason": why}
                               for i, why in out.refused]}
        out.event = self.store.append(session_id, "system", payload, origin="system")
        pool = self.pool(session_id)
        for i in out.admitted:
            pool.add(i.text)
        return out

    def mark_startup(self, session_id: str, files) -> None:
        """The workspace files of the system prompt, once per session and content."""
        items = []
        for f in files:
            if not f.text:
                continue
            digest = hashlib.sha256(f"{session_id}\0{f.name}\0{f.text}".encode("utf-8")).hexdigest()
            if digest in self._startup:
                continue
            self._startup.add(digest)
            items.append(RecallItem(f.text, f.name, 1, f.text.count("\n") + 1, "agent", "unknown"))
        if items:
            self.mark(session_id, "startup", items)

    def no_resave(self, tool, session_id: Callable[[], str]):
        """``memory_append`` that does not save again what memory recalled into the session."""
        def handler(args: dict) -> dict:
            if self.pool(session_id()).reproduces(str(args.get("text") or "")):
                return {"status": "already-in-memory", "note": "this repeats memory recalled into this conversation; "
                        "it is saved already, so it was not appended again"}
            return tool.handler(args)

        return replace(tool, handler=handler)


def _as_written(ev: Event) -> str | None:
    # the owner's words do not raise what the agent writes from them; an event recorded without a
    # class is not vouched for
    return None if ev.origin == "owner" else (ev.origin or "untrusted")


def written_from(events: list[Event], compaction: Event | None = None) -> str:
    """The class of what the agent writes from ``events`` (and an earlier summary)."""
    origins = [_as_written(ev) for ev in events]
    if compaction is not None:
        origins.append(_as_written(compaction))
    return least_trusted("agent", *origins)


def context_origin(store: TranscriptStore, session_id: str) -> str:
    """The class of a flush written from the active context. Results of the recall tools do not
    count (they are kept out of the flush); what the agent said after reading them does."""
    ctx = active_context(store, session_id)
    return written_from([ev for ev in ctx.events
                         if not (ev.kind == "tool_result" and ev.message and ev.message.name in RECALL_TOOLS)],
                        ctx.compaction)

