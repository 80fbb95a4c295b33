"""Does a database's migration ledger agree with its tables?

The ledger (``reverie_migrations``) is what :class:`~reverie.store.migrations.Migrations` trusts:
a migration it does not list is run. When the ledger and the tables disagree, every later start
fails the same way (``table ... already exists``) or reads a table that is not there, and a
``quick_check`` of the file still says "ok". That happened after a repair that kept the tables of
a damaged file but not its ledger rows (issue 31).

:func:`ledger_problem` answers without touching the database's rows: it replays the file's schema
(``sqlite_schema``) and its ledger into an in-memory database, runs the pending migrations there,
and compares the tables with those every migration makes from nothing. It reads the ledger table
itself (not its index), so a damaged ledger page is found too. Cheap enough for ``reverie
status``: the schema and the ledger are a few pages, and the replay (a few milliseconds) runs again
in a process only when they changed.
"""

from __future__ import annotations

import re
from pathlib import Path

import apsw

from .connection import connect, read_only
from .migrations import Migrations

_SHADOW = ("_data", "_idx", "_content", "_docsize", "_config")


def _why(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _virtual(sql: str | None) -> bool:
    return bool(sql) and re.match(r"\s*CREATE\s+VIRTUAL\s+TABLE", sql, re.IGNORECASE) is not None


def _tables(conn: apsw.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite_%'")}


_REFERENCE: dict[tuple, set[str]] = {}  # the tables every migration makes from nothing: fixed per code


def _reference_tables(migration_sets: list[Migrations]) -> set[str]:
    key = tuple((m.component, tuple(s.name for s in m.steps)) for m in migration_sets)
    if key not in _REFERENCE:
        conn = connect(":memory:")
        try:
            for m in migration_sets:
                m.apply(conn)
            _REFERENCE[key] = _tables(conn)
        finally:
            conn.close()
    return _REFERENCE[key]


def ledger_problem(path: Path | str, migration_sets: list[Migrations]) -> str | None:
    """None when the ledger of the SQLite database at ``path`` agrees with its tables for
    ``migration_sets`` (every pending migration would apply, every table a recorded migration made
    is there), else what disagrees, in one line. A missing file has no problem."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        src = read_only(path)
    except apsw.Error as exc:
        return f"the file cannot be opened ({_why(exc)})"
    try:
        schema = src.execute("SELECT type, name, sql FROM sqlite_schema ORDER BY rowid").fetchall()
        has_ledger = any(t == "table" and n == "reverie_migrations" for t, n, _ in schema)
        ledger = src.execute("SELECT component, name, applied_at FROM reverie_migrations NOT INDEXED").fetchall() \
            if has_ledger else []
    except apsw.Error as exc:
        return f"the schema or the migration ledger cannot be read ({_why(exc)})"
    finally:
        src.close()
    key = (str(path), tuple(map(tuple, schema)), tuple(sorted(map(tuple, ledger))),
           tuple((m.component, tuple(s.name for s in m.steps)) for m in migration_sets))
    if key in _SEEN:  # unchanged since the last look (a server answering status again and again)
        return _SEEN[key]
    problem = _replay(schema, has_ledger, ledger, migration_sets)
    if len(_SEEN) > 32:
        _SEEN.clear()
    _SEEN[key] = problem
    return problem


_SEEN: dict[tuple, str | None] = {}


def _replay(schema, has_ledger: bool, ledger, migration_sets: list[Migrations]) -> str | None:
    copy = connect(":memory:")
    try:
        virtual = [n for t, n, sql in schema if t == "table" and _virtual(sql)]
        ordered = sorted(schema, key=lambda r: r[0] != "table")  # tables before their indexes and triggers
        for kind, name, sql in ordered:
            if not sql or name.startswith("sqlite_") or any(name == v + s for v in virtual for s in _SHADOW):
                continue
            try:
                copy.execute(sql)
            except apsw.Error:
                pass  # a plugin's table reverie cannot make here: not the ledger's business
        if has_ledger:
            copy.executemany("INSERT OR IGNORE INTO reverie_migrations(component, name, applied_at) VALUES (?,?,?)",
                             ledger)
        for m in migration_sets:
            try:
                m.apply(copy)
            except apsw.Error as exc:
                step = (m.pending(copy) or ["?"])[0]
                return (f"the migration ledger does not record {m.component}/{step}, "
                        f"but the tables it makes are there ({_why(exc)})")
        missing = sorted(_reference_tables(migration_sets) - _tables(copy))
        if missing:
            return f"the migration ledger records tables that are missing: {', '.join(missing[:5])}"
        return None
    finally:
        copy.close()
