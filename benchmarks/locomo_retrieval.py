"""Retrieval quality on LoCoMo: reverie's hybrid search against the retrievers a user would pick
instead, on the same chunks, in one run.

    python benchmarks/locomo_retrieval.py ../shared/data/locomo/locomo10.json

Each conversation becomes a reverie workspace the way an agent would have kept it: one daily note
per session, named by the session's date, one line per turn (``Speaker: text``), with a map from
every line to its ``dia_id``. Every question is asked as of the day after the conversation's last
session (the clock is a parameter of search, never the wall clock). Embeddings come from
reverie's cache (kept under ``--work``), so a second run costs seconds, not minutes.

Rows: reverie hybrid (decay on / off, and with the default minScore), reverie keyword-only, dense
cosine with the same local embedder, BM25 (bm25s), SQLite FTS5 unicode61 and trigram with bm25;
for each chunking variant (400/80 as the reference, and smaller ones).
The data set is CC BY-NC 4.0: benchmarking only, never copied into the package.
"""

from __future__ import annotations

import argparse
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
from reverie.text.cjk import estimate_tokens  # noqa: E402
from report import update_section  # noqa: E402

KS = (1, 5, 10, 20)
BUDGETS = (2000, 4000)
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
# peers, all over the same chunks
@dataclass
class ChunkSet:
    paths: list[str]
    starts: list[int]
    ends: list[int]
    texts: list[str]
    vectors: np.ndarray
    key_of: dict[tuple[str, int, int], int]


def load_chunks(mem: Memory) -> ChunkSet:
    conn = mem.index.conn()
    rows = conn.execute("SELECT path, start_line, end_line, text, embedding FROM memory_index_chunks "
                        "ORDER BY path, start_line").fetchall()
    dims = (mem.index.stored_identity() or {}).get("vectorDims") or 0
    vecs = np.zeros((len(rows), dims), dtype=np.float32)
    for i, r in enumerate(rows):
        if r[4] is not None and dims:
            vecs[i] = np.frombuffer(r[4], dtype=np.float32)
    return ChunkSet([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows],
                    vecs, {(r[0], r[1], r[2]): i for i, r in enumerate(rows)})


_WORD_RE = re.compile(r"\w+")


class Fts5Peer:
    """SQLite FTS5 with bm25, as OpenClaw offers it (unicode61 or trigram), queried with OR so it
    ranks by bm25 instead of requiring every word (its strongest form)."""

    def __init__(self, chunks: ChunkSet, tokenizer: str):
        import apsw

        self.conn = apsw.Connection(":memory:")
        spec = {"unicode61": "unicode61 remove_diacritics 2", "trigram": "trigram case_sensitive 0"}[tokenizer]
        self.trigram = tokenizer == "trigram"
        self.conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(text, tokenize='{spec}')")
        with self.conn:
            self.conn.executemany("INSERT INTO f(rowid, text) VALUES (?, ?)",
                                  [(i, t) for i, t in enumerate(chunks.texts)])

    def rank(self, query: str, k: int) -> list[int]:
        words = [w for w in _WORD_RE.findall(query.lower()) if not (self.trigram and len(w) < 3)]
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in dict.fromkeys(words))
        return [r[0] for r in self.conn.execute(
            "SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?", (match, k))]


class Bm25Peer:
    def __init__(self, chunks: ChunkSet):
        import bm25s

        self.bm25s = bm25s
        self.n = len(chunks.texts)
        self.retriever = bm25s.BM25()
        self.retriever.index(bm25s.tokenize(chunks.texts, stopwords="en", show_progress=False), show_progress=False)

    def rank(self, query: str, k: int) -> list[int]:
        toks = self.bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not toks.vocab:
            return []
        docs, scores = self.retriever.retrieve(toks, k=min(k, self.n), show_progress=False)
        return [int(d) for d, s in zip(docs[0], scores[0]) if s > 0]


# ---------------------------------------------------------------------------------------------
# metrics
def chunk_ids(conv: Conversation, chunks: ChunkSet, i: int) -> list[str]:
    ids = conv.line_ids.get(chunks.paths[i], {})
    return [ids[n] for n in range(chunks.starts[i], chunks.ends[i] + 1) if n in ids]


def budget_ids(conv: Conversation, chunks: ChunkSet, ranked: list[int], budget: int) -> set[str]:
    """Evidence visible within the first ``budget`` tokens of retrieved text (line by line)."""
    seen: set[str] = set()
    used = 0
    for i in ranked:
        ids = conv.line_ids.get(chunks.paths[i], {})
        for n, line in enumerate(chunks.texts[i].split("\n"), start=chunks.starts[i]):
            used += estimate_tokens(line) + 1
            if used > budget:
                return seen
            if n in ids:
                seen.add(ids[n])
    return seen


def score_question(conv: Conversation, chunks: ChunkSet, ranked: list[int], evidence: list[str]) -> dict:
    ev = set(evidence)
    out: dict[str, float] = {}
    covered_at: list[set[str]] = []  # evidence-bearing ids covered by the first r results
    covered: set[str] = set()
    first_hit = None
    sessions_at5: set[str] = set()
    for rank, i in enumerate(ranked[:max(KS)], 1):
        ids = chunk_ids(conv, chunks, i)
        covered |= set(ids)
        covered_at.append(set(covered))
        if first_hit is None and ev & set(ids):
            first_hit = rank
        if rank <= 5:
            sessions_at5.update(x.split(":")[0] for x in ids)
    for k in KS:  # fewer results than k: what was returned is all there is
        got = ev & (covered_at[min(k, len(covered_at)) - 1] if covered_at else set())
        out[f"any@{k}"] = 1.0 if got else 0.0
        out[f"all@{k}"] = 1.0 if got == ev else 0.0
        out[f"ev@{k}"] = len(got) / len(ev)
    out["session_any@5"] = 1.0 if {e.split(":")[0] for e in ev} & sessions_at5 else 0.0
    out["mrr"] = 1.0 / first_hit if first_hit else 0.0
    for b in BUDGETS:
        out[f"ev_tok{b}"] = len(ev & budget_ids(conv, chunks, ranked, b)) / len(ev)
    return out


COLUMNS = ["any@1", "any@5", "any@10", "any@20", "all@10", "ev@10", "session_any@5", "mrr", "ev_tok2000", "ev_tok4000"]
ALL_COLUMNS = ([f"{m}@{k}" for m in ("any", "all", "ev") for k in KS]
               + ["session_any@5", "mrr", "ev_tok2000", "ev_tok4000"])
FOCUS = "reverie hybrid"  # the row shipped defaults produce, reported in full per category


# ---------------------------------------------------------------------------------------------
def run(path: Path, work: Path, variants: list[tuple[int, int]], limit: int | None, out: Path | None,
        verbose: bool = True) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    samples = data[:limit] if limit else data
    convs = [build_conversation(s) for s in samples]
    # rows[(variant, system)][category] -> list of per-question metric dicts
    rows: dict[tuple[str, str], dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    timings: dict[str, float] = defaultdict(float)
    stats: dict[str, dict] = {}
    qcache: QueryCache | None = None
    t_all = time.perf_counter()
    for tokens, overlap in variants:
        vname = f"{tokens}/{overlap}"
        n_chunks = 0
        embedded = 0
        for conv in convs:
            home = work / f"chunks-{tokens}-{overlap}" / conv.sample_id
            ws = home / "workspace"
            write_workspace(ws, conv)
            common = [f"memory.search.chunking.tokens={tokens}", f"memory.search.chunking.overlap={overlap}"]
            if qcache is None:
                from reverie.embeddings.local import LocalE5

                qcache = QueryCache(LocalE5())
            mem = Memory(home=home, env={}, embedder=qcache,
                         overrides=['memory.search.provider="local"', 'timezone="UTC"', *common])
            t0 = time.perf_counter()
            rep = mem.sync()
            timings[f"index {vname}"] += time.perf_counter() - t0
            embedded += rep.embedded
            chunks = load_chunks(mem)
            n_chunks += len(chunks.texts)
            emb = qcache
            kw_mem = Memory(home=home, env={}, overrides=['memory.search.provider="none"', 'timezone="UTC"', *common])
            nodecay = Memory(home=home, env={}, embedder=emb,
                             overrides=['memory.search.provider="local"', 'timezone="UTC"',
                                        "memory.search.temporalDecay.enabled=false", *common])
            refdecay = Memory(home=home, env={}, embedder=emb,
                              overrides=['memory.search.provider="local"', 'timezone="UTC"',
                                         "memory.search.temporalDecay.floor=0", *common])
            bm25 = Bm25Peer(chunks)
            fts_u = Fts5Peer(chunks, "unicode61")
            fts_t = Fts5Peer(chunks, "trigram")

            def ranked_from(result: dict) -> list[int]:
                return [chunks.key_of[(r["path"], r["startLine"], r["endLine"])] for r in result["results"]
                        if (r["path"], r["startLine"], r["endLine"]) in chunks.key_of]

            for q in conv.questions:
                text = q["question"]
                systems: dict[str, list[int]] = {}
                t0 = time.perf_counter()
                systems["reverie hybrid"] = ranked_from(mem.search(text, 20, 0.0, now=conv.now, record_signals=False))
                timings["reverie hybrid"] += time.perf_counter() - t0
                systems["reverie hybrid, no decay"] = ranked_from(
                    nodecay.search(text, 20, 0.0, now=conv.now, record_signals=False))
                systems["reverie hybrid, reference decay (floor 0)"] = ranked_from(
                    refdecay.search(text, 20, 0.0, now=conv.now, record_signals=False))
                systems["reverie hybrid, default minScore"] = ranked_from(
                    mem.search(text, 20, None, now=conv.now, record_signals=False))
                systems["reverie keyword-only"] = ranked_from(
                    kw_mem.search(text, 20, 0.0, now=conv.now, record_signals=False))
                sims = chunks.vectors @ emb.embed_query(text)
                systems["dense cosine (same embedder)"] = [int(i) for i in np.argsort(-sims, kind="stable")[:20]]
                systems["BM25 (bm25s)"] = bm25.rank(text, 20)
                systems["FTS5 unicode61 bm25"] = fts_u.rank(text, 20)
                systems["FTS5 trigram bm25"] = fts_t.rank(text, 20)
                for name, ranked in systems.items():
                    rows[(vname, name)][q["category"]].append(score_question(conv, chunks, ranked, q["evidence"]))
            for m in (mem, kw_mem, nodecay, refdecay):
                m.close()
            if verbose:
                print(f"  [{vname}] {conv.sample_id}: {len(chunks.texts)} chunks, {len(conv.questions)} questions, "
                      f"{rep.embedded} embedded", file=sys.stderr, flush=True)
        stats[vname] = {"chunks": n_chunks, "embedded": embedded}
    elapsed = time.perf_counter() - t_all
    table = summarise(rows)
    report = render(table, stats, timings, elapsed, path, limit, variants, convs)
    print(report)
    if out is not None:
        write_report(out, report)
        full = {f"{vn} | {system}": v for (vn, system), v in sorted(table.items())}
        (out.parent / "benchmarks-locomo.json").write_text(
            json.dumps({"command": report.splitlines()[0], "results": full}, indent=1, sort_keys=True), encoding="utf-8")
    return {"table": table, "stats": stats, "elapsed": elapsed, "report": report}


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


def render(table, stats, timings, elapsed, path, limit, variants, convs) -> str:
    lines = []
    cmd = f"python benchmarks/locomo_retrieval.py {path}" + (f" --conversations {limit}" if limit else "")
    nq = sum(len(c.questions) for c in convs)
    lines.append(f"Command: `{cmd}` — {len(convs)} conversations, {nq} questions with evidence, "
                 f"run took {elapsed:.0f} s (embeddings from the cache when present).")
    lines.append("")
    for tokens, overlap in variants:
        vname = f"{tokens}/{overlap}"
        st = stats[vname]
        lines.append(f"### Chunks {vname} tokens ({st['chunks']} chunks; {st['embedded']} embedded this run)")
        lines.append("")
        lines.append("Categories 1–4 (n = {}), turn-level:".format(next(
            (v["n"] for (vn, _), v in table.items() if vn == vname), 0)))
        lines.append("")
        lines.append("| system | " + " | ".join(COLUMNS) + " |")
        lines.append("|---|" + "---:|" * len(COLUMNS))
        for (vn, system), v in sorted(table.items(), key=lambda kv: -kv[1]["overall"]["ev_tok4000"]):
            if vn != vname:
                continue
            lines.append(f"| {system} | " + " | ".join(f"{v['overall'][c]:.3f}" for c in COLUMNS) + " |")
        lines.append("")
        lines.append("Per category, `any@10` / `ev_tok4000` (category 5 is adversarial: evidence about the other "
                     "speaker; reported apart, not in the overall figures):")
        lines.append("")
        lines.append("| system | " + " | ".join(f"{c} {CAT_NAMES[c]}" for c in (1, 2, 3, 4, 5)) + " |")
        lines.append("|---|" + "---:|" * 5)
        for (vn, system), v in sorted(table.items(), key=lambda kv: -kv[1]["overall"]["ev_tok4000"]):
            if vn != vname:
                continue
            lines.append(f"| {system} | " + " | ".join(
                f"{v[f'cat{c}']['any@10']:.3f} / {v[f'cat{c}']['ev_tok4000']:.3f}" for c in (1, 2, 3, 4, 5)) + " |")
        lines.append("")
        focus = table.get((vname, FOCUS))
        if focus:
            lines.append(f"`{FOCUS}` in full, per category (every metric; `all@k` and `ev@k` for each k):")
            lines.append("")
            lines.append("| metric | overall | " + " | ".join(f"{c} {CAT_NAMES[c]} (n={focus[f'n{c}']})" for c in (1, 2, 3, 4, 5)) + " |")
            lines.append("|---|---:|" + "---:|" * 5)
            for col in ALL_COLUMNS:
                lines.append(f"| {col} | {focus['overall'][col]:.3f} | " + " | ".join(
                    f"{focus[f'cat{c}'][col]:.3f}" for c in (1, 2, 3, 4, 5)) + " |")
            lines.append("")
    lines.append("Every figure of every row, category and variant: `docs/benchmarks-locomo.json`.")
    return "\n".join(lines)


def write_report(out: Path, body: str) -> None:
    update_section(out, "locomo", "Retrieval quality on LoCoMo", body)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="locomo10.json")
    ap.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--variants", default="400/80,200/40", help="chunk tokens/overlap, comma-separated")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out" / "locomo",
                    help="where workspaces and the embedding cache live between runs")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md", help="report to update")
    ap.add_argument("--no-report", action="store_true", help="print only")
    args = ap.parse_args(argv)
    if not args.path.exists():
        ap.error(f"{args.path} does not exist")
    variants = [tuple(int(x) for x in v.split("/")) for v in args.variants.split(",") if v.strip()]
    return run(args.path, args.work, variants, args.conversations, None if args.no_report else args.out)


if __name__ == "__main__":
    main()
