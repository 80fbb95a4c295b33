"""A conversation message as a host that owns the conversation gives it to reverie.

Hosts (Claude Code, Codex CLI, OpenClaw, the Agents SDK, LangGraph) keep their own transcripts in
their own formats; their adapters turn each message into a :class:`HostMessage` with the
provenance the host vouches for, and reverie records those (the sidecar, ``reverie sessions
import``). The host declares who wrote a message, never the text: the owner's turns ``owner``, the
agent's ``agent``, tool output from anything but reverie ``untrusted``, system and cron preambles
``system``; a result of one of reverie's own recall tools is ``recall`` (what memory said, marked
so that it is never written back into memory). A message whose writer the host cannot vouch for
is ``untrusted``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ROLES = ("user", "assistant", "tool_call", "tool_result", "system")
ORIGINS = ("owner", "agent", "untrusted", "system", "recall")
# reverie's own tools as hosts name them: MCP hosts prefix the server's name (Claude Code
# ``mcp__reverie__memory_search``, Codex ``reverie.memory_search``); in-process hosts use the bare name
RECALL_TOOL_NAMES = ("memory_search", "memory_get")
_TOOL_REFERENCE = re.compile(r"\[tool [A-Za-z0-9_.:-]{1,128}\]", re.ASCII)
# the host's own tool that loads deferred tools (Claude Code); another server's tool of that name is
# ``mcp__<server>__ToolSearch``, never this
TOOL_LOADERS = ("ToolSearch",)


@dataclass(frozen=True)
class ToolCallPart:
    id: str
    name: str
    arguments: dict = field(default_factory=dict)


@dataclass(frozen=True)
class HostMessage:
    role: str  # one of ROLES
    text: str
    origin: str  # one of ORIGINS
    tool_calls: tuple[ToolCallPart, ...] = ()  # role "tool_call": the calls the assistant made
    tool_name: str | None = None  # role "tool_result": which tool answered
    tool_call_id: str | None = None  # role "tool_result": the call it answers
    host_id: str | None = None  # the host's own id for this message (a retried hook records it once)
    timestamp: str | None = None  # ISO 8601, as the host recorded it

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, got {self.role!r}")
        if self.origin not in ORIGINS:
            raise ValueError(f"origin must be one of {', '.join(ORIGINS)}, got {self.origin!r}")


def reverie_tool(name: str | None) -> str | None:
    """The bare name of one of reverie's own tools as a host named it, or None for any other tool
    (``mcp__reverie__memory_search`` -> ``memory_search``; ``mcp__other__memory_search`` -> None)."""
    if not name:
        return None
    for prefix in ("mcp__reverie__", "reverie.", "reverie__", "reverie_", ""):
        if name.startswith(prefix):
            bare = name[len(prefix):]
            if prefix == "" and name.startswith("mcp__"):
                return None  # another MCP server's tool of the same name
            from ..trust import RECALL_TOOLS

            return bare if bare in RECALL_TOOLS or bare in ("memory_append", "memory_context", "intent_list") or \
                bare.startswith("table_") else None
    return None


def tool_result_origin(name: str | None, text: str = "") -> str:
    """The class of a tool result by the tool that gave it: reverie's recall tools ``recall``,
    reverie's other tools ``agent`` (their results are reverie's own words), a host's answer that
    only loads tools ``system`` (:func:`loads_tools_only`), any other tool ``untrusted`` (outside
    content: web pages, files, other servers)."""
    bare = reverie_tool(name)
    if bare is None:
        return "system" if loads_tools_only(name, text) else "untrusted"
    return "recall" if bare in RECALL_TOOL_NAMES else "agent"


def loads_tools_only(name: str | None, text: str) -> bool:
    """Whether a tool result is the host loading tools: its own loader (Claude Code's ToolSearch,
    loading deferred tools, reverie's among them, before the agent may call them) answering with
    nothing but tool references (``[tool NAME]`` lines, ASCII names). Host scaffolding, not outside
    content: it taints nothing, so an agent that loads ``memory_append`` and then saves the owner's
    words saves them as its own. Any other tool's answer, whatever its words, is outside content."""
    if name not in TOOL_LOADERS:
        return False
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return bool(lines) and all(_TOOL_REFERENCE.fullmatch(line) for line in lines)
