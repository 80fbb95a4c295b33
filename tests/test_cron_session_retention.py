"""``cron.sessionRetention`` (reference §22, default 24 h): after each automation run, the agent's run
sessions older than the retention lose their transcripts -- events, search rows, and the session
row with its participants unless memory names the session as a source (then the emptied row stays,
so ``reverie forget --session`` still reaches what the run wrote). Interactive sessions and a run
still going are never touched. Both storage engines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest

from cli_helpers import cli, one_error
from engines import engine_env, transcript_hits
from reverie import Memory
from reverie.automation.scheduler import STALE_CLAIM_MS
from reverie.forget import Selectors, forget
from reverie.models.base import ChatMessage
from reverie.sessions import TranscriptStore
from reverie.sessions.retention import prune_run_sessions
from reverie.sessions.store import now_ms
from reverie.store import transaction

HOUR = 3_600_000
DAY = 24 * HOUR


def run_session(store: TranscriptStore, key: str, word: str, *, started: int, last: int | None = None,
                ended: int | None = None, origin: str = "cron", kind: str = "cron") -> str:
    """A session as a run leaves it: the message, the reply holding ``word``, its participant."""
    sid = store.start_session(key, origin=origin, session_kind=kind, started_at=started).session_id
    store.append_message(sid, "user", ChatMessage("user", f"check the {word} today"), at=started)
    store.append_message(sid, "assistant", ChatMessage("assistant", f"The {word} is fine."), at=last or started)
    store.add_participant(sid, "local-owner")
    if ended is not None:
        store.end_session(sid, "cron-run", at=ended)
    return sid


def events(store: TranscriptStore, sid: str) -> int:
    return len(store.events(sid))


def run_job(mem: Memory, **payload) -> dict:
    sched = mem.scheduler()
    try:
        job = sched.add(payload={"kind": "agentTurn", **payload}, at="+1m")
        (record,) = sched.run_due(datetime.now(timezone.utc) + timedelta(minutes=5))
        assert record["status"] == "ok" and record["jobId"] == job["id"], record
        return record
    finally:
        sched.close()


@pytest.mark.usefixtures("store_backend")
def test_a_run_prunes_expired_run_sessions_and_nothing_else(fake_memory):
    mem = fake_memory
    store = TranscriptStore(mem.agent_store)
    now = now_ms()
    old = run_session(store, "cron:job_a", "kayak", started=now - 3 * DAY, ended=now - 3 * DAY + 5_000)
    lost = run_session(store, "cron:job_b", "glacier", started=now - 3 * DAY, last=now - 2 * DAY)  # never ended
    beat = run_session(store, "heartbeat:memory-review", "lantern", started=now - 2 * DAY, ended=now - 2 * DAY,
                       origin="heartbeat", kind="heartbeat")
    recent = run_session(store, "cron:job_a", "violin", started=now - 2 * HOUR, ended=now - 2 * HOUR)
    running = run_session(store, "cron:job_c", "tulip", started=now - 3 * DAY, last=now - 10 * 60_000)
    chat = run_session(store, "agent:main:main", "harbour", started=now - 9 * DAY, ended=now - 9 * DAY,
                       origin="chat", kind="interactive")
    typed = run_session(store, "cron:by-hand", "meadow", started=now - 9 * DAY, ended=now - 9 * DAY,
                        origin="chat")  # a person typed into a cron: key: a conversation, not a run
    record = run_job(mem, message="brief me")
    assert record["details"]["prunedSessions"] == 3
    for sid, word in ((old, "kayak"), (lost, "glacier"), (beat, "lantern")):
        assert store.session(sid) is None and events(store, sid) == 0 and store.participants(sid) == []
        assert transcript_hits(store.conn, word) == 0
    for sid, word in ((recent, "violin"), (running, "tulip"), (chat, "harbour"), (typed, "meadow")):
        row = store.session(sid)
        assert row is not None and row.event_count == events(store, sid) == 2, word
        assert transcript_hits(store.conn, word) == 2 and store.participants(sid) == ["local-owner"]
    new = store.session(record["details"]["sessionId"])
    assert new is not None and new.ended_reason == "cron-run" and new.event_count > 0  # the run just made
    store.close()


@pytest.mark.usefixtures("store_backend")
def test_a_run_session_that_wrote_memory_keeps_its_row_so_forget_still_reaches_it(fake_memory, tmp_path):
    mem = fake_memory
    script = tmp_path / "append.json"
    script.write_text(json.dumps({"steps": {"turn": [
        {"toolCalls": [{"name": "memory_append", "arguments": {"text": "Order oat milk for the office kitchen"}}]},
        {"afterTools": True, "reply": "Noted: oat milk is on the list."}]}}), encoding="utf-8")
    first = run_job(mem, message="what do we need?", model=f"scripted:{script}")["details"]["sessionId"]
    note = mem.workspace / "memory" / f"{datetime.now().astimezone(mem.settings.tz()).date().isoformat()}.md"
    assert "oat milk" in note.read_text(encoding="utf-8")
    store = TranscriptStore(mem.agent_store)
    with transaction(store.conn) as conn:  # the run was three days ago
        conn.execute("UPDATE sessions SET started_at = started_at - ?, ended_at = ended_at - ? WHERE session_id = ?",
                     (3 * DAY, 3 * DAY, first))
    assert transcript_hits(store.conn, "oat") >= 1
    record = run_job(mem, message="brief me")
    assert record["details"]["prunedSessions"] == 1
    row = store.session(first)
    assert row is not None and row.event_count == 0 and events(store, first) == 0
    assert transcript_hits(store.conn, "oat") == 0 and store.participants(first)  # who spoke stays findable
    store.close()
    report = forget(mem, Selectors(sessions=[first]))
    assert [r["source"] for r in report["sessionResolutions"]] == ["live"]
    assert not note.exists() or "oat milk" not in note.read_text(encoding="utf-8")  # a note left empty goes


@pytest.mark.usefixtures("store_backend")
def test_retention_off_keeps_run_sessions(reverie_home):
    mem = Memory(overrides=['memory.search.provider="fake"', "cron.sessionRetention=off"])
    mem.init()
    store = TranscriptStore(mem.agent_store)
    old = run_session(store, "cron:job_a", "kayak", started=now_ms() - 30 * DAY, ended=now_ms() - 30 * DAY)
    assert "prunedSessions" not in run_job(mem, message="brief me")["details"]
    assert events(store, old) == 2 and transcript_hits(store.conn, "kayak") == 2
    store.close()
    mem.close()


@pytest.mark.usefixtures("store_backend")
def test_the_retention_is_measured_from_the_end_of_the_run(fake_memory):
    store = TranscriptStore(fake_memory.agent_store)
    now = now_ms()
    # started two days ago, finished an hour ago: 24 hours have not passed since the run
    long_run = run_session(store, "cron:job_a", "kayak", started=now - 2 * DAY, ended=now - HOUR)
    done = run_session(store, "cron:job_b", "violin", started=now - 8 * DAY, ended=now - 7 * DAY)
    assert prune_run_sessions(store, DAY, quiet_ms=STALE_CLAIM_MS, now=now).sessions == 1
    assert store.session(long_run) is not None and store.session(done) is None
    assert prune_run_sessions(store, 12 * HOUR, quiet_ms=STALE_CLAIM_MS, now=now + 12 * HOUR).sessions == 1
    assert store.session(long_run) is None
    assert prune_run_sessions(store, HOUR, quiet_ms=STALE_CLAIM_MS, now=now).as_dict() == {
        "sessions": 0, "rowsKept": 0, "events": 0, "searchRows": 0}
    store.close()


@pytest.mark.usefixtures("store_backend")
def test_a_lost_runs_open_session_is_ended_and_the_next_run_starts_fresh(fake_memory):
    mem = fake_memory
    sched = mem.scheduler()
    job = sched.add(payload={"kind": "agentTurn", "message": "brief me"}, every="1h")
    sched.close()
    store = TranscriptStore(mem.agent_store)
    left = run_session(store, f"cron:{job['id']}", "kayak", started=now_ms() - 10 * 60_000)  # killed mid-run
    sched = mem.scheduler()
    (record,) = sched.run_due(datetime.now(timezone.utc) + timedelta(hours=2))
    sched.close()
    assert record["details"]["sessionId"] != left
    row = store.session(left)
    assert row.ended_reason == "run-lost" and row.event_count == 2  # ended, kept until it expires
    store.close()


@pytest.mark.usefixtures("store_backend")
def test_scheduler_run_prunes_as_it_starts(fake_memory, reverie_home):
    store = TranscriptStore(fake_memory.agent_store)
    old = run_session(store, "cron:job_gone", "kayak", started=now_ms() - 3 * DAY, ended=now_ms() - 3 * DAY)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(reverie_home), REVERIE_TIMEZONE="UTC", REVERIE_EMBEDDING_PROVIDER="fake",
               **engine_env())
    proc = subprocess.Popen([sys.executable, "-c", "from reverie.cli.main import run; run()", "scheduler", "run",
                             "--poll", "0.1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and store.session(old) is not None:
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert store.session(old) is None and transcript_hits(store.conn, "kayak") == 0
    assert "deleted the transcripts of 1 run sessions older than cron.sessionRetention" in err
    store.close()


@pytest.mark.parametrize("value,words", [
    ('"soon"', "cannot read duration 'soon'"),
    ('"30s"', "must be at least 1m"),
    ("12", "must be a duration such as '24h'"),
    ("true", "must be a duration such as '24h'"),
])
def test_a_bad_retention_is_a_one_line_error(reverie_home, value, words):
    reverie_home.mkdir(parents=True, exist_ok=True)
    (reverie_home / "reverie.toml").write_text(f"[cron]\nsessionRetention = {value}\n", encoding="utf-8")
    line = one_error(cli(reverie_home, "cron", "list"))
    assert "cron.sessionRetention" in line and words in line and "false" in line


@pytest.mark.parametrize("value,expected", [('"7d"', 7 * DAY), ('"1h30m"', 90 * 60_000), ("false", None),
                                            ('"off"', None)])
def test_retention_values(reverie_home, value, expected):
    from reverie.config import load_settings

    reverie_home.mkdir(parents=True, exist_ok=True)
    path = reverie_home / "reverie.toml"
    path.write_text(f"[cron]\nsessionRetention = {value}\n", encoding="utf-8")
    assert load_settings(path, {}).cron.session_retention_ms == expected
    assert load_settings(None, {}).cron.session_retention_ms == DAY  # the reference's default
