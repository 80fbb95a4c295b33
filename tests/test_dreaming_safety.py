"""Write safety of Dreaming (reference §16.8) with real subprocesses: a person editing MEMORY.md
during a sweep makes the rewrite skip cleanly and loses nothing; `kill -9` at every step leaves
MEMORY.md old or new, never torn, and the next night finishes without duplicates; a preimage puts
back the exact bytes; the in-place fallback only when the folder refuses the rename; UTF-8
refusal; symlinks written through (MEMORY.md) or refused (DREAMS.md)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dreaming_helpers import FAKE, LOW_BAR, durable_life, night, open_mem

NIGHT = night(4).isoformat()
KILL_POINTS = ["dream:planned", "dream:model-answered", "replace:temp-written", "replace:before-rename",
               "replace:renamed", "dream:memory-written", "dream:store-marked", "dream:dreams-written"]


def cli(home: Path, *args: str, env: dict | None = None, wait: bool = True):
    full = {"REVERIE_HOME": str(home), "REVERIE_TIMEZONE": "UTC", "PATH": os.environ.get("PATH", ""), **(env or {})}
    cmd = [sys.executable, "-m", "reverie.cli.main", "--set", FAKE, "--set", LOW_BAR, *args]
    if not wait:
        return subprocess.Popen(cmd, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=120)


def prepared(home: Path) -> Path:
    mem = open_mem()
    (mem.workspace / "MEMORY.md").write_text("# Long-Term Memory\n\n- A line I wrote myself.\n", encoding="utf-8")
    durable_life(mem)
    mem.close()
    return mem.workspace / "MEMORY.md"


def wait_for(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never reached"
        time.sleep(0.02)


def test_an_edit_while_the_model_runs_skips_the_rewrite_and_appends_instead(reverie_home, tmp_path):
    memory = prepared(reverie_home)
    faults = tmp_path / "faults"
    faults.mkdir()
    proc = cli(reverie_home, "dream", "run", "--now", NIGHT, "--json", wait=False,
               env={"REVERIE_FAULTS": "pause@dream:planned", "REVERIE_FAULTS_DIR": str(faults)})
    wait_for(faults / "dream:planned.reached")
    with open(memory, "a", encoding="utf-8") as fh:
        fh.write("- Added by hand while Dreaming ran.\n")
    (faults / "dream:planned.go").touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    deep = json.loads(out)["phases"]["deep"]
    assert deep["mode"] == "append" and deep["reason"] == "MEMORY.md changed while consolidation was running"
    text = memory.read_text(encoding="utf-8")
    assert "- A line I wrote myself." in text and "- Added by hand while Dreaming ran." in text
    assert text.count("I am allergic to peanuts.") == 1 and "## Promoted From Short-Term Memory (2026-06-06)" in text
    dreams = (memory.parent / "DREAMS.md").read_text(encoding="utf-8")
    assert "- Rewrite skipped: MEMORY.md changed while consolidation was running." in dreams
    assert "- Fallback: append-only promotion." in dreams


def test_an_edit_just_before_the_rename_too_skips_promotion_cleanly(reverie_home, tmp_path):
    memory = prepared(reverie_home)
    faults = tmp_path / "faults"
    faults.mkdir()
    proc = cli(reverie_home, "dream", "run", "--now", NIGHT, "--json", wait=False,
               env={"REVERIE_FAULTS": "pause@dream:planned,pause@replace:before-rename",
                    "REVERIE_FAULTS_DIR": str(faults)})
    wait_for(faults / "dream:planned.reached")
    with open(memory, "a", encoding="utf-8") as fh:
        fh.write("- First edit.\n")
    (faults / "dream:planned.go").touch()
    wait_for(faults / "replace:before-rename.reached")  # the append fallback, about to rename
    with open(memory, "a", encoding="utf-8") as fh:
        fh.write("- Second edit.\n")
    expected = memory.read_bytes()
    (faults / "replace:before-rename.go").touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    deep = json.loads(out)["phases"]["deep"]
    assert deep["mode"] == "skipped" and "changed immediately before" in deep["reason"]
    assert memory.read_bytes() == expected  # both edits, nothing else, nothing lost
    assert not list(memory.parent.glob(".MEMORY.md.*.tmp"))
    # nothing was marked promoted: the next night promotes it
    again = cli(reverie_home, "dream", "run", "--now", night(5).isoformat(), "--json")
    assert again.returncode == 0, again.stderr
    text = memory.read_text(encoding="utf-8")
    assert "- First edit." in text and "- Second edit." in text and text.count("I am allergic to peanuts.") == 1


@pytest.mark.parametrize("point", KILL_POINTS)
def test_kill_9_at_any_step_leaves_memory_old_or_new_and_the_next_night_finishes(reverie_home, tmp_path, point):
    memory = prepared(reverie_home)
    old = memory.read_bytes()
    reference = tmp_path / "reference"
    shutil.copytree(reverie_home, reference)
    done = cli(reference, "dream", "run", "--now", NIGHT, "--json")
    assert done.returncode == 0, done.stderr
    new = (reference / "workspace" / "MEMORY.md").read_bytes()
    assert new != old
    killed = cli(reverie_home, "dream", "run", "--now", NIGHT, "--json", env={"REVERIE_FAULTS": f"kill@{point}"})
    assert killed.returncode == -9, (point, killed.returncode, killed.stderr)
    assert memory.read_bytes() in (old, new), point
    again = cli(reverie_home, "dream", "run", "--now", night(5).isoformat(), "--json")
    assert again.returncode == 0, again.stderr
    text = memory.read_text(encoding="utf-8")
    assert text.count("I am allergic to peanuts.") == 1 and "- A line I wrote myself." in text
    status = json.loads(cli(reverie_home, "dream", "status", "--json").stdout)
    assert status["store"]["readyToPromote"] == 0 and status["store"]["promoted"] >= 1


def test_restore_puts_back_the_exact_prior_bytes_and_can_itself_be_undone(reverie_home):
    memory = prepared(reverie_home)
    memory.write_bytes("# Long-Term Memory\r\n\n- Ünïcode, CRLF and no final newline ✓".encode("utf-8"))
    before = memory.read_bytes()
    assert cli(reverie_home, "dream", "run", "--now", NIGHT).returncode == 0
    after = memory.read_bytes()
    assert after != before
    listing = json.loads(cli(reverie_home, "memory", "preimages", "--json").stdout)
    assert listing[0]["sha256"] == hashlib.sha256(before).hexdigest() and listing[0]["bytes"] == len(before)
    dry = json.loads(cli(reverie_home, "memory", "restore", listing[0]["id"], "--dry-run", "--json").stdout)
    assert dry["dryRun"] and memory.read_bytes() == after
    res = cli(reverie_home, "memory", "restore", listing[0]["id"], "--json")
    assert res.returncode == 0, res.stderr
    assert memory.read_bytes() == before
    kept = json.loads(res.stdout)["previousKeptAs"]
    assert cli(reverie_home, "memory", "restore", kept).returncode == 0
    assert memory.read_bytes() == after
    bad = cli(reverie_home, "memory", "restore", "19990101T000000000000")
    assert bad.returncode == 1 and "no preimage" in bad.stderr


def test_preimages_keep_the_newest_eight(reverie_home):
    from reverie.workspace.writes import apply_replace, plan_replace

    mem = open_mem()
    path = mem.workspace / "MEMORY.md"
    folder = mem.places.agent_dir / "preimages"
    for i in range(11):
        apply_replace(plan_replace(path), f"# Long-Term Memory\n\n- version {i}\n", preimage_dir=folder)
    kept = sorted(folder.glob("MEMORY.md.*"))
    assert len(kept) == 8 and "version 9" in kept[-1].read_text() and "version 2" in kept[0].read_text()
    mem.close()


def test_memory_md_that_is_not_utf8_is_refused_and_untouched(reverie_home):
    memory = prepared(reverie_home)
    memory.write_bytes(b"# Long-Term Memory\n\n- caf\xe9 latte\n")
    before = memory.read_bytes()
    out = cli(reverie_home, "dream", "run", "--now", NIGHT, "--json")
    assert out.returncode == 0, out.stderr
    deep = json.loads(out.stdout)["phases"]["deep"]
    assert deep["mode"] == "skipped" and "not valid UTF-8" in deep["reason"]
    assert memory.read_bytes() == before


def test_a_symlinked_memory_md_is_written_through_to_its_target(reverie_home, tmp_path):
    memory = prepared(reverie_home)
    target = tmp_path / "elsewhere" / "MEMORY.md"
    target.parent.mkdir()
    target.write_bytes(memory.read_bytes())
    memory.unlink()
    memory.symlink_to(target)
    assert cli(reverie_home, "dream", "run", "--now", NIGHT).returncode == 0
    assert memory.is_symlink() and "I am allergic to peanuts." in target.read_text(encoding="utf-8")


def test_a_symlinked_dreams_md_is_refused(reverie_home, tmp_path):
    memory = prepared(reverie_home)
    outside = tmp_path / "outside.md"
    outside.write_text("mine\n", encoding="utf-8")
    (memory.parent / "DREAMS.md").symlink_to(outside)
    out = cli(reverie_home, "dream", "run", "--now", NIGHT, "--json")
    assert out.returncode == 0, out.stderr
    assert outside.read_text(encoding="utf-8") == "mine\n"
    assert json.loads(out.stdout)["diary"]["written"] is False
    assert "I am allergic to peanuts." in memory_text_of(memory)


def memory_text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _immutable(folder: Path, on: bool) -> bool:
    return subprocess.run(["chattr", "+i" if on else "-i", str(folder)], capture_output=True).returncode == 0


def test_a_folder_that_refuses_the_rename_gets_an_in_place_append_never_a_rewrite(reverie_home):
    memory = prepared(reverie_home)
    ws = memory.parent
    (ws / "DREAMS.md").write_text("", encoding="utf-8")  # created before the folder is locked
    if shutil.which("chattr") is None or not _immutable(ws, True):
        pytest.skip("needs chattr +i (a folder that refuses renames even to root)")
    try:
        out = cli(reverie_home, "dream", "run", "--now", NIGHT, "--json")
    finally:
        _immutable(ws, False)
    assert out.returncode == 0, out.stderr
    deep = json.loads(out.stdout)["phases"]["deep"]
    assert deep["mode"] == "append" and deep["reason"] == "the MEMORY.md directory blocked atomic replacement"
    text = memory.read_text(encoding="utf-8")
    assert text.startswith("# Long-Term Memory\n\n- A line I wrote myself.\n") and "I am allergic to peanuts." in text
