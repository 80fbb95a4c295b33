"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``.

Every line is ``{"timestamp", "type", "payload"}``. ``session_meta`` opens the file (``id``,
``cwd``, ``cli_version``...). Two logs interleave: ``response_item`` lines are what the model
exchanged (``message`` with role ``user``/``assistant``/``developer`` and ``input_text`` /
``output_text`` parts, ``function_call`` {name, namespace?, arguments as a JSON string, call_id},
``function_call_output`` {call_id, output}, ``custom_tool_call`` (apply_patch), ``local_shell_call``,
``web_search_call``, ``reasoning``); ``event_msg`` lines are what the terminal shows, mirrors of the
same turns (``user_message``, ``agent_message``, ``exec_command_end``, ``token_count``...).
Messages are read from ``response_item`` only; ``event_msg``, ``turn_context`` and ``compacted``
are counted. When Codex compacts, its model's summary is kept as an ``assistant`` message before
the ``compacted`` line (whose ``message`` ends with it): that one is Codex's, read as ``system``.
Rollouts of 2025 have no envelope: a bare header ``{id, timestamp, instructions}``, bare response
items and ``{"record_type": "state"}`` lines; they are read the same way. Learned from openai/codex
(``codex-rs/protocol/src/models.rs``: ``ResponseItem``, ``FunctionCallOutputPayload``) and public
descriptions of rollouts.

Who wrote what: Codex sends its scaffolding (AGENTS.md, ``<environment_context>``, permission
instructions) as ``user`` messages too; a user message is the owner's when an ``event_msg``
``user_message`` shows the same text (Codex writes one for each prompt typed), else it is
``system``; without any ``user_message`` (older rollouts) the known scaffolding tags decide. MCP
tools are named ``<server>__<tool>`` or ``mcp__<server>__<tool>``, newer releases put the server
in ``namespace``; reverie's appear as ``reverie__memory_search`` or ``mcp__reverie__memory_search``.
An MCP result is kept by Codex as its content blocks in JSON: unwrapped to their text.
"""

from __future__ import annotations

import json
import re
from typing import Iterable

from ..host import HostMessage, ToolCallPart
from . import Parsed, Skipped, json_lines
from .common import arguments, blocks_text, line_id, mcp_text, timestamp, tool_call, tool_result

_SCAFFOLDING = ("<environment_context>", "<user_instructions>", "<permissions instructions>", "<INSTRUCTIONS>",
                "# AGENTS.md instructions", "<turn_aborted>", "<user_shell_command>", "<skill>")
_COUNTED = ("event_msg", "turn_context", "compacted")
ITEMS = ("message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
         "local_shell_call", "web_search_call")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


# Codex 0.171 puts a header of its own before a tool's output (one input_text item): the output is what follows
_WALL_TIME = re.compile(r"\AWall time: [0-9.]+ seconds\r?\nOutput:\r?\n?")


def _output_text(output) -> str:
    """A tool's output as Codex kept it: a string (a shell's ``{"output", "metadata"}``, an MCP
    result's content blocks in JSON), an object ``{content, success}``, or content items (since
    0.171 led by a ``Wall time: ... Output:`` header, left out here)."""
    if isinstance(output, dict):
        output = output.get("content", output)
    text = output if isinstance(output, str) else blocks_text(output) if isinstance(output, list) else \
        json.dumps(output, ensure_ascii=False)
    text = _WALL_TIME.sub("", text, count=1)
    try:
        value = json.loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        value = None
    if isinstance(value, dict) and isinstance(value.get("output"), str) and "metadata" in value:
        return value["output"]
    return mcp_text(text)


def _call(p: dict, host_id: str, at: str | None) -> tuple[ToolCallPart, HostMessage]:
    kind = p.get("type")
    call_id = str(p.get("call_id") or p.get("id") or host_id)
    if kind == "function_call":
        name = str(p.get("name") or "")
        if p.get("namespace"):
            name = f"{p['namespace']}__{name}"
        args = arguments(p.get("arguments"))
    elif kind == "custom_tool_call":
        name, args = str(p.get("name") or ""), {"input": p.get("input")}
    elif kind == "local_shell_call":
        name, args = "local_shell", arguments(p.get("action"))
    else:
        name, args = "web_search", arguments(p.get("action"))
    part = ToolCallPart(call_id, name, args)
    return part, tool_call("", [part], host_id, at)


def _enveloped(d: dict) -> dict:
    """A line of the 2025 rollouts (before the envelope: a bare header ``{id, timestamp,
    instructions}``, bare response items, ``{"record_type": "state"}``) in today's shape."""
    if "payload" in d:
        return d
    if d.get("record_type") == "state":
        return {"type": "state", "payload": {}}
    if "type" not in d and "id" in d and "timestamp" in d:
        return {"type": "session_meta", "timestamp": d.get("timestamp"), "payload": d}
    if d.get("type") in ITEMS:
        return {"type": "response_item", "payload": d}
    return d


def parse_lines(lines: Iterable[str]) -> Parsed:
    skipped = Skipped()
    rows = [(n, _enveloped(d), raw) for n, d, raw in json_lines(lines, skipped)]
    typed = {(p.get("message") or "").strip() for _, d, _ in rows if d.get("type") == "event_msg"
             for p in [d.get("payload") or {}] if p.get("type") == "user_message" and isinstance(p.get("message"), str)}
    # Codex's compaction summary: its model's answer to Codex's compaction prompt, kept as an assistant
    # message before the ``compacted`` line whose message ends with it (0.171): Codex's, not the agent's
    summaries = [p["message"].strip() for _, d, _ in rows if d.get("type") == "compacted"
                 for p in [d.get("payload") or {}] if isinstance(p.get("message"), str)]
    out = Parsed([], skipped)
    tools: dict[str, str] = {}
    for n, d, raw in rows:
        kind, p, at = d.get("type"), d.get("payload"), timestamp(d.get("timestamp"))
        if not isinstance(p, dict) or kind not in ("session_meta", "response_item", "state") + _COUNTED:
            skipped.problem(n, f"unknown line type {kind!r}", str(kind))
            continue
        out.recognised += 1
        if kind == "session_meta":
            out.session_id = out.session_id or (p.get("id") if isinstance(p.get("id"), str) else None)
            out.cwd = out.cwd or (p.get("cwd") if isinstance(p.get("cwd"), str) else None)
            continue
        if kind in _COUNTED or kind == "state":
            skipped.count(f"{kind} ({p.get('type')})" if kind == "event_msg" else kind)
            continue
        item, host_id = p.get("type"), line_id(raw)
        if item == "message":
            text, role = blocks_text(p.get("content")), p.get("role")
            if not text.strip():
                skipped.count(f"response_item (empty {role} message)")
            elif role == "assistant" and any(m == text.strip() or m.endswith("\n" + text.strip()) for m in summaries):
                out.messages.append(HostMessage("system", text, "system", host_id=host_id, timestamp=at))
            elif role == "assistant":
                out.messages.append(HostMessage("assistant", text, "agent", host_id=host_id, timestamp=at))
            elif role == "user" and (text.strip() in typed if typed else not text.lstrip().startswith(_SCAFFOLDING)):
                out.messages.append(HostMessage("user", text, "owner", host_id=host_id, timestamp=at))
            else:  # Codex's own instructions and context, sent in the user's or developer's name
                out.messages.append(HostMessage("system", text, "system", host_id=host_id, timestamp=at))
        elif item in _CALLS:
            part, msg = _call(p, host_id, at)
            tools[part.id] = part.name
            out.messages.append(msg)
        elif item in _OUTPUTS:
            call_id = str(p.get("call_id") or "")
            out.messages.append(tool_result(_output_text(p.get("output")), tools.get(call_id), call_id or None,
                                            host_id, at))
        else:
            skipped.count(f"response_item ({item})")
    return out
