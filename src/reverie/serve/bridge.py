"""CLI commands run inside the warm server: the same code, the same answers, the same exit codes.

A command line sent by ``reverie`` (the client side is :mod:`reverie.cli.fast`) is run here by the
very function a one-shot process runs (:func:`reverie.cli.main.execute`), on a worker thread, with
what it prints captured for that thread alone: ``sys.stdout`` and ``sys.stderr`` are routed per
thread while the server runs. It gains what a one-shot process lacks: the imports are done, the
embedder is loaded, the page cache is warm.

Only commands that answer and end are sent here (:data:`COMMANDS`); a command run in another home,
with other ``REVERIE_*`` variables than the server's, or in a folder the server cannot stand in
for, runs in the caller's own process instead (the client asks :func:`accepts` first, in effect,
by sending what it has and taking a 409 as "run it yourself").
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import os
import sys
import threading

# Commands that only answer and end (hook: the host hooks, which must answer fast). Not here: anything interactive or long-running (chat, watch,
# ui, serve, scheduler, mcp, tour, index, doctor), and anything that reads files named relative
# to the caller's folder (import, export, table import).
COMMANDS = frozenset({"search", "get", "remember", "status", "context", "tools", "hook"})
# commands that read standard input: the client sends it along
READS_STDIN = frozenset({"hook"})
ENV_PREFIXES = ("REVERIE_",)
ENV_NAMES = ("TZ",)


def relevant_env(env: dict) -> dict:
    """The variables that change what a command does (and so must match the server's); the home
    is compared on its own (the client may name it with --home)."""
    return {k: v for k, v in env.items() if (k.startswith(ENV_PREFIXES) or k in ENV_NAMES) and k != "REVERIE_HOME"}


class _Routed(io.TextIOBase):
    """A standard stream while the server runs: a thread running a client's command uses the
    stream captured for it (``which``: out, err, in), every other thread the real one."""

    def __init__(self, real, which: str):
        self._real = real
        self._which = which

    def _target(self):
        cap = _capture.get(None)
        return cap[self._which] if cap is not None else self._real

    def isatty(self) -> bool:
        return False if _capture.get(None) is not None else self._real.isatty()

    def fileno(self) -> int:
        if _capture.get(None) is not None:
            raise io.UnsupportedOperation("fileno")
        return self._real.fileno()

    @property
    def encoding(self):
        return "utf-8"


class _Router(_Routed):
    """sys.stdout and sys.stderr."""

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    @property
    def buffer(self):
        target = self._target()
        return target.buffer if hasattr(target, "buffer") else _BinaryTo(target)


class _BinaryTo(io.RawIOBase):
    def __init__(self, text):
        self._text = text

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._text.write(bytes(data).decode("utf-8", errors="replace"))
        return len(data)


class _StdinRouter(_Routed):
    """sys.stdin: a command run for a client reads what the client sent."""

    def __init__(self, real):
        super().__init__(real, "in")

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        return self._target().read(-1 if size is None else size)

    def readline(self, size: int | None = -1) -> str:
        return self._target().readline(-1 if size is None else size)

    def __iter__(self):
        return iter(self._target())

    @property
    def buffer(self):
        source = self._target()
        if hasattr(source, "buffer"):
            return source.buffer
        return io.BytesIO(source.getvalue().encode("utf-8"))


_capture: contextvars.ContextVar = contextvars.ContextVar("reverie_capture")
_installed = False
_install_lock = threading.Lock()


def install() -> None:
    """Route this process's output per thread (once; for the server's lifetime), and build the
    whole command tree now, on this thread: commands then run on worker threads side by side,
    and none of them registers a command module while another reads the tree."""
    global _installed
    with _install_lock:
        if not _installed:
            from ..cli.main import _command

            _command([])
            sys.stdout = _Router(sys.stdout, "out")
            sys.stderr = _Router(sys.stderr, "err")
            sys.stdin = _StdinRouter(sys.stdin)
            _installed = True


@contextlib.contextmanager
def captured(stdin: str = ""):
    buffers = {"out": io.StringIO(), "err": io.StringIO(), "in": io.StringIO(stdin)}
    token = _capture.set(buffers)
    try:
        yield buffers
    finally:
        _capture.reset(token)


def run(argv: list[str], *, cwd: str | None = None, lender=None, stdin: str = "") -> dict:
    """Run one command line here; ``{"code", "stdout", "stderr"}``. ``cwd`` is the caller's folder
    (a search ranks that folder's project first); ``lender`` lends the command open agents
    (:mod:`reverie.serve.lending`)."""
    from ..cli.basics import LENDER
    from ..cli.fast import light
    from ..cli.main import execute
    from ..recall.projects import CALLER_FOLDER

    folder = CALLER_FOLDER.set(cwd) if cwd else None
    lending = LENDER.set(lender) if lender is not None else None
    try:
        with captured(stdin) as out:
            code = light(list(argv))  # the commands a host calls most, without typer's parsing
            if code is None:
                code = execute(list(argv))
    finally:
        if lending is not None:
            LENDER.reset(lending)
            lender.give_back()
        if folder is not None:
            CALLER_FOLDER.reset(folder)
    return {"code": code, "stdout": out["out"].getvalue(), "stderr": out["err"].getvalue()}


def command_of(argv: list[str]) -> tuple[str | None, str | None]:
    """(the command a command line runs, the home it names) as the command line itself says."""
    from ..cli.fast import parse_common
    from ..cli.main import _command_name

    parsed = parse_common(argv, strict=False)
    return _command_name(argv), (parsed[0]["home"] if parsed else None)


def accepts(argv_command: str | None, client_home: str, client_env: dict, server_home: str, server_env: dict) -> str | None:
    """Why a command line must run in the caller's process instead (None: it can run here)."""
    if argv_command not in COMMANDS:
        return f"{argv_command!r} runs in the caller's process"
    if os.path.realpath(client_home) != os.path.realpath(server_home):
        return "another home"
    if relevant_env(client_env) != relevant_env(server_env):
        return "other REVERIE_* variables than the server's"
    return None
