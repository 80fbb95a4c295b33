"""``watch`` keeps its quiet-period debounce and adds a maximum wait: a workspace written more
often than the quiet period is re-indexed anyway (before, it never was while the writes went on)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from reverie.index.watch import watch_paths

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
FAKE = 'memory.search.provider="fake"'


def test_a_burst_is_synced_once_after_the_quiet_period(tmp_path: Path):
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    calls: list[set[str]] = []
    stop, ready = threading.Event(), threading.Event()
    th = threading.Thread(target=watch_paths, args=([root], calls.append),
                          kwargs={"debounce_ms": 3000, "max_wait_ms": 30_000, "stop": stop, "ready": ready})
    th.start()
    try:
        assert ready.wait(10)
        time.sleep(0.3)
        for i in range(3):  # (a 3 s quiet period: a busy machine pausing between writes does not split them)
            (root / "memory" / f"n{i}.md").write_text(f"- note {i}\n", encoding="utf-8")
        deadline = time.monotonic() + 20
        while not calls and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        th.join(10)
    assert len(calls) == 1 and {Path(p).name for p in calls[0]} == {"n0.md", "n1.md", "n2.md"}


def test_writes_more_often_than_the_quiet_period_are_synced_anyway(tmp_path: Path):
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    calls: list[tuple[int, set[str]]] = []
    written = 0
    stop, ready = threading.Event(), threading.Event()
    th = threading.Thread(target=watch_paths, args=([root], lambda paths: calls.append((written, paths))),
                          kwargs={"debounce_ms": 600, "max_wait_ms": 1500, "stop": stop, "ready": ready})
    th.start()
    try:
        assert ready.wait(10)
        time.sleep(0.3)
        note = root / "memory" / "2026-11-20.md"
        for i in range(30):  # every 200 ms for 6 s: never 600 ms of quiet
            with note.open("a", encoding="utf-8") as fh:
                fh.write(f"- entry {i}\n")
            written += 1
            time.sleep(0.2)
    finally:
        stop.set()
        th.join(10)
    during = [c for c in calls if c[0] < 30]
    assert during, "no sync while the writes went on"
    assert all(str(note) in paths for _, paths in during)


def test_watch_command_reindexes_a_workspace_written_every_half_second(reverie_home: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(reverie_home), REVERIE_TIMEZONE="UTC")
    assert subprocess.run([*CLI, "init", "--set", FAKE], env=env, capture_output=True).returncode == 0
    proc = subprocess.Popen([*CLI, "watch", "--json", "--max-wait-ms", "2000", "--set", FAKE],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    events: list[dict] = []
    reader = threading.Thread(target=lambda: events.extend(json.loads(line) for line in proc.stdout), daemon=True)
    try:
        line = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "watching" not in line:
            line = proc.stderr.readline()
        assert "watching" in line
        reader.start()
        time.sleep(0.5)
        note = reverie_home / "workspace" / "memory" / "2026-11-21.md"
        seen_while_writing = 0
        for i in range(16):  # every 0.5 s for 8 s, under the default 1.5 s quiet period
            with note.open("a", encoding="utf-8") as fh:
                fh.write(f"- busy entry {i} about the kingfisher\n")
            time.sleep(0.5)
            seen_while_writing = len(events)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0
    assert seen_while_writing >= 1, "watch never re-indexed while the notes kept coming"
    assert all(e["event"] == "sync" for e in events)
    r = subprocess.run([*CLI, "search", "kingfisher", "--json", "--set", FAKE], env=env, capture_output=True,
                       text=True, timeout=60)
    assert any("kingfisher" in hit["snippet"] for hit in json.loads(r.stdout)["results"])
