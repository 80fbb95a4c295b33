"""A small MCP client: reverie's own tests and benchmarks speak to its servers with it.

It talks to a :class:`~reverie.mcp.protocol.Connection` in the same process, to a server process
over stdio (:class:`StdioServerParameters`), or to a Streamable HTTP endpoint (:class:`HttpServer`),
and shows results with the attribute names of the official SDK (``result.content[0].text``,
``result.is_error``, ``tool.input_schema``), so code written against one reads the other. That the
real SDK's clients and the hosts' clients work with reverie is tested with those clients.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

CLIENT_INFO = {"name": "reverie-client", "version": "1"}
PROTOCOL_VERSION = "2025-06-18"


@dataclass
class StdioServerParameters:
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None


@dataclass
class HttpServer:
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    uds: str | None = None  # a Unix socket to reach the server through


class McpError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, error: dict):
        super().__init__(error.get("message", "error"))
        self.code = error.get("code")


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _view(value: Any) -> Any:
    """JSON as attributes, in the SDK's snake_case (``inputSchema`` -> ``input_schema``); a JSON
    schema keeps its own keys."""
    if isinstance(value, dict):
        return SimpleNamespace(**{_snake(k): (v if k == "inputSchema" else _view(v)) for k, v in value.items()})
    if isinstance(value, list):
        return [_view(v) for v in value]
    return value


class Client:
    """``async with Client(target) as c: await c.list_tools(); await c.call_tool(name, args)``."""

    def __init__(self, target, *, timeout: float = 60.0):
        self.target = target
        self.timeout = timeout
        self.instructions: str | None = None
        self.server_info: dict = {}
        self._next = 0
        self._proc = None
        self._http = None
        self._session_id: str | None = None
        self._pending: dict[int, asyncio.Future] = {}
        self._reader_task = None

    async def __aenter__(self) -> "Client":
        if isinstance(self.target, StdioServerParameters):
            p = self.target
            self._proc = await asyncio.create_subprocess_exec(
                p.command, *p.args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=p.env if p.env is not None else os.environ.copy(), cwd=p.cwd,
                limit=64 * 1024 * 1024)
            self._reader_task = asyncio.create_task(self._read_stdio())
        elif isinstance(self.target, HttpServer):
            import httpx

            transport = httpx.AsyncHTTPTransport(uds=self.target.uds) if self.target.uds else None
            self._http = httpx.AsyncClient(transport=transport, timeout=self.timeout)
        init = await self.request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                                 "clientInfo": CLIENT_INFO})
        self.instructions = init.get("instructions")
        self.server_info = init.get("serverInfo", {})
        await self.notify("notifications/initialized")
        return self

    async def __aexit__(self, *exc) -> None:
        if self._proc is not None:
            if self._proc.stdin and not self._proc.stdin.is_closing():
                self._proc.stdin.close()
            try:
                await asyncio.wait_for(self._proc.wait(), 20)
            except asyncio.TimeoutError:
                self._proc.kill()
                await self._proc.wait()
            if self._reader_task:
                self._reader_task.cancel()
        if self._http is not None:
            if self._session_id:
                try:
                    await self._http.delete(self.target.url, headers=self._headers())
                except Exception:
                    pass
            await self._http.aclose()

    # -- the calls ----------------------------------------------------------------------------------
    async def list_tools(self):
        return _view(await self.request("tools/list", {}))

    async def call_tool(self, name: str, arguments: dict | None = None):
        return _view(await self.request("tools/call", {"name": name, "arguments": arguments or {}}))

    async def list_prompts(self):
        return _view(await self.request("prompts/list", {}))

    async def get_prompt(self, name: str, arguments: dict | None = None):
        return _view(await self.request("prompts/get", {"name": name, "arguments": arguments or {}}))

    async def list_resources(self):
        return _view(await self.request("resources/list", {}))

    async def read_resource(self, uri: str):
        return _view(await self.request("resources/read", {"uri": uri}))

    async def ping(self) -> dict:
        return await self.request("ping", {})

    # -- the wire -----------------------------------------------------------------------------------
    async def request(self, method: str, params: dict) -> dict:
        self._next += 1
        message = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}
        answer = await asyncio.wait_for(self._exchange(message), self.timeout)
        if "error" in answer:
            raise McpError(answer["error"])
        return answer["result"]

    async def notify(self, method: str, params: dict | None = None) -> None:
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})}
        if self._proc is not None:
            self._proc.stdin.write((json.dumps(message) + "\n").encode())
            await self._proc.stdin.drain()
        elif self._http is not None:
            await self._http.post(self.target.url, json=message, headers=self._headers())

    async def _exchange(self, message: dict) -> dict:
        if self._proc is not None:
            future = asyncio.get_running_loop().create_future()
            self._pending[message["id"]] = future
            self._proc.stdin.write((json.dumps(message) + "\n").encode())
            await self._proc.stdin.drain()
            return await future
        if self._http is not None:
            r = await self._http.post(self.target.url, json=message, headers=self._headers())
            if r.status_code != 200:
                raise McpError({"code": r.status_code, "message": r.text.strip()})
            if message["method"] == "initialize":
                self._session_id = r.headers.get("mcp-session-id")
            return r.json()
        return self.target.handle(message)

    def _headers(self) -> dict:
        h = {"accept": "application/json, text/event-stream", "mcp-protocol-version": PROTOCOL_VERSION,
             **self.target.headers}
        if self._session_id:
            h["mcp-session-id"] = self._session_id
        return h

    async def _read_stdio(self) -> None:
        while True:
            line = await self._proc.stdout.readline()
            if not line:
                err = (await self._proc.stderr.read()).decode(errors="replace")[-2000:]
                for f in self._pending.values():
                    if not f.done():
                        f.set_exception(McpError({"code": -1, "message": f"the server exited: {err}"}))
                return
            try:
                message = json.loads(line)
            except ValueError:
                continue
            future = self._pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)
