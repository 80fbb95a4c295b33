"""What only the PostgreSQL engine of the search index has (search/postgres.py): the HNSW leg
agrees with exact search and never returns another agent's windows, and keyword queries use their
GIN index under row-level security. (What both engines share is tested by test_index_engines.py.)"""

from __future__ import annotations

import uuid

import numpy as np

from reverie.index import rows
from reverie.index.sync import _vec_blob
from reverie.search.postgres import nearest_windows, vector_plan
from reverie.store import PostgresAgentDatabase, transaction


def index_conn(dsn: str):
    return PostgresAgentDatabase(dsn, f"t{uuid.uuid4().hex[:12]}").connect_index()


def _add_windows(conn, path: str, vecs) -> list[int]:
    with transaction(conn):
        for i, v in enumerate(vecs):
            rows.insert_window(conn, path, "memory", i + 1, i + 1, i + 1, i + 1, _vec_blob(np.asarray(v, np.float32)))
        return [r[0] for r in conn.execute("SELECT seq FROM memory_index_windows WHERE path = ? ORDER BY seq", (path,))]


def _nearest(conn, q, mode: str) -> list[int]:
    with transaction(conn, immediate=False):  # SET LOCAL lasts for this one query
        if mode == "exact":
            conn.execute("SET LOCAL enable_indexscan = off")
        else:
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                conn.execute(f"SET LOCAL {setting} = off")
        return nearest_windows(conn, np.asarray(q, np.float32), 10)


def test_the_hnsw_leg_agrees_with_exact_search_and_keeps_to_its_agent(pg_dsn):
    rng = np.random.default_rng(3)
    centers = rng.normal(size=(40, 384))
    vecs = centers[rng.integers(0, 40, 2000)] + 0.6 * rng.normal(size=(2000, 384))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    mine, other = index_conn(pg_dsn), index_conn(pg_dsn)
    seqs = set(_add_windows(mine, "memory/n.md", vecs))
    queries = vecs[rng.integers(0, 2000, 20)] + 0.1 * rng.normal(size=(20, 384))
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    # the other agent holds the exact query vectors: the nearest rows of all, never to be seen here
    _add_windows(other, "memory/x.md", queries)
    recall = []
    for q in queries:
        approx, exact = _nearest(mine, q, "index"), _nearest(mine, q, "exact")
        assert set(nearest_windows(mine, q.astype(np.float32), 10)) <= seqs  # the planner's own choice
        assert len(approx) == 10 and set(approx) <= seqs and set(exact) <= seqs
        recall.append(len(set(approx) & set(exact)) / 10)
        best = int(np.argmax(vecs @ q)) + 1  # seqs are numbered per agent from 1, as on SQLite
        assert exact[0] == best
    assert np.mean(recall) >= 0.95
    # the approximate leg really went through HNSW, the agent's filter applied after it
    with transaction(mine, immediate=False):
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
            mine.execute(f"SET LOCAL {setting} = off")
        assert "memory_index_windows_hnsw_384" in vector_plan(mine, 384)
    mine.close()
    other.close()


def test_keyword_queries_use_the_gin_index_under_row_level_security(pg_dsn):
    """PostgreSQL runs a query's own conditions before the policy's only when their functions are
    LEAKPROOF; the schema marks the array operators so (as a superuser, as here), and status says so."""
    conn = index_conn(pg_dsn)
    with transaction(conn):
        conn.execute("INSERT INTO memory_index_state(id) VALUES (1)")
        for i in range(3000):
            text = "决定住西湖边的湖滨酒店，没有订湖景房" if i == 7 else f"note {i} about topic {i % 13}"
            rows.insert_chunk(conn, (f"c{i}", f"memory/n{i % 20}.md", "memory", i, i, f"h{i}", "m", text, "", None, 0),
                              text, "cjk")
    from reverie.store.postgres.pool import raw_connect

    with raw_connect(pg_dsn) as owner:  # the statistics autovacuum would gather in time
        owner.execute("ANALYZE reverie.memory_index_chunks")
    with transaction(conn, immediate=False):
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT seq FROM memory_index_chunks WHERE tokens @> ?::text[]", (["湖景"],)))
    assert "memory_index_chunks_tokens" in plan
    assert PostgresAgentDatabase(pg_dsn, "anyone").health()["keyword_index"] is True
    conn.close()
