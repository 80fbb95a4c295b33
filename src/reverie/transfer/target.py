"""The destination side of every import: the agent's workspace and its database."""

from __future__ import annotations

from .copying import Report, apply, classify


def finish_files(mem, report: Report) -> None:
    """Classify the planned copies against the workspace and, unless dry-run, make them."""
    for c in report.copies:
        classify(c, mem.workspace)
    _leave_forgotten(mem, report)
    if report.dry_run:
        for c in report.copies:
            if c.status in ("new", "starter"):
                c.status = "planned"
        return
    if not mem.workspace.exists():
        mem.init()
        for c in report.copies:  # init laid out a starter MEMORY.md: classify again
            classify(c, mem.workspace)
    apply(report.copies, mem.workspace)


def _leave_forgotten(mem, report: Report) -> None:
    """A note holding what ``reverie forget`` removed is not brought back (docs/trust.md)."""
    from ..store import connect
    from ..trust.tombstones import Tombstones

    if not mem.places.agent_db.exists():
        return
    conn = connect(mem.places.agent_db, readonly=True)
    try:
        tombs = Tombstones(conn)
    finally:
        conn.close()
    if not tombs:
        return
    for c in report.copies:
        if c.status not in ("new", "starter"):
            continue
        try:
            text = c.source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if tombs.note_holds_forgotten(text):
            c.status, c.reason = "forgotten", "holds text removed by reverie forget; not brought back"
            report.leave(c.label, c.reason)


def restore_sessions(mem, sessions: list[tuple[dict, list, str]], dry_run: bool) -> dict:
    """Insert (row, events, label) sessions that are not there yet; the summary for the report."""
    from ..sessions import TranscriptStore

    imported: list[str] = []
    already: list[str] = []
    forgotten: list[str] = []  # removed by reverie forget: never brought back (docs/trust.md)
    messages = 0
    exists = mem.places.agent_db.exists()
    store = TranscriptStore(mem.places.agent_db) if exists or not dry_run else None
    try:
        for row, events, label in sessions:
            if not events:
                continue
            if store is not None and store.is_forgotten(row["session_id"]):
                forgotten.append(label)
                continue
            if store is not None and (store.session(row["session_id"]) is not None if dry_run
                                      else not store.restore_session(row, events)):
                already.append(label)
                continue
            imported.append(label)
            messages += len(events)
    finally:
        if store is not None:
            store.close()
    empty = sum(1 for _, events, _ in sessions if not events)
    return {"imported": len(imported), "events": messages, "alreadyThere": already, "empty": empty,
            "items": imported[:200], **({"forgotten": forgotten} if forgotten else {})}
