"""What ``reverie serve`` answers, by path:

* ``/mcp`` (the default agent) and ``/mcp/<agent>``: MCP over Streamable HTTP (:mod:`reverie.mcp.http`);
* ``/v1/health``: that it runs, for whom, since when;
* ``/v1/cli``: a command line run in the warm process (:mod:`reverie.serve.bridge`);
* everything else: the web view (:mod:`reverie.ui`), behind its own token and session rules.

``/mcp`` and ``/v1`` want ``Authorization: Bearer <token>`` (the token is in ``serve.json``, which
only the owner can read), a ``Host`` that names a loopback address (a DNS-rebinding page cannot
reach them), and no ``Origin`` of another site (a browser page cannot call them).
"""

from __future__ import annotations

import hmac
import json
import os
import time
from pathlib import Path

from ..mcp import http as mcp_http
from . import bridge, wire
from .agents import AgentPool

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def _host_name(value: str) -> str:
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class ServeApp:
    def __init__(self, home: Path, token: str, pool: AgentPool, ui_app=None, *, loopback_only: bool = True,
                 env: dict | None = None):
        self.home = Path(home)
        self.token = token
        self.pool = pool
        self.ui_app = ui_app
        self.loopback_only = loopback_only
        self.env = dict(os.environ if env is None else env)
        self.sessions = mcp_http.Sessions(pool.tools)
        self.started = time.time()
        self.cli_calls = 0
        from .lending import Lender

        self.lender = Lender()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            if self.ui_app is not None:
                return await self.ui_app(scope, receive, send)
            return await _lifespan(receive, send)
        if scope["type"] != "http":
            return
        path = scope["path"]
        if path == "/mcp" or path.startswith("/mcp/") or path.startswith("/v1/"):
            refused = self._refused(scope)
            if refused is not None:
                status, why = refused
                return await mcp_http.respond(send, status, why + "\n",
                                              [(b"www-authenticate", b"Bearer")] if status == 401 else None)
            if path.startswith("/v1/"):
                return await self._v1(path, scope, receive, send)
            agent = path[len("/mcp/"):].strip("/") or None if path.startswith("/mcp/") else None
            try:
                self.pool.server(agent)  # a named agent must exist: refused here, before a session
            except Exception as exc:
                return await mcp_http.respond(send, 404, f"{str(exc).splitlines()[0]}\n")
            return await mcp_http.handle(self.sessions, agent, scope, receive, send)
        if self.ui_app is not None:
            return await self.ui_app(scope, receive, send)
        return await mcp_http.respond(send, 404, "not found\n")

    def _refused(self, scope) -> tuple[int, str] | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.loopback_only and _host_name(headers.get("host", "")) not in LOOPBACK:
            return 421, "refused: the Host header must name this machine (127.0.0.1, localhost or ::1)"
        origin = headers.get("origin")
        if origin and origin != "null":
            name = origin.split("://", 1)[-1]
            if _host_name(name) not in LOOPBACK:
                return 403, "refused: requests from web pages of other sites are not served"
        given = headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), self.token.encode()):
            return 401, "refused: this needs the token of reverie serve (Authorization: Bearer <token>; it is in " \
                        "<home>/run/serve.json)"
        return None

    async def _v1(self, path: str, scope, receive, send) -> None:
        from . import host_api

        if host_api.handles(path):  # the hosts' memory API (OpenClaw's memory slot): serve/host_api.py
            return await host_api.handle(self, path, scope, receive, send)
        if path == "/v1/health":
            from .. import __version__

            return await mcp_http.respond(send, 200, {
                "ok": True, "pid": os.getpid(), "home": str(self.home), "version": __version__,
                "agents": self.pool.names(), "mcpSessions": len(self.sessions), "cliCalls": self.cli_calls,
                "uptimeSeconds": round(time.time() - self.started, 1)})
        if path == "/v1/cli" and scope["method"] == "POST":
            return await self._cli(scope, receive, send)
        return await mcp_http.respond(send, 404, "not found\n")

    async def _cli(self, scope, receive, send) -> None:
        """A command line run here: JSON ``{argv, env, cwd, stdin}`` in and ``{code, stdout,
        stderr}`` out, or the same in the bridge's own framing (what `reverie` itself sends)."""
        import anyio

        raw = await mcp_http._body(receive)
        if raw is None:
            return
        fields = dict(scope.get("headers") or ()).get(b"content-type", b"").startswith(wire.CONTENT_TYPE.encode())
        try:
            req = wire.read_command_request(raw) if fields else json.loads(raw)
            argv = [str(a) for a in req["argv"]]
            env = dict(req.get("env") or {})
        except (ValueError, KeyError, TypeError):  # (wire.WireError is a ValueError)
            return await mcp_http.respond(send, 400, "a command needs {argv, env, cwd}\n")
        # what runs is read from the command line itself, never taken from the client's word
        command, home = bridge.command_of(argv)
        why = bridge.accepts(command, home or "", env, str(self.home), self.env)
        if why is not None:
            return await mcp_http.respond(send, 409, {"runInProcess": why})
        self.cli_calls += 1
        out = await anyio.to_thread.run_sync(lambda: bridge.run(argv, cwd=req.get("cwd"), lender=self.lender,
                                                                 stdin=str(req.get("stdin") or "")))
        if not fields:
            return await mcp_http.respond(send, 200, out)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", wire.CONTENT_TYPE.encode()), (b"cache-control", b"no-store")]})
        await send({"type": "http.response.body", "body": wire.command_answer(out)})


async def _lifespan(receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
