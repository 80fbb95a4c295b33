"""One large entry never hides a day: a write over 1 MiB is refused whole (one line, exit 1,
nothing written), and a daily note pushed past the indexer's file limit by one enormous entry
(appended by hand, or before writes were capped) keeps every other entry searchable, at the line
numbers the file has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import Memory
from reverie.errors import UserError
from reverie.index.sync import MAX_FILE_BYTES
from reverie.workspace.writes import MAX_ENTRY_BYTES

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
FAKE = ["--set", 'memory.search.provider="fake"']


def _cli(home: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return subprocess.run([*CLI, *args, *FAKE], input=stdin, env=env, capture_output=True, timeout=120)


def _daily_files(mem: Memory) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (mem.workspace / "memory").glob("*.md")}


def test_remember_stdin_over_the_cap_is_refused_and_writes_nothing(fake_memory: Memory, reverie_home: Path):
    fake_memory.remember("the owner's lunch with Ana at noon")
    before = _daily_files(fake_memory)
    r = _cli(reverie_home, "remember", "--stdin", stdin=b"x" * (20 * 1024 * 1024))
    assert r.returncode == 1
    err = r.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "too long" in err[0] and "nothing was remembered" in err[0], err
    assert _daily_files(fake_memory) == before
    ok = _cli(reverie_home, "remember", "--stdin", stdin=b"y" * MAX_ENTRY_BYTES)  # the limit itself is fine
    assert ok.returncode == 0, ok.stderr


def test_api_write_over_the_cap_raises_and_writes_nothing(fake_memory: Memory):
    with pytest.raises(UserError, match="too long"):
        fake_memory.remember("é" * (MAX_ENTRY_BYTES // 2 + 1))  # counted in UTF-8 bytes, not characters
    assert _daily_files(fake_memory) == {}


@pytest.mark.parametrize("shape", ["one line", "indented lines"])
def test_an_enormous_entry_leaves_its_neighbours_in_the_index(fake_memory: Memory, shape: str):
    note = fake_memory.workspace / "memory" / "2026-03-02.md"
    with open(note, "w", encoding="utf-8") as fh:
        fh.write("# 2026-03-02\n\n- 09:00 booked the lake-view hotel in Hangzhou\n")
        if shape == "one line":
            fh.write("- 10:00 " + "pasted log " * (MAX_FILE_BYTES // 11 + 1000) + "\n")
        else:
            fh.write("- 10:00 pasted a log\n")
            line = "  " + "log line of a pasted build " * 10 + "\n"
            for _ in range(MAX_FILE_BYTES // len(line) + 1000):
                fh.write(line)
        fh.write("- 11:00 the heron nests by the north pier\n")
    assert note.stat().st_size > MAX_FILE_BYTES
    lines = note.read_text(encoding="utf-8").split("\n")
    after_line = next(i for i, text in enumerate(lines, 1) if "heron" in text)
    del lines

    report = fake_memory.sync()
    problem = report.problems.get("memory/2026-03-02.md", "")
    assert "not indexed at line 4" in problem and "the rest of the file is" in problem, problem
    for query, wanted in (("lake-view hotel Hangzhou", "hotel"), ("heron north pier", "heron")):
        hits = fake_memory.search(query)["results"]
        assert hits and hits[0]["path"] == "memory/2026-03-02.md" and wanted in hits[0]["snippet"], hits
    heron = [r for r in fake_memory.search("heron north pier")["results"] if "heron" in r["snippet"]][0]
    assert heron["startLine"] <= after_line <= heron["endLine"]  # line numbers are the file's
    # the entry's first line stays findable, marked; its body is left out of the index
    texts = [r[0] for r in fake_memory.index.conn().execute("SELECT text FROM memory_index_chunks")]
    assert sum(map(len, texts)) < 5_000 and any("bytes not indexed: over the limit]" in t for t in texts), texts
    # an unchanged file is not read again; the problem stays listed
    again = fake_memory.sync()
    assert again.changed == 0 and "memory/2026-03-02.md" in {p["path"] for p in fake_memory.status()["problems"]}


def test_a_large_document_of_small_lines_is_still_skipped_whole(fake_memory: Memory):
    big = fake_memory.workspace / "memory" / "export.md"
    line = b"- one short line of a large export\n"
    big.write_bytes(line * (MAX_FILE_BYTES // len(line) + 10))
    report = fake_memory.sync()
    assert "too large" in report.problems.get("memory/export.md", "")
    assert not fake_memory.search("large export")["results"]
