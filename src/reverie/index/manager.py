"""One agent's search index: its live generation, syncs (full, targeted, background), forced
rebuild, dirtiness, and repair of a damaged generation.

Connections to the live generation are reopened when ``CURRENT`` moves, so a long-lived process
(the MCP server, the watcher) always searches the newest published index. A generation that
cannot be read (garbage, truncated, a ``CURRENT`` that is binary or names a missing file) is
replaced by a fresh one, which the next sync fills from the files: the index is derived, and the
embedding cache (in the agent database) makes the rebuild cheap.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import apsw

from ..config import SearchSettings
from ..errors import EmbeddingError, UserError
from ..paths import Places
from ..store import connect, transaction
from . import generations, rows
from .background import BackgroundSync, UrgentQueue, UrgentRequest
from .discover import SourceFile, discover
from . import progress as run_progress
from .identity import compare, read_identity, read_meta, wanted_identity, write_identity, write_meta
from .schema import AGENT_CACHE_MIGRATIONS, INDEX_MIGRATIONS, ensure_fts
from .sync import Control, Progress, Syncer, SyncReport

if TYPE_CHECKING:  # the providers' package loads when one is chosen (Memory.embedder)
    from ..embeddings import Embedder

# What SQLite raises for a file that is not (or no longer) a readable database.
DAMAGED = (apsw.CorruptError, apsw.NotADBError)
REPAIR_ACTION = "reverie index --force"
FIRST_GENERATION_WAIT = 2.0  # seconds a search waits for the first generation another holder is creating
# On PostgreSQL the index is the agent's rows in the shared database, not generation files: one
# live "generation", rebuilt in one transaction (readers keep the old rows until it commits).
PG_GENERATION = "postgres"


class IndexUnavailable(UserError):
    """The index cannot be read right now (damaged while a rebuild elsewhere is replacing it)."""


def open_agent_db(places: Places, store=None) -> apsw.Connection:
    """The agent database (embedding cache, provenance): ``store`` (the storage seam's
    :class:`~reverie.store.AgentDatabase`, either engine) or the SQLite file of ``places``."""
    conn = connect(store if store is not None else places.agent_db)
    AGENT_CACHE_MIGRATIONS.apply(conn)
    return conn


def _prepare_generation(path: Path, identity: dict) -> apsw.Connection:
    conn = connect(path)
    INDEX_MIGRATIONS.apply(conn)
    ensure_fts(conn, identity["ftsTokenizer"])
    if read_identity(conn) is None:
        write_identity(conn, identity)
    return conn


def _holds_usable_vectors(conn, identity: dict) -> bool:
    if not compare(read_identity(conn), identity).vectors_ok or identity.get("provider") == "none":
        return False
    return conn.execute("SELECT 1 FROM memory_index_chunks WHERE embedding IS NOT NULL LIMIT 1").fetchone() is not None


def _vectors_usable(path: Path, identity: dict) -> bool:
    """Whether the generation at ``path`` holds vectors comparable with ``identity``'s provider."""
    try:
        conn = connect(path)
        try:
            return _holds_usable_vectors(conn, identity)
        finally:
            conn.close()
    except (*DAMAGED, apsw.SQLError):  # a damaged live generation is worth replacing
        return False


def _pg_prepare(conn, identity: dict) -> None:
    """The agent's index rows exist (its counters row and identity) on PostgreSQL."""
    with transaction(conn):
        conn.execute("INSERT OR IGNORE INTO memory_index_state(id) VALUES (1)")
        if read_identity(conn) is None:
            write_identity(conn, identity)


@dataclass
class DirtyState:
    dirty: bool
    new: int = 0
    changed: int = 0
    removed: int = 0
    paths: list = field(default_factory=list)  # the new and changed sources, as discovery made them

    def as_dict(self) -> dict:
        return {"dirty": self.dirty, "new": self.new, "changed": self.changed, "removed": self.removed}


class MemoryIndex:
    def __init__(self, places: Places, settings: SearchSettings, embedder: Embedder | None, *,
                 resolve: Callable[[], Embedder | None] | None = None, agent_store=None):
        """``resolve``: load the embedder only when first needed (a note's text can be indexed
        without it); ``embedder`` is then ignored."""
        self.places = places
        self.agent_store = agent_store  # where the cache and provenance live (None: places.agent_db)
        self.settings = settings
        self._embedder = embedder
        self._resolve = resolve
        self._conn: apsw.Connection | None = None
        self._gen: str | None = None
        self._lock = threading.RLock()
        self.urgent = UrgentQueue()
        self.background = BackgroundSync(self._background_turn)
        self.pending_writes: set[str] = set()  # our own notes not indexed yet (the lock was busy)
        self.repaired: str | None = None  # why this process replaced a damaged generation
        self.clean_since = 0.0  # monotonic start of the last full or dirty-file sync that completed
        self._discovery: tuple[dict[str, float | None], list] | None = None
        self.pg = agent_store is not None and getattr(agent_store, "engine", "sqlite") == "postgres"
        self._pg_ready = False
        # False in a process that answers one call and exits (a host's hook): its background sync
        # indexes the text and leaves the vectors to a long-lived process or the next search that
        # embeds anyway. Loading the model for a note or two cost each such hook 150-250 ms, since
        # closing waits for the batch in flight.
        self.embeds_in_background = True

    @property
    def embedder(self) -> Embedder | None:
        if self._resolve is not None:
            self._embedder, self._resolve = self._resolve(), None
        return self._embedder

    @property
    def embedder_ready(self) -> bool:
        """Whether the embedder is loaded already (using it now costs no model load)."""
        return self._resolve is None

    @property
    def index_dir(self) -> Path:
        return self.places.index_dir

    def wanted_identity(self) -> dict:
        return wanted_identity(self.settings, self.embedder)

    # -- connections ------------------------------------------------------------------------
    def _ensure_generation(self, *, blocking: bool = True, wait: float = 0.0) -> Path:
        if self.pg:
            if not self._pg_ready:
                conn = self.agent_store.connect_index()
                try:
                    _pg_prepare(conn, self.wanted_identity())
                finally:
                    conn.close()
                self._pg_ready = True
            return PG_GENERATION  # (a name, not a file: _open knows)
        path = generations.current_path(self.index_dir)
        if path is not None:
            return path
        # before the lock: resolving the embedder may load a model, and a search in another thread
        # waits for this lock only briefly
        wanted = self.wanted_identity()
        with generations.lock(self.index_dir, "rebuild", blocking=blocking, wait=wait) as got:
            if not got:
                raise IndexUnavailable(f"the search index is being rebuilt by another process; "
                                       f"search again when it finishes (or run: {REPAIR_ACTION})")
            path = generations.current_path(self.index_dir)
            if path is None:  # first use, or CURRENT unreadable: a fresh generation, filled by a sync
                path = generations.new_generation_path(self.index_dir)
                _prepare_generation(path, wanted).close()
                generations.publish(self.index_dir, path)
        return path

    def _open(self, path: Path) -> apsw.Connection:
        if self.pg:
            return self.agent_store.connect_index()
        conn = connect(path)
        try:
            INDEX_MIGRATIONS.apply(conn)
            conn.execute("SELECT revision FROM memory_index_state WHERE id=1").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    def conn(self) -> apsw.Connection:
        """A connection to the live generation, reopened if a rebuild published a new one."""
        with self._lock:
            name = PG_GENERATION if self.pg else generations.current_name(self.index_dir)
            if self._conn is None or name != self._gen:
                # a first generation being made (by a sync starting here or elsewhere) takes a moment
                path = self._ensure_generation(blocking=False, wait=FIRST_GENERATION_WAIT)
                try:
                    conn = self._open(path)
                except DAMAGED as exc:
                    path = self.repair(f"{path.name}: {exc}")
                    conn = self._open(path)
                # the old connection is dropped, not closed: a search may still be reading it (it
                # closes when the last reference goes; the unlinked file stays readable till then)
                self._conn = conn
                self._gen = getattr(path, "name", path)
            return self._conn

    def repair(self, reason: str) -> Path:
        """Replace a damaged live generation by a fresh, empty one (the next sync fills it from the
        files) and say why in its metadata; returns the new generation's path."""
        with self._lock, generations.lock(self.index_dir, "rebuild", blocking=False) as got:
            if not got:
                raise IndexUnavailable(f"the search index is damaged ({reason}) and another process is "
                                       f"rebuilding it; search again when it finishes (or run: {REPAIR_ACTION})")
            path = generations.new_generation_path(self.index_dir)
            conn = _prepare_generation(path, self.wanted_identity())
            try:
                with transaction(conn):
                    write_meta(conn, "repaired", {"at": int(time.time()), "reason": reason})
            finally:
                conn.close()
            generations.publish(self.index_dir, path)  # the damaged file goes with the others
            self._conn, self._gen = None, None
            self.repaired = reason
            return path

    @property
    def generation(self) -> str | None:
        self.conn()
        return self._gen

    def snapshot(self) -> tuple[apsw.Connection, str]:
        """The live connection and its generation name, taken together (a search reads one)."""
        with self._lock:
            conn = self.conn()
            return conn, self._gen or ""

    def close(self, timeout: float = 5.0) -> None:
        """Stop background work (it stops between two batches; what it committed stays)."""
        self.background.stop.set()
        if self.background.wait(timeout):
            self.background.stop.clear()  # stopped: this index may be used again later
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
                self._gen = None

    # -- writing ----------------------------------------------------------------------------
    def _locked_run(self, work: Callable[[Syncer], SyncReport], *, blocking: bool, progress: Progress | None = None,
                    background: bool = False, use_embedder: bool = True, stoppable: bool = False,
                    cached_only: bool = False) -> SyncReport | None:
        """Run ``work`` on a Syncer of the live generation under the sync lock; None when
        ``blocking`` is off and the lock is held elsewhere. A damaged generation is replaced and
        the work runs once more, on the fresh one."""
        control = Control(between=self.urgent.serve, background=background, stage=self.urgent.set_stage,
                          stopping=self.background.stop.is_set if stoppable else (lambda: False),
                          cached_only=cached_only)
        for attempt in (1, 2):
            with generations.lock(self.index_dir, "sync", blocking=blocking) as got:
                if not got:
                    return None
                path = self._ensure_generation()
                try:
                    return self._run_on(path, work, progress, control, use_embedder)
                except DAMAGED as exc:
                    if attempt == 2:
                        raise
                    reason = f"{path.name}: {exc}"
            self.repair(reason)  # outside the sync lock: repair takes the rebuild lock
        return None

    def _run_on(self, path: Path, work, progress, control: Control, use_embedder: bool, *,
                register: bool = True) -> SyncReport:
        conn = self._open(path)
        agent = open_agent_db(self.places, self.agent_store)
        syncer = None
        if register:
            self.urgent.enter()
        try:
            stored = read_identity(conn)
            if not self.pg:
                ensure_fts(conn, (stored or wanted_identity(self.settings, None))["ftsTokenizer"])
            # a targeted run without the embedder keeps the stored identity as it is
            emb = self.embedder if use_embedder else None
            wanted = self.wanted_identity() if use_embedder else (stored or wanted_identity(self.settings, None))
            syncer = Syncer(conn, agent, self.places.workspace, self.settings, emb, wanted, progress, control)
            report = work(syncer)
            rows.settle(self.agent_store, report.chunks_written if report is not None else 0)
            return report
        finally:
            try:
                if register:
                    self.urgent.leave(syncer)
            finally:
                conn.close()
                agent.close()

    def sync(self, progress: Progress | None = None, *, blocking: bool = True) -> SyncReport | None:
        """Bring the live generation up to date (a full run). With ``blocking=False``, returns None
        at once when another sync or rebuild holds the lock."""
        started = time.monotonic()
        report = self._locked_run(lambda s: s.run(), blocking=blocking, progress=progress)
        self._covered(report, started)
        return report

    def _covered(self, report: SyncReport | None, started: float) -> None:
        if report is not None and not report.interrupted:
            self.clean_since = max(self.clean_since, started)

    def sync_paths(self, keys: list[str], *, in_scope: bool, wait: float = 0.75) -> SyncReport | None:
        """Index these files now (text at once; vectors too when the embedder is loaded and local),
        waiting at most ``wait`` seconds for the sync lock. None when the lock stayed busy."""
        vectors = self.embedder_ready and self.embedder is not None and not self.embedder.remote
        req = UrgentRequest(list(keys), in_scope, vectors)
        deadline = time.monotonic() + wait
        while True:
            beside = self._writable_beside()
            if beside:
                # The holder does not write this generation's text now (a full run that only
                # embeds, and takes new chunks too; or a rebuild into a new generation): write the
                # note's text beside it. After a rebuild the new generation may lack the note:
                # it stays pending, so this process's next search re-syncs it.
                self.urgent.withdraw(req)
                report = self._run_on(self._ensure_generation(), lambda s: s.run_paths(
                    req.keys, in_scope=in_scope, vectors=vectors), None, Control(quick=True), vectors,
                    register=False)
                if beside == "rebuild":
                    self.pending_writes.update(keys)
                    return report
                break
            if self.urgent.offer(req):  # a run of this process holds the lock: it serves us next
                if req.done.wait(max(0.0, min(0.05, deadline - time.monotonic()))):
                    if req.error is not None:
                        raise req.error
                    report = req.report
                    break
            else:
                report = self._locked_run(lambda s: s.run_paths(req.keys, in_scope=in_scope, vectors=vectors),
                                          blocking=False, use_embedder=vectors)
                if report is not None:
                    break
                time.sleep(0.02)
            if time.monotonic() >= deadline:
                self.urgent.withdraw(req)
                return None
        self.pending_writes.difference_update(keys)
        return report

    def _writable_beside(self) -> str | None:
        """Why a note's text may be written to the live generation without the sync lock:
        "vectors" when the lock is held by a full run past its files (here, or in another process
        whose progress row says so), "rebuild" when a rebuild holds it; None otherwise."""
        if self.urgent.active:
            return "vectors" if self.urgent.stage == "vectors" else None
        if not generations.is_held(self.index_dir, "sync"):
            return None
        if generations.is_held(self.index_dir, "rebuild"):
            # on PostgreSQL the rebuild is one transaction holding the index's lock: a note's rows
            # would wait for all of it, so the note stays pending (the next search syncs it)
            return None if self.pg else "rebuild"
        meta = read_meta(self.conn(), run_progress.KEY) or {}
        return "vectors" if meta.get("state") == "running" and meta.get("phase") == "vectors" else None

    def sync_in_background(self, *, full: bool = False, paths=(), vectors: bool = False) -> None:
        """Ask the background thread for a full run, a targeted run of ``paths`` and/or a vector fill."""
        self.background.request(full=full, paths=paths, vectors=vectors)

    def _background_turn(self, kind: str, arg) -> SyncReport | None:
        def files_done(stage: str, done: int, total: int) -> None:
            if stage == "vectors":
                self.background.files_ready.set()

        started = time.monotonic()
        # a one-call process takes what the embedding cache holds and calls no model (see _embeds_now)
        cached_only = not self._embeds_now()
        if kind == "full":
            report = self._locked_run(lambda s: s.run(), blocking=False, progress=files_done, background=True,
                                      stoppable=True, cached_only=cached_only)
            self._covered(report, started)
            return report
        if kind == "paths":
            report = self._locked_run(lambda s: s.run_paths(arg, in_scope=True), blocking=False, background=True,
                                      stoppable=True, cached_only=cached_only)
            if report is not None:
                self.pending_writes.difference_update(arg)
            self._covered(report, started)
            return report
        return self._locked_run(lambda s: s.run_vectors(), blocking=False, background=True, stoppable=True,
                                cached_only=cached_only)

    def fill_vectors_now(self) -> SyncReport | None:
        """Embed the chunks that lack a vector, in this thread; None when the sync lock is held
        (whoever holds it fills them)."""
        return self._locked_run(lambda s: s.run_vectors(), blocking=False)

    def _embeds_now(self) -> bool:
        """Whether background work may call the model: always in a long-lived process; in a one-call
        process only when the model is loaded already or the provider is remote (nothing to load),
        or when no full run ever finished on the index (a first build leaves every chunk to embed:
        more than a search would catch up on). Otherwise vectors come from the embedding cache only
        (an edited note keeps the vectors of its unchanged entries) and the rest wait."""
        if self.embeds_in_background:
            return True
        emb = self.embedder  # resolves the provider; the local model itself loads on first use only
        if emb is None or emb.remote or getattr(emb, "loaded", True):
            return True
        try:
            return read_meta(self.conn(), "last_sync") is None  # no full run ever finished here
        except Exception:
            return True

    def rebuild(self, progress: Progress | None = None) -> SyncReport:
        """Build a fresh generation from the files (reusing cached vectors) and publish it.

        Searches keep using the old generation until the new one is complete; a failure or a
        kill leaves the old generation live.
        """
        if self.pg:
            return self._pg_rebuild(progress)
        with generations.lock(self.index_dir, "sync"), generations.lock(self.index_dir, "rebuild"):
            keep = generations.current_name(self.index_dir)
            generations.discard_others(self.index_dir, keep)  # leftovers of a killed rebuild
            path = generations.new_generation_path(self.index_dir)
            identity = self.wanted_identity()
            conn = _prepare_generation(path, identity)
            agent = open_agent_db(self.places, self.agent_store)
            try:
                report = Syncer(conn, agent, self.places.workspace, self.settings, self.embedder,
                                identity, progress).run()
                # A provider outage must not make a forced rebuild swap a live generation whose
                # vectors work with this provider for one without vectors: keep the old one live.
                if report.embedding_error and keep and _vectors_usable(self.index_dir / keep, identity):
                    raise EmbeddingError(f"rebuild not published, the previous index stays live: "
                                         f"{report.embedding_error}")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except BaseException:
                conn.close()
                agent.close()
                generations.discard_others(self.index_dir, keep)
                raise
            conn.close()
            agent.close()
            generations.publish(self.index_dir, path)
            return report

    def _pg_rebuild(self, progress: Progress | None) -> SyncReport:
        """PostgreSQL: the agent's index rows made again from the files in one transaction; other
        processes' searches read the old rows until it commits, and a failure or a kill (the
        server rolls back a transaction whose connection is gone) leaves them as they were."""
        from ..store.postgres.schema import SEARCH_INDEX_TABLES  # PostgreSQL's DDL: only a rebuild there reads it

        with generations.lock(self.index_dir, "sync"), generations.lock(self.index_dir, "rebuild"):
            identity = self.wanted_identity()
            conn = self.agent_store.connect_index()
            agent = open_agent_db(self.places, self.agent_store)
            try:
                had_vectors = _holds_usable_vectors(conn, identity)
                with transaction(conn):
                    conn.execute("SELECT set_config('reverie.index_bulk', 'on', true)")
                    for table in SEARCH_INDEX_TABLES:
                        conn.execute(f"DELETE FROM {table}")
                    conn.execute("SELECT set_config('reverie.index_bulk', 'off', true)")
                    conn.execute("INSERT INTO memory_index_state(id) VALUES (1)")
                    write_identity(conn, identity)
                    report = Syncer(conn, agent, self.places.workspace, self.settings, self.embedder,
                                    identity, progress).run()
                    if report.embedding_error and had_vectors:
                        raise EmbeddingError(f"rebuild not committed, the previous index stays live: "
                                             f"{report.embedding_error}")
                rows.settle(self.agent_store, report.chunks_written)
            finally:
                conn.close()
                agent.close()
            self._pg_ready = True
            return report

    # -- reading ----------------------------------------------------------------------------
    def identity_check(self, conn: apsw.Connection | None = None):
        return compare(read_identity(conn or self.conn()), self.wanted_identity())

    def stored_identity(self, conn: apsw.Connection | None = None) -> dict | None:
        return read_identity(conn or self.conn())

    def _discover(self) -> list:
        """The memory files, as discovery finds them; its last answer is reused while none of the
        folders it walked changed (adding, removing or renaming a file changes its folder's
        mtime), which turns a dirty check of 20,000 notes from a second into a tenth of one."""
        cached = self._discovery
        if cached is not None and all(_mtime(d) == m for d, m in cached[0].items()):
            return cached[1]
        roots = [self.places.workspace]
        for entry in self.settings.extra_paths:
            raw = Path(entry if isinstance(entry, str) else entry.path).expanduser()
            roots.append(raw if raw.is_absolute() else self.places.workspace / raw)
        before = {d: _mtime(d) for d in _folders(roots)}  # before the walk: a change during it shows next time
        files = discover(self.places.workspace, self.settings.extra_paths,
                         allow_hard_links=self.settings.allow_hard_links).files
        self._discovery = (before, files)
        return files

    def dirty_state(self) -> DirtyState:
        """Cheap: compares file stats with what the index recorded; reads no file content."""
        conn = self.conn()
        stored = {(r[0], r[1]): (r[2], r[3]) for r in conn.execute(
            "SELECT path, source, mtime, size FROM memory_index_sources")}
        problems = {r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT path, mtime, size FROM memory_index_problems")}
        new: list[SourceFile] = []
        changed: list[SourceFile] = []
        live = set()
        for f in self._discover():
            key = (f.path, f.source)
            live.add(key)
            old = stored.get(key)
            try:
                st = os.stat(f.abspath)
            except OSError:
                continue
            if old is None:
                # a file skipped as a problem counts as new again once it changes (it may be fixed)
                if f.path not in problems or problems[f.path] != (st.st_mtime, st.st_size):
                    new.append(f)
                continue
            if (st.st_mtime, st.st_size) != old:
                changed.append(f)
        removed = [k for k in stored if k not in live]
        has_meta = read_identity(conn) is not None
        dirty = bool(new or changed or removed) or not has_meta
        return DirtyState(dirty, len(new), len(changed), len(removed), new + changed)

    def revision(self, conn: apsw.Connection | None = None) -> int:
        return (conn or self.conn()).execute("SELECT revision FROM memory_index_state WHERE id=1").fetchone()[0]

    def has_chunks(self) -> bool:
        return self.conn().execute("SELECT 1 FROM memory_index_chunks LIMIT 1").fetchone() is not None

    def chunk_count(self) -> int:
        return self.conn().execute("SELECT count(*) FROM memory_index_chunks").fetchone()[0]


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def _folders(roots: list[Path]) -> list[str]:
    """Every folder under ``roots`` (symlinks not followed), the roots included even if missing."""
    out: list[str] = []
    for root in roots:
        out.append(str(root))
        if root.is_dir() and not root.is_symlink():
            for dirpath, dirnames, _ in os.walk(root, followlinks=False):
                out.extend(os.path.join(dirpath, d) for d in dirnames)
    return out


def require_workspace(places: Places) -> None:
    if not places.workspace.exists():
        raise UserError(f"workspace {places.workspace} does not exist; run: reverie init")
