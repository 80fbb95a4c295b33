"""Context: a unit is judged with its window and its file (docs/search.md §5).

Each leg gives a unit its own score and its context's::

    leg = OWN_WEIGHT x unit + (1 - OWN_WEIGHT) x (WINDOW_SHARE x window + (1 - WINDOW_SHARE) x file)

The vector leg's window and file cosines come from the coarse pass over the in-memory window matrix
(which also makes every unit of the best windows a candidate); the keyword leg's are the query
tokens held anywhere in the window or file, among the candidates.

The keyword side is plain Python (a query has at most 24 tokens); numpy is imported by the vector
side only, so a keyword-only search never loads it.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING

import apsw

from .candidates import Candidate, VectorQuery
from .keyword import QueryTerms
from .rescore import note_date

if TYPE_CHECKING:
    import numpy as np

    from .vectors import WindowMatrix

OWN_WEIGHT = 0.5  # a unit's own relevance against its context's
WINDOW_SHARE = 0.7  # of the context: the window's share; the file has the rest
COARSE_WINDOWS = 12  # every unit of the best windows is scored, besides the keyword hits


@dataclass
class _Window:
    seq: int
    first: int
    last: int
    start_line: int
    end_line: int
    file: tuple[str, str]


def windows_of_files(conn: apsw.Connection, cands: list[Candidate]) -> dict[tuple[str, str], list[_Window]]:
    """The windows holding the candidates, read from the index (a search without vectors): as
    :func:`windows_from_matrix`, only windows that hold a candidate (a file's other windows
    change no score, and judging each of them cost a keyword-only search at 100,000 units about
    a millisecond)."""
    seqs: dict[tuple[str, str], list[int]] = {}
    for c in cands:
        seqs.setdefault((c.path, c.source), []).append(c.seq)
    for held in seqs.values():
        held.sort()
    out: dict[tuple[str, str], list[_Window]] = {f: [] for f in seqs}
    paths = list(dict.fromkeys(path for path, _ in seqs))
    for i in range(0, len(paths), 500):
        part = paths[i:i + 500]
        rows = conn.execute(
            f"SELECT seq, path, source, first_seq, last_seq, start_line, end_line FROM memory_index_windows "
            f"WHERE path IN ({','.join('?' * len(part))}) ORDER BY first_seq", part)
        for seq, path, source, first, last, start, end in rows:
            held = seqs.get((path, source))
            if held is None:
                continue
            at = bisect_left(held, first)
            if at < len(held) and held[at] <= last:
                out[(path, source)].append(_Window(seq, first, last, start, end, (path, source)))
    return out


def windows_from_matrix(m: WindowMatrix, cands: list[Candidate]) -> dict[tuple[str, str], list[_Window]]:
    """The windows holding the candidates, read from the in-memory matrix (no query): a unit sits in
    the last window starting at or before it and, where windows overlap, the one before."""
    import numpy as np  # a vector search: loaded already

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
    import numpy as np  # a vector search: loaded already

    if floor >= 1:
        return cos
    return np.clip((np.asarray(cos) - floor) / (1.0 - floor), 0.0, 1.0)


def _matvec(mat: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``mat @ q`` without the BLAS thread pool: on a busy machine its worker threads stalled a
    1,855 x 384 product for 6 ms (single-threaded: 0.05 ms), and at 100k rows one thread was
    twice as fast as two competing with other work."""
    import numpy as np  # a vector search: loaded already

    return np.einsum("ij,j->i", mat, q) if len(mat) else np.zeros(0, dtype=np.float32)


def coarse(vq: VectorQuery, cands: dict[int, Candidate], best_windows: int = COARSE_WINDOWS) -> tuple[np.ndarray, np.ndarray]:
    """Window and file cosines for the query; every unit of the ``best_windows`` best windows
    becomes a candidate."""
    import numpy as np  # a vector search: loaded already

    m = vq.matrix
    q = vq.query.astype(np.float32)
    wcos = _matvec(m.mat, q) + vq.offset
    fcos = _matvec(m.files, q) + vq.offset
    k = min(best_windows, len(wcos))
    if k:
        _take_windows(m, np.argpartition(-wcos, k - 1)[:k], cands)
    return wcos, fcos


def _take_windows(m: WindowMatrix, rows, cands: dict[int, Candidate]) -> None:
    """Every unit of the windows at ``rows`` of the matrix becomes a candidate."""
    for i in rows:
        for seq in range(int(m.first[i]), int(m.last[i]) + 1):
            cands.setdefault(seq, Candidate(seq))


def windows_dated(vq: VectorQuery, wcos, cands: dict[int, Candidate], first_day: int, last_day: int,
                  best_windows: int) -> int:
    """Every unit of the ``best_windows`` best windows of the daily notes dated from ``first_day``
    to ``last_day`` (ordinals: a range the question named) becomes a candidate; returns how many
    windows. Judged by the same cosines as :func:`coarse`, so a week of long notes is read where it
    matches, not from its last day down."""
    import numpy as np  # a vector search: loaded already

    m = vq.matrix
    if not best_windows or not m.file_ids:
        return 0
    if m.file_days is None:  # once per matrix: the date each file's name says (rescore.note_date)
        days = np.full(len(m.file_ids), -1, dtype=np.int64)
        for key, row in m.file_ids.items():
            d = note_date(key.partition("\0")[2])
            if d is not None:
                days[row] = d.toordinal()
        m.file_days = days
    days = m.file_days[m.file_of]
    dated = np.flatnonzero((days >= first_day) & (days <= last_day))
    if not dated.size:
        return 0
    k = min(best_windows, int(dated.size))
    _take_windows(m, dated[np.argpartition(-wcos[dated], k - 1)[:k]], cands)
    return k


def _has_vector(c: Candidate, dims: int) -> bool:
    """Whether the candidate's stored vector is one of the query's dimensions (float32)."""
    return bool(c.embedding) and len(c.embedding) == dims * 4


def nearest_units(cands: list[Candidate], vq: VectorQuery, keep: int) -> list[Candidate]:
    """The ``keep`` candidates nearest the query by their own vector, and every keyword or path
    hit (what the context scoring after this costs grows with the candidates: a counting
    question's 96 windows held 1,600 units in a long history, and the ranking took 40 ms)."""
    import numpy as np  # a vector search: loaded already

    if len(cands) <= keep:
        return cands
    dims = vq.query.shape[0]
    with_vec = [c for c in cands if _has_vector(c, dims)]
    if len(with_vec) <= keep:
        return cands
    mat = np.frombuffer(b"".join(c.embedding for c in with_vec), dtype=np.float32).reshape(len(with_vec), dims)
    near = _matvec(mat, vq.query.astype(np.float32))
    chosen = {id(with_vec[i]) for i in np.argpartition(-near, keep - 1)[:keep]}
    return [c for c in cands if id(c) in chosen or c.kw is not None or c.path_score is not None
            or not _has_vector(c, dims)]


def score_context(cands: list[Candidate], windows: dict[tuple[str, str], list[_Window]], qt: QueryTerms,
             tokenizer: str, vq: VectorQuery | None, wcos, fcos, floor: float, use_kw: bool,
             own_weight: float = OWN_WEIGHT) -> None:
    """Each candidate's vector and keyword legs, its own score blended with its window's and file's
    (``own_weight`` of it its own)."""
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
    file_of = [0] * n
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
    if use_kw and len(qt.tokens):
        _keyword_context(cands, qt, tokenizer, pairs, file_of, len(wlist), len(files), own_weight)
    if vq is not None:
        _vector_context(cands, vq, wlist, files, pairs, file_of, wcos, fcos, floor, own_weight)


def _keyword_context(cands: list[Candidate], qt: QueryTerms, tokenizer: str, pairs: list[tuple[int, int]],
                     file_of: list[int], n_windows: int, n_files: int, own_weight: float) -> None:
    # Which query tokens each keyword hit holds. A candidate the keyword leg did not return holds
    # none of the tokens it searched for (or only ones below its best-ranked hits): reading its
    # tokens cost more than the rest of the ranking together (10k units: 14 of 26 ms).
    w = qt.weights
    k = len(w)
    total = math.fsum(w) or 1.0
    none = [False] * k
    masks = [qt.mask(c.index_text, tokenizer) if c.kw is not None else none for c in cands]

    def share(mask: list[float]) -> float:  # (a token held across languages counts in part: QueryTerms.mask)
        return math.fsum(x * held for x, held in zip(w, mask)) / total

    def union(into: list[list[float]], at: int, mask: list[float]) -> None:
        into[at] = [max(a, b) for a, b in zip(into[at], mask)]

    win_mask = [none] * n_windows
    for ci, wi in pairs:
        union(win_mask, wi, masks[ci])
    file_mask = [none] * n_files
    for i, mask in enumerate(masks):
        union(file_mask, file_of[i], mask)
    own_kw = [share(mask) for mask in masks]
    # per candidate: the best of its windows' shares (its own where it has no window)
    win_share = [share(mask) for mask in win_mask]
    best = [-math.inf] * len(cands)
    for ci, wi in pairs:
        best[ci] = max(best[ci], win_share[wi])
    file_share = [share(mask) for mask in file_mask]
    for i, c in enumerate(cands):
        kw_win = best[i] if best[i] != -math.inf else own_kw[i]
        kw_file = file_share[file_of[i]]
        c.kw_unit = own_kw[i]
        c.keyword_parts = (c.kw_unit, kw_win, kw_file)
        c.keyword = own_weight * own_kw[i] + (1 - own_weight) * (WINDOW_SHARE * kw_win + (1 - WINDOW_SHARE) * kw_file)


def _vector_context(cands: list[Candidate], vq: VectorQuery, wlist: list[_Window], files: dict, pairs: list,
                    file_of_list: list[int], wcos, fcos, floor: float, own_weight: float) -> None:
    import numpy as np  # a vector search: loaded already

    n = len(cands)
    file_of = np.array(file_of_list, dtype=np.int64)
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

    m = vq.matrix
    dims = vq.query.shape[0]
    has_vec = np.array([_has_vector(c, dims) for c in cands])
    if not has_vec.any():
        return
    unit = np.zeros((n, dims), dtype=np.float32)
    for i, c in enumerate(cands):
        if has_vec[i]:
            unit[i] = np.frombuffer(c.embedding, dtype=np.float32)
    raw = _matvec(unit, vq.query.astype(np.float32)) + vq.offset
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
    vec = own_weight * own + (1 - own_weight) * (WINDOW_SHARE * v_win + (1 - WINDOW_SHARE) * v_file)
    for i, c in enumerate(cands):
        if has_vec[i]:
            c.vector_raw = float(raw[i])
            c.vector_parts = (float(own[i]), float(v_win[i]), float(v_file[i]))
            c.vector = float(vec[i])
    ranked = sorted((i for i in range(len(cands)) if has_vec[i]), key=lambda i: -float(vec[i]))
    for place, i in enumerate(ranked, 1):
        cands[i].vector_rank = place
