"""reverie's own model calls on a LangChain chat model (the ``langchain`` model provider,
reverie.hosts.langgraph.use_chat_model): the real ChatOpenAI of langchain-openai against the scripted
model server on 127.0.0.1, in a real create_agent graph.

- Active Memory's recall pass runs through the program's ChatOpenAI (its tool round with
  memory_search included), and the fact it found reaches the graph's next model call; reverie's calls
  never show up in the graph's message stream.
- The pre-compaction flush writes today's note through it; Dreaming's diary is written by it.
- A failing model (HTTP 500) is retried, then reported in one line naming the model; the turn goes on.
- The provider by name: usage, the answer's limit, system messages, init_chat_model for a name no
  program registered, and a clear error for a model that cannot call tools.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from hosts.model_server import ModelServer, Text, ToolCall

from reverie.models.offline import ACTIVE_MEMORY_SYSTEM_PREFIX, FLUSH_SYSTEM_PREFIX
from reverie.models.offline_dreams import DIARY_SYSTEM_PREFIX

HOTEL = "Booked the Lakeside Hotel in Hangzhou for two nights, room 512."
FACT = "the Lakeside Hotel in Hangzhou for two nights"  # what the model answers: a part of the line it read
SISTER = "The owner's sister Mira moves to Lisbon in May."
DIARY = ("I wandered along a lake at dusk and found a hotel whose room numbers were written in tea leaves; "
         "the key to room 512 hummed like a small boat, and somewhere my sister was packing for Lisbon.")
SPEC = "langchain:openai:scripted-model"
OVERRIDES = ['memory.search.provider="fake"', "memory.activeMemory.enabled=true", "memory.activeMemory.mode=always"]


def chat_model(server, **kw):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="scripted-model", base_url=server.openai_url, api_key="placeholder", **kw)


def kind_of(request) -> str:
    system = request.system_text()
    for kind, prefix in (("recall", ACTIVE_MEMORY_SYSTEM_PREFIX), ("flush", FLUSH_SYSTEM_PREFIX),
                         ("diary", DIARY_SYSTEM_PREFIX)):
        if system.startswith(prefix):
            return kind
    return "agent" if "You are a helpful assistant." in system else "other"


def answer(request):
    """The scripted model: reverie's own requests by their system prompt, the graph's by its own."""
    kind = kind_of(request)
    if kind == "recall":
        if not request.tool_results():
            return ToolCall("memory_search", {"query": "hotel Hangzhou"})
        return Text(FACT if HOTEL in request.tool_results()[-1] else "NONE")
    if kind == "flush":
        return Text("Saved.") if request.tool_results() else ToolCall("memory_append", {"text": SISTER})
    if kind == "diary":
        return Text(DIARY)
    if kind == "agent":
        return Text("The Lakeside Hotel." if "hotel" in request.user_texts()[-1] else "Noted.")
    return Text("ok")


def of_kind(server, kind: str) -> list:
    return [r for r in server.requests if r.api and kind_of(r) == kind]


def memory_events(memory, thread: str, *kinds: str):
    s = memory.session(thread)
    return s.rt.store.events(s.rt.session.session_id, kinds=kinds)


def test_active_memory_flush_and_dreaming_run_on_the_programs_chat_model(reverie_home):
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from reverie.hosts.langgraph import connect

    with ModelServer(answer) as server:
        model = chat_model(server)  # the program's model: the graph's, and now reverie's too
        memory = connect(overrides=OVERRIDES, chat_model=model)
        mem = memory.memory
        assert mem.settings.chat.model == SPEC
        (mem.workspace / "memory" / "hotels.md").write_text(f"# Hotels\n\n- {HOTEL}\n", encoding="utf-8")
        mem.sync()
        agent = create_agent(model, middleware=[memory.middleware(tools=False)],
                             system_prompt="You are a helpful assistant.", checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        streamed = [chunk.content for chunk, _ in agent.stream(
            {"messages": [{"role": "user", "content": "Which hotel did we book in Hangzhou?"}]}, config,
            stream_mode="messages")]
        agent.invoke({"messages": [{"role": "user", "content": f"Remember this: {SISTER}"}]}, config)

        # -- Active Memory: its two rounds went to the program's model, tools and tool result included
        recall = of_kind(server, "recall")
        assert len(recall) >= 2, server.describe()
        assert {"memory_search", "memory_get"} <= set(recall[0].tool_names())
        assert recall[0].body["max_completion_tokens"] == 400  # the pass's own limit, on a copy of the model
        assert model.max_tokens is None  # ... the program's object is left as it was
        assert HOTEL in recall[1].tool_results()[-1]
        # ... and what it found is in the graph's next model call, for that call only
        first = of_kind(server, "agent")[0].system_text()
        block = first.split("<active_memory_plugin>")[1].split("</active_memory_plugin>")[0]
        assert FACT in block and "room 512" not in block  # the model's answer, not the offline model's line
        assert not any(FACT in str(c) for c in streamed)  # reverie's calls are not in the graph's stream
        assert "The Lakeside Hotel." in "".join(str(c) for c in streamed)
        am = [e for e in memory_events(memory, "t1", "system") if e.data.get("event") == "active-memory"]
        assert am[0].data["status"] == "ok" and am[0].data["summary"] == FACT
        assert memory.session("t1").rt.session.model == SPEC  # the conversation's model, as recorded

        # -- the flush writes today's note through the program's model
        flushed = memory.before_compaction("t1")
        assert flushed.error is None and flushed.data["status"] == "written", flushed
        flush = of_kind(server, "flush")
        assert flush and flush[0].tool_names() == ["memory_append"] and "Mira" in "".join(flush[0].user_texts())
        notes = "".join(p.read_text(encoding="utf-8") for p in (mem.workspace / "memory").glob("20*.md"))
        assert SISTER in notes

        # -- Dreaming's diary is written by it
        sweep = mem.dream(now=datetime.now(timezone.utc) + timedelta(days=1)).as_dict()
        assert sweep["diary"]["written"] and sweep["diary"]["author"] == SPEC
        assert of_kind(server, "diary")
        assert "room numbers were written in tea leaves" in (mem.workspace / "DREAMS.md").read_text(encoding="utf-8")
        assert not server.errors, server.errors
    memory.close()


def test_a_failing_model_is_reported_in_one_line_and_the_turn_goes_on(reverie_home, monkeypatch):
    from langchain.agents import create_agent

    from reverie import retry
    from reverie.hosts.langgraph import connect, use_chat_model

    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)  # the 500s are retried: quickly here

    def failing(request):
        if kind_of(request) == "recall":
            raise RuntimeError("the recall model is down")  # the server answers HTTP 500
        return answer(request)

    with ModelServer(failing) as server:
        memory = connect(overrides=OVERRIDES)
        (memory.memory.workspace / "memory" / "hotels.md").write_text(f"# Hotels\n\n- {HOTEL}\n", encoding="utf-8")
        memory.memory.sync()
        agent = create_agent(chat_model(server), middleware=[memory.middleware(tools=False)],
                             system_prompt="You are a helpful assistant.")
        memory.session("t2").rt  # a conversation made before the model is chosen ...
        spec = use_chat_model(memory, chat_model(server, max_retries=0), name="recall-model")  # ... follows it
        assert spec == "langchain:recall-model"
        state = agent.invoke({"messages": [{"role": "user", "content": "Which hotel did we book in Hangzhou?"}]},
                             {"configurable": {"thread_id": "t2"}})
        recall, main = of_kind(server, "recall"), of_kind(server, "agent")
    assert len(recall) == 3  # three attempts, as for reverie's other providers
    am = [e for e in memory_events(memory, "t2", "system") if e.data.get("event") == "active-memory"]
    assert am and am[0].data["status"] == "error"
    reason = am[0].data["reason"]
    assert "\n" not in reason and re.search(
        r"langchain:recall-model \(ChatOpenAI\): server error \(HTTP 500\): script: RuntimeError", reason)
    # the turn went on without it: the graph's model answered, and the turn is recorded
    assert len(main) == 1 and "<active_memory_plugin>" not in main[0].system_text()
    assert state["messages"][-1].content == "The Lakeside Hotel."
    said = [(e.kind, e.text) for e in memory_events(memory, "t2", "user", "assistant")]
    assert said == [("user", "Which hotel did we book in Hangzhou?"), ("assistant", "The Lakeside Hotel.")]
    memory.close()


def test_the_provider_by_name(reverie_home, monkeypatch):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from reverie import models
    from reverie.config import ChatSettings
    from reverie.errors import ConfigError
    from reverie.models import ChatMessage, ChatModelError
    from reverie.models.langchain_chat import register_chat_model

    tools = [{"type": "function", "function": {"name": "lookup", "description": "Look it up.",
                                               "parameters": {"type": "object", "properties": {}}}}]
    with ModelServer([Text("first"), Text("second")]) as server:
        # a name no program registered: LangChain's init_chat_model makes it, from the provider's variables
        monkeypatch.setenv("OPENAI_API_KEY", "placeholder")
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        made = models.create("langchain:openai:scripted-model-2", ChatSettings(contextWindow=9000))
        assert made.context_window == 9000
        out = made.complete([ChatMessage("system", "Be brief."), ChatMessage("user", "hi"),
                             ChatMessage("assistant", "hello"), ChatMessage("system", "A summary."),
                             ChatMessage("user", "again")], max_tokens=64)
        assert out.message.content == "first" and out.usage.input_tokens == 25 and out.usage.output_tokens > 0
        body = server.requests[-1].body
        assert body["model"] == "scripted-model-2" and body["max_completion_tokens"] == 64
        assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
        assert body["messages"][0]["content"] == "Be brief.\n\nA summary."

        # a registered model wins over the name; its window from the model's profile
        mine = chat_model(server)
        assert register_chat_model(mine, "mine") == "langchain:mine"
        named = models.create("langchain:mine", ChatSettings())
        assert named.chat_model is mine and named.context_window == 128_000
        assert named.complete([ChatMessage("user", "hi")]).message.content == "second"

    with pytest.raises(ConfigError, match=r"langchain:nosuchprovider:x: no chat model registered"):
        models.create("langchain:nosuchprovider:x", ChatSettings())
    plain = models.create(register_chat_model(FakeListChatModel(responses=["plain"])), ChatSettings())
    assert plain.complete([ChatMessage("user", "hi")]).message.content == "plain"
    with pytest.raises(ChatModelError, match=r"\(FakeListChatModel\): this model cannot call tools") as failed:
        plain.complete([ChatMessage("user", "hi")], tools)
    assert not failed.value.retryable
    assert "langchain" in models.available()
