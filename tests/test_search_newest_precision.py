"""A twentieth round of the newest-first order (search/newest.py), for its precision: lines the order lifted
over the answer on the kept homes of a month (``benchmarks/month_kept.py`` counts them), each read now as
what it is. To work out is to exercise, not to work; a word of habit ("usually", 一般) alone is no subject two
lines share; a lesson of another subject than the one asked is no news of it, where the earlier line names none,
the first clause saying a change deciding; and for a question asking which day, a later line of the same thing
must say a day, not only a time of the day. Two fresh-eyes reviews' pairs are among the cases."""

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
    # (to work out of an office is to work from it; to work out a budget, to figure it out)
    assert "work" in _facts("user: I'm working out of a coworking space on Main St now")[0]
    assert "workou" not in _facts("user: need to work out the budget for the trip")[0]


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
    # (a fresh-eyes review's: working from an office is no working out; a habit word the only word shared;
    # a lesson of another subject where the earlier named none, in Chinese)
    ("I've been working out at the YMCA on Elm Street, the pool there is great. what's a good swim warmup?",
     "I'm working from the downtown office now instead of home, the commute on the red line takes 40 min.",
     "Where am I working out these days?"),
    ("I always take the stairs at the office, 6 floors, it's my cardio lol",
     "I always bring lunch from home now, eating out got too pricey. any good meal prep ideas?",
     "Do I always take the stairs at work?"),
    ("平时我都骑共享单车去地铁站，十分钟左右", "平时周末我都睡到中午，是不是不太健康？作息要怎么调", "我平时怎么去地铁站？"),
    # (nor the bigrams of a Chinese habit word's neighbours: 我经 of 我经常…)
    ("我经常去楼下那家瑞幸买咖啡，生椰拿铁很好喝，就是有点甜", "我经常失眠，最近尤其严重，有什么好办法吗？不想吃药", "我经常去哪买咖啡？"),
    ("我通常用微信付房租，每个月转给房东", "我通常晚上11点睡，但最近老是失眠到1点，是不是手机看多了", "我通常怎么付房租？"),
    ("女儿的老师姓周，教得很认真，每次都留很多作业", "女儿开始学舞蹈了，舞蹈老师姓吴，每周六上课", "女儿的钢琴老师是谁？"),
    # (the first clause saying a change names another subject; a clause after it says more of that change)
    ("Emma's teacher this year is Ms. Rodriguez, very organized, sends weekly emails",
     "Emma's dance teacher changed to Miss Tara, the old one moved away", "Who is Emma's homeroom teacher?"),
    ("我最近在跟一个老师上网课，每周两次，老师叫Lily，挺耐心", "数学网课的老师换了，现在是一个北师大的研究生，讲题很清楚",
     "我的英语网课老师是谁？"),
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
    # (a habit word beside other shared words counts as before: a fresh-eyes review's)
    ("孩子一般放学后在托管班待到6点，我下班去接", "孩子现在一般放学直接回家了，奶奶搬过来帮忙带，托管班就退了", "孩子一般放学后去哪？"),
    ("我经常去社区医院开降压药，医生姓刘", "降压药现在经常在京东大药房网上买了，社区医院排队太久", "我经常去哪开降压药？"),
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
    ("practice now starts at 6 instead of 5", "soccer practice is on wednesdays", False),  # ("at 6": a clock time)
    ("the dentist moved me to 6:05am, ugh", "dentist appointment is on the 14th", False),
])
def test_a_day_said_anew(later, earlier, anew):
    assert _a_day_anew(later, earlier) is anew


@pytest.mark.parametrize("earlier, later, query, moved", [
    # a day asked: a later line of the same thing that says only a new time of the day leaves the day standing
    ("Book club meets on the first Thursday of every month at Sam's place, we're reading Middlemarch",
     "book club is going to start at 7:30 instead of 7 from now on, people kept arriving late",
     "What day does my book club meet?", False),
    ("儿子的足球训练是每周三下午，在体育中心", "足球训练现在改到下午五点开始了，之前四点太早", "儿子的足球训练是星期几？", False),
    # and one saying another day still updates it
    ("Book club meets on the first Thursday of every month at Sam's place, we're reading Middlemarch",
     "book club moved to the second Tuesday of the month from now on, Thursdays clash with Sam's new class",
     "What day does my book club meet?", True),
    ("儿子的足球训练是每周三下午，在体育中心", "足球训练现在改到每周五下午了，周三场地被占了", "儿子的足球训练是星期几？", True),
    # (a time asked, not a day: the new time is the news)
    ("Book club meets on the first Thursday of every month at 7 at Sam's place",
     "book club is going to start at 7:30 instead of 7 from now on, people kept arriving late",
     "What time does book club start?", True),
])
def test_a_new_time_of_the_day_is_no_other_day(earlier, later, query, moved):
    out = prefer_newest(two_answers(earlier, later), query)
    (assert_later_first if moved else assert_earlier_first)(out)


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
