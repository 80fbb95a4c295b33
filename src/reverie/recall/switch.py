"""Whether memory is switched on, re-read on every call (addendum row 11).

``memory.enabled = false`` (or ``agents.<id>.memoryEnabled = false``, which wins) makes every memory
tool, the MCP tools and every recall lane refuse on their next call -- also in a chat or an MCP
server that started while it was on. A 2026 CVE of the original system was exactly this: disabled
memory kept serving tool instances created before the switch.

A check costs one ``stat`` of the settings file; the file is read again only when its size,
modification time or inode changed. ``REVERIE_*`` variables and ``--set`` flags hold for the life of
the process (they are applied again on each re-read). A settings file that cannot be read after an
edit (a half-written TOML) keeps the last value read and says so in :attr:`Switch.problem`.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError


class MemoryDisabled(UserError):
    """A memory tool or lane was called while memory is switched off."""


@dataclass(frozen=True)
class State:
    enabled: bool
    reason: str  # which key decided, for people
    search_enabled: bool = True  # memory.search.enabled: memory_search and the lanes that search


def state_of(settings, agent: str) -> State:
    per_agent = settings.agents.get(agent)
    search = settings.memory.search.enabled
    if per_agent is not None and per_agent.memory_enabled is not None:
        return State(per_agent.memory_enabled,
                     f"agents.{agent}.memoryEnabled = {str(per_agent.memory_enabled).lower()}", search)
    return State(settings.memory.enabled, f"memory.enabled = {str(settings.memory.enabled).lower()}", search)


class Switch:
    """The live on/off state of one agent's memory."""

    def __init__(self, settings, agent: str, config_path: Path | None = None, *, env: dict | None = None,
                 overrides: list[str] | None = None):
        self.agent = agent
        self.config_path = Path(config_path) if config_path else None
        self._env = env
        self._overrides = list(overrides or [])
        self._state = state_of(settings, agent)
        self._stamp = self._stat()
        self._lock = threading.Lock()
        self.problem: str | None = None

    def _stat(self):
        if self.config_path is None:
            return None
        try:
            st = os.stat(self.config_path)
        except OSError:
            return "missing"
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def state(self) -> State:
        if self.config_path is None:
            return self._state
        stamp = self._stat()
        if stamp == self._stamp:
            return self._state
        with self._lock:
            if stamp == self._stamp:
                return self._state
            from ..config import load_settings
            from ..errors import ConfigError

            try:
                fresh = load_settings(self.config_path, self._env, self._overrides)
            except ConfigError as exc:
                self.problem = f"{exc} (memory stays {'on' if self._state.enabled else 'off'} as last read)"
            else:
                self.problem = None
                self._state = state_of(fresh, self.agent)
            self._stamp = stamp
        return self._state

    @property
    def enabled(self) -> bool:
        return self.state().enabled

    def check(self, what: str = "memory") -> None:
        """Raise :class:`MemoryDisabled` when memory is off."""
        st = self.state()
        if not st.enabled:
            where = f" in {self.config_path}" if self.config_path else ""
            raise MemoryDisabled(f"{what} refused: memory is disabled ({st.reason}{where})")


def guard_tool(tool, switch: Switch):
    """``tool`` refusing every call while memory is switched off."""
    from dataclasses import replace

    inner = tool.handler

    def handler(args: dict) -> dict:
        switch.check(tool.name)
        return inner(args)

    return replace(tool, handler=handler)
