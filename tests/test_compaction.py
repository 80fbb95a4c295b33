"""Compaction (reference §13): overflow recovery (compact, retry, at most 3 times) with the flush
first on that path too (openclaw #114081), tool calls never split from their results, a failing
summariser replaced by the labelled extractive summary, /compact instructions, the full transcript
kept; and pruning (§19) that changes the model input only."""

from __future__ import annotations

import json

from reverie import Memory
from reverie.models.base import ChatMessage, ToolCall
from reverie.models.scripted import ScriptedModel

from chat_helpers import roomy_window
from reverie.sessions import split_for_compaction, units

FILLER = "We talked about trains, hotels, museums and the budget for the trip in some detail. " * 4


def make(*sets: str, script: dict | None = None, window: int | None = None, headroom: int = 1_500):
    mem = Memory(overrides=['memory.search.provider="none"', *sets])
    mem.init()
    mem.sync()  # indexed before the session: its first search answers without indexing news (token counts)
    model = ScriptedModel(script=script or {})
    return mem, model, mem.runtime(model, context_window=window or roomy_window(mem, model, headroom))


def kinds(rt) -> list[str]:
    return [e.kind for e in rt.store.events(rt.session.session_id)]


def test_overflow_compacts_flushes_first_and_retries(reverie_home):
    script = {"steps": {"turn": [{"match": "trigger", "error": "overflow",
                                  "message": "This model's maximum context length is 8192 tokens"}]}}
    mem, model, rt = make(script=script, headroom=3_000)  # four turns with their searches fit below it
    for i in range(4):  # stays below the flush threshold (see roomy_window)
        rt.send(f"I prefer aisle seats. Turn {i}. {FILLER}")
    assert not rt.store.events(rt.session.session_id, kinds=("flush",))  # below every threshold so far
    r = rt.send("trigger: what did I say about seats?")
    assert r.error is None and r.reply and "offline model" in r.reply
    ks = kinds(rt)
    overflow = ks.index("system")
    flush, comp = ks.index("flush"), ks.index("compaction")
    assert overflow < flush < comp  # the overflow path flushed before compacting
    ev = rt.store.events(rt.session.session_id, kinds=("flush", "compaction"))
    assert ev[0].data["trigger"] == "compaction" and ev[0].data["status"] == "written"
    assert ev[1].data["reason"] == "overflow"
    # the retried request carried the summary and still ended with the user's question
    retry = [q for q in model.requests if q["kind"] == "turn"][-2]
    assert "Summary of the earlier conversation" in retry["messages"][0]["content"]
    assert retry["messages"][-1]["content"] == "trigger: what did I say about seats?"
    rt.close()


def test_overflow_gives_up_after_three_compactions(reverie_home):
    step = {"match": "trigger", "error": "overflow", "message": "context length exceeded"}
    mem, model, rt = make(script={"steps": {"turn": [step] * 4}})
    for i in range(8):
        rt.send(f"Turn {i}. {FILLER}")
    r = rt.send("trigger")
    assert r.error and "after 3 compactions" in r.error and "/new" in r.reply
    overflows = [e for e in rt.store.events(rt.session.session_id, kinds=("system",)) if e.data.get("event") == "overflow"]
    assert len(overflows) == 4
    assert len(rt.store.events(rt.session.session_id, kinds=("compaction",))) <= 3
    # one flush for the new message at most, not one per retry of the same turn
    flushes = rt.store.events(rt.session.session_id, kinds=("flush",))
    assert len([f for f in flushes if f.data["trigger"] == "compaction"]) <= 1
    rt.close()


def test_tool_call_and_result_are_never_split(reverie_home):
    mem, model, rt = make()
    sid = rt.session.session_id
    s = rt.store
    s.append_message(sid, "user", ChatMessage("user", "find the ticket"))
    s.append_message(sid, "tool_call", ChatMessage("assistant", "", [ToolCall("a", "memory_search", {"query": "x"}),
                                                                     ToolCall("b", "memory_get", {"path": "y"})]))
    s.append_message(sid, "tool_result", ChatMessage("tool", "R" * 4000, tool_call_id="a", name="memory_search"))
    s.append_message(sid, "tool_result", ChatMessage("tool", "S" * 40, tool_call_id="b", name="memory_get"))
    s.append_message(sid, "assistant", ChatMessage("assistant", "found it"))
    evs = s.events(sid)
    assert [len(u) for u in units(evs)] == [1, 3, 1]
    for keep in range(1, 2000, 37):  # wherever the token boundary falls
        older, kept = split_for_compaction(evs, keep)
        assert kept and kept[0].kind != "tool_result"
        assert older + kept == evs
    rt.close()


def test_failing_summariser_falls_back_to_labelled_extractive_summary(reverie_home):
    mem, model, rt = make(script={"steps": {"compaction": [{"error": "error", "message": "summariser down"}]}})
    model.offline = False
    for i in range(6):
        rt.send(f"We decided to take train G{i}. {FILLER}")
    rec = rt.compact("manual")
    assert rec["status"] == "compacted" and rec["summarizer"] == "extractive fallback"
    assert "summariser down" in rec["summarizerError"] and "extractive summary" in rec["summary"]
    assert "We decided to take train G0" in rec["summary"]
    rt.close()


def test_compact_instructions_reach_the_model_and_the_transcript_is_kept(reverie_home):
    mem, model, rt = make(script={"steps": {"compaction": [{"reply": "- The user chose train G7 (custom summary)."}]}})
    for i in range(6):
        rt.send(f"Turn {i} about train G{i}. {FILLER}")
    before = len(rt.store.events(rt.session.session_id))
    out = rt.send("/compact keep the train numbers")
    assert out.reply.startswith("Compacted:")
    req = [q for q in model.requests if q["kind"] == "compaction"][0]
    assert "Additional instructions from the user: keep the train numbers" in req["messages"][-1]["content"]
    assert "[user] Turn 0 about train G0." in req["messages"][-1]["content"]
    (comp,) = rt.store.events(rt.session.session_id, kinds=("compaction",))
    assert comp.data["summary"] == "- The user chose train G7 (custom summary)."
    assert comp.data["summarizer"].startswith("model:scripted") and comp.data["instructions"] == "keep the train numbers"
    # nothing was removed from the transcript: one command and one compaction (+ the flush) were added
    after = rt.store.events(rt.session.session_id)
    assert len(after) >= before + 2 and after[0].text.startswith("Turn 0 about train G0.")
    # a second compaction merges the first summary into the next one
    for i in range(6, 12):
        rt.send(f"Turn {i} about train G{i}. {FILLER}")
    rt.compact("manual")
    req2 = [q for q in model.requests if q["kind"] == "compaction"][-1]
    assert "<previous-summary>\n- The user chose train G7 (custom summary)." in req2["messages"][-1]["content"]
    rt.close()


def test_nothing_to_compact(reverie_home):
    mem, model, rt = make()
    r = rt.send("/compact")
    assert r.reply.startswith("Nothing to compact")
    rt.close()


def test_pruning_trims_old_tool_results_in_the_input_only(reverie_home):
    big = "\n".join(f"line {i}: " + "ticket details and seat maps " * 4 for i in range(600))
    sets = ['sessions.pruning.mode="cache-ttl"', "sessions.pruning.ttl=0", "compaction.enabled=false",
            "compaction.memoryFlush.enabled=false"]
    get = {"toolCalls": [{"name": "memory_get", "arguments": {"path": "memory/big.md"}}]}
    mem, model, rt = make(*sets, script={"steps": {"turn": [dict(get, match="read"), dict(get, match="again")]}},
                          window=16_000)
    (mem.workspace / "memory" / "big.md").write_text(big, encoding="utf-8")
    rt.send("read the big file")
    rt.send("read it again")
    for i in range(3):
        rt.send(f"small talk {i}")
    stored = [e.message.content for e in rt.store.events(rt.session.session_id, kinds=("tool_result",))
              if e.message.name == "memory_get"]
    assert len(stored) == 2 and all(len(c) > 10_000 for c in stored)
    last = [q for q in model.requests if q["kind"] == "turn"][-1]
    tool_msgs = [m["content"] for m in last["messages"] if m["role"] == "tool"
                 and m["content"].startswith('{"path": "memory/big.md", "from"')]
    assert len(tool_msgs) == 2 and all("[Tool result trimmed" in c and len(c) < 4_000 for c in tool_msgs)
    # the transcript is unchanged
    again = [e.message.content for e in rt.store.events(rt.session.session_id, kinds=("tool_result",))
             if e.message.name == "memory_get"]
    assert again == stored
    report = rt.context_report()
    assert report["input"]["pruning"]["soft_trimmed"] == 2
    rt.close()


def test_pruning_off_by_default_for_non_anthropic(reverie_home):
    mem, model, rt = make()
    assert rt.pruner.mode == "off"
    rt.close()
    from reverie.sessions import resolve_mode
    from reverie.config import PruningSettings

    assert resolve_mode(PruningSettings(), "anthropic") == ("cache-ttl", 3600.0)
    assert resolve_mode(PruningSettings(ttl="10m"), "anthropic") == ("cache-ttl", 600.0)
    assert resolve_mode(PruningSettings(mode="cache-ttl"), "openai") == ("cache-ttl", 300.0)


def test_hard_clear_when_still_over_half(reverie_home):
    from reverie.config import PruningSettings
    from reverie.sessions import Pruner

    p = Pruner(PruningSettings(mode="cache-ttl", minPrunableToolChars=1_000), "cache-ttl", 0)
    items = [(None, ChatMessage("user", "go"))]
    for i in range(6):
        items.append((i * 2 + 1, ChatMessage("assistant", "", [ToolCall(f"c{i}", "memory_get", {})])))
        items.append((i * 2 + 2, ChatMessage("tool", "x" * 3_000, tool_call_id=f"c{i}", name="memory_get")))
    items += [(100, ChatMessage("assistant", "a")), (101, ChatMessage("assistant", "b")),
              (102, ChatMessage("assistant", "c"))]
    out, stats = p.apply(items, window=5_000, now=1.0)
    assert stats.hard_cleared >= 1 and stats.ran
    cleared = [m for m in out if m.content == "[Old tool result content cleared]"]
    assert cleared and out[2].content == "[Old tool result content cleared]"  # oldest first
    assert json.dumps([m.content for _, m in items]).count("x" * 3_000) == 6  # inputs untouched
