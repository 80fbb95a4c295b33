"""What only the PostgreSQL engine of the search index has (search/postgres.py): the HNSW leg
agrees with exact search and never returns another agent's windows, and keyword queries use their
GIN index under row-level security. (What both engines share is tested by test_index_engines.py.)"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone

import numpy as np
import pytest

from reverie import Memory
from reverie.index import rows
from reverie.index.sync import _vec_blob
from reverie.search.postgres import _ANY_SQL, nearest_windows, vector_plan
from reverie.store import PostgresAgentDatabase, transaction


def index_conn(dsn: str):
    return PostgresAgentDatabase(dsn, f"t{uuid.uuid4().hex[:12]}").connect_index()


def _add_windows(conn, path: str, vecs) -> list[int]:
    with transaction(conn):
        rows.insert_windows(conn, [(path, "memory", i + 1, i + 1, i + 1, i + 1, _vec_blob(np.asarray(v, np.float32)))
                                   for i, v in enumerate(vecs)])
        return [r[0] for r in conn.execute("SELECT seq FROM memory_index_windows WHERE path = ? ORDER BY seq", (path,))]


def _nearest(conn, q, mode: str) -> list[int]:
    with transaction(conn, immediate=False):  # SET LOCAL lasts for this one query
        if mode == "exact":
            conn.execute("SET LOCAL enable_indexscan = off")
        else:
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                conn.execute(f"SET LOCAL {setting} = off")
        return [w[0] for w in nearest_windows(conn, np.asarray(q, np.float32), 10)]


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
        assert {w[0] for w in nearest_windows(mine, q.astype(np.float32), 10)} <= seqs  # the planner's own choice
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


def test_a_large_index_scans_wider_and_finds_the_same_nearest(pg_dsn):
    """Past about 300,000 windows the HNSW scan widens (ef_search 400: recall@10 0.972 -> 0.990 at a
    million, docs/benchmarks.md); the wider scan runs in its own transaction and answers the same."""
    from reverie.search.postgres import ef_search_for

    assert ef_search_for(100_000) is None and ef_search_for(1_000_000) is None
    assert ef_search_for(2_000_000) == 400
    rng = np.random.default_rng(5)
    vecs = rng.normal(size=(300, 384))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    conn = index_conn(pg_dsn)
    _add_windows(conn, "memory/w.md", vecs)
    q = vecs[7].astype(np.float32)
    plain = [w[0] for w in nearest_windows(conn, q, 10)]
    wide = [w[0] for w in nearest_windows(conn, q, 10, ef_search=400)]
    assert wide == plain and wide[0] == 8
    assert not conn.in_transaction
    conn.close()


def test_keyword_queries_use_the_gin_index_under_row_level_security(pg_dsn):
    """PostgreSQL runs a query's own conditions before the policy's only when their functions are
    LEAKPROOF; the schema marks the array operators so (as a superuser, as here), and status says so."""
    conn = index_conn(pg_dsn)
    with transaction(conn):
        conn.execute("INSERT INTO memory_index_state(id) VALUES (1)")
        texts = ["决定住西湖边的湖滨酒店，没有订湖景房" if i == 7 else f"note {i} about topic {i % 13}"
                 for i in range(3000)]
        rows.insert_chunks(conn, [(f"c{i}", f"memory/n{i % 20}.md", "memory", i, i, f"h{i}", "m", t, "", None, 0)
                                  for i, t in enumerate(texts)], texts, "cjk")
    from reverie.store.postgres.pool import raw_connect

    with raw_connect(pg_dsn) as owner:  # the statistics autovacuum would gather in time
        owner.execute("ANALYZE reverie.memory_index_chunks")
    with transaction(conn, immediate=False):
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT seq FROM memory_index_chunks WHERE tokens @> ?::text[]", (["湖景"],)))
    assert "memory_index_chunks_tokens" in plan
    assert PostgresAgentDatabase(pg_dsn, "anyone").health()["keyword_index"] is True
    # the any-token pass reads the postings' index alone, within the agent's rows
    with raw_connect(pg_dsn) as owner:
        owner.execute("VACUUM ANALYZE reverie.memory_index_postings")
    with transaction(conn, immediate=False):
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + _ANY_SQL,
                                                     (2.2, 0.3, 0.1, ["湖景", "topic"], [3.0, 1.0], 10)))
    assert "Index Only Scan using memory_index_postings_pkey" in plan, plan
    assert "agent_id = (InitPlan" in plan or "current_agent" in plan, plan
    conn.close()


def _postings_match_units(conn) -> int:
    """The postings are exactly the units' tokens (with their counts and lengths); returns how many."""
    want = sorted(conn.execute("SELECT t.token, seq, length, t.tf FROM memory_index_chunks, "
                               "unnest(tokens, tfs) AS t(token, tf)").fetchall())
    got = sorted(conn.execute("SELECT token, seq, len, tf FROM memory_index_postings").fetchall())
    assert got == want
    return len(got)


def test_the_postings_follow_every_change_of_the_units(reverie_home, pg_dsn):
    """Sync, an edit, a removed file, forget and a forced rebuild each leave the postings equal to
    the units' tokens, so the keyword leg never ranks a unit that is gone or misses one that is new."""
    env = {"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "REVERIE_STORE_BACKEND": "postgres",
           "REVERIE_POSTGRES_DSN": pg_dsn, "REVERIE_STORE_NAMESPACE": f"t{uuid.uuid4().hex[:8]}"}
    mem = Memory(overrides=['memory.search.provider="fake"'], env=env)
    mem.init()
    for i in range(12):
        (mem.workspace / "memory" / f"2026-05-{i + 1:02d}.md").write_text(
            f"- 第{i}天：在西湖边散步，湖景房很安静\n- walked the heron trail, note {i}\n", "utf-8")
    mem.index.sync()
    conn = mem.index.conn()
    first = _postings_match_units(conn)
    assert first > 12 * 10
    (mem.workspace / "memory/2026-05-01.md").write_text("- an otter by the pier\n", "utf-8")
    (mem.workspace / "memory/2026-05-02.md").unlink()
    mem.index.sync()
    assert _postings_match_units(conn) < first
    assert [r["path"] for r in mem.search("otter")["results"]][:1] == ["memory/2026-05-01.md"]
    from reverie.forget import Selectors, forget

    forget(mem, Selectors(texts=["heron trail, note 3"]))
    assert _postings_match_units(conn) < first
    assert not conn.execute("SELECT count(*) FROM memory_index_chunks WHERE text LIKE '%note 3%'").fetchone()[0]
    mem.rebuild()
    _postings_match_units(mem.index.conn())
    mem.close()


def test_migrations_fill_the_postings_and_path_keys_of_an_index_made_before_them(fresh_db):
    """A database at schema 5 (the units' tokens, no postings, no path keys) gets every unit's
    postings (migration 6) and every source's path keys (7) when it migrates, for every agent;
    searches need no rebuild."""
    from reverie.store.postgres.pool import applied, migrate, raw_connect
    from reverie.store.postgres.schema import MIGRATIONS

    with raw_connect(fresh_db) as owner:  # what reverie before migration 6 made
        applied(owner)
        for m in MIGRATIONS:
            if m.version <= 5:
                owner.execute(m.sql)
                owner.execute("INSERT INTO reverie.schema_migrations(version, name) VALUES (%s, %s)", (m.version, m.name))
        for agent in ("team/a", "team/b"):
            owner.execute("INSERT INTO reverie.memory_index_state(agent_id, id) VALUES (%s, 1)", (agent,))
            owner.execute("INSERT INTO reverie.memory_index_sources(agent_id, id, path, hash, mtime, size, indexed_at) "
                          "VALUES (%s, 1, 'memory/Trip.Plan.md', 'h', 0, 0, 0)", (agent,))
            for i, toks in enumerate([["湖景", "景房"], ["heron", "trail", "湖景"]]):
                owner.execute("INSERT INTO reverie.memory_index_chunks(agent_id, seq, id, path, start_line, end_line, hash, "
                              "model, text, updated_at, tokens) VALUES (%s, %s, %s, 'memory/a.md', 1, 1, 'h', 'm', 't', 0, %s)",
                              (agent, i + 1, f"c{i}", toks))
    assert migrate(fresh_db)[:3] == ["0006_keyword_postings", "0007_source_path_keys", "0008_inline_unit_vectors"]
    with raw_connect(fresh_db) as owner:
        rows = owner.execute("SELECT agent_id, token, seq, len FROM reverie.memory_index_postings "
                             "ORDER BY agent_id, seq, token").fetchall()
        keys = owner.execute("SELECT DISTINCT path_key, name_key, stem_key FROM reverie.memory_index_sources").fetchall()
    assert keys == [("memory/trip.plan.md", "trip.plan.md", "trip.plan")]
    assert rows == [(a, t, s, n) for a in ("team/a", "team/b")
                    for t, s, n in (("景房", 1, 2), ("湖景", 1, 2), ("heron", 2, 3), ("trail", 2, 3), ("湖景", 2, 3))]


# -- many processes ----------------------------------------------------------------------------------
_INDEXER = """
from reverie import Memory
mem = Memory(overrides=['memory.search.provider="fake"'])
for _ in range(2):
    mem.index.sync()
mem.close()
"""

_SEARCHER = """
import sys, time
from reverie import Memory
mem = Memory(overrides=['memory.search.provider="fake"'])
seen = 0
for _ in range(80):
    res = mem.search("湖景房 room", max_results=10, min_score=0.0)["results"]
    assert all(r["path"].startswith("memory/b-") for r in res), res
    assert not any("alpha" in r["snippet"] for r in res), res
    seen = max(seen, len(res))
    time.sleep(0.03)
print(seen)
mem.close()
"""


def _workspace(home, tag: str, n: int) -> None:
    mem = Memory(overrides=['memory.search.provider="fake"'], home=home)
    mem.init()
    for i in range(n):
        (mem.workspace / "memory" / f"{tag}-{i:03d}.md").write_text(
            f"# {tag} {i}\n\n- {'alpha' if tag == 'a' else 'beta'} note {i}: 湖景房 room {i}\n"
            f"- the second entry of {tag} {i}\n", encoding="utf-8")
    mem.close()


def test_processes_index_agents_at_once_and_see_only_their_rows(pg_dsn, tmp_path):
    """Agent A indexed by two hosts sharing its files and agent B by a third, at once, while a
    fourth process searches B: nothing lost or doubled, and B's searches never see A's rows."""
    import os
    import shutil
    import subprocess
    import sys

    ns = f"t{uuid.uuid4().hex[:8]}"
    for home, tag in (("a", "a"), ("b", "b")):
        _workspace(tmp_path / home, tag, 60)
    shutil.copytree(tmp_path / "a", tmp_path / "a2")  # the second host of agent A: the same files

    def run(code: str, home: str, agent_ns: str):
        env = {**os.environ, "REVERIE_HOME": str(tmp_path / home), "REVERIE_STORE_BACKEND": "postgres",
               "REVERIE_POSTGRES_DSN": pg_dsn, "REVERIE_STORE_NAMESPACE": agent_ns, "REVERIE_TIMEZONE": "UTC"}
        return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    procs = [run(_INDEXER, "a", f"{ns}-a"), run(_INDEXER, "a2", f"{ns}-a"), run(_INDEXER, "b", f"{ns}-b"),
             run(_SEARCHER, "b", f"{ns}-b")]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert int(outs[3][0]) > 0  # the searcher found B's notes as they were indexed
    # what one SQLite index of the same files holds, unit for unit
    lite = Memory(overrides=['memory.search.provider="fake"'], home=tmp_path / "a")
    lite.index.sync()
    want = dict(lite.index.conn().execute("SELECT path, count(*) FROM memory_index_chunks GROUP BY path").fetchall())
    want_sources = lite.index.conn().execute("SELECT count(*) FROM memory_index_sources").fetchone()[0]
    lite.close()
    assert len(want) == 60
    for tag in "ab":
        conn = PostgresAgentDatabase(pg_dsn, f"{ns}-{tag}/main").connect_index()
        got = dict(conn.execute("SELECT path, count(*) FROM memory_index_chunks GROUP BY path").fetchall())
        seqs = [r[0] for r in conn.execute("SELECT seq FROM memory_index_chunks")]
        chunks, vectors = conn.execute("SELECT chunks, vectors FROM memory_index_state WHERE id = 1").fetchone()
        sources = conn.execute("SELECT count(*) FROM memory_index_sources").fetchone()[0]
        conn.close()
        assert got == {p.replace("memory/a-", f"memory/{tag}-"): n for p, n in want.items()}
        assert len(seqs) == len(set(seqs)) == chunks == vectors and sources == want_sources


# -- moving between engines ----------------------------------------------------------------------------
QUERIES = ["湖景房", "酒店 预算", "返程车票", "Hangzhou hotel", "lake-view room Hangzhou", "conclusion-first plans",
           "予約", "호텔", "what did we decide about the return ticket?"]


# one moment for every search of a comparison: a note of today decays a little between two searches minutes apart,
# and a score at 0.76945 rounds either way (the time a machine takes is no part of what is compared)
_ASKED_AT = datetime.now(timezone.utc)


def _answers(mem) -> list:
    return [[(r["path"], r["startLine"], r["endLine"], round(r["score"], 4)) for r in
             mem.search(q, max_results=6, min_score=0.0, now=_ASKED_AT)["results"]] for q in QUERIES]


def test_a_migration_to_postgres_and_back_gives_identical_search_results(reverie_home, pg_dsn):
    """The Hangzhou workspace searched on SQLite, moved to PostgreSQL (`reverie db migrate`), its
    index made there from the files and the moved embedding cache, searched; moved back, searched:
    the same results, scores and all, and not one text embedded again after the first."""
    import os
    import shutil
    import subprocess
    import sys

    from test_keyword_fts import NOTES

    base_env = {**os.environ, "REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC",
                "REVERIE_POSTGRES_DSN": pg_dsn, "REVERIE_STORE_NAMESPACE": f"t{uuid.uuid4().hex[:8]}"}
    base_env.pop("REVERIE_STORE_BACKEND", None)
    pg_env = {**base_env, "REVERIE_STORE_BACKEND": "postgres"}
    fake = ['memory.search.provider="fake"']

    def cli(env, *args):
        done = subprocess.run([sys.executable, "-m", "reverie.cli.main", "--set", fake[0], *args], env=env,
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        return done

    lite = Memory(overrides=fake, env=base_env)
    lite.init()
    for rel, text in NOTES.items():
        (lite.workspace / rel).write_text(text, encoding="utf-8")
    lite.remember("Booked the lake-view room (湖景房) at the Lakeside Hotel in Hangzhou.")
    assert lite.index.sync().embedded > 0
    before = _answers(lite)
    assert all(before[:5]) and "memory/2026-03-02.md" in {r[0] for r in before[0]}
    lite.close()

    cli(base_env, "db", "migrate", "--to", "postgres")
    pg = Memory(overrides=fake, env=pg_env)
    report = pg.index.sync()
    assert report.embedded == 0 and report.cache_hits > 0  # the vectors came with the moved cache
    assert pg.search("湖景房")["debug"]["backend"] == "postgres"
    assert _answers(pg) == before
    pg.close()

    cli(pg_env, "db", "migrate", "--to", "sqlite", "--replace")
    shutil.rmtree(Memory(env=base_env).places.index_dir)  # derived: made again from the files
    back = Memory(overrides=fake, env=base_env)
    report = back.index.sync()
    assert report.embedded == 0 and report.cache_hits > 0
    assert _answers(back) == before
    back.close()


def test_doctor_on_postgres_leaves_the_agents_rows_alone(reverie_home, pg_dsn):
    """The doctor proves write -> index -> search in a temporary home; with the agent database and
    index on a shared PostgreSQL, that home must not write under the configured agent's key."""
    from reverie.doctor import run_doctor

    env = {"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "REVERIE_STORE_BACKEND": "postgres",
           "REVERIE_POSTGRES_DSN": pg_dsn, "REVERIE_STORE_NAMESPACE": f"t{uuid.uuid4().hex[:8]}"}
    mem = Memory(overrides=['memory.search.provider="fake"'], env=env)
    mem.init()
    mem.remember("The lake-view room was over budget.")
    mem.index.sync()
    conn = mem.agent_store.connect_index()

    def picture():
        return (conn.execute("SELECT path, text FROM memory_index_chunks ORDER BY seq").fetchall(),
                conn.execute("SELECT count(*) FROM memory_daily_segments").fetchone()[0])

    before = picture()
    report = run_doctor(mem)
    assert report["ok"], report
    assert any(leg["name"] == "database" and leg["ok"] for leg in report["legs"])
    assert picture() == before
    conn.close()
    mem.close()


def test_a_forced_rebuild_is_one_transaction_and_others_read_the_old_rows(reverie_home, pg_dsn):
    """`reverie index --force` on PostgreSQL: while it runs (embedding everything again for another
    model), other connections read the complete old index; when it commits, the new one."""
    import threading
    import time

    from reverie.index.identity import read_identity

    env = {"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "REVERIE_STORE_BACKEND": "postgres",
           "REVERIE_POSTGRES_DSN": pg_dsn, "REVERIE_STORE_NAMESPACE": f"t{uuid.uuid4().hex[:8]}"}
    mem = Memory(overrides=['memory.search.provider="fake"'], env=env)
    mem.init()
    for i in range(40):
        (mem.workspace / "memory" / f"n{i:02d}.md").write_text(f"- note {i} about the heron by the lake\n", "utf-8")
    mem.index.sync()
    old_model = read_identity(mem.index.conn())["model"]

    def picture():
        conn = mem.agent_store.connect_index()
        try:
            return (conn.execute("SELECT count(*), count(embedding) FROM memory_index_chunks").fetchone(),
                    read_identity(conn)["model"])
        finally:
            conn.close()

    before = picture()
    assert before == ((40, 40), old_model)
    slow = Memory(overrides=['memory.search.provider="fake"', 'memory.search.model="slow"'], env=env)
    done: list = []
    worker = threading.Thread(target=lambda: done.append(slow.rebuild()))
    worker.start()
    seen = []
    while worker.is_alive():
        seen.append(picture())
        time.sleep(0.05)
    worker.join()
    assert done and done[0].embedded == 40
    after = ((40, 40), "slow")
    # never half empty, never half new: the complete old index until the commit, then the complete new
    # one (a picture taken between the commit and the worker's end, once seen in CI, shows the new)
    old_ones = [s for s in seen if s == before]
    assert len(old_ones) >= 3 and seen == old_ones + [after] * (len(seen) - len(old_ones)), seen
    assert picture() == after
    slow.close()
    mem.close()


def test_a_large_write_leaves_the_postings_vacuumed(pg_dsn):
    """The keyword leg reads the postings by index-only scans, fast only on pages VACUUM marked
    all-visible: after a sync that wrote many units the index vacuums them at once."""
    from reverie.store.postgres.pool import raw_connect

    store = PostgresAgentDatabase(pg_dsn, f"t{uuid.uuid4().hex[:12]}")

    def vacuums() -> int:
        with raw_connect(pg_dsn) as owner:
            return owner.execute("SELECT vacuum_count FROM pg_stat_user_tables "
                                 "WHERE relname = 'memory_index_postings'").fetchone()[0]

    before = vacuums()
    assert rows.settle(store, rows.SETTLE_AFTER_UNITS - 1) is False
    assert rows.settle(store, rows.SETTLE_AFTER_UNITS) is True
    deadline = time.monotonic() + 5
    while vacuums() == before and time.monotonic() < deadline:  # (statistics lag a moment)
        time.sleep(0.1)
    assert vacuums() == before + 1


def test_the_keyword_fetch_is_fts5s_bm25_on_postgresql(reverie_home, tmp_path, pg_dsn):
    """One workspace indexed by both engines: for words repeated within a unit, long and short
    units, Chinese words and single characters, common and rare words, the keyword leg returns the
    same units in the same order with the same bm25 as FTS5 (scores to 1e-9), ties in the units'
    order: queries whose words are all worth reading (both passes from one read of the postings)
    and queries with a word in more than a fifth of the units (left out of the any-word pass)."""
    import os
    import random

    from test_index_engines import _keyword_fetch_hits

    rng = random.Random(5)
    words = ["budget", "hotel", "lake", "heron", "train", "ticket", "dinner", "plan", "review", "garden"]
    zh = ["酒店", "预算", "湖景房", "火车票", "晚饭", "花园", "西湖"]
    rare = ["quokka", "zephyr", "marmot", "水獭", "灯塔"]
    notes = []
    for i in range(2400):  # past COMMON_MIN_DOCS: the common words are left out of the any-word pass
        n = rng.randint(3, 14)
        parts = [rng.choice(words) if rng.random() < 0.6 else rng.choice(zh) if rng.random() < 0.9
                 else rng.choice(rare) for _ in range(n)]
        notes.append(" ".join(parts) + f" item{i}")
    base = {**os.environ, "REVERIE_TIMEZONE": "UTC", "REVERIE_POSTGRES_DSN": pg_dsn,
            "REVERIE_STORE_NAMESPACE": f"t{uuid.uuid4().hex[:8]}"}
    base.pop("REVERIE_STORE_BACKEND", None)
    mems = {}
    for engine, home in (("sqlite", reverie_home), ("postgres", tmp_path / "pg-home")):
        env = {**base, "REVERIE_HOME": str(home)}
        if engine == "postgres":
            env["REVERIE_STORE_BACKEND"] = "postgres"
        m = Memory(overrides=['memory.search.provider="none"'], env=env)
        m.init()
        for f in range(48):
            (m.workspace / f"memory/2026-02-{f % 28 + 1:02d}-{f}.md").write_text(
                "\n".join(f"- {t}" for t in notes[f * 50:(f + 1) * 50]) + "\n", "utf-8")
        m.index.sync()
        mems[engine] = m
    try:
        from reverie.search import postgres as engine

        kinds = set()
        for query in ("budget", "budget hotel", "湖景房", "酒店 预算", "花", "heron ticket dinner", "西湖 lake plan",
                      "garden review train budget hotel", "quokka zephyr", "水獭 灯塔 marmot", "quokka budget",
                      "灯塔 酒店"):
            qt = engine.analyse(mems["postgres"].index.conn(), query, "cjk").terms
            kinds.add((bool(qt.strict), qt.fetch == qt.tokens))
            lite, pg = (_keyword_fetch_hits(mems[e], query, 40) for e in ("sqlite", "postgres"))
            assert [h[0] for h in pg] == [h[0] for h in lite], query
            assert all(abs(a[1] - b[1]) < 1e-9 for a, b in zip(pg, lite)), (query, pg[:3], lite[:3])
        assert {(True, True), (True, False), (False, True)} <= kinds  # every way the passes are read
    finally:
        for m in mems.values():
            m.close()


def test_fts5_idf_holds_when_the_counts_are_read_apart():
    """The unit count and a token's count are two reads; a writer between them may leave the
    token's above the units' (it crashed the search with a math domain error)."""
    import math

    from reverie.search.postgres import fts5_idf

    assert fts5_idf(100, 3) == math.log(97.5 / 3.5)
    assert fts5_idf(1, 3) == fts5_idf(10, 9) == 1e-6  # FTS5's floor for a word in most units


def test_a_rebuild_by_a_reverie_older_than_the_postings_empties_them_too(pg_dsn):
    """A host still on the previous version rebuilds as it did: bulk mode on, units deleted
    (nothing about postings), units written again from seq 1. The trigger empties the agent's
    postings with its units, so the new units' postings go in without a duplicate key."""
    conn = index_conn(pg_dsn)
    texts = [f"note {i} about the heron" for i in range(20)]

    def write():
        rows.insert_chunks(conn, [(f"c{i}", "memory/n.md", "memory", i, i, f"h{i}", "m", t, "", None, 0)
                                  for i, t in enumerate(texts)], texts, "cjk")

    with transaction(conn):
        conn.execute("INSERT INTO memory_index_state(id) VALUES (1)")
        write()
    with transaction(conn):  # what the previous version's forced rebuild did
        conn.execute("SELECT set_config('reverie.index_bulk', 'on', true)")
        conn.execute("DELETE FROM memory_index_chunks")
        conn.execute("SELECT set_config('reverie.index_bulk', 'off', true)")
        assert conn.execute("SELECT count(*) FROM memory_index_postings").fetchone()[0] == 0
        write()
    assert _postings_match_units(conn) >= 20 * 4
    conn.close()


def test_a_failed_vacuum_after_indexing_is_a_warning(caplog):
    """The sync has committed when the postings are vacuumed: a server that cannot be reached then
    leaves a warning, not an error for the indexing that succeeded."""
    store = PostgresAgentDatabase("postgresql://nobody@/none?host=/nonexistent-reverie&connect_timeout=1", "a")
    with caplog.at_level("WARNING"):
        assert rows.settle(store, rows.SETTLE_AFTER_UNITS) is True
    assert "could not vacuum the keyword postings" in caplog.text


def test_a_file_named_by_the_query_is_found_from_the_indexed_path_keys(pg_dsn):
    """The exact file tiers read the sources' path keys by index under row-level security (a
    pattern on lower(path) read every source of the agent), and the keys follow a renamed path."""
    from reverie.search.postgres import exact_path_hits

    conn = index_conn(pg_dsn)
    with transaction(conn):
        conn.executemany("INSERT INTO memory_index_sources(path, source, hash, mtime, size, indexed_at) "
                         "VALUES (?, 'memory', 'h', 0, 0, 0)", [(f"memory/d{i}/Note-{i}.md",) for i in range(2000)])
    with transaction(conn, immediate=False):
        conn.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT id, path FROM memory_index_sources WHERE path_key = ? OR name_key = ? OR stem_key = ?",
            ("note-7", "note-7", "note-7")))
    assert "Seq Scan" not in plan, plan
    assert all(f"memory_index_sources_{k}_key" in plan for k in ("path", "name", "stem")), plan
    assert [(h.path, h.specificity) for h in exact_path_hits(conn, "NOTE-7")] == [("memory/d7/Note-7.md", 1)]
    with transaction(conn):
        conn.execute("UPDATE memory_index_sources SET path = 'memory/d7/Renamed.md' WHERE path = 'memory/d7/Note-7.md'")
    assert exact_path_hits(conn, "note-7") == []
    assert [h.specificity for h in exact_path_hits(conn, "renamed.md")] == [2]
    conn.close()


def test_the_nearest_windows_are_read_ahead_in_the_searchs_snapshot(pg_dsn):
    """The nearest-window scan a search starts ahead runs on another connection, and inside a
    transaction in that transaction (it sees the windows the transaction wrote); both answer as
    the scan itself does."""
    from reverie.search.postgres import nearest_ahead

    conn = index_conn(pg_dsn)
    rng = np.random.default_rng(11)
    _add_windows(conn, "memory/kept.md", rng.standard_normal((30, 384)).astype(np.float32))
    q = rng.standard_normal(384).astype(np.float32)
    assert nearest_ahead(conn, q)() == nearest_windows(conn, q)
    with pytest.raises(LookupError):  # (rolled back)
        with transaction(conn):
            rows.insert_windows(conn, [("memory/new.md", "memory", 1, 1, 1, 1, _vec_blob(q))])
            assert nearest_ahead(conn, q)()[0][1] == "memory/new.md"
            raise LookupError
    assert all(w[1] == "memory/kept.md" for w in nearest_ahead(conn, q)())
    conn.close()


def test_a_forked_child_searches_with_its_own_threads_and_connections(pg_dsn):
    """A process forked after it searched gets worker threads and connections of its own (the
    parent's threads do not exist in the child, so a scan started ahead would wait for ever; the
    parent's connections are the parent's), and the parent's go on working after the child ends."""
    import os
    import signal

    from reverie.search.postgres import ahead, nearest_ahead
    from reverie.store.postgres.pool import pool_for

    conn = index_conn(pg_dsn)
    rng = np.random.default_rng(13)
    _add_windows(conn, "memory/a.md", rng.standard_normal((12, 384)).astype(np.float32))
    q = rng.standard_normal(384).astype(np.float32)
    expected = nearest_ahead(conn, q)()  # the parent's workers and pool exist now
    assert ahead(lambda: os.getpid())() == os.getpid()
    parents = pool_for(pg_dsn)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            signal.alarm(30)
            mine = PostgresAgentDatabase(pg_dsn, conn.agent).connect_index()
            same = nearest_ahead(mine, q)(timeout=20) == expected
            own = pool_for(pg_dsn) is not parents
            os.write(write, f"{ahead(lambda: os.getpid())(timeout=20)} {same} {own}".encode())
        finally:
            os._exit(0)
    os.close(write)
    got = os.read(read, 64).decode()
    os.waitpid(child, 0)
    assert got == f"{child} True True"
    assert nearest_ahead(conn, q)() == expected
    conn.close()


def _unit_rows(n: int, rng) -> tuple[list[tuple], list[str]]:
    """``n`` units of 400 random CJK characters (text that does not compress) with 384-dimension
    vectors: rows past the 2 kB at which PostgreSQL moves a row's largest value out by default."""
    texts = ["".join(chr(0x4E00 + int(c)) for c in rng.integers(0, 20000, 400)) for _ in range(n)]
    vecs = rng.standard_normal((n, 384)).astype(np.float32)
    return [(f"u{i}", "memory/a.md", "memory", i + 1, i + 1, "h", "m", t, "", _vec_blob(v), 0)
            for i, (t, v) in enumerate(zip(texts, vecs))], texts


def test_a_units_vector_stays_in_its_row(pg_dsn):
    """Each unit's vector is kept in the unit's row, not in the TOAST table (migration 8): reading a
    search's candidates is one probe per unit, not two."""
    conn = index_conn(pg_dsn)
    if int(conn.execute("SHOW server_version_num").fetchone()[0]) < 170000:
        pytest.skip("pg_column_toast_chunk_id needs PostgreSQL 17 (reverie db start runs 18)")
    units, texts = _unit_rows(40, np.random.default_rng(5))
    with transaction(conn):
        rows.insert_chunks(conn, units, texts, "cjk")
    where = conn.execute("SELECT count(*), count(*) FILTER (WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL), "
                         "min(octet_length(text)) FROM memory_index_chunks").fetchone()
    assert where[0] == 40 and where[2] > 1000
    assert where[1] == 0, f"{where[1]} of 40 vectors in the TOAST table"
    conn.close()


def test_the_windows_of_the_candidate_files_are_read_by_index(pg_dsn):
    """The window matrix reads each candidate file's windows by an index probe, never a scan of all
    the agent's windows (the planner once chose one on a misestimate: 132 ms at p95 at a million
    units), and returns every window of the files the nearest windows are in."""
    from reverie.search.postgres import _window_sql, nearest_ahead, window_matrix
    from reverie.store.postgres.pool import raw_connect

    conn = index_conn(pg_dsn)
    rng = np.random.default_rng(3)
    for f in range(60):
        _add_windows(conn, f"memory/f{f}.md", rng.standard_normal((8, 384)).astype(np.float32))
    with raw_connect(pg_dsn) as owner:
        owner.execute("ANALYZE reverie.memory_index_windows")
    q = rng.standard_normal(384).astype(np.float32)
    near = nearest_ahead(conn, q)()  # (on another of the pool's connections)
    assert len(near) == 24
    paths = sorted({w[1] for w in near})
    with transaction(conn, immediate=False):
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + _window_sql(384),
                                                     (paths, ["memory"] * len(paths), [], 384 * 4)))
    assert "memory_index_windows_path_source on memory_index_windows w" in plan, plan
    assert "Seq Scan on memory_index_windows w" not in plan, plan
    m = window_matrix(conn, q, [], near)
    files = {k.split("\0")[1] for k in m.file_ids}
    assert files == set(paths) and len(m.seqs) == 8 * len(files)
    assert set(m.seqs) >= {w[0] for w in near}
    conn.close()
