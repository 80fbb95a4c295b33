"""The storage seam: where an agent's database lives, on which engine.

Feature code (transcripts, session search, standing intents, trust, recall signals, Dreaming's
state, the embedding cache, forget) holds an :class:`AgentDatabase` and asks it for a connection
with :func:`reverie.store.connect`; the connection speaks the small apsw surface the stores use
(``execute``, ``executemany``, ``changes``, transactions through :func:`reverie.store.transaction`).

* :class:`SqliteAgentDatabase`: one SQLite file per agent (the default, embedded).
* :class:`PostgresAgentDatabase`: the agent's rows in a shared PostgreSQL database, keyed by the
  agent first and fenced by row-level security (:mod:`reverie.store.postgres`).

The SQL stays one copy, written for SQLite; the PostgreSQL connection rewrites the few idioms that
differ (:mod:`reverie.store.postgres.dialect`). What has no common form (full-text matching) is
asked of the engine by name: ``engine_of(conn) == "postgres"``.
"""

from __future__ import annotations

from pathlib import Path

ENGINES = ("sqlite", "postgres")


class AgentDatabase:
    engine: str = ""

    def connect(self, *, readonly: bool = False):
        raise NotImplementedError

    def exists(self) -> bool:
        raise NotImplementedError

    @property
    def label(self) -> str:
        raise NotImplementedError

    def health(self) -> dict:
        """What ``reverie status`` shows of the engine; never raises."""
        return {"engine": self.engine, "ok": True, "where": self.label}


class SqliteAgentDatabase(AgentDatabase):
    engine = "sqlite"

    def __init__(self, path: Path | str):
        self.path = Path(path)

    def connect(self, *, readonly: bool = False):
        from .connection import connect

        return connect(self.path, readonly=readonly)

    def exists(self) -> bool:
        return self.path.exists()

    @property
    def label(self) -> str:
        return str(self.path)

    def __repr__(self) -> str:
        return f"SqliteAgentDatabase({str(self.path)!r})"


class PostgresAgentDatabase(AgentDatabase):
    engine = "postgres"

    def __init__(self, dsn: str, agent: str):
        if not agent:
            raise ValueError("an agent key is required")
        self.dsn = dsn
        self.agent = agent

    def connect(self, *, readonly: bool = False):
        from .postgres.connection import PgConnection
        from .postgres.pool import pool_for

        return PgConnection(pool_for(self.dsn), self.agent, self.label)

    def connect_index(self):
        """A connection for the agent's search index (docs/team.md): its writers take the index's
        own advisory lock, and a forced rebuild nests the sync's batches in one transaction."""
        from .postgres.connection import PgConnection
        from .postgres.pool import pool_for

        return PgConnection(pool_for(self.dsn), self.agent, self.label + "#index",
                            lock_key=f"reverie.index:{self.agent}", nested=True)

    def vacuum(self, table: str) -> None:
        """``VACUUM (ANALYZE)`` one of reverie's tables as the login role (the agents' connections
        act as the app role, which owns nothing). It needs the table's owner: for another role
        the server skips it with a warning, and autovacuum does it in time."""
        from .postgres.pool import raw_connect
        from .postgres.schema import SCHEMA

        with raw_connect(self.dsn) as conn:
            # SKIP_LOCKED: another process vacuuming it already does the work; never queue behind it
            conn.execute(f"VACUUM (ANALYZE, SKIP_LOCKED) {SCHEMA}.{table}")

    def exists(self) -> bool:
        return True  # rows appear as they are written; an agent with none reads as empty

    @property
    def label(self) -> str:
        from .postgres.pool import redact

        return f"{redact(self.dsn)}#agent={self.agent}"

    def __repr__(self) -> str:
        return f"PostgresAgentDatabase({self.label!r})"

    def health(self) -> dict:
        import time

        out: dict = {"engine": self.engine, "ok": False, "where": self.label, "agent": self.agent}
        try:
            from .postgres.pool import pending_migrations, raw_connect

            from .postgres.schema import KEYWORD_INDEX_CHECK

            t0 = time.perf_counter()
            with raw_connect(self.dsn) as conn:
                version = conn.execute("SHOW server_version").fetchone()[0]
                ext = dict(conn.execute("SELECT extname, extversion FROM pg_extension").fetchall())
                gin = bool(conn.execute(KEYWORD_INDEX_CHECK).fetchone()[0])
            out.update(ok=True, ms=round((time.perf_counter() - t0) * 1000, 1), server=version,
                       pgvector=ext.get("vector"), pending_migrations=pending_migrations(self.dsn),
                       keyword_index=gin)
        except Exception as exc:  # status reports, never raises
            out["error"] = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return out


def as_database(target) -> AgentDatabase:
    """An :class:`AgentDatabase` for a path (SQLite) or the database itself."""
    if isinstance(target, AgentDatabase):
        return target
    return SqliteAgentDatabase(target)


def engine_of(conn) -> str:
    return getattr(conn, "engine", "sqlite")


def agent_key(agent: str, namespace: str | None = None) -> str:
    """The key an agent's rows carry in a shared database: ``namespace/agent`` (a team running
    several reverie homes on one database gives each home a namespace, or names agents uniquely)."""
    return f"{namespace}/{agent}" if namespace else agent
