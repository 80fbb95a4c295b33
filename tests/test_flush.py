"""The pre-compaction memory flush (reference §14): when it runs, that it appends only to today's
note, that MEMORY.md cannot be written by construction (field failure 5, openclaw #6877), and that
every status (written, nothing, skipped and why) is recorded and shown in /context detail."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory
from reverie.models.scripted import ScriptedModel

from chat_helpers import roomy_window

DECISIONS = [
    "We decided to book the Lakeside Hotel in Hangzhou for the weekend trip.",
    "I prefer window seats on the high-speed train, always.",
    "我们决定周六早上九点出发，预算每晚八百元。",
    "Remember that the return ticket is not confirmed yet.",
    "My daughter's birthday is on 2026-09-14, need to buy a gift.",
]
FILLER = ("Let us keep talking about the plan and all the small details of the itinerary, the museums, the tea "
          "houses, the lake walks and the food stalls near the old street. ")


def make(reverie_home, *sets: str, script: dict | None = None, window: int | None = None):
    mem = Memory(overrides=['memory.search.provider="none"', *sets])
    mem.init()
    model = ScriptedModel(script=script or {})
    return mem, model, mem.runtime(model, context_window=window or roomy_window(mem, model))


def today_note(mem) -> str:
    p = mem.workspace / "memory" / f"{datetime.now(timezone.utc).date().isoformat()}.md"
    return p.read_text(encoding="utf-8") if p.exists() else ""


def events(rt, kind):
    return rt.store.events(rt.session.session_id, kinds=(kind,))


def test_long_conversation_flushes_then_compacts_into_summary_plus_recent(reverie_home):
    mem, model, rt = make(reverie_home)
    flush_turn = compaction_turn = None
    for i in range(40):
        text = (DECISIONS[i] if i < len(DECISIONS) else f"Turn {i}.") + " " + FILLER * 3
        r = rt.send(text)
        assert r.reply and ("offline model" in r.reply or "离线模型" in r.reply)
        if r.flush and flush_turn is None:
            flush_turn = i
        if r.compactions and compaction_turn is None:
            compaction_turn = i
            break
    assert flush_turn is not None and compaction_turn is not None and flush_turn < compaction_turn
    # the flush appended the decisions to today's note, through the one tool it was offered
    note = today_note(mem)
    for d in ("We decided to book the Lakeside Hotel in Hangzhou for the weekend trip.",
              "我们决定周六早上九点出发，预算每晚八百元。"):
        assert d in note
    # saved by the flush or by the turn's own memory_append, whichever came first; once recalled by
    # a search, the flush would not save it again (tests/test_trust_recall.py)
    assert "the return ticket is not confirmed yet." in note
    flush_requests = [r for r in model.requests if r["kind"] == "flush"]
    assert flush_requests and all(r["tools"] == ["memory_append"] for r in flush_requests)
    assert "memory/" in flush_requests[0]["messages"][-1]["content"] and "NO_REPLY" in flush_requests[0]["messages"][-1]["content"]
    flushes = events(rt, "flush")
    assert flushes[0].data["status"] == "written" and flushes[0].data["trigger"] == "tokens"
    (comp,) = events(rt, "compaction")
    assert comp.data["reason"] == "threshold" and comp.position > flushes[-1].position
    # nothing said between the last flush and the compaction went unflushed
    said = [e.position for e in events(rt, "user")]
    assert not [p for p in said if flushes[-1].position < p < comp.position]
    assert comp.data["tokensAfter"] < comp.data["tokensBefore"] <= rt.window
    assert rt.session.compaction_count == 1 and not rt.session.flushed_this_cycle
    # the next input is: summary (in the system prompt) + the kept recent messages + the new turn
    n = len(model.requests)
    rt.send("What did we decide about the hotel?")
    nxt = next(r for r in model.requests[n:] if r["kind"] == "turn")
    system = nxt["messages"][0]["content"]
    assert "Summary of the earlier conversation" in system and comp.data["summary"] in system
    assert "Lakeside Hotel" in comp.data["summary"]  # the extractive summary kept the decision
    first_kept = rt.store.events(rt.session.session_id, from_position=comp.data["firstKeptPosition"], limit=1)[0]
    assert nxt["messages"][1]["content"] == first_kept.message.content
    sent = [m["content"] for m in nxt["messages"][1:]]
    # the oldest turn went into the summary (kept offline replies may quote the flushed note: not a turn)
    assert not any(DECISIONS[0] in m["content"] for m in nxt["messages"][1:] if m["role"] == "user")
    assert sent[-1] == "What did we decide about the hotel?"
    # and the full transcript is still there
    users = [e.text for e in rt.store.events(rt.session.session_id, kinds=("user",))]
    assert users[0].startswith(DECISIONS[0])
    rt.close()


def test_flush_model_cannot_write_memory_md(reverie_home):
    script = {"steps": {"flush": [{"toolCalls": [
        {"name": "write_file", "arguments": {"path": "MEMORY.md", "content": "# wiped"}},
        {"name": "memory_write", "arguments": {"path": "USER.md", "text": "overwritten"}},
        {"name": "memory_append", "arguments": {"text": "Decided: Lakeside Hotel, two nights."}}]}]}}
    mem, model, rt = make(reverie_home, script=script)
    (mem.workspace / "USER.md").write_text("# User\n- likes tea\n", encoding="utf-8")
    before = {n: (mem.workspace / n).read_bytes() for n in ("MEMORY.md", "USER.md")}
    rt.send("We decided on the Lakeside Hotel.")
    fr = rt.flush("manual")
    assert [r["name"] for r in fr.refused] == ["write_file", "memory_write"]
    assert fr.status == "written" and fr.appended == ["Decided: Lakeside Hotel, two nights."]
    assert "refused tool call(s): memory_write, write_file" in fr.reason
    assert {n: (mem.workspace / n).read_bytes() for n in before} == before
    req = [r for r in model.requests if r["kind"] == "flush"][0]
    assert req["tools"] == ["memory_append"]
    (ev,) = events(rt, "flush")
    assert [r["name"] for r in ev.data["refused"]] == ["write_file", "memory_write"]
    tool_msgs = [x for x in ev.data["exchange"] if x["role"] == "tool"]
    assert '"refused": true' in tool_msgs[0]["content"] and "not available in the flush turn" in tool_msgs[0]["content"]
    assert "Decided: Lakeside Hotel, two nights." in today_note(mem)
    rt.close()


def test_read_only_workspace_skips_flush_and_compaction_goes_on(reverie_home):
    mem, model, rt = make(reverie_home, 'sessions.workspaceAccess="ro"')
    for i in range(6):
        rt.send(f"{DECISIONS[i % 5]} {FILLER}")
    assert "memory_append" not in {t.name for t in rt.tools()}
    rec = rt.compact("manual")
    assert rec["status"] == "compacted"
    (ev,) = events(rt, "flush")
    assert ev.data["status"] == "skipped" and "read-only" in ev.data["reason"]
    assert not [r for r in model.requests if r["kind"] == "flush"]  # no model call at all
    assert today_note(mem) == ""
    rt.close()


@pytest.mark.parametrize("step,why", [({"error": "error", "message": "upstream 500"}, "model error"),
                                      ({"sleep": 5, "reply": "too late"}, "timeout"),
                                      # a model that ignores its timeout is cut off by the runtime's deadline
                                      ({"sleep": 1, "ignoreTimeout": True, "toolCalls": [
                                          {"name": "memory_append", "arguments": {"text": "late note"}}]}, "timeout")])
def test_model_error_or_timeout_skips_flush_and_compaction_goes_on(reverie_home, step, why):
    mem, model, rt = make(reverie_home, "compaction.memoryFlush.timeoutSeconds=0.3", script={"steps": {"flush": [step]}})
    for i in range(4):  # stays below the flush threshold (see roomy_window)
        rt.send(f"{DECISIONS[i % 5]} {FILLER}")
    rec = rt.compact("manual")
    assert rec["status"] == "compacted"
    (ev,) = events(rt, "flush")
    assert ev.data["status"] == "skipped" and ev.data["reason"].startswith(why)
    assert ev.data["trigger"] == "compaction"
    assert events(rt, "compaction")[0].position > ev.position
    if step.get("ignoreTimeout"):
        import time

        time.sleep(1.2)  # the abandoned call wakes up and tries to append: refused, the flush has ended
    assert "late note" not in today_note(mem)
    rt.close()


def test_every_flush_status_shows_in_context_detail(reverie_home):
    script = {"steps": {"flush": [{"reply": "NO_REPLY"}, {"error": "error", "message": "boom"}]}}
    mem, model, rt = make(reverie_home, script=script)
    rt.send("I prefer green tea in the morning.")
    assert not events(rt, "flush")  # far below the threshold
    assert rt.flush("manual").status == "nothing"  # the scripted NO_REPLY
    assert rt.flush("manual").status == "skipped"  # the scripted failure
    assert rt.flush("manual").status == "written"  # the offline model's extraction
    statuses = [e.data["status"] for e in events(rt, "flush")]
    assert statuses == ["nothing", "skipped", "written"]
    out = rt.send("/context detail")
    assert out.command == "context"
    text = out.reply
    assert "nothing to save (NO_REPLY)" in text and "skipped: model error" in text and "written: 1 note(s)" in text
    assert [f["status"] for f in out.data["flushes"]] == statuses
    rt.close()


def test_flush_runs_once_per_compaction_cycle_and_does_not_duplicate(reverie_home):
    mem, model, rt = make(reverie_home, window=8_000)
    for i in range(3):
        rt.send(f"{DECISIONS[0]} turn {i}")
    assert len(events(rt, "flush")) == 1  # over the threshold on every turn, but one flush a cycle
    rt.compact("manual")  # messages came after that flush: compaction flushes them first
    assert [f.data["trigger"] for f in events(rt, "flush")] == ["tokens", "compaction"]
    rt.compact("manual")  # nothing said since: no second flush for the same messages
    assert len(events(rt, "flush")) == 2
    rt.send(DECISIONS[0])  # a new cycle: flush again, but the same words are not appended twice
    flushes = events(rt, "flush")
    assert len(flushes) == 3
    assert today_note(mem).count("We decided to book the Lakeside Hotel") == 1
    assert flushes[1].data["duplicates"] >= 1 and flushes[2].data["duplicates"] >= 1
    assert "already in today's note" in flushes[2].data["reason"]
    rt.close()


def test_transcript_bytes_force_a_flush(reverie_home):
    mem, model, rt = make(reverie_home, "compaction.memoryFlush.forceFlushTranscriptBytes=4kb", window=200_000)
    rt.send(DECISIONS[1])
    assert not events(rt, "flush")
    r = rt.send(DECISIONS[0] + " " + FILLER * 25)  # recorded before the check: the transcript passes 4 KiB
    assert r.flush and r.flush["trigger"] == "bytes" and r.flush["status"] == "written"
    rt.close()


def test_flush_disabled(reverie_home):
    mem, model, rt = make(reverie_home, "compaction.memoryFlush.enabled=false", window=8_000)
    rt.send(DECISIONS[0] + FILLER * 5)
    rt.compact("manual")
    assert not events(rt, "flush") and not [r for r in model.requests if r["kind"] == "flush"]
    rt.close()
