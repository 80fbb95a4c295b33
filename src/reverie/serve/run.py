"""``reverie serve``: start, serve until SIGTERM or Ctrl-C, stop cleanly.

One server per home (:mod:`reverie.serve.state`). It listens on a Unix socket in the home (only
its owner can reach it) and on 127.0.0.1 (for hosts that take a URL); it runs the scheduler
(Dreaming, heartbeat review, automations) on a thread of its own. A stop ends the listeners, lets
a request in progress finish for at most a second, lets a running job finish for at most a second
more (an interrupted job is redone once at the next start), and removes the socket and state file.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from ..errors import UserError
from . import state

LOOPBACK = ("127.0.0.1", "localhost", "::1")
STOP_JOB_SECONDS = 1.0


def bind_tcp(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # an answer goes out as two writes (head, body): with Nagle's algorithm the second waits for
    # the client's delayed ACK, 40 ms on every request after the first of a kept-alive connection
    # (accepted connections inherit the option on Linux)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        # a name that does not resolve, or an address that is not this machine's: the host is wrong
        if isinstance(exc, socket.gaierror) or exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
            raise UserError(f"cannot listen on {host}: {exc.strerror or exc}; give --host an address of this "
                            "machine (default 127.0.0.1)") from None
        why = "is in use" if exc.errno in (98, 48, 10048) else f"cannot be used ({exc.strerror or exc})"
        raise UserError(f"port {port} on {host} {why}; choose another with --port (0 picks a free one)") from None
    sock.listen(256)
    sock.set_inheritable(True)
    return sock


def bind_unix(path: Path) -> socket.socket:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.parent.stat()
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
        raise UserError(f"{path.parent} is not a folder of yours alone (mode {st.st_mode & 0o777:o}); the server's "
                        "socket goes there: remove it, or use --no-socket")
    path.unlink(missing_ok=True)  # a killed server's socket: we hold the home's lock, so it is stale
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # created readable and writable by the owner only
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    sock.listen(256)
    sock.set_inheritable(True)
    return sock


def serve(home: Path, *, port: int = state.DEFAULT_PORT, host: str | None = None, tcp: bool = True,
          unix: bool = True, agent: str | None = None, overrides: list[str] | None = None,
          scheduler: bool = True, say: Callable[[str], None] = print, ready: Callable[[dict], None] | None = None) -> int:
    if not tcp and not unix:
        raise UserError("nothing to listen on: --no-tcp and --no-socket together leave no way in")
    bind = host or "127.0.0.1"
    loopback_only = bind.strip("[]") in LOOPBACK
    if tcp and not loopback_only:
        say(f"warning: listening on {bind}: anyone who can reach this address and learns the token can read and "
            "write this memory (default: 127.0.0.1 only)")

    # A SIGTERM before the HTTP server takes the signals over is noted, not raised: an exception
    # thrown into whatever the main thread was doing (opening the event loop, a lock held) could
    # leave the shutdown waiting on it. The start stops at its next check instead (exit 0).
    early = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: early.set())
    try:
        return _serve(home, port, bind, loopback_only, tcp, unix, agent, overrides, scheduler, say, ready, early)
    except _Stopped:
        say("reverie serve stopped")
        return 0


class _Stopped(Exception):
    pass


def _serve(home, port, bind, loopback_only, tcp, unix, agent, overrides, scheduler, say, ready, early) -> int:
    import uvicorn

    from .. import __version__
    from ..api import Memory
    from ..ui import build_app
    from ..ui.home import UIHome
    from ..ui.security import Guard
    from . import bridge
    from .agents import AgentPool
    from .app import ServeApp

    # the default agent's memory: created as `reverie mcp` would, and the settings checked now
    mem = Memory(home=home, agent=agent, overrides=overrides)
    if not mem.workspace.exists():
        mem.init()
    home = mem.places.home
    lock = state.Lock(home)
    try:
        lock.acquire()
    except state.AlreadyRunning as exc:
        mem.close()
        raise UserError(str(exc)) from None
    if early.is_set():
        lock.release()
        mem.close()
        raise _Stopped()
    sockets: list[socket.socket] = []
    info: dict = {}
    app = None
    stop = threading.Event()
    thread = None
    pool = AgentPool(home, overrides, default_agent=mem.places.agent)
    try:
        token = state.token(home)
        url = None
        if tcp:
            tsock = bind_tcp(bind.strip("[]"), port)
            sockets.append(tsock)
            shown = "127.0.0.1" if bind in ("127.0.0.1", "0.0.0.0") else bind.strip("[]")
            shown = f"[{shown}]" if ":" in shown else shown
            url = f"http://{shown}:{tsock.getsockname()[1]}"
        sock_path = None
        if unix:
            sock_path = state.socket_path(home)
            sockets.append(bind_unix(sock_path))
        info = {"pid": os.getpid(), "home": str(home), "version": __version__, "url": url,
                "port": int(url.rsplit(":", 1)[1]) if url else None, "socket": str(sock_path) if sock_path else None,
                "token": token, "agent": mem.places.agent, "started": time.time()}
        guard = Guard(token, cookie_name=f"reverie_serve_{info['port'] or 'sock'}", loopback_only=loopback_only)
        ui_app = build_app(UIHome(home, all_agents=True, overrides=overrides), guard)
        bridge.install()
        app = ServeApp(home, token, pool, ui_app, loopback_only=loopback_only)
        if scheduler:
            thread = threading.Thread(target=_schedule, args=(mem, stop, say), name="reverie-scheduler", daemon=True)
            thread.start()
        # the default agent opened (and indexing started) before the first client asks for it
        threading.Thread(target=_warm, args=(pool,), name="reverie-warm", daemon=True).start()
        state.write(home, info)
        say(f"reverie serve: home {home}" + (f", {url}" if url else "") + (f", socket {sock_path}" if sock_path else ""))
        say(f"  MCP: {url or 'http://localhost'}/mcp (header Authorization: Bearer <token from {state.state_path(home)}>)")
        if url:  # the token only to a person at a terminal: a service's log is no place for it
            shown_token = token if sys.stderr.isatty() else "<token>"
            say(f"  web view: {url}/?token={shown_token}" + ("" if sys.stderr.isatty() else
                                                             " (reverie serve --print-token prints it)"))
        if ready:
            ready(info)

        class Server(uvicorn.Server):
            def handle_exit(self, sig, frame):
                # a stop by signal is a clean stop (exit 0); a second Ctrl-C does not wait
                stop.set()
                ui_app.state.ui.stopping.set()
                if self.should_exit and sig == signal.SIGINT:
                    self.force_exit = True
                self.should_exit = True

            async def startup(self, sockets=None):
                await super().startup(sockets=sockets)
                if early.is_set():  # stopped before these handlers were in place: stop now
                    self.handle_exit(signal.SIGTERM, None)

        config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=1,
                                lifespan="on")
        Server(config).run(sockets=sockets)
    finally:
        stop.set()
        if thread is not None:
            thread.join(STOP_JOB_SECONDS)
        for s in sockets:
            s.close()
        if app is not None:
            app.lender.close()
        pool.close()
        mem.close()
        if info:
            state.remove(home, info)
        lock.release()
    say("reverie serve stopped")
    return 0


def _warm(pool) -> None:
    try:
        pool.tools(None).list()
    except Exception:  # the first client that asks gets the error in its own answer
        pass


def _schedule(mem, stop: threading.Event, say) -> None:
    """The scheduler, as `reverie scheduler run` runs it, until the server stops."""
    try:
        from ..cron_turns import prune_agent
        from ..dreaming.schedule import reconcile

        sched = mem.scheduler()
        try:
            reconcile(mem, sched)  # Dreaming's managed jobs (nightly sweep, heartbeat review)
            prune_agent(mem)  # cron.sessionRetention
            if not stop.is_set():
                sched.run_forever(stop, poll_seconds=5.0)
        finally:
            sched.close()
    except Exception as exc:  # the server goes on serving; the log says why nothing runs
        say(f"reverie serve: the scheduler stopped: {type(exc).__name__}: {exc}")
