"""FIFOs, sockets and hard links named like notes (issue 10, points 2 and 3).

A FIFO named ``*.md`` once hung ``get``, ``index`` and a first search, and under ``watch`` kept the
sync lock held after the FIFO was gone. Reads now open only regular files and never block. A hard
link in ``memory/`` to a file outside the workspace was served and indexed; now such files are
refused unless ``memory.search.allowHardLinks`` is on. Every CLI call has a timeout: a hang fails.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from reverie import Memory
from reverie.errors import UserError
from reverie.index.discover import SourceFile
from reverie.index.sync import _read_source
from reverie.workspace import append_daily

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and hard-link rules are POSIX tests")

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
FAKE = ("--set", 'memory.search.provider="fake"')
UTC = timezone.utc


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args, *FAKE], capture_output=True, text=True, timeout=timeout, env=dict(os.environ))


def call_with_timeout(fn, seconds: float = 20):
    """Run ``fn`` in a daemon thread; fail (instead of hanging the suite) if it does not return."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed back to the test
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn} blocked for more than {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture
def workspace(reverie_home: Path) -> Path:
    assert cli("init").returncode == 0
    ws = reverie_home / "workspace"
    (ws / "memory" / "2026-03-01.md").write_text("- booked the lakeside hotel\n", encoding="utf-8")
    return ws


# -- FIFOs and sockets ----------------------------------------------------------------------------
def test_get_on_a_fifo_refuses_at_once(workspace: Path):
    os.mkfifo(workspace / "memory" / "pipe.md")
    r = cli("get", "memory/pipe.md")
    assert r.returncode == 1, r.stderr
    assert "not a regular file (FIFO)" in r.stderr


def test_index_and_a_first_search_skip_a_fifo_and_a_socket(workspace: Path):
    os.mkfifo(workspace / "memory" / "pipe.md")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(workspace / "memory" / "sock.md"))
    try:
        r = cli("search", "lakeside", "--json")  # never indexed: the first search syncs
        assert r.returncode == 0, r.stderr
        assert [h["path"] for h in json.loads(r.stdout)["results"]] == ["memory/2026-03-01.md"]
        r = cli("index", "--json")
        assert r.returncode == 0, r.stderr
        problems = json.loads(r.stdout)["problems"]
        assert "FIFO" in problems["memory/pipe.md"] and "socket" in problems["memory/sock.md"]
        r = cli("status", "--json")
        listed = {p["path"]: p["problem"] for p in json.loads(r.stdout)["problems"]}
        assert "not a regular file" in listed["memory/pipe.md"]
    finally:
        sock.close()


def test_a_note_swapped_for_a_fifo_after_discovery_is_not_opened_blocking(tmp_path: Path):
    fifo = tmp_path / "late.md"
    os.mkfifo(fifo)
    text, raw, problem = call_with_timeout(lambda: _read_source(SourceFile("late.md", fifo)))
    assert text is None and raw is None and "FIFO" in problem


def test_appending_to_a_daily_note_that_is_a_fifo_is_refused(tmp_path: Path):
    (tmp_path / "memory").mkdir()
    os.mkfifo(tmp_path / "memory" / "2026-03-01.md")
    with pytest.raises(UserError, match="not a regular file"):
        call_with_timeout(lambda: append_daily(tmp_path, "hello", now=datetime(2026, 3, 1, 9, tzinfo=UTC), tz=UTC))


def test_appending_to_a_daily_note_that_is_a_folder_is_a_user_error(tmp_path: Path):
    (tmp_path / "memory" / "2026-03-01.md").mkdir(parents=True)
    with pytest.raises(UserError, match="is a folder, not a regular file; nothing written"):
        append_daily(tmp_path, "hello", now=datetime(2026, 3, 1, 9, tzinfo=UTC), tz=UTC)


def test_a_fifo_never_wedges_the_watcher_or_the_index_lock(workspace: Path):
    proc = subprocess.Popen([*CLI, "watch", "--json", "--debounce-ms", "100", *FAKE],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline and "watching" not in line:
            line = proc.stderr.readline()
        assert "watching" in line
        time.sleep(0.3)
        os.mkfifo(workspace / "memory" / "pipe.md")
        (workspace / "memory" / "2026-03-02.md").write_text("- train tickets bought\n", encoding="utf-8")
        seen: dict = {}

        def next_event():
            while "memory/pipe.md" not in seen.get("problems", {}):
                seen.update(json.loads(proc.stdout.readline()))
            return seen

        event = call_with_timeout(next_event, 60)
        assert "FIFO" in event["problems"]["memory/pipe.md"]
        os.unlink(workspace / "memory" / "pipe.md")
        # the sync lock is free: a plain index and a rebuild both finish while the watcher runs
        for args in (("index", "--json"), ("index", "--force", "--json")):
            r = cli(*args)
            assert r.returncode == 0, r.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


# -- hard links -----------------------------------------------------------------------------------
@pytest.fixture
def linked(reverie_home: Path, tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    # (not a secret: a code would be withheld from the prompt whatever the link, see docs/trust.md)
    (outside / "secret.md").write_text("- the vault sits behind boat shed number 1234\n", encoding="utf-8")
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    mem.close()
    ws = reverie_home / "workspace"
    (ws / "memory" / "ok.md").write_text("- an ordinary note about the vault\n", encoding="utf-8")
    os.link(outside / "secret.md", ws / "memory" / "2026-03-03.md")
    return ws


def test_a_hard_link_is_neither_served_nor_indexed(linked: Path):
    mem = Memory(overrides=['memory.search.provider="fake"'])
    try:
        with pytest.raises(UserError, match="2 hard links.*allowHardLinks"):
            mem.get("memory/2026-03-03.md")
        report = mem.sync()
        assert "hard links" in report.problems["memory/2026-03-03.md"]
        assert "1234" not in json.dumps(mem.search("vault boat shed", min_score=0))
        listed = {p["path"]: p["problem"] for p in mem.status()["problems"]}
        assert "allowHardLinks" in listed["memory/2026-03-03.md"]
        assert mem.status()["dirty"] is False
    finally:
        mem.close()
    r = cli("get", "memory/2026-03-03.md")
    assert r.returncode == 1 and "hard links" in r.stderr and "1234" not in r.stdout


def test_the_owner_may_allow_hard_links(linked: Path):
    strict = Memory(overrides=['memory.search.provider="fake"'])
    strict.sync()  # indexed once without the file
    strict.close()
    mem = Memory(overrides=['memory.search.provider="fake"', "memory.search.allowHardLinks=true"])
    try:
        assert "1234" in mem.get("memory/2026-03-03.md")["text"]
        # the setting changes which files are indexed: the index says so, and a plain index follows
        status = mem.status()
        assert status["identity"]["status"] == "scope-changed" and status["action"] == "reverie index"
        report = mem.sync()
        assert "memory/2026-03-03.md" not in report.problems
        hits = mem.search("vault boat shed", min_score=0)["results"]
        assert "memory/2026-03-03.md" in {h["path"] for h in hits}
    finally:
        mem.close()


def test_a_hard_linked_memory_md_is_refused_too(linked: Path, tmp_path: Path):
    (linked / "MEMORY.md").unlink()
    os.link(tmp_path / "outside" / "secret.md", linked / "MEMORY.md")
    mem = Memory(overrides=['memory.search.provider="fake"'])
    try:
        with pytest.raises(UserError, match="hard links"):
            mem.get("MEMORY.md")
        assert "hard links" in mem.sync().problems["MEMORY.md"]
    finally:
        mem.close()


def test_a_hard_linked_memory_md_is_not_put_in_the_chat_prompt_unless_allowed(linked: Path, tmp_path: Path):
    from reverie.models.scripted import ScriptedModel

    (linked / "MEMORY.md").unlink()
    os.link(tmp_path / "outside" / "secret.md", linked / "MEMORY.md")
    for allowed in (False, True):
        mem = Memory(overrides=['memory.search.provider="fake"', f"memory.search.allowHardLinks={str(allowed).lower()}"])
        model = ScriptedModel(script={})
        rt = mem.runtime(model)
        rt.send("hi")
        assert ("1234" in model.requests[0]["messages"][0]["content"]) is allowed
        rt.close()
        mem.close()
