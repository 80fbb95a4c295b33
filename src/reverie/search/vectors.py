"""The vector leg's coarse pass: exact cosine over the context windows, kept in memory.

A window's vector is the mean of its units' (``memory_index_windows``); a file's is the mean of its
windows'. A query costs one matrix-vector product over the windows (about a quarter of the units) and
one over the files; the units themselves are scored only inside the best windows and among the
keyword hits (:mod:`reverie.search.pipeline`), read from the index by sequence number. Measured on
LoCoMo, scoring units only inside the 12 best windows of a conversation (of 40-80) lost nothing
against scoring every unit (docs/search.md).

Keeping it current without reloading: the windows of one index generation are held as a few
immutable blocks, each with a mask of its live rows. After a sync only what changed is read (the
windows named in ``memory_index_vector_log`` since the last refresh): changed and removed windows
are masked out, new ones become a new block, and the blocks are merged in the background when there
are many. Nothing is modified in place, so a search in another thread keeps the snapshot it took.
When a rebuild publishes a new generation, its windows load in a background thread while searches
go on answering from the previous generation (its connection still reads the unlinked file). Only
the very first load of a process happens in the foreground.
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

_COLUMNS = "seq, first_seq, last_seq, start_line, end_line, source, path, embedding"


@dataclass
class WindowMatrix:
    """The live windows of a snapshot, sorted by their first unit, with their files' vectors."""

    seqs: np.ndarray  # window seq, sorted by first unit
    first: np.ndarray  # first unit seq of each window
    last: np.ndarray  # last unit seq of each window
    file_of: np.ndarray  # row in ``files`` of each window
    mat: np.ndarray  # windows x dims, unit length
    files: np.ndarray  # files x dims, unit length
    lines: np.ndarray  # windows x 2: first and last line
    file_ids: dict | None = None  # "source\0path" -> row in ``files`` (rows of vanished files stay unused)
    file_days: np.ndarray | None = None  # per row of ``files``: the daily note's date (ordinal), -1 (filled on first use)

    @property
    def empty(self) -> bool:
        return self.mat.shape[0] == 0

    def windows_of(self, unit_seq: int) -> list[int]:
        """Rows of the windows holding ``unit_seq`` (two where consecutive windows overlap)."""
        i = int(np.searchsorted(self.first, unit_seq, side="right")) - 1
        out = []
        while i >= 0 and self.last[i] >= unit_seq:
            out.append(i)
            i -= 1
            if len(out) == 2:
                break
        return out


@dataclass(frozen=True)
class Block:
    seqs: np.ndarray  # window seqs
    vecs: np.ndarray  # windows x dims
    meta: np.ndarray  # windows x 4: first unit, last unit, first line, last line
    files: np.ndarray  # object array of "source\0path"
    live: np.ndarray | None  # mask of live rows; None when all are

    def take(self) -> tuple:
        m = self.live
        if m is None:
            return self.seqs, self.vecs, self.meta, self.files
        return self.seqs[m], self.vecs[m], self.meta[m], self.files[m]


def _unit(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    m /= norms
    return m.astype(np.float32, copy=False)


@dataclass(frozen=True)
class Snapshot:
    generation: str
    dims: int
    log_id: int
    conn: apsw.Connection
    blocks: tuple[Block, ...]

    @property
    def rows(self) -> int:
        return sum(int(b.seqs.shape[0] if b.live is None else b.live.sum()) for b in self.blocks)

    @property
    def fragmented(self) -> bool:
        total = sum(int(b.seqs.shape[0]) for b in self.blocks)
        return len(self.blocks) > MAX_BLOCKS or (total - self.rows) * 5 > total

    @functools.cached_property
    def view(self) -> WindowMatrix:
        """The windows as the ranking reads them: built once per snapshot, or derived from the
        previous snapshot's view when a refresh changed a few windows (see :func:`refresh`)."""
        return _build_view([b.take() for b in self.blocks], self.dims)


def _weights(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    return (last - first + 1).astype(np.float32)


def _build_view(parts: list[tuple], dims: int) -> WindowMatrix:
    if not parts or not sum(p[0].shape[0] for p in parts):
        z = np.zeros(0, dtype=np.int64)
        return WindowMatrix(z, z, z, z, np.zeros((0, dims), np.float32), np.zeros((0, dims), np.float32),
                            np.zeros((0, 2), dtype=np.int64), {})
    seqs = np.concatenate([p[0] for p in parts])
    vecs = np.concatenate([p[1] for p in parts])
    meta = np.concatenate([p[2] for p in parts])
    files = np.concatenate([p[3] for p in parts])
    order = np.lexsort((seqs, meta[:, 0]))
    seqs, vecs, meta, files = seqs[order], vecs[order], meta[order], files[order]
    keys, file_of = np.unique(files, return_inverse=True)
    file_of = file_of.astype(np.int64).reshape(-1)
    # a file's vector: its windows' mean, each weighed by how many units it holds (summed per file
    # with one sort and reduceat: ufunc.at took 160 ms at 25,000 windows)
    by_file = np.argsort(file_of, kind="stable")
    grouped = file_of[by_file]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    w = _weights(meta[:, 0], meta[:, 1])
    fmat = np.add.reduceat(vecs[by_file] * w[by_file, None], starts, axis=0)
    # window vectors are stored unit length (index/vector_fill.py): no second normalisation
    return WindowMatrix(seqs, meta[:, 0].copy(), meta[:, 1].copy(), file_of, vecs, _unit(fmat),
                        meta[:, 2:4].copy(), {str(k): i for i, k in enumerate(keys)})


DERIVE_MAX_FILES = 64  # files touched by one refresh beyond which the view is built afresh


def _derive(old: WindowMatrix, touched: np.ndarray, fresh: Block | None) -> WindowMatrix | None:
    """``old`` without the windows in ``touched`` and with ``fresh`` added: O(changes) work on the
    files matrix instead of summing every window again after each appended note. None when the
    change is too wide to be worth it."""
    keep = ~np.isin(old.seqs, touched)
    gone_files = set(np.unique(old.file_of[~keep]).tolist())
    ids = old.file_ids
    new_ids: list[int] = []
    if fresh is not None:
        ids = dict(ids)
        for key in fresh.files.tolist():
            new_ids.append(ids.setdefault(key, len(ids)))
    affected = gone_files | set(new_ids)
    if len(affected) > DERIVE_MAX_FILES:
        return None
    seqs, first, last, file_of = old.seqs[keep], old.first[keep], old.last[keep], old.file_of[keep]
    mat, lines = old.mat[keep], old.lines[keep]
    if fresh is not None:
        seqs = np.concatenate([seqs, fresh.seqs])
        first = np.concatenate([first, fresh.meta[:, 0]])
        last = np.concatenate([last, fresh.meta[:, 1]])
        file_of = np.concatenate([file_of, np.asarray(new_ids, dtype=np.int64)])
        mat = np.concatenate([mat, fresh.vecs])
        lines = np.concatenate([lines, fresh.meta[:, 2:4]])
        if first.shape[0] > 1 and bool((np.diff(first) < 0).any()):  # a rewritten window kept its place
            order = np.lexsort((seqs, first))
            seqs, first, last, file_of, mat, lines = (a[order] for a in (seqs, first, last, file_of, mat, lines))
    files = np.zeros((len(ids), old.files.shape[1]), dtype=np.float32)
    files[:old.files.shape[0]] = old.files
    for f in affected:
        rows = np.flatnonzero(file_of == f)
        if rows.size:
            v = (mat[rows] * _weights(first[rows], last[rows])[:, None]).sum(axis=0)
            n = float(np.linalg.norm(v))
            files[f] = v / n if n > 0 else v
        else:
            files[f] = 0.0
    return WindowMatrix(seqs, first, last, file_of, mat, files, lines, ids)


def _log_head(conn: apsw.Connection) -> int:
    row = conn.execute("SELECT max(id) FROM memory_index_vector_log").fetchone()
    return int(row[0] or 0)


def _block(rows: list, dims: int) -> Block | None:
    if not rows:
        return None
    n = len(rows)
    seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
    meta = np.array([r[1:5] for r in rows], dtype=np.int64).reshape(n, 4)
    files = np.array([f"{r[5]}\0{r[6]}" for r in rows], dtype=object)
    vecs = np.frombuffer(b"".join(r[7] for r in rows), dtype=np.float32).reshape(n, dims)
    return Block(seqs, vecs, meta, files, None)


def _fetch(conn: apsw.Connection, dims: int, seqs: list[int] | None) -> Block | None:
    """The windows with a ``dims``-sized vector: all of them, or those in ``seqs``."""
    want = "embedding IS NOT NULL AND length(embedding) = ?"
    rows: list = []
    if seqs is None:
        rows = conn.execute(f"SELECT {_COLUMNS} FROM memory_index_windows WHERE {want}", (dims * 4,)).fetchall()
    else:
        for i in range(0, len(seqs), FETCH_BATCH):
            part = seqs[i:i + FETCH_BATCH]
            rows += conn.execute(f"SELECT {_COLUMNS} FROM memory_index_windows WHERE {want} "
                                 f"AND seq IN ({','.join('?' * len(part))})", (dims * 4, *part)).fetchall()
    return _block(rows, dims)


def load(conn: apsw.Connection, generation: str, dims: int) -> Snapshot:
    head = _log_head(conn)  # first: a change committed during the load is applied again later
    block = _fetch(conn, dims, None)
    return Snapshot(generation, dims, head, conn, (block,) if block else ())


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
    for b in snap.blocks:
        hit = np.isin(b.seqs, touched)
        if hit.any():
            live = (~hit) if b.live is None else (b.live & ~hit)
            b = Block(b.seqs, b.vecs, b.meta, b.files, live)
        blocks.append(b)
    fresh = _fetch(conn, snap.dims, changed)
    if fresh is not None:
        blocks.append(fresh)
    out = Snapshot(snap.generation, snap.dims, head, conn, tuple(blocks))
    if "view" in snap.__dict__:  # the previous view was used: derive this one from it
        view = _derive(snap.view, touched, fresh)
        if view is not None:
            out.__dict__["view"] = view
    return out


def compacted(snap: Snapshot) -> Snapshot:
    """One block without dead rows (a copy of every live vector: done in a background thread)."""
    parts = [b.take() for b in snap.blocks]
    if not parts:
        return snap
    merged = Block(*(np.concatenate([p[i] for p in parts]) for i in range(4)), None)
    out = Snapshot(snap.generation, snap.dims, snap.log_id, snap.conn, (merged,))
    if "view" in snap.__dict__:  # the same live windows: the same view
        out.__dict__["view"] = snap.view
    return out


def nearest(snap: Snapshot, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(window seq, cosine) of the ``k`` nearest live windows, best first."""
    m = snap.view
    if m.empty:
        return []
    sims = np.einsum("ij,j->i", m.mat, query.astype(np.float32))  # no BLAS thread pool (context.py)
    k = min(k, sims.shape[0])
    idx = np.argpartition(-sims, k - 1)[:k]
    idx = idx[np.argsort(-sims[idx], kind="stable")]
    return [(int(m.seqs[i]), float(sims[i])) for i in idx]


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
                snap.view  # built here, not by the next search  # noqa: B018
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
