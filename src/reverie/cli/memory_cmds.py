"""init, remember."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

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
        if o.workspace is not None:
            # remembered, so the next command finds the workspace without --workspace
            from ..config_edit import set_agent_workspace

            cfg = mem.config_path
            before = set_agent_workspace(cfg, mem.places.agent, mem.workspace)
            data["remembered"] = {"key": f"agents.{mem.places.agent}.workspace", "file": str(cfg),
                                  "previous": before, "changed": before != str(mem.workspace)}

        def human(d):
            say(f"workspace: {d['workspace']}")
            for p in d["created"]:
                say(f"  created {p}")
            r = d.get("remembered")
            if r and r["changed"]:
                was = f" (was {r['previous']})" if r["previous"] else ""
                say(f"  remembered {r['key']} in {r['file']}{was}")
            if not d["created"] and not (r and r["changed"]):
                say("  everything was already there; nothing changed")
            if d["created"]:
                say("  note: reverie records who wrote each line of the dated notes in memory/; a line you add "
                    "there by hand reads as an outside edit (untrusted: never injected or promoted) until you "
                    "claim it: reverie trust claim (docs/trust.md)")

        emit(o, data, human)

    @app.command(help="Append a timestamped note to today's memory/YYYY-MM-DD.md (append-only).")
    def remember(ctx: typer.Context,
                 text: Annotated[Optional[list[str]], typer.Argument(help="what to remember", show_default=False)] = None,
                 stdin: Annotated[bool, typer.Option("--stdin", help="read the note from standard input")] = False,
                 home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                 sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from .remember_run import remember as run

        run(opts(ctx, home, agent, workspace, sets, as_json), text, stdin)
