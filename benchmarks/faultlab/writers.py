"""Concurrent writers: separate processes append to one workspace at once, through ``remember``
and the ``memory_append`` tool in turn (each append also indexes its own note). Every entry must
land exactly once, whole (its three lines together, never interleaved with another's), each day's
header once, and every entry must be in the index after the next sync."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from .common import FAKE, clean_env

WRITER = """
import sys, time
from pathlib import Path
from reverie import Memory
w, n, start = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
mem = Memory(overrides=[sys.argv[4]])
append = {t.name: t for t in mem.tools()}["memory_append"]
while not start.exists():
    time.sleep(0.005)
for i in range(n):
    text = f"cw {w}-{i} begin\\nmiddle {w}-{i}\\nend {w}-{i}"
    mem.remember(text) if i % 2 else append.call({"text": text})
mem.close()
"""


def run_writers(root: Path, writers: int, per_writer: int) -> dict:
    from reverie import Memory

    home = root / "writers"
    env = clean_env(home)
    mem = Memory(home=home, overrides=[FAKE], env=env)
    mem.init()
    mem.close()
    start = root / "writers-go"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(w), str(per_writer), str(start), FAKE], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for w in range(writers)]
    time.sleep(1.0)  # let every writer import reverie and wait at the line
    started = time.monotonic()
    start.touch()
    errors = []
    for p in procs:
        try:
            _, err = p.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
            errors.append("a writer hung")
        if p.returncode != 0:
            errors.append(f"a writer exited {p.returncode}: {err[-300:]}")
    seconds = time.monotonic() - started
    return {"writers": writers, "perWriter": per_writer, "seconds": round(seconds, 2), "errors": errors,
            **check(home, writers, per_writer)}


def check(home: Path, writers: int, per_writer: int) -> dict:
    from reverie import Memory

    ws = home / "workspace"
    present: dict[str, int] = {}
    interleaved = headers_twice = 0
    for note in sorted((ws / "memory").glob("*.md")):
        lines = note.read_text(encoding="utf-8").split("\n")
        if lines.count(f"# {note.stem}") != 1:
            headers_twice += 1
        for i, line in enumerate(lines):
            m = re.search(r"cw (\d+-\d+) begin$", line)
            if m:
                key = m.group(1)
                present[key] = present.get(key, 0) + 1
                if lines[i + 1:i + 3] != [f"  middle {key}", f"  end {key}"]:
                    interleaved += 1
    expected = {f"{w}-{i}" for w in range(writers) for i in range(per_writer)}
    missing = sorted(expected - set(present))
    twice = sorted(k for k, c in present.items() if c > 1)
    mem = Memory(home=home, overrides=[FAKE], env=clean_env(home))
    try:
        mem.sync()
        conn = mem.index.conn()
        texts = "\n".join(r[0] for r in conn.execute("SELECT text FROM memory_index_chunks"))
    finally:
        mem.close()
    unindexed = sorted(k for k in present if f"cw {k} begin" not in texts)
    return {"entries": writers * per_writer, "present": len(present), "missing": len(missing),
            "duplicated": len(twice), "interleaved": interleaved, "headersTwice": headers_twice,
            "notIndexed": len(unindexed), "examples": (missing + twice + unindexed)[:5]}
