"""An honest "no memory" (issue 29, item 6; docs/search.md "Nothing found"): a question nothing in
memory answers gets no result and a note saying so, while an answerable one, worded otherwise than
its note, is still found. Real SQLite, the real bundled embedder (multilingual-e5-small) where the
floor is calibrated for it.

The memory: 48 everyday notes in English and Chinese, 4 to a daily note (so the candidates are
enough for the floor to judge: floor.MIN_UNITS), all dated within the same fortnight.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory
from reverie.search import floor
from reverie.search.candidates import Candidate
from reverie.search.service import NO_MEMORY
from reverie.tools.memory import memory_tools

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)

NOTES = [
    "The combination for my locker at the bouldering gym is 5182.",
    "Dentist appointment on Thursday at 4 pm with Dr. Alvarez.",
    "Parked the car on level 3 of the station garage, spot D12.",
    "My nephew Felix turns seven in April; he wants a telescope.",
    "Made a big pot of vegetable soup and froze three portions.",
    "Ran 5 km along the canal before breakfast.",
    "The standup ran long because of the broken deploy script.",
    "Rained all afternoon, we played cards indoors.",
    "Repotted the fern into a bigger pot.",
    "Finished the budget slides and sent them to Maria.",
    "The cat knocked a cup off the table again.",
    "Bought tomatoes, cheese and bread at the market.",
    "Booked a haircut for next Monday.",
    "Fixed the login bug on older phones.",
    "Long walk in the hills with the dog.",
    "Reviewed a pull request about logging.",
    "Cooked a mild curry for dinner.",
    "Replaced the batteries in the kitchen clock.",
    "Watched the match with Daniel; we lost.",
    "Helped Emma with her spelling homework.",
    "Sorted old photos into albums.",
    "The office printer jammed twice.",
    "Read a thriller set in Oslo.",
    "Installed a shoe rack in the hallway.",
    "健身房储物柜的密码是 5182。",
    "牙医预约在周四下午四点。",
    "车停在火车站停车场三层，D12 车位。",
    "外甥四月满七岁，想要一个望远镜。",
    "今天做了一锅蔬菜汤。",
    "早上沿着河边跑了五公里。",
    "下午一直下雨，在家打牌。",
    "给蕨类植物换了个大盆。",
    "把预算幻灯片发给了玛丽亚。",
    "猫又把杯子碰倒了。",
    "在菜市场买了西红柿和面包。",
    "预约了下周一理发。",
    "修了旧手机上的登录问题。",
    "带狗在山上散步。",
    "看了一个关于日志的合并请求。",
    "晚饭做了不辣的咖喱。",
    "换了厨房挂钟的电池。",
    "和朋友看球赛，输了。",
    "辅导女儿写拼写作业。",
    "把旧照片整理进相册。",
    "办公室的打印机卡纸两次。",
    "读了一本发生在奥斯陆的悬疑小说。",
    "在门厅装了鞋架。",
    "周末去郊外摘了草莓。",
]


def write_notes(m: Memory) -> None:
    for n in range(0, len(NOTES), 4):
        day = f"memory/2026-11-{1 + n // 4:02d}.md"
        (m.workspace / day).write_text("".join(f"- {t}\n" for t in NOTES[n:n + 4]), encoding="utf-8")


@pytest.fixture(scope="module")
def hybrid(tmp_path_factory):
    home = tmp_path_factory.mktemp("no-memory-hybrid")
    m = Memory(home=home, env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="local"',
                                                                             "memory.search.query.noMemoryFloor=true"])
    m.init()
    write_notes(m)
    m.sync()
    yield m
    m.close()


@pytest.fixture
def keyword(tmp_path):
    m = Memory(home=tmp_path / "kw", env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="none"',
                                                                                  "memory.search.query.noMemoryFloor=true"])
    m.init()
    write_notes(m)
    m.sync()
    yield m
    m.close()


def ask(m: Memory, query: str, min_score: float | None = None) -> dict:
    return m.search(query, None, min_score, now=NOW, record_signals=False)


@pytest.mark.semantic
@pytest.mark.parametrize("query", ["quantum chromodynamics lecture notes", "What is my frequent flyer number?",
                                   "拜占庭帝国的历史", "板球的规则是什么？"])
def test_an_unanswerable_question_gets_no_result_and_says_so(hybrid, query):
    out = ask(hybrid, query)
    assert out["mode"] == "hybrid", out.get("debug")
    assert out["results"] == [], [r["snippet"] for r in out["results"]]
    assert out["note"] == NO_MEMORY
    rel = out["debug"]["relevance"]
    assert out["debug"]["selection"] == "no-memory" and rel["passed"] is False
    assert rel["evidence"] < rel["floor"] == hybrid.embedder.relevance_floor
    # the floor is what empties it: without it, weak hits come back (the "4-6 hits")
    hybrid.settings.search.query.relevance_floor = 0.0
    try:
        assert ask(hybrid, query)["results"]
    finally:
        hybrid.settings.search.query.relevance_floor = None


@pytest.mark.semantic
@pytest.mark.parametrize("query, answer", [
    ("What was the code for my gym locker?", "5182"),
    ("When do I see the dentist?", "Dr. Alvarez"),
    ("What should I get Felix for his birthday?", "telescope"),
    ("我在健身房的柜子密码是多少？", "5182"),
    ("我的车停在哪里了？", "D12"),
    ("外甥过生日送什么？", "望远镜"),
])
def test_an_answerable_question_is_still_found_first(hybrid, query, answer):
    out = ask(hybrid, query)
    assert out["debug"]["relevance"]["passed"] is True, out["debug"]["relevance"]
    assert answer in out["results"][0]["snippet"], [r["snippet"] for r in out["results"]]
    assert "note" not in out


@pytest.mark.semantic
def test_min_score_zero_still_ranks_everything(hybrid):
    out = ask(hybrid, "quantum chromodynamics lecture notes", 0.0)
    assert len(out["results"]) == 6 and out["debug"]["relevance"]["passed"] is True


@pytest.mark.semantic
def test_the_memory_search_tool_says_no_memory(hybrid):
    tool = {t.name: t for t in memory_tools(hybrid)}["memory_search"]
    out = tool.handler({"query": "quantum chromodynamics lecture notes"})
    assert out["results"] == [] and out["note"] == NO_MEMORY
    assert tool.handler({"query": "When do I see the dentist?"})["results"]


def test_keyword_only_a_query_holding_none_of_the_memory_s_words_gets_nothing(keyword):
    out = ask(keyword, "quantum chromodynamics lecture notes")
    assert out["mode"] == "keyword-only"
    assert out["results"] == [] and out["note"] == NO_MEMORY
    # a note holding the question's words is found; one holding a sliver of it (under keywordFloor
    # of its weight: one word of eleven) is not evidence
    out = ask(keyword, "Helped Emma with her spelling homework")
    assert out["results"] and "spelling" in out["results"][0]["snippet"]
    sliver = "quantum chromodynamics gluon lattice renormalisation lecture seminar syllabus textbook exam printer"
    low = ask(keyword, sliver)
    assert low["debug"]["relevance"]["coverage"] < floor.KEYWORD_FLOOR
    assert low["results"] == [] and low["debug"]["selection"] == "no-memory"
    keyword.settings.search.query.keyword_floor = 0.0  # the floor off: the weak hit comes back (lexical fill)
    try:
        assert [r["snippet"] for r in ask(keyword, sliver)["results"]] == ["- The office printer jammed twice."]
    finally:
        keyword.settings.search.query.keyword_floor = None


def cand(seq: int, cos: float, cov: float = 0.0, kw: bool = False, specificity: int = 0) -> Candidate:
    c = Candidate(seq, vector_raw=cos, kw_unit=cov, specificity=specificity)
    c.kw = object() if kw else None  # a keyword hit (only its presence matters here)
    return c


def test_the_floor_judges_how_far_the_best_stands_out_of_the_median():
    flat = [cand(i, 0.80 + 0.001 * i) for i in range(30)]  # everything about as close: median 0.8145
    assert not floor.judge(flat, 0.27, 0.08, True, True).passed
    peak = flat + [cand(99, 0.90)]  # (0.90 - 0.815) / (1 - 0.815) = 0.46
    ev = floor.judge(peak, 0.27, 0.08, True, True)
    assert ev.passed and ev.stand_out == pytest.approx((0.90 - 0.815) / (1 - 0.815), abs=1e-3)
    # the keyword coverage counts in hybrid at 0.15: 0.17 + 0.15 x 0.8 passes 0.27, 0.17 alone does not
    mild = flat + [cand(99, 0.8145 + 0.17 * (1 - 0.8145))]
    assert not floor.judge(mild, 0.27, 0.08, True, True).passed
    mild[-1].kw_unit, mild[-1].kw = 0.8, object()
    assert floor.judge(mild, 0.27, 0.08, True, True).passed
    # too few candidates to judge, an uncalibrated embedder, or a path match: not floored
    assert floor.judge(flat[:floor.MIN_UNITS - 1], 0.27, 0.08, True, True).passed
    # ... but a memory of many units where few are near the question is judged among those few
    assert not floor.judge(flat[:floor.MIN_POOL], 0.27, 0.08, True, True, units=floor.MIN_UNITS).passed
    assert floor.judge(flat[:floor.MIN_POOL - 1], 0.27, 0.08, True, True, units=1000).passed
    assert floor.judge(flat[:floor.MIN_POOL], 0.27, 0.08, True, True, units=floor.MIN_UNITS - 1).passed
    assert floor.judge(flat, None, 0.08, True, True).passed
    assert floor.judge(flat + [cand(100, 0.5, specificity=3)], 0.27, 0.08, True, True).passed


def test_a_unit_holding_every_word_of_the_question_passes_whatever_the_vectors_say():
    # a topic the memory talks about often ("What phone carrier am I with?" among many lines about the
    # phone) stands out of nothing: the line naming every word asked is evidence enough
    flat = [cand(i, 0.80 + 0.001 * i) for i in range(30)]
    flat[0].kw_unit, flat[0].kw = floor.WHOLE_QUESTION, object()
    ev = floor.judge(flat, 0.27, 0.08, True, True)
    assert ev.passed and ev.stand_out + floor.COVERAGE_WEIGHT * ev.coverage < 0.27
    flat[0].kw_unit = floor.WHOLE_QUESTION - 0.05  # most of the words: the vectors still decide
    assert not floor.judge(flat, 0.27, 0.08, True, True).passed


@pytest.mark.semantic
def test_a_memory_of_one_line_notes_is_judged_too(tmp_path):
    # forty-eight daily notes of one line each: a question near none of them gathers only the twelve
    # best windows' units, fewer than MIN_UNITS, and was never floored (every unrelated question came
    # back with hits); the memory is large enough, so the few are judged
    m = Memory(home=tmp_path, env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="local"',
                                                                            "memory.search.query.noMemoryFloor=true"])
    m.init()
    for i, text in enumerate(NOTES):
        (m.workspace / f"memory/2026-10-{1 + i % 28:02d}-{i // 28}.md").write_text(f"- {text}\n", encoding="utf-8")
    m.sync()
    try:
        for query in ("my blood type", "我的血型", "my grandmother's maiden name", "汉莎航空常旅客号码"):
            out = ask(m, query)
            assert out["debug"]["candidates"] < floor.MIN_UNITS, out["debug"]
            assert out["results"] == [] and out["note"] == NO_MEMORY, [r["snippet"] for r in out["results"]]
            assert "standOut" in out["debug"]["relevance"]
        for query, answer in (("When do I see the dentist?", "Dr. Alvarez"), ("我的车停在哪里了？", "D12"),
                              ("What should I get Felix for his birthday?", "telescope")):
            out = ask(m, query)
            assert any(answer in r["snippet"] for r in out["results"]), [r["snippet"] for r in out["results"]]
    finally:
        m.close()


def test_keyword_only_judges_coverage():
    pool = [cand(i, None, 0.05, kw=True) for i in range(5)]
    assert not floor.judge(pool, None, 0.08, False, True).passed
    assert floor.judge(pool, None, 0.0, False, True).passed  # 0: off
    pool[2].kw_unit = 0.3
    assert floor.judge(pool, None, 0.08, False, True).passed


def test_the_floor_is_off_by_default_and_an_empty_answer_still_says_so(tmp_path):
    m = Memory(home=tmp_path / "plain", env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="none"'])
    m.init()
    write_notes(m)
    m.sync()
    try:
        assert m.settings.search.query.no_memory_floor is False
        weak = ask(m, "quantum chromodynamics gluon lattice renormalisation lecture seminar syllabus textbook exam "
                      "printer")
        assert [r["snippet"] for r in weak["results"]] == ["- The office printer jammed twice."]
        none = ask(m, "quantum chromodynamics")
        assert none["results"] == [] and none["note"] == NO_MEMORY
    finally:
        m.close()
