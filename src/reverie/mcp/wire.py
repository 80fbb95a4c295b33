"""The stdio wire of ``reverie mcp``: every request line gets an answer.

The SDK's stdio transport parses each line with pydantic, whose JSON reader rejects a lone
surrogate escape (``"\\ud800"``, which JSON's grammar allows); the failure is dropped and the
client waits for ever for an answer to its request. Lines that do not parse are answered here,
as JSON-RPC says: ``-32700`` for text that is not JSON at all, ``-32602`` when a string holds a
lone surrogate (not valid Unicode: a path or a note cannot contain it), ``-32600`` for a message
that is not a valid JSON-RPC request. Notifications are never answered.

Like the SDK, the real stdin and stdout are kept for the wire and file descriptors 0 and 1 are
pointed at the null device and stderr meanwhile, so a stray ``print`` cannot corrupt the protocol.
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import Any

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


def _lone_surrogate(value: Any, where: str = "params") -> tuple[str, str] | None:
    """(where, the surrogate) for the first string holding a lone surrogate, if any."""
    if isinstance(value, str):
        for ch in value:
            if "\ud800" <= ch <= "\udfff":
                return where, f"\\u{ord(ch):04x}"
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _lone_surrogate(k, where) or _lone_surrogate(v, f"{where}.{k}")
            if found:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _lone_surrogate(v, f"{where}[{i}]")
            if found:
                return found
    return None


def answer_for(line: str) -> tuple[bool, dict | None]:
    """(pass the line on to the SDK, the error response to send instead). A line the SDK cannot
    read is never passed on: it gets the response, or nothing when it is a notification."""
    import mcp_types as types

    if not line.strip():
        return False, None
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return True, None
    except Exception as exc:
        reason = exc
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return False, _error(None, PARSE_ERROR, "Parse error: the line is not valid JSON")
    if not isinstance(message, dict):
        return False, _error(None, INVALID_REQUEST, "Invalid request: a JSON-RPC message must be an object")
    rid = message.get("id")
    if "id" not in message and "method" in message:
        return False, None  # a notification: never answered
    if not isinstance(rid, (int, str)) or isinstance(rid, bool):
        rid = None
    found = _lone_surrogate(message.get("params"))
    if found:
        where, ch = found
        return False, _error(rid, INVALID_PARAMS, f"Invalid params: {where} contains a lone surrogate ({ch}), "
                                                  "which is not valid Unicode text; nothing was done")
    errors = reason.errors(include_url=False) if hasattr(reason, "errors") else []
    first = errors[0]["msg"] if errors else type(reason).__name__
    return False, _error(rid, INVALID_REQUEST, f"Invalid request: {first}")


def _error(rid, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


class _Writer:
    """The wire's stdout, one whole line at a time (the SDK and the guard both write to it)."""

    def __init__(self, out):
        import anyio

        self._out = out
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._out.write(text)

    async def flush(self) -> None:
        async with self._lock:
            await self._out.flush()

    async def send(self, message: dict) -> None:
        async with self._lock:
            await self._out.write(json.dumps(message, ensure_ascii=True) + "\n")
            await self._out.flush()


class _Guarded:
    """Request lines for the SDK; lines it could not read are answered here instead."""

    def __init__(self, lines, writer: _Writer):
        self._lines = lines
        self._writer = writer

    def __aiter__(self):
        return self._iterate()

    async def _iterate(self):
        async for line in self._lines:
            ok, reply = answer_for(line)
            if ok:
                yield line
            elif reply is not None:
                await self._writer.send(reply)


def serve_stdio(server) -> None:
    """Run an ``MCPServer`` over this process's stdin and stdout with the guard in place."""
    import anyio

    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        anyio.run(_serve, server, wire_in, wire_out)
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)


async def _serve(server, wire_in: int, wire_out: int) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    # closefd=False: the descriptors are restored and closed by serve_stdio, whatever the SDK closes
    reader = io.TextIOWrapper(open(wire_in, "rb", closefd=False), encoding="utf-8", errors="replace")
    out = io.TextIOWrapper(open(wire_out, "wb", buffering=0, closefd=False), encoding="utf-8", write_through=True)
    writer = _Writer(anyio.wrap_file(out))
    async with stdio_server(stdin=_Guarded(anyio.wrap_file(reader), writer), stdout=writer) as (read_stream,
                                                                                                write_stream):
        # MCPServer.run_stdio_async does exactly this with streams it opens itself
        low = server._lowlevel_server
        await low.run(read_stream, write_stream, low.create_initialization_options())
