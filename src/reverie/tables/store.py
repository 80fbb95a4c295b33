"""Table files: ``<workspace>/tables/<name>.sqlite``, made and queried by the agent with SQL.

Dense structured data (hundreds of API endpoints, accounts, customer records) breaks Markdown and
vector search; the agent keeps it in tables and asks exact questions with SQL. Each file is an
ordinary SQLite database inside the workspace (copied, versioned and exported with the notes) and
is opened only through :mod:`reverie.tables.guard`. Reads are capped in rows, bytes and time;
writes are one statement (optionally run once per parameter row) in one transaction, allowed to
the owner and the agent only, and logged with their origin (:mod:`reverie.tables.log`).
"""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path
from typing import Any

import apsw

from ..errors import UserError
from .guard import Guard, open_table_file, time_limit
from .log import WriteLog

TABLES_DIR = "tables"
SUFFIX = ".sqlite"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
DEFAULT_ROWS, MAX_ROWS = 100, 1_000
DEFAULT_BYTES, MAX_BYTES = 64 * 1024, 1024 * 1024
MAX_VALUE_CHARS = 4_000
QUERY_SECONDS = 2.0
COUNT_SECONDS = 0.5  # per table, for schema listings and search descriptions
WRITE_SECONDS = 5.0
MAX_PARAM_ROWS = 10_000
WRITERS = ("owner", "agent")


class TableError(UserError):
    """A table call that cannot be served: bad name, refused SQL, time limit, SQLite error."""


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def check_name(name: str) -> str:
    raw = (name or "").strip()
    if raw.lower().endswith(SUFFIX):
        raw = raw[: -len(SUFFIX)]
    if raw.startswith(f"{TABLES_DIR}/"):
        raw = raw[len(TABLES_DIR) + 1:]
    if not NAME_RE.match(raw):
        raise TableError(f"bad table file name {name!r}: use 1-64 letters, digits, '_' or '-' "
                         f"(the file is {TABLES_DIR}/<name>{SUFFIX})")
    return raw


def link_problem(path: Path) -> str | None:
    """Why a table file with other hard links is refused: it may be a file outside the workspace
    (another agent's database, say) under a table's name."""
    try:
        links = path.stat().st_nlink
    except OSError:
        return None
    return None if links <= 1 else f"has {links} hard links, so it may be a file outside the workspace: refused"


def _value(v: Any) -> Any:
    """A cell as JSON: BLOBs by size, long text cut, non-finite floats as text."""
    if isinstance(v, bytes):
        return {"blob": len(v)}
    if isinstance(v, str) and len(v) > MAX_VALUE_CHARS:
        return v[:MAX_VALUE_CHARS] + f"…[+{len(v) - MAX_VALUE_CHARS} chars]"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def _sql_error(exc: BaseException, guard: Guard | None, seconds: float, where: str) -> TableError:
    if isinstance(exc, (apsw.NotADBError, apsw.CorruptError)):
        return TableError(f"{where} is not a readable SQLite database: {exc}")
    if isinstance(exc, apsw.InterruptError):
        return TableError(f"stopped after {seconds:g} s (time limit): narrow the query (WHERE, LIMIT)")
    if guard is not None and guard.refused:
        return TableError(f"refused: {guard.refused}")
    if isinstance(exc, apsw.TooBigError):
        return TableError("refused: a value is too big (the limit is 8 MiB per string or BLOB)")
    if isinstance(exc, apsw.FullError):
        return TableError("refused: the table file would pass its size limit (256 MiB)")
    text = " ".join(str(exc).split()) or type(exc).__name__
    return TableError(f"SQL error: {text.removeprefix('SQLError: ')}")


def _bounded(conn: apsw.Connection, sql: str, seconds: float, read):
    """``read(cursor)`` within ``seconds``, else None (a row count too slow to take, a broken view)."""
    try:
        with time_limit(conn, seconds):
            return read(conn.execute(sql))
    except (apsw.InterruptError, apsw.SQLError):
        return None


_LEADING = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?(?:\*/|$))*", re.S)


def _one_statement(conn: apsw.Connection, sql: str) -> None:
    """Preparing runs the authorizer; more than one statement per call is refused (a second one
    would hide behind the first in logs and transcripts)."""
    from apsw import ext  # only queries and writes need it; the index's table descriptions do not

    if not isinstance(sql, str):
        raise TableError("sql must be a string")
    # VACUUM is authorised only while it runs (as an ATTACH); refuse it by name, clearly, first.
    if sql[_LEADING.match(sql).end():][:6].upper() == "VACUUM":
        raise TableError("refused: VACUUM is not allowed (VACUUM INTO would write another file)")
    info = ext.query_info(conn, sql)
    if not info.has_vdbe:
        raise TableError("no SQL statement given")
    if info.query_remaining and ext.query_info(conn, info.query_remaining).has_vdbe:
        raise TableError("one SQL statement per call (split the rest into further calls)")


class TableStore:
    """The table files of one workspace; ``agent_db`` holds the write log."""

    def __init__(self, workspace: Path, agent_db: Path | None = None):
        self.workspace = Path(workspace)
        self.dir = self.workspace / TABLES_DIR
        self.log = WriteLog(agent_db) if agent_db is not None else None

    # -- files ----------------------------------------------------------------------------------
    def path_of(self, name: str) -> Path:
        return self.dir / f"{check_name(name)}{SUFFIX}"

    def names(self) -> list[str]:
        if not self.dir.is_dir() or self.dir.is_symlink():
            return []
        return sorted(p.name[: -len(SUFFIX)] for p in self.dir.iterdir()
                      if p.name.endswith(SUFFIX) and NAME_RE.match(p.name[: -len(SUFFIX)])
                      and p.is_file() and not p.is_symlink())

    def existing_path(self, name: str) -> Path:
        path = self.path_of(name)
        if self.dir.is_symlink() or path.is_symlink():
            raise TableError(f"{TABLES_DIR}/{path.name} is a symlink: refused (a table file cannot reach another file)")
        if not path.is_file():
            known = ", ".join(self.names()) or "none yet"
            raise TableError(f"no table file {check_name(name)!r} (known: {known}); table_write creates one")
        why = link_problem(path)
        if why:
            raise TableError(f"{TABLES_DIR}/{path.name} {why}")
        return path

    def _read(self, name: str) -> tuple[apsw.Connection, Guard]:
        path = self.existing_path(name)
        try:
            return open_table_file(path, write=False)
        except apsw.Error as exc:
            raise TableError(f"cannot open {TABLES_DIR}/{path.name}: {exc}") from None

    # -- reading --------------------------------------------------------------------------------
    def schema(self, name: str, *, sample: int = 0, seconds: float = QUERY_SECONDS) -> dict:
        """The file's tables and views: columns, row counts and up to ``sample`` rows each."""
        conn, guard = self._read(name)
        path = self.path_of(name)
        where = f"{TABLES_DIR}/{path.name}"
        try:
            with time_limit(conn, seconds):
                objects = conn.execute(
                    "SELECT type, name, sql FROM sqlite_schema WHERE type IN ('table', 'view') "
                    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").fetchall()
                tables = []
                for kind, tname, sql in objects:
                    q = quote_ident(tname)
                    cols = [{"name": c[1], "type": c[2] or "", "notNull": bool(c[3]), "primaryKey": bool(c[5])}
                            for c in conn.execute(f"PRAGMA table_info({q})")]
                    tables.append({"name": tname, "kind": kind, "columns": cols, "sql": sql})
            for entry in tables:  # each with its own short limit: a huge table must not hide the others
                q = quote_ident(entry["name"])
                entry["rows"] = _bounded(conn, f"SELECT count(*) FROM {q}", COUNT_SECONDS, lambda c: c.fetchone()[0])
                if sample:
                    entry["sample"] = _bounded(conn, f"SELECT * FROM {q} LIMIT {int(sample)}", COUNT_SECONDS,
                                               lambda c: [[_value(v) for v in row] for row in c]) or []
        except apsw.Error as exc:
            raise _sql_error(exc, guard, seconds, where) from None
        finally:
            conn.close()
        st = path.stat()
        return {"file": check_name(name), "path": f"{TABLES_DIR}/{path.name}", "bytes": st.st_size,
                "tables": tables}

    def list(self) -> list[dict]:
        """Every table file with its tables (a file that cannot be read says why)."""
        out = []
        for name in self.names():
            try:
                out.append(self.schema(name))
            except TableError as exc:
                out.append({"file": name, "path": f"{TABLES_DIR}/{name}{SUFFIX}", "error": str(exc), "tables": []})
        return out

    def query(self, name: str, sql: str, params: list | dict | None = None, *, max_rows: int = DEFAULT_ROWS,
              max_bytes: int = DEFAULT_BYTES, seconds: float = QUERY_SECONDS) -> dict:
        """Run one read-only statement; at most ``max_rows`` rows and about ``max_bytes`` of JSON."""
        max_rows = max(1, min(int(max_rows), MAX_ROWS))
        max_bytes = max(1024, min(int(max_bytes), MAX_BYTES))
        conn, guard = self._read(name)
        where = f"{TABLES_DIR}/{self.path_of(name).name}"
        t0 = time.perf_counter()
        rows: list[list] = []
        truncated = None
        size = 2
        try:
            with time_limit(conn, seconds):
                _one_statement(conn, sql)
                cur = conn.cursor()
                cur.execute(sql, params, can_cache=False)
                try:
                    columns = [d[0] for d in cur.get_description()]
                except apsw.ExecutionCompleteError:  # no rows: the statement finished at once
                    from apsw import ext

                    columns = [d[0] for d in ext.query_info(conn, sql).description or ()]
                for row in cur:
                    if len(rows) >= max_rows:
                        truncated = "rows"
                        break
                    cells = [_value(v) for v in row]
                    size += len(json.dumps(cells, ensure_ascii=False, default=str)) + 1
                    if size > max_bytes and rows:
                        truncated = "bytes"
                        break
                    rows.append(cells)
        except TableError:
            raise
        except (apsw.Error, TypeError) as exc:  # TypeError: parameters of a type SQLite cannot bind
            raise _sql_error(exc, guard, seconds, where) from None
        finally:
            conn.close()
        out = {"file": check_name(name), "columns": columns, "rows": rows, "rowCount": len(rows),
               "truncated": truncated is not None, "ms": round((time.perf_counter() - t0) * 1000, 1)}
        if truncated:
            out["truncatedBy"] = truncated
            out["note"] = (f"more rows exist; showing the first {len(rows)} (limit: "
                           f"{max_rows} rows, {max_bytes:,} bytes). Narrow the query or page with LIMIT/OFFSET.")
        return out

    # -- writing --------------------------------------------------------------------------------
    def write(self, name: str, sql: str, params: list | dict | None = None, rows: list | None = None, *,
              origin: str, surface: str = "tool", session: str | None = None, sender: str | None = None,
              seconds: float = WRITE_SECONDS) -> dict:
        """Run one statement (once, or once per entry of ``rows``) in one transaction."""
        if rows is not None and len(rows) > MAX_PARAM_ROWS:
            raise TableError(f"at most {MAX_PARAM_ROWS:,} parameter rows per call")
        logged = params if rows is None else rows[:20]
        return self.write_steps(name, [(sql, params, rows)], origin=origin, surface=surface, session=session,
                                sender=sender, seconds=seconds, statement=sql, logged=logged,
                                param_sets=len(rows) if rows is not None else 1)

    def write_steps(self, name: str, steps: list[tuple[str, Any, list | None]], *, origin: str, surface: str,
                    statement: str, logged: Any = None, param_sets: int = 1, session: str | None = None,
                    sender: str | None = None, seconds: float = WRITE_SECONDS) -> dict:
        """Run (sql, params, rows) steps, each one statement, all in one transaction, logged once."""
        file = check_name(name)
        entry = dict(file=file, origin=origin, surface=surface, statement=statement, params=logged,
                     param_sets=param_sets, session=session, sender=sender)
        if origin not in WRITERS:
            if self.log is not None:
                self.log.start(**entry, status="refused", error="caller may not write")
            raise TableError(f"refused: table_write is for the owner and the agent; this caller is {origin}")
        path = self.path_of(name)
        if self.dir.is_symlink() or path.is_symlink():
            raise TableError(f"{TABLES_DIR}/{path.name} is a symlink: refused (a table file cannot reach another file)")
        created = not path.exists()
        why = None if created else link_problem(path)
        if why:
            raise TableError(f"{TABLES_DIR}/{path.name} {why}")
        seq = self.log.start(**entry) if self.log is not None else None
        try:
            result = self._run_steps(path, steps, created, seconds)
        except BaseException as exc:
            if created and path.exists() and path.stat().st_size == 0:
                path.unlink()  # nothing was written to a file this call created: leave no empty file
            if seq is not None:
                status = "refused" if str(exc).startswith("refused") else "failed"
                self.log.settle(seq, status, error=str(exc)[:500])  # type: ignore[union-attr]
            raise
        if seq is not None:
            self.log.settle(seq, "ok", changes=result["changes"])  # type: ignore[union-attr]
        return {**result, "file": file, "path": f"{TABLES_DIR}/{path.name}", "created": created,
                "origin": origin}

    def _run_steps(self, path: Path, steps, created: bool, seconds: float) -> dict:
        where = f"{TABLES_DIR}/{path.name}"
        if created:
            self.dir.mkdir(parents=True, exist_ok=True)
        try:
            conn, guard = open_table_file(path, write=True, create=created)
        except apsw.Error as exc:
            raise TableError(f"cannot open {TABLES_DIR}/{path.name}: {exc}") from None
        returned: list[list] = []
        try:
            with time_limit(conn, seconds):
                before = conn.total_changes()
                guard.internal = True
                conn.execute("BEGIN IMMEDIATE")
                guard.internal = False
                try:
                    for sql, params, rows in steps:
                        _one_statement(conn, sql)
                        cur = conn.cursor()
                        if rows is not None:
                            cur.executemany(sql, rows, can_cache=False)
                        else:
                            cur.execute(sql, params, can_cache=False)
                        for row in cur:  # RETURNING rows, and running the statement to its end
                            if len(returned) < DEFAULT_ROWS:
                                returned.append([_value(v) for v in row])
                    changes = conn.total_changes() - before
                except BaseException:
                    guard.internal = True
                    conn.set_progress_handler(None)  # the rollback itself must not be interrupted
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                guard.internal = True
                conn.execute("COMMIT")
        except TableError:
            raise
        except (apsw.Error, TypeError) as exc:
            raise _sql_error(exc, guard, seconds, where) from None
        finally:
            conn.close()
        out: dict[str, Any] = {"status": "ok", "changes": changes}
        if returned:
            out["returned"] = returned
        return out

    def writes(self, name: str | None = None, limit: int = 50) -> list[dict]:
        """The newest entries of the write log (all files, or one)."""
        return self.log.entries(check_name(name) if name else None, limit) if self.log else []
