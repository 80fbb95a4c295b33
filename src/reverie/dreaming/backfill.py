"""Grounded backfill over notes written before Dreaming ran (reference §16.10, addendum row 8):
every write can be previewed and rolled back.

* ``rem-harness`` previews, writing nothing: per dated note, its *grounded* entries (entries that
  state a decision, a preference, a remember-request or a fact about the owner, that the trust
  gate would let through and that are not Dreaming's own text), and the REM reflection over them.
* ``rem-backfill`` writes one diary entry per day into ``DREAMS.md``, marked
  ``<!-- reverie:dreaming:backfill-entry -->``; with ``--stage-short-term`` it also gives each
  grounded entry a grounded signal in the short-term store (``groundedCount``, the note's day as a
  recall day; never a query, so backfill alone cannot fake query diversity).
* ``rem-backfill --rollback`` removes the backfill diary entries; ``--rollback-short-term`` takes
  the grounded signals away again (entries that had nothing else are deleted).

Backfill never writes ``MEMORY.md``, ``USER.md`` or a daily note.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..errors import UserError
from ..models.offline import is_salient
from ..search import signals as sig
from ..trust import Candidate, Trust
from ..trust.store import DAILY_RE
from ..workspace.entries import split_entries
from . import dreamsfile as df
from .guard import contaminated
from .ingest import DAILY_SCORE, add_signal, note_day
from .phases import rem
from .state import Deltas, StoreView, apply, load, open_db, open_readonly

STAGED_STATE = "backfillStaged"


def notes(workspace: Path, path: str | None) -> list[str]:
    """Dated notes under ``path`` (a note or a folder inside the workspace; default ``memory``)."""
    base = (workspace / (path or "memory")).resolve()
    ws = workspace.resolve()
    if base != ws and ws not in base.parents:
        raise UserError(f"--path {path!r} is outside the workspace")
    if not base.exists():
        raise UserError(f"--path {path!r} does not exist in the workspace")
    files = [base] if base.is_file() else sorted(base.glob("*.md"))
    out = []
    for f in files:
        rel = f.relative_to(ws).as_posix()
        if DAILY_RE.match(rel) and not f.is_symlink():
            out.append(rel)
    if not out:
        raise UserError(f"no dated daily notes (memory/YYYY-MM-DD.md) under {path or 'memory'}")
    return out


def grounded(mem, rel: str, trust: Trust) -> list[dict]:
    text = (mem.workspace / rel).read_text(encoding="utf-8", errors="replace")
    out = []
    for e in split_entries(text):
        s = e.snippet
        if len(s) < 12 or contaminated(s) or not is_salient(s):
            continue
        decision = trust.may_promote(Candidate(s, rel, e.start, e.end))
        if decision.allowed:
            out.append({"path": rel, "startLine": e.start, "endLine": e.end, "snippet": s,
                        "key": f"{sig.signal_key(rel, e.start, e.end)}:{sig.claim_hash(s)}"})
    return out


def _day_view(items: list[dict], day: str, at: int) -> StoreView:
    view = StoreView()
    for it in items:
        rec = sig.Recall(it["path"], it["startLine"], it["endLine"], it["snippet"], DAILY_SCORE)
        add_signal(view, Deltas(), rec, {"grounded": 1, "at": at, "key": it["key"]})
        view.entries[it["key"]].recall_days = [day]
    return view


def harness(mem, path: str | None = None) -> dict:
    trust = Trust(mem.places.agent_db, mem.workspace, readonly=True)
    days = []
    rem_cfg = mem.settings.memory.dreaming.phases.rem
    for rel in notes(mem.workspace, path):
        day = note_day(rel).isoformat()
        items = grounded(mem, rel, trust)
        at = int(datetime.fromisoformat(day).timestamp()) + 43_200
        reflection = rem(_day_view(items, day, at), Deltas(), at, rem_cfg.model_copy(update={"lookback_days": 1}))
        days.append({"day": day, "path": rel, "grounded": items, "themes": reflection.themes,
                     "truths": reflection.items, "body": reflection.body})
    return {"days": days, "grounded": sum(len(d["grounded"]) for d in days)}


def backfill(mem, path: str | None = None, *, stage: bool = False, dry_run: bool = False) -> dict:
    from .sweep import promotion_lock

    preview = harness(mem, path)
    if dry_run:
        return {**preview, "dryRun": True, "diaryEntries": len(preview["days"]), "staged": 0}
    staged: list[str] = []
    with promotion_lock(mem.places):
        def change(text: str) -> str:
            for d in preview["days"]:
                prose = _prose(d)
                text = df.add_diary(text, d["day"], prose, backfill=True)
            return text

        df.update(mem.workspace, change)
        if stage:
            conn = open_db(mem.places.agent_db)
            try:
                view = load(conn)
                deltas = Deltas()
                for d in preview["days"]:
                    at = int(datetime.fromisoformat(d["day"]).timestamp()) + 43_200
                    for it in d["grounded"]:
                        rec = sig.Recall(it["path"], it["startLine"], it["endLine"], it["snippet"], DAILY_SCORE)
                        deltas.signals.append((rec, {"grounded": 1, "at": at, "key": it["key"], "day": d["day"],
                                                     "provenance": {"source": "memory", "backfill": True}}))
                        staged.append(it["key"])
                before = list(view.state.get(STAGED_STATE) or [])
                deltas.state[STAGED_STATE] = sorted(set(before) | set(staged))
                apply(conn, deltas, int(datetime.now().timestamp()))
            finally:
                conn.close()
    return {**preview, "dryRun": False, "diaryEntries": len(preview["days"]), "staged": len(staged)}


def _prose(d: dict) -> str:
    if not d["grounded"]:
        return f"Backfill of {d['day']}: nothing in this day's note reads as a lasting fact."
    quotes = "; ".join(f"“{g['snippet'][:160]}”" for g in d["grounded"][:5])
    themes = ", ".join(t["tag"] for t in d["themes"][:3])
    return (f"Backfill of {d['day']}: {len(d['grounded'])} grounded entries: {quotes}."
            + (f" Themes: {themes}." if themes else ""))


def rollback(mem, *, diary: bool = True, short_term: bool = False, dry_run: bool = False) -> dict:
    from .sweep import promotion_lock

    out = {"diaryEntries": 0, "shortTermEntries": 0, "dryRun": dry_run}
    if dry_run:
        path = df.dreams_path(mem.workspace)
        if diary and path.is_file():
            out["diaryEntries"] = df.remove_backfill(path.read_text(encoding="utf-8"))[1]
        conn = open_readonly(mem.places.agent_db)
        try:
            out["shortTermEntries"] = len(load(conn).state.get(STAGED_STATE) or []) if short_term else 0
        finally:
            if conn is not None:
                conn.close()
        return out
    with promotion_lock(mem.places):
        if diary:
            counted = []

            def change(text: str) -> str:
                new, n = df.remove_backfill(text)
                counted.append(n)
                return new

            if df.dreams_path(mem.workspace).exists():
                df.update(mem.workspace, change)
            out["diaryEntries"] = counted[-1] if counted else 0
        if short_term:
            conn = open_db(mem.places.agent_db)
            try:
                view = load(conn)
                keys = [k for k in view.state.get(STAGED_STATE) or [] if k in view.entries]
                d = Deltas(state={STAGED_STATE: []})
                for k in keys:
                    e = view.entries[k]
                    if e.recall_count == 0 and e.daily_count == 0 and e.promoted_at is None:
                        d.removed.append(k)
                    else:
                        d.grounded_rollback.append(k)
                apply(conn, d, int(datetime.now().timestamp()))
                out["shortTermEntries"] = len(keys)
            finally:
                conn.close()
    return out
