"""memory_get (reference §8.2): windows of lines, the 12,000-character budget, not_found, and the
paths it refuses (escapes, symlinks, non-memory files) or allows (configured extra paths)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import Memory
from reverie.errors import UserError
from reverie.tools import ToolError
from reverie.workspace.read import CUT_NOTICE
from workspace_helpers import write

MORE = "[More content available. Use from={n} to continue.]"


def numbered(n: int, width: int = 0) -> list[str]:
    return [f"line {i}".ljust(width, ".") for i in range(1, n + 1)]


def get_tool(mem: Memory):
    return {t.name: t for t in mem.tools()}["memory_get"]


def run_cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args],
                          env=env, capture_output=True, text=True, timeout=60)


# -- windows ------------------------------------------------------------------------------------------
def test_default_window_is_120_lines_with_a_notice_and_next_from(fake_memory):
    lines = numbered(200)
    write(fake_memory, "memory/2026-11-20.md", "\n".join(lines) + "\n")
    out = fake_memory.get("memory/2026-11-20.md")
    assert out["path"] == "memory/2026-11-20.md" and out["from"] == 1
    assert out["lines"] == 120 and out["truncated"] is True and out["nextFrom"] == 121
    body, notice = out["text"].rsplit("\n", 1)
    assert body.split("\n") == lines[:120]
    assert notice == MORE.format(n=121)


def test_continuing_from_next_from_reads_the_rest_without_a_notice(fake_memory):
    lines = numbered(200)
    write(fake_memory, "memory/2026-11-20.md", "\n".join(lines) + "\n")
    out = fake_memory.get("memory/2026-11-20.md", 121)
    assert out["text"].split("\n") == lines[120:]
    assert out["lines"] == 80 and out["from"] == 121
    assert "truncated" not in out and "nextFrom" not in out


def test_from_and_lines_select_a_window(fake_memory):
    lines = numbered(30)
    write(fake_memory, "memory/2026-11-20.md", "\n".join(lines) + "\n")
    out = fake_memory.get("memory/2026-11-20.md", 10, 5)
    body, notice = out["text"].rsplit("\n", 1)
    assert body.split("\n") == lines[9:14]
    assert (out["from"], out["lines"], out["nextFrom"]) == (10, 5, 15)
    assert notice == MORE.format(n=15)
    # a window reaching the end has no notice
    tail = fake_memory.get("memory/2026-11-20.md", 26, 10)
    assert tail["text"].split("\n") == lines[25:] and "nextFrom" not in tail


def test_a_file_of_exactly_120_lines_is_not_truncated(fake_memory):
    lines = numbered(120)
    write(fake_memory, "MEMORY.md", "\n".join(lines) + "\n")
    out = fake_memory.get("MEMORY.md")
    assert out["text"].split("\n") == lines
    assert "truncated" not in out and "nextFrom" not in out


def test_char_budget_drops_lines_from_the_end(fake_memory):
    lines = numbered(120, width=199)  # 200 characters a line with its newline
    write(fake_memory, "memory/2026-11-20.md", "\n".join(lines) + "\n")
    out = fake_memory.get("memory/2026-11-20.md")
    body, notice = out["text"].rsplit("\n", 1)
    assert len(body) <= 12_000
    assert body.split("\n") == lines[:60]  # 60 x 200 - 1 = 11,999 fits; 61 would not
    assert (out["lines"], out["nextFrom"], out["truncated"]) == (60, 61, True)
    assert notice == MORE.format(n=61)


def test_char_budget_counts_characters_not_bytes(fake_memory):
    lines = ["湖" * 5000, "景" * 5000, "房" * 5000]  # 15,000 bytes each in UTF-8
    write(fake_memory, "memory/2026-11-20.md", "\n".join(lines) + "\n")
    out = fake_memory.get("memory/2026-11-20.md")
    assert out["lines"] == 2 and out["nextFrom"] == 3
    assert out["text"].split("\n")[:2] == lines[:2]


def test_one_enormous_line_is_hard_cut_with_the_other_notice(fake_memory):
    giant = "x" * 20_000
    write(fake_memory, "memory/2026-11-20.md", giant + "\nsecond line\n")
    out = fake_memory.get("memory/2026-11-20.md")
    body, notice = out["text"].rsplit("\n", 1)
    assert body == "x" * 12_000
    assert notice == CUT_NOTICE and "use read on the source file" in notice
    assert out["truncated"] is True and out["lines"] == 1 and out["nextFrom"] == 2
    assert fake_memory.get("memory/2026-11-20.md", 2)["text"] == "second line"


def test_an_enormous_last_line_has_no_next_from(fake_memory):
    write(fake_memory, "memory/2026-11-20.md", "short\n" + "y" * 13_000 + "\n")
    out = fake_memory.get("memory/2026-11-20.md", 2)
    assert out["truncated"] is True and out["text"].endswith(CUT_NOTICE)
    assert "nextFrom" not in out
    # reading both lines at once: the short one fits, the giant one is left for later
    both = fake_memory.get("memory/2026-11-20.md")
    assert both["lines"] == 1 and both["nextFrom"] == 2 and both["text"].startswith("short\n")


def test_missing_file_is_not_found_not_an_error(fake_memory):
    out = fake_memory.get("memory/2020-01-01.md")
    assert out == {"status": "not_found", "text": "", "path": "memory/2020-01-01.md"}
    assert get_tool(fake_memory).call({"path": "USER.md"})["status"] == "not_found"


def test_get_does_not_resolve_the_embedder(reverie_home):
    mem = Memory(overrides=['memory.search.provider="local"'])
    mem.init()
    assert mem.get("MEMORY.md")["text"].startswith("# Long-Term Memory")
    assert mem._provider_state is None
    mem.close()


def test_tool_arguments_from_and_lines(fake_memory):
    write(fake_memory, "memory/2026-11-20.md", "\n".join(numbered(10)) + "\n")
    tool = get_tool(fake_memory)
    out = tool.call({"path": "memory/2026-11-20.md", "from": 4, "lines": 2})
    assert out["text"].split("\n")[:2] == ["line 4", "line 5"] and out["nextFrom"] == 6
    for bad in ({"path": "memory/2026-11-20.md", "from": 0}, {"path": "memory/2026-11-20.md", "lines": 0},
                {"path": "memory/2026-11-20.md", "from": "3"}, {"path": 5}, {}):
        with pytest.raises(ToolError):
            tool.call(bad)


# -- refused paths ------------------------------------------------------------------------------------
@pytest.fixture
def refusal_setup(fake_memory, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("TOP SECRET\n", encoding="utf-8")
    ws = fake_memory.workspace
    (ws / "memory" / "leak.md").symlink_to(outside / "secret.md")
    (ws / "memory" / "linked").symlink_to(outside, target_is_directory=True)
    write(fake_memory, "memory/real.md", "- real note\n")
    (ws / "memory" / "alias.md").symlink_to(ws / "memory" / "real.md")
    write(fake_memory, "AGENTS.md", "- agent instructions\n")
    write(fake_memory, "memory/notes.txt", "- plain text\n")
    return fake_memory, outside


REFUSED = [
    "../../etc/passwd",
    "memory/../../x.md",
    "memory/../MEMORY.md",  # '..' is refused even when it would land inside
    "/etc/passwd",
    "{outside}/secret.md",  # absolute, outside the workspace
    "memory/leak.md",  # symlink inside memory/ pointing outside
    "memory/linked/secret.md",  # a symlinked folder
    "memory/alias.md",  # a symlink, even to a file inside
    "AGENTS.md",
    "memory/notes.txt",
    "memory",
    "~/secret.md",
    "memory/a\x00.md",
    "",
    "   ",
]


@pytest.mark.parametrize("raw", REFUSED)
def test_refused_paths_raise_a_clear_error(refusal_setup, raw):
    mem, outside = refusal_setup
    path = raw.format(outside=outside)
    with pytest.raises(UserError) as err:
        mem.get(path)
    msg = str(err.value)
    assert msg.startswith("path "), msg
    assert "\n" not in msg and "TOP SECRET" not in msg


def test_refused_path_through_the_tool_is_a_user_error_not_a_crash(refusal_setup):
    mem, outside = refusal_setup
    tool = get_tool(mem)
    for raw in ("memory/leak.md", "../../etc/passwd", str(outside / "secret.md")):
        with pytest.raises(UserError, match="refused"):
            tool.call({"path": raw})


@pytest.mark.parametrize("raw", ["../../etc/passwd", "memory/leak.md", "AGENTS.md"])
def test_cli_get_refuses_with_one_line_and_exit_1(refusal_setup, reverie_home, raw):
    proc = run_cli(reverie_home, "get", raw)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("reverie: error: path refused"), proc.stderr
    assert "TOP SECRET" not in proc.stderr


def test_cli_get_reads_a_window_as_json(fake_memory, reverie_home):
    write(fake_memory, "memory/2026-11-20.md", "\n".join(numbered(10)) + "\n")
    proc = run_cli(reverie_home, "get", "memory/2026-11-20.md", "--from", "3", "--lines", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["text"].split("\n")[:2] == ["line 3", "line 4"] and data["nextFrom"] == 5
    missing = run_cli(reverie_home, "get", "memory/2020-01-01.md", "--json")
    # a missing file is a failed command (exit 1), and --json still gets its document
    assert missing.returncode == 1 and json.loads(missing.stdout)["status"] == "not_found"


# -- allowed paths ------------------------------------------------------------------------------------
def test_allowed_memory_paths(fake_memory):
    write(fake_memory, "USER.md", "- prefers tea\n")
    write(fake_memory, "memory/projects/trip.md", "- nested note\n")
    assert fake_memory.get("USER.md")["text"] == "- prefers tea"
    assert fake_memory.get("memory/projects/trip.md")["text"] == "- nested note"
    assert fake_memory.get("./memory/projects/trip.md")["path"] == "memory/projects/trip.md"
    absolute = str(fake_memory.workspace / "memory" / "projects" / "trip.md")
    assert fake_memory.get(absolute)["path"] == "memory/projects/trip.md"


def test_extra_folder_and_explicit_extra_file_are_allowed(reverie_home, tmp_path):
    elsewhere = tmp_path / "team-notes"
    elsewhere.mkdir()
    (elsewhere / "standup.md").write_text("- standup at ten\n", encoding="utf-8")
    (elsewhere / "raw.txt").write_text("not markdown\n", encoding="utf-8")
    extras = json.dumps(["notes", "docs/plan.txt", str(elsewhere), {"path": "wiki", "pattern": "public/*.md"}])
    mem = Memory(overrides=['memory.search.provider="fake"', f"memory.search.extraPaths={extras}"])
    mem.init()
    write(mem, "notes/2026/ideas.md", "- an idea\n")
    write(mem, "docs/plan.txt", "the plan, in plain text\n")
    write(mem, "docs/other.md", "- not listed\n")
    write(mem, "wiki/public/page.md", "- public page\n")
    write(mem, "wiki/private/page.md", "- private page\n")
    assert mem.get("notes/2026/ideas.md")["text"] == "- an idea"
    assert mem.get("docs/plan.txt")["text"] == "the plan, in plain text"  # listed: any extension
    assert mem.get(str(elsewhere / "standup.md"))["text"] == "- standup at ten"
    assert mem.get("wiki/public/page.md")["text"] == "- public page"
    for refused in ("docs/other.md", "notes/../docs/plan.txt", str(elsewhere / "raw.txt"),
                    "wiki/private/page.md"):
        with pytest.raises(UserError, match="refused"):
            mem.get(refused)
    mem.close()


def test_symlinks_inside_an_extra_folder_are_refused(reverie_home, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("TOP SECRET\n", encoding="utf-8")
    mem = Memory(overrides=['memory.search.provider="fake"', 'memory.search.extraPaths=["notes"]'])
    mem.init()
    write(mem, "notes/ok.md", "- fine\n")
    (mem.workspace / "notes" / "leak.md").symlink_to(outside / "secret.md")
    (mem.workspace / "notes" / "dir").symlink_to(outside, target_is_directory=True)
    assert mem.get("notes/ok.md")["text"] == "- fine"
    for refused in ("notes/leak.md", "notes/dir/secret.md"):
        with pytest.raises(UserError, match="symlink"):
            mem.get(refused)
    mem.close()


# -- citations as search printed them -------------------------------------------------------------------
def test_get_reads_the_lines_a_search_citation_names(fake_memory):
    write(fake_memory, "memory/2026-11-20.md", "\n".join(numbered(20)) + "\n")
    out = fake_memory.get("memory/2026-11-20.md#L5-L9")
    assert out["path"] == "memory/2026-11-20.md" and out["from"] == 5 and out["lines"] == 5
    assert out["text"].split("\n")[:5] == [f"line {i}" for i in range(5, 10)]
    one = fake_memory.get("memory/2026-11-20.md#L7")
    assert one["from"] == 7 and one["text"].split("\n")[0] == "line 7" and one["lines"] == 1


def test_explicit_from_and_lines_win_over_the_citation(fake_memory):
    write(fake_memory, "memory/2026-11-20.md", "\n".join(numbered(20)) + "\n")
    out = fake_memory.get("memory/2026-11-20.md#L5-L9", 2, 3)
    assert out["from"] == 2 and out["text"].split("\n")[:3] == ["line 2", "line 3", "line 4"]


def test_memory_get_tool_accepts_the_citation_search_returned(fake_memory):
    write(fake_memory, "memory/2026-11-20.md", "- the vendor proposal was over budget\n" * 3
          + "\n".join(numbered(30)) + "\n")
    fake_memory.sync()
    hit = fake_memory.search("vendor proposal", record_signals=False)["results"][0]
    out = get_tool(fake_memory).call({"path": hit["citation"]})
    assert out["from"] == hit["startLine"]
    assert out["lines"] == hit["endLine"] - hit["startLine"] + 1
    assert "vendor proposal" in out["text"]


def test_cli_get_accepts_a_citation(fake_memory, reverie_home):
    write(fake_memory, "memory/2026-11-20.md", "\n".join(numbered(10)) + "\n")
    proc = run_cli(reverie_home, "get", "memory/2026-11-20.md#L3-L4", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["from"] == 3 and data["text"].split("\n")[:2] == ["line 3", "line 4"]
    assert "nextFrom" in data and data["nextFrom"] == 5
    refused = run_cli(reverie_home, "get", "../etc/passwd#L1-L2")
    assert refused.returncode == 1 and "path refused" in refused.stderr
