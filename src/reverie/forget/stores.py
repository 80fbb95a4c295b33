"""The stores a forget reaches beyond the notes, the index and the agent database's memory tables:

* **table files** (``tables/*.sqlite``, :mod:`reverie.tables`): a text cell holding a forgotten
  text is scrubbed as a transcript is (the text becomes ``[forgotten]``; a row whose scrubbed cell
  would break a constraint is deleted), and the file is compacted. Their search description is
  made from the cells, so the next index finds nothing either;
* **the table write log** (``table_writes`` in the agent database): the logged statement, its
  parameters and its error, scrubbed the same way;
* **automations** (the home's ``state/reverie.sqlite``): this agent's cron jobs whose message,
  text or name holds it, and their run history, scrubbed (the job keeps its schedule; the report
  names it so the owner can review it);
* **damaged copies** that ``reverie doctor --repair`` keeps beside a database it repaired
  (``*.damaged-*``): deleted. Their damaged pages are exactly what cannot be read, so they cannot
  be searched or scrubbed with any certainty, and a forget must leave nothing behind.

Planning only reads (a dry run changes nothing); :func:`apply_stores` writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import apsw

from ..store import connect, transaction
from ..trust.recall import normalise


def _needles(plan) -> list[str]:
    return [n for n in (normalise(t) for t in [*plan.selectors.texts, *plan.scrub_texts]) if n]


def _holds(value, needles: list[str]) -> bool:
    if isinstance(value, str):
        norm = normalise(value)
        return any(n in norm for n in needles)
    return False


def _json_holds(raw, needles: list[str]) -> bool:
    if not isinstance(raw, str):
        return False
    try:
        doc = json.loads(raw)
    except ValueError:
        return _holds(raw, needles)
    from .plan import strings

    return any(_holds(s, needles) for s in strings(doc))


def _scrub_json(raw: str, scrub) -> str:
    try:
        doc = json.loads(raw)
    except ValueError:
        return _scrub_text(raw, scrub)
    out = scrub({"v": doc})
    return raw if out is None else json.dumps(out["v"], ensure_ascii=False)


def _scrub_text(value: str, scrub) -> str:
    out = scrub({"v": value})
    return value if out is None else out["v"]


# -- table files ---------------------------------------------------------------------------------------
def _table_files(mem) -> list[Path]:
    from ..tables.store import TableStore, link_problem

    store = TableStore(mem.workspace)
    if not store.dir.is_dir() or store.dir.is_symlink():
        return []
    return [p for p in (store.path_of(n) for n in store.names()) if not p.is_symlink() and not link_problem(p)]


def _ordinary_tables(conn: apsw.Connection) -> list[tuple[str, bool]]:
    """(name, has a rowid) of each ordinary table: virtual tables and their shadows are left out."""
    rows = conn.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").fetchall()
    virtual = [n for n, sql in rows if (sql or "").lstrip().upper().startswith("CREATE VIRTUAL")]
    return [(n, "WITHOUT ROWID" not in (sql or "").upper()) for n, sql in rows
            if n not in virtual and not any(n.startswith(v + "_") for v in virtual)]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _plan_table_file(path: Path, needles: list[str]) -> list[tuple]:
    """(table, key columns, key values, column) of each cell holding a needle."""
    found = []
    conn = connect(path, readonly=True)
    try:
        for table, rowid in _ordinary_tables(conn):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({_q(table)})")]
            keys = ["rowid"] if rowid else [r[1] for r in conn.execute(f"PRAGMA table_info({_q(table)})") if r[5]]
            if not keys:
                continue
            select = ", ".join([*(k if k == "rowid" else _q(k) for k in keys), *map(_q, cols)])
            for row in conn.execute(f"SELECT {select} FROM {_q(table)}"):
                key, values = row[:len(keys)], row[len(keys):]
                for col, v in zip(cols, values):
                    if _holds(v, needles):
                        found.append((table, tuple(keys), tuple(key), col))
    finally:
        conn.close()
    return found


def _apply_table_file(path: Path, cells: list[tuple], scrub) -> tuple[int, int]:
    """(cells scrubbed, rows deleted)."""
    scrubbed = deleted = 0
    conn = connect(path)
    try:
        conn.execute("PRAGMA secure_delete=ON")
        with transaction(conn):
            for table, keys, key, col in cells:
                where = " AND ".join(f"{k if k == 'rowid' else _q(k)} = ?" for k in keys)
                row = conn.execute(f"SELECT {_q(col)} FROM {_q(table)} WHERE {where}", key).fetchone()
                if row is None or not isinstance(row[0], str):
                    continue  # its row went already (another cell of it broke a constraint)
                try:
                    conn.execute("SAVEPOINT cell")
                    conn.execute(f"UPDATE {_q(table)} SET {_q(col)} = ? WHERE {where}",
                                 (_scrub_text(row[0], scrub), *key))
                    conn.execute("RELEASE cell")
                    scrubbed += 1
                except apsw.ConstraintError:  # two scrubbed values now equal under a UNIQUE, say
                    conn.execute("ROLLBACK TO cell")
                    conn.execute("RELEASE cell")
                    conn.execute(f"DELETE FROM {_q(table)} WHERE {where}", key)
                    deleted += 1
        conn.execute("VACUUM")  # no old copy of the cell left in free pages
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return scrubbed, deleted


# -- planning ------------------------------------------------------------------------------------------
def plan_stores(mem, plan, agent_db) -> None:
    needles = _needles(plan)
    if needles:
        for path in _table_files(mem):
            try:
                cells = _plan_table_file(path, needles)
            except apsw.Error as exc:
                plan.warnings.append(f"table file {path.name} could not be read ({exc}); it was not searched")
                continue
            if cells:
                plan.table_cells[str(path)] = cells
        if agent_db is not None and _has(agent_db, "table_writes"):
            plan.table_log_rows = [seq for seq, *texts in agent_db.execute(
                "SELECT seq, statement, params, error FROM table_writes")
                if any(_json_holds(t, needles) for t in texts)]
        _plan_automations(mem, plan, needles)
    plan.damaged = [str(p) for p in damaged_copies(mem)]


def _has(conn, table: str) -> bool:
    if getattr(conn, "engine", "sqlite") != "sqlite":
        return True  # PostgreSQL's schema holds every table from the start
    return conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None


def _plan_automations(mem, plan, needles: list[str]) -> None:
    db = mem.places.state_db
    if not db.exists():
        return
    conn = connect(db, readonly=True)
    try:
        if not _has(conn, "cron_jobs"):
            return
        others = set()
        for store_key, job_id, job_json, state_json in conn.execute(
                "SELECT store_key, job_id, job_json, state_json FROM cron_jobs"):
            try:
                agent = (json.loads(job_json) or {}).get("agentId")
            except ValueError:
                agent = None
            if agent not in (None, plan.agent):
                others.add((store_key, job_id))  # another agent's job: its forget, not this one
                continue
            if _json_holds(job_json, needles) or _json_holds(state_json, needles):
                plan.cron_jobs.append((store_key, job_id))
        plan.cron_logs = [(k, j, seq) for k, j, seq, entry in conn.execute(
            "SELECT store_key, job_id, seq, entry_json FROM cron_run_logs")
            if (k, j) not in others and _json_holds(entry, needles)]
    finally:
        conn.close()


def damaged_copies(mem) -> list[Path]:
    """The copies ``doctor --repair`` kept of this agent's databases (and of the home's automations
    database), with their ``-wal``."""
    out: list[Path] = []
    dbs = [mem.places.state_db] + ([mem.places.agent_db] if mem.agent_store.engine == "sqlite" else [])
    for db in dbs:
        if db.parent.is_dir():
            out += sorted(p for p in db.parent.glob(f"{db.name}.damaged-*") if p.is_file() and not p.is_symlink())
    return out


# -- carrying out --------------------------------------------------------------------------------------
def apply_stores(mem, plan, scrub) -> None:
    for path, cells in plan.table_cells.items():
        try:
            done, gone = _apply_table_file(Path(path), cells, scrub)
        except apsw.Error as exc:
            plan.warnings.append(f"table file {Path(path).name} could not be scrubbed ({exc}): run the forget again")
            continue
        if gone:
            plan.warnings.append(f"{gone} row(s) of table file {Path(path).name} were deleted: scrubbed, they "
                                 "would have broken a constraint of their table")
    if plan.table_log_rows:
        conn = connect(mem.agent_store)
        try:
            if getattr(conn, "engine", "sqlite") == "sqlite":
                conn.execute("PRAGMA secure_delete=ON")
            with transaction(conn):
                for seq in plan.table_log_rows:
                    row = conn.execute("SELECT statement, params, error FROM table_writes WHERE seq = ?", (seq,)).fetchone()
                    if row is None:
                        continue
                    statement, params, error = row
                    conn.execute("UPDATE table_writes SET statement = ?, params = ?, error = ? WHERE seq = ?",
                                 (_scrub_text(statement, scrub),
                                  None if params is None else _scrub_json(params, scrub),
                                  None if error is None else _scrub_text(error, scrub), seq))
        finally:
            conn.close()
    if plan.cron_jobs or plan.cron_logs:
        _apply_automations(mem, plan, scrub)
    for p in plan.damaged:
        for f in (Path(p), Path(f"{p}-wal"), Path(f"{p}-shm")):
            f.unlink(missing_ok=True)


def _apply_automations(mem, plan, scrub) -> None:
    conn = connect(mem.places.state_db)
    try:
        conn.execute("PRAGMA secure_delete=ON")
        with transaction(conn):
            for store_key, job_id in plan.cron_jobs:
                row = conn.execute("SELECT job_json, state_json FROM cron_jobs WHERE store_key = ? AND job_id = ?",
                                   (store_key, job_id)).fetchone()
                if row is not None:
                    conn.execute("UPDATE cron_jobs SET job_json = ?, state_json = ? WHERE store_key = ? AND job_id = ?",
                                 (_scrub_json(row[0], scrub), _scrub_json(row[1], scrub), store_key, job_id))
            for store_key, job_id, seq in plan.cron_logs:
                row = conn.execute("SELECT entry_json FROM cron_run_logs WHERE store_key = ? AND job_id = ? AND seq = ?",
                                   (store_key, job_id, seq)).fetchone()
                if row is not None:
                    conn.execute("UPDATE cron_run_logs SET entry_json = ? WHERE store_key = ? AND job_id = ? AND seq = ?",
                                 (_scrub_json(row[0], scrub), store_key, job_id, seq))
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except apsw.BusyError as exc:  # a scheduler mid-write: the rows are scrubbed, free space may not be
        plan.warnings.append(f"the automations database could not be compacted ({exc})")
    finally:
        conn.close()
