"""Reaching a running ``reverie serve`` from a short-lived process (the CLI, a hook), with nothing
but the standard library: HTTP/1.1 over the home's Unix socket, the token from ``serve.json``.

A command line (:func:`call_cli`) takes the lightest road there is, because a hook runs on every
prompt and its start-up is the user's wait: the C socket module (``socket`` itself loads ``enum``
and ``selectors``), the home's socket and token files (no ``serve.json`` to parse), and the
bridge's own framing instead of JSON (:mod:`reverie.serve.wire`)."""

from __future__ import annotations

import os

from . import state, wire

CONNECT_SECONDS = 0.5
# a command the server runs may search or index for a while: this is only a bound on a hung server
ANSWER_SECONDS = 600.0


def request(home, method: str, path: str, body: dict | None = None, *, info: dict | None = None,
            timeout: float = ANSWER_SECONDS) -> tuple[int, dict | str] | None:
    """(status, the answer as JSON or text), or None when no server runs for ``home`` or it cannot be
    reached over its socket."""
    import json

    info = info or state.running(home)
    if not info or not info.get("socket"):
        return None
    data = json.dumps(body or {}, ensure_ascii=False).encode("utf-8") if body is not None else b""
    answer = _exchange(str(info["socket"]), info["token"], method, path, data, "application/json", timeout)
    if answer is None:
        return None
    status, content_type, payload = answer
    text = payload.decode("utf-8", errors="replace")
    if content_type.startswith("application/json"):
        return status, json.loads(text)
    return status, text


def _exchange(where: str, token: str, method: str, path: str, data: bytes, content_type: str,
              timeout: float) -> tuple[int, str, bytes] | None:
    """(status, content type, body) of one HTTP/1.1 request over the Unix socket ``where``, or None
    when nothing listens there (no server, or a killed one's socket file)."""
    import _socket

    head = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n")
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_SECONDS)
        try:
            sock.connect(where)
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
    return status, headers.get("content-type", ""), payload


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
    where = reach(home)
    if where is None:
        return None
    data = wire.command_request(argv, env, os.getcwd(), stdin or "")
    answer = _exchange(where[0], where[1], "POST", "/v1/cli", data, wire.CONTENT_TYPE, timeout or ANSWER_SECONDS)
    if answer is None:
        return None
    status, content_type, payload = answer
    if status != 200 or not content_type.startswith(wire.CONTENT_TYPE):
        return None  # 409: the server says run it here; anything else: it could not
    try:
        return wire.read_command_answer(payload)
    except wire.WireError:
        return None


def reach(home) -> tuple[str, str] | None:
    """(the Unix socket, the token) of the server of ``home``, from the files a server keeps, or
    None when it has never run. Whether one runs now, the socket says: a killed server's refuses."""
    try:
        with open(os.path.join(state.run_dir(home), state.TOKEN_FILE), encoding="utf-8") as f:
            token = f.read().strip()
    except OSError:
        return None
    where = os.path.join(state.run_dir(home), state.SOCKET_FILE)
    if not os.path.exists(where):
        # a long home's socket lives elsewhere, named by the server's environment: serve.json says where
        info = state.read(home) or {}
        where = str(info.get("socket") or "")
    if not token or not where or not os.path.exists(where):
        return None
    return where, token
