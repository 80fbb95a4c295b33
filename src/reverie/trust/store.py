"""Daily provenance records in the agent database, and the two ways they change.

* :func:`daily_guard` wraps a reverie append (``workspace.writes.append_text`` calls it under the
  file lock, right before writing): in one ``BEGIN IMMEDIATE`` transaction it reconciles the
  record with the file as it is, adds the segment for the new bytes, lets the bytes be written and
  commits. Holding the transaction across the write means a reader that reconciles (the indexer)
  never sees the new bytes without their segment, so a concurrent sync cannot mistake reverie's
  own append for an outside edit. A crash after the write and before the commit leaves bytes with
  no segment: they read as an outside append (``untrusted``), the safe side.
* :func:`file_origins` reconciles a file with its record (re-reading it inside the transaction)
  and answers the origin of any line range; files that are not daily notes are ``agent``.

Daily files first seen without a record were either there before reverie recorded provenance
(last modified before ``installed_at``: ``agent``, like any workspace file) or written outside
reverie (``untrusted``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ContextManager, Iterator

import apsw

from ..store import Migration, Migrations, connect, transaction
from . import segments as seg
from .classes import Provenance


def _warn(message: str, *args) -> None:
    import logging  # only when something goes wrong: ~7 ms of every cold write otherwise

    logging.getLogger(__name__).warning(message, *args)


DAILY_RE = re.compile(r"^memory/\d{4}-\d{2}-\d{2}(?:-[^/]+)?\.md$")

_CLASS_CHECK = "('owner', 'agent', 'untrusted', 'system')"
_KIND_CHECK = "('interactive', 'cron', 'heartbeat', 'subagent', 'unknown')"


def _install(conn: apsw.Connection) -> None:
    conn.execute(f"""
CREATE TABLE memory_daily_provenance (
  path TEXT PRIMARY KEY,                    -- workspace-relative POSIX path
  content_hash TEXT NOT NULL,               -- sha256 of the file as last reconciled
  size INTEGER NOT NULL,
  floor_class TEXT CHECK (floor_class IS NULL OR floor_class IN {_CLASS_CHECK}),
  updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE memory_daily_segments (
  path TEXT NOT NULL REFERENCES memory_daily_provenance(path) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  start_offset INTEGER NOT NULL,
  end_offset INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  origin_class TEXT NOT NULL CHECK (origin_class IN {_CLASS_CHECK}),
  session_kind TEXT NOT NULL CHECK (session_kind IN {_KIND_CHECK}),
  session_id TEXT,
  writer TEXT NOT NULL,
  observed_at INTEGER NOT NULL,             -- epoch ms
  line_hashes TEXT NOT NULL,                -- JSON list, one short sha256 per line
  PRIMARY KEY (path, ordinal)
) STRICT;
CREATE INDEX memory_daily_segments_session ON memory_daily_segments(session_id) WHERE session_id IS NOT NULL;
CREATE TABLE trust_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
""")
    conn.execute("INSERT INTO trust_meta(key, value) VALUES ('installed_at', ?)", (repr(file_clock(conn)),))


def file_clock(conn: apsw.Connection) -> float:
    """Now, as the file system stamps it. ``installed_at`` is compared with files' mtimes, which the
    kernel takes from a coarse clock lagging ``time.time()`` by up to a tick (4-10 ms): read from the
    fine clock, a file written just after the install could carry an mtime just before it and pass
    for a file from before (CI saw it once). The mtime of a file written now is on the files' own clock;
    a note stamped in the very tick of the install reads as an outside write, the safe side."""
    folder = None
    with contextlib.suppress(Exception):
        name = conn.filename if getattr(conn, "engine", "sqlite") == "sqlite" else ""
        folder = Path(name).parent if name else None
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".reverie-clock-") as probe:
            return os.fstat(probe.fileno()).st_mtime
    except OSError:
        return time.time()


TRUST_MIGRATIONS = Migrations("trust", [Migration("0001_daily_provenance", _install)])


def open_trust_db(path: Path | str) -> apsw.Connection:
    conn = connect(path)
    TRUST_MIGRATIONS.apply(conn)
    return conn


def tracked(rel_path: str) -> bool:
    """Whether a file gets a provenance record: daily notes and session notes (dated files)."""
    return DAILY_RE.match(rel_path) is not None


def now_ms() -> int:
    return int(time.time() * 1000)


def installed_at(conn: apsw.Connection) -> float:
    row = conn.execute("SELECT value FROM trust_meta WHERE key = 'installed_at'").fetchone()
    if row is None and getattr(conn, "engine", "sqlite") == "postgres":
        # the shared schema migrates once for every agent: an agent's install is its first look here
        conn.execute("INSERT OR IGNORE INTO trust_meta(key, value) VALUES ('installed_at', ?)", (repr(file_clock(conn)),))
        row = conn.execute("SELECT value FROM trust_meta WHERE key = 'installed_at'").fetchone()
    return float(row[0]) if row else 0.0


# -- records <-> rows -----------------------------------------------------------------------------
def load(conn: apsw.Connection, rel: str) -> seg.Record | None:
    head = conn.execute("SELECT content_hash, size, floor_class FROM memory_daily_provenance WHERE path = ?",
                        (rel,)).fetchone()
    if head is None:
        return None
    rows = conn.execute(
        "SELECT start_offset, end_offset, content_hash, origin_class, session_kind, session_id, writer, "
        "observed_at, line_hashes FROM memory_daily_segments WHERE path = ? ORDER BY ordinal", (rel,)).fetchall()
    segs = []
    for start, end, h, origin, kind, sid, writer, obs, lines in rows:
        try:
            hashes = json.loads(lines)
        except ValueError:
            hashes = []  # an unreadable row makes the record fail verification: least trusted class
        segs.append(seg.Segment(start, end, h, seg.Writer(origin, kind, sid, writer, obs), hashes))
    return seg.Record(rel, head[0], head[1], segs, head[2])


def save(conn: apsw.Connection, record: seg.Record) -> None:
    conn.execute(
        "INSERT INTO memory_daily_provenance(path, content_hash, size, floor_class, updated_at) VALUES (?,?,?,?,?) "
        "ON CONFLICT(path) DO UPDATE SET content_hash=excluded.content_hash, size=excluded.size, "
        "floor_class=excluded.floor_class, updated_at=excluded.updated_at",
        (record.path, record.content_hash, record.size, record.floor, now_ms()))
    conn.execute("DELETE FROM memory_daily_segments WHERE path = ?", (record.path,))
    conn.executemany(
        "INSERT INTO memory_daily_segments(path, ordinal, start_offset, end_offset, content_hash, origin_class, "
        "session_kind, session_id, writer, observed_at, line_hashes) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [(record.path, i, s.start, s.end, s.hash, s.who.origin, s.who.kind, s.who.session_id, s.who.writer,
          s.who.observed_at, json.dumps(s.line_hashes)) for i, s in enumerate(record.segments)])


def delete(conn: apsw.Connection, rel: str) -> None:
    conn.execute("DELETE FROM memory_daily_provenance WHERE path = ?", (rel,))


OUTSIDE_EDITS = ("untrusted", "owner")  # how an edit made outside reverie is classed (trust_meta)


def outside_edits(conn: apsw.Connection | None) -> str:
    """``untrusted`` (the default), or ``owner`` on a machine whose owner said that nothing but
    them edits the notes outside reverie (``reverie trust outside-edits owner``, docs/trust.md)."""
    if conn is None:
        return "untrusted"
    row = conn.execute("SELECT value FROM trust_meta WHERE key = 'outside_edits'").fetchone()
    return row[0] if row and row[0] in OUTSIDE_EDITS else "untrusted"


def set_outside_edits(conn: apsw.Connection, mode: str) -> None:
    if mode not in OUTSIDE_EDITS:
        raise ValueError(f"outside edits are classed {' or '.join(OUTSIDE_EDITS)}, not {mode!r}")
    with transaction(conn):
        # (delete, insert: PostgreSQL keys the table by agent too, so no ON CONFLICT fits both)
        conn.execute("DELETE FROM trust_meta WHERE key = 'outside_edits'")
        conn.execute("INSERT INTO trust_meta(key, value) VALUES ('outside_edits', ?)", (mode,))


def outside_writer(conn: apsw.Connection | None = None) -> seg.Writer:
    if outside_edits(conn) == "owner":
        return seg.Writer("owner", "unknown", None, "outside-owner", now_ms())
    return seg.Writer("untrusted", "unknown", None, "outside", now_ms())


def first_sight(conn: apsw.Connection, rel: str, data: bytes, mtime: float | None) -> seg.Record:
    """A record for a daily file reverie has never recorded (see the module docstring)."""
    legacy = mtime is not None and mtime < installed_at(conn)
    who = (seg.Writer("agent", "unknown", None, "legacy", int((mtime or 0) * 1000)) if legacy
           else outside_writer(conn))
    return seg.create(rel, data, who)


def current(conn: apsw.Connection, rel: str, data: bytes, mtime: float | None) -> tuple[seg.Record, bool]:
    """The record for ``data`` (the file now), and whether it differs from what is stored."""
    rec = load(conn, rel)
    if rec is None:
        return first_sight(conn, rel, data, mtime), True
    return seg.reconcile(rec, data, outside_writer(conn))


# writers whose lines the owner may claim: edits made outside reverie, lines from before reverie
# kept records, lines of a record that no longer verified
CLAIMABLE = frozenset({"outside", "legacy", "fallback"})


def claim(conn: apsw.Connection, workspace: Path, rel: str, lines: tuple[int, int] | None = None, *,
          dry_run: bool = False) -> tuple[int, str | None]:
    """Class the lines of a daily file that no session of reverie wrote (:data:`CLAIMABLE`) as
    the owner's own, in ``lines`` (1-based, inclusive) or the whole file: (how many lines, the
    file's sticky floor class, which still caps them). Lines reverie wrote keep their writer: a
    tainted agent line stays untrusted whoever claims the file."""
    mine = seg.Writer("owner", "unknown", None, "claimed", now_ms())

    def change(n: int, w: seg.Writer) -> seg.Writer | None:
        if w.writer in CLAIMABLE and w.origin != "owner" and (lines is None or lines[0] <= n <= lines[1]):
            return mine
        return None

    return _rewrite(conn, workspace, rel, lambda data: change, dry_run=dry_run)


_BULLET_TIME = len("- HH:MM ")


def distrust(conn: apsw.Connection, workspace: Path, rel: str, entries: list[list[str]]) -> int:
    """Class as ``untrusted`` the lines of each entry of ``entries`` (an entry: its lines as
    ``workspace.writes.format_bullet`` wrote them, at any minute) where an agent wrote them in a
    daily file (never the owner's): a host reported, after the fact, that the agent saved them in
    a turn that had read untrusted content (a web page telling it what to remember). Only whole
    entries match, never a line that merely contains a saved line. How many lines changed."""
    import re

    bullet = re.compile(r"- \d\d:\d\d ")
    at = now_ms()

    def decide(data: bytes):
        lines = [x.decode("utf-8", "replace").rstrip() for x in seg.split_lines(data)]
        hit: set[int] = set()
        for want in entries:
            if not want:
                continue
            for i, line in enumerate(lines):
                if bullet.match(line) and line[_BULLET_TIME:] == want[0][_BULLET_TIME:] \
                        and lines[i + 1:i + len(want)] == want[1:]:
                    hit.update(range(i + 1, i + len(want) + 1))

        def change(n: int, w: seg.Writer) -> seg.Writer | None:
            if n not in hit or w.origin in ("owner", "untrusted"):
                return None
            return seg.Writer("untrusted", w.kind, w.session_id, "taint", at)

        return change

    return _rewrite(conn, workspace, rel, decide)[0]


def _rewrite(conn: apsw.Connection, workspace: Path, rel: str, decide, *,
             dry_run: bool = False) -> tuple[int, str | None]:
    """Give the lines of a daily file new writers: ``decide(the file's bytes)`` returns
    ``change(line number, writer)``, the line's new writer or None; the bytes are those the record
    is checked against, read under the transaction. (How many lines changed, the file's sticky
    floor class.)"""
    def rewritten(rec: seg.Record, data: bytes) -> tuple[list[seg.Writer], int]:
        change = decide(data)
        per_line = [w for _, w in rec.lines()]
        count = 0
        for n, w in enumerate(per_line, 1):
            new = change(n, w)
            if new is not None:
                per_line[n - 1] = new
                count += 1
        return per_line, count

    if dry_run:
        data, mtime = _read(workspace / rel)
        rec, _ = current(conn, rel, data, mtime)
        return rewritten(rec, data)[1], rec.floor
    with transaction(conn):
        data, mtime = _read(workspace / rel)
        rec, changed = current(conn, rel, data, mtime)
        per_line, count = rewritten(rec, data)
        if count:
            save(conn, seg.with_floor(seg.create_lines(rel, data, per_line), rec.floor))
        elif changed:
            save(conn, rec)
    with _last_lock:
        _last.clear()  # the indexer's cached answer for this file is stale now
    return count, rec.floor


def _read(path: Path) -> tuple[bytes, float | None]:
    try:
        return path.read_bytes(), path.stat().st_mtime
    except FileNotFoundError:
        return b"", None


def rel_of(workspace: Path, path: Path) -> str | None:
    try:
        return path.absolute().relative_to(workspace.absolute()).as_posix()
    except ValueError:
        return None


# -- the append hook ----------------------------------------------------------------------------------
Guard = Callable[[Path, int, bytes], ContextManager]


def daily_guard(db_path: Path, workspace: Path, who: Provenance, *, sticky: bool = False) -> Guard:
    """The ``guard`` for ``append_daily``/``append_text``: records the appended segment with ``who``."""

    def record(conn: apsw.Connection, rel: str, path: Path, offset: int, data: bytes) -> None:
        before, mtime = _read(path)
        before = before[:offset]
        rec, _ = current(conn, rel, before, mtime)
        writer = seg.Writer(who.origin, who.kind, who.session_id, who.writer, now_ms())
        save(conn, seg.append(rec, before + data, len(before), writer, sticky=sticky))

    def guard(path: Path, offset: int, data: bytes) -> ContextManager:
        rel = rel_of(workspace, path)
        if rel is None or not tracked(rel):
            return contextlib.nullcontext()
        return _recording(db_path, lambda conn: record(conn, rel, path, offset, data))

    return guard


@contextlib.contextmanager
def _recording(db_path: Path, record: Callable[[apsw.Connection], None]) -> Iterator[None]:
    """Run ``record`` in a transaction held open while the body writes the file.

    Bookkeeping never costs the user a write: when the record cannot be made (database busy or
    broken) the bytes are written anyway and, having no segment, read as an outside write
    (``untrusted``) -- the safe side. An error while writing rolls the record back.
    """
    conn = None
    try:
        conn = open_trust_db(db_path)
        conn.execute("BEGIN IMMEDIATE")
        record(conn)
    except Exception as exc:
        _warn("provenance not recorded (the write goes ahead, classed untrusted): %s", exc)
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.execute("ROLLBACK")
            conn.close()
        yield
        return
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        conn.close()
        raise
    try:
        conn.execute("COMMIT")
    except Exception as exc:  # the bytes are on disk: they will read as an outside write
        _warn("provenance not recorded after the write: %s", exc)
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
    finally:
        conn.close()


def record_whole_file(db_path: Path, workspace: Path, path: Path, data: bytes,
                      who: Provenance | list[Provenance]) -> ContextManager:
    """For a file reverie creates in one piece (a session note): a context manager like
    :func:`daily_guard` whose body writes ``data`` to the new file. ``who``: the writer of every
    line, or one writer per line."""

    rel = rel_of(workspace, path)
    if rel is None or not tracked(rel):
        return contextlib.nullcontext()
    at = now_ms()
    if isinstance(who, Provenance):
        writer = seg.Writer(who.origin, who.kind, who.session_id, who.writer, at)
        return _recording(db_path, lambda conn: save(conn, seg.create(rel, data, writer)))
    writers: dict[Provenance, seg.Writer] = {}  # one Writer per distinct writer: its lines form segments
    per_line = [writers.setdefault(p, seg.Writer(p.origin, p.kind, p.session_id, p.writer, at)) for p in who]
    return _recording(db_path, lambda conn: save(conn, seg.create_lines(rel, data, per_line)))


# -- answering origins ------------------------------------------------------------------------------
@dataclass
class FileOrigins:
    """The origins of one file's lines, as of ``content_hash``."""

    path: str
    content_hash: str | None
    record: seg.Record | None  # None: not a daily file (uniform origin)
    uniform: seg.RangeOrigin | None = None

    def lines(self, start_line: int, end_line: int, *, expect_hash: str | None = None) -> seg.RangeOrigin:
        if self.record is None:
            assert self.uniform is not None
            return self.uniform
        if expect_hash is not None and expect_hash != self.content_hash:
            return seg.fallback_origin(self.record)  # the text asked about is not the file we know
        return seg.range_origin(self.record, start_line, end_line)


def curated(mtime: float | None) -> seg.RangeOrigin:
    """Workspace files other than daily notes (``MEMORY.md``, ``USER.md``, other notes, extra
    paths) are inside the operator's trust boundary: ``agent``, never ``owner`` (reference §6.5)."""
    return seg.RangeOrigin("agent", "unknown", int(mtime * 1000) if mtime else None, frozenset(), frozenset())


def file_origins(conn: apsw.Connection | None, workspace: Path, path: str | Path, *,
                 persist: bool = True) -> FileOrigins:
    """Reconcile a file with its record (re-reading it inside the transaction) and return the
    origins of its lines. ``persist=False`` computes without writing (dry runs)."""
    absolute = Path(path) if Path(path).is_absolute() else workspace / path
    rel = rel_of(workspace, absolute)
    if rel is None or not tracked(rel):
        try:
            mtime = absolute.stat().st_mtime
        except OSError:
            mtime = None
        return FileOrigins(rel or str(path), None, None, curated(mtime))
    if conn is None:  # no database yet (a dry run on a fresh home): nothing recorded
        data, mtime = _read(absolute)
        return FileOrigins(rel, seg.sha256(data), seg.create(rel, data, outside_writer(conn)))
    if not persist:
        data, mtime = _read(absolute)
        rec, _ = current(conn, rel, data, mtime)
        return FileOrigins(rel, seg.sha256(data), rec)
    with transaction(conn):
        data, mtime = _read(absolute)
        if mtime is None and not data:
            delete(conn, rel)
            return FileOrigins(rel, seg.sha256(b""), seg.create(rel, b"", outside_writer(conn)))
        rec, changed = current(conn, rel, data, mtime)
        if changed:
            save(conn, rec)
    return FileOrigins(rel, seg.sha256(data), rec)


_last: dict = {}  # the one FileOrigins the indexer asked for last (it asks chunk by chunk)
_LAST_TTL = 5.0
_last_lock = threading.Lock()


def chunk_origin(conn: apsw.Connection, workspace: Path, path: str, start_line: int, end_line: int,
                 content_hash: str | None) -> seg.RangeOrigin:
    """The origin of a chunk's lines, for the indexer: ``content_hash`` is the hash of the bytes
    the chunk was cut from (when the file changed since, the file's least trusted class)."""
    key = (conn.filename, path, content_hash)
    with _last_lock:
        origins = _last.get("value") if (_last.get("key") == key
                                         and time.monotonic() - _last.get("at", 0.0) < _LAST_TTL) else None
    if origins is None:
        TRUST_MIGRATIONS.apply(conn)
        origins = file_origins(conn, workspace, path)
        with _last_lock:
            _last.update(key=key, at=time.monotonic(), value=origins)
    return origins.lines(start_line, end_line, expect_hash=content_hash)


def sessions_with_segments(conn: apsw.Connection, sessions: list[str]) -> dict[str, list[str]]:
    """path -> the given sessions that wrote segments of it."""
    out: dict[str, list[str]] = {}
    for i in range(0, len(sessions), 400):
        part = sessions[i:i + 400]
        rows = conn.execute(
            f"SELECT DISTINCT path, session_id FROM memory_daily_segments WHERE session_id IN "
            f"({','.join('?' * len(part))}) ORDER BY path", part)
        for path, sid in rows:
            out.setdefault(path, []).append(sid)
    return out

