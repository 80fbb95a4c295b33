"""The agent's memory as an MCP server: which tools, opened when, closed how.

:func:`open_agent` is what ``reverie mcp`` and ``reverie serve`` serve for one agent; the memory is
opened the first time a client lists or calls a tool, never for the handshake.
:func:`build_server` serves a given list of tools (in-process clients, tests).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from .protocol import INSTRUCTIONS, Connection, Tools

__all__ = ["INSTRUCTIONS", "AgentServer", "build_server", "open_agent"]


def build_server(tools: list, name: str = "reverie", *,
                 diagnose: Callable[[BaseException], BaseException | None] | None = None) -> Connection:
    """One MCP connection serving ``tools`` with exactly their schemas and honest annotations."""
    return Connection(Tools(lambda: (list(tools), diagnose)), name=name)


class AgentServer:
    """One agent's memory behind MCP: opened lazily, indexed in the background once warm."""

    def __init__(self, *, home: Path | None = None, agent: str | None = None, workspace: Path | None = None,
                 overrides: list[str] | None = None, folder: Path | None = None):
        self._kw = dict(home=home, agent=agent, workspace=workspace, overrides=list(overrides or []))
        self._folder = folder
        self.memory = None
        self._closing = threading.Lock()
        self._closed = False
        self.tools = Tools(self._open, content=True)

    def _open(self):
        from ..api import Memory
        from ..recall.projects import folder_scope
        from ..repair import diagnose

        mem = Memory(**self._kw)
        if not mem.workspace.exists():
            mem.init()
        # the client's folder: memory_search ranks its project first
        mem.projects = folder_scope(mem.settings, folder=self._folder)
        with self._closing:
            if self._closed:  # the server stopped while this opened: nothing may start indexing now
                mem.close()
                raise RuntimeError("the server is stopping")
            self.memory = mem
        from .content import MemoryContent

        self.tools.content = MemoryContent(mem)
        return mem.tools(), (lambda exc: diagnose(exc, [mem.places]))

    def warm(self) -> None:
        """A server start is a session start: index now, in the background, never blocking a call."""
        with self._closing:  # (returns at once: the sync runs on its own thread)
            if self.memory is not None and not self._closed:
                self.memory.sync_in_background()

    def close(self) -> None:
        with self._closing:
            self._closed = True
            mem = self.memory
        if mem is not None:
            mem.close()


def open_agent(**kw) -> AgentServer:
    return AgentServer(**kw)
