"""Path fuzzing of memory_get at a small size (benchmarks/fuzz_faults.py runs >= 10,000): generated
paths through the Python tool, the MCP server on real stdio and `reverie get` never serve anything
outside the workspace's memory files and never end in an internal error."""

from __future__ import annotations

import fault_helpers  # noqa: F401  (puts benchmarks/ on the path)
import pytest
from faultlab import paths

from reverie.errors import UserError


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    return paths.build_arena(tmp_path_factory.mktemp("arena"))


@pytest.fixture(scope="module")
def generated(arena):
    return paths.generate(arena, 500, seed=5)


def test_generated_paths_cover_every_family(generated):
    joined = "".join(generated)
    for piece in ("..", "\x00", "\ud800", "\\", "#L", "%2", "\uff0e", "~", "file://", "/proc/", "a" * 256):
        assert piece in joined, piece
    # over 4,096 bytes of short parts (issue 31: a raw OSError from the tool, a 4 KB line from the CLI)
    assert any(len(p.encode("utf-8", "surrogatepass")) > 4096 and "abcdefgh/abcdefgh" in p for p in generated)
    assert len(set(generated)) == len(generated) == 500


def test_python_tool_no_escape_no_internal_error(arena, generated):
    t = paths.fuzz_python(arena, generated)
    assert t.paths == 500
    assert t.escapes == [] and t.internal == []
    assert t.served > 0 and t.not_found > 0 and t.refused > 0  # the arena is live: each outcome happens


def test_mcp_and_cli_samples_no_escape_no_internal_error(arena, generated):
    mcp = paths.fuzz_mcp(arena, paths.sample(generated, 40))
    cli = paths.fuzz_cli(arena, paths.sample(generated, 4, seed=9))
    for t in (mcp, cli):
        assert t.escapes == [] and t.internal == [], t.as_dict()
    assert mcp.paths == 40 and mcp.served > 0 and mcp.refused > 0
    assert cli.paths + cli.skipped == 4


def test_the_escape_check_catches_what_it_must(arena):
    good = {"path": "MEMORY.md", "from": 1, "text": "MEMFILE MEMORY.md line 1\n[More content available.]"}
    assert paths.escape_in(good, arena) is None
    assert paths.escape_in({"path": "MEMORY.md", "text": "CANARY x"}, arena) == "served a CANARY"
    assert "not a memory file" in paths.escape_in({"path": "AGENTS.md", "text": "MEMFILE"}, arena)
    assert "not from a memory file" in paths.escape_in({"path": "MEMORY.md", "text": "root:x:0:0"}, arena)
    assert "not a memory file" in paths.escape_in({"path": str(arena.outside / "secret.md"), "text": ""}, arena)


def test_a_refusal_shows_a_path_with_a_newline_on_one_line(arena):
    """The fuzzer found refusals that ran over two lines: a path holding a newline was named as is."""
    from reverie import Memory
    from faultlab.common import FAKE, clean_env

    mem = Memory(home=arena.home, overrides=[FAKE], env=clean_env(arena.home))
    try:
        get = {t.name: t for t in mem.tools()}["memory_get"]
        for raw in ("memory/dirlink/M\nEMORY.md", "memory/sub/readme\r.txt", "memory/folder.md\u2028"):
            with pytest.raises(UserError) as err:
                get.call({"path": raw})
            assert len(str(err.value).splitlines()) == 1, str(err.value)
        with pytest.raises(UserError, match=r"'memory/dirlink/M\\nEMORY.md' goes through a symlink"):
            get.call({"path": "memory/dirlink/M\nEMORY.md"})
    finally:
        mem.close()
