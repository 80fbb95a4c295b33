"""The ``intent`` tool: offered to the owner beside the memory tools, its schema and validation,
create / list / cancel through the handler and over MCP."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client

from reverie import Memory
from reverie.intents import TurnContext
from reverie.mcp.server import build_server
from reverie.tools import ToolError

OWNER = TurnContext(channel="telegram", sender="42", conversation="chat-1", owner=True)
GUEST = TurnContext(channel="telegram", sender="99", conversation="chat-1", owner=False)


@pytest.fixture
def mem(reverie_home):
    m = Memory(overrides=['memory.search.provider="fake"'])
    m.init()
    yield m
    m.close()


def intent(mem: Memory, context=None):
    tools = {t.name: t for t in mem.tools(context)}
    return tools["intent"]


def test_offered_after_the_memory_tools_to_the_owner_only(mem):
    tables = ["table_list", "table_query", "table_write"]
    assert [t.name for t in mem.tools()] == ["memory_search", "memory_get", "memory_append", "intent", *tables]
    assert [t.name for t in mem.tools(OWNER)] == ["memory_search", "memory_get", "memory_append", "intent", *tables]
    assert [t.name for t in mem.tools(GUEST)] == ["memory_search", "memory_get", "memory_append", *tables]
    tool = intent(mem)
    assert tool.read_only is False and tool.destructive is False
    schema = tool.schema
    assert schema["required"] == ["action"] and schema["additionalProperties"] is False
    assert schema["properties"]["action"]["enum"] == ["create", "list", "cancel"]
    assert set(schema["properties"]) == {"action", "id", "description", "triggerKeywords", "scope", "senderScope",
                                         "expiresAt", "maxFires", "cooldownSeconds", "status"}
    assert schema["properties"]["scope"]["enum"] == ["conversation", "channel", "anywhere"]
    assert schema["properties"]["senderScope"]["enum"] == ["sender", "anyone"]
    assert schema["properties"]["status"]["enum"] == ["pending", "armed", "fired", "done", "cancelled", "expired"]
    assert schema["properties"]["triggerKeywords"]["maxItems"] == 24
    assert "reverie cron add" in tool.description
    assert tool.openai()["function"]["parameters"] == schema


def test_owner_creates_lists_and_cancels_through_the_tool(mem):
    tool = intent(mem, OWNER)
    out = tool.call({"action": "create", "description": "Confirm the return ticket",
                     "triggerKeywords": ["Hangzhou", "杭州"], "scope": "conversation"})
    assert out["intent"]["status"] == "armed" and out["intent"]["conversation"] == "chat-1"
    assert out["message"].startswith("Intent is armed for this conversation.")
    listed = tool.call({"action": "list"})["intents"]
    assert [i["id"] for i in listed] == [out["intent"]["id"]]
    assert tool.call({"action": "list", "status": "done"}) == {"intents": []}
    # the matching turn of the owner injects it
    r = mem.match_intents("我下周去杭州", OWNER)
    assert [f["id"] for f in r.fired] == [out["intent"]["id"]]
    gone = tool.call({"action": "cancel", "id": out["intent"]["id"]})
    assert gone["cancelled"] is True and gone["intent"]["status"] == "cancelled"
    again = tool.call({"action": "cancel", "id": out["intent"]["id"]})
    assert again["cancelled"] is False and "cancelled" in again["reason"]


@pytest.mark.parametrize("args,needle", [
    ({}, "missing required argument 'action'"),
    ({"action": "delete"}, "must be one of ['create', 'list', 'cancel']"),
    ({"action": "list", "owner": True}, "unknown argument(s) 'owner'"),
    ({"action": "create", "triggerKeywords": ["x"]}, "create needs description and triggerKeywords"),
    ({"action": "create", "description": "d", "triggerKeywords": "x"}, "'triggerKeywords' must be array"),
    ({"action": "create", "description": "d", "triggerKeywords": ["x"], "maxFires": 0}, "at least 1"),
    ({"action": "create", "description": "d" * 501, "triggerKeywords": ["x"]}, "longer than 500"),
    ({"action": "create", "description": "d", "triggerKeywords": ["x"], "scope": "world"}, "one of"),
    ({"action": "create", "description": "remind me tomorrow at 9 to check the tickets", "triggerKeywords": ["tickets"]},
     "reverie cron add"),
    ({"action": "create", "description": "每天早上提醒我喝水", "triggerKeywords": ["喝水"]}, "reverie cron add"),
    ({"action": "cancel"}, "cancel needs the id"),
])
def test_invalid_calls_raise_tool_errors_and_write_nothing(mem, args, needle):
    with pytest.raises(ToolError) as err:
        intent(mem, OWNER).call(args)
    assert needle in str(err.value)
    assert mem.intents.list() == []


def test_without_a_turn_context_create_is_refused_for_want_of_identity(mem):
    tool = intent(mem)
    with pytest.raises(ToolError, match="channel identity is unavailable"):
        tool.call({"action": "create", "description": "d", "triggerKeywords": ["x"]})
    assert tool.call({"action": "list"}) == {"intents": []}
    created = intent(mem, OWNER).call({"action": "create", "description": "d", "triggerKeywords": ["x"]})
    # the local owner (no context) may still list and cancel
    assert tool.call({"action": "cancel", "id": created["intent"]["id"]})["cancelled"] is True


def test_a_non_owner_handler_refuses_everything(mem):
    from reverie.tools import intent_tool

    tool = intent_tool(mem.intents, GUEST)
    for args in ({"action": "list"}, {"action": "cancel", "id": "si_x"},
                 {"action": "create", "description": "d", "triggerKeywords": ["x"]}):
        with pytest.raises(ToolError, match="only the owner"):
            tool.call(args)


def test_the_intent_tool_over_mcp(mem):
    created = intent(mem, OWNER).call({"action": "create", "description": "Confirm the return ticket",
                                       "triggerKeywords": ["hangzhou"]})

    async def go():
        async with Client(build_server(mem.tools())) as c:
            listed = (await c.list_tools()).tools
            lst = await c.call_tool("intent", {"action": "list"})
            bad = await c.call_tool("intent", {"action": "create", "description": "d",
                                               "triggerKeywords": ["x", "y"]})
            cancel = await c.call_tool("intent", {"action": "cancel", "id": created["intent"]["id"]})
            return listed, lst, bad, cancel

    listed, lst, bad, cancel = asyncio.run(go())
    spec = {t.name: t for t in listed}["intent"]
    assert spec.input_schema == intent(mem).schema
    assert spec.annotations.read_only_hint is False and spec.annotations.destructive_hint is False
    assert [i["id"] for i in json.loads(lst.content[0].text)["intents"]] == [created["intent"]["id"]]
    assert bad.is_error and "channel identity is unavailable" in bad.content[0].text
    assert json.loads(cancel.content[0].text)["cancelled"] is True
    assert [i["status"] for i in mem.intents.list()] == ["cancelled"]
