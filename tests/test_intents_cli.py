"""`reverie intent ...` and `reverie cron ...` as real subprocesses: --json documents, one-line
errors with exit 1, the time-based refusal, and a job run through `cron run-due`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args],
                          capture_output=True, text=True, env=env, timeout=60)


def batch(home: Path, *commands: list[str]) -> list[subprocess.CompletedProcess]:
    """Several commands through the real entry point in ONE subprocess (start-up paid once)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    r = subprocess.run([sys.executable, "-m", "reverie.cli.batch", json.dumps(list(commands))], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return [subprocess.CompletedProcess(cmd, code, out, err) for cmd, (code, out, err) in zip(commands, json.loads(r.stdout))]


def ok_json(r: subprocess.CompletedProcess):
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def one_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_intent_create_check_list_cancel(reverie_home):
    created = ok_json(cli(reverie_home, "intent", "create", "--description", "确认返程车票",
                          "--trigger", "杭州", "--trigger", " Hangzhou ", "--trigger", "HANGZHOU",
                          "--channel", "telegram", "--sender", "42", "--conversation", "chat-1", "--json"))
    intent = created["intent"]
    assert intent["status"] == "armed" and intent["triggerKeywords"] == ["杭州", "hangzhou"]
    assert (intent["scope"], intent["channel"], intent["sender"]) == ("channel", "telegram", "42")

    other, hit, again, listed, armed, human, cancelled, twice, missing = batch(
        reverie_home,
        # someone else in the channel: the intent is the creator's (sender scope) -> nothing
        ["intent", "check", "我下周去杭州", "--channel", "telegram", "--sender", "99", "--json"],
        # the creator mentions Hangzhou: the block is printed, the fire spent (--fire)
        ["intent", "check", "我下周去杭州", "--channel", "telegram", "--sender", "42", "--fire"],
        ["intent", "check", "hangzhou again", "--channel", "telegram", "--sender", "42", "--fire"],
        ["intent", "list", "--json"],
        ["intent", "list", "--status", "armed", "--json"],
        ["intent", "list"],
        ["intent", "cancel", intent["id"], "--json"],
        ["intent", "cancel", intent["id"]],
        ["intent", "cancel", "si_missing"],
    )
    other = ok_json(other)
    assert other["block"] == "" and other["fired"] == []
    assert hit.returncode == 0, hit.stderr
    assert hit.stdout.startswith("<standing_intents>\nStanding intent (created ")
    assert "): 确认返程车票\n</standing_intents>" in hit.stdout
    assert again.returncode == 0 and again.stdout == "" and "no standing intent triggered" in again.stderr
    assert [(i["id"], i["status"], i["fireCount"]) for i in ok_json(listed)["intents"]] == [(intent["id"], "fired", 1)]
    assert ok_json(armed) == {"intents": []}
    assert intent["id"] in human.stdout and "fired 1/3" in human.stdout
    cancelled = ok_json(cancelled)
    assert cancelled["cancelled"] is True and cancelled["intent"]["status"] == "cancelled"
    assert "is cancelled; only pending, armed or fired" in one_error(twice)
    assert "no intent with id 'si_missing'" in one_error(missing)


def test_intent_create_refusals_are_one_line_and_write_nothing(reverie_home):
    base = ["intent", "create", "--trigger", "tickets"]
    cases = [
        ([*base, "--description", "Tomorrow at 9 remind me to look at the train tickets",
          "--channel", "telegram", "--sender", "42"], "reverie cron add"),
        ([*base, "--description", "明早9点提醒我再看一眼高铁票", "--channel", "telegram", "--sender", "42"],
         "reverie cron add"),
        ([*base, "--description", "d", "--sender", "42"], "channel identity is unavailable"),
        ([*base, "--description", "d", "--channel", "telegram"], "sender identity is unavailable"),
        ([*base, "--description", "d", "--channel", "telegram", "--sender", "unknown"], "sender identity is unavailable"),
        ([*base, "--description", "d", "--channel", "telegram", "--sender", "42", "--scope", "conversation"],
         "conversation identity is unavailable"),
        ([*base, "--description", "d", "--channel", "telegram", "--sender", "42", "--expires-at",
          "2001-01-01T00:00:00Z"], "must be in the future"),
        (["intent", "create", "--description", "d", "--channel", "telegram", "--sender", "42"], "at least one trigger"),
    ]
    *refused, listed, check = batch(reverie_home, *[args for args, _ in cases], ["intent", "list", "--json"],
                                    ["intent", "check", "hangzhou", "--sender", "42"])
    for r, (args, needle) in zip(refused, cases):
        assert needle in one_error(r), args
    # nothing was written: not even the home exists, and the read-only commands say so
    assert "does not exist" in one_error(listed) and not reverie_home.exists()
    assert "does not exist" in one_error(check)


def test_cron_add_list_run_due_runs_remove(reverie_home):
    at = ok_json(cli(reverie_home, "cron", "add", "--at", "2030-01-01T09:00:00Z", "--text",
                     "look at the train tickets", "--json"))
    every, daily, soon, jobs, preview, after_preview = batch(
        reverie_home,
        ["cron", "add", "--every", "30m", "--text", "stretch", "--name", "Stretch", "--json"],
        ["cron", "add", "--cron", "0 9 * * *", "--tz", "Asia/Shanghai", "--message", "morning brief", "--json"],
        ["cron", "add", "--at", "+1s", "--text", "look at the train tickets now", "--json"],
        ["cron", "list", "--json"],
        ["cron", "run-due", "--now", "2030-01-01T09:00:00Z", "--json"],
        ["cron", "list", "--json"],
    )
    every, daily, soon, jobs = ok_json(every), ok_json(daily), ok_json(soon), ok_json(jobs)["jobs"]
    assert at["schedule"] == {"kind": "at", "at": "2030-01-01T09:00:00Z", "atMs": 1893488400000}
    assert every["schedule"]["kind"] == "every" and every["schedule"]["everyMs"] == 1_800_000
    assert daily["schedule"] == {"kind": "cron", "expr": "0 9 * * *", "tz": "Asia/Shanghai"}
    assert daily["payload"] == {"kind": "agentTurn", "message": "morning brief"}
    assert [j["id"] for j in jobs] == [at["id"], every["id"], daily["id"], soon["id"]]
    assert jobs[0]["state"]["nextRunAtMs"] == 1893488400000

    # --now only previews: every job would be due in 2030, and nothing ran or moved
    preview = ok_json(preview)
    assert preview["dryRun"] is True
    assert {j["id"] for j in preview["wouldRun"]} == {at["id"], every["id"], daily["id"], soon["id"]}
    assert ok_json(after_preview)["jobs"] == jobs
    assert not (reverie_home / "workspace" / "memory").exists()

    time.sleep(1.2)  # the +1s job comes due for real
    runs, rerun = batch(reverie_home, ["cron", "run-due", "--json"], ["cron", "run-due", "--json"])
    (run,) = ok_json(runs)["runs"]
    assert run["jobId"] == soon["id"] and run["status"] == "ok" and run["deleted"] is True
    notes = list((reverie_home / "workspace" / "memory").glob("*.md"))
    assert len(notes) == 1 and "[automation] look at the train tickets now" in notes[0].read_text(encoding="utf-8")
    assert ok_json(rerun) == {"runs": []}

    history, all_runs, dry, removed, listed, again, human = batch(
        reverie_home,
        ["cron", "runs", soon["id"], "--json"],
        ["cron", "runs", "--json"],
        ["cron", "remove", every["id"], "--dry-run", "--json"],
        ["cron", "remove", every["id"], "--json"],
        ["cron", "list", "--json"],
        ["cron", "remove", every["id"]],
        ["cron", "list"],
    )
    assert [r["status"] for r in ok_json(history)["runs"]] == ["ok"]
    assert len(ok_json(all_runs)["runs"]) == 1
    dry = ok_json(dry)
    assert dry["removed"] is False and dry["dryRun"] is True
    assert ok_json(removed)["removed"] is True
    assert [j["id"] for j in ok_json(listed)["jobs"]] == [at["id"], daily["id"]]
    assert "no automation with id" in one_error(again)
    assert daily["id"] in human.stdout and "cron '0 9 * * *' (Asia/Shanghai)" in human.stdout


def test_cron_add_errors_are_one_line(reverie_home):
    cases = [
        (["cron", "add", "--text", "x"], "exactly one schedule"),
        (["cron", "add", "--every", "5m"], "exactly one payload"),
        (["cron", "add", "--every", "5m", "--text", "x", "--message", "y"], "exactly one payload"),
        (["cron", "add", "--cron", "0 9 * *", "--text", "x"], "5 fields"),
        (["cron", "add", "--at", "2001-01-01T00:00:00Z", "--text", "x"], "in the past"),
        (["cron", "add", "--every", "soon", "--text", "x"], "cannot read duration"),
        (["cron", "add", "--cron", "0 9 * * *", "--tz", "Nowhere/Land", "--text", "x"], "unknown time zone"),
    ]
    *refused, listed = batch(reverie_home, *[args for args, _ in cases], ["cron", "list", "--json"])
    for r, (args, needle) in zip(refused, cases):
        assert needle in one_error(r), args
    assert "does not exist" in one_error(listed) and not reverie_home.exists()  # nothing was written


def test_a_dry_run_check_reports_the_intent_as_it_is_and_what_a_fire_would_make_it(reverie_home):
    made = ok_json(cli(reverie_home, "intent", "create", "--description", "确认返程车票", "--trigger", "杭州",
                       "--channel", "telegram", "--sender", "42", "--json"))["intent"]
    check, listed = batch(reverie_home,
                          ["intent", "check", "我下周去杭州", "--channel", "telegram", "--sender", "42", "--json"],
                          ["intent", "list", "--json"])
    check = ok_json(check)
    assert check["dryRun"] is True and check["block"]
    [hit] = check["fired"]
    assert (hit["id"], hit["status"], hit["fireCount"]) == (made["id"], "armed", 0)  # nothing was spent
    assert hit["wouldBecome"] == {"fireCount": 1, "status": "fired"}
    assert [(i["status"], i["fireCount"]) for i in ok_json(listed)["intents"]] == [("armed", 0)]


def test_cron_add_refuses_a_name_of_ten_thousand_characters(reverie_home):
    long_name, newline, jobs = batch(
        reverie_home,
        ["cron", "add", "--every", "1h", "--text", "look at the tickets", "--name", "n" * 10_000],
        ["cron", "add", "--every", "1h", "--text", "look at the tickets", "--name", "two\nlines"],
        ["cron", "list", "--json"])
    assert "1 to 200 characters (this one: 10,000)" in one_error(long_name)
    assert "nothing was added" in one_error(newline)
    assert "does not exist" in one_error(jobs) and not reverie_home.exists()  # nothing was written at all
