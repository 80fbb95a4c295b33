"""Ctrl-C during ``reverie index`` stops the run in the batch it is working on, even while the
embedding engine is busy in C code, keeps every batch committed before it, says how to resume,
and exits 130; the next ``reverie index`` embeds only what is missing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from reverie import Memory
from reverie.index.progress import counts

from engines import engine_env

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
FAKE = ['memory.search.provider="fake"']


def _env(home, **more: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", **engine_env(), **more)
    return env


def _flags(sets: list[str]) -> list[str]:
    return sum((["--set", s] for s in sets), [])


def ctrl_c_default() -> None:
    """Ctrl-C as a terminal's process gets it: a suite started in the background (``cmd &`` in a
    script) runs with SIGINT ignored, which every child would inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _vectors(mem: Memory) -> int:
    return counts(mem.index.conn())[1]


def test_ctrl_c_while_the_engine_is_busy_keeps_the_finished_batches(reverie_home):
    mem = Memory(overrides=FAKE)
    mem.init()
    d = mem.workspace / "memory" / "notes"
    d.mkdir(parents=True)
    for i in range(400):  # 400 chunks: batches of 64; the third never returns
        (d / f"n{i:04d}.md").write_text(f"- note {i} about the word{i} and a heron\n", encoding="utf-8")
    proc = subprocess.Popen([*CLI, "index", *_flags(FAKE)], env=_env(reverie_home, FAKE_EMBEDDER_STUCK_AFTER="2"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_default)
    try:
        deadline = time.monotonic() + 240  # (a wait for a state, not a measure of speed)
        while _vectors(mem) < 128:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the first two batches were never stored"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)  # the third batch holds signals back, like a C engine
        out, err = proc.communicate(timeout=120)  # generous; the engine itself would wait an hour
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == ("reverie: error: interrupted; `reverie index` resumes "
                                            "(128 of 400 chunks have their vector)")
    assert out == ""
    assert _vectors(mem) == 128  # the two finished batches stayed; the abandoned one wrote nothing
    status = json.loads(subprocess.run([*CLI, "status", "--json", *_flags(FAKE)], env=_env(reverie_home),
                                       capture_output=True, text=True, timeout=120).stdout)
    assert status["indexing"]["state"] == "interrupted" and status["action"] == "reverie index"
    mem.close()
    again = subprocess.run([*CLI, "index", "--json", *_flags(FAKE)], env=_env(reverie_home),
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["changed"] == 0 and report["vectors_missing"] == 0
    assert report["embedded"] == 400 - 128  # the kept batches are not embedded again
