"""JSONL export and import in the OpenAI chat-messages shape, so existing history can come in.

Export: one message per line, ``{"role", "content", "tool_calls"?, "tool_call_id"?, "name"?,
"timestamp"}`` (tool calls in the OpenAI wire form, arguments as a JSON string); with
``events=True`` every stored event is written as it is stored (compactions, flushes, commands too).

Import accepts, line by line: such messages (content as a string or a list of ``{"type": "text"}``
parts), and lines holding a whole conversation ``{"messages": [...]}`` (the fine-tuning format),
each of which becomes a session of its own. Blank lines are skipped; a bad line is an error that
names its number, before anything is written.

Native host transcripts (Claude Code, Codex CLI, OpenClaw) are read by :mod:`.native`, with the
provenance their host vouches for.

Trust (docs/trust.md): reverie did not see who wrote an imported message, so every imported event
is ``untrusted`` and the session's kind ``unknown``; a message that ``reverie forget`` removed
(its tombstone matches) is skipped and counted, so re-importing never restores it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import UserError
from ..models.base import ChatMessage, ToolCall
from ..timestamps import epoch_ms
from ..trust.tombstones import Tombstones, message_texts
from .store import SessionRow, TranscriptStore, message_to_dict

_ROLE_KIND = {"user": "user", "system": "system", "tool": "tool_result", "function": "tool_result"}


def _export_message(ev) -> dict | None:
    msg = ev.message
    if msg is None:
        return None
    out: dict = {"role": msg.role, "content": msg.content}
    if msg.tool_calls:
        out["tool_calls"] = [{"id": c.id, "type": "function",
                              "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                             for c in msg.tool_calls]
    if msg.tool_call_id:
        out["tool_call_id"] = msg.tool_call_id
    if msg.name and msg.role == "tool":
        out["name"] = msg.name
    out["timestamp"] = ev.timestamp
    return out


def export_lines(store: TranscriptStore, session: SessionRow, *, events: bool = False) -> Iterator[str]:
    for ev in store.events(session.session_id):
        if events:
            yield json.dumps(ev.data, ensure_ascii=False)
            continue
        if ev.kind == "system" and ev.data.get("message"):
            yield json.dumps({"role": "system", "content": ev.text, "timestamp": ev.timestamp}, ensure_ascii=False)
            continue
        item = _export_message(ev)
        if item is not None:
            yield json.dumps(item, ensure_ascii=False)


def _text(content, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict) and p.get("type") in ("text", "input_text", "output_text"):
                parts.append(str(p.get("text", "")))
        return "\n".join(parts)
    raise UserError(f"{where}: content must be a string or a list of text parts")


def _parse_message(d: dict, where: str) -> tuple[str, ChatMessage, str | None]:
    role = d.get("role")
    if role not in ("user", "assistant", "system", "tool", "function"):
        raise UserError(f"{where}: role must be user, assistant, system or tool, got {role!r}")
    content = _text(d.get("content"), where)
    calls = []
    raw_calls = d.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise UserError(f"{where}: tool_calls must be a list")
    for c in raw_calls:
        if not isinstance(c, dict) or not isinstance(c.get("function") or {}, dict):
            raise UserError(f"{where}: each tool call must be an object with a function object")
        fn = c.get("function") or {}
        args = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                args = {"_raw": args}
        calls.append(ToolCall(str(c.get("id") or ""), str(fn.get("name") or c.get("name") or ""), args))
    if role == "assistant":
        kind = "tool_call" if calls else "assistant"
    else:
        kind = _ROLE_KIND[role]
    msg = ChatMessage("tool" if kind == "tool_result" else role, content, calls,
                      d.get("tool_call_id"), d.get("name"))
    ts = d.get("timestamp") or d.get("created_at")
    return kind, msg, ts if isinstance(ts, str) else None


def parse_jsonl(lines: Iterable[str]) -> list[list[tuple[str, ChatMessage, str | None]]]:
    """Conversations, each a list of (event kind, message, timestamp)."""
    conversations: list[list] = []
    loose: list = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:
            d = json.loads(line)
        except ValueError as exc:
            raise UserError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(d, dict):
            raise UserError(f"{where}: expected a JSON object")
        if isinstance(d.get("messages"), list):
            conversations.append([_parse_message(m, f"{where}, message {i}") for i, m in enumerate(d["messages"], 1)
                                  if isinstance(m, dict)])
        else:
            loose.append(_parse_message(d, where))
    if loose:
        conversations.insert(0, loose)
    return conversations


def ms_of(ts: str | None) -> int | None:
    """Epoch milliseconds of an ISO 8601 time (``Z`` or an offset), None when it is not one."""
    return epoch_ms(ts) if isinstance(ts, str) else None


@dataclass
class ImportReport:
    sessions: list[str]
    messages: int
    forgotten: int = 0  # messages skipped because forget removed them

    def as_dict(self) -> dict:
        return {"sessions": self.sessions, "messages": self.messages, "forgotten": self.forgotten}


def import_jsonl(store: TranscriptStore, path: Path, *, session_key: str, chat_type: str, channel: str,
                 sender: str | None, dry_run: bool = False) -> ImportReport:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path}: {exc}") from None
    conversations = [c for c in parse_jsonl(text.splitlines()) if c]
    tombs = Tombstones(store.conn)
    forgotten = 0
    if tombs:
        kept = []
        for conv in conversations:
            left, dropped_calls = [], set()
            for m in conv:
                msg = m[1]
                texts = message_texts(msg.content, [c.arguments for c in msg.tool_calls])
                if any(tombs.forgotten(t) for t in texts) or (msg.tool_call_id and msg.tool_call_id in dropped_calls):
                    dropped_calls.update(c.id for c in msg.tool_calls)  # and the results answering it
                    continue
                left.append(m)
            forgotten += len(conv) - len(left)
            if left:
                kept.append(left)
        conversations = kept
    count = sum(len(c) for c in conversations)
    if dry_run:
        return ImportReport([], count, forgotten)
    ids = []
    for conv in conversations:
        first = next((ms_of(ts) for _, _, ts in conv if ms_of(ts)), None)
        session = store.start_session(session_key, chat_type=chat_type, channel=channel, sender=sender,
                                      origin="import", started_at=first, session_kind="unknown")
        try:
            for kind, msg, ts in conv:
                payload = {"message": message_to_dict(msg), "imported": True}
                store.append(session.session_id, kind, payload, at=ms_of(ts), origin="untrusted")
        finally:
            # an imported conversation is history, not an open chat, even if the import stopped
            store.end_session(session.session_id, "import")
        ids.append(session.session_id)
    return ImportReport(ids, count, forgotten)
