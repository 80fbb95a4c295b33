"""What a run does, per payload kind: a registry of handlers.

A handler takes the job (its JSON definition) and a :class:`RunContext` and returns a
:class:`RunOutcome` (returning None means ``ok``; raising means ``error``). The built-ins:

* ``systemEvent``: append the text to the owning agent's daily note (``memory/YYYY-MM-DD.md``,
  append-only, through :func:`reverie.workspace.append_daily`).
* ``agentTurn``: run through the chat runtime; the runtime sits above this package, so its handler
  (:mod:`reverie.cron_turns`) is registered by :meth:`reverie.Memory.scheduler`, which the CLI
  uses. A bare :class:`Scheduler` without it records the run as an error naming the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable, Optional

from ..config import Settings
from ..paths import Places
from ..trust import Provenance, daily_guard
from ..workspace import append_daily, init_workspace

PAYLOAD_KINDS = ("systemEvent", "agentTurn")


@dataclass
class RunOutcome:
    status: str = "ok"  # ok | error | skipped
    summary: str | None = None
    error: str | None = None
    permanent: bool = False  # an error retrying cannot fix: the job is disabled
    details: dict = field(default_factory=dict)


@dataclass
class RunContext:
    home: Path
    settings: Settings
    now: datetime  # the scheduler's clock at the start of the run (aware)

    def places(self, agent: str | None) -> Places:
        configured = self.settings.agents.get(agent or "main")
        return Places.resolve(self.home, agent, configured.workspace if configured else None)


Handler = Callable[[dict, RunContext], Optional[RunOutcome]]


class HandlerRegistry:
    def __init__(self, handlers: dict[str, Handler] | None = None):
        self._handlers: dict[str, Handler] = dict(handlers or {})

    def register(self, kind: str, handler: Handler) -> None:
        self._handlers[kind] = handler

    def get(self, kind: str) -> Handler | None:
        return self._handlers.get(kind)

    def copy(self) -> "HandlerRegistry":
        return HandlerRegistry(self._handlers)

    def kinds(self) -> list[str]:
        return sorted(self._handlers)


def system_event(job: dict, ctx: RunContext) -> RunOutcome:
    text = (job.get("payload") or {}).get("text") or ""
    if not text.strip():
        return RunOutcome("error", error="system event has no text", permanent=True)
    places = ctx.places(job.get("agentId"))
    if not places.workspace.exists():
        init_workspace(places.workspace)
    body = " ".join(text.split())
    name = " ".join((job.get("name") or "").split())
    label = f"[automation: {name}]" if name and not body.startswith(name) else "[automation]"
    # job text is scaffolding: its segment is "system", from a cron session (never promoted)
    guard = daily_guard(places.agent_db, places.workspace, Provenance("system", "cron", None, "automation"))
    note = append_daily(places.workspace, f"{label} {text.strip()}", now=ctx.now, tz=ctx.settings.tz(), guard=guard)
    return RunOutcome("ok", summary=f"appended to {note.relative_to(places.workspace).as_posix()}",
                      details={"agentId": places.agent, "path": str(note)})


def agent_turn(job: dict, ctx: RunContext) -> RunOutcome:
    # never silently skipped (a job that "ran" without doing anything is a lie in the history)
    return RunOutcome("error", error="agent turns need the chat runtime: run the scheduler through "
                      "reverie (`reverie scheduler run`, or Memory.scheduler() in Python)")


DEFAULT_HANDLERS = HandlerRegistry({"systemEvent": system_event, "agentTurn": agent_turn})


def register_handler(kind: str, handler: Handler) -> None:
    """Make every scheduler that uses the default registry run ``kind`` payloads with ``handler``."""
    DEFAULT_HANDLERS.register(kind, handler)


def default_handlers() -> HandlerRegistry:
    """A private copy of the defaults, to extend without touching other schedulers."""
    return DEFAULT_HANDLERS.copy()
