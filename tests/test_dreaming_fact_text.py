"""What Dreaming writes reads as a fact in the owner's words (issue 29, item 1).

A promoted entry carries no role prefix, no transcript framing (citations, numbering, quotes), no
model talk; the offline model's replies and any model's refusals never become candidates at all.
The conversations go through the sidecar with the offline model answering, and Dreaming runs for
real on the notes they leave.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from bench_helpers import load_benchmark
from dreaming_helpers import memory_text, open_mem

from reverie.dreaming.facttext import fact_text
from reverie.dreaming.heartbeat import review
from reverie.text.boilerplate import model_talk, strip_framing

pc = load_benchmark("promotion_conversations")
ROLE = re.compile(r"(?:^|\s)(?:user|assistant|用户|助手)\s*[:：]", re.I)


def test_a_snippet_becomes_the_owners_fact():
    assert fact_text("user: Remember that the cabin key hangs behind the boathouse door.") == \
        "The cabin key hangs behind the boathouse door."
    assert fact_text("user: 记住：我们决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。") == \
        "我们决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。"
    assert fact_text("用户：对了，女儿每周六上午上钢琴课。") == "女儿每周六上午上钢琴课。"
    assert fact_text("1. “user: By the way, I'm allergic to shellfish.” [memory/2026-06-01-0900.md#L9-L9]") == \
        "I'm allergic to shellfish."
    # several messages run together: the owner's fact stays, the model's talk and the question go
    glued = ("user: Remember that the cabin has a wood stove. assistant: Nothing was saved: memory cannot be "
             "written. user: What do you know about the cabin? assistant: I am the offline model (no language "
             "model is configured), so I answer only from memory.")
    assert fact_text(glued) == "The cabin has a wood stove."
    # a daily-note entry the owner wrote is left as written
    assert fact_text("Bought milk and bread.") == "Bought milk and bread."


def test_model_talk_questions_and_chit_chat_are_never_candidates():
    for talk in ["assistant: 我是离线模型（未配置语言模型），只能根据记忆回答。我查了记忆中关于“杭州”的内容，没有找到匹配的记录。",
                 "assistant: I am the offline model (no language model is configured), so I answer only from memory.",
                 "assistant: Memory search for “gym” found:", "assistant: I'm sorry, but I can't help with that request.",
                 "assistant: As an AI language model, I don't have personal opinions.",
                 "assistant: I don't have access to your calendar or email.", "assistant: 抱歉，我无法帮您完成这个请求。",
                 "assistant: 作为一个人工智能语言模型，我没有访问外部系统的权限。", "assistant: Great! Anything else?",
                 "user: What do you know about the cabin?", "user: 杭州那次住哪里来着？", "user: Just tired, long week.",
                 "user: 今天好累啊", "user: lol yeah", "2. ” [MEMORY.md#L4-L4]",
                 # a tool's JSON echoed into a reply (seen through OpenClaw): data, never a fact
                 'assistant: Found: { "results": [ { "path": "memory/2026-12-02.md", "startLine": 1, "score": 0.22, '
                 '"snippet": "The cabin\'s boat is called Saltwater Dream." } ] }']:
        assert fact_text(talk) is None, talk
    assert fact_text('user: Our boat is named "Dreamy": my daughter chose it.') is not None  # one quoted word is speech
    assert model_talk("I'm sorry, but I can't do that.") and not model_talk("I'm sorry I missed the dentist.")
    assert strip_framing("2. “The cabin has a stove.” [MEMORY.md#L4-L4]") == "The cabin has a stove."


def _life(mem, conversations):
    for i, conv in enumerate(conversations):
        out = pc.run_conversation(mem, conv, key=f"t{i}")
        assert out["notes"] and out["notes"][0]["status"] == "written", out
    mem.sync()
    now = datetime.now(timezone.utc).replace(hour=6, minute=0, second=0, microsecond=0)
    for d in range(1, 5):
        for conv in conversations:
            for q in conv.later:
                mem.search(q, now=now + timedelta(days=d))
    mem._signals.flush()
    return now


def test_conversations_through_the_sidecar_promote_clean_facts_only(reverie_home):
    mem = open_mem("memory.dreaming.phases.deep.limit=20")
    by_name = {c.name: c for c in pc.ALL}
    convs = [by_name[n] for n in ("cabin", "hotel-zh", "allergy", "piano-zh", "chitchat", "chitchat-zh", "atlas")]
    now = _life(mem, convs)
    out = mem.dream(now=now + timedelta(days=5)).as_dict()
    phases = out["phases"]
    staged = [i["snippet"] for i in phases["light"]["items"]] + [i["snippet"] for i in phases["rem"]["items"]]
    assert staged
    for s in staged:  # the light phase never stages the offline model's replies or a refusal
        assert not ROLE.search(s) and "离线模型" not in s and "offline model" not in s and not model_talk(s), s
    deep = phases["deep"]
    held = [h["reason"] for h in deep.get("heldBack") or []]
    assert not any("no longer in the file" in r for r in held), held
    text = memory_text(mem)
    entries = [ln for ln in text.split("\n") if ln.startswith("- ")]
    assert len(entries) >= 4, text
    for line in entries:
        body = line[2:].split(" Source: ")[0]
        assert not ROLE.search(body) and "[" not in body and "“" not in body and not model_talk(body), line
        assert not re.match(r"^(?:Remember|Note|记住|By the way)", body), line
    assert "- The cabin at Lake Vessel has a wood stove and no mains power. Source:" in text
    assert "- 我们决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。 Source:" in text
    assert "- I'm allergic to shellfish, so never suggest prawn dishes. Source:" in text
    for chat in ("tired", "好累", "天气", "poem", "can't help", "无法", "人工智能"):
        assert chat not in text, chat
    mem.close()


def test_the_heartbeat_review_offers_and_writes_facts_without_their_framing(reverie_home):
    mem = open_mem()
    conv = pc.Conversation("key", [
        ("Remember that the boathouse key hangs behind the Lakeside Rowing Club door.", None),
        ("Where is the boathouse key?", None),
        ("Can you book me a taxi?", "I'm sorry, but I can't help with that request."),
    ])
    pc.run_conversation(mem, conv, key="hb")
    note = next(p for p in (mem.workspace / "memory").glob("????-??-??-*.md"))
    said = note.read_text(encoding="utf-8")
    assert "user: Remember that the boathouse key hangs behind the Lakeside Rowing Club door." in said
    assert "I'm sorry" not in said  # a refusal is not kept in the note either
    out = review(mem, now=datetime.now(timezone.utc) + timedelta(hours=1), force=True)
    assert out["proposed"] >= 1, out
    promoted = [p["snippet"] for p in out["deep"]["promoted"]]
    assert "The boathouse key hangs behind the Lakeside Rowing Club door." in promoted, out
    text = memory_text(mem)
    assert "user:" not in text and "Remember that" not in text and "Where is" not in text
    assert "<!-- trigger: lakeside rowing, boathouse key -->" in text, text  # no "hangs behind"
    mem.close()
