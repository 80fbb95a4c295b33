"""The session note keeps what was said, not the framing around recalled memory (issue 29): an
assistant reply that quoted search hits is no longer cut after "…found:" with a stray
``2. ” [MEMORY.md#L4-L4]`` line below it, and a reply that is only model talk is left out."""

from __future__ import annotations

from bench_helpers import load_benchmark
from dreaming_helpers import open_mem

from reverie.sessions.hook import reply_text

pc = load_benchmark("promotion_conversations")


def test_reply_text_drops_quoted_hits_their_debris_and_the_line_that_introduced_them():
    reply = "Here is what I found:\n1. “The cabin has a wood stove.” [MEMORY.md#L4-L4]\n2. ” [MEMORY.md#L5-L5]\n" \
            "I'd pack firewood."
    assert reply_text(reply) == "I'd pack firewood."
    assert reply_text("Memory search for “cabin” found:\n2. ” [MEMORY.md#L4-L4]") == ""
    assert reply_text("我是离线模型（未配置语言模型），只能根据记忆回答。记忆搜索“杭州”找到：") == ""
    assert reply_text("Booked the table for eight.\nSee you there.") == "Booked the table for eight.\nSee you there."


def test_a_note_after_the_offline_model_quoted_memory_has_no_debris(reverie_home):
    mem = open_mem()
    pc.run_conversation(mem, pc.Conversation("first", [("Remember that the cabin at Lake Vessel has a wood stove.",
                                                        None)]), key="n1")
    mem.sync()
    pc.run_conversation(mem, pc.Conversation("second", [("What do you know about the cabin at Lake Vessel?", None),
                                                         ("I'll bring firewood then.", "Good idea: bring dry firewood.")]),
                        key="n2")
    notes = [p.read_text(encoding="utf-8") for p in (mem.workspace / "memory").glob("????-??-??-*.md")]
    second = next(n for n in notes if "Session Key**: agent:main:bench:n2" in n)
    said = second.split("## Conversation Summary", 1)[1]
    lines = [ln for ln in said.split("\n") if ln.strip()]
    assert lines == ["user: What do you know about the cabin at Lake Vessel?", "user: I'll bring firewood then.",
                     "assistant: Good idea: bring dry firewood."], lines
    assert "found:" not in second and "#L" not in said and "offline model" not in second
    mem.close()


def test_a_notes_metadata_is_no_candidate_for_dreaming(reverie_home):
    """The note's key, id and source say where a conversation came from: Dreaming reads the note's
    lines, not those three (before, each was a short-term entry of every session)."""
    mem = open_mem()
    pc.run_conversation(mem, pc.Conversation("cabin", [("Remember that the cabin at Lake Vessel has a wood stove.",
                                                        None)]), key="meta")
    (note,) = [p for p in (mem.workspace / "memory").glob("????-??-??-*.md")]
    assert "**Session ID**" in note.read_text(encoding="utf-8")  # (written, as ever)
    sweep = mem.dream().as_dict()
    snippets = [i["snippet"] for i in sweep["phases"]["light"]["items"]]
    assert any("wood stove" in s for s in snippets), snippets
    assert not any("Session" in s or "Source" in s for s in snippets), snippets
    mem.close()
