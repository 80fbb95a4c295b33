"""Server-sent events for the live pages, and the same state as one cheap JSON answer.

A stream is an async generator (no thread per open page): every quarter second it compares the
watcher's counter and the agent's background jobs (re-index, Dreaming preview) with what it last
sent. It ends when the client goes away (the next write fails), when the server stops, or after
``MAX_STREAM_SECONDS`` (the browser's EventSource reconnects by itself), so a forgotten tab holds
nothing for long.
"""

from __future__ import annotations

import asyncio
import json
import time

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from .pages import served_memory

TICK_SECONDS = 0.25
KEEPALIVE_SECONDS = 10.0
MAX_STREAM_SECONDS = 600.0


def _event(kind: str, data: dict) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def events(request: Request):
    ui, agent, _ = served_memory(request)

    async def stream():
        version, _paths = ui.changes.version(agent)
        sent: dict[str, int] = {}  # job id -> the version last sent (jobs of every kind: a page picks its own)
        for job in ui.jobs.of(agent):
            sent[job.id] = job.version
            if job.state == "running":
                yield _event("job", job.snapshot())
        yield "retry: 2000\n\n"
        started = last_beat = time.monotonic()
        while not ui.stopping.is_set() and time.monotonic() - started < MAX_STREAM_SECONDS:
            if await request.is_disconnected():
                break
            v, paths = ui.changes.version(agent)
            if v != version:
                version = v
                yield _event("change", {"version": v, "paths": paths})
            for job in ui.jobs.of(agent):
                if sent.get(job.id) != job.version:
                    sent[job.id] = job.version
                    yield _event("job", job.snapshot())
            if time.monotonic() - last_beat > KEEPALIVE_SECONDS:
                last_beat = time.monotonic()
                yield ": keep-alive\n\n"
            await asyncio.sleep(TICK_SECONDS)

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})


def state(request: Request):
    """``{"version", "paths", "job"}``: what a page polls when it cannot hold a stream open."""
    ui, agent, _ = served_memory(request)
    version, paths = ui.changes.version(agent)
    job = ui.jobs.get(request.query_params.get("job", ""), agent) or ui.jobs.latest(agent)
    return JSONResponse({"version": version, "paths": paths, "job": job.snapshot() if job else None})
