"""Compaction (reference §13): the older messages of the active context become a summary; the
model input is then "summary + recent messages". The full transcript stays in the database; the
compaction is one more event (``firstKeptPosition``, ``tokensBefore``, the summary).

* The recent messages kept verbatim are the newest ones fitting in ``keep_tokens``
  (see :mod:`reverie.sessions.plan`); a tool call and its results are one unit, never split.
* The summary is written by the model, chunk by chunk when the older messages are more than one
  request can hold (a rolling summary). A model that fails, times out or answers nothing is
  replaced by the deterministic extractive summary, labelled as such: compaction never fails
  because the summariser did.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Callable, TypeVar

from ..models.base import ChatMessage, ChatModel
from ..models.offline import COMPACTION_SYSTEM_PREFIX, extractive_summary, render_summary_request
from ..text.cjk import estimate_tokens
from .store import MESSAGE_KINDS, Event, TranscriptStore

COMPACTION_SYSTEM = (
    f"{COMPACTION_SYSTEM_PREFIX} Summarise the conversation below so that it can continue without the "
    "original messages. Merge the previous summary, if any, into yours. Keep every decision, preference, "
    "fact about the user, open todo, date, name and number; copy identifiers (paths, ids, URLs, code "
    "names) exactly as written. Write short bullet points. Output only the summary.")
TOOL_RESULT_CHARS = 1_500  # of each tool result shown to the summariser
TOOL_ARGS_CHARS = 300

T = TypeVar("T")


class DeadlineExceeded(Exception):
    pass


def run_with_deadline(fn: Callable[[], T], timeout: float | None) -> T:
    """Run ``fn`` in a daemon thread and give up after ``timeout`` seconds (the thread is
    abandoned; callers make its side effects check a cancel flag)."""
    if timeout is None:
        return fn()
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller
            box["error"] = exc

    t = threading.Thread(target=target, name="reverie-deadline", daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise DeadlineExceeded(f"timed out after {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


@dataclass
class ActiveContext:
    summary: str | None
    compaction: Event | None
    events: list[Event]  # message events from the first kept position on


def active_context(store: TranscriptStore, session_id: str) -> ActiveContext:
    comp = store.latest_event(session_id, "compaction")
    first = int(comp.data.get("firstKeptPosition", 1)) if comp else 1
    events = store.events(session_id, kinds=MESSAGE_KINDS, from_position=first)
    return ActiveContext(comp.data.get("summary") if comp else None, comp, events)


def units(events: list[Event]) -> list[list[Event]]:
    """Events grouped so that a tool call and the results that answer it stay together."""
    out: list[list[Event]] = []
    for ev in events:
        if ev.kind == "tool_result" and out and out[-1][0].kind == "tool_call":
            out[-1].append(ev)
        else:
            out.append([ev])
    return out


def split_for_compaction(events: list[Event], keep_tokens: int) -> tuple[list[Event], list[Event]]:
    """(older, kept): kept is the newest whole units within ``keep_tokens`` (at least one unit)."""
    groups = units(events)
    kept: list[list[Event]] = []
    total = 0
    for g in reversed(groups):
        size = sum(e.tokens for e in g)
        if kept and total + size > keep_tokens:
            break
        kept.insert(0, g)
        total += size
    older = [e for g in groups[:len(groups) - len(kept)] for e in g]
    return older, [e for g in kept for e in g]


def entries_for_summary(events: list[Event]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for ev in events:
        msg = ev.message
        if msg is None:
            continue
        if ev.kind == "user":
            out.append(("user", msg.content))
        elif ev.kind == "assistant":
            out.append(("assistant", msg.content))
        elif ev.kind == "tool_call":
            calls = "; ".join(f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)[:TOOL_ARGS_CHARS]})"
                              for c in msg.tool_calls)
            text = (msg.content + "\n" if msg.content else "") + f"(called {calls})"
            out.append(("assistant", text))
        elif ev.kind == "tool_result":
            body = msg.content if len(msg.content) <= TOOL_RESULT_CHARS else msg.content[:TOOL_RESULT_CHARS] + "…"
            out.append((f"tool {msg.name or ''} result".replace("  ", " "), body))
    return out


def _chunks(entries: list[tuple[str, str]], limit: int) -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = [[]]
    size = 0
    for role, text in entries:
        n = estimate_tokens(text) + 4
        if out[-1] and size + n > limit:
            out.append([])
            size = 0
        out[-1].append((role, text))
        size += n
    return out


@dataclass
class SummaryResult:
    summary: str
    summarizer: str  # "model:<name>" | "extractive" | "extractive fallback"
    error: str | None = None
    calls: int = 0


def summarize(model: ChatModel | None, previous: str | None, entries: list[tuple[str, str]], *,
              instructions: str | None, budget_tokens: int, chunk_tokens: int, timeout: float | None) -> SummaryResult:
    if model is None or getattr(model, "offline", False):
        return SummaryResult(extractive_summary(previous, entries, budget_tokens), "extractive")
    summary = previous
    calls = 0
    try:
        for chunk in _chunks(entries, max(256, chunk_tokens)):
            request = [ChatMessage("system", COMPACTION_SYSTEM),
                       ChatMessage("user", render_summary_request(summary, chunk, instructions))]
            resp = run_with_deadline(lambda: model.complete(request, None, timeout=timeout, max_tokens=budget_tokens),
                                     timeout)
            calls += 1
            text = (resp.message.content or "").strip()
            if not text:
                raise ValueError("the model answered with an empty summary")
            summary = text
        return SummaryResult(summary or "", f"model:{model.provider}:{model.model}", None, calls)
    except Exception as exc:  # any failure: the deterministic summary, labelled
        reason = f"{type(exc).__name__}: {exc}"
        return SummaryResult(extractive_summary(previous, entries, budget_tokens), "extractive fallback", reason, calls)
