"""init, remember."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ..errors import UserError
from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say


def register(app: typer.Typer) -> None:
    @app.command(help="Lay out a workspace and a commented settings file; never overwrites a file.")
    def init(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        created = mem.init()
        data = {"agent": mem.places.agent, "workspace": str(mem.workspace),
                "config": str(mem.places.config_file), "created": [str(p) for p in created]}

        def human(d):
            say(f"workspace: {d['workspace']}")
            for p in d["created"]:
                say(f"  created {p}")
            if not d["created"]:
                say("  everything was already there; nothing changed")

        emit(o, data, human)

    @app.command(help="Append a timestamped note to today's memory/YYYY-MM-DD.md (append-only).")
    def remember(ctx: typer.Context,
                 text: Annotated[Optional[list[str]], typer.Argument(help="what to remember", show_default=False)] = None,
                 stdin: Annotated[bool, typer.Option("--stdin", help="read the note from standard input")] = False,
                 home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                 sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        if stdin:
            if text:
                raise UserError("give the note as arguments or with --stdin, not both")
            body = sys.stdin.read()
        else:
            body = " ".join(text or [])
        if not body.strip():
            raise UserError("nothing to remember: give the text as arguments or with --stdin")
        mem = memory_for(o)
        from ..trust import OWNER_CLI

        path = mem.remember(body, provenance=OWNER_CLI)  # the owner at the terminal
        emit(o, {"path": str(path), "workspace": str(mem.workspace), "chars": len(body.strip())},
             lambda d: say(f"remembered in {d['path']}"))
