"""Startup context (reference §3.3, addendum row 9): what a new or reset session starts with.

Besides the workspace files (:mod:`reverie.sessions.bootstrap`), the first turn of a new or reset
*direct* session gets today's and yesterday's daily notes, within budgets
(``sessions.startupContext``: ``dailyMemoryDays`` 2, ``maxFileBytes`` 16,384, ``maxFileChars`` 1,200,
``maxTotalChars`` 2,800):

* Days: today and the days before it in the user's zone (``dailyMemoryDays``, at most 14); when it
  is 1, yesterday too, but only for a session note while today has nothing; and the UTC date when it
  differs from the local one, for a session note (a host that named its note by UTC date).
  A day counts when it has a non-empty note.
* Within a day: session notes ``memory/YYYY-MM-DD-<slug>.md`` first (newest first), then the
  date-only ``memory/YYYY-MM-DD.md``. The first file of every day goes before further files of
  the same day.
* A file over ``maxFileBytes`` is read from its end (notes grow at the end); each file is cut to
  ``maxFileChars`` keeping its head and tail around a marker naming it; all together at most
  ``maxTotalChars`` (the rest clamped or skipped, and said so).
* Only ``owner``/``agent`` lines go in (docs/trust.md), and no entry annotated for a project that
  is not active (fail closed): the same rule removes those entries from ``MEMORY.md``.

Group and channel sessions, cron, heartbeat and sub-agent sessions get no daily notes: the notes are
the owner's private working memory, as ``MEMORY.md`` is.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from ..index.chunking import chunk_markdown, is_curated
from ..sessions.bootstrap import BootstrapFile, audience_of, load_bootstrap, truncate_file
from ..workspace.annotations import parse_annotations
from ..workspace.files import hard_link_problem, read_regular
from .projects import ProjectScope

MAX_DAYS = 14
TOTAL_CAP = 50_000
_NOTE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-(.+))?\.md$")


@dataclass
class NoteFile:
    path: str  # workspace-relative
    day: str
    role: str  # "session note" | "daily note"
    why: str  # why this day: today, yesterday, UTC date
    status: str = "not-read"  # injected | truncated | clamped | skipped-budget | empty | too-large | ...
    raw_chars: int = 0
    injected_chars: int = 0
    truncated: bool = False
    reason: str = ""
    removed_entries: int = 0
    first_line: int = 1
    last_line: int = 0
    text: str = ""
    mtime: float = 0.0

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("text")
        d.pop("mtime")
        return d


@dataclass
class StartupPlan:
    """Everything a session of one audience would start with, and why."""

    audience: str
    projects: list[str]
    files: list[BootstrapFile] = field(default_factory=list)
    notes: list[NoteFile] = field(default_factory=list)
    days: list[dict] = field(default_factory=list)  # every candidate day, chosen or not, and why
    notes_reason: str = ""  # why there are no notes at all, when there are none

    @property
    def truncated(self) -> list[str]:
        return ([f.name for f in self.files if f.truncated and f.status not in ("absent", "left-out")]
                + [n.path for n in self.notes if n.truncated])

    def as_dict(self) -> dict:
        return {"audience": self.audience, "projects": self.projects,
                "files": [f.as_dict() for f in self.files], "notes": [n.as_dict() for n in self.notes],
                "days": self.days, "notesReason": self.notes_reason or None, "truncated": self.truncated}


# -- entries of inactive projects ---------------------------------------------------------------------
def entry_filter(scope: ProjectScope) -> Callable[[str, str], tuple[str, int]]:
    """``(name, text) -> (text, removed)``: entries annotated for a project that is not active are
    blanked out, line numbers kept. ``USER.md`` is never project-scoped (reference §2.2)."""

    def apply(name: str, text: str) -> tuple[str, int]:
        if name.upper() == "USER.MD" or "project" not in text.lower():
            return text, 0
        lines = text.split("\n")
        removed = 0
        for unit in chunk_markdown(text, curated=is_curated(name)).units:
            projects = parse_annotations(unit.annotations).projects
            if projects and not scope.allows(projects):
                removed += 1
                for n in range(unit.start_line, unit.end_line + 1):
                    if 0 < n <= len(lines):
                        lines[n - 1] = ""
        if not removed:
            return text, 0
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)), removed

    return apply


# -- daily notes ---------------------------------------------------------------------------------------
def _day_files(memory_dir: Path, day: str) -> list[tuple[str, str, float]]:
    """(file name, role, mtime) of one day: session notes newest first, then the date-only note."""
    out = []
    try:
        names = os.listdir(memory_dir)
    except OSError:
        return []
    for name in names:
        m = _NOTE_RE.match(name)
        if not m or m.group(1) != day:
            continue
        try:
            st = os.stat(memory_dir / name)
        except OSError:
            continue
        if st.st_size == 0:
            continue
        out.append((name, "session note" if m.group(2) else "daily note", st.st_mtime))
    out.sort(key=lambda f: (f[1] != "session note", -f[2], f[0]))
    return out


def select_days(workspace: Path, now: datetime, tz, days: int) -> tuple[list[tuple[str, str, list]], list[dict]]:
    """The chosen days (day, why, files) in order, and every candidate with the reason."""
    days = max(1, min(MAX_DAYS, days))
    local = now.astimezone(tz).date()
    utc_day = now.astimezone(timezone.utc).date()
    memory_dir = workspace / "memory"

    def label(d: date) -> str:
        back = (local - d).days
        return {0: "today", 1: "yesterday"}.get(back, f"{back} days ago" if back > 0 else "UTC date")

    listed: list[dict] = []
    chosen: list[tuple[str, str, list]] = []
    files = {d: _day_files(memory_dir, d.isoformat()) for d in
             {local - timedelta(days=i) for i in range(max(days, 2))} | {utc_day}}
    today = files[local]
    if today:
        chosen.append((local.isoformat(), "today", today))
    listed.append({"day": local.isoformat(), "why": "today", "chosen": bool(today),
                   "reason": "" if today else "no note"})
    if utc_day != local:
        summaries = [f for f in files[utc_day] if f[1] == "session note"]
        ok = bool(summaries) and len(chosen) < days + 1
        if ok:
            chosen.append((utc_day.isoformat(), "UTC date", summaries))
        listed.append({"day": utc_day.isoformat(), "why": "UTC date", "chosen": ok,
                       "reason": "" if ok else "no session note for the UTC date"})
    for i in range(1, max(days, 2)):
        d = local - timedelta(days=i)
        if d == utc_day:
            continue
        have = files[d]
        if days == 1:  # yesterday only for a session note, and only when today had nothing
            have = [f for f in have if f[1] == "session note"] if not today else []
            reason = "today has a note" if today else "no session note"
        else:
            reason = "no note"
        ok = bool(have) and len(chosen) < days
        if ok:
            chosen.append((d.isoformat(), label(d), have))
        elif have:
            reason = f"sessions.startupContext.dailyMemoryDays = {days} days already chosen"
        listed.append({"day": d.isoformat(), "why": label(d), "chosen": ok, "reason": "" if ok else reason})
    return chosen, listed


def _read_note(workspace: Path, rel: str, max_bytes: int, allow_hard_links: bool) -> tuple[str | None, int, str]:
    """(text, first line number, problem) -- a file over ``max_bytes`` is read from its end."""
    try:
        data, st = read_regular(workspace / rel, max_bytes=2 * 1024 * 1024)
    except OSError:
        return None, 1, "not-regular"
    if data is None:
        return None, 1, "too-large"
    if not allow_hard_links and hard_link_problem(st):
        return None, 1, "hard-link"
    first = 1
    if len(data) > max_bytes:
        cut = len(data) - max_bytes
        nl = data.find(b"\n", cut)
        cut = nl + 1 if nl >= 0 else cut
        first = data.count(b"\n", 0, cut) + 1
        data = data[cut:]
    try:
        return data.decode("utf-8"), first, ""
    except UnicodeDecodeError:
        return None, 1, "not-utf8"


def load_notes(workspace: Path, settings, now: datetime, tz, scope: ProjectScope, *,
               admit: Callable[[str, str, int], tuple[str, int]] | None = None,
               allow_hard_links: bool = False) -> tuple[list[NoteFile], list[dict]]:
    chosen, listed = select_days(workspace, now, tz, settings.daily_memory_days)
    # the first file of every day, then the further files of each day
    order: list[tuple[str, str, tuple]] = [(day, why, fs[0]) for day, why, fs in chosen]
    order += [(day, why, f) for day, why, fs in chosen for f in fs[1:]]
    remaining = min(settings.max_total_chars, TOTAL_CAP)
    keep = entry_filter(scope)
    out: list[NoteFile] = []
    for day, why, (name, role, mtime) in order:
        rel = f"memory/{name}"
        note = NoteFile(rel, day, role, why, mtime=mtime)
        out.append(note)
        text, first, problem = _read_note(workspace, rel, settings.max_file_bytes, allow_hard_links)
        if text is None:
            note.status, note.truncated = problem, True
            continue
        note.first_line = first
        if first > 1:
            note.reason = f"read from line {first} (over maxFileBytes {settings.max_file_bytes:,})"
        text, note.removed_entries = keep(rel, text)
        dropped = 0
        if admit is not None:
            text, dropped = admit(rel, text, first)
        if dropped:
            note.reason = (note.reason + "; " if note.reason else "") + \
                f"{dropped} line(s) from outside reverie left out (untrusted)"
        note.last_line = first + text.rstrip("\n").count("\n")
        text = text.strip()
        if not text:
            note.status = "empty"
            continue
        note.raw_chars = len(text)
        if remaining < 64:
            note.status, note.truncated, note.reason = "skipped-budget", True, "total budget used up"
            continue
        body, cut = truncate_file(rel, text, settings.max_file_chars)
        note.status = "truncated" if cut or first > 1 else "injected"
        if len(body) > remaining:
            body, cut, note.status = body[:remaining - 1] + "…", True, "clamped"
        note.truncated = cut or first > 1
        note.text = body
        note.injected_chars = len(body)
        remaining -= len(body)
    return out, listed


def plan(memory, *, chat_type: str = "direct", session_kind: str = "interactive", scope: ProjectScope | None = None,
         now: datetime | None = None, memory_enabled: bool | None = None) -> StartupPlan:
    """What a session of this kind starts with (``reverie context``, ``/context``, status, doctor)."""
    settings = memory.settings
    scope = scope if scope is not None else ProjectScope()
    audience = audience_of(chat_type, session_kind)
    enabled = memory.switch.enabled if memory_enabled is None else memory_enabled
    trust = getattr(memory, "trust", None)
    workspace = memory.workspace
    boot = settings.sessions.bootstrap
    out = StartupPlan(audience, scope.keys)
    if boot.enabled and workspace.is_dir():
        out.files = load_bootstrap(workspace, chat_type=chat_type, max_chars=boot.max_chars,
                                   total_max_chars=boot.total_max_chars, user_max_chars=boot.user_max_chars,
                                   allow_hard_links=settings.search.allow_hard_links,
                                   admit=(lambda n, t: trust.injectable_lines(n, t)[0]) if trust else None,
                                   session_kind=session_kind, entries=entry_filter(scope), memory_enabled=enabled)
    sc = settings.sessions.startup_context
    if not sc.enabled:
        out.notes_reason = "sessions.startupContext.enabled = false"
    elif not enabled:
        out.notes_reason = "memory is disabled"
    elif audience != "main":
        out.notes_reason = f"{audience} sessions get no daily notes (only direct sessions do)"
    elif not workspace.is_dir():
        out.notes_reason = "no workspace yet"
    else:
        out.notes, out.days = load_notes(
            workspace, sc, now or datetime.now(timezone.utc), settings.tz(), scope,
            admit=(lambda rel, t, first: trust.injectable_lines(rel, t, first)) if trust else None,
            allow_hard_links=settings.search.allow_hard_links)
        if not out.notes:
            out.notes_reason = "no daily note for today or yesterday"
    return out
