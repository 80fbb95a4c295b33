"""What the host parsers share: the text of content blocks, tool arguments, MCP results, ids."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..host import HostMessage, ToolCallPart, tool_result_origin

TEXT_PARTS = ("text", "input_text", "output_text")


def blocks_text(content: Any) -> str:
    """The text of a message or tool-result content: a string, or a list of blocks whose text
    parts are joined (an image stands as ``[image]``; other parts have no text)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return blocks_text([content])
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind in TEXT_PARTS and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind in ("image", "input_image"):
                parts.append("[image]")
            elif kind == "tool_reference" and block.get("tool_name"):  # Claude Code's ToolSearch answer
                parts.append(f"[tool {block['tool_name']}]")
    return "\n".join(p for p in parts if p)


def mcp_text(text: str) -> str:
    """An MCP tool's answer as its text: hosts that keep the raw ``CallToolResult`` content
    (Codex writes the content blocks as a JSON string) are unwrapped to the blocks' text, so that
    reverie's own JSON answer reads as JSON again; anything else is returned as it is."""
    stripped = text.strip()
    if not stripped.startswith(("[", "{")):
        return text
    try:
        value = json.loads(stripped)
    except ValueError:
        return text
    if isinstance(value, dict) and isinstance(value.get("content"), list) and "isError" in value:
        value = value["content"]
    if isinstance(value, list) and value and all(isinstance(b, dict) and b.get("type") in TEXT_PARTS + ("image",)
                                                 for b in value):
        return blocks_text(value)
    return text


def arguments(raw: Any) -> dict:
    """Tool-call arguments as an object: JSON text is parsed; anything else is kept under ``_raw``
    (the store's shape, as :func:`reverie.sessions.jsonl.parse_jsonl` keeps it)."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except ValueError:
            return {"_raw": raw}
        return value if isinstance(value, dict) else {"_raw": value}
    return {} if raw is None else {"_raw": raw}


def line_id(raw: str) -> str:
    """A stable id for a line of a host that gives its lines none (Codex): the line's own hash, so
    the same line imported twice is recognised wherever it sits in the file."""
    return "sha1:" + hashlib.sha1(raw.strip().encode("utf-8", "surrogatepass")).hexdigest()[:20]


def tool_call(text: str, calls: list[ToolCallPart], host_id: str | None, at: str | None) -> HostMessage:
    return HostMessage("tool_call", text, "agent", tuple(calls), host_id=host_id, timestamp=at)


def tool_result(text: str, name: str | None, call_id: str | None, host_id: str | None, at: str | None) -> HostMessage:
    """A tool's answer, classed by the tool that gave it (reverie's recall tools ``recall``)."""
    return HostMessage("tool_result", text, tool_result_origin(name, text), tool_name=name, tool_call_id=call_id,
                       host_id=host_id, timestamp=at)


def timestamp(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
