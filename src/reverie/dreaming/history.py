"""Dreaming's rewrites of ``MEMORY.md``, before and after: the consolidation history a person
reviews (the web view's Dreaming page; ``reverie memory preimages`` lists the same preimages).

Every write Dreaming makes to ``MEMORY.md`` (a consolidation or an append, by the nightly sweep or
the heartbeat review) is recorded in ``memory_dream_state`` as one small row: its stamp (the same
as its ``DREAMS.md`` history entry), mode and counts, the id of the preimage kept of the file before
it, and the file's hash before and after. No text is stored: the *before* is the preimage, the
*after* is whichever kept version -- a newer preimage, or the file now -- has the recorded hash.
When none has it (the file was edited outside reverie since, or a forget rewrote it), the next
version kept stands in and the change is marked inexact, so a diff never claims more than it knows.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from ..store import transaction
from . import dreamsfile as df
from .preimages import listing
from .promote import memory_path
from .state import open_readonly

STATE_KEY = "memoryRewrites"
KEPT = 24  # more than the preimages kept (8): older rows only say that their before is gone
EMPTY_SHA = hashlib.sha256(b"").hexdigest()
DIFF_CONTEXT = 1


def record(conn, out, stamp: str, source: str, at: int) -> None:
    """Remember a write of ``MEMORY.md`` (``out`` a :class:`~reverie.dreaming.promote.DeepOutcome`
    that wrote). Called under the promotion lock, so rows of a sweep and a heartbeat never race."""
    if not out.after_sha:
        return
    row = {"at": stamp, "source": source, "mode": out.mode, "counts": out.counts,
           "preimage": Path(out.preimage).name.rsplit(".", 1)[-1] if out.preimage else None,
           "before": out.before_sha, "after": out.after_sha}
    with transaction(conn):
        got = conn.execute("SELECT value FROM memory_dream_state WHERE key = ?", (STATE_KEY,)).fetchone()
        rows = [*(json.loads(got[0]) if got else []), row][-KEPT:]
        conn.execute("INSERT INTO memory_dream_state(key, value, updated_at) VALUES (?,?,?) ON CONFLICT(key) "
                     "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                     (STATE_KEY, json.dumps(rows), at))


def recorded(db_path: Path) -> list[dict]:
    """The recorded rewrites, oldest first (nothing is created when the database is missing)."""
    conn = open_readonly(db_path)
    if conn is None:
        return []
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'memory_dream_state'").fetchone() is None:
            return []
        got = conn.execute("SELECT value FROM memory_dream_state WHERE key = ?", (STATE_KEY,)).fetchone()
        return json.loads(got[0]) if got else []
    finally:
        conn.close()


def _text(path: str | Path) -> str:
    return Path(path).read_bytes().decode("utf-8", errors="replace")


def diff_lines(before: str, after: str, context: int = DIFF_CONTEXT) -> list[dict]:
    """A unified diff as rows ``{kind: hunk|add|del|ctx, text}`` (no file header)."""
    rows = []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=context):
        if line.startswith(("---", "+++")):
            continue
        kind = "hunk" if line.startswith("@@") else {"+": "add", "-": "del"}.get(line[:1], "ctx")
        rows.append({"kind": kind, "text": line})
    return rows


def _versions(mem) -> list[dict]:
    """Every kept version of MEMORY.md, oldest first: the preimages, then the file now."""
    kept = list(reversed(listing(mem.places, mem.workspace)))
    path = memory_path(mem.workspace)
    data = path.read_bytes() if path.is_file() else b""
    now = {"id": None, "file": None, "sha256": hashlib.sha256(data).hexdigest(),
           "text": data.decode("utf-8", errors="replace")}
    return [*kept, now]


def rewrite(rec: dict, versions: list[dict]) -> dict:
    """One recorded rewrite with its before and after texts and their diff."""
    out = {**rec, "restorable": False, "beforeText": None, "afterText": None, "diff": [], "exact": False,
           "note": None}
    ids = [v["id"] for v in versions]
    if rec.get("preimage"):
        if rec["preimage"] not in ids:
            out["note"] = "its preimage is no longer kept (the newest 8 are), so there is no diff"
            return out
        i = ids.index(rec["preimage"])
        before = versions[i]
        out["beforeText"], out["restorable"] = _text(before["file"]), True
        later = versions[i + 1:]
        before_ok = before["sha256"] == rec.get("before")
    elif rec.get("before") == EMPTY_SHA:  # the file was empty: nothing to keep
        out["beforeText"], later, before_ok = "", versions, True
    else:
        out["note"] = "no preimage was kept of the file before it"
        return out
    match = next((v for v in later if v["sha256"] == rec.get("after")), None)
    after = match or (later[0] if later else None)
    if after is None:
        out["note"] = "the file after it is not kept"
        return out
    out["afterText"] = after["text"] if after["id"] is None else _text(after["file"])
    out["afterIs"] = "MEMORY.md now" if after["id"] is None else f"preimage {after['id']}"
    out["exact"] = bool(match) and before_ok
    if not out["exact"]:
        out["note"] = ("MEMORY.md changed after this rewrite outside Dreaming's writer (an edit by hand, a forget): "
                       f"the diff runs to the next version kept ({out['afterIs']}) and includes those changes")
    out["diff"] = diff_lines(out["beforeText"], out["afterText"])
    return out


def history(mem) -> list[dict]:
    """The consolidation history, newest first: each ``DREAMS.md`` history entry (its counts,
    highlights, a skipped rewrite's reason) joined with its recorded rewrite (before, after, diff),
    and recorded rewrites whose entry is missing from ``DREAMS.md``."""
    try:
        path = df.dreams_path(mem.workspace)
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except Exception:  # a symlinked or odd DREAMS.md: the recorded rewrites still show
        text = ""
    entries = df.history_entries(text)
    recs = recorded(mem.agent_store)
    versions = _versions(mem)
    used: set[int] = set()
    out = []
    for e in entries:
        i = next((k for k, r in enumerate(recs) if k not in used and r.get("at") == e["stamp"]), None)
        if i is not None:
            used.add(i)
        out.append({**e, "rewrite": rewrite(recs[i], versions) if i is not None else None})
    for k, r in enumerate(recs):
        if k not in used:
            out.append({"stamp": r.get("at"), "counts": r.get("counts"), "skipped": None, "highlights": [],
                        "notes": ["(no entry for it in DREAMS.md)"], "rewrite": rewrite(r, versions)})
    out.sort(key=lambda e: _when(e["stamp"]))  # stable; an unparseable stamp counts as oldest
    return out[::-1]


def _when(stamp: str | None) -> float:
    try:
        when = datetime.fromisoformat(stamp or "")
    except ValueError:
        return 0.0
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()
