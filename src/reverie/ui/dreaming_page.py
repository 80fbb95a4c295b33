"""The Dreaming page: what Dreaming did and would do (docs/dreaming.md), and its two writes.

Read: the status (``reverie dream status``), the promotion candidates with every score component
as a bar against its threshold (``reverie promote-explain``), the Dream Diary and the
consolidation history from ``DREAMS.md``, each rewrite's diff of ``MEMORY.md`` (its preimage is
the before, :mod:`reverie.dreaming.history`), and the preimages kept.

Write, each behind the same-origin check and the CSRF token:

* **Preview**: ``reverie dream run --dry-run`` as a background job (:class:`~.live.Jobs`), its
  progress streamed, its report shown when it ends. A dry run changes nothing, but it runs the
  consolidation model, so it is a POST like every action.
* **Restore** a preimage into ``MEMORY.md``: a confirmation page shows the difference from the
  file now and carries the file's hash; the restore is refused (409, nothing written) if the file
  changed since, and what it replaces is kept as a preimage in turn.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse

from ..errors import UserError, WriteConflict
from . import dreambars
from .explain import WIDTH
from .pages import served_memory
from .web import render
from .writes import checked_form

CANDIDATES_SHOWN = 12


def _dreams_text(mem) -> str:
    from ..dreaming.dreamsfile import dreams_path

    try:
        path = dreams_path(mem.workspace)
    except UserError:
        return ""
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def dreaming_page(request: Request):
    ui, agent, mem = served_memory(request)
    from ..dreaming.dreamsfile import diary_entries
    from ..dreaming.history import history
    from ..dreaming.inspect import candidates, status
    from ..dreaming.preimages import listing

    state = status(mem)  # both read through their own read-only connections
    cands = candidates(mem, limit=CANDIDATES_SHOWN)
    for c in cands["entries"]:
        c["bars"] = dreambars.rows(c)
    job = ui.jobs.get(request.query_params.get("job", ""), agent) or ui.jobs.latest(agent, ("dream",))
    if job is not None and job.kind != "dream":
        job = None
    return render(request, "dreaming.html", agent=agent, active="dreaming", status=state, cands=cands,
                  width=WIDTH, diary=diary_entries(_dreams_text(mem))[::-1], history=history(mem),
                  preimages=listing(mem.places, mem.workspace), job=job.snapshot() if job else None,
                  report=job.result if job is not None and job.state == "done" else None)


async def dream_preview(request: Request):
    await checked_form(request)
    ui, agent, mem = served_memory(request)

    def work(progress):
        report = mem.dream(dry_run=True, progress=progress).as_dict()
        deep = report["phases"].get("deep") or {}
        c = deep.get("counts") or {}
        summary = (f"would promote {len(deep.get('promoted') or [])} ({deep.get('mode', 'none')}: +{c.get('added', 0)} "
                   f"merged {c.get('merged', 0)} superseded {c.get('superseded', 0)}); nothing was changed"
                   if deep else "nothing was changed")
        return summary, report

    job = ui.jobs.start(agent, "dream", work)
    url = f"/a/{agent}/dreaming?job={job.id}"
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"job": job.snapshot(), "url": url}, status_code=202)
    return RedirectResponse(url + "#preview", status_code=303)


def _restore_view(mem, ident: str) -> dict:
    """What restoring preimage ``ident`` would do: its difference from MEMORY.md now."""
    from ..dreaming.history import diff_lines
    from ..dreaming.preimages import listing, restore
    from ..dreaming.promote import memory_path
    from ..workspace.writes import plan_replace

    plan = restore(mem.places, mem.workspace, ident, dry_run=True)
    pick = next((i for i in listing(mem.places, mem.workspace) if i["id"] == plan["restored"]), None)
    if pick is None:  # pruned between the two listings (a sweep kept a newer one)
        raise UserError(f"preimage {ident!r} is no longer kept: open the Dreaming page again")
    with open(pick["file"], "rb") as fh:
        text = fh.read().decode("utf-8", errors="replace")
    now = plan_replace(memory_path(mem.workspace))
    return {"plan": plan, "preimage": pick, "expected": now.expected_hash, "diff": diff_lines(now.text, text, 2)}


def restore_page(request: Request):
    ui, agent, mem = served_memory(request)
    ident = request.query_params.get("id", "")
    return render(request, "restore.html", agent=agent, active="dreaming", **_restore_view(mem, ident))


async def restore_apply(request: Request):
    form = await checked_form(request)
    ui, agent, mem = served_memory(request)
    from ..dreaming.preimages import restore

    ident, expected = form.get("id", ""), form.get("expected", "")
    if not expected:
        raise UserError("restore needs the hash of MEMORY.md as reviewed: open the restore page again")
    try:
        done = await run_in_threadpool(restore, mem.places, mem.workspace, ident, expected_sha256=expected)
    except WriteConflict as exc:
        return render(request, "restore.html", agent=agent, active="dreaming", conflict=str(exc), code=409,
                      **_restore_view(mem, ident))
    name = Path(done["path"]).name
    ui.changes.bump(agent, [name])
    kept = done.get("previousKeptAs") or ""
    return RedirectResponse(f"/a/{agent}/file?path={quote(name)}&saved=restored&preimage={quote(done['restored'])}"
                            f"&kept={quote(kept)}", status_code=303)
