"""The agent tools (memory_search, memory_get, memory_append): their OpenAI-style definitions,
argument validation, append-only writes, and the same tools served over MCP, in process and over
stdio with the official SDK client."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from reverie.mcp.client import Client
from reverie.mcp.client import StdioServerParameters

from reverie import Memory
from reverie.mcp.server import build_server
from reverie.tools import ToolError
from workspace_helpers import write

NAMES = ["memory_search", "memory_get", "memory_append", "intent_list",  # the memory tools first, unchanged
         "table_list", "table_query", "table_write"]


def rows(out: dict) -> list[tuple]:
    return [(r["path"], r["startLine"], r["endLine"], r["score"]) for r in out["results"]]


def tools_of(mem: Memory) -> dict:
    return {t.name: t for t in mem.tools()}


def cli_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return env


def today_note() -> str:
    return f"memory/{datetime.now(timezone.utc).date().isoformat()}.md"


# Evergreen (undated) notes: no temporal decay, so scores do not move with the wall clock between
# two calls that compare them.
NOTES = {
    "memory/travel.md": "# Travel\n\n- Booked the hotel by the lake in Hangzhou for two nights.\n",
    "memory/budget.md": "# Budget\n\n- The lake-view room was rejected because it was over budget.\n",
    "memory/food.md": "# Food\n\n- Bought apples, bread and coffee beans at the grocery store.\n",
    "memory/zh.md": "# 杭州\n\n- 在杭州西湖附近找了一家酒店。\n",
}


@pytest.fixture
def mem(fake_memory: Memory) -> Memory:
    for rel, text in NOTES.items():
        write(fake_memory, rel, text)
    fake_memory.sync()
    return fake_memory


# -- definitions --------------------------------------------------------------------------------------
def test_cli_tools_json_lists_the_tools_as_openai_functions(mem, reverie_home):
    proc = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "tools", "--json"],
                          env=cli_env(reverie_home), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    defs = json.loads(proc.stdout)
    assert [d["function"]["name"] for d in defs] == NAMES
    ours = tools_of(mem)
    for d in defs:
        assert set(d) == {"type", "function"} and d["type"] == "function"
        f = d["function"]
        assert set(f) == {"name", "description", "parameters"}
        assert f["parameters"] == ours[f["name"]].schema
        assert f["description"] == ours[f["name"]].description and len(f["description"]) > 40
        assert f["parameters"]["type"] == "object" and f["parameters"]["additionalProperties"] is False
    schemas = {d["function"]["name"]: d["function"]["parameters"] for d in defs}
    assert schemas["memory_search"]["required"] == ["query"]
    assert schemas["memory_get"]["required"] == ["path"]
    assert schemas["memory_append"]["required"] == ["text"]
    assert "mandatory recall step" in ours["memory_search"].description.lower()


# -- validation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("tool,args,needle", [
    ("memory_search", {}, "missing required argument 'query'"),
    ("memory_search", {"query": None}, "missing required argument 'query'"),
    ("memory_search", {"query": 3}, "'query' must be string"),
    ("memory_search", {"query": ["hotel"]}, "'query' must be string"),
    ("memory_search", {"query": "hotel", "maxResults": "5"}, "'maxResults' must be integer"),
    ("memory_search", {"query": "hotel", "maxResults": 1.5}, "'maxResults' must be integer"),
    ("memory_search", {"query": "hotel", "maxResults": True}, "'maxResults' must be integer"),
    ("memory_search", {"query": "hotel", "maxResults": 0}, "at least 1"),
    ("memory_search", {"query": "hotel", "minScore": "high"}, "'minScore' must be number"),
    ("memory_search", {"query": "hotel", "minScore": 1.5}, "at most 1"),
    ("memory_search", {"query": "hotel", "corpus": "wiki"}, "one of"),
    ("memory_search", {"query": "hotel", "limit": 3}, "unknown argument(s) 'limit'"),
    ("memory_search", {"query": "x" * 5000}, "longer than 4096"),
    ("memory_get", {}, "missing required argument 'path'"),
    ("memory_get", {"path": "MEMORY.md", "from": "2"}, "'from' must be integer"),
    ("memory_get", {"path": "MEMORY.md", "start": 2}, "unknown argument(s) 'start'"),
    ("memory_append", {}, "missing required argument 'text'"),
    ("memory_append", {"text": 42}, "'text' must be string"),
    ("memory_append", {"text": "   "}, "text is empty"),
    ("memory_append", {"text": "hi", "path": "MEMORY.md"}, "unknown argument(s) 'path'"),
])
def test_invalid_arguments_raise_tool_error(mem, tool, args, needle):
    with pytest.raises(ToolError) as err:
        tools_of(mem)[tool].call(args)
    assert needle in str(err.value)
    assert str(err.value).startswith(tool)


def test_valid_arguments_pass_and_whole_floats_count_as_integers(mem):
    out = tools_of(mem)["memory_search"].call({"query": "hotel lake", "maxResults": 2.0, "minScore": 0})
    assert 1 <= len(out["results"]) <= 2
    assert tools_of(mem)["memory_search"].call({"query": "hotel", "corpus": "memory"})["results"]


def test_tool_search_equals_api_search(mem):
    via_tool = tools_of(mem)["memory_search"].call({"query": "hotel lake", "maxResults": 3, "minScore": 0.1})
    via_api = mem.search("hotel lake", 3, 0.1)
    assert rows(via_tool) == rows(via_api) and rows(via_api)


# -- memory_append ------------------------------------------------------------------------------------
def test_memory_append_is_append_only(mem):
    append = tools_of(mem)["memory_append"]
    rel = today_note()
    note = write(mem, rel, "# My day\n- handwritten line, no trailing newline")
    first_bytes = note.read_bytes()
    out = append.call({"text": "Decided to take the 9am train to Suzhou."})
    assert out["status"] == "appended" and out["path"] == rel
    after_one = note.read_bytes()
    assert after_one.startswith(first_bytes)
    assert "Decided to take the 9am train to Suzhou." in after_one.decode()
    assert "- handwritten line, no trailing newline\n" in after_one.decode()  # not glued onto it
    append.call({"text": "记得给妈妈打电话。"})
    after_two = note.read_bytes()
    assert after_two.startswith(after_one)
    assert after_two.decode().count("\n- ") >= 2
    # the appended note is searchable (the index catches up on the next search)
    found = mem.search("Suzhou train", sync_wait=5.0, record_signals=False)
    assert rel in [r["path"] for r in found["results"]]


def test_memory_append_creates_todays_note(mem):
    rel = today_note()
    assert not (mem.workspace / rel).exists()
    out = tools_of(mem)["memory_append"].call({"text": "First note of the day."})
    assert out["path"] == rel and out["chars"] == len("First note of the day.")
    assert "First note of the day." in (mem.workspace / rel).read_text(encoding="utf-8")


# -- MCP in process -----------------------------------------------------------------------------------
def _payload(result) -> dict:
    assert result.is_error is False, result.content
    return json.loads(result.content[0].text)


def _error_text(result) -> str:
    assert result.is_error is True
    return result.content[0].text


def test_mcp_in_process_lists_tools_with_our_schemas_and_hints(mem):
    async def go():
        async with Client(build_server(mem.tools())) as c:
            listed = (await c.list_tools()).tools
            return listed, c.instructions

    listed, instructions = asyncio.run(go())
    assert sorted(t.name for t in listed) == sorted(NAMES)
    ours = tools_of(mem)
    for t in listed:
        assert t.input_schema == ours[t.name].schema
        assert t.description == ours[t.name].description
    hints = {t.name: t.annotations for t in listed}
    assert hints["memory_search"].read_only_hint is True
    assert hints["memory_get"].read_only_hint is True
    assert hints["memory_append"].read_only_hint is False
    assert hints["memory_append"].destructive_hint is False
    assert "memory_search" in instructions and "before answering" in instructions.lower()


def test_mcp_in_process_calls_match_the_api(mem):
    write(mem, "memory/long.md", "\n".join(f"line {i}" for i in range(1, 11)) + "\n")
    mem.sync()  # a clean index: both searches below must rank the same corpus

    async def go():
        async with Client(build_server(mem.tools())) as c:
            search = await c.call_tool("memory_search", {"query": "hotel lake", "maxResults": 3})
            search_zh = await c.call_tool("memory_search", {"query": "酒店"})
            got = await c.call_tool("memory_get", {"path": "memory/long.md", "from": 4, "lines": 3})
            refused = await c.call_tool("memory_get", {"path": "../../etc/passwd"})
            bad = await c.call_tool("memory_search", {"query": "hotel", "limit": 2})
            missing = await c.call_tool("memory_search", {})
            return search, search_zh, got, refused, bad, missing

    search, search_zh, got, refused, bad, missing = asyncio.run(go())
    via_mcp = _payload(search)
    via_api = mem.search("hotel lake", 3, record_signals=False)
    assert rows(via_mcp) == rows(via_api) and rows(via_api)
    assert rows(via_mcp)[0][0] in ("memory/travel.md", "memory/budget.md")
    assert [r["path"] for r in _payload(search_zh)["results"]][:1] == ["memory/zh.md"]
    window = _payload(got)
    assert window["text"].split("\n")[:3] == ["line 4", "line 5", "line 6"]
    assert window["from"] == 4 and window["nextFrom"] == 7
    assert "refused" in _error_text(refused)
    assert "limit" in _error_text(bad)
    assert "query" in _error_text(missing)


def test_mcp_in_process_append_writes_todays_note(mem):
    async def go():
        async with Client(build_server(mem.tools())) as c:
            return await c.call_tool("memory_append", {"text": "Remember: the dog is called Biscuit."})

    out = _payload(asyncio.run(go()))
    assert out["status"] == "appended" and out["path"] == today_note()
    assert "Biscuit" in (mem.workspace / today_note()).read_text(encoding="utf-8")


def test_mcp_string_arguments_that_look_like_json_stay_strings(mem):
    async def go():
        async with Client(build_server(mem.tools())) as c:
            appended = [await c.call_tool("memory_append", {"text": t})
                        for t in ('{"wifi": "hunter2"}', "[1, 2, 3]", "null", "true", "42")]
            searched = [await c.call_tool("memory_search", {"query": q}) for q in ("null", '["hotel"]', "2026")]
            return appended, searched

    appended, searched = asyncio.run(go())
    for result in appended + searched:
        _payload(result)  # none refused
    text = (mem.workspace / today_note()).read_text(encoding="utf-8")
    for t in ('{"wifi": "hunter2"}', "[1, 2, 3]", "null", "true", "42"):
        assert f"{t}\n" in text


def test_mcp_rejects_what_the_schema_forbids(mem):
    async def go():
        async with Client(build_server(mem.tools())) as c:
            return [await c.call_tool(name, args) for name, args in (
                ("memory_search", {"query": "hotel", "max_results": 2}),  # misspelt: not silently ignored
                ("memory_search", {"query": 3}),
                ("memory_search", {"query": "hotel", "maxResults": 0}),
                ("memory_get", {"path": "MEMORY.md", "from": 0}),
                ("memory_append", {"text": "hi", "path": "MEMORY.md"}),
            )]

    results = asyncio.run(go())
    assert "max_results" in _error_text(results[0])
    for r in results[1:]:
        _error_text(r)
    assert not (mem.workspace / today_note()).exists()  # the refused append wrote nothing


# -- MCP over stdio -----------------------------------------------------------------------------------
def test_mcp_over_stdio_lists_tools_and_finds_a_note(reverie_home):
    writer = Memory(overrides=['memory.search.provider="fake"'])
    writer.init()
    write(writer, "memory/pets.md", "- The neighbour's parrot is named Captain Flint.\n")
    writer.close()  # not indexed: the server indexes at start, searches answer meanwhile
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from reverie.cli.main import run; run()", "mcp", "--set", 'memory.search.provider="fake"'],
        env={"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "PATH": os.environ["PATH"]})

    async def go():
        async with Client(params) as c:
            listed = (await c.list_tools()).tools
            found = await c.call_tool("memory_search", {"query": "parrot Captain Flint"})
            for _ in range(100):  # on a busy machine the first answer may come before the index
                early = _payload(found)
                if early["results"]:
                    break
                assert early["stale"] is True and "indexing" in early  # and then it says so
                await asyncio.sleep(0.1)
                found = await c.call_tool("memory_search", {"query": "parrot Captain Flint"})
            refused = await c.call_tool("memory_get", {"path": "/etc/passwd"})
            return listed, found, refused, c.instructions

    listed, found, refused, instructions = asyncio.run(go())
    assert sorted(t.name for t in listed) == sorted(NAMES + ["memory_context"])  # + the MCP-only startup tool
    out = _payload(found)
    assert [r["path"] for r in out["results"]] == ["memory/pets.md"]
    assert "Captain Flint" in out["results"][0]["snippet"] and out["provider"] == "fake"
    assert "refused" in _error_text(refused)
    assert "memory_search" in instructions
