"""MCP over Streamable HTTP (``reverie serve``'s ``/mcp``): one POST, one JSON answer.

The specification lets a server answer a POSTed request with plain ``application/json`` instead
of an event stream, and refuse the optional GET stream with 405; reverie sends nothing the client
did not ask for, so that is all it needs. ``initialize`` opens a session (``Mcp-Session-Id``),
each with its own :class:`~reverie.mcp.protocol.Connection` (its own taint); later requests name
it, a DELETE ends it. Who may call at all (token, Host, Origin) is checked by the server around
this (:mod:`reverie.serve.app`).
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from typing import Callable

from .protocol import Connection, Tools, parse

MAX_BODY = 4 * 1024 * 1024
MAX_SESSIONS = 512  # the oldest idle session goes first; its client starts a new one (404 says so)


class Sessions:
    def __init__(self, tools_for: Callable[[str | None], Tools]):
        self._tools_for = tools_for
        self._sessions: OrderedDict[str, tuple[str | None, Connection]] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, agent: str | None) -> tuple[str, Connection]:
        conn = Connection(self._tools_for(agent))
        sid = secrets.token_hex(16)
        with self._lock:
            self._sessions[sid] = (agent, conn)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return sid, conn

    def get(self, sid: str, agent: str | None) -> Connection | None:
        with self._lock:
            found = self._sessions.get(sid)
            if found is None or found[0] != agent:
                return None
            self._sessions.move_to_end(sid)
            return found[1]

    def close(self, sid: str) -> bool:
        with self._lock:
            return self._sessions.pop(sid, None) is not None

    def __len__(self) -> int:
        return len(self._sessions)


async def _body(receive) -> bytes | None:
    chunks, size = [], 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return None
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return b"\x00too-large"
        chunks.append(chunk)
        if not event.get("more_body"):
            return b"".join(chunks)


async def respond(send, status: int, body: dict | str | None = None, headers: list | None = None) -> None:
    if isinstance(body, dict):
        data, kind = json.dumps(body, ensure_ascii=False).encode("utf-8"), b"application/json"
    else:
        data, kind = (body or "").encode("utf-8"), b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"cache-control", b"no-store"), *(headers or [])]})
    await send({"type": "http.response.body", "body": data})


async def handle(sessions: Sessions, agent: str | None, scope, receive, send) -> None:
    """One HTTP request to the MCP endpoint of ``agent`` (None: the home's default agent)."""
    import anyio

    method = scope["method"]
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    sid = headers.get("mcp-session-id")
    if method == "DELETE":
        closed = bool(sid) and sessions.close(sid)
        return await respond(send, 200 if closed else 404, "" if closed else "no such session\n")
    if method != "POST":
        return await respond(send, 405, "reverie sends no server-initiated messages: POST requests only\n",
                             [(b"allow", b"POST, DELETE")])
    raw = await _body(receive)
    if raw is None:
        return  # the client went away before sending its request: nothing was done
    if raw == b"\x00too-large":
        return await respond(send, 413, f"a request may be at most {MAX_BODY} bytes\n")
    message, reply = parse(raw)
    if reply is not None:
        return await respond(send, 400, reply)
    if message is None:
        return await respond(send, 202)
    if message.get("method") == "initialize":
        sid, conn = sessions.open(agent)
        extra = [(b"mcp-session-id", sid.encode())]
    else:
        if not sid:
            return await respond(send, 400, {"jsonrpc": "2.0", "id": message.get("id"), "error": {
                "code": -32600, "message": "Bad request: no Mcp-Session-Id header (initialize first)"}})
        conn = sessions.get(sid, agent)
        if conn is None:  # unknown or evicted: the specification's signal to initialize again
            return await respond(send, 404, {"jsonrpc": "2.0", "id": message.get("id"), "error": {
                "code": -32001, "message": "Session not found: initialize again"}})
        extra = []
    if "id" not in message or "method" not in message:
        return await respond(send, 202, None, extra)  # a notification or a client's answer
    # the tools are synchronous (SQLite, the embedder): a worker thread, never the event loop; a
    # client that disconnects meanwhile does not stop a started call (a write completes whole)
    answer = await anyio.to_thread.run_sync(conn.handle, message)
    await respond(send, 200, answer, extra)
