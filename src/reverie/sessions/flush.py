"""The pre-compaction memory flush (reference §14): one silent turn, before compaction, that lets
the model save durable memories to today's note.

Better than the reference, which relies on the model obeying "append only" (openclaw #6877: flush
prompts made agents overwrite memory files): the flush turn is offered exactly one tool,
``memory_append``, bound to ``memory/YYYY-MM-DD.md`` and append-only. ``MEMORY.md``, ``USER.md``,
``SOUL.md``, ``AGENTS.md`` and ``DREAMS.md`` cannot be written by construction: a call to any other
tool is refused and recorded. A line already in today's note is not appended twice.

Trust (docs/trust.md): the flush sees the conversation with recalled memory removed (results of the
recall tools dropped, the agent's sentences that reproduce recalled text stripped, no workspace
files or injected blocks), refuses an append that reproduces recalled text, and records what it
appends with the least trusted class of the conversation it read; an untrusted flush quarantines
the whole daily file (its floor drops to ``untrusted``: sticky at the daily-file boundary).

Every flush ends with a status that is recorded: ``written``, ``nothing`` (``NO_REPLY`` or no
append) or ``skipped`` with the reason (disabled, read-only workspace, model error, timeout, write
failure). A skipped flush never stops the compaction that follows.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path

from ..models.base import ChatMessage, ChatModel
from ..models.offline import FLUSH_PROMPT_PREFIX, FLUSH_SYSTEM_PREFIX, NO_REPLY
from ..tools.base import Tool, ToolError
from ..trust import RECALL_TOOLS, Provenance, RecallPool, daily_guard, strip_recalled
from ..workspace.annotations import neutralise_annotations
from ..workspace.files import read_regular
from ..workspace.textclean import clean_text, decode_note
from ..workspace.writes import append_daily, daily_note_path
from .compaction import DeadlineExceeded, run_with_deadline

MAX_FLUSH_ROUNDS = 4
FLUSH_TOOL = "memory_append"


def _hints(date: str) -> tuple[str, str, str]:
    target = f"Store durable memories only in memory/{date}.md (create memory/ if needed)."
    append = f"If memory/{date}.md already exists, APPEND new content only and do not overwrite existing entries."
    read_only = ("Treat workspace bootstrap/reference files such as MEMORY.md, DREAMS.md, SOUL.md, and AGENTS.md "
                 "as read-only during this flush; never overwrite, replace, or edit them.")
    return target, append, read_only


def flush_system_prompt(date: str) -> str:
    target, append, read_only = _hints(date)
    return (f"{FLUSH_SYSTEM_PREFIX} The session is near auto-compaction; capture durable memories to disk. "
            f"{target} {append} {read_only} The only tool in this turn is {FLUSH_TOOL}, which appends one note to "
            f"memory/{date}.md; call it once per durable memory (decisions, preferences, facts, todos, dates). "
            f"You may reply, but usually {NO_REPLY} is correct.")


def flush_prompt(date: str, now: datetime) -> str:
    target, append, read_only = _hints(date)
    return (f"{FLUSH_PROMPT_PREFIX} {target} {append} {read_only} Do NOT create timestamped variant files "
            f"(memory/{date}-HHMM.md); always use the canonical memory/{date}.md. "
            f"If nothing to store, reply with {NO_REPLY}.\nCurrent time: {now.isoformat(timespec='minutes')}")


def is_no_reply(text: str | None) -> bool:
    return (text or "").strip().upper() == NO_REPLY


@dataclass
class FlushResult:
    status: str  # written | nothing | skipped
    trigger: str  # tokens | bytes | compaction | manual
    reason: str | None = None
    path: str | None = None
    appended: list[str] = field(default_factory=list)
    duplicates: int = 0
    recalled: int = 0  # appends refused because they reproduce recalled memory
    origin: str | None = None  # the class its appends were recorded with
    refused: list[dict] = field(default_factory=list)
    reply: str | None = None
    ms: float = 0.0
    exchange: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"status": self.status, "trigger": self.trigger, "reason": self.reason, "path": self.path,
                "appended": self.appended, "duplicates": self.duplicates, "recalled": self.recalled,
                "originClass": self.origin, "refused": self.refused,
                "reply": self.reply, "ms": round(self.ms, 1), "exchange": self.exchange}

    def line(self) -> str:
        if self.status == "written":
            return f"written: {len(self.appended)} note(s) appended to {self.path}"
        if self.status == "nothing":
            return "nothing to save" + (f" ({self.reason})" if self.reason else "")
        return f"skipped: {self.reason}"


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


_BULLET_RE = re.compile(r"^- (?:\d{2}:\d{2} )?")


def _entries(note: str) -> set[str]:
    """The normalised entries of a daily note (a bullet with its continuation lines), timestamps
    stripped, for an exact "already there" check (a substring test would drop "budget 500"
    because "budget 5000" exists)."""
    out: set[str] = set()
    current: list[str] = []
    for line in note.split("\n"):
        if line.startswith("- ") or not line.strip() or line.startswith("#"):
            if current:
                out.add(_norm(" ".join(current)))
            current = [_BULLET_RE.sub("", line)] if line.startswith("- ") else []
        else:
            current.append(line)
    if current:
        out.add(_norm(" ".join(current)))
    return out


def recall_free(history: list[ChatMessage], pool: RecallPool | None) -> list[ChatMessage]:
    """The conversation without recalled memory: results of the recall tools (and the calls that
    asked for them) dropped, the agent's lines and sentences that reproduce recall stripped."""
    dropped: set[str] = set()
    out: list[ChatMessage] = []
    for m in history:
        if m.role == "tool":
            if m.name in RECALL_TOOLS or (m.tool_call_id or "") in dropped:
                continue
            out.append(m)
            continue
        if m.role == "assistant":
            calls = [c for c in m.tool_calls if c.name not in RECALL_TOOLS]
            dropped.update(c.id for c in m.tool_calls if c.name in RECALL_TOOLS)
            content = strip_recalled(m.content, pool) if pool else m.content
            if not calls and not content.strip():
                continue
            out.append(ChatMessage("assistant", content, calls, m.tool_call_id, m.name))
            continue
        out.append(m)
    return out


def flush_tool(workspace: Path, tz: tzinfo, when: datetime, result: FlushResult, cancelled: threading.Event,
               *, agent_db: Path | None = None, provenance: Provenance | None = None,
               recall: RecallPool | None = None) -> Tool:
    """``memory_append`` bound to the note of ``when``'s day; the only tool of a flush turn."""
    target = daily_note_path(workspace, when.astimezone(tz))
    guard = daily_guard(agent_db, workspace, provenance, sticky=True) if agent_db and provenance else None
    rel = target.relative_to(workspace).as_posix()

    def append(args: dict) -> dict:
        cleaned = clean_text(args["text"])
        text = cleaned.text.strip()
        if not text:
            raise ToolError(f"{FLUSH_TOOL}: text is empty")
        if cancelled.is_set():
            raise ToolError(f"{FLUSH_TOOL}: the flush turn has ended (timeout); nothing written")
        try:  # non-blocking and regular files only: a FIFO in the note's place must not hang the turn
            existing = decode_note(read_regular(target)[0] or b"")[0] or ""
        except OSError:
            existing = ""
        text = neutralise_annotations(text)
        if _norm(text) in _entries(existing):
            result.duplicates += 1
            return {"status": "duplicate", "path": rel, "note": "already in today's note; not appended again"}
        if recall and recall.reproduces(text):
            result.recalled += 1  # a recalled fact never comes back as a new memory
            return {"status": "recalled", "path": rel, "note": "this repeats memory that was recalled into the "
                    "conversation; it is already saved, so it is not appended again"}
        append_daily(workspace, text, now=when, tz=tz, guard=guard)
        result.appended.append(text)
        result.path = rel
        out = {"status": "appended", "path": rel, "chars": len(text)}
        if cleaned.removed:
            out["cleaned"] = cleaned.summary()
        return out

    schema = {"type": "object", "additionalProperties": False, "required": ["text"],
              "properties": {"text": {"type": "string", "maxLength": 20_000,
                                      "description": "one durable memory, self-contained (who, what, when, why)"}}}
    return Tool(FLUSH_TOOL, f"Append one note to {rel} (today's daily note). Append-only: it cannot change or "
                f"remove anything, and no other file can be written in this turn.", schema, append,
                read_only=False, idempotent=False, title="Append to today's note")


def run_flush(model: ChatModel, history: list[ChatMessage], base_system: str, *, workspace: Path, tz: tzinfo,
              now: datetime, timeout: float, trigger: str, writable: tuple[bool, str | None] = (True, None),
              agent_db: Path | None = None, provenance: Provenance | None = None,
              recall: RecallPool | None = None) -> FlushResult:
    """One flush turn. Never raises: every failure becomes a ``skipped`` result with the reason.

    ``provenance`` is what the appends are recorded with (the runtime passes the least trusted
    class of the conversation); ``recall`` the memory recalled into it, which is kept out."""
    result = FlushResult("nothing", trigger, origin=provenance.origin if provenance else None)
    history = recall_free(history, recall)
    from ..trust.shield import shield

    model = shield(model)  # a flush is memory's own call: no secret reaches a remote model
    ok, why = writable
    if not ok:
        result.status, result.reason = "skipped", why
        return result
    started = time.perf_counter()
    local = now.astimezone(tz)
    date = local.strftime("%Y-%m-%d")
    cancelled = threading.Event()
    tool = flush_tool(workspace, tz, local, result, cancelled, agent_db=agent_db, provenance=provenance,
                      recall=recall)
    messages = [ChatMessage("system", flush_system_prompt(date) + ("\n\n" + base_system if base_system else "")),
                *history, ChatMessage("user", flush_prompt(date, local))]
    write_errors: list[str] = []

    def exchange() -> str:
        reply = ""
        for _ in range(MAX_FLUSH_ROUNDS):
            remaining = max(0.05, timeout - (time.perf_counter() - started))
            resp = model.complete(messages, [tool.openai()], timeout=remaining)
            msg = resp.message
            messages.append(msg)
            result.exchange.append({"role": "assistant", "content": msg.content,
                                    "toolCalls": [{"name": c.name, "arguments": c.arguments} for c in msg.tool_calls]})
            if not msg.tool_calls:
                return msg.content
            for call in msg.tool_calls:
                if call.name != tool.name:
                    # not offered: refused by construction, whatever the model was told
                    result.refused.append({"name": call.name, "arguments": call.arguments})
                    out = {"error": f"tool {call.name!r} is not available in the flush turn; only {tool.name} "
                                    f"(append to today's note) is", "refused": True}
                else:
                    try:
                        out = tool.call(call.arguments)
                    except ToolError as exc:
                        out = {"error": str(exc)}
                    except OSError as exc:
                        write_errors.append(str(exc))
                        out = {"error": f"write failed: {exc}"}
                content = json.dumps(out, ensure_ascii=False)
                messages.append(ChatMessage("tool", content, tool_call_id=call.id, name=call.name))
                result.exchange.append({"role": "tool", "name": call.name, "content": content})
        return reply

    try:
        reply = run_with_deadline(exchange, timeout)
        result.reply = reply
    except DeadlineExceeded as exc:
        cancelled.set()
        result.status, result.reason = "skipped", f"timeout: {exc}"
    except Exception as exc:  # a model error skips the flush; compaction goes on
        cancelled.set()
        kind = "timeout" if re.search(r"timed? ?out|timeout", str(exc), re.I) else "model error"
        result.status, result.reason = "skipped", f"{kind}: {exc}"
    else:
        if result.appended:
            result.status = "written"
        elif write_errors:
            result.status, result.reason = "skipped", f"write failed: {write_errors[0]}"
        else:
            result.status = "nothing"
            parts = (["NO_REPLY"] if is_no_reply(reply) else []) + \
                ([f"{result.duplicates} already in today's note"] if result.duplicates else []) + \
                ([f"{result.recalled} repeated recalled memory"] if result.recalled else [])
            result.reason = "; ".join(parts) or None
    if result.status == "skipped" and result.appended:
        result.reason = f"{result.reason} ({len(result.appended)} note(s) were appended before that)"
    if result.refused:
        names = ", ".join(sorted({r['name'] for r in result.refused}))
        result.reason = ((result.reason + "; ") if result.reason else "") + f"refused tool call(s): {names}"
    result.ms = (time.perf_counter() - started) * 1000
    return result
