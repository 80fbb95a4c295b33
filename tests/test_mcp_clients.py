"""reverie's MCP server spoken to by the clients hosts really use: the official SDK's client (the
major version hosts pin) and LangChain's MCP adapters, installed in the same environment as
reverie (they could not be before: reverie pinned another major version of the SDK)."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

from reverie import Memory
from workspace_helpers import write

FAKE = 'memory.search.provider="fake"'


def _server_env(home) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return env


@pytest.fixture
def noted(reverie_home):
    mem = Memory(overrides=[FAKE])
    mem.init()
    write(mem, "memory/pets.md", "- The neighbour's parrot is named Captain Flint.\n")
    mem.sync()
    mem.close()
    return reverie_home


def _args() -> list[str]:
    return ["-c", "from reverie.cli.main import run; run()", "mcp", "--set", FAKE]


def test_the_official_sdk_client_over_stdio(noted):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=_args(), env=_server_env(noted))

    async def go():
        async with stdio_client(params) as (read, write_):
            async with ClientSession(read, write_) as session:
                init = await session.initialize()
                tools = await session.list_tools()
                found = await session.call_tool("memory_search", {"query": "parrot Captain Flint"})
                return init, tools, found

    init, tools, found = asyncio.run(go())
    assert init.serverInfo.name == "reverie"
    assert init.capabilities.tools is not None
    assert init.capabilities.prompts is not None and init.capabilities.resources is not None  # (mcp/content.py)
    names = {t.name for t in tools.tools}
    assert {"memory_search", "memory_get", "memory_append"} <= names
    assert not found.isError
    out = json.loads(found.content[0].text)
    assert [r["path"] for r in out["results"]] == ["memory/pets.md"]


def test_langchain_mcp_adapters_load_and_call_reverie_tools(noted):
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient({"reverie": {"transport": "stdio", "command": sys.executable, "args": _args(),
                                               "env": _server_env(noted)}})

    async def go():
        tools = await client.get_tools()
        search = next(t for t in tools if t.name == "memory_search")
        return tools, await search.ainvoke({"query": "parrot Captain Flint"})

    tools, answer = asyncio.run(go())
    assert {"memory_search", "memory_get", "memory_append"} <= {t.name for t in tools}
    text = answer if isinstance(answer, str) else json.dumps(answer, default=str)
    assert "Captain Flint" in text and "memory/pets.md" in text
