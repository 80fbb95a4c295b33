"""A damaged derived index repairs itself: a garbage or truncated generation, a binary or dangling
``index/CURRENT``. Every command keeps working (exit 0), searches answer (from the rebuilt keyword
rows, or with a clear message while it is rebuilt), and nothing else is touched: the index is
rebuilt from the files, with vectors from the embedding cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

from reverie import Memory
from reverie.index import generations
from reverie.store import connect

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
FAKE = ['memory.search.provider="fake"']


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return subprocess.run([*CLI, *args, "--set", FAKE[0]], env=env, capture_output=True, text=True, timeout=120)


def _indexed(home: Path) -> Memory:
    mem = Memory(overrides=FAKE)
    mem.init()
    (mem.workspace / "memory" / "2026-11-03.md").write_text("- The heron nests by the old mill.\n", encoding="utf-8")
    (mem.workspace / "memory" / "2026-11-04.md").write_text("- 在西湖边看到了白鹭。\n", encoding="utf-8")
    mem.sync()
    return mem


def _live(mem: Memory) -> Path:
    path = generations.current_path(mem.places.index_dir)
    assert path is not None
    c = connect(path)  # put every page in the main file, so damage to it is damage to the index
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    return path


def garbage_generation(mem: Memory) -> None:
    _live(mem).write_bytes(os.urandom(64 * 1024))


def truncated_generation(mem: Memory) -> None:
    path = _live(mem)
    os.truncate(path, path.stat().st_size // 2)


def binary_current(mem: Memory) -> None:
    (mem.places.index_dir / "CURRENT").write_bytes(b"\x00\xff\xfe garbage \x89PNG\r\n")


def dangling_current(mem: Memory) -> None:
    (mem.places.index_dir / "CURRENT").write_text("index-000099.sqlite\n", encoding="utf-8")


DAMAGE = [garbage_generation, truncated_generation, binary_current, dangling_current]


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__)
def test_every_command_works_on_a_damaged_index_and_index_repairs_it(reverie_home, damage):
    mem = _indexed(reverie_home)
    mem.close()
    damage(mem)
    status = cli("status", "--json", home=reverie_home)
    assert status.returncode == 0, status.stderr
    search = cli("search", "heron mill", "--json", home=reverie_home)
    assert search.returncode == 0, search.stderr
    out = json.loads(search.stdout)
    # rebuilt from the files in the search's own background run (keyword rows first)
    assert [r["path"] for r in out["results"]][:1] == ["memory/2026-11-03.md"]
    index = cli("index", "--json", home=reverie_home)
    assert index.returncode == 0, index.stderr
    status = json.loads(cli("status", "--json", home=reverie_home).stdout)
    assert status["files"] == 3 and status["chunks"]["total"] == 2 and status["action"] is None
    assert json.loads(cli("search", "白鹭", "--json", home=reverie_home).stdout)["results"][0]["path"] == \
        "memory/2026-11-04.md"


@pytest.mark.parametrize("damage", [garbage_generation, truncated_generation], ids=lambda f: f.__name__)
def test_index_force_repairs_a_damaged_generation(reverie_home, damage):
    mem = _indexed(reverie_home)
    mem.close()
    damage(mem)
    forced = cli("index", "--force", "--json", home=reverie_home)
    assert forced.returncode == 0, forced.stderr
    report = json.loads(forced.stdout)
    assert report["chunks_written"] == 2 and report["embedded"] == 0  # vectors from the cache


def test_damage_under_a_running_process_is_repaired_and_searches_keep_answering(reverie_home):
    mem = _indexed(reverie_home)
    assert mem.search("heron mill")["results"]
    old = _live(mem)
    old.write_bytes(os.urandom(64 * 1024))  # the file is damaged while the server has it open
    Path(str(old) + "-shm").unlink(missing_ok=True)
    answers = [mem.search("heron mill") for _ in range(3)]  # never raises
    for out in answers:
        assert out["results"] or ("damaged" in out["warning"] and "reverie index" in out["action"])
    assert mem.searcher.wait_for_sync(30)
    out = mem.search("heron mill")
    assert [r["path"] for r in out["results"]][:1] == ["memory/2026-11-03.md"]
    assert "stale" not in out
    mem.close()


def test_a_damaged_generation_is_reported_by_status_until_rebuilt(reverie_home):
    mem = _indexed(reverie_home)
    mem.close()
    garbage_generation(mem)
    fresh = Memory(overrides=FAKE)
    status = fresh.status()  # opening the index replaced the damaged generation
    assert any("damaged" in w and "reverie index" in w for w in status["warnings"])
    assert status["action"] == "reverie index"
    fresh.sync()
    status = fresh.status()
    assert not any("damaged" in w for w in status["warnings"]) and status["action"] is None
    fresh.close()
    with pytest.raises(apsw.Error):  # the damaged file is gone from the live place, not silently reused
        c = apsw.Connection(str(mem.places.index_dir / "index-000001.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
        c.execute("SELECT 1 FROM memory_index_chunks").fetchall()
