"""reverie ui: the local web view of one home (see docs/ui.md)."""

from __future__ import annotations

import signal
import socket
from typing import Annotated, Optional

import typer

from .common import HomeOpt, SetOpt, WorkspaceOpt, opts, say

DEFAULT_PORT = 8765
EXAMPLES = ("[bold]Examples[/bold]\n"
            "  reverie ui --open\n"
            "  reverie ui --port 0 --agent main --agent work\n"
            "  reverie tour --keep --home /tmp/hangzhou && reverie --home /tmp/hangzhou ui")


def _listen(host: str, port: int) -> socket.socket:
    from ..serve.run import bind_tcp

    return bind_tcp(host, port)


def register(app: typer.Typer) -> None:
    @app.command(help="Open a local web view of the memory: files, search explained, intents, automations, "
                      "sessions; edit MEMORY.md/USER.md safely. Binds to 127.0.0.1 and prints a URL with a token.",
                 epilog=EXAMPLES)
    def ui(ctx: typer.Context,
           port: Annotated[int, typer.Option("--port", min=0, max=65535, help="port (0: any free port)")] = DEFAULT_PORT,
           host: Annotated[Optional[str], typer.Option("--host", help="listen on this address instead of 127.0.0.1 "
                                                       "(warns: others may reach it)", show_default=False)] = None,
           open_browser: Annotated[bool, typer.Option("--open", help="open the URL in a browser")] = False,
           agent: Annotated[Optional[list[str]], typer.Option("--agent", help="serve this agent (repeatable; "
                                                              "default: the default agent)", show_default=False)] = None,
           all_agents: Annotated[bool, typer.Option("--all-agents", help="serve every agent of the home")] = False,
           home: HomeOpt = None, workspace: WorkspaceOpt = None, sets: SetOpt = None) -> None:
        from ..ui.home import UIHome
        from ..ui.security import Guard, bind_address

        o = opts(ctx, home, None, workspace, sets, False)
        agents = list(agent or ([o.agent] if o.agent else []))
        ui_home = UIHome(o.home, agents, all_agents=all_agents, workspace=o.workspace, overrides=o.sets)
        bind, warning = bind_address(host)
        if warning:
            say(warning)
        sock = _listen(bind, port)
        actual = sock.getsockname()[1]
        guard = Guard(Guard.new_token(), cookie_name=f"reverie_ui_{actual}", loopback_only=warning is None)
        shown_host = "127.0.0.1" if bind in ("127.0.0.1", "0.0.0.0") else bind
        shown_host = f"[{shown_host}]" if ":" in shown_host else shown_host
        url = f"http://{shown_host}:{actual}/?token={guard.token}"
        served = ", ".join(ui_home.served()) or "none"
        # the URL goes to stdout (a script starting the server reads it there), the rest to stderr
        say(f"reverie ui: home {ui_home.home}, serving agent(s) {served}")
        print(url, flush=True)
        say("open the URL above (it carries the access token); Ctrl-C stops the server")
        if open_browser:
            import webbrowser

            webbrowser.open(url)
        _serve(ui_home, guard, sock)


def _serve(ui_home, guard, sock: socket.socket) -> None:
    import uvicorn

    from ..ui import build_app

    app = build_app(ui_home, guard)
    stopping = app.state.ui.stopping

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):
            # End the event streams at once (or shutdown waits for them), and do not record the
            # signal: uvicorn would raise it again after a clean shutdown, and a server stopped
            # with Ctrl-C or SIGTERM has done nothing wrong (exit 0, as `reverie watch`).
            stopping.set()
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True  # a second Ctrl-C: do not wait for open connections
            self.should_exit = True

    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2,
                            lifespan="on")
    try:
        Server(config).run(sockets=[sock])
    finally:
        sock.close()
    say("reverie ui stopped")
