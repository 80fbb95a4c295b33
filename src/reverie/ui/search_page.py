"""The search page: ``reverie search --explain`` drawn, one result at a time."""

from __future__ import annotations

from starlette.requests import Request

from ..errors import UserError
from . import explain
from .pages import served_memory
from .web import render

SYNC_WAIT_SECONDS = 2.0  # as the CLI: a dirty index may catch up this long before answering
MAX_RESULTS = 50


def search_page(request: Request):
    ui, agent, mem = served_memory(request)
    q = (request.query_params.get("q") or "").strip()
    n = _number(request.query_params.get("n"), int, 1, MAX_RESULTS)
    min_score = _number(request.query_params.get("min"), float, 0.0, 1.0)
    threshold = mem.settings.search.query.min_score if min_score is None else min_score
    data, hits = None, []
    if q:
        with ui.home.lock(agent):
            # The owner browsing is not the agent recalling: no recall signals are recorded, so
            # looking at memory in the web view never changes what gets promoted later.
            data = mem.search(q, n, min_score, explain=True, sync_wait=SYNC_WAIT_SECONDS, record_signals=False)
        for i, hit in enumerate(data.get("results", []), 1):
            prov = hit.get("provenance") or {}
            hits.append({"i": i, "hit": hit, "bars": explain.rows(hit, threshold), "origin": prov.get("originClass"),
                         "kind": prov.get("sessionKind"), "width": explain.WIDTH})
    return render(request, "search.html", agent=agent, active="search", q=q, n=n or "", min=min_score,
                  threshold=threshold, data=data, hits=hits)


def _number(raw: str | None, kind, low, high):
    if raw in (None, ""):
        return None
    try:
        value = kind(raw)
    except ValueError:
        raise UserError(f"not a number: {raw!r}") from None
    if not low <= value <= high:
        raise UserError(f"{raw} is outside {low}..{high}")
    return value
