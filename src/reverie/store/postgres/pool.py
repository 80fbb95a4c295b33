"""Connection pools (one per DSN per process) and the schema migrations they wait for.

The first use of a DSN in a process applies the pending migrations of
:mod:`reverie.store.postgres.schema`: under a session-level advisory lock, so that several
processes (and hosts) starting at once apply each migration exactly once, each in its own
transaction together with its ledger row. A role that may not change the schema gets a clear
error naming what is pending instead.

Pooled connections run in autocommit (a transaction is always explicit, see
:mod:`.connection`), search ``reverie`` first, and switch to the ``reverie_app`` role when the
login role would bypass row-level security (a superuser, the tables' owner).
"""

from __future__ import annotations

import atexit
import os
import threading
from urllib.parse import urlsplit, urlunsplit

from ...errors import UserError
from .schema import APP_ROLE, GRANTS, MIGRATION_LOCK, MIGRATIONS, SCHEMA

EF_SEARCH = 200  # HNSW candidates per scan of the search index's vector leg (search/postgres.py)
POOL_MAX = 16
# a search reads its nearest windows on a second connection while it reads the other legs on the
# first (search/postgres.py nearest_ahead): two kept open, so neither waits for a new one
POOL_MIN = 2
POOL_TIMEOUT = 10.0  # waiting longer for a connection only delays the error
CONNECT_TIMEOUT = 10

_pools: dict[str, object] = {}
_lock = threading.Lock()


def redact(dsn: str) -> str:
    """The DSN without its password, for messages and ``status``."""
    try:
        parts = urlsplit(dsn)
    except ValueError:
        return "postgresql://…"
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return dsn


def _import():
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:
        raise UserError("the postgres engine needs psycopg and psycopg-pool: pip install 'reverie[postgres]'") from exc
    return psycopg, psycopg_pool


def raw_connect(dsn: str, **kwargs):
    """One plain connection (migrations, administration); autocommit, reverie's schema first."""
    psycopg, _ = _import()
    try:
        return psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                               options=f"-c search_path={SCHEMA},public", **kwargs)
    except psycopg.OperationalError as exc:
        raise UserError(f"cannot connect to PostgreSQL at {redact(dsn)}: {str(exc).strip().splitlines()[0]}") from None


def applied(conn) -> set[int]:
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    conn.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.schema_migrations (version int PRIMARY KEY, "
                 "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
    return {r[0] for r in conn.execute(f"SELECT version FROM {SCHEMA}.schema_migrations")}


def pending_migrations(dsn: str) -> list[str]:
    with raw_connect(dsn) as conn:
        row = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.schema_migrations",)).fetchone()
        done = {r[0] for r in conn.execute(f"SELECT version FROM {SCHEMA}.schema_migrations")} if row[0] else set()
    return [f"{m.version:04d}_{m.name}" for m in MIGRATIONS if m.version not in done]


def migrate(dsn: str) -> list[str]:
    """Apply pending migrations once, whoever else is starting; returns the ones this call ran."""
    psycopg, _ = _import()
    ran: list[str] = []
    with raw_connect(dsn) as conn:
        if _up_to_date(conn):  # the usual case, and all a role without CREATE rights may do
            return ran
        conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (MIGRATION_LOCK,))
        try:
            try:
                done = applied(conn)
                for m in MIGRATIONS:
                    if m.version in done:
                        continue
                    with conn.transaction():
                        conn.execute(m.sql)
                        conn.execute(f"INSERT INTO {SCHEMA}.schema_migrations(version, name) VALUES (%s, %s)",
                                     (m.version, m.name))
                    ran.append(f"{m.version:04d}_{m.name}")
                if ran or not _app_role_ready(conn):
                    conn.execute(GRANTS)
            except psycopg.errors.UndefinedFile as exc:  # CREATE EXTENSION of one the server lacks
                raise UserError(f"the PostgreSQL server lacks an extension reverie needs (pgvector): "
                                f"{str(exc).strip().splitlines()[0]}") from None
            except psycopg.errors.InsufficientPrivilege as exc:
                raise UserError(f"the database needs reverie's schema migrations and role "
                                f"{conn.info.user!r} may not apply them ({str(exc).strip()}); run "
                                "`reverie db schema --dsn OWNER_DSN` once") from None
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (MIGRATION_LOCK,))
    return ran


def _up_to_date(conn) -> bool:
    if not conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.schema_migrations",)).fetchone()[0]:
        return False
    done = {r[0] for r in conn.execute(f"SELECT version FROM {SCHEMA}.schema_migrations")}
    return all(m.version in done for m in MIGRATIONS) and _app_role_ready(conn)


def _app_role_ready(conn) -> bool:
    row = conn.execute("SELECT has_schema_privilege(%s, %s, 'USAGE') FROM pg_roles WHERE rolname = %s",
                       (APP_ROLE, SCHEMA, APP_ROLE)).fetchone()
    return bool(row and row[0])


def _configure(conn) -> None:
    """Every new pooled connection: drop to the app role when logged in with RLS bypass."""
    row = conn.execute("SELECT rolsuper OR rolbypassrls, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) "
                       "FROM pg_roles WHERE rolname = current_user", (APP_ROLE,)).fetchone()
    if row and row[0] and row[1]:
        conn.execute(f"SET ROLE {APP_ROLE}")
    # vector scans: enough HNSW candidates, and keep scanning while the agent's filter drops rows
    conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
    conn.execute("SET hnsw.iterative_scan = relaxed_order")


def pool_for(dsn: str):
    """The process's pool for ``dsn`` (migrating the schema on first use)."""
    with _lock:
        pool = _pools.get(dsn)
        if pool is not None:
            return pool
        _, psycopg_pool = _import()
        migrate(dsn)
        pool = psycopg_pool.ConnectionPool(
            dsn, min_size=POOL_MIN, max_size=POOL_MAX, timeout=POOL_TIMEOUT, open=True, configure=_configure,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT,
                    "options": f"-c search_path={SCHEMA},public"},
            name=f"reverie:{redact(dsn)}")
        _pools[dsn] = pool
        return pool


def close_pools() -> None:
    with _lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        try:
            pool.close(timeout=2)
        except Exception:
            pass


atexit.register(close_pools)


def _forget_pools() -> None:
    """In a forked child: the parent's pools hold the parent's connections, and their worker
    threads do not exist here; the child opens its own on first use, as a new process does. They
    are dropped, not closed: closing would end the parent's sessions (psycopg leaves a connection
    alone when an object made in another process is collected)."""
    global _lock
    _pools.clear()
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)
