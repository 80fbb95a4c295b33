"""OpenClaw's session transcripts (``agents/<agent>/sessions/<sessionId>.jsonl``) read into
reverie sessions.

Each line of such a file is one entry: a ``session`` header (id, timestamp, cwd), ``message``
entries whose ``message`` has role ``user``, ``assistant`` (content parts ``text``, ``thinking``,
``toolCall``) or ``toolResult`` (``toolCallId``, ``toolName``), ``compaction`` entries with the
summary, and bookkeeping (``model_change``, ``thinking_level_change``, ``custom``...). Messages
become reverie events (user, assistant, tool_call, tool_result), a compaction summary becomes a
system event, and what has no counterpart (thinking, images, bookkeeping) is counted as left.
``sessions.json`` in the same folder maps session keys to session ids; a key names its agent,
which is rewritten to the destination agent.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..models.base import ChatMessage, ToolCall
from ..sessions import channel_of, chat_type_of, normalize_key
from ..sessions.store import message_to_dict
from ..timestamps import epoch_ms

UNKNOWN_KEY = "import:openclaw"


def ms(value) -> int | None:
    """Epoch milliseconds from an ISO string or a number (OpenClaw writes both)."""
    return epoch_ms(value)


@dataclass
class ParsedSession:
    session_id: str
    events: list[tuple[str, dict, int | None, str | None]] = field(default_factory=list)
    left: Counter = field(default_factory=Counter)
    started_at: int | None = None
    model: str | None = None
    bad_lines: int = 0


def _parts(content) -> tuple[list[str], list[ToolCall], Counter]:
    texts: list[str] = []
    calls: list[ToolCall] = []
    left: Counter = Counter()
    if isinstance(content, str):
        return [content], calls, left
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            texts.append(part)
            continue
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("text", "input_text", "output_text"):
            texts.append(str(part.get("text") or ""))
        elif kind in ("toolCall", "tool_use"):
            args = part.get("arguments", part.get("input", {}))
            calls.append(ToolCall(str(part.get("id") or ""), str(part.get("name") or ""),
                                  args if isinstance(args, dict) else {"_raw": args}))
        else:
            left[f"{kind or 'unknown'} content parts"] += 1
    return texts, calls, left


def _message(entry: dict, out: ParsedSession) -> None:
    msg = entry.get("message")
    if not isinstance(msg, dict):
        out.left["message entries without a message"] += 1
        return
    role = msg.get("role")
    at = ms(entry.get("timestamp")) or ms(msg.get("timestamp"))
    texts, calls, left = _parts(msg.get("content"))
    out.left.update(left)
    text = "\n".join(t for t in texts if t)
    if role == "user":
        kind, chat = "user", ChatMessage("user", text)
    elif role == "assistant":
        if not text and not calls:
            out.left["assistant messages with nothing but thinking"] += 1
            return
        kind, chat = ("tool_call" if calls else "assistant"), ChatMessage("assistant", text, calls)
        if msg.get("model"):
            out.model = f"{msg.get('provider') or 'openclaw'}:{msg['model']}"
    elif role == "toolResult":
        kind = "tool_result"
        chat = ChatMessage("tool", text, tool_call_id=msg.get("toolCallId"), name=msg.get("toolName"))
    else:
        out.left[f"{role or 'unknown'} messages"] += 1
        return
    payload = {"message": message_to_dict(chat), "imported": "openclaw"}
    if role == "toolResult" and msg.get("isError"):
        payload["isError"] = True
    out.events.append((kind, payload, at, None))


def parse(path: Path) -> ParsedSession:
    """One transcript file; a line that is not a JSON object is counted, never fatal."""
    out = ParsedSession(path.name.split(".jsonl", 1)[0])
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                out.bad_lines += 1
                continue
            if not isinstance(entry, dict):
                out.bad_lines += 1
                continue
            kind = entry.get("type")
            if kind == "session":
                out.session_id = str(entry.get("id") or out.session_id)
                out.started_at = ms(entry.get("timestamp"))
            elif kind == "message":
                _message(entry, out)
            elif kind == "compaction" and entry.get("summary"):
                out.events.append(("system", {"text": f"Compaction summary (imported from OpenClaw):\n{entry['summary']}",
                                              "event": "imported-compaction", "imported": "openclaw"},
                                   ms(entry.get("timestamp")), None))
            else:
                out.left[f"{kind or 'untyped'} entries"] += 1
    return out


def session_keys(sessions_dir: Path) -> dict[str, str]:
    """session id -> session key, from OpenClaw's ``sessions.json`` (empty when absent or unreadable)."""
    try:
        data = json.loads((sessions_dir / "sessions.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    if isinstance(data, dict):
        for key, entry in data.items():
            sid = entry.get("sessionId") if isinstance(entry, dict) else None
            if isinstance(sid, str):
                out[sid] = key
    return out


def reverie_key(openclaw_key: str | None, agent: str) -> str:
    """The key in the destination agent: ``agent:<any>:rest`` becomes ``agent:<agent>:rest``."""
    key = openclaw_key or UNKNOWN_KEY
    if key.startswith("agent:"):
        parts = key.split(":", 2)
        key = f"agent:{agent}:{parts[2]}" if len(parts) == 3 and parts[2] else UNKNOWN_KEY
    try:
        return normalize_key(key, agent)
    except Exception:
        return normalize_key(UNKNOWN_KEY, agent)


def session_row(parsed: ParsedSession, key: str) -> dict:
    times = [at for _, _, at, _ in parsed.events if at]
    first = parsed.started_at or (min(times) if times else None)
    last = max(times) if times else first
    return {"session_id": parsed.session_id, "session_key": key, "channel": channel_of(key),
            "chat_type": chat_type_of(key), "origin": "import", "model": parsed.model, "started_at": first,
            "last_interaction_at": last, "ended_at": last, "ended_reason": "import"}
