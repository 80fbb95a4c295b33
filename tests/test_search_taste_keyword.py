"""Tastes without vectors (search/taste.py, text/topics.py): keyword-only, a request for advice shows
the owner's stated tastes on the topics it names, and only those. Real SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie.search import taste
from reverie.text.topics import LEISURE, topics_of

from workspace_helpers import result_paths

engines = pytest.mark.usefixtures("store_backend")

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)
EN = {
    "memory/2026-05-04.md": "- I hate crowded beaches, I prefer quiet mountain villages.\n",
    "memory/2026-05-06.md": "- I'm vegetarian and I really love spicy Sichuan food.\n",
    "memory/2026-05-08.md": "- I love history podcasts, especially anything about ancient Rome.\n",
    "memory/2026-05-10.md": "- The summer rota at work is out, I have the first week off.\n",
    "memory/2026-05-12.md": "- My sister's birthday is in March.\n",
}
ZH = {
    "memory/2026-05-14.md": "- 我讨厌人多的海滩，更喜欢安静的山村。\n",
    "memory/2026-05-16.md": "- 我一直喜欢动手做东西，比如木工和陶艺。\n",
    "memory/2026-05-18.md": "- 今年夏天公司放假的安排出来了。\n",
}


def paths(m, query: str, **kw) -> list[str]:
    return result_paths(m, query, NOW, **kw)


def test_a_taste_on_the_topic_crosses_languages(keyword_memory):
    # the topic, not the words: an English request finds the Chinese taste on its topic
    got = paths(keyword_memory(ZH), "What kind of holiday should I book this summer?")
    assert got == ["memory/2026-05-14.md"]


def test_the_topics_a_request_and_a_taste_name():
    assert topics_of("What kind of holiday should I book this summer?") == {"travel"}
    assert topics_of("I hate crowded beaches, I prefer quiet mountain villages.") == {"travel"}
    assert topics_of("Any ideas for a restaurant for my birthday dinner?") == {"food"}
    assert topics_of("我吃素，而且特别爱吃麻辣的川菜。") == {"food"}
    assert topics_of("今年夏天我该订什么样的假期？") == {"travel"}
    # "book" as a verb is no book; a book asked for is
    assert "reading" not in topics_of("Should I book a table for Friday?")
    assert "reading" not in topics_of("Can you help me book a table for dinner?")
    assert "reading" in topics_of("Can you recommend a good book?")
    # a word inside another word of another sense: 花钱 (spend money) is no flower, 酒店 (hotel) no drink
    assert "home" not in topics_of("我不喜欢乱花钱。")
    assert topics_of("我喜欢住安静的酒店。") == {"travel"}
    # a pastime asked for: any leisure topic answers it
    assert topics_of("能推荐一个冬天的新爱好吗？") == LEISURE
    assert topics_of("I love my job.") == frozenset()
    # words that hold another: "latter" is no latte, "campaigns" no camp, 热狗 (hot dog) no dog,
    # 夜猫子 (night owl) no cat, 吃力 (strenuous) no eating, "of course" no class, 证书 (a
    # certificate) no book, 单身狗 (a single person) no dog, 熊猫 (a panda) no pet, 恶作剧 (a prank) no drama
    for other in ("I prefer the latter option for the schema.", "I love our email campaigns.", "我喜欢热狗。",
                  "我是个夜猫子。", "我不喜欢吃力的活。", "Of course I prefer it.", "我想考个证书。", "我是单身狗。",
                  "我喜欢熊猫。", "我更喜欢恶作剧。"):
        assert topics_of(other) == frozenset(), other


@engines
@pytest.mark.parametrize("query, answer, not_shown", [
    ("What kind of holiday should I book this summer?", "memory/2026-05-04.md", "memory/2026-05-06.md"),
    ("Any ideas for a restaurant for my birthday dinner?", "memory/2026-05-06.md", "memory/2026-05-04.md"),
    ("今年夏天我该订什么样的假期？", "memory/2026-05-14.md", "memory/2026-05-16.md"),
    ("能推荐一个冬天的新爱好吗？", "memory/2026-05-16.md", "memory/2026-05-14.md"),
])
def test_a_request_for_advice_shows_the_tastes_on_its_topic_first(keyword_memory, query, answer, not_shown):
    m = keyword_memory(EN if query.isascii() else ZH)
    got = paths(m, query)
    assert got and got[0] == answer, got
    assert not_shown not in got  # a taste on another topic, sharing no word, is not brought
    # the lines sharing a word ("summer", "birthday", 夏天, 冬天) are still there, below
    out = m.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)
    first = out["results"][0]["explain"]["taste"]
    assert first["onTopic"] is True and first["weight"] == taste.TOPIC_WEIGHT and first["topics"]


@engines
def test_without_a_topic_or_without_advice_nothing_changes(keyword_memory):
    m = keyword_memory(EN)
    # advice on nothing the lexicon knows: no taste leg, the words alone
    assert paths(m, "Any advice on my sister's birthday?") == ["memory/2026-05-12.md"]
    # not a request for advice: the stated taste of the topic is not brought
    assert "memory/2026-05-04.md" not in paths(m, "When is the summer rota?")
    # a question about advice given before is no request for a new one (the tastes stay out)
    assert "memory/2026-05-06.md" not in paths(m, "Which restaurant did you recommend for dinner?")


@engines
def test_a_taste_on_no_topic_of_the_request_is_not_shown(keyword_memory):
    m = keyword_memory({"memory/2026-05-06.md": "- I prefer the latter option for the database schema.\n",
                        "memory/2026-05-08.md": "- I love our email campaigns, they work.\n"})
    assert paths(m, "What should I cook for dinner tonight? Any recipe ideas?") == []
    assert paths(m, "Can you recommend a holiday destination?") == []


@engines
def test_a_taste_on_the_topic_is_evidence_for_the_no_memory_floor(keyword_memory):
    m = keyword_memory({"memory/2026-05-06.md": EN["memory/2026-05-06.md"],
                        "memory/2026-05-12.md": EN["memory/2026-05-12.md"]},
                       overrides=("memory.search.query.noMemoryFloor=true",))
    assert paths(m, "Can you suggest a place to eat tonight?") == ["memory/2026-05-06.md"]
    assert paths(m, "Can you suggest a podcast?") == []  # no taste on that topic: no memory of it
