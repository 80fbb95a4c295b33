"""The scheduler across crashes, restarts and rivals: no run lost, none doubled. A crash is real
(a child process dies inside the handler with os._exit); `scheduler run` is stopped by real
signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from reverie.automation import Scheduler, default_handlers
from reverie.automation import jobs as J
from reverie.config import Settings
from reverie.store import transaction

T0 = datetime(2026, 7, 1, 9, 0, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)
MS = lambda d: int(d.timestamp() * 1000)  # noqa: E731


def sched(home: Path, handlers=None) -> Scheduler:
    return Scheduler(home, Settings(timezone="UTC"), handlers=handlers)


def note(home: Path) -> str:
    p = home / "workspace" / "memory" / "2026-07-01.md"
    return p.read_text(encoding="utf-8") if p.exists() else ""


CRASH = """
import os, sys
from datetime import datetime, timezone
from reverie.automation import Scheduler, default_handlers
from reverie.config import Settings
reg = default_handlers()
reg.register("systemEvent", lambda job, ctx: os._exit(17))  # dies mid-run, claim written, nothing finished
Scheduler(sys.argv[1], Settings(timezone="UTC"), handlers=reg).run_due(datetime.fromisoformat(sys.argv[2]))
"""


def crash_mid_run(home: Path, at: datetime) -> None:
    r = subprocess.run([sys.executable, "-c", CRASH, str(home), at.isoformat()], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 17, r.stderr


@pytest.mark.parametrize("kind", ["at", "every"])
def test_a_run_interrupted_by_a_crash_runs_again_once(reverie_home, kind):
    s = sched(reverie_home)
    try:
        job = s.add(payload={"kind": "systemEvent", "text": "check the tickets"},
                    **({"at": "+1h"} if kind == "at" else {"every": "1h"}), now=T0)
        s.close()
        crash_mid_run(reverie_home, T0 + HOUR)
        claimed = s.get(job["id"])["state"]
        assert claimed["runningAtMs"] == MS(T0 + HOUR) and claimed["runningBy"]["pid"] != os.getpid()
        assert note(reverie_home) == ""  # the crashed run did nothing

        runs = s.run_due(T0 + HOUR + timedelta(seconds=5))  # the restart
        assert [r["status"] for r in runs] == ["lost", "ok"]
        assert note(reverie_home).count("check the tickets") == 1
        assert s.run_due(T0 + HOUR + timedelta(seconds=6)) == []  # and not again
        if kind == "every":
            assert s.get(job["id"])["state"]["nextRunAtMs"] == MS(T0 + 2 * HOUR)
            assert s.get(job["id"])["state"]["runningAtMs"] is None
        else:
            assert s.get(job["id"]) is None
        assert [r["status"] for r in s.runs(job["id"])] == ["ok", "lost"]
    finally:
        s.close()


def test_a_job_that_came_due_while_down_runs_once_on_restart(reverie_home):
    s = sched(reverie_home)
    hourly = s.add(payload={"kind": "systemEvent", "text": "hourly"}, every="1h", now=T0)
    once = s.add(payload={"kind": "systemEvent", "text": "once"}, at="+1h", now=T0)
    s.close()  # "down" from T0 until T0 + 5h30m: five hourly slots and the one-shot were missed
    s = sched(reverie_home)  # a new process's scheduler: state comes from the database
    try:
        runs = s.run_due(T0 + 5.5 * HOUR)
        assert sorted((r["jobId"], r["status"]) for r in runs) == sorted([(hourly["id"], "ok"), (once["id"], "ok")])
        text = note(reverie_home)
        assert text.count("hourly") == 1 and text.count("once") == 1
        assert s.get(hourly["id"])["state"]["nextRunAtMs"] == MS(T0 + 6 * HOUR)
        assert s.run_due(T0 + 5.9 * HOUR) == []
        assert len(s.run_due(T0 + 6 * HOUR)) == 1
    finally:
        s.close()


def test_state_persists_across_a_clean_restart(reverie_home):
    a = sched(reverie_home)
    job = a.add(payload={"kind": "systemEvent", "text": "tick"}, every="1h", now=T0)
    assert len(a.run_due(T0 + HOUR)) == 1
    a.close()
    b = sched(reverie_home)
    try:
        assert b.run_due(T0 + HOUR) == []  # the run already made is not made again
        assert len(b.run_due(T0 + 2 * HOUR)) == 1
        assert b.get(job["id"])["state"]["lastRunAtMs"] == MS(T0 + 2 * HOUR)
    finally:
        b.close()


def test_a_live_claim_is_respected_and_a_stale_one_recovered(reverie_home):
    s = sched(reverie_home)
    try:
        job = s.add(payload={"kind": "systemEvent", "text": "busy"}, every="1h", now=T0)
        conn = s.conn()
        with transaction(conn):  # another live process on this host holds the claim
            j = J.get(conn, job["id"])
            j.state.update(runningAtMs=MS(T0 + HOUR), runningFor=MS(T0 + HOUR),
                           runningBy={"host": __import__("socket").gethostname(), "pid": os.getppid(), "token": "t"})
            J.save_state(conn, j, MS(T0 + HOUR))
        assert s.run_due(T0 + HOUR + timedelta(minutes=5)) == []
        # the claim outlived the watchdog (60 min): the run is declared lost and made again once
        runs = s.run_due(T0 + 2 * HOUR + timedelta(minutes=1))
        assert [r["status"] for r in runs] == ["lost", "ok"]
        assert note(reverie_home).count("busy") == 1
    finally:
        s.close()


def test_two_schedulers_racing_run_each_job_once(reverie_home):
    calls = []
    reg = default_handlers()

    def slow(job, ctx):
        calls.append(job["id"])
        time.sleep(0.1)  # widen the window in which a rival could take the same job

    reg.register("systemEvent", slow)
    setup = sched(reverie_home)
    ids = [setup.add(payload={"kind": "systemEvent", "text": f"j{n}"}, every="1h", now=T0)["id"] for n in range(3)]
    setup.close()
    rivals = [sched(reverie_home, reg) for _ in range(3)]
    barrier = threading.Barrier(3)
    out: list = [None] * 3

    def go(k):
        barrier.wait()
        out[k] = rivals[k].run_due(T0 + HOUR)

    threads = [threading.Thread(target=go, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for r in rivals:
        r.close()
    assert sorted(calls) == sorted(ids)
    assert sorted(rec["jobId"] for recs in out for rec in recs) == sorted(ids)


# -- `reverie scheduler run` --------------------------------------------------------------------------
def _cli(home: Path, *args: str, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return subprocess.Popen([sys.executable, "-c", "from reverie.cli.main import run; run()", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_scheduler_run_works_in_the_foreground_and_stops_cleanly_on_a_signal(reverie_home, sig):
    add = _cli(reverie_home, "cron", "add", "--at", "+1s", "--text", "look at the train tickets", "--json")
    out, err = add.communicate(timeout=60)
    assert add.returncode == 0, err
    job_id = json.loads(out)["id"]
    proc = _cli(reverie_home, "scheduler", "run", "--poll", "0.1", "--json")
    try:
        deadline = time.monotonic() + 20
        s = sched(reverie_home)
        try:
            while time.monotonic() < deadline and not s.runs(job_id):
                time.sleep(0.1)
            assert [r["status"] for r in s.runs(job_id)] == ["ok"]
        finally:
            s.close()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"scheduler stopped ({signal.Signals(sig).name})" in err and "Traceback" not in err
    assert json.loads(out) == {"runs": 1, "stoppedBy": signal.Signals(sig).name}
    text = "".join(p.read_text(encoding="utf-8") for p in (reverie_home / "workspace" / "memory").glob("*.md"))
    assert text.count("look at the train tickets") == 1
