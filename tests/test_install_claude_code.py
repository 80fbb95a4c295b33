"""`reverie install|uninstall claude-code`: exactly its hooks and MCP server in Claude Code's
settings, everything else kept, idempotent, a diff with --dry-run, and uninstall removes exactly
what install added."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import cli, ok, one_error

EVENTS = {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"}


@pytest.fixture
def home(reverie_home, tmp_path):
    ok(cli(reverie_home, "init"))
    user = tmp_path / "user-home"
    (user / ".claude").mkdir(parents=True)
    mine = {"theme": "dark", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]},
            "permissions": {"allow": ["Bash(ls:*)"]}}
    (user / ".claude" / "settings.json").write_text(json.dumps(mine))
    (user / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}))
    return reverie_home


def user_of(home: Path) -> Path:
    return home.parent / "user-home"  # Claude Code's HOME for the test (beside the reverie home)


def run(home: Path, *args: str):
    return cli(home, *args, env={"HOME": str(user_of(home))})


def read(path: Path) -> dict:
    return json.loads(path.read_text())


def test_install_writes_its_hooks_and_server_and_keeps_the_rest(home):
    settings, state = user_of(home) / ".claude" / "settings.json", user_of(home) / ".claude.json"
    dry = ok(run(home, "install", "claude-code", "--dry-run"))
    assert "+++" in dry.stdout and "hook claude-code SessionStart" in dry.stdout
    assert read(settings)["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "echo mine"}]}]  # untouched
    ok(run(home, "install", "claude-code"))
    s = read(settings)
    assert s["theme"] == "dark" and s["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert set(s["hooks"]) == EVENTS
    assert {"type": "command", "command": "echo mine"} in s["hooks"]["Stop"][0]["hooks"]  # the user's hook kept
    ours = [h["command"] for g in s["hooks"]["SessionStart"] for h in g["hooks"]]
    assert len(ours) == 1 and ours[0].endswith(f"--home {home} hook claude-code SessionStart")  # not the default home
    m = read(state)
    assert m["numStartups"] == 3 and m["mcpServers"]["other"] == {"command": "x"}
    assert m["mcpServers"]["reverie"]["args"] == ["--home", str(home), "mcp"]
    before = settings.read_text(), state.read_text()
    again = ok(run(home, "install", "claude-code"))
    assert "nothing changed" in again.stderr and (settings.read_text(), state.read_text()) == before
    ok(run(home, "uninstall", "claude-code"))
    s = read(settings)
    assert s["hooks"] == {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}
    assert s["theme"] == "dark"
    assert read(state) == {"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}
    assert "not installed" in ok(run(home, "uninstall", "claude-code")).stderr


def test_a_project_install_and_its_removal(home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    ok(run(home, "install", "claude-code", "--project-dir", str(project)))
    assert set(read(project / ".claude" / "settings.json")["hooks"]) == EVENTS
    assert "reverie" in read(project / ".mcp.json")["mcpServers"]
    ok(run(home, "uninstall", "claude-code", "--project-dir", str(project)))
    assert not (project / ".mcp.json").exists()  # it held nothing but reverie
    assert read(project / ".claude" / "settings.json") == {}


def test_refusals_are_one_line_and_change_nothing(home, tmp_path):
    settings = user_of(home) / ".claude" / "settings.json"
    settings.write_text("{ not json")
    assert "not valid JSON" in one_error(run(home, "install", "claude-code"))
    assert settings.read_text() == "{ not json"
    line = one_error(run(home, "install", "claude-code", "--project-dir", str(tmp_path), "--transport", "http"))
    assert "token" in line and not (tmp_path / ".mcp.json").exists()  # a token never goes into a committed file
    assert "does not exist" in one_error(cli(tmp_path / "nohome", "install", "claude-code",
                                             env={"HOME": str(user_of(home))}))
