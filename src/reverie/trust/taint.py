"""Taint: what the agent writes after reading untrusted content is untrusted too.

A :class:`ToolSession` runs the tool calls of one chat turn (or of one MCP connection, which has no
turns) and keeps the class of the least trusted thing read so far:

* a tool declared ``origin="untrusted"`` (web fetch, HTTP, e-mail, files outside the workspace, MCP
  tools of other servers) taints with its result, which is also framed as untrusted;
* reverie's own recall tools (``origin`` left ``None``) taint with the least trusted provenance
  their results carry (an untrusted search hit read by the agent taints like a web page);
* every call runs inside :func:`reverie.trust.writer.writing_as` with the current writer, so a
  ``memory_append`` after an untrusted result writes an untrusted segment.

In the chat runtime the taint lasts to the end of the turn; a session that holds a non-owner's
message in a group or channel starts every turn tainted (see ``Runtime``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from .classes import Provenance, least_trusted
from .framing import frame_result
from .writer import writing_as


def result_origin(tool: Any, result: Any) -> str:
    """The class of what a tool call put into the context."""
    declared = getattr(tool, "origin", None)
    if declared:
        return declared
    found: list[str] = []
    if isinstance(result, dict):
        if result.get("untrusted") is True:
            found.append("untrusted")
        prov = result.get("provenance")
        if isinstance(prov, dict) and prov.get("originClass"):
            found.append(prov["originClass"])
        for key in ("results", "messages"):
            for item in result.get(key) or []:
                if not isinstance(item, dict):
                    continue
                p = item.get("provenance") if isinstance(item.get("provenance"), dict) else {}
                cls = p.get("originClass") or item.get("originClass")
                if cls:
                    found.append(cls)
                if item.get("untrusted") is True:
                    found.append("untrusted")
    try:
        return least_trusted(*found) if found else "agent"
    except ValueError:  # a class we do not know is not one we trust
        return "untrusted"


@dataclass
class ToolSession:
    """Runs tool calls with taint tracking; ``base`` is the writer before anything was read."""

    base: Provenance
    taint: str = field(init=False)
    reasons: list[str] = field(default_factory=list)
    context: str = field(init=False)  # what recalls made through it are counted under

    def __post_init__(self) -> None:
        self.taint = self.base.origin
        # the session it writes for; without one (an MCP connection that declared none) itself
        self.context = self.base.session_id or f"tools:{uuid.uuid4().hex[:12]}"

    def writer(self, tool_name: str | None = None) -> Provenance:
        return Provenance(least_trusted(self.base.origin, self.taint), self.base.kind, self.base.session_id,
                          tool_name or self.base.writer)

    def observe(self, origin: str, why: str) -> None:
        if origin == "system":
            # scaffolding is reverie's own (a session note's header, a cron preamble): it carries
            # no outside instruction, and reading it (a memory search finding a session note)
            # made every later write of the turn scaffolding, never promoted nor injected
            return
        before = self.taint
        self.taint = least_trusted(self.taint, origin)
        if self.taint != before:
            self.reasons.append(f"{why}: {origin}")

    def call(self, tool: Any, arguments: dict | None) -> tuple[dict, str]:
        """Run one call; returns (result as the model should see it, its origin class)."""
        with writing_as(self.writer(tool.name), self.context):
            result = tool.call(arguments)
        origin = result_origin(tool, result)
        if getattr(tool, "origin", None) == "untrusted":
            result = frame_result(result, tool.name)
        self.observe(origin, tool.name)
        return result, origin
