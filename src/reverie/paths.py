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


def expand(raw: Path | str, what: str) -> Path:
    """``~`` and ``~user`` expanded; an unknown user is a one-line error, not a RuntimeError."""
    try:
        return Path(raw).expanduser()
    except RuntimeError:
        raise UserError(f"{what} {str(raw)!r}: cannot expand '~' (no such user, or no home directory)") from None


def default_home(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    raw = env.get("REVERIE_HOME")
    return expand(raw, "REVERIE_HOME") if raw else expand("~", "home") / ".reverie"


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
        home_p = expand(home, "home") if home else default_home()
        agent = check_agent_id(agent or DEFAULT_AGENT)
        if workspace:
            ws = expand(workspace, "workspace")
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

    # -- checks ---------------------------------------------------------------------------------
    def check(self) -> None:
        """A home or workspace that exists but is not a folder (a file, /dev/null) is a one-line
        error here, before anything tries to create a database or a note under it."""
        self.check_home()
        if _exists_not_dir(self.workspace, "workspace"):
            raise UserError(f"workspace {self.workspace} is not a folder")

    def check_home(self) -> None:
        if _exists_not_dir(self.home, "reverie home"):
            raise UserError(f"reverie home {self.home} is not a folder")

    def check_writable_layout(self) -> None:
        """Before writing notes: ``memory/`` must be a folder if it exists."""
        self.check()
        if _exists_not_dir(self.memory_dir, "memory folder"):
            raise UserError(f"{self.memory_dir} is a file, not a folder: rename it, daily notes are written "
                            "into memory/")

    def known_agents(self, configured: list[str] | tuple[str, ...] = ()) -> list[str]:
        """Agents this home knows: an agent folder, a workspace folder, or a settings entry."""
        names = set(configured)
        agents_dir = self.home / "agents"
        if agents_dir.is_dir():
            names.update(p.name for p in agents_dir.iterdir() if p.is_dir())
        if (self.home / "workspace").is_dir():
            names.add(DEFAULT_AGENT)
        if self.home.is_dir():
            names.update(p.name.removeprefix("workspace-") for p in self.home.iterdir()
                         if p.name.startswith("workspace-") and p.is_dir())
        return sorted(names)

    def require_existing(self, configured: list[str] | tuple[str, ...] = (), *, agent: bool = True) -> None:
        """For commands that only read: the home (and, with ``agent``, the agent) must exist
        already, so a mistyped ``--home`` or ``--agent`` is named instead of silently creating an
        empty one."""
        self.check()
        if not self.home.is_dir():
            raise UserError(f"reverie home {self.home} does not exist (check --home / REVERIE_HOME; "
                            "`reverie init` creates it)")
        if not agent or self.agent in configured or (self.home / "agents" / self.agent).is_dir() or self.workspace.is_dir():
            return
        from .config import closest

        known = self.known_agents(configured)
        close = closest(self.agent, known)
        hint = f"did you mean {close!r}? " if close else ""
        listed = f"known: {', '.join(known)}; " if known else ""
        raise UserError(f"agent {self.agent!r} does not exist in {self.home} ({hint}{listed}"
                        f"`reverie --agent {self.agent} init` creates it)")


def _exists_not_dir(path: Path, what: str) -> bool:
    try:
        if path.is_symlink() and not path.exists():
            # a symlink loop or a symlink to nothing: exists() says False, and creating the
            # folder then fails with "File exists" (an internal error)
            try:
                os.stat(path)
            except OSError as exc:
                raise UserError(f"{what} {path} is a symlink that leads to no folder ({exc.strerror or exc})") from None
        return path.exists() and not path.is_dir()
    except OSError as exc:  # a path part too long, a symlink loop: not a folder anyone can use
        raise UserError(f"{what} {path}: {exc.strerror or exc}") from None
