"""The owner claims their own hand edits (``reverie trust claim``), and says how hand edits are
classed on their machine (``reverie trust outside-edits``).

A line added to a daily note in an editor after reverie first recorded the note reads as an edit
made outside reverie: ``untrusted`` (docs/trust.md), because reverie cannot tell the owner's
editor from a program or an agent writing the file. Claiming makes such lines the owner's:
found, injected and promoted like what ``reverie remember`` writes. Only lines no session of
reverie wrote can be claimed (:data:`reverie.trust.store.CLAIMABLE`); a line an agent wrote after
reading a web page stays untrusted, and a note quarantined by a flush stays capped at its floor.

The index keeps each unit's class beside it; a claim updates the claimed file's units in place,
so search and the lanes see the new class at once without re-indexing anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..store import transaction
from . import store as tstore


@dataclass
class Claimed:
    path: str
    lines: int
    floor: str | None  # a sticky class that still caps the file's lines (flush quarantine)

    def as_dict(self) -> dict:
        return {"path": self.path, "lines": self.lines, "floor": self.floor}


def daily_files(workspace: Path) -> list[str]:
    folder = workspace / "memory"
    if not folder.is_dir():
        return []
    return sorted(f"memory/{p.name}" for p in folder.glob("*.md") if tstore.tracked(f"memory/{p.name}"))


def _rel(workspace: Path, given: str) -> str:
    path = Path(given).expanduser()
    absolute = path if path.is_absolute() else (workspace / path if (workspace / path).exists() else Path.cwd() / path)
    rel = tstore.rel_of(workspace, absolute.resolve()) or tstore.rel_of(workspace, absolute)
    if rel is None or not tstore.tracked(rel):
        raise UserError(f"{given}: only dated notes in the workspace's memory/ folder carry a class per line "
                        "(MEMORY.md, USER.md and other files are yours already: class agent)")
    if not (workspace / rel).is_file():
        raise UserError(f"{given}: no such note in {workspace / 'memory'}")
    return rel


def claim(mem, paths: list[str] | None = None, lines: tuple[int, int] | None = None, *,
          dry_run: bool = False) -> list[Claimed]:
    """Claim the hand-edited lines of ``paths`` (every dated note when None); ``lines`` only with
    one path. Returns one :class:`Claimed` per file that had lines to claim."""
    if lines is not None and (not paths or len(paths) != 1):
        raise UserError("--lines needs exactly one note")
    if lines is not None and not 1 <= lines[0] <= lines[1]:
        raise UserError("--lines takes A-B with 1 <= A <= B")
    rels = [_rel(mem.workspace, p) for p in paths] if paths else daily_files(mem.workspace)
    conn = tstore.open_trust_db(mem.agent_store)
    out: list[Claimed] = []
    try:
        for rel in rels:
            count, floor = tstore.claim(conn, mem.workspace, rel, lines, dry_run=dry_run)
            if count:
                out.append(Claimed(rel, count, floor))
        if out and not dry_run:
            _refresh_index(mem, conn, [c.path for c in out])
    finally:
        conn.close()
    return out


def distrust_saved(mem, texts: list[str], days) -> list[str]:
    """Class as untrusted what an agent saved with ``texts`` (``memory_append``) in the daily notes
    of ``days`` (dates), when its host reports that the turn had read untrusted content first: the
    save went through a connection that could not know (an MCP call, answered before the host's
    transcript said what came before it). Returns the notes changed (their index units follow)."""
    from datetime import datetime

    from ..workspace.annotations import neutralise_annotations
    from ..workspace.textclean import clean_text
    from ..workspace.writes import format_bullet

    # each entry as memory_append wrote it (cleaned, annotations neutralised, cleaned again by the
    # append), laid out as the append lays it out; the minute is not compared
    entries = []
    for t in texts:
        text = clean_text(neutralise_annotations(clean_text(t).text)).text
        if text.strip():
            entries.append(format_bullet(text, datetime(2000, 1, 1)).split("\n"))
    rels = [f"memory/{d.isoformat()}.md" for d in dict.fromkeys(days)]
    rels = [r for r in rels if (mem.workspace / r).is_file()]
    if not entries or not rels:
        return []
    conn = tstore.open_trust_db(mem.agent_store)
    try:
        changed = [rel for rel in rels if tstore.distrust(conn, mem.workspace, rel, entries)]
        if changed:
            _refresh_index(mem, conn, changed)
        return changed
    finally:
        conn.close()


def _refresh_index(mem, trust_conn, rels: list[str]) -> None:
    """The claimed files' units in the live index get their lines' class now."""
    conn = mem.index.conn()
    with transaction(conn):
        for rel in rels:
            src = conn.execute("SELECT hash FROM memory_index_sources WHERE path = ? AND source = 'memory'",
                               (rel,)).fetchone()
            if src is None:
                continue  # not indexed yet: the next sync classes it as recorded now
            for cid, start, end in conn.execute("SELECT id, start_line, end_line FROM memory_index_chunks "
                                                "WHERE path = ? AND source = 'memory'", (rel,)).fetchall():
                prov = tstore.chunk_origin(trust_conn, mem.workspace, rel, start, end, src[0])
                conn.execute("UPDATE memory_index_chunk_provenance SET origin_class = ?, session_kind = ? "
                             "WHERE chunk_id = ?", (prov.origin, prov.kind, cid))
        conn.execute("UPDATE memory_index_state SET revision = revision + 1 WHERE id = 1")


def set_outside_edits(mem, mode: str) -> str:
    """How edits made outside reverie are classed from now on; returns the mode before."""
    if mode not in tstore.OUTSIDE_EDITS:
        raise UserError(f"outside edits are classed {' or '.join(tstore.OUTSIDE_EDITS)}, not {mode!r}")
    conn = tstore.open_trust_db(mem.agent_store)
    try:
        before = tstore.outside_edits(conn)
        tstore.set_outside_edits(conn, mode)
        return before
    finally:
        conn.close()


def outside_edits(mem) -> str:
    conn = tstore.open_trust_db(mem.agent_store)
    try:
        return tstore.outside_edits(conn)
    finally:
        conn.close()
