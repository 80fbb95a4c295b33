"""Loose matching (search/loose.py) and the days asked read without vectors (search/days_asked.py):
a question that gathers many notes' answers finds the lines that say them in other words, by the
question's characters, and a keyword-only question that says when reads the notes of those days.
Real SQLite and PostgreSQL, keyword-only: the keyword index is all these tests ask of."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie.search import days_asked, loose


# each test with a memory runs on both engines (each runs the two legs' queries)
from workspace_helpers import result_paths

engines = pytest.mark.usefixtures("store_backend")

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)  # a Wednesday


def test_the_loose_terms_are_meaningful_han_characters_and_latin_stems():
    assert loose.terms("我一共去游了几次泳？") >= {"游", "泳"}
    assert not loose.terms("我一共去游了几次泳？") & set("我去了几次")  # pronouns, particles, the asking
    assert loose.leg_words(loose.terms("我去哪里爬山了？")) == "山 爬"  # (the search asks with the time words taken out)
    assert loose.leg_words(loose.terms("東京の旅行はいつ？")) == "京 旅 東 行"  # kanji only: kana are syllables
    assert loose.leg_words(loose.terms("Where did I go hiking?")) == ""  # Latin words ask the index for nothing more
    assert "hik" in loose.terms("Where did I go hiking?")
    assert loose.share("今天去爬了香山。", loose.terms("我去哪里爬山了？")) == 1.0
    assert loose.share("今天下雨了。", loose.terms("我去哪里爬山了？")) == 0.0
    assert loose.share("anything", frozenset()) == 0.0


def paths(m, query: str, **kw) -> list[str]:
    return result_paths(m, query, NOW, **kw)


SWIMS = {
    "memory/2026-05-04.md": "- 今晚在泳池游了二十个来回，肩膀很酸。\n- 下午开了一个很长的会。\n",
    "memory/2026-05-12.md": "- 去游泳馆游了一千米。\n- 超市的燕麦奶又卖完了。\n",
    "memory/2026-05-20.md": "- 周末又去泳池游个痛快，水有点凉。\n",
    "memory/2026-05-25.md": "- 我想学做新菜。\n- 邻居吵到半夜。\n",
    "memory/2026-05-28.md": "- 下了一整天雨，我就待在家里。\n",
}


@engines
def test_a_count_in_chinese_finds_the_times_said_in_other_words(monkeypatch, keyword_memory):
    m = keyword_memory(SWIMS)
    got = paths(m, "我一共去游了几次泳？")
    swims = {"memory/2026-05-04.md", "memory/2026-05-12.md", "memory/2026-05-20.md"}
    assert set(got[:3]) == swims
    assert set(got) == swims  # "下了一整天雨" holds none of 游, 泳 (一共 and 几次 are the question's frame)
    # "我一共去游过几次？": of its words only 去游 is in one swim; its character 游 is in all three
    asked = "我一共去游过几次？"
    assert set(paths(m, asked)[:3]) == swims
    monkeypatch.setattr(loose, "MAX_UNITS", 3)  # a memory too large for the leg: the words alone miss one
    assert not swims <= set(paths(m, asked))
    monkeypatch.setattr(loose, "MAX_UNITS", 20_000)
    monkeypatch.setattr(loose, "LEG_LIMIT", 0)  # the same without the leg's units
    assert not swims <= set(paths(m, asked))


@engines
def test_a_plain_lookup_does_not_ask_for_characters(keyword_memory):
    m = keyword_memory(SWIMS)
    out = m.search("游泳馆在哪里", 10, 0.0, now=NOW, record_signals=False, explain=True)
    assert out["results"] and all("loose" not in r["explain"] for r in out["results"])
    counted = m.search("我一共去游了几次泳？", 10, 0.0, now=NOW, record_signals=False, explain=True)
    by_path = {r["path"]: r["explain"]["loose"] for r in counted["results"]}
    assert by_path["memory/2026-05-20.md"]["share"] > 0 and by_path["memory/2026-05-20.md"]["weight"] == 0.4


HIKES = {
    "memory/2026-02-10.md": "- 为了修业余项目里的一个错误花了好几个小时。\n- 今天去爬了香山，风景太美了。\n",
    "memory/2026-02-20.md": "- 我在考虑春天骑车上班。\n",
    "memory/2026-04-11.md": "- 周末去爬了鹰嘴峰。\n",
    "memory/2026-05-27.md": "- Watched the film Red Lanterns at the cinema tonight.\n",
    "memory/2026-05-29.md": "- Flying to Kyoto tomorrow morning for my trip, the suitcase is packed.\n",
    "memory/2026-04-02.md": "- Watched the film Paper Moon at the cinema tonight.\n",
    "memory/2026-03-02.md": "- A shopping list on your phone saves a second trip.\n",
    "memory/2026-03-09.md": "- A shopping list on your phone saves a second trip, again.\n",
}


@engines
def test_keyword_only_a_month_asked_reads_that_months_notes(monkeypatch, keyword_memory):
    """"爬山" shares no word with "去爬了香山": the words alone find nothing; the question's
    characters find February's hike, and only the days asked are matched by them (not April's)."""
    m = keyword_memory(HIKES)
    got = paths(m, "我二月去哪里爬山了？")
    assert got[0] == "memory/2026-02-10.md"
    assert "memory/2026-04-11.md" not in got  # April's "去爬了鹰嘴峰" holds 爬, but not in February
    assert got == ["memory/2026-02-10.md", "memory/2026-02-20.md"]  # February's other note: a few notes asked
    monkeypatch.setattr(loose, "LEG_LIMIT", 0)
    assert "memory/2026-02-10.md" not in paths(m, "我二月去哪里爬山了？")


@engines
def test_keyword_only_the_few_days_before_an_event_are_shown(monkeypatch, keyword_memory):
    """"movie" is not "film": keyword-only, the week before the trip is read day by day, and its
    notes come before the lines that merely say "trip" another time."""
    m = keyword_memory(HIKES)
    out = m.search("Which movie did I see the week before my trip to Kyoto?", 10, 0.0, now=NOW,
                   record_signals=False, explain=True)
    got = [r["path"] for r in out["results"]]
    assert set(got[:2]) == {"memory/2026-05-29.md", "memory/2026-05-27.md"}
    film = out["results"][got.index("memory/2026-05-27.md")]["explain"]
    assert film["loose"]["dayAsked"] and film["keyword"]["score"] >= days_asked.DAY_WEIGHT
    assert "memory/2026-04-02.md" not in got[:3]  # another film, another week
    monkeypatch.setattr(days_asked, "FEW_DAYS", 0)  # (the week holds 2 notes: "few notes" shows them too)
    monkeypatch.setattr(days_asked, "FEW_NOTES", 1)
    assert "memory/2026-05-27.md" not in paths(m, "Which movie did I see the week before my trip to Kyoto?")


@engines
def test_a_wide_range_is_left_to_the_words(monkeypatch, keyword_memory):
    """"This year" spans many notes: none is shown for its date alone, only what the words find;
    a range of a few notes, however long, shows each of them."""
    chores = {f"memory/2026-01-{d:02d}.md": f"- Cleaned the kitchen ({d}).\n" for d in range(3, 13)}
    m = keyword_memory({**HIKES, **chores})
    got = paths(m, "Which film did I see this year?")
    assert set(got[:2]) == {"memory/2026-05-27.md", "memory/2026-04-02.md"}
    assert "memory/2026-02-20.md" not in got and "memory/2026-01-05.md" not in got
    monkeypatch.setattr(days_asked, "FEW_NOTES", 100)
    assert "memory/2026-02-20.md" in paths(m, "Which film did I see this year?")


@engines
def test_the_days_add_to_an_answer_they_are_none(keyword_memory):
    """At the default minScore the days' first units come after what matched (the lexical fill); a
    long note of those days shows its first unit only, not every unit that holds nothing; and a
    question nothing matches still gets "no memory of it", not the days' notes."""
    week = {**HIKES, "memory/2026-05-26.md": "".join(f"- Meeting notes, item {i}: budget line {i} approved.\n"
                                                     for i in range(120))}
    m = keyword_memory(week)
    out = m.search("Which movie did I see the week before my trip to Kyoto?", 10, now=NOW, record_signals=False)
    got = [r["path"] for r in out["results"]]
    assert got[0] == "memory/2026-05-29.md" and "memory/2026-05-27.md" in got
    assert got.count("memory/2026-05-26.md") == 1  # its first unit, of several
    skydiving = m.search("Did I go skydiving last week?", 10, now=NOW, record_signals=False)
    assert skydiving["results"] == [] and "no memory" in skydiving["note"]


@engines
def test_a_path_match_keeps_its_score_among_the_days(keyword_memory):
    m = keyword_memory({"memory/hiking-last-week/2026-05-27.md": "- 今天天气很好。\n",
                        "memory/2026-05-28.md": "- 下雨了。\n"})
    out = m.search("hiking last week", 10, 0.0, now=NOW, record_signals=False, explain=True)
    first = out["results"][0]
    assert first["path"] == "memory/hiking-last-week/2026-05-27.md"
    assert first["explain"]["keyword"]["score"] == first["explain"]["path"]["score"] > days_asked.DAY_WEIGHT


@engines
def test_in_a_dialogue_the_last_turns_characters_count_without_its_time_words(keyword_memory):
    m = keyword_memory(HIKES)
    chat = "User: 你好\nAssistant: 你好，有什么可以帮你？\nUser: 我二月去哪里爬山了？"
    out = m.search(chat, 10, 0.0, now=NOW, record_signals=False, explain=True)
    assert out["results"][0]["path"] == "memory/2026-02-10.md"
    assert out["results"][0]["explain"]["loose"]["share"] == 1.0  # 二, 月 said when, not what


@engines
def test_with_the_relevance_floor_the_characters_held_are_evidence(keyword_memory):
    m = keyword_memory(HIKES, ("memory.search.query.noMemoryFloor=true",))
    assert paths(m, "我二月去哪里爬山了？")[0] == "memory/2026-02-10.md"
    assert paths(m, "我二月去哪里潜水了？") == []  # nothing holds 潜 or 水: February's notes are no answer


def test_a_day_is_shown_by_its_first_line_that_says_something():
    """Frontmatter and headings stand for no day (a unit each, or one unit)."""
    first = days_asked.first_said
    assert first([(1, "---"), (2, "tags: [daily]"), (3, "---"), (4, "- 下雨了。")]) == 4
    assert first([(7, "---\ntags: [daily]\n---\n\n- 下雨了。")]) == 7
    assert first([(1, "# 2026-05-27"), (2, "## 上午"), (3, "- 写周报。")]) == 3
    assert first([(1, "# 2026-05-27")]) == 1  # nothing else there: the first unit all the same
    assert first([(1, "- 写周报。"), (2, "- 下雨了。")]) == 1


@engines
def test_a_note_with_frontmatter_shows_its_first_entry(keyword_memory):
    m = keyword_memory({"memory/2026-05-28.md": "---\ntags: [daily]\n---\n\n- 下雨了，在家看书。\n",
                        "memory/2026-05-31.md": "- Flying to Kyoto tomorrow for my trip.\n"})
    out = m.search("What did I read the week before my trip to Kyoto?", 10, 0.0, now=NOW, record_signals=False)
    day = next(r for r in out["results"] if r["path"] == "memory/2026-05-28.md")
    assert day["snippet"].startswith("- 下雨了")
