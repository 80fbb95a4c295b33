"""``reverie doctor --repair``: a damaged agent database back to a working one, losing only what
SQLite can no longer read, and saying what that was.

The agent database holds what has no file: transcripts, standing intents, recall signals and the
embedding cache. When it is damaged (a truncated file, a garbage page, a garbage header) every
command that opens it used to stop with an internal error, and the only way out was deleting it.
Now:

1. the damaged file (with its ``-wal``) is copied, byte for byte, to
   ``reverie-agent.sqlite.damaged-YYYYMMDD-HHMMSS`` beside it: it is never modified or deleted;
2. a new file gets the schema every new agent database gets (the same migrations) and every row
   SQLite can still read is copied into it (:mod:`reverie.store.salvage`);
3. the new file replaces the damaged one (the damaged file's ``-wal``/``-shm`` are removed first: a
   stale WAL beside a new main file would be replayed into it);
4. the report names, per table, how many rows were read and how many were lost.

The shared automations database (``<home>/state/reverie.sqlite``) is checked and repaired the same
way. Other reverie processes (``mcp``, ``chat``, ``scheduler run``) should be stopped first: they
keep the damaged file open until they restart.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import apsw

from .errors import UserError
from .paths import Places
from .store import connect
from .store.ledger import ledger_problem
from .store.salvage import check, salvage
from .workspace.writes import _fsync_dir  # the one directory fsync

REPAIR_HINT = "run: reverie doctor --repair (it salvages what can be read and keeps the damaged file)"


class DamagedDatabase(UserError):
    """A database reverie keeps state in cannot be read; ``reverie doctor --repair`` is the way back."""


def agent_migrations(*, dreaming: bool = True) -> list:
    """Every migration set that builds the agent database (each component owns its tables). All of
    them: a repaired file given only some would get the others' tables from the damaged file's
    ``CREATE`` statements without their ledger rows, and fail on the next start (issue 31).
    ``dreaming=False`` leaves Dreaming's out, for ``reverie status``: a light command that must not
    import the Dreaming package (``doctor`` and ``doctor --repair`` check them all)."""
    from .index.schema import AGENT_CACHE_MIGRATIONS
    from .intents.schema import INTENT_MIGRATIONS
    from .search.signals import SIGNAL_MIGRATIONS
    from .sessions.schema import TRANSCRIPT_MIGRATIONS
    from .tables.log import TABLE_LOG_MIGRATIONS
    from .trust.lineage import LINEAGE_MIGRATIONS
    from .trust.store import TRUST_MIGRATIONS
    from .trust.tombstones import TOMBSTONE_MIGRATIONS

    sets = [AGENT_CACHE_MIGRATIONS, TRANSCRIPT_MIGRATIONS, INTENT_MIGRATIONS, SIGNAL_MIGRATIONS]
    if dreaming:
        from .dreaming.state import DREAM_MIGRATIONS

        sets.append(DREAM_MIGRATIONS)
    return sets + [TRUST_MIGRATIONS, TOMBSTONE_MIGRATIONS, LINEAGE_MIGRATIONS, TABLE_LOG_MIGRATIONS]


def state_migrations() -> list:
    from .automation.schema import AUTOMATION_MIGRATIONS

    return [AUTOMATION_MIGRATIONS]


def databases(places: Places) -> list[tuple[str, Path, list]]:
    return [("agent database", places.agent_db, agent_migrations()),
            ("automations database", places.state_db, state_migrations())]


def _rebuild_derived(fresh: apsw.Connection, report) -> None:
    """Tables made from other tables are made again from what was saved, rather than trusted as
    copied: the session search index from the transcript events."""
    if not fresh.execute("SELECT 1 FROM sqlite_schema WHERE name = 'transcript_events'").fetchone():
        return
    from .sessions.store import rebuild_search_index

    with fresh:
        n = rebuild_search_index(fresh)
    item = report.table("transcript_fts")
    item.errors, item.unreadable, item.expected, item.adopted = [], 0, None, 0
    item.read = item.copied = n
    item.note = f"session search index rebuilt from the saved conversation events ({n} rows)"


def problem_of(path: Path, migrations: list) -> str | None:
    """Why the database at ``path`` needs a repair, or None: its pages (``quick_check``), then its
    migration ledger against its tables."""
    return check(path) or ledger_problem(path, migrations)


def diagnose(exc: BaseException, places_seen: list[Places]) -> DamagedDatabase | None:
    """When a database error reached the top: is one of the state databases of the agents this
    process opened damaged? Then say so, and how to repair it, instead of an internal error."""
    ledger = isinstance(exc, apsw.SQLError) and "already exists" in str(exc)  # a ledger that lost rows
    if not ledger and not isinstance(exc, (apsw.CorruptError, apsw.NotADBError, apsw.IOError, apsw.CantOpenError)):
        return None
    seen: set[Path] = set()
    for places in reversed(places_seen):
        for what, path, migrations in databases(places):
            if path in seen:
                continue
            seen.add(path)
            problem = problem_of(path, migrations) if ledger else check(path)
            if problem is not None:
                return DamagedDatabase(f"the {what} {path} is damaged ({problem}); {REPAIR_HINT}")
    return None


def repair_database(path: Path, migrations: list, *, what: str = "database") -> dict:
    """Check one database file and, when it is damaged, salvage it as described above."""
    path = Path(path)
    out: dict = {"database": what, "path": str(path)}
    if not path.exists():
        return {**out, "status": "missing"}
    problem = problem_of(path, migrations)
    if problem is None:
        return {**out, "status": "healthy"}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while kept.exists():
        n += 1
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    wal = Path(f"{path}-wal")
    _copy(path, kept)
    if wal.exists():
        _copy(wal, Path(f"{kept}-wal"))
    fresh_path = path.with_name(f"{path.name}.repairing")
    for leftover in (fresh_path, Path(f"{fresh_path}-wal"), Path(f"{fresh_path}-shm")):
        leftover.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix=".repair-", dir=path.parent) as tmp:
        work = Path(tmp) / "work.sqlite"  # salvage may write to what it reads: never to the kept copy
        shutil.copyfile(kept, work)
        if wal.exists():
            shutil.copyfile(wal, Path(f"{work}-wal"))
        fresh = connect(fresh_path)
        try:
            for m in migrations:
                m.apply(fresh)
            report = salvage(work, fresh)
            _rebuild_derived(fresh, report)
            check_new = fresh.execute("PRAGMA integrity_check").fetchone()[0]
            fresh.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            fresh.close()
    if check_new != "ok":  # never put a file we could not verify in place of the damaged one
        raise UserError(f"repair of {path} failed: the new file does not verify ({check_new}); "
                        f"the damaged file is unchanged and a copy is at {kept}")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
        Path(f"{fresh_path}{suffix}").unlink(missing_ok=True)
    os.replace(fresh_path, path)
    _fsync_dir(path.parent)
    tables = [t.as_dict() for t in report.tables]
    return {**out, "status": "repaired", "problem": problem, "kept": str(kept), **report.as_dict(),
            "tables": tables, "lostRows": sum(t["lost"] or 0 for t in tables),
            "complete": report.fatal is None and all(t["lost"] == 0 for t in tables)}


def repair_agent(places: Places) -> list[dict]:
    """``doctor --repair``: every state database of this agent, checked and repaired if damaged."""
    return [repair_database(path, migrations, what=what) for what, path, migrations in databases(places)]


def _copy(src: Path, dst: Path) -> None:
    with open(src, "rb") as fin, open(dst, "xb") as fout:
        shutil.copyfileobj(fin, fout, 1024 * 1024)
        fout.flush()
        os.fsync(fout.fileno())
