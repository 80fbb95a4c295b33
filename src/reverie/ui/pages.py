"""The read pages about files: the overview of an agent, its memory files, one file."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from starlette.requests import Request
from starlette.responses import RedirectResponse

from ..index.discover import discover
from ..workspace.read import read_window, resolve_memory_path
from ..workspace.writes import daily_note_path
from .mdview import parse_range, render_lines
from .web import render, ui_of

EDITABLE = ("MEMORY.md", "USER.md")  # the owner's curated files; daily notes are append-only
_DAILY = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})(-[^/]+)?\.md$")
WINDOW_LINES = 5000
WINDOW_CHARS = 4_000_000
_FIRST = {"MEMORY.md": 0, "memory.md": 0, "USER.md": 1, "DREAMS.md": 2}


def served_memory(request: Request):
    """(ui, agent, Memory) for the agent in the URL; refused (403/404) when it is not served."""
    ui = ui_of(request)
    agent = request.path_params["agent"]
    return ui, agent, ui.home.memory(agent)


def today_note(mem) -> str:
    return daily_note_path(mem.workspace, datetime.now(mem.settings.tz())).relative_to(mem.workspace).as_posix()


def root(request: Request):
    ui = ui_of(request)
    return RedirectResponse(f"/a/{ui.home.served()[0]}/", status_code=303)


def memory_files(mem) -> tuple[list[dict], dict[str, str]]:
    """The agent's memory files as discovery (and so the indexer) sees them, curated files first,
    daily notes newest first; and the files skipped, with why."""
    settings = mem.settings.search
    found = discover(mem.workspace, settings.extra_paths, allow_hard_links=settings.allow_hard_links)
    rows = []
    for f in found.files:
        try:
            st = f.abspath.stat()
        except OSError:
            continue
        rows.append({"path": f.path, "source": f.source, "size": st.st_size, "mtime": st.st_mtime,
                     "daily": bool(_DAILY.match(f.path)), "editable": f.path in EDITABLE})

    def order(r):
        if r["path"] in _FIRST:
            return (0, _FIRST[r["path"]], "")
        if r["daily"]:
            return (1, 0, _invert(r["path"]))
        return (2, 0, r["path"])

    return sorted(rows, key=order), found.problems


def _invert(s: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) if ord(c) < 0x10FFFF else c for c in s)


def overview(request: Request):
    ui, agent, mem = served_memory(request)
    with ui.home.lock(agent):
        status = mem.status()
    files, problems = memory_files(mem) if mem.workspace.exists() else ([], {})
    counts = {"daily notes": sum(1 for f in files if f["daily"]), "files": len(files)}
    intents = Counter(i["status"] for i in mem.intents.list())
    sched = mem.scheduler()
    try:
        jobs = sched.list(agent=agent)
    finally:
        sched.close()
    from ..sessions import TranscriptStore

    store = TranscriptStore(mem.agent_store)
    try:
        sessions = len(store.sessions())
    finally:
        store.close()
    job = ui.jobs.latest(agent, ("sync", "rebuild"))
    return render(request, "overview.html", agent=agent, active="overview", status=status, files=files[:12],
                  more_files=max(0, len(files) - 12), counts=counts, intents=dict(intents),
                  automations=jobs, sessions=sessions, problems=problems,
                  job=job.snapshot() if job else None, today=today_note(mem))


def files_page(request: Request):
    ui, agent, mem = served_memory(request)
    files, problems = memory_files(mem) if mem.workspace.exists() else ([], {})
    return render(request, "files.html", agent=agent, active="files", files=files, problems=problems,
                  today=today_note(mem), workspace=str(mem.workspace), exists=mem.workspace.exists())


def file_page(request: Request):
    ui, agent, mem = served_memory(request)
    raw = request.query_params.get("path", "")
    settings = mem.settings.search
    abspath, display = resolve_memory_path(mem.workspace, raw, settings.extra_paths)
    hl = parse_range(request.query_params.get("hl"))
    start = _int(request.query_params.get("from"), 1)
    if hl and not (start <= hl[0] < start + WINDOW_LINES):
        start = max(1, hl[0] - 50)
    window = read_window(abspath, display, start, WINDOW_LINES, WINDOW_CHARS, allow_hard_links=settings.allow_hard_links)
    lines = []
    if window.get("text") is not None and not window.get("error") and window.get("status") != "not_found":
        body = "\n".join(window["text"].split("\n")[:window.get("lines", 0)])
        lines = render_lines(body + "\n" if body else "", first_line=start, highlight=hl)
    daily = _DAILY.match(display)
    origins = _mark_origins(mem, display, lines) if daily and lines else None
    return render(request, "file.html", agent=agent, active="files", path=display, lines=lines, window=window,
                  hl=hl, start=start, editable=display in EDITABLE, daily=bool(daily),
                  today=today_note(mem), is_today=display == today_note(mem), origins=origins,
                  saved=request.query_params.get("saved"),
                  restored={k: request.query_params.get(k, "") for k in ("preimage", "kept")},
                  code=404 if window.get("status") == "not_found" else 200)


def _mark_origins(mem, display: str, lines) -> dict[str, int] | None:
    """Give each line of a daily note the origin its segment recorded (owner / agent / untrusted /
    system; an edit made outside reverie reads as untrusted); returns lines per origin. Curated
    files (MEMORY.md, USER.md) have no segments: they are uniformly ``agent`` (docs/trust.md)."""
    found = mem.trust.origins(display)
    if found.record is None:
        return None
    per_line = found.record.lines()
    counts: dict[str, int] = {}
    previous = None
    for line in lines:
        if not 1 <= line.n <= len(per_line):
            continue
        who = per_line[line.n - 1][1]
        line.origin = who.origin
        line.origin_note = f"{who.origin}: {who.kind} session, written by {who.writer}"
        line.origin_start = (who.origin, who.kind, who.writer) != previous
        previous = (who.origin, who.kind, who.writer)
        counts[who.origin] = counts.get(who.origin, 0) + 1
    return counts


def _int(raw: str | None, default: int) -> int:
    try:
        return max(1, int(raw)) if raw else default
    except ValueError:
        return default
