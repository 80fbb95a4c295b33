"""reverie mcp: the agent tools over MCP (stdio). Usually answered by cli/fast.py before typer
loads; this definition gives the command its help and serves when the arguments took the long way."""

from __future__ import annotations

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, opts


def register(app: typer.Typer) -> None:
    @app.command(help="Serve the memory tools over MCP (stdio) for Claude Desktop, Claude Code, Cursor and other "
                      "agents. Answers the handshake at once; the memory opens after it and indexes in the "
                      "background. With `reverie serve` running, hosts that take a URL can use its /mcp instead.",
                 epilog="[bold]Examples[/bold]\n  reverie mcp\n  claude mcp add reverie -- reverie mcp\n"
                        "  reverie --agent work mcp")
    def mcp(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
            sets: SetOpt = None, as_json: JsonOpt = False) -> int:
        from .fast import serve_mcp

        o = opts(ctx, home, agent, workspace, sets, as_json)
        return serve_mcp({"home": o.home, "agent": o.agent, "workspace": o.workspace, "sets": o.sets})
