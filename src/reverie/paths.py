"""Where things live: home, agent workspace, agent database, shared state database.

| what | path |
| home | $REVERIE_HOME, else ~/.reverie |
| workspace of agent `main` | <home>/workspace (others: <home>/workspace-<agent>) |
| agent database | <home>/agents/<agent>/agent/reverie-agent.sqlite |
| search index | <home>/agents/<agent>/agent/index/ (generations, see reverie.index.generations) |
| shared state database | <home>/state/reverie.sqlite |
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError

DEFAULT_AGENT = "main"
_AGENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def default_home(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    raw = env.get("REVERIE_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".reverie"


def check_agent_id(agent: str) -> str:
    if not _AGENT_RE.match(agent or "") or agent in (".", ".."):
        raise UserError(
            f"invalid agent id {agent!r}: use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit"
        )
    return agent


@dataclass(frozen=True)
class Places:
    """Resolved locations for one agent. Agents never share a workspace or a database."""

    home: Path
    agent: str
    workspace: Path

    @classmethod
    def resolve(cls, home: Path | str | None = None, agent: str | None = None,
                workspace: Path | str | None = None) -> "Places":
        home_p = Path(home).expanduser() if home else default_home()
        agent = check_agent_id(agent or DEFAULT_AGENT)
        if workspace:
            ws = Path(workspace).expanduser()
        elif agent == DEFAULT_AGENT:
            ws = home_p / "workspace"
        else:
            ws = home_p / f"workspace-{agent}"
        return cls(home=home_p.absolute(), agent=agent, workspace=ws.absolute())

    @property
    def config_file(self) -> Path:
        return self.home / "reverie.toml"

    @property
    def agent_dir(self) -> Path:
        return self.home / "agents" / self.agent / "agent"

    @property
    def agent_db(self) -> Path:
        return self.agent_dir / "reverie-agent.sqlite"

    @property
    def index_dir(self) -> Path:
        return self.agent_dir / "index"

    @property
    def state_db(self) -> Path:
        return self.home / "state" / "reverie.sqlite"

    @property
    def memory_dir(self) -> Path:
        return self.workspace / "memory"
