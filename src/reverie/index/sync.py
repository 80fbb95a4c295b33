"""Incremental sync of the workspace into one index generation, batch by batch.

A full run has two phases. **Files**: every memory file is examined (unchanged sources are skipped
by mtime and size without being read; a source whose bytes hash the same only has its stat
refreshed; a changed source is re-chunked) and written in batches of about 500 chunks, each batch
one transaction holding whole sources, their keyword rows and the vectors the embedding cache
already has. Keyword search sees each batch as soon as it commits. **Vectors**: the chunks still
without a vector are embedded in batches of 64; each batch is stored in the embedding cache and
in the index before the next one starts. A kill therefore loses at most one batch, and the next
run resumes (finished files are skipped, embedded vectors come from the cache).

A provider that fails still leaves the text indexed for keyword search, with vectors missing
(retried on the next sync). A targeted run (:meth:`Syncer.run_paths`) does the same for a few
named files: a note reverie just wrote, or the files a dirty check or the watcher found changed.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import apsw

from ..store import transaction
from ..trust.store import chunk_origin
from ..workspace.annotations import parse_annotations
from ..workspace.files import NotRegularFile, read_regular
from ..workspace.textclean import decode_note
from ..workspace.writes import MAX_ENTRY_BYTES
from . import cache, progress as run_progress, rows
from .chunking import Chunk, Window, chunk_markdown, is_curated
from .discover import SourceFile, discover
from .discover import _refusal as refusal_of  # one rule for what a memory file is
from .identity import compare, read_identity, write_identity, write_meta
from .oversize import read_oversized
from .vector_fill import (VectorFill, _mean_blob, _vec_blob, embedding_input,  # noqa: F401  (API)
                          unit_embedding_input)

if TYPE_CHECKING:  # numpy loads when vectors do (status and get never need it), the providers when chosen
    import numpy as np

    from ..embeddings import Embedder

MAX_FILE_BYTES = 16 * 1024 * 1024
FILE_GROUP = 200           # files whose stored stats are read with one query
WRITE_BATCH_CHUNKS = 500   # chunks per text transaction (keeps the write lock short)
VECTOR_LOG_KEEP = 50_000   # rows of the vector change log kept for readers that refresh incrementally
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
    interrupted: bool = False  # stopped between batches (the process is closing); resumes next run
    unknown: list[str] = field(default_factory=list)  # targeted run: paths not yet known to be memory

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class Control:
    """Hooks a long run calls between batches: serve urgent work, or stop early."""

    between: Callable[["Syncer"], None] = lambda syncer: None
    stopping: Callable[[], bool] = lambda: False
    stage: Callable[[str], None] = lambda name: None  # "vectors": the run embeds from now on
    background: bool = False  # nobody waits for this run: queries go first at the embedder
    quick: bool = False  # embed only if the engine is free now (a note written beside a busy run)
    cached_only: bool = False  # vectors from the embedding cache only, no model call (a one-call process)


@dataclass
class _Pending:
    src: SourceFile
    hash: str
    mtime: float
    size: int
    chunks: list[Chunk]  # the file's units
    windows: list[Window] = field(default_factory=list)


@dataclass
class _Run:
    report: SyncReport
    state: dict | None = None  # the progress row, for full runs
    files_total: int = 0
    files_done: int = 0


def chunk_id(source: str, path: str, chunk: Chunk) -> str:
    raw = f"{source}\0{path}\0{chunk.start_line}\0{chunk.end_line}\0{chunk.hash}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def _read_source(src: SourceFile) -> tuple[str | None, str | None, str | None]:
    """(text, SHA-256 of the file's bytes, problem) for a file. Without text the file is skipped
    and the problem says why; with text and a problem it is indexed and the problem says what was
    replaced (NUL bytes, invalid UTF-8, an oversized entry: one bad segment must not hide the rest
    of a daily note). Only regular files are opened, never blocking: a FIFO named ``*.md`` must
    not hang the sync."""
    if src.render is not None:  # generated text (a table file's description), see discover.py
        text, raw, problem = src.render()
        return text, (hashlib.sha256(raw).hexdigest() if raw is not None else None), problem
    cut: list[tuple[int, int]] = []
    try:
        raw, st = read_regular(src.abspath, max_bytes=MAX_FILE_BYTES, follow_symlinks=False)
        digest = hashlib.sha256(raw).hexdigest() if raw is not None else None
        if raw is None:  # over the limit: maybe a note with one enormous entry (see oversize.py)
            raw, digest, cut = read_oversized(src.abspath, MAX_FILE_BYTES)
    except NotRegularFile as exc:
        return None, None, f"not a regular file ({exc.kind}); skipped"
    except OSError as exc:
        return None, None, f"unreadable: {exc.strerror or exc}"
    if raw is None:
        return None, None, f"too large ({st.st_size:,} bytes > {MAX_FILE_BYTES:,}); not indexed"
    text, problem = decode_note(raw)
    if cut and text is not None:
        left_out = "; ".join(f"line {line:,} ({size:,} bytes)" for line, size in cut[:3])
        more = f" and {len(cut) - 3} more" if len(cut) > 3 else ""
        problem = "; ".join(p for p in (problem, f"entry over {MAX_ENTRY_BYTES:,} bytes not indexed at "
                                                  f"{left_out}{more}; the rest of the file is") if p)
    return text, (digest if text is not None else None), problem


class Syncer(VectorFill):
    def __init__(self, conn: apsw.Connection, agent_conn: apsw.Connection, workspace: Path, settings,
                 embedder: Embedder | None, wanted_identity: dict, progress: Progress | None = None,
                 control: Control | None = None):
        self.conn = conn
        self.agent_conn = agent_conn
        self.workspace = workspace
        self.settings = settings
        self.embedder = embedder
        self.progress = progress or (lambda stage, done, total: None)
        self.control = control or Control()
        self._serving = False
        self._served: set[tuple[str, str]] = set()  # sources indexed by urgent work during this run
        stored = read_identity(conn)
        self.wanted = wanted_identity
        self.identity = dict(stored or wanted_identity)
        check = compare(stored, wanted_identity)
        # Chunking and tokenizer follow what the index was built with, so it stays consistent;
        # vectors are written only when they are comparable with the stored ones.
        self.tokens = self.identity["chunkTokens"]
        self.overlap = self.identity["chunkOverlap"]
        self.tokenizer = self.identity["ftsTokenizer"]
        self.use_vectors = embedder is not None and check.vectors_ok and self.identity.get("provider") != "none"
        self.model_tag = self.identity["model"]

    # -- a full run --------------------------------------------------------------------------------
    def run(self) -> SyncReport:
        t0 = time.perf_counter()
        run = _Run(SyncReport())
        report = run.report
        found = discover(self.workspace, self.settings.extra_paths, allow_hard_links=self.settings.allow_hard_links)
        report.files = run.files_total = len(found.files)
        report.problems.update(found.problems)
        with transaction(self.conn):
            run.state = run_progress.begin(self.conn, len(found.files))
        self.progress("files", 0, len(found.files))
        live: set[tuple[str, str]] = set()
        for g in range(0, len(found.files), FILE_GROUP):
            live |= self._index_files(found.files[g:g + FILE_GROUP], run)
            if self.control.stopping():
                report.interrupted = True
                break
        if not report.interrupted:
            stored = [(r[0], r[1]) for r in self.conn.execute("SELECT path, source FROM memory_index_sources")]
            # a note written and indexed during the run (after discovery) is not a removed file
            self._remove([k for k in stored if k not in live and k not in self._served], report)
            self._fill_vectors(run)
        self._finish_vectors_count(report)
        if not report.interrupted:
            self._record_problems(report.problems)
        if report.embedded:
            # Nothing else ever pruned the cache, so it grew without bound; keep its LRU cap here,
            # after the new vectors are stored (read at call time so tests can lower the cap).
            cache.prune(self.agent_conn, cache.MAX_ENTRIES)
        report.seconds = time.perf_counter() - t0
        with transaction(self.conn):
            if not report.interrupted:
                # the scope (extra paths) is now what the settings say: every file in it was examined
                self.identity["scopeHash"] = self.wanted.get("scopeHash")
                run_progress.update(self.conn, run.state, state="done", phase="done")
                write_meta(self.conn, "last_sync", {
                    "at": int(time.time()), "embedding_error": report.embedding_error,
                    "vectors_missing": report.vectors_missing, "seconds": round(report.seconds, 3)})
            write_identity(self.conn, self.identity)
        self._prune_log()
        return report

    def _prune_log(self) -> None:
        if rows.on_postgres(self.conn):
            return  # no vector log there: no process keeps an in-memory matrix of that index
        # a reader further behind than this reloads its matrix in the background instead
        self.conn.execute("DELETE FROM memory_index_vector_log WHERE id <= "
                          "(SELECT max(id) FROM memory_index_vector_log) - ?", (VECTOR_LOG_KEEP,))

    # -- a targeted run ----------------------------------------------------------------------------
    def run_paths(self, items: list, *, in_scope: bool, vectors: bool = True) -> SyncReport:
        """Index just these files: :class:`SourceFile` entries as discovery made them, or paths
        (workspace-relative, or absolute outside it) of memory notes.

        ``in_scope``: the caller knows the paths are memory files (reverie wrote them); otherwise a
        path the index does not know yet is left for a full run, which applies discovery's rules,
        and is listed in ``report.unknown``. ``vectors``: embed the new chunks now (else they wait
        for a later run).
        """
        t0 = time.perf_counter()
        run = _Run(SyncReport())
        report = run.report
        items = list(dict.fromkeys(items))
        stored = self._stored([i.path if isinstance(i, SourceFile) else i for i in items])
        files: list[SourceFile] = []
        gone: list[tuple[str, str]] = []
        for item in items:
            src = item if isinstance(item, SourceFile) else \
                SourceFile(item, Path(item) if os.path.isabs(item) else self.workspace / item)
            key = (src.path, src.source)
            if src.render is None:
                why = refusal_of(src.abspath, self.settings.allow_hard_links)
                if why or not src.abspath.exists():  # deleted, or no longer a file discovery takes
                    if key in stored:
                        gone.append(key)
                    if why:
                        report.problems[src.path] = why
                    continue
            if key not in stored and not (in_scope or isinstance(item, SourceFile)):
                report.unknown.append(src.path)
                continue
            files.append(src)
        report.files = run.files_total = len(files)
        live = self._index_files(files, run, stored=stored)
        self._served |= live
        self._remove(gone + [(f.path, f.source) for f in files
                             if (f.path, f.source) in stored and (f.path, f.source) not in live], report)
        if vectors:
            self._fill_vectors(run, paths=[f.path for f in files])
        self._finish_vectors_count(report)
        self._record_problems(report.problems, only=[k for k, _ in gone] + [f.path for f in files])
        if self.identity != read_identity(self.conn):  # e.g. the vector size learned just now
            with transaction(self.conn):
                write_identity(self.conn, self.identity)
        self._prune_log()
        report.seconds = time.perf_counter() - t0
        return report

    def run_vectors(self) -> SyncReport:
        """Only embed the chunks that still lack a vector."""
        run = _Run(SyncReport())
        self._fill_vectors(run)
        self._finish_vectors_count(run.report)
        return run.report

    # -- files phase -------------------------------------------------------------------------------
    def _problems(self, paths: list[str]) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for i in range(0, len(paths), 400):
            part = paths[i:i + 400]
            for r in self.conn.execute(f"SELECT path, problem, mtime, size FROM memory_index_problems "
                                       f"WHERE path IN ({','.join('?' * len(part))})", part):
                out[r[0]] = (r[1], r[2], r[3])
        return out

    def _stored(self, keys: list[str]) -> dict[tuple[str, str], tuple]:
        out: dict[tuple[str, str], tuple] = {}
        for i in range(0, len(keys), 400):
            part = keys[i:i + 400]
            marks = ",".join("?" * len(part))
            for r in self.conn.execute(f"SELECT id, path, source, hash, mtime, size FROM memory_index_sources "
                                       f"WHERE path IN ({marks})", part):
                out[(r[1], r[2])] = (r[0], r[3], r[4], r[5])
        return out

    def _index_files(self, files: list[SourceFile], run: _Run, stored: dict | None = None) -> set:
        """Examine ``files`` and commit what changed in batches; returns the keys that stay live."""
        report = run.report
        if stored is None:
            stored = self._stored([f.path for f in files])
        live: set[tuple[str, str]] = set()
        batch: list[_Pending] = []
        touched: list[tuple[float, int, int]] = []
        size = 0
        # What was replaced in a file indexed anyway is said again while the file is unchanged.
        repaired = self._problems([f.path for f in files])
        for src in files:
            key = (src.path, src.source)
            run.files_done += 1
            try:
                st = src.abspath.stat()
            except OSError as exc:
                report.problems[src.path] = f"unreadable: {exc.strerror or exc}"
                live.add(key)  # keep what was indexed: the file may be back on the next run
                continue
            if st.st_size == 0:
                # indexed (as nothing) but worth a word: an empty memory file is often a mistake
                report.problems[src.path] = "empty file; nothing to index"
            old = stored.get(key)
            if old and old[2] == st.st_mtime and old[3] == st.st_size:
                report.unchanged += 1
                live.add(key)
                if src.path in repaired and repaired[src.path][1:] == (st.st_mtime, st.st_size):
                    report.problems.setdefault(src.path, repaired[src.path][0])
                continue
            text, digest, problem = _read_source(src)
            if problem:
                report.problems[src.path] = problem
            if text is None or digest is None:
                continue
            live.add(key)
            if old and old[1] == digest:
                touched.append((st.st_mtime, st.st_size, old[0]))
                report.unchanged += 1
                continue
            chunked = chunk_markdown(text, self.tokens, self.overlap, curated=is_curated(src.path),
                                     whole=src.render is not None)  # a generated description
            batch.append(_Pending(src, digest, st.st_mtime, st.st_size, chunked.units, chunked.windows))
            size += len(batch[-1].chunks)
            if size >= WRITE_BATCH_CHUNKS:
                self._commit(batch, touched, run)
                batch, touched, size = [], [], 0
        self._commit(batch, touched, run)
        return live

    def _commit(self, batch: list[_Pending], touched: list, run: _Run) -> None:
        """One transaction: whole sources with their keyword rows, cached vectors and progress."""
        report = run.report
        if not batch and not touched and run.state is None:
            return
        vectors = self._cached_vectors([c for p in batch for c in p.chunks], report)
        now = int(time.time())
        with transaction(self.conn):  # each source is replaced whole, inside one transaction
            for p in batch:
                self._replace_source(p, vectors, now)
                report.changed += 1
                report.chunks_written += len(p.chunks)
            for mtime, fsize, sid in touched:
                self.conn.execute("UPDATE memory_index_sources SET mtime=?, size=? WHERE id=?", (mtime, fsize, sid))
            if run.state is not None:
                run_progress.update(self.conn, run.state, phase="files",
                                    files={"done": run.files_done, "total": run.files_total})
        if run.state is not None:
            self.progress("files", run.files_done, run.files_total)
        self._between()

    def _remove(self, keys: list[tuple[str, str]], report: SyncReport) -> None:
        for i in range(0, len(keys), WRITE_BATCH_CHUNKS):
            with transaction(self.conn):
                for path, source in keys[i:i + WRITE_BATCH_CHUNKS]:
                    row = self.conn.execute("SELECT id FROM memory_index_sources WHERE path=? AND source=?",
                                            (path, source)).fetchone()
                    rows.delete_chunks(self.conn, path, source)
                    if row:
                        rows.delete_path_keywords(self.conn, row[0])
                        self.conn.execute("DELETE FROM memory_index_sources WHERE id=?", (row[0],))
                    report.removed += 1

    def _replace_source(self, p: _Pending, vectors: dict[str, np.ndarray], now: int) -> None:
        src = p.src
        rows.delete_chunks(self.conn, src.path, src.source)
        seen_ids: set[str] = set()
        kept: list[int] = []  # positions in p.chunks of the units written
        unit_rows, texts, metadata, provenance = [], [], [], []
        for i, c in enumerate(p.chunks):
            cid = chunk_id(src.source, src.path, c)
            if cid in seen_ids:
                continue  # an identical unit at the same lines cannot occur twice; be safe
            seen_ids.add(cid)
            kept.append(i)
            vec = vectors.get(c.hash)
            unit_rows.append((cid, src.path, src.source, c.start_line, c.end_line, c.hash, self.model_tag, c.text,
                              c.context, _vec_blob(vec) if vec is not None else None, now))
            texts.append(c.index_text)
            # the unit's own entry's annotations, never a neighbour's (reference addendum row 2)
            ann = parse_annotations(c.annotations)
            if not ann.empty:
                metadata.append((cid, ann.importance, "; ".join(ann.triggers) or None,
                                 "; ".join(ann.projects) or None, ann.status))
            # Trust decides: daily notes by their recorded segments, other files "agent" (never "owner").
            prov = chunk_origin(self.agent_conn, self.workspace, src.path, c.start_line, c.end_line, p.hash)
            provenance.append((cid, prov.origin, prov.kind,
                               prov.observed_at // 1000 if prov.observed_at else int(p.mtime)))
        seqs: list[int | None] = [None] * len(p.chunks)
        for i, seq in zip(kept, rows.insert_chunks(self.conn, unit_rows, texts, self.tokenizer)):
            seqs[i] = seq
        rows.insert_values(self.conn, "memory_index_chunk_recall_metadata",
                           ("chunk_id", "importance", "triggers", "project_key", "status"), metadata)
        rows.insert_values(self.conn, "memory_index_chunk_provenance",
                           ("chunk_id", "origin_class", "session_kind", "observed_at"), provenance)
        windows = []
        for w in p.windows:
            members = [(seqs[i], vectors.get(p.chunks[i].hash)) for i in range(w.first, w.last + 1)
                       if seqs[i] is not None]
            if members:
                windows.append((src.path, src.source, w.start_line, w.end_line, members[0][0], members[-1][0],
                                _mean_blob([v for _, v in members])))
        rows.insert_windows(self.conn, windows)
        row = self.conn.execute("SELECT id FROM memory_index_sources WHERE path=? AND source=?",
                                (src.path, src.source)).fetchone()
        if row:
            sid = row[0]
            self.conn.execute("UPDATE memory_index_sources SET hash=?, mtime=?, size=?, indexed_at=? WHERE id=?",
                              (p.hash, p.mtime, p.size, now, sid))
        else:
            sid = self.conn.execute(
                "INSERT INTO memory_index_sources(path, source, hash, mtime, size, indexed_at) VALUES (?,?,?,?,?,?) "
                "RETURNING id", (src.path, src.source, p.hash, p.mtime, p.size, now)).fetchone()[0]
        rows.set_path_keywords(self.conn, sid, path_words(src.path), self.tokenizer)

    def _finish_vectors_count(self, report: SyncReport) -> None:
        if self.use_vectors:
            chunks, vectors = run_progress.counts(self.conn)
            report.vectors_missing = chunks - vectors

    def _between(self) -> None:
        if self._serving:
            return
        self._serving = True
        try:
            self.control.between(self)
        finally:
            self._serving = False

    # -- problems ----------------------------------------------------------------------------------
    def _stat_of(self, path: str) -> tuple[float | None, int | None]:
        p = Path(path) if os.path.isabs(path) else self.workspace / path
        try:
            st = p.lstat()
        except OSError:
            return None, None
        return st.st_mtime, st.st_size

    def _record_problems(self, problems: dict[str, str], only: list[str] | None = None) -> None:
        now = int(time.time())
        with transaction(self.conn):
            if only is None:
                self.conn.execute("DELETE FROM memory_index_problems")
            else:
                self.conn.executemany("DELETE FROM memory_index_problems WHERE path=?", [(p,) for p in only])
            self.conn.executemany(
                "INSERT INTO memory_index_problems(path, source, problem, seen_at, mtime, size) "
                "VALUES (?, 'memory', ?, ?, ?, ?) ON CONFLICT (path, source) DO UPDATE SET problem = excluded.problem, "
                "seen_at = excluded.seen_at, mtime = excluded.mtime, size = excluded.size",
                [(p, why, now, *self._stat_of(p)) for p, why in sorted(problems.items())])


def path_words(path: str) -> str:
    """A path as keyword text: its folders and stem split on separators. The extension and the
    leading ``memory/`` are left out: every note has them, so matching them says nothing."""
    body = os.path.splitext(path)[0]
    if body.startswith("memory/"):
        body = body[len("memory/"):]
    return " ".join(body.replace("/", " ").replace("-", " ").replace("_", " ").replace(".", " ").split())
