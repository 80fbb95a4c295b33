"""Shared pieces of the recall tests: trusted notes written as reverie writes them, scripted models."""

from __future__ import annotations

from pathlib import Path

from reverie.models.scripted import ScriptedModel
from reverie.trust import Provenance, record_whole_file

from workspace_helpers import write  # noqa: F401  (the recall tests import it from here)


def write_trusted(mem, rel: str, text: str) -> Path:
    """A dated note created by reverie in one piece (as the session-memory hook does), so its lines
    are recorded as the agent's; a note written any other way reads as an outside edit."""
    path = mem.workspace / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    with record_whole_file(mem.places.agent_db, mem.workspace, path, data,
                           Provenance("agent", "interactive", None, "test")):
        path.write_bytes(data)
    return path


def scripted(**steps) -> ScriptedModel:
    return ScriptedModel(script={"steps": steps})


def system_of(model: ScriptedModel, kind: str = "turn") -> str:
    """The system prompt of the last request of ``kind``."""
    reqs = [r for r in model.requests if r["kind"] == kind]
    return reqs[-1]["messages"][0]["content"] if reqs else ""


def recall_marks(rt, lane: str | None = None) -> list[dict]:
    return [e.data for e in rt.store.events(rt.session.session_id, kinds=("system",))
            if e.data.get("event") == "recall" and (lane is None or e.data.get("lane") == lane)]
