"""Index generations: rebuilds publish a whole new database file atomically.

The derived index lives apart from the agent database (which holds durable state such as the
embedding cache, transcripts and intents) so that it can be rebuilt and swapped as one file::

    <agent>/index/CURRENT            names the live generation, replaced atomically
    <agent>/index/index-000007.sqlite

A rebuild writes ``index-000008.sqlite`` beside the live one while searches keep using
generation 7, then renames a new ``CURRENT`` into place. A rebuild that fails or is killed
leaves ``CURRENT`` pointing at the complete old generation; its partial file is removed by the
next rebuild. Old generations are unlinked after publication: readers that still hold them open
keep reading them (POSIX semantics) until they notice ``CURRENT`` moved and reopen.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Iterator

from ..workspace.writes import _fsync_dir

_GEN_RE = re.compile(r"^index-(\d{6})\.sqlite$")
CURRENT = "CURRENT"


def current_name(index_dir: Path) -> str | None:
    """The live generation's file name; None when ``CURRENT`` is missing, unreadable, garbage
    (binary, not a generation name) or dangling: the caller then starts a fresh generation and
    indexes the files again (the index is derived; nothing is lost)."""
    try:
        raw = (index_dir / CURRENT).read_bytes()[:256]
    except OSError:
        return None
    name = raw.decode("utf-8", "replace").strip()
    return name if _GEN_RE.match(name) and (index_dir / name).is_file() else None


def current_path(index_dir: Path) -> Path | None:
    name = current_name(index_dir)
    return index_dir / name if name else None


def _generations(index_dir: Path) -> list[tuple[int, str]]:
    out = []
    if index_dir.exists():
        for p in index_dir.iterdir():
            m = _GEN_RE.match(p.name)
            if m:
                out.append((int(m.group(1)), p.name))
    return sorted(out)


def new_generation_path(index_dir: Path) -> Path:
    index_dir.mkdir(parents=True, exist_ok=True)
    gens = _generations(index_dir)
    nxt = (gens[-1][0] + 1) if gens else 1
    return index_dir / f"index-{nxt:06d}.sqlite"


def _remove_db_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def publish(index_dir: Path, gen_path: Path) -> None:
    """Make ``gen_path`` the live generation, then remove the others."""
    tmp = index_dir / f".{CURRENT}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(gen_path.name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, index_dir / CURRENT)
    _fsync_dir(index_dir)
    discard_others(index_dir, keep=gen_path.name)


def discard_others(index_dir: Path, keep: str | None) -> None:
    """Remove every generation file except ``keep`` (partial rebuilds, superseded generations)."""
    for _, name in _generations(index_dir):
        if name != keep:
            _remove_db_files(index_dir / name)


@contextlib.contextmanager
def lock(index_dir: Path, name: str, *, blocking: bool = True, wait: float = 0.0) -> Iterator[bool]:
    """An exclusive lock file ``<index_dir>/<name>.lock`` held across processes and threads
    (:mod:`reverie.locks`). Yields False when ``blocking`` is off
    and another holder has it (after up to ``wait`` seconds when ``wait`` is set). The file is kept after release: unlinking it would let two
    holders lock two different inodes."""
    from ..locks import FileLock, Timeout

    index_dir.mkdir(parents=True, exist_ok=True)
    if wait > 0:
        held = FileLock(index_dir / f"{name}.lock", timeout=wait)
    else:
        held = FileLock(index_dir / f"{name}.lock", blocking=blocking)
    try:
        held.acquire()
    except Timeout:  # only when not blocking (or after ``wait``): someone else holds it
        yield False
        return
    try:
        yield True
    finally:
        held.release()


def is_held(index_dir: Path, name: str) -> bool:
    """Whether someone (another process, or another thread here) holds lock ``name`` now."""
    if not (index_dir / f"{name}.lock").exists():
        return False
    with lock(index_dir, name, blocking=False) as got:
        return not got


def index_connections(index_dir: Path, agent_store=None) -> list[tuple[str, object]]:
    """(name, opener) of every copy of an agent's index that may hold its text: each generation
    file (the live one, and leftovers of a killed rebuild), or, when the agent database is on
    PostgreSQL, the agent's index rows there (one copy, named ``postgres``)."""
    if agent_store is not None and getattr(agent_store, "engine", "sqlite") == "postgres":
        return [("postgres", agent_store.connect_index)]
    from ..store import connect

    return [(p.name, (lambda p=p: connect(p, readonly=True))) for _, name in _generations(index_dir)
            for p in [index_dir / name]]
