"""Incremental sync of the workspace into one index generation.

Unchanged sources are skipped by mtime and size without being read; a source whose bytes hash the
same only has its stat refreshed; a changed source is re-chunked and its chunks replaced in one
transaction. Only chunks whose hash is not in the embedding cache are embedded. A provider that
fails still leaves the text indexed for keyword search, with vectors marked missing (retried on
the next sync).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import apsw

from ..embeddings import Embedder
from ..errors import EmbeddingError
from ..store import transaction
from ..text.fts import segment_for_index
from ..trust.store import chunk_origin
from ..workspace.annotations import parse_annotations
from ..workspace.files import NotRegularFile, read_regular
from ..workspace.textclean import decode_note
from . import cache
from .chunking import Chunk, Window, chunk_markdown, is_curated
from .discover import SourceFile, discover
from .identity import compare, read_identity, write_meta

if TYPE_CHECKING:  # numpy loads when vectors do (status and get never need it)
    import numpy as np

MAX_FILE_BYTES = 16 * 1024 * 1024
WRITE_GROUP_CHUNKS = 2_000
Progress = Callable[[str, int, int], None]


@dataclass
class SyncReport:
    files: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks_written: int = 0
    embedded: int = 0
    cache_hits: int = 0
    vectors_missing: int = 0
    problems: dict[str, str] = field(default_factory=dict)
    embedding_error: str | None = None
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class _Pending:
    src: SourceFile
    hash: str
    mtime: float
    size: int
    chunks: list[Chunk]  # the file's units
    windows: list[Window] = field(default_factory=list)


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


def chunk_id(source: str, path: str, chunk: Chunk) -> str:
    raw = f"{source}\0{path}\0{chunk.start_line}\0{chunk.end_line}\0{chunk.hash}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def _read_source(src: SourceFile) -> tuple[str | None, bytes | None, str | None]:
    """(text, raw bytes, problem) for a file. Without text the file is skipped and the problem
    says why; with text and a problem it is indexed and the problem says what was replaced (NUL
    bytes, invalid UTF-8: one bad segment must not hide the rest of a daily note). Only regular
    files are opened, never blocking: a FIFO named ``*.md`` must not hang the sync."""
    if src.render is not None:  # generated text (a table file's description), see discover.py
        return src.render()
    try:
        raw, st = read_regular(src.abspath, max_bytes=MAX_FILE_BYTES, follow_symlinks=False)
    except NotRegularFile as exc:
        return None, None, f"not a regular file ({exc.kind}); skipped"
    except OSError as exc:
        return None, None, f"unreadable: {exc.strerror or exc}"
    if raw is None:
        return None, None, f"too large ({st.st_size:,} bytes > {MAX_FILE_BYTES:,}); not indexed"
    text, problem = decode_note(raw)
    return text, (raw if text is not None else None), problem


def _vec_blob(v: np.ndarray) -> bytes:
    import numpy as np

    return np.asarray(v, dtype=np.float32).tobytes()


def _mean_blob(vectors: list) -> bytes | None:
    """A window's vector: the normalised mean of its units' vectors (None while none has one). The
    mean, not an embedding of the window's text: nothing more to embed, and measured on LoCoMo it
    ranks nearly as well (docs/search.md)."""
    present = [v for v in vectors if v is not None]
    if not present:
        return None  # keyword-only: numpy is not even loaded
    import numpy as np

    vecs = [np.asarray(v, dtype=np.float32) for v in present]
    m = np.mean(vecs, axis=0)
    norm = float(np.linalg.norm(m))
    return _vec_blob(m / norm if norm > 0 else m)


class Syncer:
    def __init__(self, conn: apsw.Connection, agent_conn: apsw.Connection, workspace: Path, settings,
                 embedder: Embedder | None, wanted_identity: dict, progress: Progress | None = None):
        self.conn = conn
        self.agent_conn = agent_conn
        self.workspace = workspace
        self.settings = settings
        self.embedder = embedder
        self.progress = progress or (lambda stage, done, total: None)
        stored = read_identity(conn)
        self.identity = stored or wanted_identity
        check = compare(stored, wanted_identity)
        # Chunking and tokenizer follow what the index was built with, so it stays consistent;
        # vectors are written only when they are comparable with the stored ones.
        self.tokens = self.identity["chunkTokens"]
        self.overlap = self.identity["chunkOverlap"]
        self.tokenizer = self.identity["ftsTokenizer"]
        self.use_vectors = embedder is not None and check.vectors_ok and self.identity.get("provider") != "none"
        self.model_tag = self.identity["model"]

    # ------------------------------------------------------------------------------------------
    def run(self) -> SyncReport:
        t0 = time.perf_counter()
        report = SyncReport()
        found = discover(self.workspace, self.settings.extra_paths, allow_hard_links=self.settings.allow_hard_links)
        report.files = len(found.files)
        report.problems.update(found.problems)
        stored = {(r[1], r[2]): (r[0], r[3], r[4], r[5]) for r in self.conn.execute(
            "SELECT id, path, source, hash, mtime, size FROM memory_index_sources")}
        pending: list[_Pending] = []
        touched: list[tuple[float, int, int]] = []
        skipped_paths: set[tuple[str, str]] = set()
        # What was replaced in a file indexed anyway is said again while the file is unchanged.
        repaired = {r[0]: (r[1], r[2], r[3]) for r in self.conn.execute(
            "SELECT path, problem, mtime, size FROM memory_index_problems")}
        for n, src in enumerate(found.files, 1):
            self.progress("scan", n, len(found.files))
            key = (src.path, src.source)
            try:
                st = src.abspath.stat()
            except OSError as exc:
                report.problems[src.path] = f"unreadable: {exc.strerror or exc}"
                continue
            if st.st_size == 0:
                # indexed (as nothing) but worth a word: an empty memory file is often a mistake
                report.problems[src.path] = "empty file; nothing to index"
            old = stored.get(key)
            if old and old[2] == st.st_mtime and old[3] == st.st_size:
                report.unchanged += 1
                if src.path in repaired and repaired[src.path][1:] == (st.st_mtime, st.st_size):
                    report.problems.setdefault(src.path, repaired[src.path][0])
                continue
            text, raw, problem = _read_source(src)
            if problem:
                report.problems[src.path] = problem
            if text is None:
                skipped_paths.add(key)
                continue
            digest = hashlib.sha256(raw).hexdigest()
            if old and old[1] == digest:
                touched.append((st.st_mtime, st.st_size, old[0]))
                report.unchanged += 1
                continue
            chunked = chunk_markdown(text, self.tokens, self.overlap, curated=is_curated(src.path),
                                     whole=src.render is not None)  # a generated description
            pending.append(_Pending(src, digest, st.st_mtime, st.st_size, chunked.units, chunked.windows))
        live = {(f.path, f.source) for f in found.files} - skipped_paths
        removed = [(k, v[0]) for k, v in stored.items() if k not in live]
        vectors = self._vectors_for([c for p in pending for c in p.chunks], report)
        self._write(pending, removed, touched, vectors, report)
        self._fill_missing_vectors(report)
        report.vectors_missing = self.conn.execute(
            "SELECT count(*) FROM memory_index_chunks WHERE embedding IS NULL").fetchone()[0] if self.use_vectors else 0
        self._record_problems(report.problems)
        if report.embedded:
            # Nothing else ever pruned the cache, so it grew without bound; keep its LRU cap here,
            # after the new vectors are stored (read at call time so tests can lower the cap).
            cache.prune(self.agent_conn, cache.MAX_ENTRIES)
        report.seconds = time.perf_counter() - t0
        write_meta(self.conn, "last_sync", {
            "at": int(time.time()), "embedding_error": report.embedding_error,
            "vectors_missing": report.vectors_missing, "seconds": round(report.seconds, 3)})
        return report

    # ------------------------------------------------------------------------------------------
    def _vectors_for(self, chunks: list[Chunk], report: SyncReport) -> dict[str, np.ndarray]:
        """Vectors by chunk hash: from the cache, else embedded now. Empty on provider failure.

        The cache is keyed by the hash of the text the model actually sees (annotation comments
        removed), so chunks that differ only in annotations share one vector."""
        if not self.use_vectors or not chunks:
            return {}
        emb = self.embedder
        assert emb is not None
        inputs = {c.hash: unit_embedding_input(c.text, c.context) for c in chunks}
        key_of = {h: hashlib.sha256(t.encode("utf-8")).hexdigest() for h, t in inputs.items()}
        keys_needed = list(dict.fromkeys(key_of.values()))
        found = cache.lookup(self.agent_conn, emb, keys_needed)
        report.cache_hits += len([k for k in keys_needed if k in found])
        todo: dict[str, str] = {}
        for h, k in key_of.items():
            if k not in found and k not in todo:
                todo[k] = inputs[h]
        if todo:
            keys = list(todo)
            done = 0

            def tick(k: int) -> None:
                nonlocal done
                done += k
                self.progress("embed", done, len(keys))

            self.progress("embed", 0, len(keys))
            try:
                mat = emb.embed_documents([todo[k] for k in keys], progress=tick)
            except EmbeddingError as exc:
                report.embedding_error = str(exc)
                return {h: found[k] for h, k in key_of.items() if k in found}
            fresh = {k: mat[i] for i, k in enumerate(keys)}
            cache.store(self.agent_conn, emb, fresh)
            report.embedded += len(fresh)
            found.update(fresh)
            if emb.dims and not self.identity.get("vectorDims"):
                self.identity["vectorDims"] = emb.dims
        return {h: found[k] for h, k in key_of.items() if k in found}

    def _write(self, pending: list[_Pending], removed, touched, vectors, report: SyncReport) -> None:
        from .identity import write_identity

        now = int(time.time())
        groups: list[list[_Pending]] = []
        size = 0
        for p in pending:
            if not groups or size + len(p.chunks) > WRITE_GROUP_CHUNKS:
                groups.append([])
                size = 0
            groups[-1].append(p)
            size += len(p.chunks)
        written = 0
        total = sum(len(p.chunks) for p in pending)
        for group in groups:
            with transaction(self.conn):  # each source is replaced whole, inside one transaction
                for p in group:
                    self._replace_source(p, vectors, now)
                    written += len(p.chunks)
                    report.changed += 1
            self.progress("write", written, total)
        report.chunks_written = written
        with transaction(self.conn):
            for (path, source), sid in removed:
                self._delete_chunks(path, source)
                self.conn.execute("DELETE FROM memory_index_paths_fts WHERE rowid=?", (sid,))
                self.conn.execute("DELETE FROM memory_index_sources WHERE id=?", (sid,))
                report.removed += 1
            for mtime, fsize, sid in touched:
                self.conn.execute("UPDATE memory_index_sources SET mtime=?, size=? WHERE id=?", (mtime, fsize, sid))
            write_identity(self.conn, self.identity)

    def _delete_chunks(self, path: str, source: str) -> None:
        self.conn.execute("DELETE FROM memory_index_windows WHERE path=? AND source=?", (path, source))
        self.conn.execute(
            "DELETE FROM memory_index_chunks_fts WHERE rowid IN "
            "(SELECT seq FROM memory_index_chunks WHERE path=? AND source=?)", (path, source))
        self.conn.execute("DELETE FROM memory_index_chunks WHERE path=? AND source=?", (path, source))

    def _replace_source(self, p: _Pending, vectors: dict[str, np.ndarray], now: int) -> None:
        src = p.src
        self._delete_chunks(src.path, src.source)
        seen_ids: set[str] = set()
        seqs: list[int | None] = []
        for c in p.chunks:
            cid = chunk_id(src.source, src.path, c)
            if cid in seen_ids:
                seqs.append(None)
                continue  # an identical unit at the same lines cannot occur twice; be safe
            seen_ids.add(cid)
            vec = vectors.get(c.hash)
            self.conn.execute(
                "INSERT INTO memory_index_chunks(id, path, source, start_line, end_line, hash, model, text, "
                "context, embedding, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (cid, src.path, src.source, c.start_line, c.end_line, c.hash, self.model_tag, c.text, c.context,
                 _vec_blob(vec) if vec is not None else None, now))
            seq = self.conn.last_insert_rowid()
            seqs.append(seq)
            self.conn.execute("INSERT INTO memory_index_chunks_fts(rowid, text) VALUES (?, ?)",
                              (seq, segment_for_index(c.index_text, self.tokenizer)))
            # the unit's own entry's annotations, never a neighbour's (reference addendum row 2)
            ann = parse_annotations(c.annotations)
            if not ann.empty:
                self.conn.execute(
                    "INSERT INTO memory_index_chunk_recall_metadata(chunk_id, importance, triggers, project_key, status) "
                    "VALUES (?,?,?,?,?)",
                    (cid, ann.importance, "; ".join(ann.triggers) or None, "; ".join(ann.projects) or None, ann.status))
            # Trust decides: daily notes by their recorded segments, other files "agent" (never "owner").
            prov = chunk_origin(self.agent_conn, self.workspace, src.path, c.start_line, c.end_line, p.hash)
            self.conn.execute(
                "INSERT INTO memory_index_chunk_provenance(chunk_id, origin_class, session_kind, observed_at) "
                "VALUES (?, ?, ?, ?)", (cid, prov.origin, prov.kind,
                                        prov.observed_at // 1000 if prov.observed_at else int(p.mtime)))
        for w in p.windows:
            members = [(seqs[i], vectors.get(p.chunks[i].hash)) for i in range(w.first, w.last + 1)
                       if seqs[i] is not None]
            if members:
                self.conn.execute(
                    "INSERT INTO memory_index_windows(path, source, start_line, end_line, first_seq, last_seq, "
                    "embedding) VALUES (?,?,?,?,?,?,?)",
                    (src.path, src.source, w.start_line, w.end_line, members[0][0], members[-1][0],
                     _mean_blob([v for _, v in members])))
        row = self.conn.execute("SELECT id FROM memory_index_sources WHERE path=? AND source=?",
                                (src.path, src.source)).fetchone()
        if row:
            sid = row[0]
            self.conn.execute("UPDATE memory_index_sources SET hash=?, mtime=?, size=?, indexed_at=? WHERE id=?",
                              (p.hash, p.mtime, p.size, now, sid))
            self.conn.execute("DELETE FROM memory_index_paths_fts WHERE rowid=?", (sid,))
        else:
            self.conn.execute(
                "INSERT INTO memory_index_sources(path, source, hash, mtime, size, indexed_at) VALUES (?,?,?,?,?,?)",
                (src.path, src.source, p.hash, p.mtime, p.size, now))
            sid = self.conn.last_insert_rowid()
        self.conn.execute("INSERT INTO memory_index_paths_fts(rowid, path) VALUES (?, ?)",
                          (sid, path_search_text(src.path, self.tokenizer)))

    def _fill_missing_vectors(self, report: SyncReport) -> None:
        """Embed chunks stored without a vector (an earlier provider failure, or a keyword-only
        index now that a provider is available)."""
        if not self.use_vectors or report.embedding_error:
            return
        rows = self.conn.execute(
            "SELECT seq, hash, text, context FROM memory_index_chunks WHERE embedding IS NULL").fetchall()
        if not rows:
            return
        vectors = self._vectors_for([Chunk(0, 0, t, h, ctx) for _, h, t, ctx in rows], report)
        if not vectors:
            return
        with transaction(self.conn):
            for seq, h, _, _ in rows:
                if h in vectors:
                    self.conn.execute("UPDATE memory_index_chunks SET embedding=?, model=? WHERE seq=?",
                                      (_vec_blob(vectors[h]), self.model_tag, seq))
            self._refresh_window_vectors([r[0] for r in rows])
            from .identity import write_identity

            write_identity(self.conn, self.identity)

    def _refresh_window_vectors(self, seqs: list[int]) -> None:
        """Recompute the mean vector of every window holding one of ``seqs`` (their vectors came late)."""
        if not seqs:
            return
        lo, hi = min(seqs), max(seqs)
        windows = self.conn.execute(
            "SELECT seq, first_seq, last_seq FROM memory_index_windows WHERE last_seq >= ? AND first_seq <= ?",
            (lo, hi)).fetchall()
        import numpy as np

        wanted = set(seqs)
        for wseq, first, last in windows:
            if not any(first <= s <= last for s in wanted):
                continue
            vecs = [np.frombuffer(r[0], dtype=np.float32) for r in self.conn.execute(
                "SELECT embedding FROM memory_index_chunks WHERE seq BETWEEN ? AND ? AND embedding IS NOT NULL",
                (first, last))]
            self.conn.execute("UPDATE memory_index_windows SET embedding=? WHERE seq=?", (_mean_blob(vecs), wseq))

    def _stat_of(self, path: str) -> tuple[float | None, int | None]:
        p = Path(path) if os.path.isabs(path) else self.workspace / path
        try:
            st = p.lstat()
        except OSError:
            return None, None
        return st.st_mtime, st.st_size

    def _record_problems(self, problems: dict[str, str]) -> None:
        now = int(time.time())
        with transaction(self.conn):
            self.conn.execute("DELETE FROM memory_index_problems")
            self.conn.executemany(
                "INSERT INTO memory_index_problems(path, source, problem, seen_at, mtime, size) "
                "VALUES (?, 'memory', ?, ?, ?, ?)",
                [(p, why, now, *self._stat_of(p)) for p, why in sorted(problems.items())])


def path_search_text(path: str, tokenizer: str) -> str:
    """A path as keyword text: its folders and stem split on separators. The extension and the
    leading ``memory/`` are left out: every note has them, so matching them says nothing."""
    body = os.path.splitext(path)[0]
    if body.startswith("memory/"):
        body = body[len("memory/"):]
    parts = " ".join(body.replace("/", " ").replace("-", " ").replace("_", " ").replace(".", " ").split())
    return segment_for_index(parts, tokenizer)
