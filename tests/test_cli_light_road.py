"""``reverie remember`` and ``reverie search`` answered before the command-line framework loads
(cli/fast.py) say and do exactly what the full command line does.

Each command line runs twice in a fresh interpreter: as the console script runs it (the light road
takes what it understands) and through the full command line (typer) directly. Output, messages and
exit codes must match; times and durations are compared without their figures, scores to their
last printed digit. Arguments the light road does not read (a bad value, ``--help``) go to the full
command line, so their errors are the usual ones.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import same_but_scores

NONE = "memory.search.provider=none"
FULL = "import sys; from reverie.cli.main import execute; sys.exit(execute(sys.argv[1:]))"
LIGHT = "import sys; from reverie.cli.main import run; run(sys.argv[1:])"


def _run(code: str, args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    env = dict(os.environ, REVERIE_SERVE="off")
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                       input=stdin, timeout=120)
    return r.returncode, _untimed(r.stdout), _untimed(r.stderr)


def _untimed(text: str) -> str:
    """Without the clock and the durations (a search says how long it took)."""
    text = re.sub(r"\b\d\d:\d\d\b", "HH:MM", text)
    text = re.sub(r"\d+(?:\.\d+)? ms\b", "N ms", text)
    return re.sub(r'("\w*(?:Ms|Seconds|At)": )[-\d.e"TZ:+]+', r"\1N", text)


def both(args: list[str], stdin: str | None = None):
    return _run(LIGHT, args, stdin), _run(FULL, args, stdin)


def assert_same(light: tuple[int, str, str], full: tuple[int, str, str]) -> None:
    assert light[0] == full[0] and light[2] == full[2], (light, full)
    assert same_but_scores(light[1], full[1]), (light[1], full[1])


@pytest.fixture
def noted(reverie_home: Path) -> Path:
    r = _run(LIGHT, ["remember", "booked the lake-view room in Hangzhou", "--set", NONE])
    assert r[0] == 0, r
    return reverie_home


@pytest.mark.parametrize("args", [
    ["search", "lake-view room", "--set", NONE],
    ["search", "--query", "Hangzhou", "-n", "3", "--set", NONE, "--json"],
    ["search", "lake", "--explain", "--min-score=0.2", "--set", NONE],
    ["search", "nothing like this at all", "--set", NONE],
    ["search", "--set", NONE],  # no query: a one-line error, exit 1
    ["search", "   ", "--set", NONE],  # an empty query
    ["search", "lake", "-n", "0", "--set", NONE],  # a bad value: the full command line's own error
    ["search", "lake", "--min-score", "2", "--set", NONE],
    ["search", "lake", "--bogus", "--set", NONE],
    ["search", "--sensitive", "--set", NONE],
])
def test_search_on_the_light_road_answers_as_the_full_command_line(noted: Path, args: list[str]):
    light, full = both(args)
    assert_same(light, full)


def test_remember_on_the_light_road_writes_and_answers_as_the_full_command_line(reverie_home: Path):
    cases = [(["remember", "the first", "note"], None), (["remember", "--json", "a second note"], None),
             (["remember", "--stdin"], "a third note from standard input\n"),
             (["remember", "--stdin", "and", "words"], "x"), (["remember"], None), (["remember", "  "], None),
             (["remember", "--frobnicate", "x"], None), (["remember", "--", "-starts with a dash"], None)]
    for args, stdin in cases:
        light = _run(LIGHT, args, stdin)
        full = _run(FULL, args, stdin)
        assert light[0] == full[0], (args, light, full)
        assert light[1].replace("chars", "") == full[1].replace("chars", ""), args
        assert light[2] == full[2], (args, light, full)
    notes = (reverie_home / "workspace" / "memory").glob("*.md")
    text = "".join(p.read_text(encoding="utf-8") for p in notes)
    # each accepted note written twice (once per road), the refused ones never
    for accepted in ("the first note", "a second note", "a third note from standard input", "-starts with a dash"):
        assert text.count(accepted) == 2, accepted
    assert "and words" not in text and "frobnicate" not in text


@pytest.mark.parametrize("args", [
    ["--version"],
    ["--home", "/nowhere/at/all", "--version"],  # answered before the home is read
    ["--version", "--json"],
    ["--version", "--bogus"],  # not understood here: the full command line's own error
])
def test_version_on_the_light_road_answers_as_the_full_command_line(args: list[str]):
    light, full = both(args)
    assert light == full
    assert light[0] != 0 or light[1].startswith("reverie ")
