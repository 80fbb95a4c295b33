"""Issue 31, items 7, 8 and 9: a file name that is not UTF-8, a read-only home, a path too long for
the file system. Each used to end in an internal error (exit 2) or a raw exception; each is now a
skipped name with a warning, a working read-only command, or one short line."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import _env, batch, cli, ok, one_error

LONG = "memory/" + "/".join(["abcdefgh"] * 600) + ".md"  # 5,407 bytes of short parts


# -- item 7: a file name that is not valid UTF-8 ------------------------------------------------------
def _bad_names(ws: Path) -> tuple[Path, Path]:
    memory = os.fsencode(ws / "memory")
    bad_file = Path(os.fsdecode(memory + b"/trip-\xff\xfe.md"))
    bad_file.write_bytes(b"- the canoe is in a badly named file\n")
    bad_dir = Path(os.fsdecode(memory + b"/old-\xe9t\xe9"))
    bad_dir.mkdir()
    (bad_dir / "inside.md").write_text("- the paddle is in a badly named folder\n", encoding="utf-8")
    return bad_file, bad_dir


def test_a_name_that_is_not_utf8_is_skipped_with_a_warning_and_the_rest_indexed(reverie_home, tmp_path):
    ok(cli(reverie_home, "init"))
    ws = reverie_home / "workspace"
    (ws / "memory" / "2026-11-02.md").write_text("- the kayak is blue\n", encoding="utf-8")
    bad_file, bad_dir = _bad_names(ws)
    index, force, status, search, export = batch(reverie_home, ["index"], ["index", "--force"], ["status", "--json"],
                                                 ["search", "kayak", "--json"], ["export", str(tmp_path / "out")])
    ok(export)
    left = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))["left"]
    assert {x["path"] for x in left} >= {r"memory/trip-\xff\xfe.md", r"memory/old-\xe9t\xe9/"}
    assert (tmp_path / "out" / "workspace" / "memory" / "2026-11-02.md").exists()
    for r in (index, force):
        ok(r)
        assert r"warning: memory/trip-\xff\xfe.md: the name is not valid UTF-8 text" in r.stderr
        assert r"warning: memory/old-\xe9t\xe9: the name is not valid UTF-8 text" in r.stderr
    seen = json.loads(ok(status).stdout)
    assert seen["dirty"] is False and seen["action"] is None
    assert {p["path"] for p in seen["problems"]} >= {r"memory/trip-\xff\xfe.md", r"memory/old-\xe9t\xe9"}
    hits = json.loads(ok(search).stdout)["results"]
    assert hits and hits[0]["path"] == "memory/2026-11-02.md"
    assert bad_file.read_bytes() == b"- the canoe is in a badly named file\n"  # skipped, never touched
    assert (bad_dir / "inside.md").exists()


# -- item 8: a read-only home ---------------------------------------------------------------------------
def _as_permissions_apply() -> list[str]:
    """Permission bits hold for root only without its override capabilities (setpriv)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permission bits cannot be made to apply")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]


def _run(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*_as_permissions_apply(), sys.executable, "-c", "from reverie.cli.main import run; run()",
                           *args], capture_output=True, text=True, input=stdin, env=_env(home), timeout=120)


@pytest.fixture
def read_only_home(reverie_home, tmp_path):
    ok(cli(reverie_home, "init"))
    ok(cli(reverie_home, "remember", "the kayak is blue"))
    ok(cli(reverie_home, "index"))
    ok(cli(reverie_home, "intent", "create", "-d", "remind me to wax the kayak", "-t", "kayak"))
    ok(cli(reverie_home, "status"))
    for p in [reverie_home, *reverie_home.rglob("*")]:  # as a read-only mount: every folder and file
        if not p.is_symlink():
            p.chmod(0o555 if p.is_dir() else 0o444)
    yield reverie_home
    for p in [tmp_path, *tmp_path.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)


def _tree(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def test_a_read_only_home_answers_status_search_get_and_intents_and_chat_says_why(read_only_home):
    before = _tree(read_only_home)
    status = _run(read_only_home, "status", "--json")
    assert status.returncode == 0, status.stderr
    seen = json.loads(status.stdout)
    assert seen["files"] >= 1 and seen["store"]["ok"] is True
    search = _run(read_only_home, "search", "kayak", "--json")
    assert search.returncode == 0, search.stderr
    assert "kayak is blue" in json.loads(search.stdout)["results"][0]["snippet"]
    (daily,) = (read_only_home / "workspace" / "memory").glob("*.md")
    got = _run(read_only_home, "get", f"memory/{daily.name}")
    assert got.returncode == 0 and "kayak is blue" in got.stdout, got.stderr
    intents = _run(read_only_home, "intent", "list", "--json")  # listed as last written
    assert intents.returncode == 0, intents.stderr
    assert [i["description"] for i in json.loads(intents.stdout)["intents"]] == ["remind me to wax the kayak"]
    doctor = _run(read_only_home, "doctor", "--json")  # reads the agent's databases, writes only in a temporary home
    legs = {g["name"]: g for g in json.loads(doctor.stdout)["legs"]}
    assert legs["agent database"]["ok"] is True, legs["agent database"]
    line = one_error(_run(read_only_home, "chat", "-m", "hello"))
    assert "read-only" in line and "nothing was changed" in line and str(read_only_home) in line
    assert _tree(read_only_home) == before  # nothing written, nothing lost


# -- item 9: a path too long for the file system ------------------------------------------------------
def test_memory_get_of_a_path_over_4096_bytes_is_a_short_refusal(reverie_home):
    from reverie import Memory
    from reverie.errors import UserError

    ok(cli(reverie_home, "init"))
    mem = Memory(overrides=['memory.search.provider="fake"'])
    try:
        (tool,) = [t for t in mem.tools() if t.name == "memory_get"]
        with pytest.raises(UserError) as raised:
            tool.handler({"path": LONG})
    finally:
        mem.close()
    message = str(raised.value)
    assert message.startswith("path refused: memory/abcdefgh/") and "is too long" in message
    assert len(message) < 300 and "\n" not in message
    for r in batch(reverie_home, ["get", LONG], ["get", LONG[:-3]], ["get", "notes/" + LONG]):
        line = one_error(r)
        assert "is too long" in line and len(line) < 300, r.args


def test_an_os_error_naming_a_huge_path_is_cut_to_one_short_line():
    from reverie.cli.main import _os_error

    message = _os_error(OSError(errno.ENAMETOOLONG, "File name too long", "/x" * 3000))
    assert message.startswith("cannot use /x/x/x") and message.endswith("a name in the path is too long")
    assert "(6,000 bytes)" in message and len(message) < 300
