"""The built-in storage engines, as ``reverie.stores`` entry points (see :mod:`reverie.plugins`).

An engine's factory takes the agent's :class:`~reverie.paths.Places` and the
``memory.store`` settings and returns an :class:`~reverie.store.engine.AgentDatabase`.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from .engine import AgentDatabase, PostgresAgentDatabase, SqliteAgentDatabase, agent_key

LOCAL_SERVER_DIR = "postgres"  # <home>/postgres: the server `reverie db start` runs


def local_server_root(home: Path) -> Path:
    """Where the local server of a home keeps its data: ``<home>/postgres``. Run as root, the server
    runs as an unprivileged OS user (server.py) who cannot enter a home under ``/root``: its data
    then lives under ``/var/lib/reverie`` in a folder named after the home."""
    import hashlib

    from .postgres.server import others_can_reach, runs_as_other_user

    root = Path(home).resolve() / LOCAL_SERVER_DIR
    if runs_as_other_user() and not others_can_reach(root):
        tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
        return Path("/var/lib/reverie") / f"postgres-{tag}"
    return root


def local_server(home: Path):
    from .postgres.server import LocalServer

    return LocalServer(local_server_root(home))


def sqlite(places, settings) -> AgentDatabase:
    return SqliteAgentDatabase(places.agent_db)


def postgres(places, settings) -> AgentDatabase:
    dsn = settings.dsn
    if not dsn:
        local = local_server(places.home)
        dsn = local.dsn() if local.running() else None
        if not dsn:
            raise ConfigError("memory.store.backend is postgres but no DSN is set: set memory.store.dsn "
                              "(or REVERIE_POSTGRES_DSN), or start a local server with: reverie db start")
    return PostgresAgentDatabase(dsn, agent_key(places.agent, settings.namespace))


def open_agent_store(places, settings) -> AgentDatabase:
    """The agent database the settings choose (``memory.store.backend``)."""
    from .. import plugins

    name = (settings.backend or "sqlite").lower()
    found = plugins.find(plugins.STORES, name)
    if found is None:
        from ..config import closest

        known = plugins.names(plugins.STORES)
        close = closest(name, known)
        raise ConfigError(f"unknown memory.store.backend {name!r}"
                          + (f"; did you mean {close!r}?" if close else f" (installed: {', '.join(known)})"))
    return plugins.load(found)(places, settings)
