"""Offline Active Memory answers natural questions about earlier conversations with what the owner
said there — not with the assistant's reply in that conversation (the offline model's own "I
checked memory for ..." above all), and nothing for a question memory cannot answer."""

from __future__ import annotations

import json
import re

import pytest

from reverie import Memory

ACROSS = ["memory.activeMemory.enabled=true", "memory.activeMemory.mode=always", 'memory.activeMemory.model="offline"',
          "memory.activeMemory.rememberAcrossConversations=true"]
SAID = ["My sister's dog is called Biscuit and he is a beagle.", "I started learning the cello in September.",
        "我女儿的学校在西湖区，叫做求是小学。", "We moved the team offsite to the lake house on Friday.",
        "My dentist appointment is on the 14th at Dr. Alvarez."]


@pytest.fixture
def mem(reverie_home):
    m = Memory(overrides=ACROSS)
    m.init()
    rt = m.runtime("offline", session="agent:main:earlier")
    for line in SAID:  # the offline model answers each with its own framing ("I checked memory ...")
        rt.send(line)
    rt.close()
    yield m
    m.close()


def recalled(mem: Memory, question: str, key: str) -> str | None:
    rt = mem.runtime("offline", session=f"agent:main:{key}")
    try:
        rt.send(question)
        system = " ".join(m.content for m in rt.last_input.messages if m.role == "system")
    finally:
        rt.close()
    found = re.search(r"<active_memory_plugin>(.*?)</active_memory_plugin>", system, re.S)
    return found.group(1).strip() if found else None


@pytest.mark.parametrize("question, words", [
    ("Do you remember what my sister's dog is called?", "Biscuit and he is a beagle"),
    ("What instrument did I start learning?", "learning the cello"),
    ("你还记得我女儿的学校叫什么吗？", "叫做求是小学"),
    ("我女儿在哪个学校上学？", "求是小学"),
    ("Where was the team offsite?", "to the lake house"),
    ("When is my dentist appointment?", "on the 14th at Dr. Alvarez"),
])
def test_a_natural_question_recalls_what_the_owner_said(mem, question, words):
    got = recalled(mem, question, "q")
    assert got is not None and words in got, got
    assert "checked memory" not in got and "离线模型" not in got  # never the assistant's old reply


@pytest.mark.parametrize("question", ["What's the capital of Peru?", "Do you remember the weather in Oslo?",
                                      "你还记得那部电影的导演吗？"])
def test_a_question_memory_cannot_answer_recalls_nothing(mem, question):
    assert recalled(mem, question, "unrelated") is None


def test_a_fact_a_later_one_updates_is_not_what_is_recalled():
    """Notes and conversation messages merged by score can put an older note above the later one that
    updates it (search ordered the notes newest first and marked the older one ``supersededBy``; a
    promoted entry Dreaming marked carries ``status: superseded``): the offline pass takes the newest
    value (the update itself when it is among the hits, whatever its score), and a superseded fact
    only when nothing else clears the bar."""
    from reverie.models.base import ChatMessage, ToolCall
    from reverie.models.offline import ACTIVE_MEMORY_SYSTEM_PREFIX, RECALL_LATEST_LABEL, OfflineModel

    def answer(results: list[dict]) -> str:
        messages = [ChatMessage("system", ACTIVE_MEMORY_SYSTEM_PREFIX + " Prompt style: balanced"),
                    ChatMessage("user", f"{RECALL_LATEST_LABEL} Do you remember where my yoga class is now?"),
                    ChatMessage("assistant", "", tool_calls=[ToolCall("c1", "memory_search", {"query": "yoga class"})]),
                    ChatMessage("tool", json.dumps({"results": results}), tool_call_id="c1", name="memory_search")]
        return OfflineModel().complete(messages).message.content

    old = {"path": "memory/2026-10-12.md", "score": 0.82, "snippet": "- My yoga class is at the Riverside studio.",
           "supersededBy": "memory/2026-10-24.md#L3"}
    entry = {"path": "MEMORY.md", "score": 0.8, "status": "superseded",
             "snippet": "- My yoga class is at the Riverside studio. Source: memory/2026-10-12.md#L3-L3"}
    new = {"path": "memory/2026-10-24.md", "score": 0.7, "snippet": "- Yoga moved to the Hilltop studio from next week."}
    assert "Hilltop" in answer([old, entry, new])
    # the update found beside it answers even below the bar; one not among the hits leaves the history
    assert "Hilltop" in answer([old, {**new, "score": 0.1, "citation": "memory/2026-10-24.md#L3"}])
    assert "Riverside" in answer([old, {**new, "score": 0.1}])
    # an update said in the other language shares no word with the question: what it updates did
    zh = {"path": "memory/2026-10-24.md", "score": 0.5, "citation": "memory/2026-10-24.md#L3",
          "snippet": "user: 瑜伽课搬到山顶那家馆了，下周开始。"}
    assert "山顶" in answer([old, zh])
    assert answer([zh]) == "NONE"  # (alone, a line sharing no word with the question recalls nothing)


def test_what_the_owner_said_later_in_another_conversation_is_what_is_recalled(reverie_home):
    """Messages of earlier conversations carry the time they were said (a conversation on a clock of
    its own, as a host replaying its history, is recorded at that clock's time), and the later
    statement that updates an earlier one is recalled, not the earlier one that matches the words
    of the question better."""
    from datetime import datetime, timezone

    m = Memory(overrides=ACROSS)
    m.init()
    try:
        for day, line in ((12, "Remember that my yoga class is at the Riverside studio."),
                          (24, "Yoga moved to the Hilltop studio from next week.")):
            when = datetime(2026, 10, day, 9, tzinfo=timezone.utc)
            rt = m.runtime("offline", session=f"agent:main:day-{day}", clock=lambda w=when: w)
            rt.send(line)
            said = [e for e in rt.store.events(rt.session.session_id) if e.kind == "user"]
            rt.close()
            assert said and said[0].data["timestamp"].startswith(f"2026-10-{day}T")  # the conversation's time
        got = recalled(m, "Do you remember where my yoga class is?", "yoga")
    finally:
        m.close()
    assert got is not None and "Hilltop" in got, got


@pytest.mark.parametrize("question, asked", [
    ("你还记得我们在杭州最后订的是哪家酒店吗？", "我们在杭州最后订的是哪家酒店"),  # 我们 kept whole (it was "们在杭州…")
    ("你还记得我说过的牙医是谁吗？", "的牙医是谁"),
    ("Do you remember what my sister's dog is called?", "my sister's dog is called"),
])
def test_the_pass_searches_what_is_asked_without_the_asking(question, asked):
    from reverie.models.offline import _without_recall_framing

    assert _without_recall_framing(question) == asked


def test_a_which_question_takes_the_near_tie_that_names_what_it_asks_for():
    """"…哪家酒店": of two hits about as relevant, the one naming a hotel answers "which hotel" (the
    month's last miss: the move to Hangzhou ranked 0.007 above the hotel's note). Not when the other
    is clearly less relevant, nor a superseded one, nor when the first names a member of the asked
    kind ("What instrument…": the cello)."""
    from reverie.models.offline import _by_focus
    from reverie.text.focus import focus_of as _focus

    city = {"snippet": "user: 我们搬家了，现在住在杭州西湖区。", "score": 0.529}
    hotel = {"snippet": "user: 记住：我们决定住西湖边的湖滨酒店，没有订湖景房。", "score": 0.522}
    focus = _focus("我们在杭州最后订的是哪家酒店")
    assert focus == "酒店" and _by_focus([city, hotel], focus) == [hotel, city]
    assert _by_focus([city, {**hotel, "score": 0.49}], focus)[0] is city
    assert _by_focus([city, {**hotel, "supersededBy": "memory/x.md#L1"}], focus)[0] is city
    cello = {"snippet": "I started learning the cello in September.", "score": 0.61}
    shop = {"snippet": "The instrument shop on Elm Street closes at six.", "score": 0.60}
    assert _by_focus([cello, shop], _focus("What instrument did I start learning?")) == [cello, shop]
    # a hit naming the thing in general is no answer to "which": the city a line only mentions
    berlin = {"snippet": "We moved: we live in Berlin now.", "score": 0.60}
    munich = {"snippet": "The city of Munich is lovely in spring.", "score": 0.59}
    assert _by_focus([berlin, munich], _focus("Which city do we live in?")) == [berlin, munich]
    assert _focus("什么时候去看牙？") is None and _focus("What is my phone number?") is None
