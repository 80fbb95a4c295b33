"""The vectors phase of a sync: chunks stored without a vector get one, from the embedding cache
or the provider, one committed batch at a time.

The cache (in the agent database) is keyed by the hash of the text the model reads, so it survives
rebuilds and is shared by chunks that differ only in annotation comments. Between two batches
urgent work (a note just written) is served; at the embedder a waiting query goes first, and a
query never waits long for a background batch (see ``embed_turns``).
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

from ..errors import EmbeddingError
from ..store import transaction
from . import cache, embed_turns, progress as run_progress, rows
from .chunking import Chunk

if TYPE_CHECKING:  # pragma: no cover  (numpy loads when vectors do: `remember` never needs it)
    import numpy as np

    from .sync import SyncReport, _Run

VECTOR_BATCH = 64  # chunks per vector transaction, embedding-cache write and provider call


_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)


def embedding_input(text: str) -> str:
    """What the embedding model reads: the chunk without HTML comments (annotations such as
    ``<!-- importance: 8 -->`` and machine markers are for ranking, not meaning)."""
    if "<!--" not in text:
        return text
    stripped = "\n".join(line.rstrip() for line in _COMMENT_RE.sub("", text).split("\n"))
    return stripped if stripped.strip() else text


def unit_embedding_input(text: str, context: str = "") -> str:
    """What the model reads for a unit: the headings above it, then its text, without HTML comments.
    The embedding cache is keyed by its hash (forgetting a unit finds its cached vector this way)."""
    return embedding_input(f"{context}\n{text}" if context else text)


def _vec_blob(v: np.ndarray) -> bytes:
    import numpy as np

    return np.asarray(v, dtype=np.float32).tobytes()


def _mean_blob(vectors: list) -> bytes | None:
    """A window's vector: the normalised mean of its units' vectors (None while none has one). The
    mean, not an embedding of the window's text: nothing more to embed, and measured on LoCoMo it
    ranks nearly as well (docs/search.md)."""
    present = [v for v in vectors if v is not None]
    if not present:
        return None
    import numpy as np

    m = np.mean([np.asarray(v, dtype=np.float32) for v in present], axis=0)
    norm = float(np.linalg.norm(m))
    return _vec_blob(m / norm if norm > 0 else m)


class VectorFill:
    """The vectors phase, mixed into :class:`reverie.index.sync.Syncer` (which provides the
    connections, the embedder, the identity and the between-batches hook)."""

    def _cache_keys(self, chunks: list[Chunk]) -> tuple[dict[str, str], dict[str, str]]:
        """(chunk hash -> what the model reads, chunk hash -> cache key)."""
        inputs = {c.hash: unit_embedding_input(c.text, c.context) for c in chunks}
        return inputs, {h: hashlib.sha256(t.encode("utf-8")).hexdigest() for h, t in inputs.items()}

    def _cached_vectors(self, chunks: list[Chunk], report: SyncReport) -> dict[str, np.ndarray]:
        """Vectors by chunk hash that the embedding cache already holds (no model call).

        The cache is keyed by the hash of the text the model actually sees (annotation comments
        removed), so chunks that differ only in annotations share one vector."""
        if not self.use_vectors or not chunks:
            return {}
        assert self.embedder is not None
        _, key_of = self._cache_keys(chunks)
        found = cache.lookup(self.agent_conn, self.embedder, list(dict.fromkeys(key_of.values())))
        report.cache_hits += len(found)
        return {h: found[k] for h, k in key_of.items() if k in found}

    def _vectors_for(self, chunks: list[Chunk], report: SyncReport) -> dict[str, np.ndarray]:
        """Vectors by chunk hash: from the cache, else embedded now and cached at once."""
        emb = self.embedder
        assert emb is not None
        inputs, key_of = self._cache_keys(chunks)
        keys_needed = list(dict.fromkeys(key_of.values()))
        found = cache.lookup(self.agent_conn, emb, keys_needed)
        report.cache_hits += len(found)
        todo: dict[str, str] = {}
        for h, k in key_of.items():
            if k not in found and k not in todo:
                todo[k] = inputs[h]
        if todo and not self.control.cached_only:
            keys = list(todo)
            try:
                mat = self._embed([todo[k] for k in keys])
            except EmbeddingError as exc:
                report.embedding_error = str(exc)
                mat = None
            if mat is None:
                return {h: found[k] for h, k in key_of.items() if k in found}
            fresh = {k: mat[i] for i, k in enumerate(keys)}
            cache.store(self.agent_conn, emb, fresh)
            report.embedded += len(fresh)
            found.update(fresh)
            if emb.dims and not self.identity.get("vectorDims"):
                self.identity["vectorDims"] = emb.dims
        return {h: found[k] for h, k in key_of.items() if k in found}

    def _embed(self, texts: list[str]) -> np.ndarray | None:
        """The vectors of ``texts``; None when this run may only embed quickly and the engine is
        busy with someone else's batch (the chunks then wait for a later run)."""
        emb = self.embedder
        assert emb is not None
        if self.control.quick:
            with embed_turns.query_turn(emb) as free:
                return emb.embed_documents(texts) if free else None
        if not self.control.background:
            with embed_turns.urgent(emb), embed_turns.background_call(emb):  # someone waits for this run
                return emb.embed_documents(texts)
        embed_turns.background_turn(emb)  # a query waiting for the engine goes first
        with embed_turns.background_call(emb):  # and a query arriving now does not wait for us
            return emb.embed_documents(texts)

    def _fill_vectors(self, run: _Run, paths: list[str] | None = None) -> None:
        """Embed chunks stored without a vector (new text, an earlier provider failure, or a
        keyword-only index now that a provider is available), one committed batch at a time."""
        report = run.report
        if not self.use_vectors or report.embedding_error:
            return
        where, args = "embedding IS NULL", []
        if paths is not None:
            if not paths:
                return
            where += f" AND path IN ({','.join('?' * len(paths))})"
            args = list(paths)
        total = self.conn.execute(f"SELECT count(*) FROM memory_index_chunks WHERE {where}", args).fetchone()[0]
        if not total:
            return
        shown = not self._serving  # urgent work inside a run does not redraw the run's progress
        if shown:
            self.control.stage("vectors")  # notes written from now on may be indexed beside this run
            if run.state is not None:
                with transaction(self.conn):
                    run_progress.update(self.conn, run.state, phase="vectors")
            self.progress("vectors", 0, total)
        done = last = 0
        while True:
            rows = self.conn.execute(
                f"SELECT seq, hash, text, context FROM memory_index_chunks WHERE {where} AND seq > ? ORDER BY seq "
                "LIMIT ?",
                (*args, last, VECTOR_BATCH)).fetchall()
            if not rows:
                break
            last = rows[-1][0]
            vectors = self._vectors_for([Chunk(0, 0, t, h, ctx) for _, h, t, ctx in rows], report)
            with transaction(self.conn):  # (one pipelined batch on PostgreSQL, not a round trip a row)
                self.conn.executemany("UPDATE memory_index_chunks SET embedding=?, model=? WHERE seq=?",
                                      [(_vec_blob(vectors[h]), self.model_tag, seq) for seq, h, _, _ in rows
                                       if h in vectors])
                self._refresh_window_vectors([r[0] for r in rows if r[1] in vectors])
                if run.state is not None:
                    run_progress.update(self.conn, run.state, phase="vectors")
            done += len(rows)
            if shown:  # (a note indexed beside this run joins it: done may pass the first total)
                self.progress("vectors", done, max(total, done))
            if report.embedding_error:
                break
            self._between()
            if self.control.stopping():
                report.interrupted = True
                break

    def _refresh_window_vectors(self, seqs: list[int]) -> None:
        """Recompute the mean vector of every window holding one of ``seqs`` (their vectors came late):
        the windows and their units' vectors read in two statements, the means written in one batch."""
        if not seqs:
            return
        lo, hi = min(seqs), max(seqs)
        windows = self.conn.execute(
            "SELECT seq, first_seq, last_seq FROM memory_index_windows WHERE last_seq >= ? AND first_seq <= ?",
            (lo, hi)).fetchall()
        import numpy as np

        wanted = set(seqs)
        windows = [w for w in windows if any(w[1] <= s <= w[2] for s in wanted)]
        if not windows:
            return
        first, last = min(w[1] for w in windows), max(w[2] for w in windows)
        unit = {seq: np.frombuffer(blob, dtype=np.float32) for seq, blob in self.conn.execute(
            "SELECT seq, embedding FROM memory_index_chunks WHERE seq BETWEEN ? AND ? AND embedding IS NOT NULL",
            (first, last))}
        rows.set_window_vectors(self.conn, [
            (wseq, _mean_blob([unit[s] for s in range(wfirst, wlast + 1) if s in unit]))
            for wseq, wfirst, wlast in windows])
