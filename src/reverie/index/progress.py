"""How far an index run got, recorded in the index itself so every process can tell.

A full run writes one meta row (``index_progress``) in the same transaction as each batch it
commits: files examined of the total, chunks written, and the phase (``files``: text and keyword
rows; ``vectors``: embedding). A search or ``status`` in any process reads it; whether the run is
still alive is told by the sync lock (held while a run works), so a run killed half-way shows as
``interrupted`` and the next sync resumes it (finished files are skipped by hash, cached vectors
are reused).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import apsw

from . import generations, reads
from .identity import read_meta, write_meta

KEY = "index_progress"


def begin(conn: apsw.Connection, files_total: int) -> dict:
    state = {"state": "running", "phase": "files", "pid": os.getpid(), "startedAt": int(time.time()),
             "files": {"done": 0, "total": files_total}}
    write_meta(conn, KEY, state)
    return state


def update(conn: apsw.Connection, row: dict, **changes) -> None:
    """Record progress; call inside the transaction that commits the work it describes."""
    for k, v in changes.items():
        if isinstance(v, dict):
            row.setdefault(k, {}).update(v)
        else:
            row[k] = v
    row["updatedAt"] = int(time.time())
    write_meta(conn, KEY, row)


def counts(conn: apsw.Connection) -> tuple[int, int]:
    """(chunks, chunks with a vector) of the index, from the counters kept by triggers."""
    return reads.state(conn, "chunks", "vectors")


def running(index_dir: Path) -> bool:
    """Whether a sync or rebuild works on this index now (in any process)."""
    return generations.is_held(index_dir, "sync")


def describe(conn: apsw.Connection, index_dir: Path, *, vectors_used: bool, starting: bool = False) -> dict | None:
    """The ``indexing`` block of a search or status answer; None when the index is not known to
    be behind. It is behind when no full run has finished on it yet, when a run was cut short (and
    none runs now), or when chunks lack their vector. A re-sync running over an index that was
    complete is not news by itself: the dirty check says whether files changed.

    ``starting``: this process has a run queued that may not hold the lock yet."""
    meta = read_meta(conn, KEY) or {}
    chunks, vectors = counts(conn)
    never = read_meta(conn, "last_sync") is None  # no full run ever finished on this index
    unfinished = meta.get("state") not in (None, "done")
    missing = vectors_used and vectors < chunks
    if not (never or unfinished or missing):
        return None
    live = starting or running(index_dir)  # (a lock probe: only when something may be pending)
    cut_short = unfinished and not live
    if not (never or cut_short or missing):
        return None
    in_files = (never or cut_short) and meta.get("state") not in (None, "done")
    out: dict = {"state": "running" if live else ("interrupted" if cut_short else "pending"),
                 "phase": meta.get("phase", "files") if in_files else ("files" if never else "vectors"),
                 "chunks": chunks}
    if in_files and meta.get("files"):
        out["files"] = dict(meta["files"])
    if vectors_used:
        out["vectors"] = {"done": vectors, "total": chunks}
    return out


def summary(info: dict) -> str:
    """One line for people: 'indexing (running): 1,200 of 2,000 files, 300 of 1,900 vectors'."""
    parts = []
    if "files" in info:
        parts.append(f"{info['files']['done']:,} of {info['files']['total']:,} files")
    if "vectors" in info:
        parts.append(f"{info['vectors']['done']:,} of {info['vectors']['total']:,} vectors")
    return f"indexing {info['state']}" + (": " + ", ".join(parts) if parts else "")


def next_step(check, dirty: bool, indexing: dict | None) -> str | None:
    """The one command that brings the index up to date, if any: a rebuild when what the chunks or
    vectors were made with changed; otherwise a plain sync, which also finishes an interrupted
    run, embeds missing vectors and follows a change of the extra paths."""
    if check.status in ("mismatched", "missing"):
        return check.action
    if dirty or check.status == "scope-changed" or (indexing and indexing["state"] != "running"):
        return "reverie index"
    return None
