"""Carrying out a forget plan (reference §17), under the index locks, in an order a retry completes:

1. tombstones, durably, first: a crash after this point is finished by running the command again,
   and nothing forgotten can come back through an import;
2. files, each through the compare-and-set writer (hash checked when planned and again before the
   rename; a file that changed meanwhile makes the whole plan be made again, up to 3 times);
   a dated note left empty is deleted after the same check; its provenance record follows;
3. every index generation: chunks, FTS rows, vectors and sources of the changed files (any chunk
   still holding removed text too), with ``secure_delete`` and an FTS merge so no copy stays in
   the file; then cached embeddings, recall signals, transcripts, preimages, standing intents,
   lineage rows.

Forget's own rewrite keeps no preimage: it would hold exactly what is being forgotten.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import UserError, WriteConflict
from ..index import generations
from ..store import connect, transaction
from ..trust import lineage as lin
from ..trust import store as trust_store
from ..trust.recall import normalise
from ..trust.tombstones import TOMBSTONE_MIGRATIONS
from ..trust.tombstones import write as write_tombstones
from ..workspace.writes import apply_replace, plan_replace, sha256_bytes
from .plan import Plan, Planner, strings
from .report import report
from .select import Selectors

MAX_ATTEMPTS = 3
FORGOTTEN = "[forgotten]"


def forget(mem, sel: Selectors, *, dry_run: bool = False) -> dict:
    """Plan, and unless ``dry_run``, carry out a forget; returns the report (reference §17)."""
    sel.check()
    index_dir = mem.places.index_dir
    if dry_run:
        from ..store.walfiles import leaves_no_wal

        folders = (mem.places.agent_dir, mem.places.state_db.parent, mem.workspace / "tables")
        with leaves_no_wal(*folders):  # a dry run changes no file
            return report(Planner(mem, sel).build(), dry_run=True)
    with generations.lock(index_dir, "sync"), generations.lock(index_dir, "rebuild"):
        plan = Planner(mem, sel).build()
        write_tombstones_for(mem, plan)
        for attempt in range(MAX_ATTEMPTS):
            try:
                rewrite_files(plan)
                break
            except WriteConflict as exc:
                if attempt == MAX_ATTEMPTS - 1:
                    plan.refusals.append({"reason": str(exc)})
                    return report(plan, dry_run=False)
                plan = Planner(mem, sel).build()  # a file moved under us: plan again from what is there
        follow_files(mem, plan)
        purge_index(mem, plan)
        purge_agent_db(mem, plan)
        from .stores import apply_stores

        apply_stores(mem, plan, _scrubber([*plan.selectors.texts, *plan.scrub_texts]))
        scrub_preimages(plan)
        compact(mem, plan)
        return report(plan, dry_run=False)


def write_tombstones_for(mem, plan: Plan) -> None:
    conn = connect(mem.agent_store)
    try:
        TOMBSTONE_MIGRATIONS.apply(conn)
        write_tombstones(conn, list(dict.fromkeys(plan.tombstones)))
    finally:
        conn.close()


def rewrite_files(plan: Plan) -> None:
    for fc in plan.files.values():
        if fc.delete:
            data = fc.absolute.read_bytes() if fc.absolute.exists() else b""
            if sha256_bytes(data) != fc.expected_hash:
                raise WriteConflict(f"{fc.path} changed before the memory forget rewrite could commit")
            fc.absolute.unlink(missing_ok=True)
            continue
        cas = plan_replace(fc.absolute)
        if cas.expected_hash != fc.expected_hash:
            raise WriteConflict(f"{fc.path} changed before the memory forget rewrite could commit")
        try:
            apply_replace(cas, fc.new_text(), preimage_dir=None)
        except WriteConflict:
            raise WriteConflict(f"{fc.path} changed before the memory forget rewrite could commit") from None


def follow_files(mem, plan: Plan) -> None:
    """Provenance records follow the rewritten files (removed lines just disappear from them)."""
    tracked = [fc for fc in plan.files.values() if fc.tracked]
    if not tracked:
        return
    conn = trust_store.open_trust_db(mem.agent_store)
    try:
        for fc in tracked:
            if fc.delete:
                with transaction(conn):
                    trust_store.delete(conn, fc.path)
            else:
                trust_store.file_origins(conn, mem.workspace, fc.path)
    finally:
        conn.close()


def purge_index(mem, plan: Plan) -> None:
    """The forgotten files' rows leave the live index (units, windows, keyword rows, sources)."""
    from ..index import rows

    if mem.index.pg:
        live, conn = "postgres", mem.agent_store.connect_index()
    else:
        index_dir = mem.places.index_dir
        live = generations.current_name(index_dir)
        generations.discard_others(index_dir, live)  # leftovers of a killed rebuild hold old text too
        conn = connect(index_dir / live) if live is not None and live in plan.index else None
        if conn is not None:
            conn.execute("PRAGMA secure_delete=ON")
    if conn is None or live not in plan.index:
        if conn is not None:
            conn.close()
        return
    try:
        with transaction(conn):
            for path in plan.index[live]["paths"]:
                sources = conn.execute("SELECT source FROM memory_index_chunks WHERE path = ? UNION "
                                       "SELECT source FROM memory_index_sources WHERE path = ?", (path, path)).fetchall()
                for (source,) in sources:
                    rows.delete_chunks(conn, path, source)
                for (sid,) in conn.execute("SELECT id FROM memory_index_sources WHERE path = ?", (path,)).fetchall():
                    rows.delete_path_keywords(conn, sid)
                conn.execute("DELETE FROM memory_index_sources WHERE path = ?", (path,))
        if not mem.index.pg:
            for table in ("memory_index_chunks_fts", "memory_index_paths_fts"):
                conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _scrubber(needles: list[str]):
    patterns = []
    for t in needles:
        words = [re.escape(w) for w in t.split()]
        patterns.append(re.compile(r"\s+".join(words), re.IGNORECASE) if words else None)
    norms = [normalise(t) for t in needles]

    def scrub_str(s: str) -> str:
        out = s
        for pat in patterns:
            if pat is not None:
                out = pat.sub(FORGOTTEN, out)
        if any(n in normalise(out) for n in norms):  # a look-alike spelling the pattern missed
            return FORGOTTEN
        return out

    def walk(value):
        if isinstance(value, str):
            return scrub_str(value)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    def scrub(doc: dict):
        if not any(n in normalise(s) for s in strings(doc) for n in norms):
            return None
        return walk(doc)

    return scrub


def purge_agent_db(mem, plan: Plan) -> None:
    from ..sessions.store import TranscriptStore

    if not mem.agent_store.exists():
        return
    if plan.targets or plan.text_events:
        store = TranscriptStore(mem.agent_store)
        try:
            store.forget_sessions(plan.targets)
            if plan.text_events:
                store.scrub_events(plan.text_events, _scrubber([*plan.selectors.texts, *plan.scrub_texts]))
        finally:
            store.close()
    conn = connect(mem.agent_store)
    try:
        conn.execute("PRAGMA secure_delete=ON")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        with transaction(conn):
            keys = sorted(plan.cache_keys)
            if keys and "memory_embedding_cache" in tables:
                for i in range(0, len(keys), 400):
                    part = keys[i:i + 400]
                    conn.execute(f"DELETE FROM memory_embedding_cache WHERE hash IN ({','.join('?' * len(part))})",
                                 part)
            if "memory_recall_signals" in tables:
                conn.executemany("DELETE FROM memory_recall_signals WHERE key = ?", [(k,) for k in plan.signals_delete])
            if "memory_phase_signals" in tables:  # Dreaming's light/REM hits of those entries
                conn.executemany("DELETE FROM memory_phase_signals WHERE key = ?", [(k,) for k in plan.signals_delete])
            if "memory_dream_ingestion" in tables:
                conn.executemany("DELETE FROM memory_dream_ingestion WHERE scope = ?", [(k,) for k in plan.seen_scopes])
            for key, start, end in plan.signals_shift:  # entries below a removed line move up with it
                new_key = f"{key.rsplit(':', 2)[0]}:{start}:{end}"  # (memory:<path>:<start>:<end>)
                for table, also in (("memory_recall_signals", ", start_line = ?, end_line = ?"),
                                    ("memory_phase_signals", "")):  # (Dreaming's hits of the entry too)
                    if table not in tables:
                        continue
                    if conn.execute(f"SELECT 1 FROM {table} WHERE key = ?", (new_key,)).fetchone():
                        conn.execute(f"DELETE FROM {table} WHERE key = ?", (key,))
                    else:
                        conn.execute(f"UPDATE {table} SET key = ?{also} WHERE key = ?",
                                     (new_key, *((start, end) if also else ()), key))
            if plan.intents and "standing_intents" in tables:
                for key in plan.intents:
                    conn.execute("DELETE FROM standing_intent_fires WHERE intent_key = ?", (key,))
                    conn.execute("DELETE FROM standing_intents WHERE intent_key = ?", (key,))
            if plan.targets and lin.TABLE in tables:
                marks = ",".join("?" * len(plan.targets))
                conn.execute(f"DELETE FROM {lin.TABLE} WHERE session_id IN ({marks}) OR entry_key IN "
                             f"({','.join('?' * len(plan.entry_keys)) or 'NULL'})", (*plan.targets, *plan.entry_keys))
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def compact(mem, plan: Plan) -> None:
    """Rebuild the databases that held forgotten text: SQLite leaves old copies of rows in unused
    space inside pages (from any earlier update, not only this delete); VACUUM writes the file anew
    from live rows only, so the forgotten text is not left anywhere in the file."""
    dbs = [mem.places.agent_db] if mem.agent_store.engine == "sqlite" else []  # PostgreSQL: see docs/team.md
    live = generations.current_path(mem.places.index_dir)
    if live is not None:
        dbs.append(live)
    for db in dbs:
        if not db.exists():
            continue
        conn = connect(db)
        try:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except Exception as exc:  # busy (another process reading): the rows are gone, free space may not be
            plan.warnings.append(f"{db.name} could not be compacted ({exc}); deleted text may remain in unused "
                                 "space of the file until the next forget or VACUUM")
        finally:
            conn.close()


def scrub_preimages(plan: Plan) -> None:
    for path, text in plan.preimages.items():
        p = Path(path)
        tmp = p.with_name(f".{p.name}.forget.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(p)


__all__ = ["forget", "Selectors", "UserError"]
