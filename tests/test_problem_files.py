"""A workspace with files that cannot be indexed: sync goes on, good notes are findable, and every
problem is named in status (API and CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from reverie import Memory
from reverie.text.fts import build_query

BIG = 50 * 1024 * 1024


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120)


def keyword_paths(mem: Memory, query: str) -> set[str]:
    return {r[0] for r in mem.index.conn().execute(
        "SELECT c.path FROM memory_index_chunks_fts f JOIN memory_index_chunks c ON c.seq = f.rowid "
        "WHERE memory_index_chunks_fts MATCH ?", (build_query(query).strict,))}


@pytest.fixture
def messy(fake_memory: Memory) -> Memory:
    mem_dir = fake_memory.workspace / "memory"
    (mem_dir / "good.md").write_text("- booked the lake-view hotel in Hangzhou\n", encoding="utf-8")
    (mem_dir / "sub").mkdir()
    (mem_dir / "sub" / "deep.md").write_text("- 返程车票还没确认\n", encoding="utf-8")
    (mem_dir / "sub" / "loop").symlink_to(mem_dir, target_is_directory=True)  # memory/sub/loop -> memory
    (mem_dir / "self").symlink_to(".", target_is_directory=True)
    (mem_dir / "x.md").write_bytes(bytes(range(256)) * 64)  # binary, NUL bytes and all
    with open(mem_dir / "huge.md", "wb") as fh:  # 50 MB of NUL-free text, written in a few large blocks
        block = b"- filler line for a very large file\n" * 29127  # ~1 MiB
        while fh.tell() < BIG:
            fh.write(block)
    (mem_dir / "latin1.md").write_bytes("- caf\u00e9 cr\u00e8me br\u00fbl\u00e9e\n".encode("latin-1"))
    (mem_dir / "empty.md").write_bytes(b"")
    return fake_memory


PROBLEMS = {
    "memory/x.md": "binary",
    "memory/huge.md": "too large",
    "memory/latin1.md": "UTF-8",
    "memory/self": "symlink",
    "memory/sub/loop": "symlink",
}


def test_sync_survives_and_indexes_good_notes(messy: Memory):
    report = messy.sync()
    for path, word in PROBLEMS.items():
        assert word in report.problems.get(path, ""), (path, report.problems)
    assert keyword_paths(messy, "hotel") == {"memory/good.md"}
    assert keyword_paths(messy, "车票") == {"memory/sub/deep.md"}
    indexed = {r[0] for r in messy.index.conn().execute("SELECT DISTINCT path FROM memory_index_chunks")}
    # invalid UTF-8 is one bad segment, not a reason to drop the file: indexed with U+FFFD for it
    assert indexed == {"memory/good.md", "memory/sub/deep.md", "memory/latin1.md"}
    assert keyword_paths(messy, "caf") == {"memory/latin1.md"}
    # nothing was followed through a symlink: no path repeats under loop/ or self/
    sources = {r[0] for r in messy.index.conn().execute("SELECT path FROM memory_index_sources")}
    assert not any("/loop/" in p or p.startswith("memory/self/") for p in sources)
    assert "memory/empty.md" in sources  # an empty note is fine, it just has no chunks


def test_status_lists_every_problem(messy: Memory):
    messy.sync()
    s = messy.status()
    listed = {p["path"]: p["problem"] for p in s["problems"]}
    for path, word in PROBLEMS.items():
        assert word in listed.get(path, ""), (path, listed)
        assert any(w.startswith(f"{path}: ") for w in s["warnings"])
    # the issue asks for a warning for an empty file too; it is still indexed (as nothing)
    assert "empty" in listed["memory/empty.md"]
    assert s["dirty"] is False  # skipped files do not keep the index "dirty" forever
    assert s["chunks"]["total"] == 3  # good, deep and the repaired latin1


def test_problem_fixed_is_indexed_and_unlisted(messy: Memory):
    messy.sync()
    (messy.workspace / "memory" / "latin1.md").write_text("- café crème brûlée\n", encoding="utf-8")
    messy.sync()
    assert keyword_paths(messy, "creme") == {"memory/latin1.md"}  # remove_diacritics
    assert "memory/latin1.md" not in {p["path"] for p in messy.status()["problems"]}


def test_cli_status_json_with_problem_files(messy: Memory):
    messy.close()
    r = cli("index", "--json", "--set", 'memory.search.provider="fake"')
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert set(PROBLEMS) <= set(report["problems"])
    r = cli("status", "--json", "--set", 'memory.search.provider="fake"')
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert {p["path"] for p in s["problems"]} >= set(PROBLEMS)
    assert len(s["warnings"]) >= len(PROBLEMS)
    # the human form names the problems on stderr and keeps stdout empty
    r = cli("status", "--set", 'memory.search.provider="fake"')
    assert r.returncode == 0 and r.stdout == ""
    for path in PROBLEMS:
        assert path in r.stderr
