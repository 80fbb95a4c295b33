"""Where a running ``reverie serve`` can be found, and the one-per-home rule.

``<home>/run/serve.lock`` is held (:mod:`reverie.locks`) for the whole life of the server: a second server
for the same home finds it held and says which process has it; a killed server's lock goes with
its process, so a stale ``serve.json`` or socket left behind is recognised (its process is gone)
and replaced.
``<home>/run/serve.json`` (mode 0600) says how to reach it: the URL, the Unix socket, the token.
Clients (the CLI, hooks) read it with nothing but the standard library.
"""

from __future__ import annotations

import os

# Only the standard library's lightest modules at import: every short-lived `reverie` command
# reads this module to learn whether a server runs (pathlib alone would cost it ~10 ms).

RUN_DIR = "run"
STATE_FILE = "serve.json"
LOCK_FILE = "serve.lock"
SOCKET_FILE = "serve.sock"
DEFAULT_PORT = 8766
# sockaddr_un holds 108 bytes on Linux (104 on macOS): a longer home gets its socket elsewhere
_SUN_PATH_MAX = 100


def run_dir(home) -> str:
    return os.path.join(os.fspath(home), RUN_DIR)


def state_path(home) -> str:
    return os.path.join(run_dir(home), STATE_FILE)


def socket_path(home):
    """The Unix socket (a Path): see :func:`socket_file`."""
    from pathlib import Path

    return Path(socket_file(home))


def socket_file(home) -> str:
    """The Unix socket: in the home's run folder, or (a home with a long path) in a private folder
    of the system's temporary space named after the home."""
    preferred = os.path.join(run_dir(home), SOCKET_FILE)
    if len(os.fsencode(preferred)) <= _SUN_PATH_MAX:
        return preferred
    import hashlib
    import tempfile

    digest = hashlib.sha256(os.fsencode(os.path.realpath(os.fspath(home)))).hexdigest()[:16]
    uid = os.getuid() if hasattr(os, "getuid") else "u"
    # a folder of this user's own (made 0700 and checked before binding: serve/run.py), never a
    # name in the shared temporary folder that another user could take first
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return os.path.join(base, f"reverie-{uid}", f"{digest}.sock")


TOKEN_FILE = "token"


def token(home) -> str:
    """The home's server token: made once, kept in ``<home>/run/token`` (mode 0600), so the hosts
    configured with it (an MCP client's header) keep working across restarts of the server.
    Delete the file to change it; the next server makes a new one."""
    import secrets

    path = os.path.join(run_dir(home), TOKEN_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            found = f.read().strip()
        if len(found) >= 32:
            return found
    except OSError:
        pass
    os.makedirs(run_dir(home), exist_ok=True)
    value = secrets.token_urlsafe(32)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(value + "\n")
    os.replace(tmp, path)
    return value


class AlreadyRunning(Exception):
    def __init__(self, info: dict | None):
        self.info = info or {}
        pid = self.info.get("pid")
        where = self.info.get("url") or self.info.get("socket") or "?"
        super().__init__(f"reverie serve is already running for this home (pid {pid or '?'}, {where}); "
                         "stop it first, or use it as it is")


class Lock:
    """The home's server lock, held until :meth:`release` (or the process ends: a killed server's
    lock goes with it)."""

    def __init__(self, home):
        self.home = home
        self.path = os.path.join(run_dir(home), LOCK_FILE)
        self._lock = None

    def acquire(self) -> None:
        from ..locks import FileLock, Timeout

        os.makedirs(run_dir(self.home), exist_ok=True)
        os.chmod(run_dir(self.home), 0o700)
        lock = FileLock(self.path, timeout=0.5)
        try:
            lock.acquire()
        except Timeout:
            raise AlreadyRunning(read(self.home)) from None
        self._lock = lock

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def write(home, info: dict) -> None:
    """serve.json, written whole (temporary file, rename) and readable by its owner only."""
    path = state_path(home)
    tmp = os.path.join(run_dir(home), f".{STATE_FILE}.{os.getpid()}.tmp")
    import json

    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(info, f, indent=2)
    os.replace(tmp, path)


def read(home) -> dict | None:
    import json

    try:
        with open(state_path(home), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def remove(home, info: dict) -> None:
    """The state file and socket of a server that is stopping (only if they are still its own)."""
    current = read(home)
    for path, own in ((state_path(home), bool(current) and current.get("pid") == info.get("pid")),
                      (info.get("socket"), True)):
        if path and own:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def running(home) -> dict | None:
    """The state of the server running for ``home``, or None. A state file whose process is gone
    is stale (a killed server): ignored here, replaced by the next server. (A process id taken
    over by another program is caught one step later: its socket does not answer.)"""
    info = read(home)
    if not info:
        return None
    pid = info.get("pid")
    if os.name != "nt" and isinstance(pid, int):  # (on Windows, signal 0 is not a harmless probe)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass  # alive, another user's: its socket will refuse us
    return info
