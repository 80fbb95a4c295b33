"""Helpers for tests that run on both storage engines (the ``store_backend`` fixture, conftest.py)."""

from __future__ import annotations

import pytest


def only_sqlite(backend: str, why: str) -> None:
    """Skip a test that only makes sense on SQLite (it reads the database file or its FTS5 tables),
    saying why."""
    if backend != "sqlite":
        pytest.skip(f"SQLite engine only: {why}")


def transcript_hits(conn, word: str) -> int:
    """How many transcript search rows hold ``word`` (Chinese too), on either engine."""
    if getattr(conn, "engine", "sqlite") == "postgres":
        from reverie.text.fts import index_tokens

        return conn.execute("SELECT count(*) FROM transcript_search WHERE tokens @> ?::text[]",
                            (index_tokens(word),)).fetchone()[0]
    return conn.execute("SELECT count(*) FROM transcript_fts WHERE transcript_fts MATCH ?",
                        (f'"{word}"',)).fetchone()[0]


def engine_env() -> dict[str, str]:
    """The variables that choose the engine (set by ``store_backend``), for a CLI subprocess whose
    environment a test builds from nothing."""
    import os

    names = ("REVERIE_STORE_BACKEND", "REVERIE_POSTGRES_DSN", "REVERIE_STORE_NAMESPACE")
    return {n: os.environ[n] for n in names if n in os.environ}


def _as_word(needle: str) -> str:
    """``needle`` as a word of its own: "7781" inside a hash or an epoch timestamp is not the text
    (a byte grep found "7781" in a float timestamp's digits, 1764877812.3, once in CI)."""
    import re

    return f"(^|[^0-9A-Za-z]){re.escape(needle)}([^0-9A-Za-z]|$)"


def grep_home(home, needle: str) -> list[str]:
    """Every file under the home whose bytes hold ``needle`` as a word (databases and their WAL
    included)."""
    import re

    word = re.compile(_as_word(needle).encode())
    return [str(p.relative_to(home)) for p in sorted(home.rglob("*")) if p.is_file() and word.search(p.read_bytes())]


def rows_holding(store, needle: str) -> list[str]:
    """The agent's tables (on PostgreSQL) with a row whose text holds ``needle``: what a byte grep of
    the home finds in a SQLite file. Empty on SQLite (the file is in the home, grepped there)."""
    if getattr(store, "engine", "sqlite") != "postgres":
        return []
    from reverie.store import connect
    from reverie.store.postgres.schema import AGENT_TABLES

    pattern = _as_word(needle)
    conn = connect(store)
    try:
        return [t for t in AGENT_TABLES
                if conn.execute(f"SELECT count(*) FROM {t} x WHERE x::text ~ ?", (pattern,)).fetchone()[0]]
    finally:
        conn.close()


def index_conn(mem):
    """A connection of its own to the agent's live search index, on either engine (close it after)."""
    if mem.agent_store.engine == "postgres":
        return mem.agent_store.connect_index()
    from reverie.store import connect

    return connect(mem.generation_path())
