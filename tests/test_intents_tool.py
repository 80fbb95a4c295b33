"""The ``intent`` tool: offered to the owner beside the memory tools, its schema and validation,
create / list / cancel through the handler and over MCP."""

from __future__ import annotations

import asyncio
import json

import pytest
from reverie.mcp.client import Client

from reverie import Memory
from reverie.intents import TurnContext
from reverie.mcp.server import build_server
from reverie.tools import ToolError

OWNER = TurnContext(channel="telegram", sender="42", conversation="chat-1", owner=True)
GUEST = TurnContext(channel="telegram", sender="99", conversation="chat-1", owner=False)


@pytest.fixture
def mem(fake_memory):
    return fake_memory


def intent(mem: Memory, context=None):
    tools = {t.name: t for t in mem.tools(context)}
    return tools["intent"]


def test_offered_after_the_memory_tools_to_the_owner_only(mem):
    # creating and cancelling need an authenticated owner turn; without one (MCP, scripts) only
    # the read-only list is offered; someone else's turn gets neither
    tables = ["table_list", "table_query", "table_write"]
    assert [t.name for t in mem.tools()] == ["memory_search", "memory_get", "memory_append", "intent_list", *tables]
    assert [t.name for t in mem.tools(OWNER)] == ["memory_search", "memory_get", "memory_append", "intent",
                                                  "intent_list", *tables]
    assert [t.name for t in mem.tools(GUEST)] == ["memory_search", "memory_get", "memory_append", *tables]
    tool = intent(mem, OWNER)
    assert tool.read_only is False and tool.destructive is True  # cancel ends an intent for good
    schema = tool.schema
    assert schema["required"] == ["action"] and schema["additionalProperties"] is False
    assert schema["properties"]["action"]["enum"] == ["create", "cancel"]
    assert set(schema["properties"]) == {"action", "id", "description", "triggerKeywords", "scope", "senderScope",
                                         "expiresAt", "maxFires", "cooldownSeconds"}
    assert schema["properties"]["scope"]["enum"] == ["conversation", "channel", "anywhere"]
    assert schema["properties"]["senderScope"]["enum"] == ["sender", "anyone"]
    assert schema["properties"]["triggerKeywords"]["maxItems"] == 24
    assert "reverie cron add" in tool.description
    assert tool.openai()["function"]["parameters"] == schema
    lister = {t.name: t for t in mem.tools()}["intent_list"]
    assert lister.read_only is True and lister.destructive is False
    assert lister.schema["properties"]["status"]["enum"] == ["pending", "armed", "fired", "done", "cancelled",
                                                             "expired"]


def test_owner_creates_lists_and_cancels_through_the_tool(mem):
    tool = intent(mem, OWNER)
    out = tool.call({"action": "create", "description": "Confirm the return ticket",
                     "triggerKeywords": ["Hangzhou", "杭州"], "scope": "conversation"})
    assert out["intent"]["status"] == "armed" and out["intent"]["conversation"] == "chat-1"
    assert out["message"].startswith("Intent is armed for this conversation.")
    lister = {t.name: t for t in mem.tools(OWNER)}["intent_list"]
    listed = lister.call({})["intents"]
    assert [i["id"] for i in listed] == [out["intent"]["id"]]
    assert lister.call({"status": "done"}) == {"intents": []}
    # the matching turn of the owner injects it
    r = mem.match_intents("我下周去杭州", OWNER)
    assert [f["id"] for f in r.fired] == [out["intent"]["id"]]
    gone = tool.call({"action": "cancel", "id": out["intent"]["id"]})
    assert gone["cancelled"] is True and gone["intent"]["status"] == "cancelled"
    again = tool.call({"action": "cancel", "id": out["intent"]["id"]})
    assert again["cancelled"] is False and "cancelled" in again["reason"]


@pytest.mark.parametrize("args,needle", [
    ({}, "missing required argument 'action'"),
    ({"action": "delete"}, "must be one of ['create', 'cancel']"),
    ({"action": "list"}, "must be one of ['create', 'cancel']"),
    ({"action": "cancel", "owner": True}, "unknown argument(s) 'owner'"),
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


def test_without_a_turn_context_only_listing_is_offered(mem):
    created = intent(mem, OWNER).call({"action": "create", "description": "d", "triggerKeywords": ["x"]})
    tools = {t.name: t for t in mem.tools()}
    assert "intent" not in tools  # no authenticated owner: no create, no cancel
    assert [i["id"] for i in tools["intent_list"].call({})["intents"]] == [created["intent"]["id"]]
    assert [i["status"] for i in mem.intents.list()] == ["armed"]


def test_a_handler_without_an_owner_refuses_everything(mem):
    from reverie.tools import intent_tool

    for context in (GUEST, None):
        tool = intent_tool(mem.intents, context)
        for args in ({"action": "cancel", "id": "si_x"},
                     {"action": "create", "description": "d", "triggerKeywords": ["x"]}):
            with pytest.raises(ToolError, match="only the owner"):
                tool.call(args)


def test_the_intent_tool_over_mcp(mem):
    created = intent(mem, OWNER).call({"action": "create", "description": "Confirm the return ticket",
                                       "triggerKeywords": ["hangzhou"]})

    async def go():
        async with Client(build_server(mem.tools())) as c:
            listed = (await c.list_tools()).tools
            lst = await c.call_tool("intent_list", {})
            cancel = await c.call_tool("intent", {"action": "cancel", "id": created["intent"]["id"]})
            return listed, lst, cancel

    listed, lst, cancel = asyncio.run(go())
    specs = {t.name: t for t in listed}
    # an MCP client is not an authenticated owner: it lists (read-only), it cannot cancel
    assert "intent" not in specs
    spec = specs["intent_list"]
    assert spec.annotations.read_only_hint is True and spec.annotations.destructive_hint is False
    assert [i["id"] for i in json.loads(lst.content[0].text)["intents"]] == [created["intent"]["id"]]
    assert cancel.is_error
    assert [i["status"] for i in mem.intents.list()] == ["armed"]
