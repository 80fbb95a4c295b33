"""A twentieth round of the newest-first order (search/newest.py), for its precision: lines the order lifted
over the answer on the kept homes of a month (``benchmarks/month_kept.py`` counts them), each read now as
what it is. To work out is to exercise, not to work; a word of habit ("usually", 一般) is no subject two lines
share; a lesson of another subject than the one asked is no news of it, where the earlier line names none;
and for a question asking which day, a line only the second model links to the answer must say a day, not
a time of the day."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from answer_rows import assert_earlier_first, assert_later_first, two_answers
from reverie.search.newest import _a_day_anew, _asked_of, _facts, asks_day, prefer_newest
from workspace_helpers import first_unmarked, local_memory_fixture


def test_to_work_out_is_one_word_and_not_work():
    assert "workou" in _asked_of("Where do I work out these days?")
    assert "work" not in _asked_of("Where do I work out these days?")
    said = _facts("user: I worked out at Ironworks Fitness, then went to work")[0]
    assert {"workou", "work"} <= said


@pytest.mark.parametrize("earlier, later, query", [
    # (the kept homes' cases: a commute to work is no news of where one works out)
    ("I work out at Ironworks Fitness on 5th, the membership is through my company.",
     "I take the 7:42 express from Westfield to get to work now, so much less packed.",
     "Where do I work out these days?"),
    # (a word of habit shared, and nothing else: another thing's news)
    ("我快递一般都放小区东门的菜鸟驿站，晚上几点关门你知道吗？",
     "足球队训练场地换了，以后在体育中心东边那块场地练，时间不变，那边停车方便吗一般",
     "我的快递现在一般放在哪？"),
    # (the guitar teacher is no news of the piano lessons, though the first lesson named no instrument)
    ("had my first lesson with Tomasz yesterday, he's younger and way more chill",
     "had my first lesson with my new guitar teacher Sam today, he wants me to learn fingerpicking",
     "who teaches my piano lessons now?"),
])
def test_a_shared_word_of_another_sense_or_another_subject_updates_nothing(earlier, later, query):
    assert_earlier_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("earlier, later, query", [
    # working out, said again with a new gym, still updates; a lesson of the subject asked still does
    ("I work out at Ironworks Fitness on 5th, the membership is through my company.",
     "Switched gyms, I work out at Crunch on Main now, way cheaper.",
     "Where do I work out these days?"),
    ("had my first lesson with Tomasz yesterday, he's younger and way more chill",
     "new piano teacher from today, Ms Alder, Tomasz moved to Krakow",
     "who teaches my piano lessons now?"),
    ("我快递一般都放小区东门的菜鸟驿站，晚上几点关门你知道吗？",
     "东门驿站关了，现在快递一般放3号楼下的丰巢柜",
     "我的快递现在一般放在哪？"),
])
def test_the_same_thing_said_anew_still_updates(earlier, later, query):
    assert_later_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("query, day", [
    ("我的体检是哪天？", True), ("What day do the cleaners come?", True), ("Which days am I in the office?", True),
    ("垃圾车星期几来？", True), ("What time is standup?", False), ("周会几点开？", False),
    ("When is my dentist appointment?", False),  # (a day or a time: either answers)
])
def test_a_question_asking_which_day(query, day):
    assert asks_day(query) is day


@pytest.mark.parametrize("later, earlier, anew", [
    ("最近改成5点50起了，多出来的时间想跑步", "体检改到3月15号了", False),
    ("the standup moved to 9:40", "cleaners come every other wednesday", False),
    ("moved to mornings now", "cleaners come every other wednesday", False),
    ("cleaning service moved us to mondays starting next week", "the cleaners come every other wednesday", True),
    ("体检改到3月22号了", "体检改到3月15号了", True),
    ("体检改到3月15号了", "体检改到3月15号了", False),
])
def test_a_day_said_anew(later, earlier, anew):
    assert _a_day_anew(later, earlier) is anew


NOW = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
NOTES = {
    "memory/2026-10-02.md": "- user: 体检改到3月15号了，正好能多准备一周，这几天要注意啥能让血脂好看点哈哈\n",
    "memory/2026-10-05.md": "- user: 周末和老同学去爬了香山，人特别多。\n",
    "memory/2026-10-09.md": "- user: 女儿的钢琴课在周六上午，老师姓王。\n",
    "memory/2026-10-12.md": "- user: 体检中心说空腹抽血，前一天晚上八点后别吃东西。\n",
    "memory/2026-10-20.md": "- user: 最近改成5点50起了，多出来的时间想跑步或者看书，怎么安排好\n",
}
mem = local_memory_fixture("day-home", NOTES)


def test_a_time_of_the_day_is_no_news_of_the_day_asked(mem):
    # (on the real bundled embedder and the second model, which put getting up earlier nearest the check-up: it
    # says a change and a new time, but no day; the check-up's day stays first, unmarked)
    res = first_unmarked(mem, "我的体检是哪天？", NOW, "3月15号")
    assert not any(r.get("supersededBy") for r in res), [(r["snippet"], r.get("supersededBy")) for r in res]
