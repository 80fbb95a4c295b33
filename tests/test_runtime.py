"""The runtime and the offline model: memory is searched first and quoted with citations; tools
that were not offered are refused and recorded; the tool loop is bounded; /new writes the session
note in the background (reference §18) and a fresh session finds the earlier decision through
memory_search; workspace files are injected within budgets (§3) and every cut is reported."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from reverie import Memory, models
from reverie.config import ChatSettings
from reverie.models.base import ChatMessage, ToolCall
from reverie.models.scripted import ScriptedModel


@pytest.fixture
def mem(fake_memory):
    return fake_memory


def test_offline_model_is_registered_and_needs_nothing():
    m = models.create("offline", ChatSettings())
    assert m.provider == "offline" and m.offline and m.context_window == 200_000
    # the scripted test model is usable by name but never listed to users
    assert "offline" in models.available() and "scripted" not in models.available()


def test_offline_searches_memory_first_and_quotes_with_citations(mem):
    # a fixed time of day: the note's "- HH:MM" prefix is part of what the fake embedder hashes, and
    # at some minutes (00:12, 00:57) its vector came near enough the unrelated question below to match
    at = datetime.now(timezone.utc).replace(hour=9, minute=30, second=0, microsecond=0)
    mem.remember("Decided: we stay at the Lakeside Hotel in Hangzhou, two nights.", now=at)
    mem.sync()
    rt = mem.runtime("offline")
    r = rt.send("Which hotel did we decide on in Hangzhou?")
    assert r.tool_calls == ["memory_search"]
    assert "offline model" in r.reply and "Lakeside Hotel" in r.reply and "[memory/" in r.reply
    kinds = [e.kind for e in rt.store.events(rt.session.session_id)]
    # the system events are recall marks (docs/trust.md): what the search put into the context
    assert [k for k in kinds if k != "system"] == ["user", "tool_call", "tool_result", "assistant"]
    marks = [e for e in rt.store.events(rt.session.session_id, kinds=("system",)) if e.is_recall]
    # today's note (startup context of a new session), MEMORY.md once, then the search
    assert [m.data["lane"] for m in marks] == ["startup", "startup", "memory_search"]
    assert marks[0].data["items"][0]["path"].startswith("memory/")
    call = rt.store.events(rt.session.session_id, kinds=("tool_call",))[0].message.tool_calls[0]
    assert call.arguments == {"query": "Which hotel did we decide on in Hangzhou?"}
    r = rt.send("量子计算机的冷却系统")
    assert "离线模型" in r.reply and "没有找到" in r.reply  # it says it checked memory
    rt.close()


def test_offline_saves_an_explicit_request_to_remember(mem):
    rt = mem.runtime("offline")
    r = rt.send("Remember that my seat preference is the window.")
    assert r.tool_calls == ["memory_append"] and r.reply.startswith("Noted in memory/")
    note = (mem.workspace / "memory" / f"{datetime.now(timezone.utc).date()}.md").read_text(encoding="utf-8")
    assert "my seat preference is the window." in note
    r = rt.send("Remember what hotel we picked?")  # a question is searched, not saved
    assert r.tool_calls == ["memory_search"]
    rt.close()


def test_the_system_prompt_has_memory_recall_and_all_memory_tools(mem):
    model = ScriptedModel(script={})
    rt = mem.runtime(model)
    rt.send("hi")
    req = model.requests[0]
    assert "## Memory Recall" in req["messages"][0]["content"]
    assert "memory_search" in req["messages"][0]["content"]
    assert {"memory_search", "memory_get", "memory_append", "sessions_search", "sessions_history"} <= set(req["tools"])
    assert set(req["tools"]) >= {t.name for t in mem.tools()}  # whatever Memory.tools() offers
    rt.close()


def test_unoffered_tool_is_refused_and_recorded(mem):
    script = {"steps": {"turn": [{"toolCalls": [{"name": "shell", "arguments": {"cmd": "rm -rf /"}}]},
                                 {"afterTools": True, "reply": "sorry"}]}}
    rt = mem.runtime(ScriptedModel(script=script))
    r = rt.send("do something")
    assert r.reply == "sorry"
    (res,) = rt.store.events(rt.session.session_id, kinds=("tool_result",))
    assert res.data["refused"] is True and "not available" in json.loads(res.message.content)["error"]
    rt.close()


def test_tool_rounds_are_bounded(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"', "sessions.maxToolRounds=2"])
    mem.init()
    loop = {"afterTools": True, "toolCalls": [{"name": "memory_search", "arguments": {"query": "x"}}]}
    model = ScriptedModel(script={"steps": {"turn": [{"toolCalls": loop["toolCalls"]}, loop, loop]}})
    rt = mem.runtime(model)
    r = rt.send("loop forever")
    assert "limit of 2 tool rounds" in r.reply
    assert [q["tools"] for q in model.requests][-1] == []  # the last call offered no tools
    results = rt.store.events(rt.session.session_id, kinds=("tool_result",))
    assert len(results) == 3 and results[-1].data["refused"]
    rt.close()


def test_no_reply_is_suppressed_and_model_errors_do_not_end_the_chat(mem):
    script = {"steps": {"turn": [{"reply": " no_reply "}, {"error": "error", "message": "HTTP 503"}]}}
    rt = mem.runtime(ScriptedModel(script=script))
    r = rt.send("ping")
    assert r.reply is None and r.suppressed
    r = rt.send("ping again")
    assert r.error and "HTTP 503" in r.reply
    assert rt.store.events(rt.session.session_id, kinds=("system",))[-1].data["event"] == "model-error"
    r = rt.send("and again")
    assert r.reply and r.error is None
    rt.close()


def test_interrupted_tool_call_gets_a_synthetic_result_in_the_input_only(mem):
    model = ScriptedModel(script={})
    rt = mem.runtime(model)
    sid = rt.session.session_id
    rt.store.append_message(sid, "user", ChatMessage("user", "look it up"))
    rt.store.append_message(sid, "tool_call", ChatMessage("assistant", "", [ToolCall("c9", "memory_search", {"query": "q"})]))
    rt.send("are you there?")  # the previous process died before the result was recorded
    msgs = model.requests[0]["messages"]
    roles = [m["role"] for m in msgs]
    assert roles[:5] == ["system", "user", "assistant", "tool", "user"]
    assert "interrupted" in msgs[3]["content"]
    assert len(rt.store.events(sid, kinds=("tool_result",))) == 1  # only the new turn's own result
    rt.close()


def test_new_writes_session_note_and_a_fresh_session_finds_the_decision(mem):
    rt = mem.runtime("offline")
    rt.send("For the Hangzhou trip we decided on the Lakeside Hotel near West Lake.")
    rt.send("/context")
    rt.send("Also the budget is 800 yuan per night.")
    r = rt.send("/new")  # (that the hook never delays it: test_the_hook_never_delays_the_reset_...)
    assert r.command == "new"
    assert rt.wait_for_hooks(10)
    (status,) = rt.hook.results
    assert status["status"] == "written"
    note = mem.workspace / status["path"]
    assert note.name.startswith(datetime.now(timezone.utc).strftime("%Y-%m-%d-")) and len(note.stem) == 15
    text = note.read_text(encoding="utf-8")
    assert text.startswith("# Session: ") and "- **Session Key**: agent:main:main" in text
    assert "user: For the Hangzhou trip we decided on the Lakeside Hotel near West Lake." in text
    assert "/context" not in text and "## Conversation Summary" in text
    mem.sync()
    r = rt.send("Which hotel near West Lake did we decide on?")
    assert r.tool_calls == ["memory_search"] and "Lakeside Hotel" in r.reply
    cited = [line for line in r.reply.splitlines() if "Lakeside" in line]
    assert cited and "[memory/" in cited[0]
    rt.close()


def test_session_note_keeps_the_last_15_after_filtering_commands(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    model = ScriptedModel(script={"steps": {"turn": [{"reply": f"answer {i}"} for i in range(12)]}})
    rt = mem.runtime(model)
    for i in range(12):
        rt.send(f"message {i}")
        rt.send("/context")
    rt.send("/reset")
    rt.wait_for_hooks(10)
    text = (mem.workspace / rt.hook.results[0]["path"]).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.startswith(("user:", "assistant:"))]
    assert len(lines) == 15 and lines[-1] == "assistant: answer 11" and lines[0] == "assistant: answer 4"
    rt.close()


def test_the_hook_never_delays_the_reset_and_can_use_a_model_slug(reverie_home, tmp_path):
    mem = Memory(overrides=['memory.search.provider="none"', "sessions.memoryHook.llmSlug=true"])
    mem.init()
    go = tmp_path / "slug-may-answer"
    model = ScriptedModel(script={"steps": {"slug": [{"waitFor": str(go), "reply": "Hangzhou Trip Plan!"}]}})
    rt = mem.runtime(model)
    rt.send("Plan the Hangzhou trip")
    rt.send("/new")  # returns while the slug's model call is held: it runs in the background
    assert rt.hook.results[0]["status"] == "running"
    go.touch()
    assert rt.wait_for_hooks(10)
    assert rt.hook.results[0]["path"].endswith("-hangzhou-trip-plan.md")
    rt.close()


def test_bootstrap_budgets_and_reported_cuts(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    (mem.workspace / "MEMORY.md").write_text("# Memory\n" + "- a durable fact\n" * 3000, encoding="utf-8")
    (mem.workspace / "USER.md").write_text("# User\n" + "- likes tea\n" * 1000, encoding="utf-8")
    (mem.workspace / "SOUL.md").write_text("Be kind.", encoding="utf-8")
    model = ScriptedModel(script={})
    rt = mem.runtime(model)
    rt.send("hello")
    system = model.requests[0]["messages"][0]["content"]
    assert "### SOUL.md\n\nBe kind." in system
    assert "[... MEMORY.md truncated here: read MEMORY.md for full content ...]" in system
    assert "(kept 14000+4000 chars of" in system and "(kept 2800+800 chars of" in system  # USER.md capped at 4,000
    assert system.index("### SOUL.md") < system.index("### USER.md") < system.index("### MEMORY.md")
    rep = rt.send("/context").reply
    assert "cut: USER.md, MEMORY.md" in rep and "TRUNCATED" in rep
    # a group chat gets neither MEMORY.md nor USER.md
    group = mem.runtime(model, session="telegram:group:7")
    group.send("hi all")
    gsys = model.requests[-1]["messages"][0]["content"]
    assert "### SOUL.md" in gsys and "MEMORY.md" not in gsys.split("## Memory Recall")[1].split("### SOUL.md")[1]
    assert "### USER.md" not in gsys and "### MEMORY.md" not in gsys
    rt.close()
    group.close()


def test_context_detail_lists_parts_tools_and_messages(mem):
    rt = mem.runtime("offline", context_window=32_000)
    rt.send("hello")
    out = rt.send("/context detail")
    d = out.data
    assert d["plan"]["window"] == 32_000 and d["plan"]["flush_threshold"] == 8_000
    names = [t["name"] for t in d["input"]["tools"]]
    assert "memory_search" in names and "sessions_history" in names
    assert [m["role"] for m in d["input"]["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert "Flushes of agent:main:main: none yet" in out.reply and "Tools:" in out.reply
    assert "window 32,000 tokens" in out.reply
    rt.close()


def test_read_only_workspace_offers_no_writing_tool(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"', 'sessions.workspaceAccess="ro"'])
    mem.init()
    rt = mem.runtime("offline")
    names = {t.name for t in rt.tools()}
    assert "memory_append" not in names and "memory_search" in names
    r = rt.send("remember that I like tea")
    # never answered as if saved: the reply says plainly that nothing was saved
    assert r.tool_calls == [] and r.reply.startswith("Nothing was saved")
    rt.send("/new")
    rt.wait_for_hooks(5)
    assert rt.hook.results[0]["status"] == "skipped"
    rt.close()
