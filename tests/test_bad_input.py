"""Bad input that used to be an internal error (exit 2), a traceback or a hang (issue 10, points 4,
5 and 7): each must be one line on stderr, exit 1, and lose nothing. docs/guarantees.md lists them.
The MCP side of point 4 (raw JSON-RPC bytes) is in test_mcp_wire.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_helpers import _env, batch, cli, ok, one_error, tree


# -- point 4: paths no file system can hold ------------------------------------------------------------
def test_memory_paths_that_crashed_are_refused_in_one_line(reverie_home):
    ok(cli(reverie_home, "init"))
    long_name = "memory/" + "a" * 300 + ".md"
    unknown_user, too_long = batch(reverie_home, ["get", "~nosuchuser/MEMORY.md"], ["get", long_name])
    assert one_error(unknown_user) == "reverie: error: path refused: '~nosuchuser/MEMORY.md': no such user for '~'"
    assert one_error(too_long) == "reverie: error: path refused: a name in the path is longer than 255 bytes"


def test_lone_surrogates_in_python_calls_are_refused(fake_memory):
    from reverie.errors import UserError

    tools = {t.name: t for t in fake_memory.tools()}
    for path in ("\ud800.md", "memory/\udcff.md"):
        with pytest.raises(UserError, match="not valid Unicode"):
            tools["memory_get"].call({"path": path})


def test_arguments_and_stdin_that_are_not_utf8_are_refused(reverie_home):
    ok(cli(reverie_home, "init"))
    args = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "remember",
                           b"caf\xff".decode("utf-8", "surrogateescape")], capture_output=True, text=True,
                          env=_env(reverie_home), timeout=60)
    assert one_error(args) == ("reverie: error: argument 2 is not valid UTF-8 text (byte 0xff at position 3); "
                               "nothing was done")
    stdin = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "remember", "--stdin"],
                           input=b"caf\xff\n", capture_output=True, env=_env(reverie_home), timeout=60)
    assert stdin.returncode == 1 and b"not valid UTF-8 text (byte 0xff at offset 3)" in stdin.stderr
    assert not list((reverie_home / "workspace" / "memory").glob("*.md"))  # nothing was written


# -- point 5: settings files that are not files, homes and workspaces that are not folders --------------
def test_settings_files_that_hung_or_crashed(reverie_home, tmp_path):
    ok(cli(reverie_home, "init"))
    folder = tmp_path / "settings-folder"
    folder.mkdir()
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (2 * 1024 ** 2) + "\n", encoding="utf-8")
    cases = [(folder, f"settings file {folder} is a folder, not a file"),
             (deep, f"cannot read {deep}: values are nested too deeply"),
             (Path("/dev/zero"), "settings file /dev/zero is not a regular file"),
             (big, f"settings file {big} is larger than 1024 KiB"),
             (tmp_path / "missing.toml", f"settings file {tmp_path / 'missing.toml'} does not exist (named by "
                                         "REVERIE_CONFIG)")]
    for path, message in cases:
        started = time.monotonic()
        r = cli(reverie_home, "status", env={"REVERIE_CONFIG": str(path)}, timeout=60)
        assert one_error(r) == f"reverie: error: {message}", path
        assert time.monotonic() - started < 30  # /dev/zero used to hang for ever
    # the home's own settings file as a folder is refused the same way
    (reverie_home / "reverie.toml").unlink()
    (reverie_home / "reverie.toml").mkdir()
    assert "is a folder, not a file" in one_error(cli(reverie_home, "status"))


def test_deeply_nested_set_values_are_a_user_error(reverie_home):
    ok(cli(reverie_home, "init"))
    r = cli(reverie_home, "status", "--set", "memory.search.extraPaths=" + "[" * 50_000 + "]" * 50_000)
    assert "nested too deeply" in one_error(r)


def test_homes_and_workspaces_that_are_not_folders(reverie_home, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n", encoding="utf-8")
    layout = tmp_path / "ws"
    layout.mkdir()
    (layout / "memory").write_text("a file where the daily notes go\n", encoding="utf-8")
    results = batch(reverie_home,
                    ["--home", str(a_file), "init"], ["--home", str(a_file), "status"],
                    ["--home", "/dev/null", "remember", "x"], ["--home", "/dev/null", "index"],
                    ["--workspace", str(a_file), "remember", "x"], ["--workspace", "/dev/null", "init"],
                    ["--workspace", "/dev/null", "search", "x"],
                    ["--workspace", str(layout), "remember", "x"], ["--workspace", str(layout), "init"])
    expected = [f"reverie home {a_file} is not a folder"] * 2 + ["reverie home /dev/null is not a folder"] * 2 \
        + [f"workspace {a_file} is not a folder"] + ["workspace /dev/null is not a folder"] * 2 \
        + [f"{layout / 'memory'} is a file, not a folder: rename it, daily notes are written into memory/"] * 2
    for r, message in zip(results, expected):
        assert one_error(r) == f"reverie: error: {message}", r.args
    assert a_file.read_text(encoding="utf-8") == "not a folder\n"
    assert (layout / "memory").read_text(encoding="utf-8") == "a file where the daily notes go\n"
    assert not reverie_home.exists()


# -- point 5: read-only workspace and home ------------------------------------------------------------
def _as_permissions_apply() -> list[str]:
    """A command prefix under which permission bits hold: root's override of them is dropped from
    the capability bounding set (setpriv); another user needs nothing."""
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
def restore_modes(tmp_path):
    yield
    for p in [tmp_path, *tmp_path.rglob("*")]:  # let pytest clean up
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)


def test_a_read_only_workspace_refuses_writes_and_chat_says_nothing_was_saved(reverie_home, restore_modes):
    ok(cli(reverie_home, "init"))
    ok(cli(reverie_home, "remember", "the first note"))
    ws = reverie_home / "workspace"
    note = next((ws / "memory").glob("*.md"))
    before = note.read_text(encoding="utf-8")
    note.chmod(0o444)
    for d in (ws / "memory", ws):
        d.chmod(0o555)
    line = one_error(_run(reverie_home, "remember", "a second note"))
    assert "permission denied" in line and str(ws / "memory") in line
    chat = _run(reverie_home, "chat", stdin="remember that the wifi password is hunter2\n")
    assert chat.returncode == 0, chat.stderr
    assert "nothing can be saved to memory in this chat" in chat.stderr
    assert chat.stdout.startswith("Nothing was saved")
    assert note.read_text(encoding="utf-8") == before  # nothing written, nothing lost


def test_a_read_only_home_is_a_one_line_error(reverie_home, restore_modes):
    ok(cli(reverie_home, "init"))
    # written by hand: `remember` would index it, creating the index before the home turns read-only
    (reverie_home / "workspace" / "memory" / "2026-11-30.md").write_text("- a note\n", encoding="utf-8")
    for d in [reverie_home, *reverie_home.rglob("*")]:  # the whole home read-only, as a read-only mount
        if d.is_dir() and not d.is_symlink():
            d.chmod(0o555)
    line = one_error(_run(reverie_home, "index"))
    assert "permission denied" in line and str(reverie_home) in line


# -- point 7: a relative workspace in the settings file -----------------------------------------------
def test_a_relative_workspace_resolves_against_the_settings_file(reverie_home, tmp_path):
    reverie_home.mkdir()
    (reverie_home / "reverie.toml").write_text('[agents.main]\nworkspace = "notes"\n', encoding="utf-8")
    one, two = tmp_path / "shell-one", tmp_path / "shell-two"
    one.mkdir()
    two.mkdir()
    ok(cli(reverie_home, "init", cwd=one))
    ok(cli(reverie_home, "remember", "from shell one", cwd=one))
    ok(cli(reverie_home, "remember", "from shell two", cwd=two))
    status = json.loads(ok(cli(reverie_home, "status", "--json", cwd=two)).stdout)
    assert status["workspace"] == str(reverie_home / "notes")
    (daily,) = (reverie_home / "notes" / "memory").glob("*.md")
    text = daily.read_text(encoding="utf-8")
    assert "from shell one" in text and "from shell two" in text
    assert tree(one) == [] and tree(two) == []  # nothing written where the shells stood


def test_a_settings_workspace_with_an_unknown_user_is_a_config_error(reverie_home):
    reverie_home.mkdir()
    (reverie_home / "reverie.toml").write_text('[agents.main]\nworkspace = "~nosuchuser/notes"\n',
                                               encoding="utf-8")
    assert one_error(cli(reverie_home, "remember", "x")) == (
        "reverie: error: bad value for 'agents.main.workspace': cannot expand '~nosuchuser/notes' (no such user)")
