"""The Dreaming commands as a user runs them (real subprocesses): dream run / status / schedule,
promote-explain, rem-harness, rem-backfill and its rollback, memory preimages; bad input is a
one-line error with exit 1 and changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from dreaming_helpers import FAKE, LOW_BAR, OWNER, day, durable_life, night, open_mem, sha

NIGHT = night(4).isoformat()


def cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"REVERIE_HOME": str(home), "REVERIE_TIMEZONE": "UTC", "PATH": os.environ.get("PATH", "")}
    return subprocess.run([sys.executable, "-m", "reverie.cli.main", "--set", FAKE, "--set", LOW_BAR, *args],
                          capture_output=True, text=True, env=env, timeout=120)


def test_dream_run_status_and_explain(reverie_home):
    mem = open_mem()
    durable_life(mem)
    mem.close()
    status = json.loads(cli(reverie_home, "dream", "status", "--json").stdout)
    assert status["store"]["entries"] == 2 and status["lastSweep"] is None and status["automations"] == []
    dry = cli(reverie_home, "dream", "run", "--dry-run", "--now", NIGHT)
    assert dry.returncode == 0 and "dry run: nothing was changed" in dry.stderr and "+1" in dry.stderr
    run = cli(reverie_home, "dream", "run", "--now", NIGHT, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["phases"]["deep"]["counts"]["added"] == 1
    explained = cli(reverie_home, "promote-explain", "memory/2026-06-01.md:3", "--json")
    d = json.loads(explained.stdout)
    assert set(d["components"]) == {"relevance", "frequency", "diversity", "recency", "consolidation", "conceptual",
                                    "phaseBoost"}
    assert d["thresholds"]["minUniqueQueries"] == 3 and d["inMemory"] and not d["promotable"]
    assert "already promoted" in d["why"][0]
    human = cli(reverie_home, "promote-explain", d["entryKey"])
    assert human.returncode == 0 and "relevance" in human.stderr and "not promoted: already promoted" in human.stderr
    milk = json.loads(cli(reverie_home, "promote-explain", "memory/2026-06-01.md:4", "--json").stdout)
    assert not milk["promotable"] and any("minRecallCount" in w for w in milk["why"])
    status = json.loads(cli(reverie_home, "dream", "status", "--json").stdout)
    assert status["lastSweep"]["day"] == "2026-06-06" and status["store"]["promoted"] == 1
    assert status["preimages"] == 1 and status["memory"]["budget"] == 10_000


def test_bad_input_is_one_line_and_exit_1(reverie_home):
    fresh = cli(reverie_home, "dream", "run")
    assert fresh.returncode == 1 and "does not exist" in fresh.stderr and "reverie init" in fresh.stderr
    assert not reverie_home.exists()  # nothing created
    mem = open_mem()
    mem.close()
    for args, needle in ((["dream", "run", "--phase", "dawn"], "--phase 'dawn'"),
                         (["dream", "run", "--now", "yesterday"], "--now 'yesterday'"),
                         (["promote-explain", "memory/2026-01-01.md:9"], "nothing in the short-term store"),
                         (["rem-harness", "--path", "../elsewhere"], "outside the workspace"),
                         (["memory", "restore", "latest"], "no preimages"),
                         (["--set", "memory.dreaming.frequency=\"every night\"", "dream", "status"],
                          "memory.dreaming.frequency")):
        res = cli(reverie_home, *args)
        assert res.returncode == 1, (args, res.stderr)
        assert needle in res.stderr and len(res.stderr.strip().splitlines()) == 1, (args, res.stderr)
    assert not (reverie_home / "workspace" / "DREAMS.md").exists()


def test_dream_schedule_creates_the_managed_jobs(reverie_home):
    open_mem().close()
    res = json.loads(cli(reverie_home, "dream", "schedule", "--json").stdout)
    assert len(res["created"]) == 2
    jobs = json.loads(cli(reverie_home, "cron", "list", "--json").stdout)
    names = sorted(j["name"] for j in (jobs if isinstance(jobs, list) else jobs["jobs"]))
    assert names == ["Memory Dreaming Promotion", "Memory Heartbeat Review"]
    again = json.loads(cli(reverie_home, "dream", "schedule", "--json").stdout)
    assert again["created"] == [] and len(again["kept"]) == 2


def test_rem_harness_previews_and_rem_backfill_writes_and_rolls_back(reverie_home):
    mem = open_mem()
    mem.remember("I decided to take the night train to Vienna.", now=day(0), provenance=OWNER)
    mem.remember("It was cloudy.", now=day(0, 1), provenance=OWNER)
    mem.remember("I prefer aisle seats on planes.", now=day(1), provenance=OWNER)
    mem.close()
    ws = reverie_home / "workspace"
    before = {p: sha(p) for p in ws.rglob("*") if p.is_file()}
    preview = json.loads(cli(reverie_home, "rem-harness", "--json").stdout)
    assert [d["day"] for d in preview["days"]] == ["2026-06-01", "2026-06-02"]
    assert [g["snippet"] for g in preview["days"][0]["grounded"]] == ["I decided to take the night train to Vienna."]
    assert {p: sha(p) for p in ws.rglob("*") if p.is_file()} == before  # a preview writes nothing
    dry = json.loads(cli(reverie_home, "rem-backfill", "--dry-run", "--json").stdout)
    assert dry["dryRun"] and {p: sha(p) for p in ws.rglob("*") if p.is_file()} == before
    done = json.loads(cli(reverie_home, "rem-backfill", "--stage-short-term", "--json").stdout)
    assert done["diaryEntries"] == 2 and done["staged"] == 2
    dreams = (ws / "DREAMS.md").read_text(encoding="utf-8")
    assert dreams.count("<!-- reverie:dreaming:backfill-entry -->") == 2 and "night train to Vienna" in dreams
    assert sha(ws / "MEMORY.md") == before[ws / "MEMORY.md"]  # backfill never writes MEMORY.md
    status = json.loads(cli(reverie_home, "dream", "status", "--json").stdout)
    assert status["store"]["entries"] == 2
    undo = json.loads(cli(reverie_home, "rem-backfill", "--rollback", "--rollback-short-term", "--json").stdout)
    assert undo == {"diaryEntries": 2, "shortTermEntries": 2, "dryRun": False}
    assert "backfill-entry" not in (ws / "DREAMS.md").read_text(encoding="utf-8")
    assert json.loads(cli(reverie_home, "dream", "status", "--json").stdout)["store"]["entries"] == 0
