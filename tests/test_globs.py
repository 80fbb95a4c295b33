"""Extra-path globs follow the rules users know (issue 9, §4): ``*`` stays within one folder,
``**`` crosses folders, and indexing and memory_get agree on every path."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie.config import ExtraPath
from reverie.index.discover import discover
from reverie.workspace.globs import glob_match
from reverie.workspace.read import PathRefused, resolve_memory_path


@pytest.mark.parametrize("rel,pattern,expected", [
    ("a.md", "*.md", True),
    ("sub/a.md", "*.md", False),  # fnmatch's * crossed '/': this was True
    ("public/page.md", "public/*.md", True),
    ("public/drafts/page.md", "public/*.md", False),
    ("a.md", "**/*.md", True),  # ** matches no folder too
    ("x/y/z/a.md", "**/*.md", True),
    ("public/drafts/page.md", "public/**/*.md", True),
    ("notes/2026/03/a.md", "notes/**/a.md", True),
    ("a.txt", "*.{md,txt}", True),
    ("ab.md", "?.md", False),
    ("b.md", "[ab].md", True),
    ("a.md", "/*.md", True),  # a leading / anchors nothing more: patterns are folder-relative
    ("A.MD", "*.md", False),  # case-sensitive, as the shell
    (".draft.md", "*.md", False),  # as the shell: * does not match a leading dot
])
def test_glob_rules(rel, pattern, expected):
    assert glob_match(rel, pattern) is expected


def test_indexing_and_memory_get_agree_on_what_a_pattern_takes(tmp_path: Path):
    ws = tmp_path / "ws"
    for rel in ("wiki/top.md", "wiki/team/deep.md", "wiki/team/x/deeper.md"):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(f"- {rel}\n", encoding="utf-8")
    for pattern, taken in (("*.md", {"wiki/top.md"}),
                           ("team/*.md", {"wiki/team/deep.md"}),
                           ("**/*.md", {"wiki/top.md", "wiki/team/deep.md", "wiki/team/x/deeper.md"})):
        extra = [ExtraPath(path="wiki", pattern=pattern)]
        assert {f.path for f in discover(ws, extra).files} == taken, pattern
        for rel in ("wiki/top.md", "wiki/team/deep.md", "wiki/team/x/deeper.md"):
            if rel in taken:
                assert resolve_memory_path(ws, rel, extra)[0] == ws / rel
            else:
                with pytest.raises(PathRefused):
                    resolve_memory_path(ws, rel, extra)
