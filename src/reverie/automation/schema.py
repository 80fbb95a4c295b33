"""Automation tables in the shared state database (reference §4.4, §22)."""

from __future__ import annotations

import apsw

from ..store import Migration, Migrations, connect

_CREATE = """
CREATE TABLE cron_jobs (
  store_key TEXT NOT NULL,
  job_id TEXT NOT NULL,
  job_json TEXT NOT NULL,               -- the definition: schedule, payload, name, agentId, ...
  state_json TEXT NOT NULL DEFAULT '{}', -- nextRunAtMs, runningAtMs, lastRunStatus, consecutiveErrors, ...
  runtime_updated_at_ms INTEGER,
  schedule_identity TEXT,
  sort_order INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (store_key, job_id)
);
CREATE TABLE cron_run_logs (
  store_key TEXT NOT NULL,
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  entry_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (store_key, job_id, seq)
);
CREATE INDEX cron_run_logs_ts ON cron_run_logs(store_key, ts);
"""

AUTOMATION_MIGRATIONS = Migrations("automations", [Migration("0001_cron_jobs", _CREATE)])


def open_state_db(path) -> apsw.Connection:
    conn = connect(path)
    AUTOMATION_MIGRATIONS.apply(conn)
    return conn
