"""MCP over this process's stdin and stdout (``reverie mcp``): the handshake first, then the rest.

Hosts give a server a few seconds to answer ``initialize`` (Claude Code 5 s, the Agents SDK 5 s);
so the order here is: answer ``initialize`` from the first line, before anything heavy is imported;
then open the agent's memory (a configuration error then ends the process with one line on stderr
and exit 1, which the host shows); answer ``tools/list``; and only then start indexing in the
background (``warm``), so the embedder's loading never competes with the handshake.

Tool calls run one at a time on a worker thread, in order, while this thread goes on reading: a
``ping`` is answered during a long search. Every line gets an answer (:func:`protocol.parse`).

The real stdin and stdout are kept for the wire and file descriptors 0 and 1 are pointed at the null
device and stderr meanwhile, so a stray ``print`` cannot corrupt the protocol.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from typing import Callable

from .protocol import Connection, Tools, parse

# If the client never lists the tools, indexing starts this long after the memory was opened.
WARM_AFTER_SECONDS = 2.0
STOP_WAIT_SECONDS = 5.0


class _Wire:
    def __init__(self, fd: int):
        self._fd = fd
        self._lock = threading.Lock()

    def send(self, message: dict) -> None:
        data = (json.dumps(message, ensure_ascii=True) + "\n").encode("ascii")
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]


class _Stopped(Exception):
    """SIGINT or SIGTERM: the host is closing the server (Claude Code sends both, 100 ms apart)."""


def _stop(signum, frame) -> None:
    raise _Stopped()


def serve_stdio(tools: Tools, *, warm: Callable[[], None] | None = None,
                on_open_error: Callable[[BaseException], int | None] | None = None) -> int:
    """Serve one client over stdio until its stdin closes or it stops the server; returns the exit
    code (0 for a stop by signal: a host closing its server is no error).

    ``warm`` starts background work once the handshake is done. ``on_open_error`` turns an error
    raised while opening the memory into an exit code (after saying it on stderr); None re-raises."""
    import signal

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, _stop)
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        return _serve(tools, os.fdopen(wire_in, "rb", buffering=0, closefd=False), _Wire(wire_out), warm,
                      on_open_error)
    except _Stopped:
        return 0
    finally:
        import signal

        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)


def _serve(tools: Tools, reader, wire: _Wire, warm, on_open_error) -> int:
    conn = Connection(tools)
    calls: queue.Queue = queue.Queue()
    warmed = threading.Event()

    def start_warm() -> None:
        if warm is not None and not warmed.is_set():
            warmed.set()
            try:
                warm()
            except Exception:  # indexing is a convenience: searches answer from what is indexed
                pass

    def worker() -> None:
        while True:
            message = calls.get()
            if message is None:
                return
            wire.send(conn.handle(message))
            start_warm()

    thread = threading.Thread(target=worker, name="reverie-mcp-calls", daemon=True)
    thread.start()
    opened = stopped = False
    timer = None
    try:
        for line in _lines(reader):
            message, reply = parse(line)
            if reply is not None:
                wire.send(reply)
            if message is None:
                continue
            if message.get("method") == "tools/call" and "id" in message:
                calls.put(message)
                continue
            answer = conn.handle(message)
            if answer is not None:
                wire.send(answer)
            if not opened and message.get("method") == "initialize":
                opened = True
                try:
                    tools.list()  # open the memory now, while the client reads the answer
                except Exception as exc:
                    code = on_open_error(exc) if on_open_error else None
                    if code is None:
                        raise
                    return code
                timer = threading.Timer(WARM_AFTER_SECONDS, start_warm)
                timer.daemon = True
                timer.start()
            elif message.get("method") == "tools/list":
                start_warm()
    except _Stopped:
        stopped = True
        import signal

        # the host's second signal (SIGTERM follows SIGINT) must not cut the call being finished
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
        raise
    finally:
        if timer is not None:
            timer.cancel()
        calls.put(None)
        # a call in progress finishes (a write is never cut in half), within a bound when stopped
        thread.join(STOP_WAIT_SECONDS if stopped else None)
    return 0


def _lines(reader):
    """The wire's lines, read in blocks (a line may be far longer than one read)."""
    buffer = b""
    while True:
        chunk = reader.read(65536)
        if not chunk:
            if buffer.strip():
                yield buffer
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line
