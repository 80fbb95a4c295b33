"""The search pipeline (reference §7): legs -> merge -> decay/importance/project -> MMR -> selection.

Everything here is a pure function of the index connection, the query embedding and the clock, so
tests and benchmarks pass ``now`` explicitly and results do not depend on the wall clock.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

import apsw
import numpy as np

from .keyword import KeywordHit, keyword_leg, path_leg
from .mmr import mmr_order
from .rescore import decay_multiplier, importance_multiplier, project_multiplier

VECTOR_WEIGHT = 0.7
TEXT_WEIGHT = 0.3
WINDOW_FLOOR = 48
MMR_POOL = 48
SNIPPET_CHARS = 700


@dataclass
class Candidate:
    seq: int
    path: str = ""
    source: str = "memory"
    start_line: int = 0
    end_line: int = 0
    text: str = ""
    mtime: float | None = None
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None
    status: str | None = None
    origin_class: str | None = None
    session_kind: str | None = None
    vector_raw: float | None = None
    vector: float | None = None
    vector_rank: int | None = None
    kw: KeywordHit | None = None
    kw_rank: int | None = None
    path_score: float | None = None
    specificity: int = 0
    content: float = 0.0
    decay: float = 1.0
    age_days: float | None = None
    pre_decay: float = 0.0
    score: float = 0.0
    eligible: bool = False
    mmr_before: int | None = None
    mmr_penalty: float | None = None
    trace: dict = field(default_factory=dict)

    @property
    def text_score(self) -> float:
        if self.kw is not None:
            return self.kw.score
        if self.specificity:
            return 0.0
        return self.path_score or 0.0


@dataclass
class SearchParams:
    query: str
    max_results: int
    min_score: float
    window: int
    tokenizer: str
    now: datetime
    projects: list[str] | None = None
    query_vector: np.ndarray | None = None
    score_floor: float = 0.0
    half_life_days: float = 30.0  # 0 turns decay off
    decay_floor: float = 0.9
    explain: bool = False


def candidate_window(configured_max: int, requested_max: int) -> int:
    """Fixed by the configuration, so asking for 1 or 20 results reads the same candidates;
    only a request beyond the window widens it."""
    window = max(WINDOW_FLOOR, configured_max * 4)
    if requested_max * 2 > window:
        window = min(1000, requested_max * 2)
    return window


def _load(conn: apsw.Connection, cands: dict[int, Candidate]) -> None:
    seqs = list(cands)
    for i in range(0, len(seqs), 500):
        part = seqs[i:i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"SELECT c.seq, c.path, c.source, c.start_line, c.end_line, c.text, s.mtime, "
            f"m.importance, m.triggers, m.project_key, m.status, p.origin_class, p.session_kind "
            f"FROM memory_index_chunks c "
            f"LEFT JOIN memory_index_sources s ON s.path = c.path AND s.source = c.source "
            f"LEFT JOIN memory_index_chunk_recall_metadata m ON m.chunk_id = c.id "
            f"LEFT JOIN memory_index_chunk_provenance p ON p.chunk_id = c.id "
            f"WHERE c.seq IN ({marks})", part)
        for row in rows:
            c = cands[row[0]]
            (c.path, c.source, c.start_line, c.end_line, c.text, c.mtime, c.importance, c.triggers,
             c.project_key, c.status, c.origin_class, c.session_kind) = row[1:]


def _first_chunks(conn: apsw.Connection, paths: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for path in paths:
        row = conn.execute("SELECT seq FROM memory_index_chunks WHERE path = ? ORDER BY start_line LIMIT 1",
                           (path,)).fetchone()
        if row:
            out[path] = row[0]
    return out


def run(conn: apsw.Connection, params: SearchParams, vector_hits: list[tuple[int, float]] | None) -> dict:
    """Rank the index for ``params``; ``vector_hits`` is None when the vector leg is off."""
    t0 = time.perf_counter()
    cands: dict[int, Candidate] = {}
    use_vectors = vector_hits is not None
    floor = params.score_floor
    for rank, (seq, cos) in enumerate(vector_hits or [], 1):
        c = cands.setdefault(seq, Candidate(seq))
        c.vector_raw = cos
        c.vector = max(0.0, min(1.0, (cos - floor) / (1.0 - floor))) if floor < 1 else cos
        c.vector_rank = rank
    kw_hits = keyword_leg(conn, params.query, params.tokenizer, params.window)
    for rank, hit in enumerate(kw_hits, 1):
        c = cands.setdefault(hit.seq, Candidate(hit.seq))
        c.kw, c.kw_rank = hit, rank
    p_hits = path_leg(conn, params.query, params.tokenizer, params.window)
    firsts = _first_chunks(conn, [h.path for h in p_hits])
    for h in p_hits:
        seq = firsts.get(h.path)
        if seq is None:
            continue
        c = cands.setdefault(seq, Candidate(seq))
        c.path_score, c.specificity = h.score, h.specificity
    t_legs = time.perf_counter()
    _load(conn, cands)
    for c in list(cands.values()):
        if not c.path:  # vanished between legs (a concurrent sync): drop it
            del cands[c.seq]
    # merge and re-score
    for c in cands.values():
        if use_vectors:
            c.content = VECTOR_WEIGHT * (c.vector or 0.0) + TEXT_WEIGHT * c.text_score
        else:
            c.content = c.text_score
        base = (1.0 + max(0.0, min(1.0, c.content))) / 2 if c.specificity else c.content
        imp = importance_multiplier(c.importance)
        proj = project_multiplier(c.project_key, params.projects)
        if c.status == "superseded":
            imp *= 0.5  # a superseded directive stays findable but yields to the active one
        c.pre_decay = base * imp * proj
        c.decay, c.age_days = decay_multiplier(c.path, params.now, c.mtime, params.half_life_days,
                                                  params.decay_floor)
        c.score = c.pre_decay * c.decay
        c.eligible = bool(c.specificity) or c.pre_decay >= params.min_score
        if params.explain:
            c.trace = {
                "vector": None if c.vector_raw is None else {
                    "cosine": round(c.vector_raw, 4), "calibrated": round(c.vector or 0.0, 4),
                    "rank": c.vector_rank, "floor": floor},
                "keyword": None if c.kw is None else {
                    "score": round(c.kw.score, 4), "bm25": round(c.kw.bm25, 4),
                    "coverage": round(c.kw.coverage, 4), "allTerms": c.kw.strict, "rank": c.kw_rank},
                "path": None if c.path_score is None else {"score": round(c.path_score, 4),
                                                            "exactTier": c.specificity},
                "merge": {"content": round(c.content, 4),
                          "formula": (f"{VECTOR_WEIGHT} x vector + {TEXT_WEIGHT} x keyword" if use_vectors
                                      else "keyword only")},
                "importance": {"value": c.importance, "multiplier": round(imp, 4)},
                "project": {"key": c.project_key, "active": params.projects or [], "multiplier": proj},
                "preDecay": round(c.pre_decay, 4),
                "eligible": c.eligible,
                "decay": {"multiplier": round(c.decay, 4),
                          "ageDays": None if c.age_days is None else round(c.age_days, 2)},
                "score": round(c.score, 4),
            }
    # order: exact path tiers first (3, 2, 1), then everything else; MMR within each group
    ordered: list[Candidate] = []
    groups = [[c for c in cands.values() if c.specificity == t] for t in (3, 2, 1)]
    groups.append([c for c in cands.values() if not c.specificity])
    for group in groups:
        group.sort(key=lambda c: (-c.score, c.path, c.start_line, c.end_line))
        pool, rest = group[:MMR_POOL], group[MMR_POOL:]
        order, penalties = mmr_order([c.score for c in pool], [c.text for c in pool])
        for pos, (i, pen) in enumerate(zip(order, penalties)):
            pool[i].mmr_before, pool[i].mmr_penalty = i + 1, pen
            if params.explain:
                pool[i].trace["mmr"] = {"before": i + 1, "after": pos + 1, "penalty": round(pen, 4)}
        ordered.extend(pool[i] for i in order)
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
        "candidates": len(cands),
        "legs": {"vector": None if vector_hits is None else len(vector_hits), "keyword": len(kw_hits),
                 "path": len(p_hits)},
        "ms": {"legs": round((t_legs - t0) * 1000, 2), "total": round((t_end - t0) * 1000, 2)},
    }


def result_row(c: Candidate, explain: bool) -> dict:
    row = {
        "path": c.path,
        "startLine": c.start_line,
        "endLine": c.end_line,
        "score": round(c.score, 6),
        "vectorScore": None if c.vector is None else round(c.vector, 6),
        "textScore": round(c.text_score, 6),
        "snippet": c.text[:SNIPPET_CHARS],
        "source": c.source,
        "citation": f"{c.path}#L{c.start_line}-L{c.end_line}",
        "corpus": "memory",
    }
    if c.importance is not None:
        row["importance"] = c.importance
    if c.triggers:
        row["triggers"] = c.triggers
    if c.project_key:
        row["projectKey"] = c.project_key
    if c.origin_class:
        row["provenance"] = {"originClass": c.origin_class, "sessionKind": c.session_kind}
    if explain:
        row["explain"] = c.trace
    return row
