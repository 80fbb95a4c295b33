"""Reaching a running ``reverie serve`` from a short-lived process (the CLI, a hook), with nothing
but the standard library: HTTP/1.1 over the home's Unix socket, the token from ``serve.json``."""

from __future__ import annotations

import json
import os
import socket

from . import state

CONNECT_SECONDS = 0.5
# a command the server runs may search or index for a while: this is only a bound on a hung server
ANSWER_SECONDS = 600.0


def request(home, method: str, path: str, body: dict | None = None, *, info: dict | None = None,
            timeout: float = ANSWER_SECONDS) -> tuple[int, dict | str] | None:
    """(status, the answer as JSON or text), or None when no server runs for ``home`` or it cannot be
    reached over its socket."""
    info = info or state.running(home)
    if not info or not info.get("socket"):
        return None
    data = json.dumps(body or {}, ensure_ascii=False).encode("utf-8") if body is not None else b""
    head = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {info['token']}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_SECONDS)
        try:
            sock.connect(info["socket"])
        except OSError:
            return None
        sock.settimeout(timeout)
        sock.sendall(head.encode("latin-1") + data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        sock.close()
    raw = b"".join(chunks)
    header, _, payload = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if headers.get("transfer-encoding", "").lower() == "chunked":
        payload = _unchunk(payload)
    text = payload.decode("utf-8", errors="replace")
    if headers.get("content-type", "").startswith("application/json"):
        return status, json.loads(text)
    return status, text


def _unchunk(data: bytes) -> bytes:
    out, rest = [], data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2:]
    return b"".join(out)


def _absolute(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def call_cli(home, args: list[str], command: str, found: dict, stdin: str | None = None, *,
             timeout: float | None = None) -> dict | None:
    """A command line run by the server: ``{"code", "stdout", "stderr"}``, or None to run it here."""
    argv = list(args)
    # the server runs in another folder: relative --home / --workspace name the caller's
    for i, a in enumerate(argv):
        for opt in ("--home", "--workspace"):
            if a == opt and i + 1 < len(argv):
                argv[i + 1] = _absolute(argv[i + 1])
            elif a.startswith(opt + "="):
                argv[i] = f"{opt}={_absolute(a.split('=', 1)[1])}"
    argv = ["--home", str(home), *argv]  # the server's own default home may be another
    env = {k: v for k, v in os.environ.items() if (k.startswith("REVERIE_") or k == "TZ") and k != "REVERIE_HOME"}
    answer = request(home, "POST", "/v1/cli", {"argv": argv, "command": command, "home": str(home), "env": env,
                                               "cwd": os.getcwd(), "stdin": stdin or ""},
                     timeout=timeout or ANSWER_SECONDS)
    if answer is None:
        return None
    status, body = answer
    if status != 200 or not isinstance(body, dict):
        return None  # 409: the server says run it here; anything else: it could not
    return body
