"""``reverie install claude-code``: reverie's hooks and MCP server in Claude Code's settings.

What is written (and only that, so ``uninstall`` removes exactly it):

* in the settings file (``~/.claude/settings.json`` with ``--user``, ``<project>/.claude/settings.json``
  with ``--project``): one hook per event (SessionStart, UserPromptSubmit, Stop, PreCompact,
  SessionEnd) whose command is ``<reverie> [--home H] [--agent A] hook claude-code <Event>``;
* the MCP server ``reverie`` (in ``~/.claude.json`` with ``--user``, ``<project>/.mcp.json`` with
  ``--project``): ``reverie mcp`` over stdio, or ``reverie serve``'s ``/mcp`` with ``--transport http``.

Everything else in those files is kept as it was (keys, order, other hooks of the same events).
A hook is recognised as reverie's by its command (``... hook claude-code <Event>``); a server by its
name. Files are written whole (temporary file, rename) and a file that is not a JSON object is
never touched.
"""

from __future__ import annotations

import copy
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from .config_files import write_config

EVENTS = {"SessionStart": 30, "UserPromptSubmit": 30, "Stop": 60, "PreCompact": 120, "SessionEnd": 120}
SERVER = "reverie"
MARK = " hook claude-code "


class SettingsError(ValueError):
    pass


@dataclass
class Target:
    settings: Path  # hooks
    mcp: Path  # MCP servers
    scope: str  # user | project


@dataclass
class Plan:
    target: Target
    before: dict[Path, str] = field(default_factory=dict)  # the files' text now ("" for none)
    after: dict[Path, str | None] = field(default_factory=dict)  # their text after (None: removed)

    @property
    def changed(self) -> list[Path]:
        return [p for p in self.after if self.after[p] != self.before.get(p, "")]

    def diff(self) -> str:
        import difflib

        out = []
        for p in self.changed:
            out += difflib.unified_diff(self.before.get(p, "").splitlines(True), (self.after[p] or "").splitlines(True),
                                        fromfile=str(p), tofile=str(p) if self.after[p] is not None else "/dev/null")
        return "".join(out)

    def apply(self) -> None:
        for p in self.changed:
            write_config(p, self.after[p])


def target(scope: str, project: Path | None = None, home: Path | None = None) -> Target:
    home = Path(home or Path.home())
    if scope == "user":
        return Target(home / ".claude" / "settings.json", home / ".claude.json", "user")
    root = Path(project or Path.cwd())
    return Target(root / ".claude" / "settings.json", root / ".mcp.json", "project")


def hook_command(reverie: str, event: str, home: str | None, agent: str | None) -> str:
    words = [reverie]
    if home:
        words += ["--home", home]
    if agent:
        words += ["--agent", agent]
    words += ["hook", "claude-code", event]
    return " ".join(shlex.quote(w) for w in words)


def mcp_entry(reverie: str, home: str | None, agent: str | None, transport: str, url: str | None,
              token: str | None) -> dict:
    if transport == "http":
        path = f"/mcp/{agent}" if agent else "/mcp"
        return {"type": "http", "url": f"{url}{path}", "headers": {"Authorization": f"Bearer {token}"}}
    args = (["--home", home] if home else []) + (["--agent", agent] if agent else []) + ["mcp"]
    return {"type": "stdio", "command": reverie, "args": args, "env": {}}


def _read(path: Path) -> tuple[str, dict]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    except UnicodeDecodeError:
        raise SettingsError(f"{path} is not UTF-8 text; it was left as it is") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix or move it first, "
                            "nothing was changed") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} does not hold a JSON object; nothing was changed")
    return text, data


def _dump(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def ours(hook: dict) -> bool:
    return isinstance(hook, dict) and MARK in f" {hook.get('command', '')} "


def _without_ours(hooks: dict) -> dict:
    out = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            out[event] = groups
            continue
        kept_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                kept = [h for h in group["hooks"] if not ours(h)]
                if kept:
                    kept_groups.append({**group, "hooks": kept})
                elif not group["hooks"]:
                    kept_groups.append(group)
            else:
                kept_groups.append(group)
        if kept_groups:
            out[event] = kept_groups
    return out


def plan_install(t: Target, *, reverie: str, home: str | None, agent: str | None, transport: str = "stdio",
                 url: str | None = None, token: str | None = None) -> Plan:
    plan = Plan(t)
    text, settings = _read(t.settings)
    plan.before[t.settings] = text
    new = copy.deepcopy(settings)
    hooks = new.get("hooks") if isinstance(new.get("hooks"), dict) else {}
    hooks = _without_ours(hooks)
    for event, timeout in EVENTS.items():
        entry = {"type": "command", "command": hook_command(reverie, event, home, agent), "timeout": timeout}
        hooks.setdefault(event, []).append({"hooks": [entry]})
    new["hooks"] = hooks
    plan.after[t.settings] = text if new == settings else _dump(new)
    mtext, mcp = _read(t.mcp)
    plan.before[t.mcp] = mtext
    mnew = copy.deepcopy(mcp)
    servers = mnew.get("mcpServers") if isinstance(mnew.get("mcpServers"), dict) else {}
    servers[SERVER] = mcp_entry(reverie, home, agent, transport, url, token)
    mnew["mcpServers"] = servers
    plan.after[t.mcp] = mtext if mnew == mcp else _dump(mnew)
    return plan


def plan_uninstall(t: Target) -> Plan:
    plan = Plan(t)
    text, settings = _read(t.settings)
    plan.before[t.settings] = text
    if isinstance(settings.get("hooks"), dict):
        new = copy.deepcopy(settings)
        new["hooks"] = _without_ours(new["hooks"])
        if not new["hooks"]:
            del new["hooks"]
        plan.after[t.settings] = text if new == settings else _dump(new)
    mtext, mcp = _read(t.mcp)
    plan.before[t.mcp] = mtext
    if isinstance(mcp.get("mcpServers"), dict) and SERVER in mcp["mcpServers"]:
        mnew = copy.deepcopy(mcp)
        del mnew["mcpServers"][SERVER]
        if not mnew["mcpServers"]:
            del mnew["mcpServers"]  # install made it for reverie alone
        plan.after[t.mcp] = _dump(mnew) if mnew else None  # nothing left but what install made: gone
    return plan


def installed(t: Target) -> dict:
    _, settings = _read(t.settings)
    _, mcp = _read(t.mcp)
    hooks = settings.get("hooks") if isinstance(settings.get("hooks"), dict) else {}
    found = sorted(e for e, groups in hooks.items() if isinstance(groups, list) and any(
        ours(h) for g in groups if isinstance(g, dict) for h in (g.get("hooks") or [])))
    server = (mcp.get("mcpServers") or {}).get(SERVER) if isinstance(mcp.get("mcpServers"), dict) else None
    return {"hooks": found, "mcpServer": server}
