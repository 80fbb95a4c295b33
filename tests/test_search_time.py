"""Time in the query (search/timeq.py): "last week", "上个月", "in March" resolved against the search's
``now``, lifting the daily notes dated then; and the frame of a counting question ("how many … in
total", "一共") left out of the keyword query. Real SQLite, keyword-only (the date is what decides)."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from reverie import Memory
from reverie.search.timeq import resolve

pytestmark = pytest.mark.usefixtures("store_backend")  # on both engines (the anchor asks each for its event)

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)  # a Wednesday


@pytest.mark.parametrize("query, start, end", [
    ("Where did I go hiking last week?", date(2026, 5, 25), date(2026, 5, 31)),
    ("what did we cook last month", date(2026, 5, 1), date(2026, 5, 31)),
    ("Which film did I watch in March?", date(2026, 3, 1), date(2026, 3, 31)),
    ("who called me two weeks ago", date(2026, 5, 18), date(2026, 5, 24)),
    ("what did I buy yesterday", date(2026, 6, 2), date(2026, 6, 2)),
    ("in December", date(2025, 12, 1), date(2025, 12, 31)),  # the latest December that has begun
    ("我上周去哪里爬山了？", date(2026, 5, 25), date(2026, 5, 31)),
    ("上个月我和谁喝了咖啡？", date(2026, 5, 1), date(2026, 5, 31)),
    ("我三月份做了什么新菜", date(2026, 3, 1), date(2026, 3, 31)),
    ("三个月前的体检结果", date(2026, 3, 1), date(2026, 3, 31)),
    ("去年的旅行", date(2025, 1, 1), date(2025, 12, 31)),
    ("十二天前买的那本书", date(2026, 5, 22), date(2026, 5, 22)),
    ("二十天前去的那家店叫什么", date(2026, 5, 14), date(2026, 5, 14)),  # (a tens digit before 十)
    ("十一月份的账单", date(2025, 11, 1), date(2025, 11, 30)),
])
def test_time_expressions_resolve_against_now(query, start, end):
    got = resolve(query, NOW)
    assert got is not None and (got.start, got.end) == (start, end)


def test_no_range_without_a_calendar_expression():
    for q in ("I may go hiking", "the week before my trip to Kyoto", "recently", "我想去爬山", "march on"):
        assert resolve(q, NOW) is None, q


def test_the_expression_leaves_the_keyword_text():
    assert resolve("Where did I go hiking last week?", NOW).text == "Where did I go hiking  ?"
    assert resolve("上个月我和谁喝了咖啡？", NOW).text == "我和谁喝了咖啡？"


HIKES = {  # the same kind of event on five days; only one in the week before NOW's
    "memory/2026-02-04.md": "- Went hiking up Eagle Peak today, the view was amazing.\n",
    "memory/2026-03-12.md": "- Went hiking up the north ridge today, the view was amazing.\n",
    "memory/2026-04-20.md": "- Went hiking up the river gorge today, the view was amazing.\n",
    "memory/2026-05-27.md": "- Went hiking up Bear Hill today, the view was amazing.\n",
    "memory/2026-06-02.md": "- Went hiking up Cedar Top today, the view was amazing.\n",
    "memory/2026-05-29.md": "- Last week of the project; the team week ended with a review.\n",
    "memory/2026-05-10.md": "- 今天去爬山了，爬的是香山，风景太美了。\n",
    "memory/2026-04-12.md": "- 今天去爬山了，爬的是松山，风景太美了。\n",
    "memory/2026-06-01.md": "- 今天去爬山了，爬的是鹰嘴峰，风景太美了。\n",
}


@pytest.fixture
def mem(reverie_home):
    m = Memory(overrides=['memory.search.provider="none"'])
    m.init()
    for rel, text in HIKES.items():
        (m.workspace / rel).write_text(text, encoding="utf-8")
    m.sync()
    yield m
    m.close()


def first(mem: Memory, query: str, **kw) -> list[str]:
    return [r["path"] for r in mem.search(query, 10, 0.0, now=NOW, record_signals=False, **kw)["results"]]


def test_last_week_lifts_the_note_dated_last_week(mem):
    # without a time expression the newest hike leads (decay breaks the tie)
    assert first(mem, "Where did I go hiking?")[0] == "memory/2026-06-02.md"
    got = first(mem, "Where did I go hiking last week?")
    assert got[0] == "memory/2026-05-27.md"
    # "last" and "week" left the keyword query: the note that merely says them matches no word (it
    # comes after the hike only as another note of the week asked: search/days_asked.py)
    out = mem.search("Where did I go hiking last week?", 10, 0.0, now=NOW, explain=True, record_signals=False)
    other = next(r["explain"] for r in out["results"] if r["path"] == "memory/2026-05-29.md")
    assert other["keyword"]["coverage"] == 0 and other["loose"] == {"share": 0.0, "dayAsked": True, "weight": 0.4}


def test_a_named_month_and_a_chinese_month(mem):
    assert first(mem, "Which hike did I do in March?")[0] == "memory/2026-03-12.md"
    assert first(mem, "我上个月去哪里爬山了？")[0] == "memory/2026-05-10.md"
    assert first(mem, "我去哪里爬山了？")[0] == "memory/2026-06-01.md"  # no range: the newest


def test_explain_shows_the_range_and_its_multiplier(mem):
    out = mem.search("Where did I go hiking last week?", 5, 0.0, now=NOW, explain=True, record_signals=False)
    row = out["results"][0]["explain"]
    assert row["time"] == {"range": ["2026-05-25", "2026-05-31"], "multiplier": 1.25}
    other = next(r for r in out["results"] if r["path"] == "memory/2026-06-02.md")
    assert other["explain"]["time"]["multiplier"] == 1.0
    plain = mem.search("hiking", 5, 0.0, now=NOW, explain=True, record_signals=False)
    assert "time" not in plain["results"][0]["explain"]


def test_a_query_of_time_words_only_still_searches_its_words(mem):
    # nothing but the expression and stop words: the whole query stays the keyword query
    got = first(mem, "what about last week")
    assert got and got[0] == "memory/2026-05-29.md"


def test_the_frame_of_a_counting_question_matches_nothing(reverie_home):
    m = Memory(overrides=['memory.search.provider="none"'])
    m.init()
    notes = {"memory/2026-05-01.md": "- Dimming screens an hour before bed helps many people.\n",
             "memory/2026-05-02.md": "- Went to a jazz concert at the old theatre tonight.\n",
             "memory/2026-05-03.md": "- 超市一共有多少种牛奶不清楚。\n",
             "memory/2026-05-04.md": "- 今晚在老剧院听了一场爵士音乐会。\n"}
    for rel, text in notes.items():
        (m.workspace / rel).write_text(text, encoding="utf-8")
    m.sync()
    try:
        # the concerts, in either language (a kind crosses languages: text/kinds.py); not the frame's notes
        concerts = {"memory/2026-05-02.md", "memory/2026-05-04.md"}
        assert set(first(m, "How many concerts did I attend in total?")) == concerts
        assert set(first(m, "我一共听了多少场音乐会？")) == concerts
    finally:
        m.close()


def test_in_a_dialogue_only_the_last_turn_says_when(mem):
    early = "User: I was so tired yesterday\nAssistant: sounds tiring, rest a bit\n"  # yesterday: the 06-02 hike
    out = mem.search(early + "User: where did I go hiking in March?", 5, 0.0, now=NOW, explain=True,
                     record_signals=False)
    assert out["results"][0]["path"] == "memory/2026-03-12.md"
    assert out["results"][0]["explain"]["time"]["range"] == ["2026-03-01", "2026-03-31"]


def test_a_span_before_an_event_hangs_on_the_note_of_that_event(reverie_home, store_backend):
    from reverie.search.timeq import anchored

    a = anchored("Who did I have coffee with the week before my trip to Kyoto?")
    assert (a.event, a.before, a.days) == ("my trip to Kyoto", True, 7)
    z = anchored("去桂林旅行的前一周我看了哪部电影？")
    assert (z.event, z.before, z.days) == ("去桂林旅行", True, 7)
    m = Memory(overrides=['memory.search.provider="none"'])
    m.init()
    notes = {"memory/2026-05-20.md": "- Flying to Kyoto tomorrow for my trip, the suitcase is packed.\n",
             "memory/2026-05-15.md": "- Had coffee with Priya and caught up on everything.\n",
             "memory/2026-04-10.md": "- Had coffee with Maya and caught up on everything.\n",
             "memory/2026-05-28.md": "- Had coffee with Jonas and caught up on everything.\n",
             "memory/2026-05-01.md": "- Flying to Oslo next week for my trip.\n"}
    for rel, text in notes.items():
        (m.workspace / rel).write_text(text, encoding="utf-8")
    m.sync()
    try:
        out = m.search("Who did I have coffee with the week before my trip to Kyoto?", 10, 0.0, now=NOW,
                       explain=True, record_signals=False)
        got = [r["path"] for r in out["results"]]
        assert out["debug"]["backend"] == store_backend
        assert set(got[:2]) == {"memory/2026-05-20.md", "memory/2026-05-15.md"}
        assert out["results"][0]["explain"]["time"]["range"] == ["2026-05-13", "2026-05-20"]
        # without the span, the newest coffee leads
        assert first(m, "Who did I have coffee with?")[0] == "memory/2026-05-28.md"
    finally:
        m.close()


PEAKS = ["雪松顶", "鹰嘴峰", "北边的山脊", "河谷", "望海岭", "青龙山", "白云峰", "石门山", "凤凰岭", "香炉峰",
         "云台山", "玉女峰", "天柱峰", "莲花峰", "狮子岭", "金顶"]


@pytest.mark.semantic
def test_the_time_leg_reads_the_notes_of_the_days_asked_about(tmp_path, monkeypatch):
    """Fifteen hikes on other days fill the nearest windows, and "爬山" shares no word with "去爬了":
    last week's hike is found because the question said when (the time leg, hybrid), though it sits
    deep in Monday's note of a week of long notes (a leg that read the range from its last day down
    never reached Monday)."""
    from reverie.search import loose, timeq

    from workspace_helpers import filler_days, write

    chores = ["今天上班打印机又卡纸了。", "超市的燕麦奶又卖完了。", "下了一整天雨，我就待在家里。",
              "我在考虑春天骑车上班。", "晚饭后在公园里走了一圈。", "邻居一直吵到半夜。"]
    m = Memory(home=tmp_path / "h", overrides=['memory.search.provider="local"'])  # (env= would hide the engine)
    m.init()
    filler_days(m, chores)
    for k, peak in enumerate(PEAKS[1:]):  # January to April
        write(m, f"memory/2026-0{1 + k // 4}-{3 + 7 * (k % 4):02d}.md", f"- 今天去爬了{peak}，风景太美了。\n")
    office = ["经理要我周五前交季度汇报的幻灯片。", "测试在本地能过，在持续集成里失败。", "电费又涨了。",
              "我取消了一个从来不用的视频会员。", "数据库忙的时候会超时。", "聊天消息一直打断我工作。"]
    for day in range(25, 32):  # last week (NOW is Wednesday 3 June): seven notes of 36 lines about work
        lines = [f"- {office[(day + i) % len(office)]}（{day}-{i}）" for i in range(36)]
        if day == 25:
            lines[24] = f"- 今天去爬了{PEAKS[0]}，风景太美了。"
        write(m, f"memory/2026-05-{day}.md", "\n".join(lines) + "\n")
    m.sync()
    try:
        def found() -> bool:  # last week's hike among the first three results
            out = m.search("我上周去哪里爬山了？", 10, 0.0, now=NOW, record_signals=False)
            return any(PEAKS[0] in r["snippet"] for r in out["results"][:3])

        assert found()
        monkeypatch.setattr(timeq, "LEG_WINDOWS", 0)
        assert found()  # the question's characters (爬) find it too: search/loose.py
        monkeypatch.setattr(loose, "LEG_LIMIT", 0)
        assert not found()
    finally:
        m.close()
