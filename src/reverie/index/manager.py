"""One agent's search index: its live generation, incremental sync, forced rebuild, dirtiness.

Connections to the live generation are reopened when ``CURRENT`` moves, so a long-lived process
(the MCP server, the watcher) always searches the newest published index.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import apsw

from ..config import SearchSettings
from ..embeddings import Embedder
from ..errors import EmbeddingError, UserError
from ..paths import Places
from ..store import connect
from . import generations
from .discover import discover
from .identity import compare, read_identity, wanted_identity, write_identity
from .schema import AGENT_CACHE_MIGRATIONS, INDEX_MIGRATIONS, ensure_fts
from .sync import Progress, Syncer, SyncReport


def open_agent_db(places: Places) -> apsw.Connection:
    conn = connect(places.agent_db)
    AGENT_CACHE_MIGRATIONS.apply(conn)
    return conn


def _prepare_generation(path: Path, identity: dict) -> apsw.Connection:
    conn = connect(path)
    INDEX_MIGRATIONS.apply(conn)
    ensure_fts(conn, identity["ftsTokenizer"])
    if read_identity(conn) is None:
        write_identity(conn, identity)
    return conn


def _vectors_usable(path: Path, identity: dict) -> bool:
    """Whether the generation at ``path`` holds vectors comparable with ``identity``'s provider."""
    conn = connect(path)
    try:
        if not compare(read_identity(conn), identity).vectors_ok or identity.get("provider") == "none":
            return False
        return conn.execute("SELECT 1 FROM memory_index_chunks WHERE embedding IS NOT NULL LIMIT 1").fetchone() is not None
    finally:
        conn.close()


@dataclass
class DirtyState:
    dirty: bool
    new: int = 0
    changed: int = 0
    removed: int = 0

    def as_dict(self) -> dict:
        return {"dirty": self.dirty, "new": self.new, "changed": self.changed, "removed": self.removed}


class MemoryIndex:
    def __init__(self, places: Places, settings: SearchSettings, embedder: Embedder | None):
        self.places = places
        self.settings = settings
        self.embedder = embedder
        self._conn: apsw.Connection | None = None
        self._gen: str | None = None
        self._lock = threading.RLock()

    @property
    def index_dir(self) -> Path:
        return self.places.index_dir

    def wanted_identity(self) -> dict:
        return wanted_identity(self.settings, self.embedder)

    # -- connections ------------------------------------------------------------------------
    def _ensure_generation(self) -> Path:
        path = generations.current_path(self.index_dir)
        if path is not None:
            return path
        with generations.lock(self.index_dir, "rebuild"):
            path = generations.current_path(self.index_dir)
            if path is None:  # first use: an empty generation with the identity of today's settings
                path = generations.new_generation_path(self.index_dir)
                _prepare_generation(path, self.wanted_identity()).close()
                generations.publish(self.index_dir, path)
        return path

    def conn(self) -> apsw.Connection:
        """A connection to the live generation, reopened if a rebuild published a new one."""
        with self._lock:
            name = generations.current_name(self.index_dir)
            if self._conn is None or name != self._gen:
                path = self._ensure_generation()
                # the old connection is dropped, not closed: a search may still be reading it (it
                # closes when the last reference goes; the unlinked file stays readable till then)
                self._conn = connect(path)
                INDEX_MIGRATIONS.apply(self._conn)
                self._gen = path.name
            return self._conn

    @property
    def generation(self) -> str | None:
        self.conn()
        return self._gen

    def snapshot(self) -> tuple[apsw.Connection, str]:
        """The live connection and its generation name, taken together (a search reads one)."""
        with self._lock:
            conn = self.conn()
            return conn, self._gen or ""

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
                self._gen = None

    # -- writing ----------------------------------------------------------------------------
    def sync(self, progress: Progress | None = None, *, blocking: bool = True) -> SyncReport | None:
        """Bring the live generation up to date. With ``blocking=False``, returns None at once
        when another sync or rebuild holds the lock."""
        with generations.lock(self.index_dir, "sync", blocking=blocking) as got:
            if not got:
                return None
            path = self._ensure_generation()
            conn = connect(path)
            agent = open_agent_db(self.places)
            try:
                INDEX_MIGRATIONS.apply(conn)
                ensure_fts(conn, (read_identity(conn) or self.wanted_identity())["ftsTokenizer"])
                return Syncer(conn, agent, self.places.workspace, self.settings, self.embedder,
                              self.wanted_identity(), progress).run()
            finally:
                conn.close()
                agent.close()

    def rebuild(self, progress: Progress | None = None) -> SyncReport:
        """Build a fresh generation from the files (reusing cached vectors) and publish it.

        Searches keep using the old generation until the new one is complete; a failure or a
        kill leaves the old generation live.
        """
        with generations.lock(self.index_dir, "sync"), generations.lock(self.index_dir, "rebuild"):
            keep = generations.current_name(self.index_dir)
            generations.discard_others(self.index_dir, keep)  # leftovers of a killed rebuild
            path = generations.new_generation_path(self.index_dir)
            identity = self.wanted_identity()
            conn = _prepare_generation(path, identity)
            agent = open_agent_db(self.places)
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

    # -- reading ----------------------------------------------------------------------------
    def identity_check(self, conn: apsw.Connection | None = None):
        return compare(read_identity(conn or self.conn()), self.wanted_identity())

    def stored_identity(self, conn: apsw.Connection | None = None) -> dict | None:
        return read_identity(conn or self.conn())

    def dirty_state(self) -> DirtyState:
        """Cheap: compares file stats with what the index recorded; reads no file content."""
        conn = self.conn()
        stored = {(r[0], r[1]): (r[2], r[3]) for r in conn.execute(
            "SELECT path, source, mtime, size FROM memory_index_sources")}
        problems = {r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT path, mtime, size FROM memory_index_problems")}
        found = discover(self.places.workspace, self.settings.extra_paths,
                         allow_hard_links=self.settings.allow_hard_links)
        new = changed = 0
        live = set()
        for f in found.files:
            key = (f.path, f.source)
            live.add(key)
            old = stored.get(key)
            try:
                st = f.abspath.stat()
            except OSError:
                continue
            if old is None:
                # a file skipped as a problem counts as new again once it changes (it may be fixed)
                if f.path not in problems or problems[f.path] != (st.st_mtime, st.st_size):
                    new += 1
                continue
            if (st.st_mtime, st.st_size) != old:
                changed += 1
        removed = sum(1 for k in stored if k not in live)
        has_meta = read_identity(conn) is not None
        dirty = bool(new or changed or removed) or not has_meta
        return DirtyState(dirty, new, changed, removed)

    def revision(self, conn: apsw.Connection | None = None) -> int:
        return (conn or self.conn()).execute("SELECT revision FROM memory_index_state WHERE id=1").fetchone()[0]

    def has_chunks(self) -> bool:
        return self.conn().execute("SELECT 1 FROM memory_index_chunks LIMIT 1").fetchone() is not None

    def chunk_count(self) -> int:
        return self.conn().execute("SELECT count(*) FROM memory_index_chunks").fetchone()[0]


def require_workspace(places: Places) -> None:
    if not places.workspace.exists():
        raise UserError(f"workspace {places.workspace} does not exist; run: reverie init")
