"""Jobs, their state and their run history in the shared state database (reference §22).

Each job is one ``cron_jobs`` row: ``job_json`` holds the definition (``{id, agentId, name,
description?, enabled, deleteAfterRun, createdAtMs, updatedAtMs, schedule, sessionTarget, wakeMode,
payload}``), ``state_json`` the runtime state (``nextRunAtMs, runningAtMs, runningBy, lastRunAtMs,
lastRunStatus, lastError, lastDurationMs, consecutiveErrors``). Run records go to ``cron_run_logs``,
kept for 7 days (``lost`` records a day) and at most the newest 2,000 per job.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

import apsw

from ..errors import UserError
from .handlers import PAYLOAD_KINDS
from .schedule import next_run, schedule_identity

STORE_KEY = "default"
RUN_HISTORY_PER_JOB = 2_000
RUN_HISTORY_MS = 7 * 86_400_000
LOST_HISTORY_MS = 86_400_000


@dataclass
class Job:
    id: str
    job: dict
    state: dict

    @property
    def schedule(self) -> dict:
        return self.job["schedule"]

    def as_dict(self) -> dict:
        return {**self.job, "state": self.state}


MAX_NAME_CHARS = 200  # a name is a label in lists and run logs, not a second message
MAX_DESCRIPTION_CHARS = 2_000


def make_job(*, schedule: dict, payload: dict, now_ms: int, agent: str, name: str | None = None,
             description: str | None = None, keep: bool = False, default_tz=None) -> Job:
    kind = payload.get("kind")
    if kind not in PAYLOAD_KINDS:
        raise UserError(f"payload kind must be one of {', '.join(PAYLOAD_KINDS)}")
    body = payload.get("text" if kind == "systemEvent" else "message")
    if not isinstance(body, str) or not body.strip():
        raise UserError("the payload needs a non-empty " + ("--text" if kind == "systemEvent" else "--message"))
    if name is not None and (not name.strip() or len(name) > MAX_NAME_CHARS or "\n" in name):
        raise UserError(f"a job's name is one line of 1 to {MAX_NAME_CHARS} characters (this one: {len(name):,}); "
                        "nothing was added")
    if description is not None and len(description) > MAX_DESCRIPTION_CHARS:
        raise UserError(f"a job's description is at most {MAX_DESCRIPTION_CHARS:,} characters "
                        f"(this one: {len(description):,}); nothing was added")
    job_id = "job_" + secrets.token_hex(5)
    label = name.strip() if name else " ".join(body.split())[:60]
    job = {"id": job_id, "agentId": agent, "name": label, "enabled": True,
           "deleteAfterRun": schedule["kind"] == "at" and not keep,
           "createdAtMs": now_ms, "updatedAtMs": now_ms, "schedule": schedule,
           "sessionTarget": "main", "wakeMode": "now", "payload": payload}
    if description:
        job["description"] = description
    state = {"nextRunAtMs": next_run(schedule, now_ms, default_tz), "runningAtMs": None,
             "consecutiveErrors": 0}
    return Job(job_id, job, state)


def insert(conn: apsw.Connection, job: Job, now_ms: int) -> None:
    order = conn.execute("SELECT coalesce(max(sort_order), 0) + 1 FROM cron_jobs WHERE store_key = ?",
                         (STORE_KEY,)).fetchone()[0]
    conn.execute("INSERT INTO cron_jobs(store_key, job_id, job_json, state_json, runtime_updated_at_ms, "
                 "schedule_identity, sort_order, updated_at) VALUES (?,?,?,?,?,?,?,?)",
                 (STORE_KEY, job.id, _dump(job.job), _dump(job.state), now_ms, schedule_identity(job.schedule),
                  order, now_ms))


def save_state(conn: apsw.Connection, job: Job, now_ms: int) -> None:
    conn.execute("UPDATE cron_jobs SET job_json = ?, state_json = ?, runtime_updated_at_ms = ?, updated_at = ? "
                 "WHERE store_key = ? AND job_id = ?",
                 (_dump(job.job), _dump(job.state), now_ms, now_ms, STORE_KEY, job.id))


def delete(conn: apsw.Connection, job_id: str) -> bool:
    conn.execute("DELETE FROM cron_jobs WHERE store_key = ? AND job_id = ?", (STORE_KEY, job_id))
    return conn.changes() > 0


def get(conn: apsw.Connection, job_id: str) -> Job | None:
    row = conn.execute("SELECT job_id, job_json, state_json FROM cron_jobs WHERE store_key = ? AND job_id = ?",
                       (STORE_KEY, job_id)).fetchone()
    return _job(row) if row else None


def all_jobs(conn: apsw.Connection) -> list[Job]:
    rows = conn.execute("SELECT job_id, job_json, state_json FROM cron_jobs WHERE store_key = ? "
                        "ORDER BY sort_order, job_id", (STORE_KEY,)).fetchall()
    return [_job(r) for r in rows]


def _job(row) -> Job:
    job_id, job_json, state_json = row
    try:
        state = json.loads(state_json or "{}")
    except ValueError:
        state = {}
    return Job(job_id, json.loads(job_json), state if isinstance(state, dict) else {})


def _dump(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


# -- run history ------------------------------------------------------------------------------------
def append_run(conn: apsw.Connection, job_id: str, entry: dict, now_ms: int) -> int:
    seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM cron_run_logs WHERE store_key = ? AND job_id = ?",
                       (STORE_KEY, job_id)).fetchone()[0]
    entry = {**entry, "seq": seq}
    conn.execute("INSERT INTO cron_run_logs(store_key, job_id, seq, ts, entry_json, created_at) VALUES (?,?,?,?,?,?)",
                 (STORE_KEY, job_id, seq, int(entry["ts"]), _dump(entry), now_ms))
    conn.execute("DELETE FROM cron_run_logs WHERE store_key = ? AND job_id = ? AND seq <= ?",
                 (STORE_KEY, job_id, seq - RUN_HISTORY_PER_JOB))
    return seq


def prune_runs(conn: apsw.Connection, now_ms: int) -> int:
    conn.execute("DELETE FROM cron_run_logs WHERE store_key = ? AND (ts < ? OR "
                 "(ts < ? AND json_extract(entry_json, '$.status') = 'lost'))",
                 (STORE_KEY, now_ms - RUN_HISTORY_MS, now_ms - LOST_HISTORY_MS))
    return conn.changes()


def runs(conn: apsw.Connection, job_id: str | None = None, limit: int = 50) -> list[dict]:
    sql = "SELECT entry_json FROM cron_run_logs WHERE store_key = ?"
    args: list = [STORE_KEY]
    if job_id:
        sql += " AND job_id = ?"
        args.append(job_id)
    sql += " ORDER BY ts DESC, seq DESC LIMIT ?"
    args.append(limit)
    return [json.loads(r[0]) for r in conn.execute(sql, args).fetchall()]
