"""A LangGraph conversation (LangChain messages) as the sidecar's host messages, with provenance.

The program is the witness of who wrote what (docs/hosts/sidecar.md): a ``HumanMessage`` is the
owner's (or, in a graph serving other people, ``untrusted``); an ``AIMessage`` the agent's; a
``ToolMessage`` of reverie's own recall tools (``memory_search``, ``memory_get``) is ``recall``, of
reverie's other tools the agent's, of any other tool ``untrusted``; a ``SystemMessage`` scaffolding.
Reverie's tools are known by the names this program was given them under (:meth:`GraphMemory.tools`,
or named by the program for tools it loads over MCP): a tool of someone else's that happens to be
called ``memory_search`` is outside content like any other. Host ids are the messages' own ids, so
a step that runs twice records nothing twice.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from ...sessions.host import HostMessage, ToolCallPart, reverie_tool, tool_result_origin


def text_of(message: Any) -> str:
    text = getattr(message, "text", "")
    if isinstance(text, str):  # a property since langchain-core 1.0 (a str that is also callable)
        return str(text)
    return str(text() or "") if callable(text) else ""  # a method before


def kind_of(message: Any) -> str:
    """human | ai | tool | system | other (by LangChain's own ``type`` field)."""
    kind = getattr(message, "type", None)
    return kind if kind in ("human", "ai", "tool", "system") else "other"


def messages_of(state: Any) -> list:
    """The ``messages`` of a graph state (a dict, or a pydantic/dataclass state)."""
    if isinstance(state, dict):
        return list(state.get("messages") or [])
    return list(getattr(state, "messages", None) or [])


def newest_turn(messages: list) -> tuple[int, list]:
    """(index of the newest human message, the messages from it on); (-1, all) when there is none."""
    for i in range(len(messages) - 1, -1, -1):
        if kind_of(messages[i]) == "human":
            return i, messages[i:]
    return -1, list(messages)


def previous_turn(messages: list) -> list:
    """The turn before the newest one (what a step that failed may have left unrecorded)."""
    i, _ = newest_turn(messages)
    if i <= 0:
        return []
    j, turn = newest_turn(messages[:i])
    return turn if j >= 0 else []


def tool_origin(name: str | None, reverie_tools: set[str]) -> str:
    """recall | agent | untrusted: reverie's tools only by the names the program gave them."""
    if name and name in reverie_tools:
        return tool_result_origin(name)
    return "untrusted"


def to_host(messages: Iterable, *, owner: bool, reverie_tools: set[str]) -> list[HostMessage]:
    out: list[HostMessage] = []
    for m in messages:
        kind, text, mid = kind_of(m), text_of(m), getattr(m, "id", None) or None
        if kind == "human":
            out.append(HostMessage("user", text, "owner" if owner else "untrusted", host_id=mid))
        elif kind == "ai":
            calls = tuple(ToolCallPart(str(c.get("id") or ""), str(c.get("name") or ""), dict(c.get("args") or {}))
                          for c in getattr(m, "tool_calls", None) or [])
            out.append(HostMessage("tool_call" if calls else "assistant", text, "agent", tool_calls=calls, host_id=mid))
        elif kind == "tool":
            name = getattr(m, "name", None)
            out.append(HostMessage("tool_result", text, tool_origin(name, reverie_tools), tool_name=name,
                                   tool_call_id=getattr(m, "tool_call_id", None), host_id=mid))
        elif kind == "system":
            out.append(HostMessage("system", text, "system", host_id=mid))
    return out


def read_untrusted(turn: Iterable, reverie_tools: set[str]) -> list[str]:
    """Why the turn is tainted: the tools whose output it read that came from outside, and recall
    results holding untrusted memory. Empty when what the agent says now is still its own."""
    from ...trust import items_from_result

    why = []
    for m in turn:
        if kind_of(m) != "tool":
            continue
        name = getattr(m, "name", None) or "tool"
        origin = tool_origin(name, reverie_tools)
        if origin == "untrusted":
            why.append(name)
        elif origin == "recall":
            try:
                parsed = json.loads(text_of(m))
            except ValueError:
                continue
            found = items_from_result(reverie_tool(name) or name, parsed) if isinstance(parsed, dict) else []
            if any(i.origin and i.origin not in ("owner", "agent") for i in found):
                why.append(f"{name} returned untrusted memory")
    return why
