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
                      memory_index_version, path_leg, recent_turn)
from .mmr import mmr_order
from .rescore import (DECAY_FLOOR, boost_gate, decay_multiplier, gated, importance_multiplier, project_multiplier,
                      status_multiplier)
from .vectors import WindowMatrix

VECTOR_WEIGHT = 0.7
TEXT_WEIGHT = 0.3
OWN_WEIGHT = 0.5  # a unit's own relevance against its context's
WINDOW_SHARE = 0.7  # of the context: the window's share; the file has the rest
COARSE_WINDOWS = 12  # every unit of the best windows is scored, besides the keyword hits
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
class Passage:
    """A result: one unit, or consecutive results citing the same window, merged (the reading order
    is unchanged, and ten results cite more of the memory than ten units would)."""

    units: list[Candidate]

    @property
    def lead(self) -> Candidate:
        return self.units[0]


def _passages(ordered: list[Candidate]) -> list[Passage]:
    out: list[Passage] = []
    for c in ordered:
        prev = out[-1] if out else None
        # never across provenance: a passage carries one origin class (an untrusted line must not
        # ride unframed in a trusted one's snippet)
        if (prev is not None and (prev.lead.path, prev.lead.source, prev.lead.window_start, prev.lead.window_end,
                                  prev.lead.origin_class, prev.lead.session_kind)
                == (c.path, c.source, c.window_start, c.window_end, c.origin_class, c.session_kind)
                and c.window_end > c.window_start
                and sum(len(u.text) + 3 for u in prev.units) + len(c.text) <= SNIPPET_CHARS):
            prev.units.append(c)
        else:
            out.append(Passage([c]))
    return out


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
    decay_floor: float = DECAY_FLOOR
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


def _windows_from_matrix(m: WindowMatrix, cands: list[Candidate]) -> dict[tuple[str, str], list[_Window]]:
    """The windows holding the candidates, read from the in-memory matrix (no query): a unit sits in
    the last window starting at or before it and, where windows overlap, the one before."""
    out: dict[tuple[str, str], list[_Window]] = {}
    if m.empty or not cands:
        return out
    seqs = np.array([c.seq for c in cands], dtype=np.int64)
    last_start = np.searchsorted(m.first, seqs, side="right") - 1
    for c, i in zip(cands, last_start):
        f = (c.path, c.source)
        have = out.setdefault(f, [])
        for r in (int(i), int(i) - 1):
            if r >= 0 and m.first[r] <= c.seq <= m.last[r] and all(w.seq != m.seqs[r] for w in have):
                have.append(_Window(int(m.seqs[r]), int(m.first[r]), int(m.last[r]), int(m.lines[r, 0]),
                                    int(m.lines[r, 1]), f))
    return out


def _calibrate(cos: np.ndarray | float, floor: float):
    if floor >= 1:
        return cos
    return np.clip((np.asarray(cos) - floor) / (1.0 - floor), 0.0, 1.0)


def _matvec(mat: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``mat @ q`` without the BLAS thread pool: on a busy machine its worker threads stalled a
    1,855 x 384 product for 6 ms (single-threaded: 0.05 ms), and at 100k rows one thread was
    twice as fast as two competing with other work."""
    return np.einsum("ij,j->i", mat, q) if len(mat) else np.zeros(0, dtype=np.float32)


def _coarse(vq: VectorQuery, cands: dict[int, Candidate]) -> tuple[np.ndarray, np.ndarray]:
    """Window and file cosines for the query; every unit of the best windows becomes a candidate."""
    m = vq.matrix
    q = vq.query.astype(np.float32)
    wcos = _matvec(m.mat, q)
    fcos = _matvec(m.files, q)
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
    n = len(cands)
    if not n:
        return
    # which windows (one or two: they overlap) and which file each candidate sits in
    wlist: list[_Window] = []
    wpos: dict[int, int] = {}
    for ws in windows.values():
        for w in ws:
            wpos[w.seq] = len(wlist)
            wlist.append(w)
    files = {f: i for i, f in enumerate(windows)}
    pairs: list[tuple[int, int]] = []
    file_of = np.zeros(n, dtype=np.int64)
    for i, c in enumerate(cands):
        f = (c.path, c.source)
        file_of[i] = files.setdefault(f, len(files))
        ws = [w for w in windows.get(f, []) if w.first <= c.seq <= w.last]
        pairs.extend((i, wpos[w.seq]) for w in ws)
        if ws:  # cite the window the unit sits most centrally in
            w = min(ws, key=lambda w: abs((w.first + w.last) / 2 - c.seq))
            c.window_start, c.window_end = w.start_line, w.end_line
        else:
            c.window_start, c.window_end = c.start_line, c.end_line
    has_win = np.zeros(n, dtype=bool)
    cand_idx = np.array([p[0] for p in pairs], dtype=np.int64)
    win_idx = np.array([p[1] for p in pairs], dtype=np.int64)
    has_win[cand_idx] = True

    def best_window(values_per_window: np.ndarray, own: np.ndarray) -> np.ndarray:
        """Per candidate: the best of its windows' values (its own where it has no window)."""
        out = np.full(n, -np.inf)
        if len(pairs):
            np.maximum.at(out, cand_idx, values_per_window[win_idx])
        return np.where(has_win, out, own)

    if use_kw and len(qt.tokens):
        # Which query tokens each keyword hit holds. A candidate the keyword leg did not return holds
        # none of the tokens it searched for (or only ones below its best-ranked hits): reading its
        # tokens cost more than the rest of the ranking together (10k units: 14 of 26 ms).
        none = np.zeros(len(qt.tokens), dtype=bool)
        masks = np.stack([qt.mask(c.index_text, tokenizer) if c.kw is not None else none for c in cands])
        w = qt.weights
        total = float(w.sum()) or 1.0
        own_kw = masks @ w / total
        win_mask = np.zeros((len(wlist), masks.shape[1]), dtype=bool)
        if len(pairs):
            np.logical_or.at(win_mask, win_idx, masks[cand_idx])
        file_mask = np.zeros((len(files), masks.shape[1]), dtype=bool)
        np.logical_or.at(file_mask, file_of, masks)
        kw_win = best_window(win_mask @ w / total, own_kw)
        kw_file = (file_mask @ w / total)[file_of]
        kw = OWN_WEIGHT * own_kw + (1 - OWN_WEIGHT) * (WINDOW_SHARE * kw_win + (1 - WINDOW_SHARE) * kw_file)
        for i, c in enumerate(cands):
            c.kw_unit = float(own_kw[i])
            c.keyword_parts = (c.kw_unit, float(kw_win[i]), float(kw_file[i]))
            c.keyword = float(kw[i])
    if vq is None:
        return
    m = vq.matrix
    dims = vq.query.shape[0]
    has_vec = np.array([bool(c.embedding) and len(c.embedding) == dims * 4 for c in cands])
    if not has_vec.any():
        return
    unit = np.zeros((n, dims), dtype=np.float32)
    for i, c in enumerate(cands):
        if has_vec[i]:
            unit[i] = np.frombuffer(c.embedding, dtype=np.float32)
    raw = _matvec(unit, vq.query.astype(np.float32))
    own = _calibrate(raw, floor)
    # the windows' and files' cosines from the coarse pass (rows found by window seq)
    seqs = np.array([w.seq for w in wlist], dtype=np.int64)
    rows = np.searchsorted(m.seqs, seqs) if len(seqs) else np.zeros(0, dtype=np.int64)
    rows = np.minimum(rows, max(0, len(m.seqs) - 1))
    found = (m.seqs[rows] == seqs) if len(seqs) and len(m.seqs) else np.zeros(len(seqs), dtype=bool)
    win_val = np.where(found, _calibrate(wcos[rows], floor), -np.inf) if len(seqs) and len(m.seqs) else \
        np.full(len(seqs), -np.inf)
    v_win = best_window(win_val, own)
    v_win = np.where(np.isfinite(v_win), v_win, own)
    file_val = np.full(len(files), np.nan)
    if len(seqs) and len(m.seqs):
        win_file = np.fromiter((files[w.file] for w in wlist), dtype=np.int64, count=len(wlist))
        file_val[win_file[found]] = _calibrate(fcos[m.file_of[rows[found]]], floor)
    v_file = file_val[file_of]
    v_file = np.where(np.isnan(v_file), v_win, v_file)
    vec = OWN_WEIGHT * own + (1 - OWN_WEIGHT) * (WINDOW_SHARE * v_win + (1 - WINDOW_SHARE) * v_file)
    for i, c in enumerate(cands):
        if has_vec[i]:
            c.vector_raw = float(raw[i])
            c.vector_parts = (float(own[i]), float(v_win[i]), float(v_file[i]))
            c.vector = float(vec[i])


def run(conn: apsw.Connection, params: SearchParams, vectors: VectorQuery | None) -> dict:
    """Rank the index for ``params``; ``vectors`` is None when the vector leg is off."""
    t0 = time.perf_counter()
    cands: dict[int, Candidate] = {}
    use_vectors = vectors is not None and not vectors.matrix.empty
    use_kw = params.legs != "vector"
    version = memory_index_version(conn)
    qt = analyse_query(conn, params.query, params.tokenizer, FTS_TABLE, memory_doc_count(conn, version), version)
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
    if use_vectors:
        windows = _windows_from_matrix(vectors.matrix, pool)
    else:
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
    top = max((c.content for c in pool if not c.specificity), default=0.0)
    for c in pool:
        base = (1.0 + max(0.0, min(1.0, c.content))) / 2 if c.specificity else c.content
        imp = importance_multiplier(c.importance)
        proj = project_multiplier(c.project_key, params.projects)
        status = status_multiplier(c.status)
        gate = 1.0 if c.specificity else boost_gate(c.content, top)
        c.pre_decay = base * gated(imp * proj * status, gate)
        c.decay, c.age_days = decay_multiplier(c.path, params.now, c.mtime, params.half_life_days,
                                                  params.decay_floor)
        c.score = c.pre_decay * c.decay
        c.eligible = bool(c.specificity) or c.pre_decay >= params.min_score
        if params.explain:
            c.trace = _trace(c, imp, proj, status, gate, params, use_vectors, use_kw)
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
    lexical = [c for c in ordered if c.kw is not None and not c.eligible]
    mode = "strict"
    if len(_passages(strict)) < n:
        if not strict and lexical:
            mode = "lexical-fallback"
        elif lexical:
            mode = "strict+lexical"
    # merged over the whole list before the cut, so asking for 1 or 20 gives the same leader
    chosen = _passages(strict if mode == "strict" else strict + lexical)[:n]
    t_end = time.perf_counter()
    return {
        "chosen": chosen,
        "mode": mode,
        "candidates": len(pool),
        "legs": {"vector": None if not use_vectors else int(len(wcos)), "keyword": len(kw_hits),
                 "path": len(p_hits)},
        "ms": {"legs": round((t_legs - t0) * 1000, 2), "total": round((t_end - t0) * 1000, 2)},
    }


def _trace(c: Candidate, imp: float, proj: float, status: float, gate: float, params: SearchParams,
           use_vectors: bool, use_kw: bool) -> dict:
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
        "boost": {"gate": r4(gate), "applied": r4(gated(imp * proj * status, gate))},
        "preDecay": r4(c.pre_decay),
        "eligible": c.eligible,
        "decay": {"multiplier": r4(c.decay), "ageDays": None if c.age_days is None else round(c.age_days, 2)},
        "score": r4(c.score),
    }


def _snippet(units: list[Candidate]) -> tuple[str, int, int]:
    """The units' text in file order; a gap between them is shown as a line "…"."""
    parts = sorted(units, key=lambda u: (u.start_line, u.seq))
    out: list[str] = []
    for i, u in enumerate(parts):
        if i and u.start_line > parts[i - 1].end_line + 1:
            out.append("…")
        out.append(u.text)
    text = "\n".join(out)
    if len(text) > SNIPPET_CHARS:
        text = text[:SNIPPET_CHARS - 1] + "…"
    return text, parts[0].start_line, max(u.end_line for u in parts)


def result_row(p: Passage | Candidate, explain: bool) -> dict:
    units = p.units if isinstance(p, Passage) else [p]
    c = units[0]
    snippet, first, last = _snippet(units)
    row = {
        "path": c.path,
        "startLine": c.window_start or c.start_line,
        "endLine": c.window_end or c.end_line,
        "score": round(c.score, 6),
        "vectorScore": None if c.vector is None else round(c.vector, 6),
        "textScore": round(c.text_score, 6),
        "snippet": snippet,
        "snippetStartLine": first,
        "snippetEndLine": last,
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
        if len(units) > 1:
            row["explain"]["merged"] = [{"lines": [u.start_line, u.end_line], "score": round(u.score, 4)}
                                        for u in units[1:]]
    return row
