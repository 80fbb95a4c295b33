"""Indexing saves its work batch by batch and says how far it got: a killed index keeps its
committed batches and the next run resumes; off a terminal, progress is printed as plain lines
with an ETA; after the scope changes, one instruction (a plain index) finishes the job."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reverie import Memory
from reverie.index.progress import counts
from reverie.store import connect

from engines import engine_env

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
SLOW = ['memory.search.provider="fake"', 'memory.search.model="slow"']
FAKE = ['memory.search.provider="fake"']


def cli(*args: str, home: Path, sets=FAKE, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", **engine_env())
    flags = sum((["--set", s] for s in sets), [])
    return subprocess.run([*CLI, *args, *flags], env=env, capture_output=True, text=True, timeout=timeout)


def notes(ws: Path, n: int, folder: str = "memory/notes") -> None:
    d = ws / folder
    d.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (d / f"n{i:04d}.md").write_text(f"- note {i} about the word{i} and a heron\n", encoding="utf-8")


def _cache_rows(mem: Memory) -> int:
    conn = connect(mem.agent_store)
    try:
        return conn.execute("SELECT count(*) FROM memory_embedding_cache").fetchone()[0]
    finally:
        conn.close()


def test_a_killed_index_keeps_its_batches_and_the_next_run_resumes(reverie_home):
    mem = Memory(overrides=SLOW)
    mem.init()
    notes(mem.workspace, 400)  # 400 chunks: 7 vector batches of 64, 0.2 s each with the slow model
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    # two batches are embedded, the third never returns: the kill lands mid-run however slow the machine
    env.update(REVERIE_HOME=str(reverie_home), REVERIE_TIMEZONE="UTC", FAKE_EMBEDDER_STUCK_AFTER="2",
               **engine_env())
    proc = subprocess.Popen([*CLI, "index", *sum((["--set", s] for s in SLOW), [])], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240  # (a wait for a state, not a measure of speed)
        while counts(mem.index.conn())[1] < 128:
            assert proc.poll() is None and time.monotonic() < deadline, "the first two batches never committed"
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(30)
    conn = mem.index.conn()
    chunks, vectors = counts(conn)
    assert chunks == 400  # the files phase committed every note's text ...
    assert vectors == 128  # ... and the vectors of the two batches done before the kill
    assert _cache_rows(mem) >= vectors  # the embedding cache was written batch by batch too
    found = mem.search("word123 heron")  # keyword search works on the half-built index
    assert "memory/notes/n0123.md" in [r["path"] for r in found["results"]]
    assert found["indexing"]["state"] in ("interrupted", "running")  # running: the search resumed it
    mem.close()  # stops that background run between two batches
    cached = _cache_rows(mem)
    status = json.loads(cli("status", "--json", home=reverie_home, sets=SLOW).stdout)
    assert status["indexing"]["state"] == "interrupted" and status["action"] == "reverie index"
    again = cli("index", "--json", home=reverie_home, sets=SLOW, timeout=300)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["changed"] == 0 and report["vectors_missing"] == 0  # resumed, nothing redone
    assert report["embedded"] == 400 - cached  # only what the killed run had not embedded
    status = json.loads(cli("status", "--json", home=reverie_home, sets=SLOW).stdout)
    assert status["indexing"] is None and status["action"] is None


def test_index_prints_progress_lines_with_an_eta_off_a_terminal(reverie_home):
    mem = Memory(overrides=SLOW)
    mem.init()
    notes(mem.workspace, 640)  # 10 vector batches of 0.2 s: a run of a few seconds
    mem.close()
    r = cli("index", home=reverie_home, sets=SLOW, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    middle = [line for line in lines if line.startswith("indexing vectors: ") and "ETA" in line]
    assert middle, r.stderr  # lines between start and end, with an estimate
    assert any(line.startswith("indexing vectors: 640/640 (100%)") for line in lines)
    assert lines[-1].startswith("indexed: ")
    quick = cli("index", "--json", home=reverie_home, sets=SLOW)  # nothing to do
    assert quick.returncode == 0, quick.stderr
    again = json.loads(quick.stdout)
    assert again["changed"] == 0 and again["embedded"] == 0 and again["chunks_written"] == 0
    # No vector stage is entered when every chunk has its vector, however slow the machine; a
    # line for the files stage may appear (scanning 640 files can pass the quiet second under load).
    assert not [line for line in quick.stderr.splitlines() if line.startswith("indexing vectors")], quick.stderr


def test_a_scope_change_needs_only_a_plain_index(reverie_home, tmp_path):
    mem = Memory(overrides=FAKE)
    mem.init()
    notes(mem.workspace, 5)
    mem.sync()
    mem.close()
    extra = tmp_path / "project-notes"
    extra.mkdir()
    (extra / "design.md").write_text("- The cache is keyed by chunk hash.\n", encoding="utf-8")
    (extra / "todo.md").write_text("- Write the migration for the zephyr table.\n", encoding="utf-8")
    scoped = [*FAKE, f'memory.search.extraPaths=["{extra}"]']
    status = json.loads(cli("status", "--json", home=reverie_home, sets=scoped).stdout)
    assert status["identity"]["status"] == "scope-changed"
    assert status["action"] == "reverie index"  # one instruction ...
    assert "--force" not in json.dumps(status)  # ... and never the rebuild
    r = cli("index", "--json", home=reverie_home, sets=scoped)
    report = json.loads(r.stdout)
    assert report["changed"] == 2 and report["unchanged"] >= 5  # only the files that came into scope
    status = json.loads(cli("status", "--json", home=reverie_home, sets=scoped).stdout)
    assert status["identity"] == {"status": "valid"} and status["action"] is None and not status["dirty"]
    found = json.loads(cli("search", "zephyr migration", "--json", home=reverie_home, sets=scoped).stdout)
    assert "stale" not in found and found["results"][0]["path"].endswith("todo.md")
    # and back: the path leaves the settings, a plain index removes its files
    status = json.loads(cli("status", "--json", home=reverie_home).stdout)
    assert status["action"] == "reverie index" and status["pending"]["removed"] == 2
    report = json.loads(cli("index", "--json", home=reverie_home).stdout)
    assert report["removed"] == 2 and report["changed"] == 0
    assert json.loads(cli("status", "--json", home=reverie_home).stdout)["identity"] == {"status": "valid"}


def test_search_on_a_half_indexed_workspace_resumes_the_run(reverie_home):
    mem = Memory(overrides=SLOW)  # 60 vectors to redo: 8 slices of 0.2 s in the background
    mem.init()
    notes(mem.workspace, 120)
    mem.sync()
    conn = mem.index.conn()  # as a kill in the vectors phase leaves it
    conn.execute("UPDATE memory_index_chunks SET embedding = NULL WHERE seq % 2 = 0")
    from reverie.index.identity import read_meta, write_meta

    write_meta(conn, "index_progress", {**read_meta(conn, "index_progress"), "state": "running", "phase": "vectors"})
    mem.close()
    agent = connect(mem.agent_store)
    agent.execute("DELETE FROM memory_embedding_cache")  # the killed run had not cached them either
    agent.close()
    mem = Memory(overrides=SLOW)
    out = mem.search("word7 heron")
    assert "memory/notes/n0007.md" in [r["path"] for r in out["results"]]
    assert out["stale"] is True and out["indexing"]["vectors"]["done"] < out["indexing"]["vectors"]["total"]
    assert mem.searcher.wait_for_sync(30)
    done = mem.search("word7 heron")
    assert "indexing" not in done and "stale" not in done and done["mode"] == "hybrid"
    mem.close()
