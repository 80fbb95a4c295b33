"""Disabling memory means disabled (addendum row 11): ``memory.enabled = false`` (or the agent's
``memoryEnabled``) makes every memory tool, the MCP tools and every recall lane refuse on the
next call -- in a running chat and a running MCP server too, read again from the settings file."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import pytest
from reverie.mcp.client import Client
from reverie.mcp.client import StdioServerParameters

from reverie import Memory
from reverie.recall.switch import MemoryDisabled
from tests.recall_helpers import recall_marks, scripted, system_of, write, write_trusted


def set_config(home, text: str) -> None:
    cfg = home / "reverie.toml"
    home.mkdir(parents=True, exist_ok=True)
    before = cfg.stat().st_mtime_ns if cfg.exists() else 0
    cfg.write_text(text, encoding="utf-8")
    if cfg.stat().st_mtime_ns == before:  # a coarse clock: make the change visible to the stat
        os.utime(cfg, ns=(before + 1_000_000, before + 1_000_000))


@pytest.fixture
def mem(reverie_home):
    set_config(reverie_home, '[memory.search]\nprovider = "fake"\n')
    m = Memory()
    m.init()
    write(m, "MEMORY.md", "# Memory\n\n- Flights: aisle seat. <!-- trigger: booking flight -->\n")
    m.remember("The dentist is on Friday.")
    m.sync()
    yield m
    m.close()


def test_tools_handed_out_earlier_refuse_on_the_next_call(mem, reverie_home):
    tools = {t.name: t for t in mem.tools()}
    assert tools["memory_search"].call({"query": "dentist"})["results"]
    set_config(reverie_home, '[memory]\nenabled = false\n[memory.search]\nprovider = "fake"\n')
    for name, args in (("memory_search", {"query": "dentist"}), ("memory_get", {"path": "MEMORY.md"}),
                       ("memory_append", {"text": "x"}), ("intent_list", {}), ("table_list", {})):
        with pytest.raises(MemoryDisabled, match="memory is disabled"):
            tools[name].call(args)
    set_config(reverie_home, '[memory.search]\nprovider = "fake"\n')
    assert tools["memory_get"].call({"path": "MEMORY.md"})["text"]


def test_the_agent_switch_wins(mem, reverie_home):
    set_config(reverie_home, '[memory.search]\nprovider = "fake"\n[agents.main]\nmemoryEnabled = false\n')
    with pytest.raises(MemoryDisabled, match=r"agents\.main\.memoryEnabled"):
        mem.tools()[0].call({"query": "dentist"})
    set_config(reverie_home, '[memory]\nenabled = false\n[memory.search]\nprovider = "fake"\n'
                             '[agents.main]\nmemoryEnabled = true\n')
    assert mem.tools()[0].call({"query": "dentist"})["results"]


def test_a_half_written_settings_file_keeps_the_last_state(mem, reverie_home):
    set_config(reverie_home, '[memory]\nenabled = false\n[memory.search]\nprovider = "fake"\n')
    assert not mem.switch.enabled
    set_config(reverie_home, '[memory\nenabled = tr')
    assert not mem.switch.enabled and "as last read" in mem.switch.problem


def test_search_enabled_false_makes_memory_search_say_disabled(mem, reverie_home):
    set_config(reverie_home, '[memory.search]\nprovider = "fake"\nenabled = false\n')
    out = mem.tools()[0].call({"query": "dentist"})
    assert out["disabled"] is True and out["results"] == [] and "memory.search.enabled" in out["error"]


def test_a_running_chat_stops_using_memory(mem, reverie_home):
    model = scripted(turn=[{"reply": "one"},
                           {"toolCalls": [{"name": "memory_search", "arguments": {"query": "dentist"}}]},
                           {"reply": "three", "afterTools": True}])
    rt = mem.runtime(model)
    rt.send("booking flight soon")
    assert 'lane="trigger"' in system_of(model) and "dentist" in system_of(model).lower()
    set_config(reverie_home, '[memory]\nenabled = false\n[memory.search]\nprovider = "fake"\n')
    rt.send("/new")
    r = rt.send("booking flight, and when is the dentist?")
    system = system_of(model)
    assert "<recalled-memory" not in system and "Flights: aisle seat" not in system and "dentist" not in system.lower()
    result = [e for e in rt.store.events(rt.session.session_id, kinds=("tool_result",))][-1]
    assert "memory is disabled" in result.text
    assert recall_marks(rt) == []
    assert not list((mem.workspace / "memory").glob("*-*-*-*.md"))  # no session note either
    rt.close()


def _call(home, flip_to: str | None):
    params = StdioServerParameters(
        command=sys.executable, args=["-c", "from reverie.cli.main import run; run()", "mcp"],
        env={"REVERIE_HOME": str(home), "REVERIE_TIMEZONE": "UTC", "PATH": os.environ["PATH"]})

    async def go():
        async with Client(params) as c:
            first = await c.call_tool("memory_search", {"query": "dentist"})
            set_config(home, flip_to)
            second = await c.call_tool("memory_search", {"query": "dentist"})
            third = await c.call_tool("memory_get", {"path": "MEMORY.md"})
            return first, second, third

    return asyncio.run(go())


def test_a_running_mcp_server_over_stdio_refuses_after_the_file_flips(mem, reverie_home):
    first, second, third = _call(reverie_home, '[memory]\nenabled = false\n[memory.search]\nprovider = "fake"\n')
    assert first.is_error is False and json.loads(first.content[0].text)["results"]
    assert second.is_error is True and "memory is disabled" in second.content[0].text
    assert third.is_error is True and "memory_get refused" in third.content[0].text
