"""The home a web view serves, and which of its agents it serves (the access rule).

One ``reverie ui`` serves one home. Every agent of that home is *listed* (its id only), but only
the *served* agents' data can be read or written: those named with ``--agent`` (repeatable), else
the default agent (``$REVERIE_AGENT`` or ``main``); ``--all-agents`` serves every agent of the
home, including ones that appear while the server runs. A request for another agent's pages is
refused (403) before anything of it is opened. Agents never share a workspace or a database, so
serving one reveals nothing of another.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from ..config import load_settings
from ..errors import UserError
from ..paths import DEFAULT_AGENT, Places, check_agent_id

SHUTDOWN_WAIT_SECONDS = 1.0  # what stopping the server waits for the memories to close


class AgentRefused(Exception):
    """A request for an agent this server does not serve (or that does not exist)."""

    def __init__(self, agent: str, known: bool):
        super().__init__(agent)
        self.agent = agent
        self.known = known


class UIHome:
    def __init__(self, home: str | Path | None = None, agents: list[str] | None = None, *,
                 all_agents: bool = False, workspace: str | Path | None = None,
                 overrides: list[str] | None = None, env: dict[str, str] | None = None, embedder=None):
        self.env = dict(os.environ if env is None else env)
        self.home = Places.resolve(home or self.env.get("REVERIE_HOME"), None, None).home
        self.overrides = list(overrides or [])
        self.all_agents = all_agents
        wanted = [check_agent_id(a) for a in (agents or [])]
        if all_agents and wanted:
            raise UserError("give either --agent (repeatable) or --all-agents, not both")
        if workspace and (all_agents or len(wanted) > 1):
            raise UserError("--workspace names one agent's workspace: use it with a single --agent")
        self.workspace = Path(workspace) if workspace else None
        self.default_agent = check_agent_id(wanted[0] if wanted else self.env.get("REVERIE_AGENT") or DEFAULT_AGENT)
        self._served = list(dict.fromkeys(wanted or [self.default_agent]))
        self._embedder = embedder  # tests pass a fake provider instance; normally each Memory resolves its own
        self._memories: dict[str, object] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._lock = threading.Lock()

    # -- who is here ------------------------------------------------------------------------------
    def known_agents(self) -> list[str]:
        """Every agent the home knows of: agent folders, configured agents, agent workspaces."""
        found: set[str] = set(self._served)
        agents_dir = self.home / "agents"
        if agents_dir.is_dir():
            found.update(p.name for p in agents_dir.iterdir() if p.is_dir())
        if (self.home / "workspace").is_dir():
            found.add(DEFAULT_AGENT)
        if self.home.is_dir():
            found.update(p.name[len("workspace-"):] for p in self.home.iterdir()
                         if p.is_dir() and p.name.startswith("workspace-"))
        try:
            settings = load_settings(self._config_path(), self.env, self.overrides)
            found.update(settings.agents)
        except UserError:
            pass  # a broken settings file is reported by the overview's status, not here
        valid = set()
        for a in found:
            try:
                valid.add(check_agent_id(a))
            except UserError:
                continue
        return sorted(valid, key=lambda a: (a != self.default_agent, a))

    def _config_path(self) -> Path:
        raw = self.env.get("REVERIE_CONFIG")
        return Path(raw) if raw else Places.resolve(self.home, None, None).config_file

    def served(self) -> list[str]:
        return self.known_agents() if self.all_agents else list(self._served)

    def is_served(self, agent: str) -> bool:
        return agent in self._served or (self.all_agents and agent in self.known_agents())

    # -- opening ----------------------------------------------------------------------------------
    def memory(self, agent: str):
        """The served agent's :class:`reverie.Memory` (opened once, shared by requests)."""
        from ..api import Memory

        if not self.is_served(agent):
            raise AgentRefused(agent, agent in self.known_agents())
        with self._lock:
            mem = self._memories.get(agent)
            if mem is None:
                mem = Memory(home=self.home, agent=agent,
                             workspace=self.workspace if agent == self.default_agent else None,
                             overrides=self.overrides, env=self.env, embedder=self._embedder)
                self._memories[agent] = mem
                self._locks[agent] = threading.RLock()
            return mem

    def lock(self, agent: str) -> threading.RLock:
        """Serialises the page reads of one agent (status, search) on its shared connections."""
        self.memory(agent)
        return self._locks[agent]

    def open_workspaces(self) -> dict[str, Path]:
        return {a: self.memory(a).workspace for a in self.served()}

    def close(self, wait: float = SHUTDOWN_WAIT_SECONDS) -> None:
        """Close every memory, all at once, waiting at most ``wait`` seconds. Each flushes its
        recall signals, then stops its background indexing between two batches; a batch in the
        local engine takes seconds on a busy machine (SIGTERM took 3-7 s), and the server is
        exiting: what the batches committed stays, and the next run embeds the rest."""
        with self._lock:
            memories, self._memories = self._memories, {}

        def close(mem) -> None:
            try:
                mem.close()
            except Exception:
                pass  # closing on shutdown: nothing left to report to

        threads = [threading.Thread(target=close, args=(m,), name="reverie-ui-close", daemon=True)
                   for m in memories.values()]
        for t in threads:
            t.start()
        deadline = time.monotonic() + wait
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
