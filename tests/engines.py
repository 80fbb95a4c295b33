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
