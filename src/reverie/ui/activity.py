"""The read pages about what happens over time: standing intents, automations, sessions."""

from __future__ import annotations

from dataclasses import fields

from starlette.requests import Request

from ..errors import UserError
from .pages import served_memory
from .web import render

RUNS_SHOWN = 10
SESSIONS_SHOWN = 200


def acting_page(request: Request):
    ui, agent, mem = served_memory(request)
    intents = mem.intents.list()
    for i in intents:
        i["fires"] = mem.intents.fires(i["id"])
    from ..automation import describe

    sched = mem.scheduler()
    try:
        jobs = sched.list(agent=agent)
        for j in jobs:
            j["describe"] = describe(j["schedule"])
            j["runs"] = sched.runs(j["id"], limit=RUNS_SHOWN)
    finally:
        sched.close()
    return render(request, "acting.html", agent=agent, active="acting", intents=intents, jobs=jobs)


def _owner_caller(key: str):
    """The owner as a caller that sees every session of the agent (a search writes nothing)."""
    from ..sessions import SessionRow

    values = {f.name: None for f in fields(SessionRow)}
    values.update(session_id="", session_key=key, channel="ui", chat_type="direct", origin="chat")
    for f in fields(SessionRow):
        if values[f.name] is None and f.type in ("int", int):
            values[f.name] = 0
    return SessionRow(**values)


def sessions_page(request: Request):
    ui, agent, mem = served_memory(request)
    from ..sessions import TranscriptStore, main_key, search

    q = (request.query_params.get("q") or "").strip()
    store = TranscriptStore(mem.places.agent_db)
    try:
        rows = [r.as_dict() for r in store.sessions(limit=SESSIONS_SHOWN)]
        found = None
        if q:
            key = main_key(agent)
            caller = store.current_session(key) or _owner_caller(key)
            found = search(store, caller, q, visibility="agent", owner=True, limit=25)
    finally:
        store.close()
    return render(request, "sessions.html", agent=agent, active="sessions", sessions=rows, q=q, found=found)


def session_page(request: Request):
    ui, agent, mem = served_memory(request)
    from ..sessions import TranscriptStore

    every = request.query_params.get("all") == "1"
    store = TranscriptStore(mem.places.agent_db)
    try:
        row = store.session(request.path_params["sid"])
        if row is None:
            raise UserError(f"no session {request.path_params['sid']!r} for agent {agent}")
        events = [e.data | {"_kind": e.kind, "_ts": e.timestamp, "_pos": e.position}
                  for e in store.events(row.session_id, kinds=None if every else ("user", "assistant"))]
    finally:
        store.close()
    return render(request, "session.html", agent=agent, active="sessions", session=row.as_dict(), events=events,
                  every=every)
