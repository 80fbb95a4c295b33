"""Salvage what can still be read of a damaged SQLite database into a fresh one.

apsw has no ``.recover`` (SQLite's recovery extension is not in it), so this does what ``.recover``
does, in three steps, each used only when the one before cannot go on:

1. **Through SQLite**, table by table, when the schema still reads: rows in rowid order, and past a
   read error the next readable rowid is found by probing forward, so one corrupt leaf page loses
   the rows on it, not the rest of the table; a single row whose payload is damaged is lost alone.
   A garbage 100-byte header is first replaced by a plausible one (page size guessed from the
   file), which is often all that stopped SQLite.
2. **From the pages** (:mod:`reverie.store.pages`) when SQLite cannot read the schema at all (a
   truncated file whose schema pages were at its end): each table b-tree is walked from the root
   page the schema names, skipping pages that are missing or damaged.
3. **Orphan pages**: when rows were lost in either step, every table leaf page that no walk reached
   (its parent page is gone) is matched to the one expected table whose columns fit all its rows,
   and those rows are kept; a page that fits no table, or several, is left alone.

The fresh database already holds the expected schema (the caller applies the same migrations a new
database gets); a table the damaged file has and the schema does not (a plugin's) is recreated from
the damaged file's own ``CREATE`` statement. Full-text tables over another table are rebuilt, not
copied. Rows keep their rowids; a row whose key is already present is not copied twice. Nothing
here writes to the file given as damaged except its header in step 1: callers hand in a copy.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import apsw

from .pages import MAGIC, RawDatabase, WalkStats, guess_page_size

_FTS_SHADOW = ("_data", "_idx", "_content", "_docsize", "_config")
_MIN_ROWID, _MAX_ROWID = -(2 ** 63), 2 ** 63 - 1


def check(path: Path) -> str | None:
    """None when the database at ``path`` reads cleanly (``PRAGMA quick_check``), else why not."""
    path = Path(path)
    if not path.exists():
        return None
    from .connection import read_only  # (a read-only home: the -shm cannot be made, the file still reads)

    try:
        conn = read_only(path)
    except apsw.Error as exc:
        return _why(exc)
    try:
        rows = [r[0] for r in conn.execute("PRAGMA quick_check")]
    except apsw.Error as exc:
        return _why(exc)
    finally:
        conn.close()
    return None if rows == ["ok"] else "; ".join(str(r) for r in rows[:3])


def _why(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


@dataclass
class TableSalvage:
    table: str
    read: int = 0  # rows read from the damaged file
    copied: int = 0  # ... of which inserted (the rest were already there: a migration ledger)
    expected: int | None = None  # rows the damaged table held, when its count could be read
    unreadable: int = 0  # rows known to exist that could not be read
    adopted: int = 0  # rows found on orphan pages (included in read)
    whole: bool = False  # every page of the table was walked: ``unreadable`` is then the whole loss
    errors: list[str] = field(default_factory=list)
    note: str | None = None

    @property
    def lost(self) -> int | None:
        """Rows lost: exact when the damaged table's count could be read or all its pages were
        walked; None when nothing says how many (its count and some of its pages are gone)."""
        if self.expected is not None:
            return max(0, self.expected - self.read)
        if self.whole or self.note:
            return self.unreadable
        return None

    def as_dict(self) -> dict:
        return {"table": self.table, "read": self.read, "copied": self.copied, "expected": self.expected,
                "lost": self.lost, "lostKnown": self.lost is not None,
                "fromOrphanPages": self.adopted, "errors": self.errors[:3], "note": self.note}


@dataclass
class SalvageReport:
    tables: list[TableSalvage] = field(default_factory=list)
    header_rebuilt: bool = False
    pages_read: bool = False  # step 2 was needed
    fatal: str | None = None  # nothing could be read at all, and why
    notes: list[str] = field(default_factory=list)

    def table(self, name: str) -> TableSalvage:
        for t in self.tables:
            if t.table == name:
                return t
        item = TableSalvage(name)
        self.tables.append(item)
        return item

    def as_dict(self) -> dict:
        return {"tables": [t.as_dict() for t in self.tables], "headerRebuilt": self.header_rebuilt,
                "readFromPages": self.pages_read, "fatal": self.fatal, "notes": self.notes}


def salvage(damaged: Path, fresh: apsw.Connection) -> SalvageReport:
    """Copy every row that can be read from the database file ``damaged`` (a working copy) into
    ``fresh``, which already holds the expected schema."""
    path = Path(damaged)
    report = SalvageReport()
    fresh.execute("PRAGMA foreign_keys=OFF")  # a child whose parent row was lost is kept, not refused
    src = None
    try:
        src, schema = _open_readable(path, report)
        raw = RawDatabase(path)
        if src is None:
            report.pages_read = True
            stats = WalkStats()
            schema = [tuple(v) for _rowid, v in raw.rows(1, stats) if _schema_row(v)]
            if stats.bad_pages:
                report.notes.append(f"{stats.bad_pages} page(s) of the schema are unreadable: the tables listed "
                                    "there are looked for on orphan pages")
        rebuild = _copy_tables(src, raw, schema, fresh, report)
        if report.pages_read or any(t.errors for t in report.tables):
            _adopt_orphans(raw, schema, fresh, report)
        if report.pages_read:  # every expected table is in the report, found or not
            for name, _cols, _alias, _content, _insert, _typed in _shapes(fresh, schema):
                item = report.table(name)
                if not item.read and not item.errors and not item.note and not item.whole:
                    item.errors.append("no readable page of this table was found")
        if src is None and not any(t.read for t in report.tables):
            report.fatal = "nothing could be read"
        for name in rebuild:
            try:
                fresh.execute(f'INSERT INTO "{name}"("{name}") VALUES (\'rebuild\')')
            except apsw.Error as exc:
                report.notes.append(f"{name}: rebuild failed: {_why(exc)}")
        _recreate_extras(schema, fresh, report)
        orphans = fresh.execute("PRAGMA foreign_key_check").fetchall()
        if orphans:
            report.notes.append(f"{len(orphans)} row(s) refer to a row that was lost (kept anyway)")
        if raw.missing_pages:
            report.notes.append(f"the file ends {raw.missing_pages} page(s) short of the size its header gives "
                                "(it was truncated)")
    finally:
        if src is not None:
            src.close()
        fresh.execute("PRAGMA foreign_keys=ON")
    return report


def _schema_row(v: list) -> bool:
    return len(v) == 5 and isinstance(v[0], str) and isinstance(v[1], str) and isinstance(v[3], (int, type(None)))


# -- opening what is left ----------------------------------------------------------------------------
def _open_readable(path: Path, report: SalvageReport):
    """(connection, schema rows) through SQLite, or (None, []) when SQLite cannot read the schema."""
    try:
        return _open_schema(path)
    except apsw.Error as exc:
        first = _why(exc)
    if _rebuild_header(path):
        try:
            src, schema = _open_schema(path)
            report.header_rebuilt = True
            report.notes.append("the file header was unreadable and was rebuilt before copying")
            return src, schema
        except apsw.Error:
            pass
    report.notes.append(f"SQLite cannot read the schema ({first}); rows were read from the file's pages")
    return None, []


def _open_schema(path: Path):
    src = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE)
    try:
        src.setbusytimeout(2000)
        schema = src.execute("SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema ORDER BY rowid").fetchall()
    except apsw.Error:
        src.close()
        raise
    return src, schema


def _rebuild_header(path: Path) -> bool:
    """Write a plausible 100-byte header over a garbage one; True when the schema then reads."""
    with open(path, "r+b") as fh:
        head = fh.read(101)
        if len(head) < 101 or head.startswith(MAGIC) or head[100] not in (0x0D, 0x05):
            return False  # page 1 must at least hold the schema b-tree (table leaf or interior)
        fh.seek(0)
        data = fh.read()
        wal = Path(f"{path}-wal")
        mode = 2 if wal.exists() and wal.stat().st_size > 0 else 1
        guessed = guess_page_size(data)
        for page_size in dict.fromkeys((guessed, 4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)):
            header = (MAGIC + struct.pack(">H", 1 if page_size == 65536 else page_size)
                      + bytes([mode, mode, 0, 64, 32, 32])
                      + struct.pack(">IIIIIIIIIIII", 1, len(data) // page_size, 0, 0, 1, 4, 0, 0, 1, 0, 0, 0)
                      + bytes(20) + struct.pack(">II", 1, _version_number()))
            fh.seek(0)
            fh.write(header)
            fh.flush()
            try:
                probe = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
                try:
                    probe.execute("SELECT count(*) FROM sqlite_schema").fetchone()
                    return True
                finally:
                    probe.close()
            except apsw.Error:
                continue
        fh.seek(0)
        fh.write(head[:100])  # nothing worked: leave the header as it was for the page reader
    return False


def _version_number() -> int:
    major, minor, patch = (int(x) for x in apsw.sqlite_lib_version().split(".")[:3])
    return major * 1_000_000 + minor * 1000 + patch


# -- schema helpers ------------------------------------------------------------------------------------
def _is_virtual(sql: str | None) -> bool:
    return bool(sql) and bool(re.match(r"\s*CREATE\s+VIRTUAL\s+TABLE", sql, re.IGNORECASE))


def _is_shadow(name: str, virtual: list[str]) -> bool:
    return any(name.startswith(v) and name[len(v):] in _FTS_SHADOW for v in virtual)


def _external_content(sql: str) -> str | None:
    """For a full-text table: the content table it indexes ('' for contentless), None when it
    keeps its own copy of the text (then its rows are copied like any table's)."""
    m = re.search(r"\bcontent\s*=\s*(?:'([^']*)'|\"([^\"]*)\"|([A-Za-z_]\w*))", sql, re.IGNORECASE)
    if not m:
        return None
    return next(g for g in m.groups() if g is not None)


def _columns(conn: apsw.Connection, table: str) -> list[tuple[str, str, int]]:
    """(name, declared type, primary-key position) of the visible columns."""
    return [(r[1], (r[2] or "").upper(), r[5]) for r in conn.execute(f'PRAGMA table_xinfo("{table}")')
            if len(r) < 7 or r[6] == 0]  # hidden (generated, FTS rank) columns are not copied


def _rowid_alias(cols: list[tuple[str, str, int]]) -> int | None:
    """Index of the INTEGER PRIMARY KEY column (the rowid itself), if the table has one."""
    pk = [i for i, c in enumerate(cols) if c[2]]
    return pk[0] if len(pk) == 1 and cols[pk[0]][1] == "INTEGER" else None


def _insert_sql(table: str, cols, alias: int | None, virtual: bool) -> str:
    names = ", ".join(f'"{c[0]}"' for c in cols)
    target = names if alias is not None else f"rowid, {names}"
    verb = "INSERT" if virtual else "INSERT OR IGNORE"  # FTS5 tables take no conflict clause
    return f'{verb} INTO "{table}"({target}) VALUES ({", ".join("?" * (len(cols) + (alias is None)))})'


def _put(dst: apsw.Connection, insert: str, row, item: TableSalvage) -> None:
    item.read += 1
    dst.execute(insert, row)
    item.copied += dst.changes() > 0


def _copy_tables(src, raw: RawDatabase, schema, fresh: apsw.Connection, report: SalvageReport) -> list[str]:
    """Step 1 (``src`` given) or step 2 for every table of the schema; returns the full-text
    tables to rebuild from their content table."""
    have = {name: sql for name, sql in fresh.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table'")}
    roots = {row[1]: row[3] for row in schema if row[0] == "table"}
    virtual = [row[1] for row in schema if row[0] == "table" and _is_virtual(row[4])]
    rebuild: list[str] = []
    for kind, name, _tbl, root, sql in schema:
        if kind != "table" or name.startswith("sqlite_") or _is_shadow(name, virtual):
            continue
        item = report.table(name)
        if name in have and name != "reverie_migrations" and not _is_virtual(have[name]):
            # what a migration put in a new table (trust_meta's install time) is a default: the
            # damaged file's rows replace it, and where they are lost it goes too (a lost install
            # time must not make every older note look recorded by reverie). The ledger's rows
            # stay: they describe the schema the fresh file has.
            fresh.execute(f'DELETE FROM "{name}"')
        if name not in have:
            try:
                fresh.execute(sql)
                have[name] = sql
            except apsw.Error as exc:
                item.errors.append(f"could not recreate the table: {_why(exc)}")
                continue
        if _is_virtual(have[name]):
            source = _external_content(have[name])
            if source is not None:
                item.note = f"full-text index rebuilt from {source}" if source else "contentless index: not copied"
                if source:
                    rebuild.append(name)
                continue
        if src is not None:
            _copy_table(src, fresh, name, sql, item)
        elif _is_virtual(have[name]):
            if f"{name}_content" in roots:  # an FTS5 table's own text: <name>_content(id, c0, c1, ...)
                _copy_pages(raw, roots[f"{name}_content"], fresh, name, item, content_table=True)
            else:
                item.errors.append("its stored text is unreadable")
        else:
            _copy_pages(raw, root, fresh, name, item)
    return rebuild


def _recreate_extras(schema, fresh: apsw.Connection, report: SalvageReport) -> None:
    """Indexes, triggers and views of the damaged file that the expected schema did not make."""
    for kind, name, _tbl, _root, sql in schema:
        if kind in ("index", "trigger", "view") and sql and not name.startswith("sqlite_"):
            if fresh.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (name,)).fetchone():
                continue
            try:
                fresh.execute(sql)
            except apsw.Error as exc:
                report.notes.append(f"{kind} {name} not recreated: {_why(exc)}")


# -- step 1: through SQLite ----------------------------------------------------------------------------
def _copy_table(src: apsw.Connection, dst: apsw.Connection, table: str, sql: str | None, item: TableSalvage) -> None:
    try:
        src_cols = _columns(src, table)
    except apsw.Error as exc:
        item.errors.append(_why(exc))
        return
    dst_names = {c[0] for c in _columns(dst, table)}
    cols = [c for c in src_cols if c[0] in dst_names]
    if not cols:
        item.note = "no column in common with the expected table"
        return
    virtual = _is_virtual(sql)
    try:
        item.expected = src.execute(f'SELECT count(*) FROM "{table}"' + ("" if virtual else " NOT INDEXED")).fetchone()[0]
    except apsw.Error:
        item.expected = None
    names = ", ".join(f'"{c[0]}"' for c in cols)
    if bool(sql) and "WITHOUT ROWID" in sql.upper():
        _copy_scan(src, dst, f'SELECT {names} FROM "{table}"',
                   f'INSERT OR IGNORE INTO "{table}"({names}) VALUES ({", ".join("?" * len(cols))})', item)
        return
    # the rowid travels with the row (an FTS row must keep its rowid; so must an intent's key)
    alias = _rowid_alias(cols) if len([c for c in src_cols if c[2]]) == 1 else None
    select_cols = names if alias is not None else f"rowid, {names}"
    insert = _insert_sql(table, cols, alias, virtual)
    if virtual:
        _copy_scan(src, dst, f'SELECT {select_cols} FROM "{table}"', insert, item)
        return
    rowid_col = f'"{cols[alias][0]}"' if alias is not None else "rowid"
    _copy_rowid_table(src, dst, table, select_cols, rowid_col, insert, item)


def _rows(cursor):
    """``(row, None)`` per row of a cursor, then ``(None, error)`` if reading stopped on damage."""
    while True:
        try:
            row = next(cursor)
        except StopIteration:
            return
        except apsw.Error as exc:
            yield None, exc
            return
        yield row, None


def _copy_scan(src, dst, select: str, insert: str, item: TableSalvage) -> None:
    """Rows in scan order until the first read error (tables without a rowid to seek by)."""
    with dst:
        try:
            cursor = src.execute(select)
        except apsw.Error as exc:
            item.errors.append(_why(exc))
            return
        for row, exc in _rows(cursor):
            if exc is not None:
                item.errors.append(_why(exc))
                return
            _put(dst, insert, row, item)


def _copy_rowid_table(src, dst, table, select_cols, rowid_col, insert, item) -> None:
    """Rows in rowid order; on a read error, find the next readable rowid and go on from there."""
    read = f'SELECT {select_cols} FROM "{table}" NOT INDEXED WHERE {rowid_col} > ? ORDER BY {rowid_col}'
    last = _MIN_ROWID
    with dst:
        while True:
            restart, error = last, None
            try:
                cursor = src.execute(read, (last,))
            except apsw.Error as exc:
                error = exc
            else:
                for row, exc in _rows(cursor):
                    if exc is not None:
                        error = exc
                        break
                    _put(dst, insert, row, item)
                    last = row[0]
            if error is None:
                return
            if len(item.errors) < 3:
                item.errors.append(_why(error))
            nxt = _next_readable(src, table, rowid_col, last)
            if nxt is None:
                return
            if last == restart:
                # nothing read since the last restart: step over row nxt by hand, so the loop
                # always moves forward (a row whose own payload is damaged is lost alone)
                row = _read_row(src, table, select_cols, rowid_col, nxt)
                if row is None:
                    item.unreadable += 1
                else:
                    _put(dst, insert, row, item)
                last = nxt
                continue
            last = nxt - 1


def _read_row(src, table, select_cols, rowid_col, rowid):
    try:
        return src.execute(f'SELECT {select_cols} FROM "{table}" WHERE {rowid_col} = ?', (rowid,)).fetchone()
    except apsw.Error:
        return None


def _probe(src, table, rowid_col, start) -> tuple[bool, int | None]:
    """(the seek to ``start`` worked, the first rowid >= start)."""
    try:
        row = src.execute(f'SELECT {rowid_col} FROM "{table}" NOT INDEXED WHERE {rowid_col} >= ? '
                          f"ORDER BY {rowid_col} LIMIT 1", (start,)).fetchone()
    except apsw.Error:
        return False, None
    return True, None if row is None else row[0]


def _next_readable(src, table, rowid_col, last) -> int | None:
    """The smallest rowid after ``last`` from which rows can be read again, or None."""
    ok, first = _probe(src, table, rowid_col, last + 1)
    if ok:
        return first
    # gallop forward until a seek succeeds, then narrow down to the first start that works
    lo, step, hi = last + 1, 1, None
    while lo + step <= _MAX_ROWID:
        ok, first = _probe(src, table, rowid_col, lo + step)
        if ok:
            hi = lo + step
            break
        step *= 2
    if hi is None:
        return None
    bad = lo
    while hi - bad > 1:
        mid = (bad + hi) // 2
        ok, found = _probe(src, table, rowid_col, mid)
        if ok:
            hi, first = mid, found
        else:
            bad = mid
    return first


# -- step 2: from the pages ----------------------------------------------------------------------------
def _copy_pages(raw: RawDatabase, root, dst: apsw.Connection, table: str, item: TableSalvage, *,
                content_table: bool = False) -> None:
    cols = _columns(dst, table)
    virtual = _is_virtual(dst.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()[0])
    alias = None if virtual else _rowid_alias(cols)
    insert = _insert_sql(table, cols, alias, virtual)
    stats = WalkStats()
    with dst:
        for rowid, values in raw.rows(int(root or 0), stats):
            if content_table:  # <name>_content rows are (id, c0, c1, ...): the id is the FTS rowid
                rowid, values = (values[0] if values and values[0] is not None else rowid), values[1:]
            row = _row_for(values, rowid, cols, alias)
            try:
                _put(dst, insert, row, item)
            except apsw.Error:
                item.read -= 1
                item.unreadable += 1
    item.unreadable += stats.bad_cells
    item.whole = not stats.bad_pages
    if stats.bad_pages:
        item.errors.append(f"{stats.bad_pages} page(s) unreadable (past the end of the file, or damaged)")
    elif stats.bad_cells:
        item.errors.append(f"{stats.bad_cells} row(s) unreadable")


def _row_for(values: list, rowid: int, cols, alias: int | None) -> list:
    values = (list(values) + [None] * len(cols))[:len(cols)]
    if alias is None:
        return [rowid, *values]
    if values[alias] is None:  # an INTEGER PRIMARY KEY is stored as the rowid, NULL in the record
        values[alias] = rowid
    return values


# -- step 3: orphan pages ------------------------------------------------------------------------------
def _affinity(declared: str) -> str:
    if "INT" in declared:
        return "integer"
    if any(k in declared for k in ("CHAR", "CLOB", "TEXT")):
        return "text"
    if not declared or "BLOB" in declared or declared == "ANY":
        return "any"
    if any(k in declared for k in ("REAL", "FLOA", "DOUB")):
        return "real"
    return "numeric"


def _fits(value, affinity: str) -> bool:
    if value is None or affinity == "any":
        return True
    if affinity == "integer":
        return isinstance(value, int)
    if affinity == "text":
        return isinstance(value, str)
    if affinity == "real":
        return isinstance(value, (int, float))
    return isinstance(value, (int, float, str))


def _adopt_orphans(raw: RawDatabase, schema, fresh: apsw.Connection, report: SalvageReport) -> None:
    """Step 3: rows on table leaf pages no walk reached, given to the one table they fit."""
    reached: set[int] = set()
    for row in schema:  # every b-tree the schema still names, whatever its kind
        if isinstance(row[3], int) and row[3] > 0:
            stats = WalkStats()
            for _ in raw.rows(row[3], stats, any_kind=True):
                pass
            reached |= stats.seen
    reached |= raw.freelist()  # freed pages hold stale rows: never resurrect them
    shapes = _shapes(fresh, schema)
    adopted = ambiguous = 0
    for n, rows in raw.orphan_leaves(reached):
        fits = [s for s in shapes if all(_fits_shape(values, s) for _rowid, values in rows)]
        if len(fits) != 1:
            ambiguous += bool(rows)
            continue
        name, cols, alias, content_table, insert, _typed = fits[0]
        item = report.table(name)
        with fresh:
            for rowid, values in rows:
                if content_table:
                    rowid, values = (values[0] if values[0] is not None else rowid), values[1:]
                before = item.read
                try:
                    _put(fresh, insert, _row_for(values, rowid, cols, alias), item)
                except apsw.Error:
                    item.read = before
                    continue
                item.adopted += 1
                adopted += 1
    if adopted:
        report.notes.append(f"{adopted} row(s) recovered from pages no longer linked to their table")
    if ambiguous:
        report.notes.append(f"{ambiguous} orphan page(s) fit no single table and were left out")


def _shapes(fresh: apsw.Connection, schema) -> list[tuple]:
    """(table, columns, rowid alias, is FTS content, insert) for each table an orphan may belong to."""
    out = []
    tables = fresh.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    tables = list(tables)
    virtual = [n for n, sql in tables if _is_virtual(sql)]
    for name, sql in tables:
        cols = _columns(fresh, name)
        if _is_virtual(sql):
            if _external_content(sql) is None:  # its own text, stored as <name>_content(id, c0..)
                content_cols = [("id", "INTEGER", 1)] + [(c[0], "", 0) for c in cols]
                out.append((name, cols, None, True, _insert_sql(name, cols, None, True), content_cols))
            continue
        if _is_shadow(name, virtual) or "WITHOUT ROWID" in (sql or "").upper():
            continue
        alias = _rowid_alias(cols)
        out.append((name, cols, alias, False, _insert_sql(name, cols, alias, False), cols))
    return [(name, cols, alias, content, insert, [(c, _affinity(t), pk) for c, t, pk in shape])
            for name, cols, alias, content, insert, shape in out]


def _fits_shape(values: list, shape) -> bool:
    name, cols, alias, content, insert, typed = shape
    if len(values) != len(typed):
        return False
    for i, (value, (_col, affinity, _pk)) in enumerate(zip(values, typed)):
        if (alias == i or (content and i == 0)) and value is not None:
            return False  # the rowid alias is stored as NULL in the record
        if not _fits(value, affinity):
            return False
    return True
