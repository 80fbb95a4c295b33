"""reverie serve: one warm process per home (see docs/serve.md)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, SetOpt, opts, say

EXAMPLES = ("[bold]Examples[/bold]\n"
            "  reverie serve\n"
            "  reverie serve --port 0 --no-scheduler\n"
            "  claude mcp add --transport http reverie http://127.0.0.1:8766/mcp "
            "--header \"Authorization: Bearer $(reverie serve --print-token)\"\n"
            "  reverie service install   # run it at login, without a terminal")


def register(app: typer.Typer) -> None:
    from ..serve.state import DEFAULT_PORT

    @app.command(help="Run one warm reverie for this home: MCP over HTTP (/mcp) for every agent, the web view, "
                      "the scheduler (Dreaming, automations), and fast answers for CLI commands and hooks. "
                      "Listens on a Unix socket in the home and on 127.0.0.1; the token is in <home>/run/serve.json.",
                 epilog=EXAMPLES)
    def serve(ctx: typer.Context,
              port: Annotated[int, typer.Option("--port", min=0, max=65535,
                                                help="TCP port on 127.0.0.1 (0: any free port)")] = DEFAULT_PORT,
              host: Annotated[Optional[str], typer.Option("--host", help="listen on this address instead of "
                                                          "127.0.0.1 (needs --allow-remote: others could reach it)",
                                                          show_default=False)] = None,
              allow_remote: Annotated[bool, typer.Option("--allow-remote", help="allow --host to name an address "
                                                         "other machines can reach")] = False,
              tcp: Annotated[bool, typer.Option("--tcp/--no-tcp", help="listen on TCP (for hosts that take a URL)")] = True,
              unix: Annotated[bool, typer.Option("--socket/--no-socket", help="listen on the home's Unix socket")] = True,
              scheduler: Annotated[bool, typer.Option("--scheduler/--no-scheduler",
                                                      help="run due automations and Dreaming")] = True,
              print_token: Annotated[bool, typer.Option("--print-token", help="print the running server's "
                                                        "token (for a host's Authorization header) and exit")] = False,
              home: HomeOpt = None, agent: AgentOpt = None, sets: SetOpt = None) -> None:
        from ..errors import UserError
        from ..serve.run import LOOPBACK, serve as run_server

        o = opts(ctx, home, agent, None, sets, False)
        if print_token:
            from ..paths import default_home
            from ..serve import state

            where = (o.home.expanduser() if o.home else default_home()).absolute()
            info = state.running(where)
            if not info:
                raise UserError(f"no reverie serve is running for {where} (start it with `reverie serve`)")
            print(info["token"])
            return
        if host and host.strip("[]") not in LOOPBACK and not allow_remote:
            raise UserError(f"--host {host} would let other machines reach this memory (anyone who learns the token "
                            "could read and write it); add --allow-remote if that is what you want")
        run_server(o.home, port=port, host=host, tcp=tcp, unix=unix, agent=o.agent, overrides=o.sets,
                   scheduler=scheduler, say=say)
