"""reverie doctor, tour and watch, run as a user runs them: real subprocesses."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]


def cli(*args: str, env_extra: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, env=env)


def test_doctor_proves_each_leg_with_fake_provider(reverie_home: Path):
    r = cli("doctor", "--json", "--set", 'memory.search.provider="fake"')
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    legs = {leg["name"]: leg for leg in report["legs"]}
    assert report["ok"] is True
    for name in ("files", "index", "keyword (FTS, Chinese)", "embedding provider", "vector search"):
        assert legs[name]["ok"] is True, legs[name]
    assert not (reverie_home / "workspace").exists()  # the doctor never touches the user's workspace


def test_doctor_keyword_only_skips_the_provider_leg(reverie_home: Path):
    r = cli("doctor", "--json", "--set", 'memory.search.provider="none"')
    assert r.returncode == 0, r.stderr
    legs = {leg["name"]: leg for leg in json.loads(r.stdout)["legs"]}
    assert legs["keyword (FTS, Chinese)"]["ok"] is True
    assert legs["embedding provider"]["ok"] is False and legs["embedding provider"]["skipped"] is True
    assert "vector search" not in legs


def test_doctor_names_a_dead_provider_and_what_to_do(reverie_home: Path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = cli("doctor", "--json", env_extra={"REVERIE_EMBEDDING_PROVIDER": "openai",
                                           "REVERIE_EMBEDDING_BASE_URL": f"http://127.0.0.1:{port}/v1",
                                           "REVERIE_EMBEDDING_API_KEY": "sk-test"})
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert report["ok"] is False
    failed = [leg for leg in report["legs"] if not leg["ok"] and not leg.get("skipped")]
    assert failed and all(leg.get("action") for leg in failed if leg["name"] != "doctor")
    assert "sk-test" not in r.stdout + r.stderr  # the key never shows


@pytest.mark.semantic
def test_tour_runs_offline_and_finds_the_hangzhou_note(tmp_path: Path):
    r = cli("tour", "--home", str(tmp_path / "tour"), timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "index with the embedder 'local'" in out
    after = out.split("search: 为什么没订湖景房", 1)[1].strip().splitlines()
    assert "湖景房" in after[0]  # the first result holds the answer
    after = out.split("search: price too high", 1)[1].strip().splitlines()
    assert "over budget" in after[0]
    assert "6 chunks in the index" in out  # what the index holds, not only what the run had left to do
    night = out.split("one night of Dreaming", 1)[1]
    assert night.count("recalled memory/") == 3  # the three days of recalls are shown
    assert "deep: added into MEMORY.md: 决定住西湖边的湖滨酒店" in night and "DREAMS.md diary: " in night
    recall = out.split("recall before the question", 1)[1]
    assert "/project github.com/acme/app" in recall  # why the project's entry was left out, and how to let it in
    assert "what it handed the model: Rejected the lake-view room" in recall  # Active Memory's summary, shown
    memory = (tmp_path / "tour" / "workspace" / "MEMORY.md").read_text(encoding="utf-8")  # --home keeps it
    notes = sorted((tmp_path / "tour" / "workspace" / "memory").glob("2*.md"))
    times = {n.read_text(encoding="utf-8").split("- ", 1)[1][:5] for n in notes}
    assert len(notes) == 5 and len(times) > 1  # each day's note has a time of its own, not the tour's moment
    assert "湖滨酒店" in memory and "<!-- reverie-entry: st-" in memory


def test_watch_reindexes_a_change_and_stops_cleanly(reverie_home: Path):
    assert cli("init", "--set", 'memory.search.provider="fake"').returncode == 0
    env = {**os.environ}
    proc = subprocess.Popen([*CLI, "watch", "--json", "--debounce-ms", "300", "--set", 'memory.search.provider="fake"'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 30
        line = ""
        while time.monotonic() < deadline and "watching" not in line:
            line = proc.stderr.readline()
        assert "watching" in line
        time.sleep(0.5)
        note = reverie_home / "workspace" / "memory" / "2026-11-20.md"
        note.write_text("- 返程车票已经确认。\n", encoding="utf-8")
        event = json.loads(proc.stdout.readline())
        assert event["event"] == "sync" and event["changed"] == 1
        assert any(p.endswith("2026-11-20.md") for p in event["changed_paths"])
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0
    r = cli("search", "返程车票", "--json", "--set", 'memory.search.provider="fake"')
    assert any("返程车票" in hit["snippet"] for hit in json.loads(r.stdout)["results"])
