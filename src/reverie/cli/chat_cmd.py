"""chat: the REPL over the runtime. Reads stdin line by line when it is not a terminal, so a
conversation can be scripted (``printf 'hi\\n/new\\n' | reverie chat``)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

EXIT_WORDS = {"/exit", "/quit", "/bye"}


def register(app: typer.Typer) -> None:
    @app.command(help="Chat with the agent over its memory (offline model by default): every event is recorded; "
                      "/new, /reset, /compact INSTRUCTIONS, /context list|detail, /project KEY, /active-memory on|off; reads stdin line by line when "
                      "it is not a terminal.")
    def chat(ctx: typer.Context,
             model: Annotated[Optional[str], typer.Option("--model", help="offline | openai:<model> | anthropic:<model> "
                                                          "(default chat.model)", show_default=False)] = None,
             session: Annotated[Optional[str], typer.Option("--session", help="session key, e.g. main or "
                                                            "telegram:group:42 (default main)", show_default=False)] = None,
             context_window: Annotated[Optional[int], typer.Option("--context-window", min=512,
                                                                   help="override the model's context window (tokens)",
                                                                   show_default=False)] = None,
             chat_type: Annotated[Optional[str], typer.Option("--chat-type", help="direct | group (default from the key)",
                                                              show_default=False)] = None,
             sender: Annotated[Optional[str], typer.Option("--sender", help="who is speaking (default the owner)",
                                                           show_default=False)] = None,
             message: Annotated[Optional[list[str]], typer.Option("--message", "-m", help="send this message and exit "
                                                                  "(repeatable)", show_default=False)] = None,
             project: Annotated[Optional[list[str]], typer.Option("--project", help="active project key (repeatable; "
                                                                  "default: the folder's repository)",
                                                                  show_default=False)] = None,
             home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..runtime import Runtime

        o = opts(ctx, home, agent, workspace, sets, as_json)
        if chat_type not in (None, "direct", "group"):
            raise UserError("--chat-type must be direct or group")
        mem = memory_for(o)
        if not mem.workspace.exists():
            mem.init()
        from pathlib import Path

        rt = Runtime(mem, model, session_key=session, chat_type=chat_type, sender=sender,
                     owner=sender is None, context_window=context_window, projects=project, cwd=Path.cwd())
        problem = rt.model.not_ready()
        if problem:  # before any turn, so before any network call
            rt.close()
            mem.close()
            raise UserError(problem)
        writable, why = rt.writable()
        if not writable:
            say(f"[{why}: nothing can be saved to memory in this chat]")
        interactive = not message and sys.stdin.isatty()
        try:  # a stray non-UTF-8 byte in a script becomes U+FFFD instead of ending the chat
            sys.stdin.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass
        if interactive:
            say(f"reverie chat: agent {mem.places.agent}, session {rt.key}, model {rt.model.provider}:"
                f"{rt.model.model}, window {rt.window:,} tokens. /help for commands, Ctrl-D to leave.")
        turns = []
        failures: list[str] = []

        def lines():
            if message:
                yield from message
                return
            while True:
                if interactive:
                    print("> ", end="", file=sys.stderr, flush=True)
                line = sys.stdin.readline()
                if not line:
                    return
                yield line.rstrip("\n")

        try:
            for line in lines():
                if line.strip().lower() in EXIT_WORDS:
                    break
                if not line.strip():
                    continue
                result = rt.send(line)
                if result.error:
                    failures.append(result.error)
                for note in result.notices:
                    say(f"[{note}]")
                if o.json:
                    turns.append(result.as_dict())
                elif result.reply:
                    print(result.reply, flush=True)
        except KeyboardInterrupt:
            say("")
        finally:
            rt.close()
            mem.close()
        if o.json:
            emit(o, {"agent": mem.places.agent, "sessionKey": rt.key, "turns": turns})
        if failures:  # a model that cannot be reached is a failed command, whatever was printed
            raise UserError(f"the chat model failed in {len(failures)} turn(s): {failures[-1]}")
