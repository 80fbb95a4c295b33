"""``reverie install codex``: reverie's MCP server, hooks and notify program in Codex's ``config.toml``.

What is written into ``<CODEX_HOME>/config.toml`` (``$CODEX_HOME``, else ``~/.codex``), and only
that, so ``uninstall`` removes exactly it:

* ``[mcp_servers.reverie]``: ``reverie mcp`` over stdio, or ``reverie serve``'s ``/mcp`` (Streamable
  HTTP, with its token in ``http_headers``) with ``--transport http``;
* one ``[[hooks.<Event>]]`` group per event (SessionStart, UserPromptSubmit, Stop, PreCompact,
  SessionEnd) whose command is ``<reverie> [--home H] [--agent A] hook codex --codex-home C <Event>``,
  after the user's own groups of the event;
* for each of those, ``[hooks.state."<config path>:<event>:<group>:0"] trusted_hash``: Codex runs a
  hook that is not managed by an administrator only once its definition is trusted, and the owner
  trusts these by installing them (as Codex's own ``/hooks`` review would record it). The hash is
  Codex's: SHA-256 of the hook's normalised definition as canonical JSON (0.171.0). Should a Codex
  release hash otherwise, the hooks show as modified in ``/hooks`` and do not run until trusted
  there; ``notify`` still records every turn;
* ``notify = [<reverie> ..., "hook", "codex", "--codex-home", C, "notify"]`` when no other notify
  program is set (Codex runs one; a user's own is kept, and the Stop hook records the turns).

Everything else (keys, comments, order, the user's hooks and their trust) is kept as it was: the file
is edited with tomlkit, and a user's hook group that sat after one of reverie's keeps its trust under
its new position. A file that is not valid TOML is never touched.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from .config_files import write_config

EVENTS = {"SessionStart": 30, "UserPromptSubmit": 30, "Stop": 60, "PreCompact": 120, "SessionEnd": 3}
# Codex's key label of each event (hooks.state keys and the trust hash)
LABELS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop",
          "PreCompact": "pre_compact", "SessionEnd": "session_end"}
SERVER = "reverie"
MARK = " hook codex "


class SettingsError(ValueError):
    pass


@dataclass
class Plan:
    path: Path
    before: str = ""
    after: str | None = None  # None: removed
    notes: list[str] = field(default_factory=list)

    @property
    def target(self):  # what `_finish` in the CLI reports as the scope
        return self

    @property
    def scope(self) -> str:
        return str(self.path.parent)

    @property
    def changed(self) -> list[Path]:
        return [self.path] if self.after != self.before else []

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(True), (self.after or "").splitlines(True),
                                            fromfile=str(self.path), tofile=str(self.path)))

    def apply(self) -> None:
        if not self.changed:
            return
        write_config(self.path, self.after)


def config_path(home: Path | str | None = None) -> Path:
    base = Path(home or os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
    return Path(os.path.abspath(base)) / "config.toml"


def _words(reverie: str, home: str | None, agent: str | None) -> list[str]:
    return [reverie] + (["--home", home] if home else []) + (["--agent", agent] if agent else [])


def hook_command(reverie: str, event: str, home: str | None, agent: str | None, codex_home: Path) -> str:
    words = _words(reverie, home, agent) + ["hook", "codex", "--codex-home", str(codex_home), event]
    return " ".join(shlex.quote(w) for w in words)


def notify_command(reverie: str, home: str | None, agent: str | None, codex_home: Path) -> list[str]:
    return _words(reverie, home, agent) + ["hook", "codex", "--codex-home", str(codex_home), "notify"]


def trust_hash(event: str, command: str, timeout: int) -> str:
    """Codex's trust identity of a command hook (no matcher, no status message, not async)."""
    identity = {"event_name": LABELS[event],
                "hooks": [{"async": False, "command": command, "timeout": timeout, "type": "command"}]}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def mcp_entry(reverie: str, home: str | None, agent: str | None, transport: str, url: str | None,
              token: str | None) -> dict:
    if transport == "http":
        path = f"/mcp/{agent}" if agent else "/mcp"
        return {"url": f"{url}{path}", "http_headers": {"Authorization": f"Bearer {token}"}}
    return {"command": reverie, "args": _words("", home, agent)[1:] + ["mcp"]}


# -- reading and recognising ----------------------------------------------------------------------


def _read(path: Path):
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", tomlkit.document()
    except UnicodeDecodeError:
        raise SettingsError(f"{path} is not UTF-8 text; it was left as it is") from None
    try:
        return text, tomlkit.parse(text)
    except ParseError as exc:
        raise SettingsError(f"{path} is not valid TOML ({exc}); fix or move it first, nothing was changed") from None


def ours_hook(handler) -> bool:
    return hasattr(handler, "get") and MARK in f" {handler.get('command', '')} "


def ours_group(group) -> bool:
    handlers = group.get("hooks") if hasattr(group, "get") else None
    return isinstance(handlers, list) and bool(handlers) and all(ours_hook(h) for h in handlers)


def ours_notify(value) -> bool:
    return isinstance(value, list) and MARK in f" {' '.join(str(v) for v in value)} " and value[-1] == "notify"


def _hooks_table(doc):
    hooks = doc.get("hooks")
    return hooks if hasattr(hooks, "get") else None


def _without_ours(doc, path: Path) -> None:
    """Remove reverie's hook groups and their trust, and move the trust of the user's groups that
    sat after them to their new positions (Codex keys a hook by its position)."""
    hooks = _hooks_table(doc)
    if hooks is None:
        return
    state = hooks.get("state") if hasattr(hooks.get("state"), "get") else None
    moves: dict[str, str | None] = {}
    for event, label in LABELS.items():
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        kept = 0
        for index, group in enumerate(list(groups)):
            prefix = f"{path}:{label}:{index}:"
            if ours_group(group):
                moves[prefix] = None
            else:
                if kept != index:
                    moves[prefix] = f"{path}:{label}:{kept}:"
                kept += 1
        for index in reversed(range(len(groups))):
            if ours_group(groups[index]):
                del groups[index]
        if not groups:
            del hooks[event]
    if state is not None and moves:
        renamed = {}
        for key in list(state.keys()):
            for old, new in moves.items():
                if key.startswith(old):
                    value = state[key]
                    del state[key]
                    if new is not None:
                        renamed[new + key[len(old):]] = value
                    break
        for key, value in renamed.items():
            state[key] = value
        if not state:
            del hooks["state"]
    if not hooks:
        del doc["hooks"]


def _dump(doc) -> str:
    import tomlkit

    return tomlkit.dumps(doc)


# -- plans ----------------------------------------------------------------------------------------


def plan_install(path: Path, *, reverie: str, home: str | None, agent: str | None, transport: str = "stdio",
                 url: str | None = None, token: str | None = None, hooks: bool = True) -> Plan:
    import tomlkit

    text, doc = _read(path)
    plan = Plan(path, before=text)
    codex_home = path.parent
    _without_ours(doc, path)
    if hooks:
        table = _hooks_table(doc)
        if table is None:
            table = tomlkit.table(is_super_table=True)
            doc["hooks"] = table
        trust = {}
        for event, timeout in EVENTS.items():
            command = hook_command(reverie, event, home, agent, codex_home)
            groups = table.get(event)
            if groups is None:
                groups = tomlkit.aot()
                table[event] = groups
            elif not isinstance(groups, list):
                raise SettingsError(f"{path}: hooks.{event} is not a list of hook groups; nothing was changed")
            handler = {"type": "command", "command": command, "timeout": timeout}
            if isinstance(groups, tomlkit.items.AoT):
                group = tomlkit.table()
                inner = tomlkit.aot()
                inner.append(tomlkit.table().add("type", "command").add("command", command).add("timeout", timeout)
                             .add(tomlkit.nl()))
                group["hooks"] = inner
            else:  # an inline array of groups: stay inline
                group = tomlkit.inline_table()
                group["hooks"] = [handler]
            groups.append(group)
            trust[f"{path}:{LABELS[event]}:{len(groups) - 1}:0"] = trust_hash(event, command, timeout)
        state = table.get("state")
        if state is None:
            state = tomlkit.table(is_super_table=True)
            table["state"] = state
        for key, value in trust.items():
            entry = tomlkit.table()
            entry.add("trusted_hash", value)
            entry.add(tomlkit.nl())
            state[key] = entry
    current = doc.get("notify")
    if current is None or ours_notify(current):
        doc["notify"] = notify_command(reverie, home, agent, codex_home)
    else:
        plan.notes.append("Codex already runs a notify program of yours (kept): reverie records turns through "
                          "its Stop hook instead")
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = servers
    elif not hasattr(servers, "get"):
        raise SettingsError(f"{path}: mcp_servers is not a table; nothing was changed")
    entry = tomlkit.table()
    for key, value in mcp_entry(reverie, home, agent, transport, url, token).items():
        entry[key] = value
    if SERVER in servers:
        del servers[SERVER]
    servers[SERVER] = entry
    # the same settings as now (a second install): the file as it is, not re-laid out
    plan.after = text if text and tomlkit.parse(text).unwrap() == doc.unwrap() else _dump(doc)
    return plan


def plan_uninstall(path: Path) -> Plan:
    text, doc = _read(path)
    plan = Plan(path, before=text, after=text)
    if not text:
        return plan
    _without_ours(doc, path)
    if ours_notify(doc.get("notify")):
        del doc["notify"]
    servers = doc.get("mcp_servers")
    if hasattr(servers, "get") and SERVER in servers:
        del servers[SERVER]
        if not servers:
            del doc["mcp_servers"]
    after = _dump(doc)
    if after != text:
        # install left a blank line after the user's last table; nothing left at all: the file
        # was made for reverie alone
        after = after.rstrip() + "\n" if after.strip() else None
    plan.after = after
    return plan


def installed(path: Path) -> dict:
    _, doc = _read(path)
    hooks = _hooks_table(doc)
    found = sorted(e for e in LABELS if hooks is not None and isinstance(hooks.get(e), list)
                   and any(ours_group(g) for g in hooks[e]))
    servers = doc.get("mcp_servers")
    server = servers.get(SERVER) if hasattr(servers, "get") else None
    return {"hooks": found, "notify": ours_notify(doc.get("notify")),
            "mcpServer": server.unwrap() if hasattr(server, "unwrap") else server}
