"""The search pipeline (reference §7, on units): legs -> context -> merge -> multipliers -> MMR -> selection.

Search scores *units* (entries: a list item, a line of a conversation, a curated entry; see
:mod:`reverie.index.chunking`) and judges each with its context: the window of the file around it
and the file as a whole. Each leg gives a unit its own score and its context's::

    vector  = ½ · cos(unit) + ½ · (0.7 · cos(window) + 0.3 · cos(file))      (calibrated cosines)
    keyword = ½ · kw(unit)  + ½ · (0.7 · kw(window)  + 0.3 · kw(file))      (kw: search.keyword)
    content = 0.7 · vector + 0.3 · keyword     (keyword-only: keyword; vector-only: vector)

A result is one unit: its snippet is the unit's text, with the lines it shows, and its citation is
the window around it. Everything here is a pure function of the index connection, the query
vector and the clock, so tests and benchmarks pass ``now`` explicitly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

import apsw
import numpy as np

from .citation import format_citation
from .keyword import (KeywordHit, QueryTerms, analyse_query, is_conversational, keyword_leg, memory_doc_count,
                      path_leg, recent_turn)
from .mmr import mmr_order
from .rescore import decay_multiplier, importance_multiplier, project_multiplier, status_multiplier
from .vectors import WindowMatrix

VECTOR_WEIGHT = 0.7
TEXT_WEIGHT = 0.3
OWN_WEIGHT = 0.5  # a unit's own relevance against its context's
WINDOW_SHARE = 0.7  # of the context: the window's share; the file has the rest
COARSE_WINDOWS = 16  # every unit of the best windows is scored, besides the keyword hits
KEYWORD_FETCH = 2  # keyword hits fetched per place in the candidate window
WINDOW_FLOOR = 48
MMR_POOL = 48
SNIPPET_CHARS = 700
FTS_TABLE = "memory_index_chunks_fts"


@dataclass
class Candidate:
    seq: int
    path: str = ""
    source: str = "memory"
    start_line: int = 0
    end_line: int = 0
    text: str = ""
    context: str = ""
    mtime: float | None = None
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None
    status: str | None = None
    origin_class: str | None = None
    session_kind: str | None = None
    embedding: bytes | None = None
    window_start: int = 0  # the window cited for context
    window_end: int = 0
    vector_raw: float | None = None  # the unit's own cosine
    vector: float | None = None  # the vector leg with context, calibrated, in [0, 1]
    vector_parts: tuple = ()
    kw: KeywordHit | None = None
    kw_unit: float = 0.0
    keyword: float = 0.0  # the keyword leg with context, in [0, 1]
    keyword_parts: tuple = ()
    path_score: float | None = None
    specificity: int = 0
    content: float = 0.0
    decay: float = 1.0
    age_days: float | None = None
    pre_decay: float = 0.0
    score: float = 0.0
    eligible: bool = False
    trace: dict = field(default_factory=dict)

    @property
    def text_score(self) -> float:
        if self.kw is not None or self.keyword > 0:
            return self.keyword
        if self.specificity:
            return 0.0
        return self.path_score or 0.0

    @property
    def index_text(self) -> str:
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass
class VectorQuery:
    """The query vector and the window matrix it is compared with."""

    matrix: WindowMatrix
    query: np.ndarray


@dataclass
class SearchParams:
    query: str
    max_results: int
    min_score: float
    window: int
    tokenizer: str
    now: datetime
    projects: list[str] | None = None
    score_floor: float = 0.0
    half_life_days: float = 30.0  # 0 turns decay off
    decay_floor: float = 0.95
    explain: bool = False
    legs: str = "hybrid"  # "hybrid", or "vector" to rank by the vector leg alone (benchmarks)


def query_vector(embedder, query: str) -> np.ndarray:
    """The query's embedding. A dialogue or long message is embedded as two views, its most recent
    turn and the whole (its last 2,000 characters: the model reads 512 tokens from the start), and
    searched with their normalised mean: the turn says what is asked now, the whole what about."""
    if not is_conversational(query):
        return embedder.embed_query(query)
    recent = recent_turn(query)
    whole = query[-2000:]
    vecs = [np.asarray(embedder.embed_query(v), dtype=np.float32) for v in dict.fromkeys((recent, whole)) if v.strip()]
    m = np.mean(vecs, axis=0)
    norm = float(np.linalg.norm(m))
    return m / norm if norm > 0 else m


def candidate_window(configured_max: int, requested_max: int) -> int:
    """Fixed by the configuration, so asking for 1 or 20 results reads the same candidates;
    only a request beyond the window widens it."""
    window = max(WINDOW_FLOOR, configured_max * 4)
    if requested_max * 2 > window:
        window = min(1000, requested_max * 2)
    return window


def _load(conn: apsw.Connection, cands: dict[int, Candidate], with_vectors: bool) -> None:
    seqs = list(cands)
    emb = "c.embedding" if with_vectors else "NULL"
    for i in range(0, len(seqs), 500):
        part = seqs[i:i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"SELECT c.seq, c.path, c.source, c.start_line, c.end_line, c.text, c.context, s.mtime, "
            f"m.importance, m.triggers, m.project_key, m.status, p.origin_class, p.session_kind, {emb} "
            f"FROM memory_index_chunks c "
            f"LEFT JOIN memory_index_sources s ON s.path = c.path AND s.source = c.source "
            f"LEFT JOIN memory_index_chunk_recall_metadata m ON m.chunk_id = c.id "
            f"LEFT JOIN memory_index_chunk_provenance p ON p.chunk_id = c.id "
            f"WHERE c.seq IN ({marks})", part)
        for row in rows:
            c = cands[row[0]]
            (c.path, c.source, c.start_line, c.end_line, c.text, c.context, c.mtime, c.importance, c.triggers,
             c.project_key, c.status, c.origin_class, c.session_kind, c.embedding) = row[1:]


def _first_chunks(conn: apsw.Connection, paths: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for path in paths:
        row = conn.execute("SELECT seq FROM memory_index_chunks WHERE path = ? ORDER BY start_line LIMIT 1",
                           (path,)).fetchone()
        if row:
            out[path] = row[0]
    return out


@dataclass
class _Window:
    seq: int
    first: int
    last: int
    start_line: int
    end_line: int
    file: tuple[str, str]


def _windows_of_files(conn: apsw.Connection, files: set[tuple[str, str]]) -> dict[tuple[str, str], list[_Window]]:
    out: dict[tuple[str, str], list[_Window]] = {f: [] for f in files}
    by_path: dict[str, list[str]] = {}
    for path, source in files:
        by_path.setdefault(path, []).append(source)
    paths = list(by_path)
    for i in range(0, len(paths), 500):
        part = paths[i:i + 500]
        rows = conn.execute(
            f"SELECT seq, path, source, first_seq, last_seq, start_line, end_line FROM memory_index_windows "
            f"WHERE path IN ({','.join('?' * len(part))}) ORDER BY first_seq", part)
        for seq, path, source, first, last, start, end in rows:
            if (path, source) in out:
                out[(path, source)].append(_Window(seq, first, last, start, end, (path, source)))
    return out


def _calibrate(cos: np.ndarray | float, floor: float):
    if floor >= 1:
        return cos
    return np.clip((np.asarray(cos) - floor) / (1.0 - floor), 0.0, 1.0)


def _coarse(vq: VectorQuery, cands: dict[int, Candidate]) -> tuple[np.ndarray, np.ndarray]:
    """Window and file cosines for the query; every unit of the best windows becomes a candidate."""
    m = vq.matrix
    q = vq.query.astype(np.float32)
    wcos = m.mat @ q
    fcos = m.files @ q
    k = min(COARSE_WINDOWS, len(wcos))
    if k:
        best = np.argpartition(-wcos, k - 1)[:k]
        for i in best:
            for seq in range(int(m.first[i]), int(m.last[i]) + 1):
                cands.setdefault(seq, Candidate(seq))
    return wcos, fcos


def _context(cands: list[Candidate], windows: dict[tuple[str, str], list[_Window]], qt: QueryTerms,
             tokenizer: str, vq: VectorQuery | None, wcos, fcos, floor: float, use_kw: bool) -> None:
    """Each candidate's vector and keyword legs, its own score blended with its window's and file's."""
    masks = {c.seq: (qt.mask(c.index_text, tokenizer) if use_kw else None) for c in cands}
    # keyword context: the query tokens held anywhere in the window (or file) among the candidates
    win_mask: dict[int, np.ndarray] = {}
    file_mask: dict[tuple[str, str], np.ndarray] = {}
    own_windows: dict[int, list[_Window]] = {}
    for c in cands:
        ws = [w for w in windows.get((c.path, c.source), []) if w.first <= c.seq <= w.last]
        own_windows[c.seq] = ws
        if use_kw:
            for w in ws:
                win_mask[w.seq] = win_mask[w.seq] | masks[c.seq] if w.seq in win_mask else masks[c.seq].copy()
            f = (c.path, c.source)
            file_mask[f] = file_mask[f] | masks[c.seq] if f in file_mask else masks[c.seq].copy()
        if ws:  # cite the window the unit sits most centrally in
            w = min(ws, key=lambda w: abs((w.first + w.last) / 2 - c.seq))
            c.window_start, c.window_end = w.start_line, w.end_line
        else:
            c.window_start, c.window_end = c.start_line, c.end_line
    unit_cos = None
    if vq is not None:
        dims = vq.query.shape[0]
        rows = [np.frombuffer(c.embedding, dtype=np.float32) if c.embedding and len(c.embedding) == dims * 4
                else np.zeros(dims, np.float32) for c in cands]
        unit_cos = np.stack(rows) @ vq.query.astype(np.float32) if rows else np.zeros(0)
    m = vq.matrix if vq is not None else None
    for i, c in enumerate(cands):
        ws = own_windows[c.seq]
        if use_kw:
            c.kw_unit = qt.coverage(masks[c.seq])
            kw_win = max((qt.coverage(win_mask[w.seq]) for w in ws), default=c.kw_unit)
            kw_file = qt.coverage(file_mask[(c.path, c.source)])
            c.keyword_parts = (c.kw_unit, kw_win, kw_file)
            c.keyword = OWN_WEIGHT * c.kw_unit + (1 - OWN_WEIGHT) * (WINDOW_SHARE * kw_win + (1 - WINDOW_SHARE) * kw_file)
        if m is not None and unit_cos is not None and c.embedding:
            c.vector_raw = float(unit_cos[i])
            own = float(_calibrate(c.vector_raw, floor))
            rows = []
            for w in ws:
                r = int(np.searchsorted(m.seqs, w.seq))
                if r < len(m.seqs) and m.seqs[r] == w.seq:
                    rows.append(r)
            win = max((float(_calibrate(wcos[r], floor)) for r in rows), default=own)
            fil = float(_calibrate(fcos[m.file_of[rows[0]]], floor)) if rows else win
            c.vector_parts = (own, win, fil)
            c.vector = OWN_WEIGHT * own + (1 - OWN_WEIGHT) * (WINDOW_SHARE * win + (1 - WINDOW_SHARE) * fil)


def run(conn: apsw.Connection, params: SearchParams, vectors: VectorQuery | None) -> dict:
    """Rank the index for ``params``; ``vectors`` is None when the vector leg is off."""
    t0 = time.perf_counter()
    cands: dict[int, Candidate] = {}
    use_vectors = vectors is not None and not vectors.matrix.empty
    use_kw = params.legs != "vector"
    qt = analyse_query(conn, params.query, params.tokenizer, FTS_TABLE, memory_doc_count(conn))
    kw_hits = keyword_leg(conn, qt, params.window * KEYWORD_FETCH) if use_kw else []
    for hit in kw_hits:
        cands.setdefault(hit.seq, Candidate(hit.seq)).kw = hit
    wcos = fcos = None
    if use_vectors:
        wcos, fcos = _coarse(vectors, cands)
    p_hits = path_leg(conn, params.query, params.tokenizer, params.window) if use_kw else []
    firsts = _first_chunks(conn, [h.path for h in p_hits])
    for h in p_hits:
        seq = firsts.get(h.path)
        if seq is None:
            continue
        c = cands.setdefault(seq, Candidate(seq))
        c.path_score, c.specificity = h.score, h.specificity
    t_legs = time.perf_counter()
    _load(conn, cands, use_vectors)
    for c in list(cands.values()):
        if not c.path:  # vanished between legs (a concurrent sync): drop it
            del cands[c.seq]
    pool = list(cands.values())
    windows = _windows_of_files(conn, {(c.path, c.source) for c in pool})
    _context(pool, windows, qt, params.tokenizer, vectors if use_vectors else None, wcos, fcos,
             params.score_floor, use_kw)
    for c in pool:
        kw = c.text_score  # the keyword leg, or a partial path match where the text did not match
        if use_vectors and use_kw:
            c.content = VECTOR_WEIGHT * (c.vector or 0.0) + TEXT_WEIGHT * kw
        elif use_vectors:
            c.content = c.vector or 0.0
        else:
            c.content = kw
        base = (1.0 + max(0.0, min(1.0, c.content))) / 2 if c.specificity else c.content
        imp = importance_multiplier(c.importance)
        proj = project_multiplier(c.project_key, params.projects)
        status = status_multiplier(c.status)
        c.pre_decay = base * imp * proj * status
        c.decay, c.age_days = decay_multiplier(c.path, params.now, c.mtime, params.half_life_days,
                                                  params.decay_floor)
        c.score = c.pre_decay * c.decay
        c.eligible = bool(c.specificity) or c.pre_decay >= params.min_score
        if params.explain:
            c.trace = _trace(c, imp, proj, status, params, use_vectors, use_kw)
    # order: exact path tiers first (3, 2, 1), then everything else; MMR within each group
    ordered: list[Candidate] = []
    groups = [[c for c in pool if c.specificity == t] for t in (3, 2, 1)]
    groups.append([c for c in pool if not c.specificity])
    for group in groups:
        group.sort(key=lambda c: (-c.score, c.path, c.start_line, c.end_line, c.seq))
        head, rest = group[:MMR_POOL], group[MMR_POOL:]
        order, penalties = mmr_order([c.score for c in head], [c.text for c in head])
        for pos, (i, pen) in enumerate(zip(order, penalties)):
            if params.explain:
                head[i].trace["mmr"] = {"before": i + 1, "after": pos + 1, "penalty": round(pen, 4)}
        ordered.extend(head[i] for i in order)
        ordered.extend(rest)
    # selection: minScore judged before decay; keyword-backed hits fill in when too few qualify
    n = params.max_results
    strict = [c for c in ordered if c.eligible]
    mode = "strict"
    if len(strict) >= n:
        chosen = strict[:n]
    else:
        lexical = [c for c in ordered if c.kw is not None and not c.eligible]
        if not strict and lexical:
            mode = "lexical-fallback"
        elif lexical:
            mode = "strict+lexical"
        chosen = (strict + lexical)[:n]
    t_end = time.perf_counter()
    return {
        "chosen": chosen,
        "mode": mode,
        "candidates": len(pool),
        "legs": {"vector": None if not use_vectors else int(len(wcos)), "keyword": len(kw_hits),
                 "path": len(p_hits)},
        "ms": {"legs": round((t_legs - t0) * 1000, 2), "total": round((t_end - t0) * 1000, 2)},
    }


def _trace(c: Candidate, imp: float, proj: float, status: float, params: SearchParams, use_vectors: bool,
           use_kw: bool) -> dict:
    r4 = lambda x: None if x is None else round(float(x), 4)  # noqa: E731
    return {
        "vector": None if c.vector_raw is None else {
            "cosine": r4(c.vector_raw), "calibrated": r4(c.vector), "floor": params.score_floor,
            "unit": r4(c.vector_parts[0]), "window": r4(c.vector_parts[1]), "file": r4(c.vector_parts[2]),
            "rank": None},
        "keyword": None if not c.keyword_parts or (c.kw is None and not c.keyword) else {
            "score": r4(c.keyword), "unit": r4(c.keyword_parts[0]), "window": r4(c.keyword_parts[1]),
            "file": r4(c.keyword_parts[2]), "coverage": r4(c.kw_unit),
            "bm25": r4(c.kw.bm25) if c.kw else None, "allTerms": bool(c.kw and c.kw.strict),
            "rank": c.kw.rank if c.kw else None},
        "path": None if c.path_score is None else {"score": r4(c.path_score), "exactTier": c.specificity},
        "merge": {"content": r4(c.content), "formula": (
            f"{VECTOR_WEIGHT} x vector + {TEXT_WEIGHT} x keyword" if use_vectors and use_kw
            else "vector only" if use_vectors else "keyword only"),
            "context": f"each leg: {OWN_WEIGHT} x unit + {1 - OWN_WEIGHT} x ({WINDOW_SHARE} x window + "
                       f"{round(1 - WINDOW_SHARE, 2)} x file)"},
        "importance": {"value": c.importance, "multiplier": r4(imp)},
        "status": {"value": c.status, "multiplier": status},
        "project": {"key": c.project_key, "active": params.projects or [], "multiplier": proj},
        "preDecay": r4(c.pre_decay),
        "eligible": c.eligible,
        "decay": {"multiplier": r4(c.decay), "ageDays": None if c.age_days is None else round(c.age_days, 2)},
        "score": r4(c.score),
    }


def result_row(c: Candidate, explain: bool) -> dict:
    snippet = c.text if len(c.text) <= SNIPPET_CHARS else c.text[:SNIPPET_CHARS - 1] + "…"
    row = {
        "path": c.path,
        "startLine": c.window_start or c.start_line,
        "endLine": c.window_end or c.end_line,
        "score": round(c.score, 6),
        "vectorScore": None if c.vector is None else round(c.vector, 6),
        "textScore": round(c.text_score, 6),
        "snippet": snippet,
        "snippetStartLine": c.start_line,
        "snippetEndLine": c.end_line,
        "source": c.source,
        "citation": format_citation(c.path, c.window_start or c.start_line, c.window_end or c.end_line),
        "corpus": "memory",
    }
    if c.importance is not None:
        row["importance"] = c.importance
    if c.triggers:
        row["triggers"] = c.triggers
    if c.project_key:
        row["projectKey"] = c.project_key
    if c.status:
        row["status"] = c.status
    if c.origin_class:
        row["provenance"] = {"originClass": c.origin_class, "sessionKind": c.session_kind}
    if explain:
        row["explain"] = c.trace
    return row
