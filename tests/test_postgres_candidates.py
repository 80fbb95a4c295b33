"""The search index's candidate queries on PostgreSQL (store/postgres/candidates.py): the SQLite
keyword index's required queries (Chinese words of any length, Hangzhou + 酒店, Japanese, Korean,
stems, FTS-syntax-looking input) find the same notes; the HNSW vector leg agrees with exact search
and never returns another agent's rows. PostgreSQL only: the SQLite engine's legs are tested by
test_keyword_fts.py and the search tests."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from reverie.store import PostgresAgentDatabase, connect, transaction
from reverie.store.postgres.candidates import Unit, keyword_top, vector_plan, vector_top, write_units

from test_keyword_fts import NOTES


def agent_conn(dsn: str):
    return connect(PostgresAgentDatabase(dsn, f"t{uuid.uuid4().hex[:12]}"))


@pytest.fixture
def notes(pg_dsn):
    conn = agent_conn(pg_dsn)
    units, paths = [], []
    for rel, text in NOTES.items():
        for i, line in enumerate(text.splitlines(), 1):
            if line.startswith("- "):
                units.append(Unit(rel, i, i, line))
                paths.append(rel)
    with transaction(conn):
        seqs = write_units(conn, units)
    yield conn, dict(zip(seqs, paths))
    conn.close()


@pytest.mark.parametrize("query, expected", [
    ("酒店", {"memory/2026-03-01.md", "memory/2026-03-02.md", "memory/trip-en.md"}),
    ("湖景房", {"memory/2026-03-02.md"}),
    ("返程车票", {"memory/2026-03-03.md"}),
    ("预算", {"memory/2026-03-01.md", "memory/2026-03-02.md"}),
    ("Hangzhou 酒店", {"memory/trip-en.md"}),
    ("予約", {"memory/japanese.md"}),
    ("ホテル", {"memory/japanese.md"}),
    ("호텔", {"memory/korean.md"}),
    ("hotels", {"memory/english.md"}),
    ("booking", {"memory/english.md", "memory/trip-en.md"}),
])
def test_the_keyword_leg_finds_what_the_sqlite_index_finds(notes, query, expected):
    conn, path_of = notes
    got = keyword_top(conn, query, 10)
    assert {path_of[c.seq] for c in got if c.strict} == expected
    assert all(0 < c.score <= 1 for c in got)


def test_one_unknown_word_falls_back_to_the_others(notes):
    conn, path_of = notes
    got = keyword_top(conn, "Hangzhou zeppelin", 10)
    assert got and not any(c.strict for c in got) and path_of[got[0].seq] == "memory/trip-en.md"
    assert 0 < got[0].score < 1  # it holds part of the query's information


@pytest.mark.parametrize("query", ['hotel AND "', "NOT OR (酒店", "*", "NEAR(a b)", "col:hotel", "'; DROP TABLE x; --",
                                   "100% _off_"])
def test_query_syntax_in_user_text_never_raises(notes, query):
    conn, _ = notes
    keyword_top(conn, query, 10)


def test_the_hnsw_leg_agrees_with_exact_search_and_keeps_to_its_agent(pg_dsn):
    rng = np.random.default_rng(3)
    centers = rng.normal(size=(40, 384))
    vecs = centers[rng.integers(0, 40, 2000)] + 0.6 * rng.normal(size=(2000, 384))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    mine, other = agent_conn(pg_dsn), agent_conn(pg_dsn)
    with transaction(mine):
        seqs = write_units(mine, [Unit("memory/n.md", i, i, f"note {i}", v.tolist()) for i, v in enumerate(vecs)])
    queries = vecs[rng.integers(0, 2000, 20)] + 0.1 * rng.normal(size=(20, 384))
    # the other agent holds the exact query vectors: the nearest rows of all, never to be seen here
    with transaction(other):
        theirs = set(write_units(other, [Unit("memory/x.md", 1, 1, "x", q.tolist()) for q in queries]))
    recall = []
    for q in queries:
        approx = vector_top(mine, q.tolist(), 10, mode="index")
        exact = vector_top(mine, q.tolist(), 10, mode="exact")
        assert {c.seq for c in vector_top(mine, q.tolist(), 10)} <= set(seqs)  # the planner's own choice
        assert len(approx) == 10 and not {c.seq for c in approx} & theirs
        assert {c.seq for c in exact} <= set(seqs)
        recall.append(len({c.seq for c in approx} & {c.seq for c in exact}) / 10)
        ex_d = sorted(c.rank for c in exact)
        assert abs(ex_d[0] - float(1 - (vecs @ q / np.linalg.norm(q)).max())) < 1e-4  # exact is exact
    assert np.mean(recall) >= 0.95
    # the approximate leg really went through HNSW, the agent's filter applied after it
    assert "memory_index_units_hnsw_384" in vector_plan(mine, 384, "index")
    assert "memory_index_units_hnsw_384" not in vector_plan(mine, 384, "exact")
    mine.close()
    other.close()


def test_keyword_queries_use_the_gin_index_under_row_level_security(notes, pg_dsn):
    """PostgreSQL runs a query's own conditions before the policy's only when their functions are
    LEAKPROOF; the schema marks the array operators so (as a superuser, as here), and status says so."""
    conn, _ = notes
    plan = "\n".join(r[0] for r in conn.execute(
        "EXPLAIN SELECT seq FROM memory_index_units WHERE tokens @> ?::text[]", (["湖景"],)))
    assert "memory_index_units_tokens" in plan
    assert PostgresAgentDatabase(pg_dsn, "anyone").health()["keyword_index"] is True
