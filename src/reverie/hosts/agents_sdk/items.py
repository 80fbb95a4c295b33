"""The Agents SDK's conversation items <-> reverie's transcript, without importing the SDK.

The SDK keeps a conversation as Responses-API input items (plain dicts): messages
(``{"role": "user", "content": ...}``, an assistant ``{"type": "message", ...}``),
``function_call`` and ``function_call_output``. Reverie records messages (``HostMessage``) with who
wrote them; this module maps one to the other and back. Each recorded item gets a host id that a
retried ``add_items`` gives again (a response's own id, else the call id), so nothing is recorded
twice. A user message has none to give: the newest is recorded by ``before_model``, which knows a
retried turn by its words and place.

What reverie cannot hold is left out of the history it gives back, and said so once in the log:
reasoning items, hosted tool calls (web search, file search, computer use, MCP approvals), and the
non-text parts of a message (images, files). A handoff's output is the SDK passing the conversation
to another agent of the same program: recorded as scaffolding (``system``), not as outside content.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from ...sessions.host import HostMessage, ToolCallPart, tool_result_origin

FAKE_ID = "__fake_id__"  # the SDK's placeholder id for items of APIs without ids (Chat Completions)


def text_of(content: Any) -> str:
    """The text of a message's content or a tool's output: a string, or the text of its parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                text = part.get("text") if part.get("type") != "refusal" else part.get("refusal")
                if isinstance(text, str) and text:
                    parts.append(text)
        return "\n".join(parts)
    if isinstance(content, dict):
        return text_of(content.get("text") or content.get("content"))
    return str(content)


def as_dict(item: Any) -> dict:
    """An input item as a dict (the SDK may hand over its pydantic models)."""
    if isinstance(item, dict):
        return item
    dump = getattr(item, "model_dump", None)
    return dump(exclude_unset=True) if callable(dump) else {}


def role_of(item: dict) -> str | None:
    """``user``, ``assistant``, ``system`` for a message item, None for anything else."""
    if item.get("type", "message") != "message":
        return None
    role = item.get("role")
    if role == "developer":
        return "system"
    return role if role in ("user", "assistant", "system") else None


def newest_user(items: list) -> tuple[int, str]:
    """(how many user messages, the text of the newest) in a list of input items."""
    count, text = 0, ""
    for item in items:
        d = as_dict(item)
        if role_of(d) == "user":
            count, text = count + 1, text_of(d.get("content"))
    return count, text


def _host_id(item: dict, prefix: str) -> str | None:
    """The id a retried add gives again: the item's own id, else the id of the response it came in."""
    own = item.get("id")
    if isinstance(own, str) and own and own != FAKE_ID:
        return f"{prefix}:{own}"
    response = (item.get("provider_data") or {}).get("response_id") if isinstance(item.get("provider_data"),
                                                                                  dict) else None
    return f"{prefix}:{response}" if response else None


def _arguments(raw: Any) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"_raw": str(raw)}  # kept as given: the model's history shows what it sent
    return parsed if isinstance(parsed, dict) else {"_raw": parsed}


def to_host(items: Iterable[dict], tool_name, *, reverie_tools: frozenset[str], handoffs: frozenset[str] = frozenset(),
            user_origin: str = "owner") -> tuple[list[HostMessage], list[str]]:
    """(the messages to record, the item types left out). ``tool_name(call_id)`` names the tool a
    result answers; ``user_origin`` is who the user messages are (the owner, unless the program
    says its users are not)."""
    out: list[HostMessage] = []
    skipped: list[str] = []
    for item in items:
        kind = item.get("type", "message")
        role = role_of(item)
        if role == "user":
            out.append(HostMessage("user", text_of(item.get("content")), user_origin))
        elif role == "assistant":
            out.append(HostMessage("assistant", text_of(item.get("content")), "agent",
                                   host_id=_host_id(item, "msg")))
        elif role == "system":
            out.append(HostMessage("system", text_of(item.get("content")), "system"))
        elif kind == "function_call":
            call = ToolCallPart(str(item.get("call_id") or ""), str(item.get("name") or ""),
                                _arguments(item.get("arguments")))
            out.append(HostMessage("tool_call", "", "agent", tool_calls=(call,), host_id=f"call:{call.id}"))
        elif kind == "function_call_output":
            call_id = str(item.get("call_id") or "")
            name = tool_name(call_id) or "tool"
            # reverie's own tools by the names the kit gave them; any other tool brings outside content,
            # except a handoff, which is the SDK passing the conversation to another agent of the program
            if name in handoffs:  # recorded as scaffolding (a tool result of a non-reverie tool would taint)
                out.append(HostMessage("system", text_of(item.get("output")), "system", host_id=f"out:{call_id}"))
                continue
            origin = tool_result_origin(name) if name in reverie_tools else "untrusted"
            out.append(HostMessage("tool_result", text_of(item.get("output")), origin, tool_name=name,
                                   tool_call_id=call_id, host_id=f"out:{call_id}"))
        else:
            skipped.append(str(kind))
    return out, skipped


def from_event(kind: str, data: dict) -> list[dict]:
    """The SDK items of one transcript event (a tool-call event may hold several calls)."""
    message = data.get("message") if isinstance(data.get("message"), dict) else {}
    text = message.get("content") or ""
    if kind == "user":
        return [{"role": "user", "content": text}]
    if kind == "assistant":
        return [{"role": "assistant", "content": text}]
    if kind == "tool_call":
        out: list[dict] = [{"role": "assistant", "content": text}] if text else []
        for call in message.get("toolCalls") or []:
            args = call.get("arguments") or {}
            raw = args["_raw"] if set(args) == {"_raw"} and isinstance(args["_raw"], str) else json.dumps(args)
            out.append({"type": "function_call", "call_id": call.get("id") or "", "name": call.get("name") or "",
                        "arguments": raw})
        return out
    if kind == "tool_result":
        return [{"type": "function_call_output", "call_id": message.get("toolCallId") or "", "output": text}]
    if kind == "system" and data.get("event") == "host":
        host_id = str(data.get("hostId") or "")
        if host_id.startswith("out:"):  # a handoff's output, recorded as scaffolding
            return [{"type": "function_call_output", "call_id": host_id[4:], "output": data.get("text") or ""}]
        return [{"role": "system", "content": data.get("text") or ""}]
    return []
