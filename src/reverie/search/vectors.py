"""The vector leg's coarse pass: exact cosine over the context windows, kept in memory.

A window's vector is the mean of its units' (``memory_index_windows``); a file's is the mean of its
windows'. Both matrices are loaded once per (index generation, revision) and reused until either
moves. A query costs one matrix-vector product over the windows (about a quarter of the units) and
one over the files; the units themselves are scored only inside the best windows and among the
keyword hits (:mod:`reverie.search.pipeline`), read from the index by sequence number. Measured on
LoCoMo, scoring units only inside the 12 best windows of a conversation (of 40-80) lost nothing
against scoring every unit (docs/search.md).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import apsw
import numpy as np


@dataclass
class WindowMatrix:
    key: tuple
    seqs: np.ndarray  # window seq, sorted by first unit
    first: np.ndarray  # first unit seq of each window
    last: np.ndarray  # last unit seq of each window
    file_of: np.ndarray  # row in ``files`` of each window
    mat: np.ndarray  # windows x dims, unit length
    files: np.ndarray  # files x dims, unit length
    lines: np.ndarray  # windows x 2: first and last line

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


def _unit(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32)


class VectorMatrix:
    def __init__(self) -> None:
        self._m: WindowMatrix | None = None
        self._lock = threading.Lock()

    def _load(self, conn: apsw.Connection, key: tuple, dims: int) -> WindowMatrix:
        rows = conn.execute(
            "SELECT seq, path, source, first_seq, last_seq, embedding, start_line, end_line FROM memory_index_windows "
            "WHERE embedding IS NOT NULL AND length(embedding) = ? ORDER BY first_seq, seq", (dims * 4,)).fetchall()
        if not rows:
            # an index written before windows existed: each chunk is its own window
            rows = conn.execute(
                "SELECT seq, path, source, seq, seq, embedding, start_line, end_line FROM memory_index_chunks "
                "WHERE embedding IS NOT NULL AND length(embedding) = ? ORDER BY seq", (dims * 4,)).fetchall()
        if not rows:
            z = np.zeros(0, dtype=np.int64)
            return WindowMatrix(key, z, z, z, z, np.zeros((0, dims), np.float32), np.zeros((0, dims), np.float32),
                                np.zeros((0, 2), dtype=np.int64))
        n = len(rows)
        seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
        first = np.fromiter((r[3] for r in rows), dtype=np.int64, count=n)
        last = np.fromiter((r[4] for r in rows), dtype=np.int64, count=n)
        mat = np.frombuffer(b"".join(r[5] for r in rows), dtype=np.float32).reshape(n, dims)
        file_ids: dict[tuple[str, str], int] = {}
        file_of = np.fromiter((file_ids.setdefault((r[1], r[2]), len(file_ids)) for r in rows), dtype=np.int64,
                              count=n)
        # a file's vector: its windows' mean, each weighed by how many units it holds
        files = np.zeros((len(file_ids), dims), dtype=np.float64)
        np.add.at(files, file_of, mat * (last - first + 1)[:, None])
        lines = np.array([(r[6], r[7]) for r in rows], dtype=np.int64)
        return WindowMatrix(key, seqs, first, last, file_of, _unit(mat), _unit(files), lines)

    def matrix(self, conn: apsw.Connection, generation: str, revision: int, dims: int) -> WindowMatrix:
        key = (generation, revision, dims)
        with self._lock:
            if self._m is None or self._m.key != key:
                self._m = self._load(conn, key, dims)
            return self._m
