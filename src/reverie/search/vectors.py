"""The vector leg: exact cosine over float32 matrices kept in memory.

The vectors of one index generation are held as a few immutable blocks, each with a mask of its
live rows. After a sync, only what changed is read (the rows named in ``memory_index_vector_log``
since the last refresh): changed and removed chunks are masked out, new vectors become a new block,
and the blocks are merged when there are many of them. Nothing is ever modified in place, so a
search in another thread keeps using the snapshot it took.

When a rebuild publishes a new generation, its vectors are loaded in a background thread; searches
go on answering from the previous generation (its connection still reads the unlinked file) until
the new matrix is ready. Merging fragmented blocks also happens in the background. Only the very
first load of a process happens in the foreground.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import apsw
import numpy as np

FETCH_BATCH = 500
INCREMENTAL_MAX = 5_000  # log rows a search applies itself; a larger change reloads in the background
MAX_BLOCKS = 8


@dataclass(frozen=True)
class Snapshot:
    generation: str
    dims: int
    log_id: int
    conn: apsw.Connection
    blocks: tuple[tuple[np.ndarray, np.ndarray, np.ndarray | None], ...]  # (seqs, vectors, live mask)

    @property
    def rows(self) -> int:
        return sum(int(s.shape[0] if m is None else m.sum()) for s, _, m in self.blocks)

    @functools.cached_property
    def seqs(self) -> np.ndarray:
        return np.concatenate([s for s, _, _ in self.blocks]) if self.blocks else np.zeros(0, dtype=np.int64)

    @functools.cached_property
    def dead(self) -> np.ndarray | None:
        """Positions (over all blocks) of rows masked out, or None when every row is live."""
        if all(m is None for _, _, m in self.blocks):
            return None
        return ~np.concatenate([np.ones(s.shape[0], dtype=bool) if m is None else m for s, _, m in self.blocks])

    @property
    def fragmented(self) -> bool:
        dead = self.dead
        return len(self.blocks) > MAX_BLOCKS or (dead is not None and int(dead.sum()) * 5 > dead.shape[0])


def _log_head(conn: apsw.Connection) -> int:
    row = conn.execute("SELECT max(id) FROM memory_index_vector_log").fetchone()
    return int(row[0] or 0)


def _fetch(conn: apsw.Connection, dims: int, seqs: list[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """(seqs, matrix) of the chunks with a ``dims``-sized vector; all of them, or those in ``seqs``."""
    want = "embedding IS NOT NULL AND length(embedding) = ?"
    rows: list = []
    if seqs is None:
        rows = conn.execute(f"SELECT seq, embedding FROM memory_index_chunks WHERE {want}", (dims * 4,)).fetchall()
    else:
        for i in range(0, len(seqs), FETCH_BATCH):
            part = seqs[i:i + FETCH_BATCH]
            rows += conn.execute(f"SELECT seq, embedding FROM memory_index_chunks WHERE {want} "
                                 f"AND seq IN ({','.join('?' * len(part))})", (dims * 4, *part)).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dims), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dims)
    return ids, mat


def load(conn: apsw.Connection, generation: str, dims: int) -> Snapshot:
    head = _log_head(conn)  # first: a change committed during the load is applied again later
    seqs, mat = _fetch(conn, dims, None)
    return Snapshot(generation, dims, head, conn, ((seqs, mat, None),))


def _merge(blocks) -> tuple:
    seqs = np.concatenate([s if m is None else s[m] for s, _, m in blocks])
    mat = np.concatenate([v if m is None else v[m] for _, v, m in blocks])
    return ((seqs, mat, None),)


def refresh(snap: Snapshot) -> Snapshot | None:
    """``snap`` brought up to date with its connection; None when the change is too large (or the
    log was pruned past it) and a full load is needed."""
    conn = snap.conn
    head = _log_head(conn)
    if head == snap.log_id:
        return snap
    if head - snap.log_id > INCREMENTAL_MAX:
        return None
    low = conn.execute("SELECT min(id) FROM memory_index_vector_log").fetchone()[0]
    if low is None or low > snap.log_id + 1:
        return None
    changed = [r[0] for r in conn.execute(
        "SELECT DISTINCT seq FROM memory_index_vector_log WHERE id > ? AND id <= ?", (snap.log_id, head))]
    touched = np.asarray(changed, dtype=np.int64)
    blocks = []
    for seqs, vecs, mask in snap.blocks:
        hit = np.isin(seqs, touched)
        if hit.any():
            mask = (~hit) if mask is None else (mask & ~hit)
        blocks.append((seqs, vecs, mask))
    new_seqs, new_vecs = _fetch(conn, snap.dims, changed)
    if new_seqs.shape[0]:
        blocks.append((new_seqs, new_vecs, None))
    return Snapshot(snap.generation, snap.dims, head, conn, tuple(blocks))


def compacted(snap: Snapshot) -> Snapshot:
    """One block without dead rows (a copy of every live vector: done in a background thread)."""
    return Snapshot(snap.generation, snap.dims, snap.log_id, snap.conn, _merge(snap.blocks))


def nearest(snap: Snapshot, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(seq, cosine) of the ``k`` nearest live chunks, best first."""
    q = query.astype(np.float32)
    parts = [v @ q for s, v, _ in snap.blocks if s.shape[0]]
    if not parts:
        return []
    sims = parts[0] if len(parts) == 1 else np.concatenate(parts)
    dead = snap.dead
    if dead is not None:
        sims[dead] = -np.inf
    k = min(k, sims.shape[0])
    idx = np.argpartition(-sims, k - 1)[:k]
    idx = idx[np.argsort(-sims[idx], kind="stable")]
    seqs = snap.seqs
    return [(int(seqs[i]), float(sims[i])) for i in idx if sims[i] != -np.inf]


class VectorMatrix:
    """The matrix a search uses, kept current; see the module docstring."""

    def __init__(self) -> None:
        self._snap: Snapshot | None = None
        self._lock = threading.Lock()
        self._loading: threading.Thread | None = None
        self.loads = 0  # full loads done (for tests and benchmarks)

    @property
    def generation(self) -> str | None:
        snap = self._snap
        return snap.generation if snap else None

    def serve(self, conn: apsw.Connection, generation: str, dims: int) -> Snapshot:
        """The snapshot to search now. Its ``conn`` is the connection the whole search must read
        (the previous generation's while the new one loads in the background)."""
        with self._lock:
            snap = self._snap
            if snap is not None and snap.dims == dims and snap.generation != generation:
                self._load_in_background(conn, generation, dims)
                return snap
            if snap is None or snap.dims != dims:
                snap = self._snap = self._full(conn, generation, dims)
                return snap
            fresh = refresh(snap)
            if fresh is None:  # a large change in place: reload aside, serve what we have
                self._load_in_background(conn, generation, dims)
                return snap
            self._snap = fresh
            if fresh.fragmented:
                self._compact_in_background(fresh)
            return fresh

    def top(self, conn: apsw.Connection, generation: str, revision: int, query: np.ndarray,
            k: int) -> list[tuple[int, float]]:
        """(seq, cosine) of the ``k`` nearest chunks of the live matrix, best first (``revision``
        is kept for callers of the earlier interface; the vector log tells what changed)."""
        return nearest(self.serve(conn, generation, int(query.shape[0])), query, k)

    def _full(self, conn: apsw.Connection, generation: str, dims: int) -> Snapshot:
        self.loads += 1
        return load(conn, generation, dims)

    def _load_in_background(self, conn: apsw.Connection, generation: str, dims: int) -> None:
        self._replace_in_background(lambda: self._full(conn, generation, dims))

    def _compact_in_background(self, snap: Snapshot) -> None:
        # The merged copy is as of ``snap``; whatever changed since is read from the log by the
        # next refresh, so swapping it in later loses nothing.
        self._replace_in_background(lambda: compacted(snap))

    def _replace_in_background(self, make) -> None:
        if self._loading is not None and self._loading.is_alive():
            return

        def work() -> None:
            try:
                snap = make()
            except Exception:  # the next search tries again; this one keeps the old matrix
                return
            with self._lock:  # an older log position is fine: the next refresh reads the rest
                self._snap = snap

        self._loading = threading.Thread(target=work, name="reverie-vectors", daemon=True)
        self._loading.start()

    def forget(self) -> None:
        """Drop the matrix (its generation was found damaged); the next search loads afresh."""
        with self._lock:
            self._snap = None

    def wait_loaded(self, timeout: float) -> bool:
        t = self._loading
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()
