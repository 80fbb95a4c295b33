"""Automations on a real shared state database with an injected clock: schedules and next runs,
the scheduler running `at`, `every` and `cron` jobs, backoff and retries, handlers, run history."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from reverie.automation import (RECURRING_BACKOFF_MS, HandlerRegistry, RunOutcome, ScheduleError, Scheduler,
                                default_handlers, make_schedule, next_run, parse_duration)
from reverie.automation import jobs as J
from reverie.config import Settings
from reverie.errors import UserError
from reverie.store import connect, transaction

T0 = datetime(2026, 7, 1, 9, 0, tzinfo=timezone.utc)
MS = lambda d: int(d.timestamp() * 1000)  # noqa: E731
SEC = timedelta(seconds=1)
MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def home(reverie_home: Path) -> Path:
    return reverie_home


@pytest.fixture
def sched(home: Path):
    s = Scheduler(home, Settings(timezone="UTC"))
    yield s
    s.close()


def note(home: Path, day: str = "2026-07-01", agent_ws: str = "workspace") -> str:
    p = home / agent_ws / "memory" / f"{day}.md"
    return p.read_text(encoding="utf-8") if p.exists() else ""


def event(text: str) -> dict:
    return {"kind": "systemEvent", "text": text}


# -- schedules --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,ms", [("30s", 30_000), ("5m", 300_000), ("2h", 7_200_000), ("1d", 86_400_000),
                                     ("1h30m", 5_400_000), ("1w", 604_800_000), (" 90 s ", 90_000), ("1.5h", 5_400_000)])
def test_durations(text, ms):
    assert parse_duration(text) == ms


@pytest.mark.parametrize("text", ["", "30", "5 minutes", "m5", "1h x", "-5m"])
def test_bad_durations(text):
    with pytest.raises(ScheduleError, match="cannot read duration"):
        parse_duration(text)


@pytest.mark.parametrize("kw,needle", [
    ({}, "exactly one schedule"),
    ({"at": "+1h", "every": "5m"}, "exactly one schedule"),
    ({"at": "2026-07-01T08:00:00Z"}, "in the past"),
    ({"at": "tomorrow"}, "cannot read time"),
    ({"every": "500ms"}, "at least 1s"),
    ({"cron": "0 9 * *"}, "5 fields"),
    ({"cron": "0 0 9 * * *"}, "5 fields"),
    ({"cron": "61 9 * * *"}, "bad cron expression"),
    ({"cron": "0 9 * * *", "tz": "Mars/Olympus"}, "unknown time zone"),
])
def test_bad_schedules(kw, needle):
    with pytest.raises(ScheduleError, match=needle):
        make_schedule(now_ms=MS(T0), **kw)


def test_at_parsing_offsets_relative_and_bare_times():
    from zoneinfo import ZoneInfo

    assert make_schedule(at="+20m", now_ms=MS(T0))["atMs"] == MS(T0 + 20 * MIN)
    assert make_schedule(at="2026-07-02T09:00+08:00", now_ms=MS(T0))["at"] == "2026-07-02T01:00:00Z"
    # a bare time is read in --tz, else the default zone, else UTC
    assert make_schedule(at="2026-07-02T09:00", now_ms=MS(T0))["at"] == "2026-07-02T09:00:00Z"
    assert make_schedule(at="2026-07-02T09:00", tz="Asia/Shanghai", now_ms=MS(T0))["at"] == "2026-07-02T01:00:00Z"
    assert make_schedule(at="2026-07-02T09:00", now_ms=MS(T0),
                         default_tz=ZoneInfo("America/New_York"))["at"] == "2026-07-02T13:00:00Z"


def test_next_run_every_is_anchored():
    s = {"kind": "every", "everyMs": 30 * 60_000, "anchorMs": MS(T0)}
    assert next_run(s, MS(T0)) == MS(T0 + 30 * MIN)
    assert next_run(s, MS(T0 + 30 * MIN)) == MS(T0 + 60 * MIN)  # strictly after
    assert next_run(s, MS(T0 + 47 * MIN)) == MS(T0 + 60 * MIN)  # a late run does not drift
    assert next_run(s, MS(T0 - HOUR)) == MS(T0)


def test_next_run_cron_in_a_time_zone_across_dst():
    sh = {"kind": "cron", "expr": "0 9 * * *", "tz": "Asia/Shanghai"}
    assert next_run(sh, MS(datetime(2026, 7, 1, 0, 30, tzinfo=timezone.utc))) == MS(datetime(2026, 7, 1, 1, 0, tzinfo=timezone.utc))
    assert next_run(sh, MS(datetime(2026, 7, 1, 1, 0, tzinfo=timezone.utc))) == MS(datetime(2026, 7, 2, 1, 0, tzinfo=timezone.utc))
    ny = {"kind": "cron", "expr": "0 9 * * *", "tz": "America/New_York"}
    # 09:00 New York is 14:00 UTC in winter and 13:00 UTC after the March switch
    assert next_run(ny, MS(datetime(2026, 3, 7, 15, tzinfo=timezone.utc))) == MS(datetime(2026, 3, 8, 13, tzinfo=timezone.utc))
    assert next_run(ny, MS(datetime(2026, 3, 6, 15, tzinfo=timezone.utc))) == MS(datetime(2026, 3, 7, 14, tzinfo=timezone.utc))


# -- running jobs -----------------------------------------------------------------------------------
def test_an_at_job_runs_once_then_is_deleted(sched, home):
    job = sched.add(payload=event("look at the train tickets"), at="2026-07-01T10:00:00Z", now=T0)
    assert job["state"]["nextRunAtMs"] == MS(T0 + HOUR) and job["deleteAfterRun"] is True
    assert sched.run_due(T0 + HOUR - SEC) == []
    runs = sched.run_due(T0 + HOUR)
    assert [(r["jobId"], r["status"], r["deleted"]) for r in runs] == [(job["id"], "ok", True)]
    assert sched.get(job["id"]) is None
    assert sched.run_due(T0 + 2 * HOUR) == []
    text = note(home)
    assert text.count("look at the train tickets") == 1 and "- 10:00 [automation] look at the train tickets" in text
    assert [r["status"] for r in sched.runs(job["id"])] == ["ok"]  # history outlives the job


def test_a_kept_at_job_stays_disabled(sched):
    job = sched.add(payload=event("x"), at="+1h", keep=True, now=T0, name="Keep me")
    sched.run_due(T0 + HOUR)
    kept = sched.get(job["id"])
    assert kept["enabled"] is False and kept["state"]["nextRunAtMs"] is None
    assert kept["state"]["lastRunStatus"] == "ok" and kept["name"] == "Keep me"
    assert sched.run_due(T0 + 3 * HOUR) == []


def test_an_every_job_runs_on_time(sched, home):
    job = sched.add(payload=event("stretch"), every="30m", now=T0)
    assert sched.run_due(T0 + 29 * MIN) == []
    assert len(sched.run_due(T0 + 30 * MIN + 5 * SEC)) == 1
    assert sched.get(job["id"])["state"]["nextRunAtMs"] == MS(T0 + 60 * MIN)  # anchored, no drift
    assert sched.run_due(T0 + 59 * MIN) == []
    assert len(sched.run_due(T0 + 60 * MIN)) == 1
    assert sched.run_due(T0 + 60 * MIN) == []  # the same instant again: nothing doubled
    assert note(home).count("stretch") == 2


def test_a_cron_job_runs_in_its_time_zone(sched, home):
    start = datetime(2026, 7, 1, 0, 30, tzinfo=timezone.utc)  # 08:30 in Shanghai
    job = sched.add(payload=event("morning brief"), cron="0 9 * * *", tz="Asia/Shanghai", now=start)
    nine_shanghai = datetime(2026, 7, 1, 1, 0, tzinfo=timezone.utc)
    assert job["state"]["nextRunAtMs"] == MS(nine_shanghai)
    assert sched.run_due(nine_shanghai - SEC) == []
    assert [r["status"] for r in sched.run_due(nine_shanghai)] == ["ok"]
    assert sched.get(job["id"])["state"]["nextRunAtMs"] == MS(nine_shanghai + timedelta(days=1))
    assert "- 01:00 [automation] morning brief" in note(home)  # the note is dated in the configured zone (UTC)


def test_a_cron_job_without_tz_uses_the_configured_zone(home):
    s = Scheduler(home, Settings(timezone="Asia/Tokyo"))
    try:
        job = s.add(payload=event("x"), cron="0 9 * * *", now=T0)  # T0 is 18:00 in Tokyo
        assert job["state"]["nextRunAtMs"] == MS(datetime(2026, 7, 2, 0, 0, tzinfo=timezone.utc))
    finally:
        s.close()


def failing_registry(fail: list[bool]) -> HandlerRegistry:
    reg = default_handlers()

    def handler(job, ctx):
        if fail[0]:
            raise RuntimeError("the printer is on fire")
        return RunOutcome("ok", summary="printed")

    reg.register("systemEvent", handler)
    return reg


def test_recurring_failures_back_off_and_success_resets(home):
    fail = [True]
    s = Scheduler(home, Settings(timezone="UTC"), handlers=failing_registry(fail))
    try:
        job = s.add(payload=event("print"), every="10s", now=T0)
        t = T0 + 10 * SEC
        seen = []
        for expected in RECURRING_BACKOFF_MS + (3_600_000,):
            runs = s.run_due(t)
            assert [r["status"] for r in runs] == ["error"] and "printer is on fire" in runs[0]["error"]
            nxt = s.get(job["id"])["state"]["nextRunAtMs"]
            seen.append(nxt - MS(t))
            assert s.run_due(datetime.fromtimestamp((nxt - 1) / 1000, timezone.utc)) == []
            t = datetime.fromtimestamp(nxt / 1000, timezone.utc)
        assert seen == [30_000, 60_000, 300_000, 900_000, 3_600_000, 3_600_000]
        assert s.get(job["id"])["state"]["consecutiveErrors"] == 6
        fail[0] = False
        assert [r["status"] for r in s.run_due(t)] == ["ok"]
        state = s.get(job["id"])["state"]
        assert state["consecutiveErrors"] == 0 and state["lastError"] is None
        assert state["nextRunAtMs"] - MS(t) == 10_000  # back on its own schedule
    finally:
        s.close()


def test_backoff_never_runs_a_slow_schedule_sooner(home):
    s = Scheduler(home, Settings(timezone="UTC"), handlers=failing_registry([True]))
    try:
        job = s.add(payload=event("daily"), every="1d", now=T0)
        s.run_due(T0 + timedelta(days=1))
        assert s.get(job["id"])["state"]["nextRunAtMs"] == MS(T0 + timedelta(days=2))
    finally:
        s.close()


def test_a_failing_one_shot_job_is_retried_then_disabled(home):
    s = Scheduler(home, Settings(timezone="UTC"), handlers=failing_registry([True]))
    try:
        job = s.add(payload=event("once"), at="+1h", now=T0)
        t = T0 + HOUR
        gaps = []
        for _ in range(3):
            assert [r["status"] for r in s.run_due(t)] == ["error"]
            nxt = s.get(job["id"])["state"]["nextRunAtMs"]
            gaps.append(nxt - MS(t))
            t = datetime.fromtimestamp(nxt / 1000, timezone.utc)
        assert gaps == [30_000, 60_000, 300_000]
        assert [r["status"] for r in s.run_due(t)] == ["error"]
        final = s.get(job["id"])
        assert final["enabled"] is False and final["state"]["nextRunAtMs"] is None  # kept, not deleted
        assert s.run_due(t + timedelta(days=1)) == []
        assert len(s.runs(job["id"])) == 4
    finally:
        s.close()


def test_a_permanent_error_disables_at_once(sched, home):
    job = sched.add(payload=event("   x"), every="1m", now=T0)
    conn = connect(sched.db_path)
    try:  # an event without text (written around the CLI's check) is a permanent error
        with transaction(conn):
            j = J.get(conn, job["id"])
            j.job["payload"]["text"] = "  "
            J.save_state(conn, j, MS(T0))
    finally:
        conn.close()
    runs = sched.run_due(T0 + MIN)
    assert runs[0]["status"] == "error" and "no text" in runs[0]["error"]
    assert sched.get(job["id"])["enabled"] is False


def test_a_bare_scheduler_fails_agent_turns_naming_the_fix(sched, home):
    # Memory.scheduler() registers the chat runtime's handler (tests/test_cron_agent_turns.py); a
    # bare Scheduler cannot run agent turns and says so, instead of recording a run that did nothing
    once = sched.add(payload={"kind": "agentTurn", "message": "summarise my day"}, at="+1h", now=T0)
    daily = sched.add(payload={"kind": "agentTurn", "message": "brief"}, every="1h", now=T0)
    runs = sched.run_due(T0 + HOUR)
    assert {(r["jobId"], r["status"]) for r in runs} == {(once["id"], "error"), (daily["id"], "error")}
    assert all("reverie scheduler run" in r["error"] for r in runs)
    assert sched.get(once["id"])["enabled"] is True  # retried, as any failed one-shot is
    delivered = []
    reg = default_handlers()
    reg.register("agentTurn", lambda job, ctx: delivered.append(job["payload"]["message"]) or None)
    s2 = Scheduler(home, Settings(timezone="UTC"), handlers=reg)
    try:
        assert [r["status"] for r in s2.run_due(T0 + 2 * HOUR)] == ["ok", "ok"]
        assert sorted(delivered) == ["brief", "summarise my day"]
    finally:
        s2.close()
    assert sched.handlers.get("agentTurn") is not reg.get("agentTurn")  # the defaults were not touched


def test_one_failing_job_does_not_stop_the_others(home):
    reg = default_handlers()
    reg.register("agentTurn", lambda job, ctx: 1 / 0)
    s = Scheduler(home, Settings(timezone="UTC"), handlers=reg)
    try:
        bad = s.add(payload={"kind": "agentTurn", "message": "m"}, every="1h", now=T0)
        good = s.add(payload=event("still runs"), every="1h", now=T0)
        runs = {r["jobId"]: r for r in s.run_due(T0 + HOUR)}
        assert runs[bad["id"]]["status"] == "error" and "ZeroDivisionError" in runs[bad["id"]]["error"]
        assert runs[good["id"]]["status"] == "ok"
        assert "still runs" in note(home)
    finally:
        s.close()


def test_system_events_go_to_the_owning_agents_note(home):
    s = Scheduler(home, Settings(timezone="Asia/Shanghai", agents={"travel": {"workspace": str(home / "trips")}}))
    try:
        s.add(payload=event("pack the charger"), at="2026-07-01T20:00:00Z", agent="travel", now=T0)
        s.add(payload=event("water the plants"), at="2026-07-01T20:00:00Z", agent="ops", now=T0)
        s.run_due(datetime(2026, 7, 1, 20, tzinfo=timezone.utc))
    finally:
        s.close()
    # 20:00 UTC is 04:00 on July 2 in Shanghai: the note of July 2
    assert "- 04:00 [automation] pack the charger" in note(home, "2026-07-02", "trips")
    assert "water the plants" in note(home, "2026-07-02", "workspace-ops")
    assert not (home / "workspace" / "memory").exists()


def test_jobs_live_in_the_shared_state_database(fake_memory, reverie_home):
    s = fake_memory.scheduler()
    try:
        job = s.add(payload=event("x"), every="1h", agent=fake_memory.places.agent, now=T0)
        assert s.db_path == reverie_home / "state" / "reverie.sqlite" == fake_memory.places.state_db
        conn = connect(s.db_path)
        try:
            row = conn.execute("SELECT job_json, state_json, schedule_identity FROM cron_jobs").fetchone()
        finally:
            conn.close()
        assert '"kind":"every"' in row[0] and '"nextRunAtMs"' in row[1] and '"everyMs":3600000' in row[2]
        assert s.list(agent="main")[0]["id"] == job["id"] and s.list(agent="other") == []
        assert s.remove(job["id"]) is True and s.remove(job["id"]) is False
    finally:
        s.close()


def test_payload_validation(sched):
    with pytest.raises(UserError, match="non-empty --text"):
        sched.add(payload=event("  "), every="1h", now=T0)
    with pytest.raises(UserError, match="payload kind"):
        sched.add(payload={"kind": "shell", "cmd": "rm -rf /"}, every="1h", now=T0)


# -- run history ------------------------------------------------------------------------------------
def test_run_history_keeps_the_newest_2000_per_job_for_7_days(sched):
    conn = sched.conn()
    now = MS(T0)
    with transaction(conn):
        for n in range(2010):
            J.append_run(conn, "job_a", {"ts": now + n, "status": "ok"}, now)
        J.append_run(conn, "job_b", {"ts": now - 8 * 86_400_000, "status": "ok"}, now)
        J.append_run(conn, "job_b", {"ts": now - 2 * 86_400_000, "status": "lost"}, now)
        J.append_run(conn, "job_b", {"ts": now - 2 * 86_400_000, "status": "error"}, now)
    a = sched.runs("job_a", limit=5000)
    assert len(a) == 2000 and min(r["seq"] for r in a) == 11 and a[0]["seq"] == 2010
    sched.run_due(T0)  # prunes: older than 7 days, and lost records older than a day
    assert [r["status"] for r in sched.runs("job_b")] == ["error"]


# -- the loop ---------------------------------------------------------------------------------------
def test_next_wake_and_run_forever_with_an_injected_clock(sched):
    import threading

    assert sched.next_wake_ms() is None
    first = sched.add(payload=event("loop"), every="1h", now=T0)
    sched.add(payload=event("later"), every="2h", now=T0)
    assert sched.next_wake_ms() == MS(T0 + HOUR)
    stop = threading.Event()
    seen: list[dict] = []

    def on_run(rec):
        seen.append(rec)
        stop.set()

    n = sched.run_forever(stop, poll_seconds=0.01, clock=lambda: T0 + HOUR, on_run=on_run)
    assert n == 1 and [r["jobId"] for r in seen] == [first["id"]]
    assert sched.next_wake_ms() == MS(T0 + 2 * HOUR)
    conn = sched.conn()
    with transaction(conn):  # a job another scheduler is running does not wake this one
        for job in J.all_jobs(conn):
            job.state["runningAtMs"] = MS(T0 + HOUR)
            J.save_state(conn, job, MS(T0))
    assert sched.next_wake_ms() is None
