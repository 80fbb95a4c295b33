"""The command tree's root: the typer application and the options every command takes."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, Opts, SetOpt, WorkspaceOpt


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        print(f"reverie {__version__}")
        raise typer.Exit(0)


def build() -> typer.Typer:
    app = typer.Typer(
        name="reverie",
        help="Long-term memory for AI agents: Markdown files as truth, a per-agent SQLite index, "
        "hybrid search that works for Chinese as well as English.",
        pretty_exceptions_enable=False,
        add_completion=False,
        no_args_is_help=True,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_root)
    return app


def _root(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
          sets: SetOpt = None, as_json: JsonOpt = False,
          version: Annotated[bool, typer.Option("--version", help="print reverie's version and exit",
                                                callback=_version, is_eager=True)] = False) -> None:
    ctx.obj = Opts(home=home, agent=agent, workspace=workspace, sets=list(sets or []), json=as_json)
