"""OpenClaw session transcripts: ``~/.openclaw/agents/<agent>/sessions/<session id>.jsonl``.

OpenClaw writes them through pi-coding-agent's ``SessionManager`` (openclaw
``src/config/sessions/transcript.ts``; badlogic/pi-mono ``packages/coding-agent/src/core/
session-manager.ts``, format version 3). The first line is the header ``{"type": "session",
"version", "id", "timestamp", "cwd"}``; every later entry has an ``id`` (8 hex digits) and a
``parentId``. ``message`` entries hold a message with role ``user``, ``assistant`` (content parts
``text``, ``thinking``, ``toolCall`` {id, name, arguments}), ``toolResult`` (``toolCallId``,
``toolName``, text parts, ``isError``), ``bashExecution`` (a ``!`` command the owner ran, with its
output) or ``custom`` (an extension's message; ``hookMessage`` before version 3).
``custom_message`` entries are extension messages put into the model's context; ``compaction``,
``branch_summary``, ``model_change``, ``thinking_level_change``, ``custom``, ``label`` and
``session_info`` are bookkeeping.

Who wrote what: ``user`` messages are the owner's (the transcript does not name the sender: a
group chat must be imported as one, see :func:`chat_type_hint`); extension messages are
``system``; a ``!`` command's output is ``untrusted``. reverie's tools appear under their bare
names (``memory_search``) when reverie is OpenClaw's memory plugin.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..host import HostMessage, ToolCallPart
from ..keys import chat_type_of
from . import Parsed, Skipped, json_lines
from .common import arguments, blocks_text, timestamp, tool_call, tool_result

BOOKKEEPING = frozenset({"compaction", "branch_summary", "model_change", "thinking_level_change", "custom", "label",
                         "session_info"})


def _message(n: int, d: dict, out: Parsed, skipped: Skipped) -> None:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    role, mid, at = msg.get("role"), d.get("id"), timestamp(d.get("timestamp"))
    content = msg.get("content")
    if role == "user":
        text = blocks_text(content)
        if text.strip():
            out.messages.append(HostMessage("user", text, "owner", host_id=mid, timestamp=at))
            return
    elif role == "assistant":
        texts, calls = [], []
        for part in content if isinstance(content, list) else [content]:
            if isinstance(part, dict) and part.get("type") == "toolCall":
                calls.append(ToolCallPart(str(part.get("id") or ""), str(part.get("name") or ""),
                                          arguments(part.get("arguments"))))
            elif not (isinstance(part, dict) and part.get("type") == "thinking"):
                texts.append(blocks_text(part))
        text = "\n".join(t for t in texts if t)
        if calls:
            out.messages.append(tool_call(text, calls, mid, at))
            return
        if text.strip():
            out.messages.append(HostMessage("assistant", text, "agent", host_id=mid, timestamp=at))
            return
    elif role == "toolResult":
        call = str(msg.get("toolCallId") or "")
        name = msg.get("toolName") if isinstance(msg.get("toolName"), str) else None
        out.messages.append(tool_result(blocks_text(content), name, call or None, mid, at))
        return
    elif role == "bashExecution":
        text = f"!{msg.get('command') or ''}\n{msg.get('output') or ''}".strip()
        out.messages.append(HostMessage("system", text, "untrusted", host_id=mid, timestamp=at))
        return
    elif role in ("custom", "hookMessage"):
        text = blocks_text(content)
        if text.strip():
            out.messages.append(HostMessage("system", text, "system", host_id=mid, timestamp=at))
            return
    else:
        skipped.problem(n, f"unknown message role {role!r}", f"message ({role})")
        return
    skipped.count(f"message ({role}, no text)")


def parse_lines(lines: Iterable[str]) -> Parsed:
    skipped = Skipped()
    out = Parsed([], skipped)
    for n, d, _ in json_lines(lines, skipped):
        kind = d.get("type")
        if kind == "session":
            out.recognised += 1
            out.session_id = out.session_id or (d.get("id") if isinstance(d.get("id"), str) else None)
            out.cwd = out.cwd or (d.get("cwd") if isinstance(d.get("cwd"), str) else None)
        elif kind == "message" and isinstance(d.get("message"), dict):
            out.recognised += 1
            _message(n, d, out, skipped)
        elif kind == "custom_message":
            out.recognised += 1
            text = blocks_text(d.get("content"))
            if text.strip():  # an extension's words in the model's context, not the owner's
                out.messages.append(HostMessage("system", text, "system", host_id=d.get("id"),
                                                timestamp=timestamp(d.get("timestamp"))))
            else:
                skipped.count("custom_message (no text)")
        elif kind in BOOKKEEPING:
            out.recognised += 1
            skipped.count(kind)
        else:
            skipped.problem(n, f"unknown line type {kind!r}", str(kind))
    return out


def chat_type_hint(path: Path) -> str | None:
    """``group`` when OpenClaw's ``sessions.json`` beside the transcript files it under a group or
    channel key (its user messages are then not all the owner's), ``direct`` when under another
    key, None when it does not say."""
    try:
        index = json.loads((Path(path).parent / "sessions.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    sid = Path(path).name.split(".jsonl", 1)[0]
    for key, entry in index.items() if isinstance(index, dict) else []:
        if isinstance(entry, dict) and sid in (entry.get("sessionId"), Path(str(entry.get("sessionFile") or "")).stem):
            return chat_type_of(str(key))
    return None
