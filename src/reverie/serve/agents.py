"""The agents a running server serves: each opened once, on first use, and shared by every
client of that agent (one loaded index, one embedder for the whole process)."""

from __future__ import annotations

import threading
from pathlib import Path

from ..mcp.protocol import Tools
from ..mcp.server import AgentServer


class AgentPool:
    def __init__(self, home: Path, overrides: list[str] | None = None, *, default_agent: str | None = None):
        self.home = Path(home)
        self.overrides = list(overrides or [])
        self.default_agent = default_agent
        self._servers: dict[str, AgentServer] = {}
        self._lock = threading.Lock()

    def _check(self, agent: str) -> None:
        """A named agent must exist already: a URL never creates an agent (a typo would)."""
        from ..paths import Places, check_agent_id

        check_agent_id(agent)
        if agent != (self.default_agent or "main"):
            Places.resolve(self.home, agent, None).require_existing(self._configured(), agent=True)

    def _configured(self) -> tuple[str, ...]:
        with self._lock:
            for server in self._servers.values():
                if server.memory is not None:
                    return tuple(server.memory.settings.agents)
        return ()

    def server(self, agent: str | None) -> AgentServer:
        name = agent or self.default_agent or "main"
        with self._lock:
            found = self._servers.get(name)
        if found is not None:
            return found
        self._check(name)
        with self._lock:
            if name not in self._servers:
                self._servers[name] = AgentServer(home=self.home, agent=name, overrides=self.overrides,
                                                  folder=self.home)
            return self._servers[name]

    def tools(self, agent: str | None) -> Tools:
        server = self.server(agent)
        tools = server.tools
        tools.on_open = server.warm  # index in the background once a client first uses the agent
        return tools

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._servers)

    def close(self) -> None:
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for s in servers:
            try:
                s.close()
            except Exception:
                pass
