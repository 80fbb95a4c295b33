"""Dreaming's managed automations (reference §16.2), one of each per workspace:

* **Memory Dreaming Promotion** -- ``memory.dreaming.frequency`` (``0 3 * * *``) in the Dreaming
  zone; its payload is a system event carrying :data:`DREAM_TOKEN`;
* **Memory Heartbeat Review** -- every ``memory.dreaming.heartbeat.every`` (6 hours); its payload
  carries :data:`HEARTBEAT_TOKEN` (seed 002's heartbeat memory review, :mod:`.heartbeat`).

:func:`reconcile` runs when the scheduler starts (``reverie scheduler run``) and on
``reverie dream schedule``: a missing job is created, a drifted one (schedule, zone, payload) is
replaced, duplicates are removed, and jobs of a disabled feature are deleted. Jobs are told apart
by the ``[managed-by=…]`` tag in their description, never by their name. Agents that share one
workspace get one job (the workspace's first agent runs it).

:func:`handler` is the ``systemEvent`` handler :meth:`reverie.Memory.scheduler` installs: an event
whose text holds a token (also inside a longer reminder) runs the sweep or the review for the
job's agent; any other event is appended to the daily note as before.
"""

from __future__ import annotations

import os
from pathlib import Path

DREAM_TOKEN = "__reverie_memory_dreaming_sweep__"
HEARTBEAT_TOKEN = "__reverie_memory_heartbeat_review__"
DREAM_TAG = "[managed-by=reverie.dreaming]"
HEARTBEAT_TAG = "[managed-by=reverie.heartbeat]"
DREAM_NAME = "Memory Dreaming Promotion"
HEARTBEAT_NAME = "Memory Heartbeat Review"


def _agents(mem) -> list[tuple[str, Path]]:
    """(agent, workspace) of every agent this home knows, one per workspace (real path)."""
    from ..paths import Places

    names = sorted({mem.places.agent, *mem.settings.agents}, key=lambda a: (a != "main", a))
    seen: dict[str, str] = {}
    out = []
    for agent in names:
        if agent == mem.places.agent:
            ws = mem.workspace
        else:
            conf = mem.settings.agents.get(agent)
            ws = Places.resolve(mem.places.home, agent, conf.workspace if conf else None).workspace
        real = os.path.realpath(ws)
        if real not in seen:
            seen[real] = agent
            out.append((agent, ws))
    return out


def wanted_jobs(mem) -> list[dict]:
    cfg = mem.settings.memory.dreaming
    zone = cfg.timezone or mem.settings.timezone
    out = []
    for agent, _ in _agents(mem):
        if cfg.enabled:
            sched = {"cron": cfg.frequency, "tz": zone}
            out.append({"agent": agent, "tag": DREAM_TAG, "name": DREAM_NAME, "token": DREAM_TOKEN, **sched})
        if cfg.enabled and cfg.heartbeat.enabled:
            out.append({"agent": agent, "tag": HEARTBEAT_TAG, "name": HEARTBEAT_NAME, "token": HEARTBEAT_TOKEN,
                        "every": cfg.heartbeat.every})
    return out


def _matches(job: dict, want: dict) -> bool:
    from ..automation.schedule import parse_duration

    s = job.get("schedule") or {}
    if (job.get("payload") or {}).get("text") != want["token"] or not job.get("enabled", True):
        return False
    if "cron" in want:
        return s.get("kind") == "cron" and s.get("expr") == want["cron"] and s.get("tz") == want["tz"]
    return s.get("kind") == "every" and s.get("everyMs") == parse_duration(want["every"])


def reconcile(mem, sched) -> dict:
    """Bring the managed jobs in line with the settings; returns what changed."""
    tags = (DREAM_TAG, HEARTBEAT_TAG)
    managed = [j for j in sched.list() if any(t in (j.get("description") or "") for t in tags)]
    created, removed, kept = [], [], []
    wanted = wanted_jobs(mem)
    for want in wanted:
        mine = [j for j in managed if j.get("agentId") == want["agent"] and want["tag"] in (j.get("description") or "")]
        good = next((j for j in mine if _matches(j, want)), None)
        for j in mine:
            if j is not good:
                sched.remove(j["id"])
                removed.append(j["id"])
        if good is not None:
            kept.append(good["id"])
            continue
        job = sched.add(payload={"kind": "systemEvent", "text": want["token"]}, cron=want.get("cron"),
                        every=want.get("every"), tz=want.get("tz") if want.get("cron") else None,
                        agent=want["agent"], name=want["name"],
                        description=f"{want['tag']} managed by reverie; change memory.dreaming settings instead")
        created.append(job["id"])
    wanted_keys = {(w["agent"], w["tag"]) for w in wanted}
    for j in managed:
        tag = next(t for t in tags if t in (j.get("description") or ""))
        if (j.get("agentId"), tag) not in wanted_keys and j["id"] not in removed:
            sched.remove(j["id"])
            removed.append(j["id"])
    return {"created": created, "removed": removed, "kept": kept}


def managed_jobs(mem) -> list[dict]:
    """The managed jobs as they are now (read-only: none are created)."""
    from ..automation import Scheduler

    if not mem.places.state_db.exists():
        return []
    sched = Scheduler(mem.places.home, mem.settings)
    try:
        tags = (DREAM_TAG, HEARTBEAT_TAG)
        return [{"id": j["id"], "name": j.get("name"), "agentId": j.get("agentId"), "schedule": j.get("schedule"),
                 "nextRunAtMs": (j.get("state") or {}).get("nextRunAtMs"),
                 "lastRunStatus": (j.get("state") or {}).get("lastRunStatus")}
                for j in sched.list() if any(t in (j.get("description") or "") for t in tags)]
    finally:
        sched.close()


def handler(memory, fallback):
    """The ``systemEvent`` handler: Dreaming's tokens run their work, anything else ``fallback``."""
    from ..automation.handlers import RunOutcome

    def run(job: dict, ctx) -> RunOutcome:
        text = (job.get("payload") or {}).get("text") or ""
        if DREAM_TOKEN not in text and HEARTBEAT_TOKEN not in text:
            return fallback(job, ctx)
        places = ctx.places(job.get("agentId"))
        same = places == memory.places
        mem = memory if same else type(memory)(home=ctx.home, agent=places.agent, workspace=places.workspace,
                                               settings=ctx.settings, env={})
        try:
            if not mem.workspace.is_dir():
                return RunOutcome("skipped", summary="no workspace yet")
            if DREAM_TOKEN in text:
                from .sweep import run_sweep

                sweep = run_sweep(mem, now=ctx.now)
                deep = sweep.phases.get("deep") or {}
                counts = deep.get("counts") or {}
                summary = (f"dreaming {deep.get('mode', 'none')}: +{counts.get('added', 0)} "
                           f"merged {counts.get('merged', 0)} superseded {counts.get('superseded', 0)}")
                return RunOutcome("ok", summary=summary, details={"agentId": places.agent, "deep": {
                    k: deep.get(k) for k in ("mode", "reason", "counts")}})
            from .heartbeat import review

            res = review(mem, now=ctx.now)
            return RunOutcome("skipped" if res.get("skipped") else "ok", summary=res.get("summary"),
                              details={"agentId": places.agent, **{k: v for k, v in res.items() if k != "summary"}})
        finally:
            if not same:
                mem.close()

    return run
