"""The Forget page: ``reverie forget`` planned, confirmed, applied (docs/trust.md).

1. The form takes the selectors (session ids or keys, participants, hook sources -- one per line --
   a ``since`` date, facts to forget as text) and posts them for a **plan**: a dry run that changes
   nothing, shown as every artifact count, the files and lines, mixed-lineage entries, refusals.
   (A POST, not a GET: the text to forget must not end up in an address bar or a history.)
2. The plan page carries the selectors and a fingerprint of the plan; **applying** needs the
   confirmation box ticked and the plan unchanged -- if anything it covers changed since (a note
   appended, a session recorded), the new plan is shown to confirm again and nothing is removed.
3. The report (the JSON ``reverie forget --json`` prints) is shown as tables, the JSON below them.

Both posts pass the same-origin check and need the CSRF token, like every write.
"""

from __future__ import annotations

import hashlib
import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from ..errors import UserError
from .pages import served_memory
from .web import render
from .writes import checked_form

FIELDS = ("session", "participant", "hook_source", "since", "text")
ARTIFACTS = [  # report key, what it counts (in the report's order of importance to a person)
    ("memoryLines", "memory lines"), ("memoryFiles", "memory files"), ("memoryEntries", "MEMORY.md entries"),
    ("sessionCorpusLines", "session corpus lines"), ("sessionCorpusFiles", "session corpus files"),
    ("transcriptEvents", "transcript events"), ("transcriptSearchRows", "transcript search rows"),
    ("indexChunks", "index chunks"), ("indexSources", "index sources"), ("ftsRows", "keyword index rows"),
    ("vectorRows", "vectors"), ("embeddingCacheRows", "cached embeddings"),
    ("shortTermEntries", "short-term recall entries"), ("seenHashScopes", "Dreaming ingestion records"),
    ("backups", "preimages"), ("originRows", "origin rows"), ("standingIntents", "standing intents"),
]


def _fields(form: dict[str, str]) -> dict[str, str]:
    return {k: (form.get(k) or "").replace("\r\n", "\n") for k in FIELDS}


def _lines(value: str) -> list[str]:
    return [v.strip() for v in value.split("\n") if v.strip()]


def _selectors(fields: dict[str, str], tz):
    from ..forget import Selectors
    from ..forget.select import parse_since

    sel = Selectors(_lines(fields["session"]), _lines(fields["participant"]), _lines(fields["hook_source"]),
                    parse_since(fields["since"], tz), _lines(fields["text"]))
    sel.check()
    return sel


def fingerprint(report: dict) -> str:
    """What a plan would do, as one hash (the dry-run flag aside): applying requires it unchanged."""
    body = {k: v for k, v in report.items() if k != "dryRun"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _forget(ui, agent: str, mem, fields: dict[str, str], dry_run: bool) -> dict:
    from ..forget import forget

    sel = _selectors(fields, mem.settings.tz())
    with ui.home.lock(agent):  # no page read on the agent's shared connections meanwhile
        return forget(mem, sel, dry_run=dry_run)


def _page(request: Request, agent: str, fields: dict[str, str], **ctx):
    report = ctx.get("report")
    return render(request, "forget.html", agent=agent, active="forget", fields=fields, artifacts=ARTIFACTS,
                  fingerprint=fingerprint(report) if report else "",
                  report_json=json.dumps(report, ensure_ascii=False, indent=2) if report else "", **ctx)


def forget_page(request: Request):
    ui, agent, mem = served_memory(request)
    fields = {k: request.query_params.get(k, "") for k in ("session", "participant", "hook_source", "since")}
    fields["text"] = ""  # never taken from an address
    return _page(request, agent, fields, report=None, stage="form")


async def forget_preview(request: Request):
    form = await checked_form(request)
    ui, agent, mem = served_memory(request)
    fields = _fields(form)
    try:
        report = await run_in_threadpool(_forget, ui, agent, mem, fields, True)
    except UserError as exc:
        return _page(request, agent, fields, report=None, stage="form", error=str(exc).splitlines()[0], code=400)
    return _page(request, agent, fields, report=report, stage="plan")


def _apply_if_unchanged(ui, agent: str, mem, fields: dict[str, str], confirmed: bool, seen: str):
    """Plan again and apply only if the plan is the one the owner confirmed: ``(plan, report)``,
    ``report`` None when nothing was done. Both under the agent's lock: one forget at a time from
    this server, and the window between the check and the forget is as short as it can be (the
    forget itself works on what it finds then, by the same selectors)."""
    with ui.home.lock(agent):
        plan = _forget(ui, agent, mem, fields, True)
        if not confirmed or fingerprint(plan) != seen:
            return plan, None
        return plan, _forget(ui, agent, mem, fields, False)


async def forget_apply(request: Request):
    form = await checked_form(request)
    ui, agent, mem = served_memory(request)
    fields = _fields(form)
    try:
        plan, report = await run_in_threadpool(_apply_if_unchanged, ui, agent, mem, fields,
                                               form.get("confirm") == "1", form.get("fingerprint", ""))
    except UserError as exc:
        return _page(request, agent, fields, report=None, stage="form", error=str(exc).splitlines()[0], code=400)
    if form.get("confirm") != "1":
        return _page(request, agent, fields, report=plan, stage="plan", code=400,
                     error="Nothing was forgotten: tick the confirmation to apply this plan.")
    if report is None:
        return _page(request, agent, fields, report=plan, stage="plan", code=409,
                     error="Nothing was forgotten: the plan changed since you previewed it (something it covers was "
                           "written or removed meanwhile). Review the plan below and confirm again.")
    changed = [f["path"] for f in report["files"]]
    if changed:
        ui.changes.bump(agent, changed)
    return _page(request, agent, fields, report=report, stage="done")
