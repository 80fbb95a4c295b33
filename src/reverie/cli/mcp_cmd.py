"""reverie mcp: the agent tools over MCP (stdio)."""

from __future__ import annotations

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, memory_for, opts


def register(app: typer.Typer) -> None:
    @app.command(help="Serve the memory tools over MCP (stdio) for Claude Desktop, Claude Code, Cursor and other agents.")
    def mcp(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
            sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..mcp.server import build_server
        from ..mcp.wire import serve_stdio
        from ..repair import diagnose

        o = opts(ctx, home, agent, workspace, sets, as_json)
        from ..recall.projects import folder_scope

        mem = memory_for(o)
        if not mem.workspace.exists():
            mem.init()
        mem.projects = folder_scope(mem.settings)  # the client's folder: memory_search ranks its project first
        server = build_server(mem.tools(), diagnose=lambda exc: diagnose(exc, [mem.places]))
        mem.sync_in_background()  # a server start is a session start: index now, never blocking a call
        try:
            serve_stdio(server)
        finally:
            mem.close()
