"""config show | path."""

from __future__ import annotations

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Show the effective settings or where they are read from.", no_args_is_help=True)
    app.add_typer(config_app, name="config")

    @config_app.command("show", help="Print the effective settings (file, then environment, then --set); secrets redacted.")
    def show(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False)
        data = mem.settings.redacted()
        data["_resolved"] = {"home": str(mem.places.home), "agent": mem.places.agent,
                             "workspace": str(mem.workspace), "config_file": str(mem.places.config_file),
                             "config_file_exists": mem.places.config_file.exists()}
        emit(o, data)

    @config_app.command("path", help="Print the settings file path.")
    def path(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        cfg = mem.places.config_file
        emit(o, {"path": str(cfg), "exists": cfg.exists()}, lambda d: print(d["path"]))
