"""reverie install|uninstall claude-code: reverie in an agent host's own settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, emit, opts, say

EXAMPLES = ("[bold]Examples[/bold]\n"
            "  reverie install claude-code --dry-run     # what would change, as a diff\n"
            "  reverie install claude-code               # ~/.claude/settings.json and ~/.claude.json\n"
            "  reverie install claude-code --project     # this project's .claude/settings.json and .mcp.json\n"
            "  reverie install claude-code --transport http   # MCP through reverie serve\n"
            "  reverie uninstall claude-code")


def _reverie() -> str:
    """The reverie command to write into a host's settings: this installation's, by absolute path
    (a host starts hooks without the user's shell, so PATH and an activated venv are not there)."""
    here = Path(sys.executable).with_name("reverie")
    return str(here) if here.exists() else str(Path(sys.argv[0]).absolute())


def _target(user: bool, project: bool, folder: Optional[Path]):
    from ..errors import UserError
    from ..hosts.claude_code_install import target

    if user and project:
        raise UserError("give --user or --project, not both")
    return target("project" if project or folder else "user", folder)


def _host_target(o, transport: str, host: str) -> dict:
    """The part of a host's install that every host shares: the home (named unless it is the
    default: hooks run without the user's REVERIE_HOME), the agent, and for ``--transport http``
    the running server's URL and token."""
    from ..errors import UserError
    from ..paths import default_home
    from ..serve import state

    if transport not in ("stdio", "http"):
        raise UserError(f"--transport must be stdio or http, not {transport!r}")
    home_path = (o.home.expanduser() if o.home else default_home()).absolute()
    if not home_path.is_dir():
        raise UserError(f"reverie home {home_path} does not exist (`reverie init` creates it)")
    url = token = None
    if transport == "http":
        info = state.running(home_path)
        url = f"http://127.0.0.1:{(info or {}).get('port') or state.DEFAULT_PORT}"
        token = state.token(home_path)
        if not info:
            say(f"note: reverie serve is not running for {home_path}; start it (reverie serve, or reverie "
                f"service install) before {host} connects")
    default = (Path.home() / ".reverie").absolute()
    return {"home": None if home_path == default else str(home_path),
            "agent": o.agent or os.environ.get("REVERIE_AGENT") or None,
            "transport": transport, "url": url, "token": token}


def register(app: typer.Typer) -> None:
    install_app = typer.Typer(help="Install reverie into an agent host: its hooks and MCP server.",
                              no_args_is_help=True)
    uninstall_app = typer.Typer(help="Remove exactly what `reverie install` added to an agent host.",
                                no_args_is_help=True)
    app.add_typer(install_app, name="install")
    app.add_typer(uninstall_app, name="uninstall")

    @install_app.command("claude-code", help="Write reverie's hooks (startup context, recall before each prompt, "
                                             "the transcript, the flush, the session note) and its MCP server into "
                                             "Claude Code's settings. Keeps every other setting; running it again "
                                             "changes nothing.", epilog=EXAMPLES)
    def install(ctx: typer.Context,
                user: Annotated[bool, typer.Option("--user", help="for every project (the default)")] = False,
                project: Annotated[bool, typer.Option("--project", help="for the project in this folder only")] = False,
                folder: Annotated[Optional[Path], typer.Option("--project-dir", help="the project folder "
                                                               "(implies --project)", show_default=False)] = None,
                transport: Annotated[str, typer.Option("--transport", help="stdio (reverie mcp) or http "
                                                       "(reverie serve must run)")] = "stdio",
                dry_run: Annotated[bool, typer.Option("--dry-run", help="print the changes as a diff; write "
                                                      "nothing")] = False,
                home: HomeOpt = None, agent: AgentOpt = None, as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..hosts.claude_code_install import SettingsError, plan_install

        o = opts(ctx, home, agent, None, None, as_json)
        if transport == "http" and (project or folder):
            raise UserError("--transport http puts reverie serve's token into the project's .mcp.json, a file that "
                            "is usually committed: use it with --user, or stdio for a project")
        where = _host_target(o, transport, "Claude Code")
        t = _target(user, project, folder)
        try:
            plan = plan_install(t, reverie=_reverie(), **where)
        except SettingsError as exc:
            raise UserError(str(exc)) from None
        _finish(o, plan, dry_run, "installed", "reverie is already installed in Claude Code ({scope}): nothing changed")

    @uninstall_app.command("claude-code", help="Remove reverie's hooks and MCP server from Claude Code's settings "
                                               "(only what `reverie install claude-code` added).", epilog=EXAMPLES)
    def uninstall(ctx: typer.Context,
                  user: Annotated[bool, typer.Option("--user", help="from the user settings (the default)")] = False,
                  project: Annotated[bool, typer.Option("--project", help="from this folder's project")] = False,
                  folder: Annotated[Optional[Path], typer.Option("--project-dir", help="the project folder",
                                                                 show_default=False)] = None,
                  dry_run: Annotated[bool, typer.Option("--dry-run", help="print the changes; write nothing")] = False,
                  as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..hosts.claude_code_install import SettingsError, plan_uninstall

        o = opts(ctx, None, None, None, None, as_json)
        try:
            plan = plan_uninstall(_target(user, project, folder))
        except SettingsError as exc:
            raise UserError(str(exc)) from None
        _finish(o, plan, dry_run, "removed", "reverie is not installed in Claude Code ({scope}): nothing changed")


    register_codex(install_app, uninstall_app)


CODEX_EXAMPLES = ("[bold]Examples[/bold]\n"
                  "  reverie install codex --dry-run     # what would change in ~/.codex/config.toml, as a diff\n"
                  "  reverie install codex               # MCP server, hooks (trusted) and notify in ~/.codex/config.toml\n"
                  "  reverie install codex --codex-home DIR   # another CODEX_HOME\n"
                  "  reverie uninstall codex")


CodexHome = Annotated[Optional[Path], typer.Option("--codex-home", help="Codex's home (default: $CODEX_HOME, "
                                                   "else ~/.codex)", show_default=False)]


def register_codex(install_app: typer.Typer, uninstall_app: typer.Typer) -> None:
    """`reverie install codex` / `uninstall codex` (docs/hosts/codex.md)."""
    @install_app.command("codex", help="Write reverie's MCP server, hooks (startup context, recall before each "
                                       "prompt, the transcript, the flush, the session note; marked trusted) and "
                                       "notify program into Codex's config.toml. Keeps every other setting and "
                                       "comment; running it again changes nothing.", epilog=CODEX_EXAMPLES)
    def install_codex(ctx: typer.Context, codex_home: CodexHome = None,
                      transport: Annotated[str, typer.Option("--transport", help="stdio (reverie mcp) or http "
                                                             "(reverie serve must run)")] = "stdio",
                      no_hooks: Annotated[bool, typer.Option("--no-hooks", help="only the MCP server and notify")] = False,
                      dry_run: Annotated[bool, typer.Option("--dry-run", help="print the changes as a diff; write "
                                                            "nothing")] = False,
                      home: HomeOpt = None, agent: AgentOpt = None, as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..hosts.codex_install import SettingsError, config_path, plan_install

        o = opts(ctx, home, agent, None, None, as_json)
        where = _host_target(o, transport, "Codex")
        try:
            plan = plan_install(config_path(codex_home), reverie=_reverie(), **where, hooks=not no_hooks)
        except SettingsError as exc:
            raise UserError(str(exc)) from None
        for note in plan.notes:
            say(f"note: {note}")
        _finish(o, plan, dry_run, "installed", "reverie is already installed in Codex ({scope}): nothing changed",
                host="Codex", start="codex")

    @uninstall_app.command("codex", help="Remove reverie's MCP server, hooks, their trust and notify program from "
                                         "Codex's config.toml (only what `reverie install codex` added).",
                           epilog=CODEX_EXAMPLES)
    def uninstall_codex(ctx: typer.Context, codex_home: CodexHome = None,
                        dry_run: Annotated[bool, typer.Option("--dry-run", help="print the changes; write "
                                                              "nothing")] = False,
                        as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..hosts.codex_install import SettingsError, config_path, plan_uninstall

        o = opts(ctx, None, None, None, None, as_json)
        try:
            plan = plan_uninstall(config_path(codex_home))
        except SettingsError as exc:
            raise UserError(str(exc)) from None
        _finish(o, plan, dry_run, "removed", "reverie is not installed in Codex ({scope}): nothing changed")


def _finish(o, plan, dry_run: bool, done: str, nothing: str, host: str = "Claude Code", start: str = "claude") -> None:
    changed = plan.changed
    if dry_run:
        diff = plan.diff()
        if o.json:
            emit(o, {"dryRun": True, "scope": plan.target.scope, "files": [str(p) for p in changed], "diff": diff})
        else:
            sys.stdout.write(diff)
            say(f"dry run: {len(changed)} file(s) would change; nothing was written")
        return
    plan.apply()
    data = {"scope": plan.target.scope, "files": [str(p) for p in changed], "status": done if changed else "unchanged"}
    if o.json:
        emit(o, data)
    elif changed:
        for p in changed:
            say(f"{done}: {p}")
        if done == "installed":
            say(f"start a new {host} session to use it (`{start}`); `reverie serve` makes its hooks faster")
    else:
        say(nothing.format(scope=plan.target.scope))
