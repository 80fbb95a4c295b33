"""reverie hook claude-code EVENT: Claude Code's hooks (docs/hosts/claude-code.md)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from .basics import hook_memory
from .common import AgentOpt, HomeOpt, SetOpt, WorkspaceOpt, opts

EXAMPLES = ("[bold]Examples[/bold]\n"
            "  reverie install claude-code            # writes these hooks into Claude Code's settings\n"
            "  echo '{\"session_id\": \"s1\", \"source\": \"startup\"}' | reverie hook claude-code SessionStart")


CODEX_EXAMPLES = ("[bold]Examples[/bold]\n"
                  "  reverie install codex                  # writes these hooks and notify into Codex's config.toml\n"
                  "  echo '{\"session_id\": \"s1\", \"source\": \"startup\"}' | reverie hook codex SessionStart")


def register(app: typer.Typer) -> None:
    hook_app = typer.Typer(help="Answer an agent host's hook events (the memory sidecar): startup context, "
                                "recall before the model call, the transcript, the flush, the session note.",
                           no_args_is_help=True)
    app.add_typer(hook_app, name="hook")

    @hook_app.command("claude-code", help="A Claude Code hook: the event's JSON on stdin, Claude Code's answer on "
                                          "stdout (SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd). "
                                          "Memory failing never blocks the prompt: one line on stderr, exit 1.",
                      epilog=EXAMPLES)
    def claude_code(ctx: typer.Context,
                    event: Annotated[Optional[str], typer.Argument(help="the hook event (default: the input's "
                                                                   "hook_event_name)", show_default=False)] = None,
                    kind: Annotated[str, typer.Option("--kind", help="main | group | cron | subagent")] = "main",
                    home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                    sets: SetOpt = None) -> int:
        from ..hosts import claude_code as cc
        from ..hosts.hooks import answer

        o = opts(ctx, home, agent, workspace, sets, False)
        return answer(lambda: cc.run_hook(lambda: hook_memory(o), sys.stdin.read(), event, kind))

    @hook_app.command("codex", help="A Codex hook (the event's JSON on stdin; SessionStart, UserPromptSubmit, Stop, "
                                    "PreCompact, SessionEnd) or Codex's notify program (`notify`, its JSON as the "
                                    "last argument). Memory failing never blocks the prompt: one line on stderr, "
                                    "exit 1.", epilog=CODEX_EXAMPLES)
    def codex(ctx: typer.Context,
              event: Annotated[Optional[str], typer.Argument(help="the hook event, or notify (default: the input's "
                                                             "hook_event_name)", show_default=False)] = None,
              payload: Annotated[Optional[str], typer.Argument(help="notify's JSON (Codex appends it)",
                                                               show_default=False)] = None,
              codex_home: Annotated[Optional[str], typer.Option("--codex-home", help="Codex's home, where notify "
                                                                "finds the rollout (default: $CODEX_HOME, else "
                                                                "~/.codex)", show_default=False)] = None,
              kind: Annotated[str, typer.Option("--kind", help="main | group | cron | subagent")] = "main",
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None) -> int:
        from ..errors import UserError
        from ..hosts import codex as cx
        from ..hosts.hooks import answer

        o = opts(ctx, home, agent, workspace, sets, False)
        if event == cx.NOTIFY and payload is None:
            raise UserError("notify needs its JSON argument (Codex appends it to the notify command)")
        return answer(lambda: cx.run(lambda: hook_memory(o), event, payload if event == cx.NOTIFY else sys.stdin.read(),
                                     kind=kind, home=codex_home))
