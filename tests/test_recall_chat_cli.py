"""The recall lanes through scripted ``reverie chat`` runs (real processes, real files and SQLite,
a scripted model whose requests are logged): what a session starts with, a trigger phrase and an
inactive project, a group chat, and Active Memory that times out without holding the reply."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest

FAKE = ["--set", 'memory.search.provider="fake"']
MEMORY = ("# Long-Term Memory\n\n- The user's cat is called Mochi.\n"
          "- Return train tickets must be confirmed two days ahead. <!-- trigger: 返程车票 -->\n"
          "- Deploys go through the staging cluster first. <!-- trigger: deploy --> "
          "<!-- project: github.com/acme/app -->\n")


def chat(home, tmp_path, stdin: str, *args: str, script: dict | None = None, name: str = "s"):
    log = tmp_path / f"{name}.jsonl"
    spec = tmp_path / f"{name}.json"
    spec.write_text(json.dumps({**(script or {}), "log": str(log)}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "chat", "--model",
                        f"scripted:{spec}", *args, *FAKE], input=stdin, capture_output=True, text=True, env=env,
                       timeout=180, cwd=str(tmp_path))
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    requests = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return r, requests, took


def turn_systems(requests) -> list[str]:
    return [q["messages"][0]["content"] for q in requests if q["kind"] == "turn"]


@pytest.fixture
def home(reverie_home, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(reverie_home), REVERIE_TIMEZONE="UTC")
    subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "init", *FAKE], env=env,
                   check=True, capture_output=True)
    (reverie_home / "workspace" / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "remember",
                    "Decided to take the 9am train on Friday."], env=env, check=True, capture_output=True)
    subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "index", *FAKE], env=env,
                   check=True, capture_output=True)
    return reverie_home


def test_a_new_session_starts_with_todays_notes_and_the_session_note(home, tmp_path):
    chat(home, tmp_path, "We settled on the window seat.\n/new\n", name="first")
    today = datetime.now(timezone.utc).date().isoformat()
    notes = sorted(p.name for p in (home / "workspace" / "memory").glob(f"{today}-*.md"))
    assert notes, "the /new should have written a session note"
    _, requests, _ = chat(home, tmp_path, "good morning\n", "--session", "fresh", name="second")
    system = turn_systems(requests)[0]
    block = system.split('<recalled-memory lane="startup"')[1].split("</recalled-memory>")[0]
    assert f"memory/{notes[0]}" in block and f"memory/{today}.md" in block
    assert block.index(f"memory/{notes[0]}") < block.index(f"memory/{today}.md")  # session note first
    assert "9am train" in block and "### MEMORY.md" in system


def test_a_group_session_never_sees_memory_md(home, tmp_path):
    _, requests, _ = chat(home, tmp_path, "hello team\n", "--session", "telegram:group:5", "--sender", "bo")
    system = turn_systems(requests)[0]
    assert "### MEMORY.md" not in system and "Mochi" not in system and "9am train" not in system


def test_a_trigger_phrase_injects_with_no_model_call_and_an_inactive_project_does_not(home, tmp_path):
    r, requests, _ = chat(home, tmp_path, "下周去杭州，记得确认返程车票，然后 deploy\n")
    assert [q["kind"] for q in requests].count("turn") >= 1 and "recall" not in [q["kind"] for q in requests]
    system = turn_systems(requests)[0]
    assert "Return train tickets must be confirmed" in system.split('lane="trigger"')[1]
    assert "staging cluster" not in system
    _, requests, _ = chat(home, tmp_path, "deploy today\n", "--session", "work", "--project",
                          "git@github.com:acme/app.git", name="proj")
    assert "staging cluster" in turn_systems(requests)[0].split('lane="trigger"')[1]


def test_active_memory_answers_or_says_none_and_a_slow_model_never_holds_the_reply(home, tmp_path):
    on = ["--set", "memory.activeMemory.enabled=true", "--set", "memory.activeMemory.mode=always"]
    r, requests, _ = chat(home, tmp_path, "Which train did we decide to take?\nWhat is the capital of Peru?\n",
                          *on, name="am")
    systems = turn_systems(requests)
    first = systems[0]
    assert "<active_memory_plugin>" in first and "9am train" in first.split("<active_memory_plugin>")[1]
    assert "status=ok" in r.stderr and "status=none" in r.stderr
    assert "<active_memory_plugin>" not in systems[-1]
    script = {"steps": {"recall": [{"sleep": 300, "ignoreTimeout": True, "reply": "too late"}],
                        "turn": [{"reply": "answered on time"}]}}
    r, _, took = chat(home, tmp_path, "Which train did we decide to take?\n", "--session", "slow", *on,
                      "--set", "memory.activeMemory.timeoutMs=500", script=script, name="slow")
    assert "answered on time" in r.stdout and "status=timeout" in r.stderr
    assert took < 120  # (generous) the process ended long before the recall model's 300 s
