"""Retrieval quality on LoCoMo, measured on what an agent reads: reverie's search against the
retrievers a user would pick instead, in one run.

    python benchmarks/locomo_retrieval.py ../shared/data/locomo/locomo10.json

Each conversation becomes a reverie workspace the way an agent would have kept it: one daily note
per session, named by the session's date, one line per turn (``Speaker: text``), with a map from
every line to its ``dia_id``. Every question is asked as of the day after the conversation's last
session (the clock is a parameter of search, never the wall clock).

The main measure is what the agent reads: results are read in order, snippet by snippet and line by
line, until a budget of 500, 1,000 or 2,000 tokens (reverie's estimate) is spent; a question counts
when an evidence turn was visible in what was read. Beside it: ``session all@5`` (every evidence
session among the first five distinct notes of the results: the long-chat-history measure) and the
line-range measures of earlier reports (``any@k``: an evidence turn inside the line range of one of
the first k results).

Systems: reverie hybrid as shipped (and without decay), reverie keyword-only, reverie vector-only,
and the peers over single turns: BM25 (SQLite FTS5, porter, any word), dense cosine with the same
local embedder, and their reciprocal-rank fusion. Embeddings come from caches under ``--work``
(reverie's own cache, and one for the peers), so a second run costs minutes, not the first run's
half hour. The data set is CC BY-NC 4.0: benchmarking only, never copied into the package.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reverie import Memory  # noqa: E402
from reverie.embeddings import Embedder  # noqa: E402
from reverie.search import context, pipeline  # noqa: E402
from reverie.text.cjk import estimate_tokens  # noqa: E402
from report import update_section  # noqa: E402

KS = (1, 5, 10, 20)
BUDGETS = (500, 1000, 2000)
DIA_RE = re.compile(r"^D(\d+):(\d+)$")
REPORT_START, REPORT_END = "<!-- locomo:start -->", "<!-- locomo:end -->"


# ---------------------------------------------------------------------------------------------
# workspace construction
@dataclass
class Conversation:
    sample_id: str
    files: dict[str, str]  # workspace-relative path -> content
    line_ids: dict[str, dict[int, str]]  # path -> line number -> dia_id
    questions: list[dict]
    now: datetime
    dia_ids: set[str] = field(default_factory=set)


def parse_date(raw: str) -> datetime:
    raw = " ".join(raw.split())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(raw, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    raise ValueError(f"unrecognised session date {raw!r}")


def build_conversation(sample: dict) -> Conversation:
    conv = sample["conversation"]
    sessions = sorted((int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k)))
    files: dict[str, str] = {}
    line_ids: dict[str, dict[int, str]] = {}
    all_ids: set[str] = set()
    last = None
    for n in sessions:
        turns = conv.get(f"session_{n}") or []
        when = parse_date(conv[f"session_{n}_date_time"])
        last = when if last is None or when > last else last
        day = when.strftime("%Y-%m-%d")
        path = f"memory/{day}.md"
        if path in files:
            path = f"memory/{day}-session-{n}.md"
        lines = [f"## Session {n} — {conv[f'session_{n}_date_time']}", ""]
        ids: dict[int, str] = {}
        for t in turns:
            text = " ".join(str(t.get("text", "")).split())
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            lines.append(f"{t['speaker']}: {text}")
            ids[len(lines)] = t["dia_id"]
            all_ids.add(t["dia_id"])
        files[path] = "\n".join(lines) + "\n"
        line_ids[path] = ids
    questions = []
    for i, qa in enumerate(sample["qa"]):
        ev: list[str] = []
        for e in qa.get("evidence") or []:
            for tok in re.split(r"[;\s]+", str(e)):
                if DIA_RE.match(tok) and tok in all_ids and tok not in ev:
                    ev.append(tok)
        if ev:
            questions.append({"i": i, "question": qa["question"], "category": int(qa["category"]), "evidence": ev})
    assert last is not None
    now = (last + timedelta(days=1)).replace(hour=12, minute=0)
    return Conversation(sample["sample_id"], files, line_ids, questions, now, all_ids)


def write_workspace(ws: Path, conv: Conversation) -> None:
    for rel, content in conv.files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text(encoding="utf-8") != content:
            p.write_text(content, encoding="utf-8")


class QueryCache(Embedder):
    """The local embedder with a memo of query vectors: every reverie row and the dense peer ask
    the same question, so it is embedded once. Same provider, model and key: the index identity
    still matches."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.provider, self.model, self.dims = inner.provider, inner.model, inner.dims
        self.remote, self.score_floor, self.key_options = inner.remote, inner.score_floor, inner.key_options
        self.memo: dict[str, np.ndarray] = {}

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.memo:
            self.memo[text] = self.inner.embed_query(text)
        return self.memo[text]

    def _embed_batch(self, texts, *, query):
        return self.inner._embed_batch(texts, query=query)


# ---------------------------------------------------------------------------------------------
# what a system returns, as the agent reads it
@dataclass
class Hit:
    path: str
    start: int  # the line range the result cites
    end: int
    snippet: str  # what the agent reads
    snippet_start: int  # the lines the snippet shows (it may skip some, marked "…")
    snippet_end: int


def reverie_hits(result: dict) -> list[Hit]:
    out = []
    for r in result["results"]:
        # reverie says which lines a snippet shows; a result without that shows its range from the top
        first = r.get("snippetStartLine", r["startLine"])
        last = r.get("snippetEndLine", r["endLine"])
        out.append(Hit(r["path"], r["startLine"], r["endLine"], r["snippet"], first, last))
    return out


def visible_ids(conv: Conversation, hits: list[Hit], budget: int) -> set[str]:
    """Evidence turns an agent sees reading the snippets in order until ``budget`` tokens are spent,
    line by line. A turn of the snippet's lines counts when its text (or, for a long turn, its first
    200 characters) is in what was read."""
    seen: set[str] = set()
    used = 0
    for h in hits:
        read: list[str] = []
        for piece in h.snippet.split("\n"):
            used += estimate_tokens(piece)
            if used > budget:
                break
            read.append(" ".join(piece.split()))
        shown = "\n".join(read)
        ids = conv.line_ids.get(h.path, {})
        lines = conv.files[h.path].split("\n")
        for n in range(h.snippet_start, h.snippet_end + 1):
            did = ids.get(n)
            if did is None or did in seen:
                continue
            full = " ".join(lines[n - 1].split())
            if full in shown or (len(full) > 200 and full[:200] in shown):
                seen.add(did)
        if used > budget:
            return seen
    return seen


def score_question(conv: Conversation, hits: list[Hit], evidence: list[str]) -> dict:
    ev = set(evidence)
    out: dict[str, float] = {}
    covered: set[str] = set()
    covered_at: list[set[str]] = []
    first_hit = None
    for rank, h in enumerate(hits[:max(KS)], 1):
        ids = conv.line_ids.get(h.path, {})
        span = {ids[n] for n in range(h.start, h.end + 1) if n in ids}
        covered |= span
        covered_at.append(set(covered))
        if first_hit is None and ev & span:
            first_hit = rank
    for k in KS:
        got = ev & (covered_at[min(k, len(covered_at)) - 1] if covered_at else set())
        out[f"any@{k}"] = 1.0 if got else 0.0
        out[f"all@{k}"] = 1.0 if got == ev else 0.0
    out["mrr"] = 1.0 / first_hit if first_hit else 0.0
    for b in BUDGETS:
        out[f"read@{b}"] = 1.0 if ev & visible_ids(conv, hits, b) else 0.0
    ev_sessions = {p for p, ids in conv.line_ids.items() if ev & set(ids.values())}
    sessions: list[str] = []
    for h in hits:
        if h.path not in sessions:
            sessions.append(h.path)
    out["session all@5"] = 1.0 if ev_sessions <= set(sessions[:5]) else 0.0
    return out


COLUMNS = ["read@500", "read@1000", "read@2000", "session all@5", "any@1", "any@5", "any@10", "all@10", "mrr"]
ALL_COLUMNS = ([f"read@{b}" for b in BUDGETS] + ["session all@5"]
               + [f"{m}@{k}" for m in ("any", "all") for k in KS] + ["mrr"])
FOCUS = "reverie hybrid"  # the row shipped defaults produce, reported in full per category


# ---------------------------------------------------------------------------------------------
# peers over single turns
@dataclass
class Turns:
    paths: list[str]
    lines: list[int]
    texts: list[str]


def turns_of(conv: Conversation) -> Turns:
    t = Turns([], [], [])
    for path, ids in conv.line_ids.items():
        lines = conv.files[path].split("\n")
        for n in sorted(ids):
            t.paths.append(path)
            t.lines.append(n)
            t.texts.append(lines[n - 1])
    return t


class Bm25Turns:
    """SQLite FTS5 (porter) bm25 over single turns, queried with any of the question's words."""

    def __init__(self, turns: Turns):
        import apsw

        self.conn = apsw.Connection(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
        with self.conn:
            self.conn.executemany("INSERT INTO f(rowid, text) VALUES (?, ?)", list(enumerate(turns.texts)))

    def rank(self, query: str, k: int) -> list[int]:
        words = list(dict.fromkeys(re.findall(r"\w+", query.lower())))
        if not words:
            return []
        match = " OR ".join('"' + w + '"' for w in words)
        return [r[0] for r in self.conn.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?",
                                                (match, k))]


class PeerVectors:
    """Vectors of plain turns for the dense peer, cached by text hash in one file under --work."""

    def __init__(self, path: Path, embedder: Embedder):
        self.path, self.embedder = path, embedder
        self.vecs: dict[str, np.ndarray] = {}
        if path.exists():
            with np.load(path) as data:
                keys, mat = data["k"], np.array(data["v"])  # read each array once
            self.vecs = {str(k): mat[i] for i, k in enumerate(keys)}
        self.embedded = 0

    def matrix(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self.vecs]
        if todo:
            mat = self.embedder.embed_documents([texts[i] for i in todo])
            for i, v in zip(todo, mat):
                self.vecs[keys[i]] = np.asarray(v, dtype=np.float32)
            self.embedded += len(todo)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ks = list(self.vecs)
            np.savez(self.path, k=np.array(ks), v=np.stack([self.vecs[k] for k in ks]))
        return np.stack([self.vecs[k] for k in keys]) if keys else np.zeros((0, 1), np.float32)


def rrf(*rankings: list[int], k: int = 60, n: int = 20) -> list[int]:
    score: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for r, i in enumerate(ranking, 1):
            score[i] += 1.0 / (k + r)
    return sorted(score, key=lambda i: -score[i])[:n]


def turn_hits(turns: Turns, ranked: list[int]) -> list[Hit]:
    return [Hit(turns.paths[i], turns.lines[i], turns.lines[i], turns.texts[i], turns.lines[i], turns.lines[i])
            for i in ranked]


class patched:
    """Set module constants for one search (the ablation rows), and put them back."""

    def __init__(self, module, **values):
        self.module, self.values, self.saved = module, values, {}

    def __enter__(self):
        for k, v in self.values.items():
            self.saved[k] = getattr(self.module, k)
            setattr(self.module, k, v)

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            setattr(self.module, k, v)


# what each part of the ranking earns: the shipped pipeline with one part taken out
ABLATIONS = {
    "reverie hybrid, without MMR": (pipeline, {"MMR_POOL": 0}),
    "reverie hybrid, unit alone (no window or file context)": (context, {"OWN_WEIGHT": 1.0}),
    "reverie hybrid, unit and window (no file context)": (context, {"WINDOW_SHARE": 1.0}),
}


def vector_only(mem: Memory, query: str, n: int, now: datetime) -> dict:
    """reverie ranked by its vector leg alone (units with their window and file context)."""
    svc = mem.searcher
    conn, generation = mem.index.snapshot()
    emb = svc.embedder
    qv = pipeline.query_vector(emb, query)
    vq = pipeline.VectorQuery(svc.vectors.serve(conn, generation, int(qv.shape[0])).view, qv)
    params = pipeline.SearchParams(query=query, max_results=n, min_score=0.0,
                                   window=pipeline.candidate_window(svc.settings.query.max_results, n),
                                   tokenizer="cjk", now=now, score_floor=emb.score_floor, legs="vector",
                                   half_life_days=svc.settings.temporal_decay.half_life_days,
                                   decay_floor=svc.settings.temporal_decay.floor)
    out = pipeline.run(conn, params, vq)
    return {"results": [pipeline.result_row(c, False) for c in out["chosen"]]}


# ---------------------------------------------------------------------------------------------
def run(path: Path, work: Path, variants: list[tuple[int, int]], limit: int | None, out: Path | None,
        verbose: bool = True, ablations: bool = False) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    samples = data[:limit] if limit else data
    convs = [build_conversation(s) for s in samples]
    rows: dict[tuple[str, str], dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    timings: dict[str, list[float]] = defaultdict(list)
    stats: dict[str, dict] = {}
    from reverie.embeddings.local import LocalE5

    qcache = QueryCache(LocalE5())
    peers = PeerVectors(work / "peer-turn-vectors.npz", qcache.inner)
    t_all = time.perf_counter()
    gaps: list[tuple | None] = []
    n_results = 40  # enough results to fill the largest budget
    for tokens, overlap in variants:
        vname = f"{tokens}/{overlap}"
        st = stats[vname] = {"chunks": 0, "windows": 0, "embedded": 0, "index_s": 0.0, "index_bytes": 0}
        for conv in convs:
            home = work / "homes" / conv.sample_id  # one home (and one embedding cache) for every variant
            ws = home / "workspace"
            write_workspace(ws, conv)
            common = ['timezone="UTC"', f"memory.search.chunking.tokens={tokens}",
                      f"memory.search.chunking.overlap={overlap}"]
            mem = Memory(home=home, env={}, embedder=qcache, overrides=['memory.search.provider="local"', *common])
            t0 = time.perf_counter()
            rep = mem.rebuild() if mem.status()["identity"].get("status") != "valid" else mem.sync()
            st["index_s"] += time.perf_counter() - t0
            st["embedded"] += rep.embedded
            conn = mem.index.conn()
            st["chunks"] += conn.execute("SELECT count(*) FROM memory_index_chunks").fetchone()[0]
            try:  # (an index made by a version without windows has no such table)
                st["windows"] += conn.execute("SELECT count(*) FROM memory_index_windows").fetchone()[0]
            except Exception:
                pass
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # so the file holds everything written
            st["index_bytes"] += Path(conn.filename).stat().st_size
            nodecay = Memory(home=home, env={}, embedder=qcache,
                             overrides=['memory.search.provider="local"', "memory.search.temporalDecay.enabled=false",
                                        *common])
            olddecay = Memory(home=home, env={}, embedder=qcache,
                              overrides=['memory.search.provider="local"', "memory.search.temporalDecay.floor=0.9",
                                         *common]) if ablations else None
            kw_mem = Memory(home=home, env={}, overrides=['memory.search.provider="none"', *common])
            turns = turns_of(conv)
            bm25 = Bm25Turns(turns)
            tvecs = peers.matrix(turns.texts)
            for q in conv.questions:
                text = q["question"]
                systems: dict[str, list[Hit]] = {}
                t0 = time.perf_counter()
                systems["reverie hybrid"] = reverie_hits(mem.search(text, n_results, 0.0, now=conv.now,
                                                                    record_signals=False))
                timings["reverie hybrid"].append(time.perf_counter() - t0)
                systems["reverie hybrid, no decay"] = reverie_hits(
                    nodecay.search(text, n_results, 0.0, now=conv.now, record_signals=False))
                t0 = time.perf_counter()
                systems["reverie keyword-only"] = reverie_hits(
                    kw_mem.search(text, n_results, 0.0, now=conv.now, record_signals=False))
                timings["reverie keyword-only"].append(time.perf_counter() - t0)
                if hasattr(pipeline, "VectorQuery"):  # (absent from versions before units and windows)
                    systems["reverie vector-only"] = reverie_hits(vector_only(mem, text, n_results, conv.now))
                if ablations:
                    systems["reverie hybrid, decay floor 0.9"] = reverie_hits(
                        olddecay.search(text, n_results, 0.0, now=conv.now, record_signals=False))
                    for name, (module, values) in ABLATIONS.items():
                        with patched(module, **values):
                            systems[name] = reverie_hits(mem.search(text, n_results, 0.0, now=conv.now,
                                                                    record_signals=False))
                    gaps.append(relevance_gap(conv, mem, text, q["evidence"]))
                b = bm25.rank(text, n_results)
                sims = tvecs @ qcache.embed_query(text)
                d = [int(i) for i in np.argsort(-sims, kind="stable")[:n_results]]
                systems["BM25 over single turns (FTS5 porter)"] = turn_hits(turns, b)
                systems["dense e5-small over single turns"] = turn_hits(turns, d)
                systems["RRF of that BM25 and dense"] = turn_hits(turns, rrf(b, d, n=n_results))
                for name, hits in systems.items():
                    rows[(vname, name)][q["category"]].append(score_question(conv, hits, q["evidence"]))
            for m in (mem, nodecay, kw_mem, olddecay):
                if m is not None:
                    m.close()
            if verbose:
                print(f"  [{vname}] {conv.sample_id}: {len(conv.questions)} questions, {rep.embedded} embedded",
                      file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t_all
    stats["peers"] = {"embedded": peers.embedded}
    lat = {k: (statistics.median(v) * 1000, sorted(v)[int(0.95 * (len(v) - 1))] * 1000) for k, v in timings.items()}
    table = summarise(rows)
    report = render(table, stats, lat, elapsed, path, limit, variants, convs, ablations)
    if gaps:
        report += "\n\n" + render_gaps(gaps)
    print(report)
    if out is not None:
        write_report(out, report)
        full = {f"{vn} | {system}": v for (vn, system), v in sorted(table.items())}
        (out.parent / "benchmarks-locomo.json").write_text(
            json.dumps({"command": report.splitlines()[0], "results": full}, indent=1, sort_keys=True), encoding="utf-8")
    return {"table": table, "stats": stats, "elapsed": elapsed, "report": report}


def relevance_gap(conv: Conversation, mem: Memory, query: str, evidence: list[str]) -> tuple | None:
    """The content scores (before any multiplier) of the best evidence unit, the best other unit,
    the median unit of the first 40, and the best unit of all."""
    out = mem.search(query, 40, 0.0, now=conv.now, explain=True, record_signals=False)["results"]
    ev, other = [], []
    for r in out:
        ids = conv.line_ids.get(r["path"], {})
        shown = {ids.get(n) for n in range(r["snippetStartLine"], r["snippetEndLine"] + 1)}
        (ev if shown & set(evidence) else other).append(r["explain"]["merge"]["content"])
    if not ev or not other:
        return None
    return max(ev), max(other), statistics.median(other + ev), max(ev + other)


def render_gaps(gaps: list[tuple | None]) -> str:
    from reverie.search.rescore import boost_gate, gated

    found = [g for g in gaps if g is not None]
    lines = [f"Relevance gaps (reverie hybrid; {len(found)} of {len(gaps)} questions have an evidence unit among the "
             "first 40 results): the answer's content score over another unit's, before any multiplier. A boost "
             "m on that other unit puts it above the answer when m exceeds the ratio: the last columns give the "
             "share of the questions where the answer outranks that unit that a boost would turn, ungated and with "
             "reverie's gate (a boost applies only near the best relevance, `search/rescore.py`).", "",
             "| the other unit | ratio p5 | p10 | p25 | median | importance 8 (x1.15) lifts it over the answer: "
             "ungated / gated | importance 10 (x1.25): ungated / gated |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for k, name in ((1, "the best other unit"), (2, "the median unit of the first 40")):
        xs = sorted(g[0] / g[k] for g in found if g[k] > 0)
        q = lambda p: xs[min(len(xs) - 1, int(p / 100 * len(xs)))]  # noqa: E731

        ahead = [g for g in found if g[0] > g[k]]  # the questions where the answer outranks it

        def flips(m: float, gate: bool) -> float:
            n = 0
            for g in ahead:
                other, top = g[k], g[3]
                mult = gated(m, boost_gate(other, top)) if gate else m
                n += other * mult > g[0]
            return n / max(1, len(ahead))
        lines.append(f"| {name} | " + " | ".join(f"{q(p):.3f}" for p in (5, 10, 25, 50)) + " | "
                     + " | ".join(f"{flips(m, False):.3f} / {flips(m, True):.3f}" for m in (1.15, 1.25)) + " |")
    return "\n".join(lines)


def mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def summarise(rows) -> dict:
    table: dict = {}
    for (vname, system), by_cat in rows.items():
        main = [m for c, ms in by_cat.items() if c in (1, 2, 3, 4) for m in ms]
        entry = {"overall": {col: mean([m[col] for m in main]) for col in ALL_COLUMNS}, "n": len(main)}
        for c in (1, 2, 3, 4, 5):
            ms = by_cat.get(c, [])
            entry[f"cat{c}"] = {col: mean([m[col] for m in ms]) for col in ALL_COLUMNS}
            entry[f"n{c}"] = len(ms)
        table[(vname, system)] = entry
    return table


CAT_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def render(table, stats, lat, elapsed, path, limit, variants, convs, ablations: bool = False) -> str:
    lines = []
    # the data set's own path is the reader's business (it is not part of this repository)
    cmd = (f"python benchmarks/locomo_retrieval.py path/to/{path.name}" + (f" --conversations {limit}" if limit else "")
           + (" --ablations" if ablations else ""))
    nq = sum(len(c.questions) for c in convs)
    lines.append(f"Command: `{cmd}` (the LoCoMo data set, downloaded separately) — {len(convs)} conversations, "
                 f"{nq} questions with evidence, "
                 f"run took {elapsed:.0f} s (embeddings from the caches when present; "
                 f"{stats['peers']['embedded']} turns embedded for the peers this run).")
    lines.append("")
    order = lambda kv: -kv[1]["overall"]["read@1000"]  # noqa: E731
    for tokens, overlap in variants:
        vname = f"{tokens}/{overlap}"
        st = stats[vname]
        lines.append(f"### Windows {vname} tokens ({st['chunks']} units in {st['windows']} windows; "
                     f"{st['embedded']} embedded this run; index files {st['index_bytes'] / 1e6:.1f} MB)")
        lines.append("")
        lines.append("Categories 1–4 (n = {}). `read@B` = an evidence turn was visible in the first B tokens of "
                     "snippets read in order:".format(next((v["n"] for (vn, _), v in table.items() if vn == vname), 0)))
        lines.append("")
        lines.append("| system | " + " | ".join(COLUMNS) + " |")
        lines.append("|---|" + "---:|" * len(COLUMNS))
        for (vn, system), v in sorted(table.items(), key=order):
            if vn == vname:
                lines.append(f"| {system} | " + " | ".join(f"{v['overall'][c]:.3f}" for c in COLUMNS) + " |")
        lines.append("")
        lines.append("Per category, `read@500` / `read@1000` / `read@2000` (category 5 is adversarial: evidence "
                     "about the other speaker; reported apart, not in the overall figures):")
        lines.append("")
        lines.append("| system | " + " | ".join(f"{c} {CAT_NAMES[c]}" for c in (1, 2, 3, 4, 5)) + " |")
        lines.append("|---|" + "---:|" * 5)
        for (vn, system), v in sorted(table.items(), key=order):
            if vn == vname:
                lines.append(f"| {system} | " + " | ".join(
                    " / ".join(f"{v[f'cat{c}'][f'read@{b}']:.3f}" for b in BUDGETS) for c in (1, 2, 3, 4, 5)) + " |")
        lines.append("")
        focus = table.get((vname, FOCUS))
        if focus:
            lines.append(f"`{FOCUS}` in full, per category:")
            lines.append("")
            lines.append("| metric | overall | " + " | ".join(
                f"{c} {CAT_NAMES[c]} (n={focus[f'n{c}']})" for c in (1, 2, 3, 4, 5)) + " |")
            lines.append("|---|---:|" + "---:|" * 5)
            for col in ALL_COLUMNS:
                lines.append(f"| {col} | {focus['overall'][col]:.3f} | " + " | ".join(
                    f"{focus[f'cat{c}'][col]:.3f}" for c in (1, 2, 3, 4, 5)) + " |")
            lines.append("")
    if lat:
        lines.append("Search time per question in this run (median / p95 ms, query embedding included, "
                     "on a machine shared with other work): " + "; ".join(
                         f"{k} {a:.1f} / {b:.1f}" for k, (a, b) in sorted(lat.items())) + ".")
        lines.append("")
    lines.append("Every figure of every row, category and variant: `docs/benchmarks-locomo.json`.")
    return "\n".join(lines)


def write_report(out: Path, body: str) -> None:
    update_section(out, "locomo", "Retrieval quality on LoCoMo", body)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="locomo10.json")
    ap.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--variants", default="400/80", help="window tokens/overlap, comma-separated")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out" / "locomo",
                    help="where workspaces and the embedding caches live between runs")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md", help="report to update")
    ap.add_argument("--no-report", action="store_true", help="print only")
    ap.add_argument("--ablations", action="store_true",
                    help="also rank with each part of the pipeline taken out, and measure relevance gaps")
    args = ap.parse_args(argv)
    if not args.path.exists():
        ap.error(f"{args.path} does not exist")
    variants = [tuple(int(x) for x in v.split("/")) for v in args.variants.split(",") if v.strip()]
    return run(args.path, args.work, variants, args.conversations, None if args.no_report else args.out,
               ablations=args.ablations)


if __name__ == "__main__":
    main()
