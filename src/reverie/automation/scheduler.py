"""The scheduler: runs due jobs, exactly once each, across crashes and restarts.

For each due job, in order:

1. **Claim** (one ``BEGIN IMMEDIATE`` transaction): the job is due (``nextRunAtMs ≤ now``), enabled
   and not claimed; ``runningAtMs`` and ``runningBy`` (host, pid, token) are written. A second
   scheduler on the same database sees the claim and leaves the job alone.
2. **Run** the handler for the payload kind, outside any transaction.
3. **Finish** (one transaction): a run record is appended, the state updated, the next run
   computed (strictly after now, so runs missed while nothing was running collapse into this one),
   the claim released; a one-shot job that succeeded is deleted unless kept.

A claim left behind by a scheduler that died mid-run (its process is gone, or the claim is older
than ``stale_after``) is recorded as a ``lost`` run and the job runs again once. A job that came
due while no scheduler ran keeps its ``nextRunAtMs`` in the past, so the next pass runs it once.

Failures: a recurring job's consecutive errors push its next run back by at least 30 s, 60 s, 5 min,
15 min, then 60 min (reset on success); a one-shot job is retried after 30 s, 60 s and 5 min, then
disabled; an error marked permanent disables the job at once.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Callable

import apsw

from ..config import Settings
from ..store import LazyConnection, transaction
from . import jobs as J
from .handlers import DEFAULT_HANDLERS, HandlerRegistry, RunContext, RunOutcome
from .schedule import make_schedule, next_run, to_ms
from .schema import open_state_db

log = logging.getLogger("reverie.automation")

RECURRING_BACKOFF_MS = (30_000, 60_000, 300_000, 900_000, 3_600_000)
ONE_SHOT_RETRY_MS = (30_000, 60_000, 300_000)
STALE_CLAIM_MS = 60 * 60_000  # the reference's watchdog for an isolated agent turn

_HOST = socket.gethostname()
_LIVE_TOKENS: set[str] = set()  # claims this process is running right now
_LIVE_LOCK = threading.Lock()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def claim_abandoned(by: dict | None, running_at: int, now: int, stale_after: int) -> bool:
    """Whether a claim belongs to a run that can no longer finish."""
    if now - running_at >= stale_after:
        return True
    if not isinstance(by, dict) or by.get("host") != _HOST:
        return False  # another machine's claim: only age can tell
    pid = by.get("pid")
    if pid == os.getpid():
        with _LIVE_LOCK:
            return by.get("token") not in _LIVE_TOKENS
    return not isinstance(pid, int) or not _pid_alive(pid)


class Scheduler:
    """Runs the automations of one reverie home (its shared state database)."""

    def __init__(self, home: Path | str, settings: Settings | None = None, *,
                 handlers: HandlerRegistry | None = None, stale_after_ms: int = STALE_CLAIM_MS):
        self.home = Path(home)
        self.settings = settings or Settings()
        self.handlers = handlers if handlers is not None else DEFAULT_HANDLERS
        self.stale_after_ms = stale_after_ms
        self.db_path = self.home / "state" / "reverie.sqlite"
        self._db = LazyConnection(lambda: open_state_db(self.db_path))
        self._lock = threading.RLock()

    @property
    def default_tz(self) -> tzinfo:
        return self.settings.tz()

    def conn(self) -> apsw.Connection:
        return self._db.get()

    def close(self) -> None:
        self._db.close()

    # -- managing jobs --------------------------------------------------------------------------
    def add(self, *, payload: dict, at: str | None = None, every: str | None = None, cron: str | None = None,
            tz: str | None = None, agent: str = "main", name: str | None = None, description: str | None = None,
            keep: bool = False, now: datetime | None = None) -> dict:
        t = _ms(now)
        schedule = make_schedule(at=at, every=every, cron=cron, tz=tz, now_ms=t, default_tz=self.default_tz)
        job = J.make_job(schedule=schedule, payload=payload, now_ms=t, agent=agent, name=name,
                         description=description, keep=keep, default_tz=self.default_tz)
        with self._lock, transaction(self.conn()) as conn:
            J.insert(conn, job, t)
        return job.as_dict()

    def list(self, agent: str | None = None) -> list[dict]:
        with self._lock:
            out = [j.as_dict() for j in J.all_jobs(self.conn())]
        return [j for j in out if agent is None or j.get("agentId") == agent]

    def get(self, job_id: str) -> dict | None:
        with self._lock:
            job = J.get(self.conn(), job_id)
        return job.as_dict() if job else None

    def remove(self, job_id: str) -> bool:
        """Delete a job (its run history stays until it ages out)."""
        with self._lock, transaction(self.conn()) as conn:
            return J.delete(conn, job_id)

    def restore(self, items: list[dict], agent: str, now: datetime | None = None) -> tuple[list[str], list[str]]:
        """Insert exported jobs (``list()`` entries) whose id is free, as jobs of ``agent``, in one
        transaction; a running claim of the exporting scheduler is dropped. (added, skipped) ids."""
        t = _ms(now)
        added: list[str] = []
        skipped: list[str] = []
        with self._lock, transaction(self.conn()) as conn:
            for item in items:
                job = {k: v for k, v in item.items() if k != "state"}
                state = {**(item.get("state") or {}), "runningAtMs": None}
                state.pop("runningBy", None)
                if not job.get("id") or J.get(conn, job["id"]) is not None:
                    skipped.append(str(job.get("id")))
                    continue
                job["agentId"] = agent
                J.insert(conn, J.Job(job["id"], job, state), t)
                added.append(job["id"])
        return added, skipped

    def runs(self, job_id: str | None = None, limit: int = 50) -> list[dict]:
        with self._lock:
            return J.runs(self.conn(), job_id, limit)

    def next_wake_ms(self) -> int | None:
        """The earliest nextRunAtMs of an enabled, unclaimed job (None when nothing is scheduled).
        A job another scheduler is running is left out, or the loop would spin until it finished."""
        with self._lock:
            row = self.conn().execute(
                "SELECT min(json_extract(state_json, '$.nextRunAtMs')) FROM cron_jobs WHERE store_key = ? "
                "AND json_extract(job_json, '$.enabled') = 1 AND json_extract(state_json, '$.runningAtMs') IS NULL",
                (J.STORE_KEY,)).fetchone()
        return None if row[0] is None else int(row[0])

    # -- running --------------------------------------------------------------------------------
    def run_due(self, now: datetime | None = None, *, stop: threading.Event | None = None,
                clock: Callable[[], datetime] | None = None) -> list[dict]:
        """Run every job due at ``now`` once; returns the run records, oldest first.

        Without ``now`` the clock (``clock`` or the wall clock) is read again before each job, so
        a slow handler does not make later jobs run, and reschedule, as of a past time. ``stop``
        is honoured between jobs."""
        t = _ms(now or (clock() if clock else None))
        done: list[dict] = []
        tried: set[str] = set()
        with self._lock:
            with transaction(self.conn()) as conn:
                for rec in self._recover(conn, t):
                    done.append(rec)
                J.prune_runs(conn, t)
            while stop is None or not stop.is_set():
                if now is None and done:
                    t = _ms(clock() if clock else None)
                claimed = self._claim_next(t, tried)
                if claimed is None:
                    break
                job, token = claimed
                tried.add(job.id)
                try:
                    done.append(self._run(job, token, t, datetime.fromtimestamp(t / 1000, timezone.utc)))
                finally:
                    with _LIVE_LOCK:
                        _LIVE_TOKENS.discard(token)
        return done

    def due_at(self, now: datetime) -> list[dict]:
        """The jobs that would run at ``now``, without running or changing anything (a preview)."""
        t = _ms(now)
        with self._lock:
            return [{"id": job.id, "name": job.job.get("name"), "nextRunAtMs": job.state.get("nextRunAtMs")}
                    for job in J.all_jobs(self.conn())
                    if job.job.get("enabled", True) and job.state.get("nextRunAtMs") is not None
                    and int(job.state["nextRunAtMs"]) <= t]

    def _recover(self, conn: apsw.Connection, t: int) -> list[dict]:
        lost = []
        for job in J.all_jobs(conn):
            running = job.state.get("runningAtMs")
            if running is None or not claim_abandoned(job.state.get("runningBy"), int(running), t, self.stale_after_ms):
                continue
            entry = {"ts": int(running), "jobId": job.id, "jobName": job.job.get("name"), "status": "lost",
                     "error": "the scheduler stopped while this run was in progress; it runs again",
                     "scheduledAtMs": job.state.get("runningFor"), "runAtMs": int(running)}
            J.append_run(conn, job.id, entry, t)
            job.state.update(runningAtMs=None, runningBy=None, runningFor=None)
            J.save_state(conn, job, t)
            lost.append(entry)
        return lost

    def _claim_next(self, t: int, tried: set[str]) -> tuple[J.Job, str] | None:
        with transaction(self.conn()) as conn:
            for job in J.all_jobs(conn):
                nxt = job.state.get("nextRunAtMs")
                if (job.id in tried or not job.job.get("enabled", True) or nxt is None or int(nxt) > t
                        or job.state.get("runningAtMs") is not None):
                    continue
                token = uuid.uuid4().hex
                with _LIVE_LOCK:
                    _LIVE_TOKENS.add(token)
                job.state.update(runningAtMs=t, runningFor=int(nxt),
                                 runningBy={"host": _HOST, "pid": os.getpid(), "token": token})
                J.save_state(conn, job, t)
                return job, token
        return None

    def _run(self, job: J.Job, token: str, t: int, when: datetime) -> dict:
        kind = (job.job.get("payload") or {}).get("kind")
        handler = self.handlers.get(kind)
        started = time.monotonic()
        if handler is None:
            outcome = RunOutcome("error", error=f"no handler for payload kind {kind!r}")
        else:
            try:
                outcome = handler(job.job, RunContext(self.home, self.settings, when)) or RunOutcome("ok")
            except Exception as exc:  # a failing job must not stop the scheduler
                outcome = RunOutcome("error", error=f"{type(exc).__name__}: {exc}")
        duration = int((time.monotonic() - started) * 1000)
        return self._finish(job.id, token, outcome, t, duration)

    def _finish(self, job_id: str, token: str, outcome: RunOutcome, t: int, duration: int) -> dict:
        with transaction(self.conn()) as conn:
            job = J.get(conn, job_id)
            entry = {"ts": t, "jobId": job_id, "jobName": job.job.get("name") if job else None,
                     "status": outcome.status, "runAtMs": t, "durationMs": duration}
            for key, value in (("summary", outcome.summary), ("error", outcome.error)):
                if value:
                    entry[key] = value
            if outcome.details:
                entry["details"] = outcome.details
            if job is None:  # removed while it ran: keep the record, nothing to update
                J.append_run(conn, job_id, entry, t)
                return entry
            entry["scheduledAtMs"] = job.state.get("runningFor")
            if (job.state.get("runningBy") or {}).get("token") != token:
                # our claim was declared lost and the job taken over: record, change nothing
                J.append_run(conn, job_id, entry, t)
                return entry
            deleted = self._apply(conn, job, outcome, t, duration)
            entry["nextRunAtMs"] = None if deleted else job.state.get("nextRunAtMs")
            if deleted:
                entry["deleted"] = True
            J.append_run(conn, job_id, entry, t)
        log.info("automation %s: %s", job_id, outcome.status)
        return entry

    def _apply(self, conn: apsw.Connection, job: J.Job, outcome: RunOutcome, t: int, duration: int) -> bool:
        """Update the state after a run; True when the job was deleted."""
        s = job.state
        s.update(runningAtMs=None, runningBy=None, runningFor=None, lastRunAtMs=t, lastRunStatus=outcome.status,
                 lastDurationMs=duration, lastError=outcome.error if outcome.status == "error" else None)
        one_shot = job.schedule.get("kind") == "at"
        if outcome.status == "ok":
            s["consecutiveErrors"] = 0
            if one_shot:
                if job.job.get("deleteAfterRun"):
                    J.delete(conn, job.id)
                    return True
                job.job["enabled"] = False
                s["nextRunAtMs"] = None
            else:
                s["nextRunAtMs"] = next_run(job.schedule, t, self.default_tz)
        elif outcome.status == "error":
            n = int(s.get("consecutiveErrors") or 0) + 1
            s["consecutiveErrors"] = n
            if outcome.permanent or (one_shot and n > len(ONE_SHOT_RETRY_MS)):
                job.job["enabled"] = False
                s["nextRunAtMs"] = None
            elif one_shot:
                s["nextRunAtMs"] = t + ONE_SHOT_RETRY_MS[n - 1]
            else:
                backoff = RECURRING_BACKOFF_MS[min(n, len(RECURRING_BACKOFF_MS)) - 1]
                s["nextRunAtMs"] = max(next_run(job.schedule, t, self.default_tz), t + backoff)
        else:  # skipped: nothing failed, nothing was done
            if one_shot:
                job.job["enabled"] = False
                s["nextRunAtMs"] = None
            else:
                s["nextRunAtMs"] = next_run(job.schedule, t, self.default_tz)
        job.job["updatedAtMs"] = t
        J.save_state(conn, job, t)
        return False

    def run_forever(self, stop: threading.Event, *, poll_seconds: float = 5.0,
                    clock: Callable[[], datetime] | None = None,
                    on_run: Callable[[dict], None] | None = None) -> int:
        """Run due jobs until ``stop`` is set; returns how many runs were made. A job never runs
        half: a stop request is honoured between runs."""
        clock = clock or (lambda: datetime.now(timezone.utc))
        count = 0
        while not stop.is_set():
            for rec in self.run_due(stop=stop, clock=clock):
                count += 1
                if on_run:
                    on_run(rec)
            wake = self.next_wake_ms()
            wait = poll_seconds
            if wake is not None:
                wait = min(wait, max(0.05, (wake - to_ms(clock())) / 1000))
            stop.wait(wait)
        return count


def _ms(now: datetime | None) -> int:
    return to_ms(now or datetime.now(timezone.utc))
