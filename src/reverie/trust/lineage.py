"""Lineage of promoted entries: which sessions a durable memory came from.

Dreaming writes each promoted entry into ``MEMORY.md`` (only through the compare-and-set writer)
with a marker comment on the line above it, and records one ``memory_entry_origins`` row per
contributing session. ``reverie forget --session`` uses both: an entry whose origins include a
forgotten session is removed with its marker (entries that also had surviving sessions are listed
as mixed lineage); a marker with no origin row is listed as untargetable and left in place.

    <!-- reverie-entry: e-20260701-3f2a -->
    - The user prefers window seats on trains.
"""

from __future__ import annotations

import re
import time

import apsw

from ..store import Migration, Migrations, transaction

TABLE = "memory_entry_origins"
LINEAGE_MIGRATIONS = Migrations("lineage", [Migration("0001_entry_origins", f"""
CREATE TABLE {TABLE} (
  entry_key TEXT NOT NULL,
  session_id TEXT NOT NULL,
  path TEXT NOT NULL DEFAULT 'MEMORY.md',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (entry_key, session_id)
) STRICT;
CREATE INDEX {TABLE}_session ON {TABLE}(session_id);
""")])

MARKER_RE = re.compile(r"<!--\s*reverie-entry:\s*([A-Za-z0-9._:-]{1,120})\s*-->")
LINEAGE_LINE_RE = re.compile(r"<!--\s*reverie-lineage:\s*[^<>]{1,120}?\s*-->")


def entry_marker(key: str) -> str:
    if not MARKER_RE.fullmatch(f"<!-- reverie-entry: {key} -->"):
        raise ValueError(f"entry key {key!r}: use 1-120 letters, digits, '.', '_', ':' or '-'")
    return f"<!-- reverie-entry: {key} -->"


def record_origins(conn: apsw.Connection, key: str, session_ids: list[str], path: str = "MEMORY.md") -> None:
    """Record that the entry ``key`` came from ``session_ids`` (Dreaming calls this)."""
    entry_marker(key)
    LINEAGE_MIGRATIONS.apply(conn)
    now = int(time.time() * 1000)
    with transaction(conn):
        conn.executemany(f"INSERT OR IGNORE INTO {TABLE}(entry_key, session_id, path, created_at) VALUES (?,?,?,?)",
                         [(key, sid, path, now) for sid in dict.fromkeys(session_ids)])


def entry_spans(text: str) -> dict[str, tuple[int, int]]:
    """``key -> (first line, last line)`` (1-based) of each marked entry in ``text``: the marker
    line (when the marker stands alone, with a lineage marker right above it) plus the entry -- its
    first line and the continuation lines below it (indented, or not starting a new bullet, heading
    or blank line)."""
    lines = text.split("\n")
    out: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        m = MARKER_RE.search(lines[i])
        if not m:
            i += 1
            continue
        key = m.group(1)
        start = i
        alone = not MARKER_RE.sub("", lines[i]).strip()
        if alone and i and LINEAGE_LINE_RE.fullmatch(lines[i - 1].strip()):
            start = i - 1  # the lineage marker Dreaming wrote above it goes with the entry
        entry = i + 1 if alone else i
        if entry >= len(lines) or not lines[entry].strip():
            out[key] = (start + 1, start + 1)
            i += 1
            continue
        end = entry
        while end + 1 < len(lines):
            nxt = lines[end + 1]
            if not nxt.strip() or nxt.lstrip().startswith("#") or MARKER_RE.search(nxt):
                break
            if nxt.startswith(("- ", "* ", "+ ")) or re.match(r"^\d+[.)] ", nxt):
                break
            end += 1
        out[key] = (start + 1, end + 1)
        i = end + 1
    return out
