"""The only writes the web view makes, each behind the same-origin check (security.py) and the
session's CSRF token (checked here, first, before anything is read):

* edit ``MEMORY.md`` / ``USER.md``: compare-and-set through :mod:`reverie.workspace.writes`. The
  hash of the file as the edit page showed it is the expected hash; if the file changed on disk
  since, nothing is written and the page shows both versions (and their diff) for the owner to
  merge. The previous content is kept as a preimage in the agent folder.
* append to today's daily note (daily notes are append-only: there is no edit for them), recorded
  as the owner's (origin ``owner``, writer ``ui``) in the note's provenance segments.
* re-index: a sync (or, with ``force``, a rebuild) in the background, its progress streamed.
"""

from __future__ import annotations

import difflib
import hmac
from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse

from ..errors import UserError, WriteConflict
from ..trust import Provenance
from ..workspace.read import resolve_memory_path
from ..workspace.textclean import clean_text
from ..workspace.writes import apply_replace, plan_replace
from .pages import EDITABLE, served_memory, today_note
from .security import check_csrf
from .web import read_form, render, ui_of

# The page's user holds the token printed to whoever started the server: the home's owner.
OWNER_UI = Provenance("owner", "interactive", None, "ui")


async def checked_form(request: Request) -> dict[str, str]:
    """The posted form, after the CSRF check; raises :class:`CsrfRefused` when it fails."""
    form = await read_form(request)
    if form.get("_too_big"):
        raise CsrfRefused("request refused: the form is too large; nothing changed", 413)
    ui = ui_of(request)
    sid = request.scope.get("state", {}).get("ui_session")
    if not check_csrf(ui.guard, sid, form.get("csrf"), request.headers.get("x-csrf-token")):
        raise CsrfRefused("request refused: missing or wrong CSRF token (reload the page); nothing changed")
    return form


class CsrfRefused(Exception):
    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


def refused(request: Request, exc: CsrfRefused):
    return PlainTextResponse(str(exc) + "\n", status_code=exc.status)


def _editable(mem, raw: str):
    abspath, display = resolve_memory_path(mem.workspace, raw, mem.settings.search.extra_paths)
    if display not in EDITABLE:
        raise UserError(f"{display} cannot be edited here: only MEMORY.md and USER.md are; daily notes are "
                        "append-only")
    return abspath, display


def edit_page(request: Request):
    ui, agent, mem = served_memory(request)
    abspath, display = _editable(mem, request.query_params.get("path", ""))
    plan = plan_replace(abspath)
    return render(request, "edit.html", agent=agent, active="files", path=display, text=plan.text,
                  expected=plan.expected_hash)


async def edit_save(request: Request):
    form = await checked_form(request)
    ui, agent, mem = served_memory(request)
    abspath, display = _editable(mem, form.get("path", ""))
    text = clean_text(form.get("text", "")).text  # a textarea posts CRLF line ends
    expected = form.get("expected", "")
    plan = plan_replace(abspath)
    if not hmac.compare_digest(plan.expected_hash, expected):
        return _conflict(request, agent, display, text, plan, "changed on disk since you opened it")
    if text == plan.text:
        return RedirectResponse(f"/a/{agent}/file?path={quote(display, safe='')}&saved=unchanged", status_code=303)
    try:
        # Curated files carry no per-line origin (they are uniformly the agent's, docs/trust.md):
        # the compare-and-set rewrite with its preimage is the whole record of an owner's edit.
        apply_replace(plan, text, preimage_dir=mem.places.agent_dir / "preimages")
    except WriteConflict:
        return _conflict(request, agent, display, text, plan_replace(abspath), "changed on disk while saving")
    ui.changes.bump(agent, [display])
    return RedirectResponse(f"/a/{agent}/file?path={quote(display, safe='')}&saved=1", status_code=303)


def _conflict(request: Request, agent: str, display: str, mine: str, disk, why: str):
    diff = list(difflib.unified_diff(disk.text.splitlines(), mine.splitlines(), "on disk now", "your version",
                                     lineterm="", n=2))
    return render(request, "conflict.html", agent=agent, active="files", path=display, mine=mine,
                  disk=disk.text, expected=disk.expected_hash, why=why, diff=diff, code=409)


async def append_note(request: Request):
    form = await checked_form(request)
    ui, agent, mem = served_memory(request)
    text = form.get("text", "")
    if not text.strip():
        raise UserError("nothing to append: the text is empty")
    before = _line_count(mem.workspace / today_note(mem))
    path = mem.remember(text, provenance=OWNER_UI)
    display = path.relative_to(mem.workspace).as_posix()
    after = _line_count(path)
    ui.changes.bump(agent, [display])
    first = before + 1 if before and after > before else max(1, after - text.count("\n"))
    return RedirectResponse(f"/a/{agent}/file?path={quote(display, safe='')}&hl={first}-{after}&saved=1#L{first}", status_code=303)


def _line_count(path: Path) -> int:
    try:
        data = path.read_bytes()
    except OSError:
        return 0
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


async def reindex(request: Request):
    form = await checked_form(request)
    ui, agent, mem = served_memory(request)
    force = form.get("force") == "1"

    def work(progress) -> str:
        report = mem.rebuild(progress) if force else mem.sync(progress)
        return (f"{report.files} files, {report.changed} changed, {report.chunks_written} chunks written, "
                f"{report.embedded} embedded in {report.seconds:.1f} s"
                + (f"; embedding failed: {report.embedding_error}" if report.embedding_error else ""))

    job = ui.jobs.start(agent, "rebuild" if force else "sync", work)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"job": job.snapshot()}, status_code=202)
    return RedirectResponse(f"/a/{agent}/?job={job.id}", status_code=303)
