"""Counting questions, repeated lines and a question's framing words (search/counting.py,
search/results.py ``repeats_last``, search/keyword.py ``STOP_WORDS``).

A counting question ("how many doctors did I see", "我一共游了几次泳") needs every note that mentions
one instance, usually in passing in a session about something else: such a question judges units
mostly by their own relevance and scores the units of more windows. A line said again in another
note (the same stock advice every week) goes after every line that says something new.
"""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from reverie import Memory
from reverie.search import context, counting
from reverie.search.keyword import QueryTerms
from reverie.search.results import repeats_last

from workspace_helpers import result_paths, write

engines = pytest.mark.usefixtures("store_backend")
NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("query", [
    "How many times did I go swimming?", "how often do I call my mother", "How much have I spent on my bike in total?",
    "How much did I spend altogether on the flat?", "the total number of books I finished",
    "我一共读完了几本书？", "我今年看了几个不同的医生？", "我去了多少次健身房", "这个月总共花了多少钱", "我们去过几家餐厅"])
def test_counting_questions_are_recognised(query):
    assert counting.asks_to_count(query)


@pytest.mark.parametrize("query", [
    "How much did the bike chain cost?", "Where do I work now?", "What is my dentist's name?",
    "我几点开会？", "我现在开的是什么车？", "recommend me a podcast", "how are you",
    # a few days ago, these days, altogether as "entirely", the total of one thing
    "几个月前我去的那家餐厅叫什么", "我几天前说的那本书", "我这几天心情怎么样", "几年前我住在哪里",
    "Did I quit smoking altogether?", "what is the total of my last invoice?"])
def test_other_questions_are_not(query):
    assert not counting.asks_to_count(query)


def _u(text: str) -> SimpleNamespace:
    return SimpleNamespace(text=text)


def test_a_line_said_again_goes_after_every_new_line_and_nothing_is_lost():
    ordered = [_u("Check the office for bike parking."), _u("check the  office for bike parking."),
               _u("I bought a helmet."), _u("Check the office for bike parking."), _u("A pump cost 25 dollars.")]
    out = repeats_last(ordered)
    assert [u.text for u in out] == ["Check the office for bike parking.", "I bought a helmet.",
                                     "A pump cost 25 dollars.", "check the  office for bike parking.",
                                     "Check the office for bike parking."]
    assert out[3] is ordered[1] and out[4] is ordered[3]  # the repeats keep their own order
    varied = [_u("a"), _u("b"), _u("c")]
    assert repeats_last(varied) == varied


def test_a_counting_question_moves_only_the_assistants_repeats():
    ordered = [_u("user: Went swimming at the pool."), _u("assistant: Swimming is gentle on the joints."),
               _u("user: Went swimming at the pool."), _u("assistant: Swimming is gentle on the joints."),
               _u("user: Swam in the lake.")]
    out = [u.text for u in repeats_last(ordered, assistant_only=True)]
    assert out == ["user: Went swimming at the pool.", "assistant: Swimming is gentle on the joints.",
                   "user: Went swimming at the pool.", "user: Swam in the lake.",
                   "assistant: Swimming is gentle on the joints."]


def test_a_search_shows_a_new_line_before_the_same_line_from_other_notes(store_backend):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    stock = "Check whether your office has a place to park bikes."
    for day in ("2026-03-02", "2026-03-09", "2026-03-16"):
        write(mem, f"memory/{day}.md", f"- I'm thinking about cycling to work.\n- {stock}\n")
    write(mem, "memory/2026-03-20.md", "- I bought a lock to park my bike at the station.\n")
    mem.sync()
    found = mem.search("park bikes office", 6, 0.0, record_signals=False)["results"]
    mem.close()
    texts = [r["snippet"] for r in found]
    assert stock in texts[0]
    assert "lock to park my bike" in texts[1]  # said once: before the stock line's repeats
    assert sum(stock in t for t in texts) == 3  # the repeats are still there, after it


def test_a_counting_question_says_how_it_weighed_each_unit(reverie_home):
    """Hybrid, a counting question weighs a unit's own score 0.8; keyword-only the usual ½ (the
    window's words are all that bridges a short mention, "swam", to the question)."""
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    write(mem, "memory/2026-03-02.md", "- Went swimming at the pool.\n- The printer jammed.\n")
    mem.sync()
    counted = mem.search("How many times did I go swimming?", 6, 0.0, record_signals=False, explain=True)
    plain = mem.search("Did I go swimming?", 6, 0.0, record_signals=False, explain=True)
    mem.close()
    keyword_only = Memory(overrides=['memory.search.provider="none"'])
    words = keyword_only.search("How many times did I go swimming?", 6, 0.0, record_signals=False, explain=True)
    keyword_only.close()
    assert counted["mode"] == "hybrid" and words["mode"] == "keyword-only"
    assert f"{counting.OWN_WEIGHT} x unit" in counted["results"][0]["explain"]["merge"]["context"]
    assert f"{context.OWN_WEIGHT} x unit" in plain["results"][0]["explain"]["merge"]["context"]
    assert f"{context.OWN_WEIGHT} x unit" in words["results"][0]["explain"]["merge"]["context"]
    for out, own in ((counted, counting.OWN_WEIGHT), (plain, context.OWN_WEIGHT)):  # the weight applied
        v = out["results"][0]["explain"]["vector"]
        blend = own * v["unit"] + (1 - own) * (context.WINDOW_SHARE * v["window"] + (1 - context.WINDOW_SHARE) * v["file"])
        assert v["calibrated"] == pytest.approx(blend, abs=2e-4)


def test_a_counting_question_scores_the_units_of_more_windows(store_backend):
    """Forty notes of one window each: a plain question scores the units of the best twelve
    windows (and the keyword hits), a counting question those of every window here."""
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    for day in range(40):
        write(mem, f"memory/2026-03-{day % 28 + 1:02d}-{day}.md",
              "".join(f"- Line {k} of day {day} about chores and errands.\n" for k in range(4)))
    mem.sync()
    counted = mem.search("How many times did I see a doctor?", 6, 0.0, record_signals=False, explain=True)
    plain = mem.search("When did I see a doctor?", 6, 0.0, record_signals=False, explain=True)
    mem.close()
    assert counted["debug"]["candidates"] == 160  # every unit: 40 windows, within 96
    assert plain["debug"]["candidates"] == 4 * context.COARSE_WINDOWS


def test_of_many_windows_only_the_nearest_units_and_every_keyword_hit_are_scored(reverie_home):
    """A counting question over 300 units: the 256 nearest by their own vector are scored (lines
    of the question's function words, near it for this embedder), and a keyword hit among the
    others still is."""
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    for day in range(60):
        write(mem, f"memory/2026-03-{day % 28 + 1:02d}-{day}.md",
              "".join("- How many did I have in it?\n" for k in range(5)))  # near by vector, no keyword
    filler = " ".join(f"w{k}x" for k in range(60))  # its vector far from the question's
    write(mem, "memory/2026-04-01.md", f"- Zanzibar {filler}.\n")
    mem.sync()
    res = mem.search("How many times did I see a doctor in Zanzibar?", 300, 0.0, record_signals=False, explain=True)
    mem.close()
    assert res["debug"]["candidates"] in (counting.UNITS_KEPT, counting.UNITS_KEPT + 1)
    assert any(r["path"] == "memory/2026-04-01.md" for r in res["results"])


def test_now_in_a_question_says_when_not_what(reverie_home):
    """"Where do I work now?": like 现在, "now" frames the question; a note saying "now" about
    something else is no answer (it ranked first before)."""
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    write(mem, "memory/2026-03-02.md", "- Concert tickets are so expensive now.\n")
    write(mem, "memory/2026-03-03.md", "- Concert tickets are so expensive now, again.\n")
    write(mem, "memory/2026-03-04.md", "- My first week of work at Acme Logistics.\n")
    mem.sync()
    found = mem.search("Where do I work now?", 6, 0.0, record_signals=False)["results"]
    mem.close()
    assert [r["path"] for r in found] == ["memory/2026-03-04.md"]


def test_the_times_of_how_many_times_frames_the_count(keyword_memory):
    """"How many times did I go swimming?": "times" is the count's frame; a note saying "first time
    trying the recipe" is no swim (it ranked with the swims before)."""
    assert counting.without_frame("How many times did I go swimming?") == "How many did I go swimming?"
    assert counting.without_frame("What times does the pool open?") == "What times does the pool open?"
    mem = keyword_memory({"memory/2026-03-02.md": "- Swam twenty laps this evening, my shoulders are sore.\n",
                          "memory/2026-03-05.md": "- Went swimming in the lake with friends.\n",
                          "memory/2026-03-09.md": "- I cooked fish tacos, the first time trying the recipe.\n"})
    found = mem.search("How many times did I go swimming?", 6, 0.0, record_signals=False)["results"]
    assert {r["path"] for r in found} == {"memory/2026-03-02.md", "memory/2026-03-05.md"}


def test_the_chinese_frame_of_a_count_is_no_word_to_find(keyword_memory):
    """"我一共去了几次健身房？": 几次 is the count's frame, as 几个 is; a note saying "第一次" or "好几个小时"
    is no visit. A classifier that names the kind of thing (几盆, 几场) stays."""
    assert counting.without_frame("我一共看了几个不同的医生？") == "我一共看了 不同的医生？"
    assert counting.without_frame("我一共买了几盆植物？") == "我一共买了几盆植物？"
    assert counting.without_frame("我一共见了几个人？") == "我一共见了几个人？"  # 个人: "七个人"
    mem = keyword_memory({"memory/2026-03-02.md": "- 下班后去健身房练了腿。\n",
                          "memory/2026-03-05.md": "- 周末又去了健身房，人很多。\n",
                          "memory/2026-03-09.md": "- 第一次自己做了红烧肉，超市跑了好几次。\n"})
    found = mem.search("我一共去了几次健身房？", 6, 0.0, record_signals=False)["results"]
    assert {r["path"] for r in found} == {"memory/2026-03-02.md", "memory/2026-03-05.md"}, \
        [r["snippet"] for r in found]


def test_a_counting_question_keeps_every_saying_of_a_repeated_line(reverie_home):
    """Five swims said in the same words on five days are five instances: a counting question shows
    them all first; any other question shows one and the rest after the new lines."""
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    for day in range(1, 6):
        write(mem, f"memory/2026-03-0{day}.md", "- Went swimming at the pool.\n")
    for day in range(10, 15):
        write(mem, f"memory/2026-03-{day}.md", f"- The pool near the office closed on day {day}.\n")
    mem.sync()
    counted = mem.search("How many times did I go swimming at the pool?", 6, 0.0, record_signals=False)["results"]
    plain = mem.search("Did I go swimming at the pool?", 6, 0.0, record_signals=False)["results"]
    mem.close()
    assert sum("Went swimming" in r["snippet"] for r in counted[:5]) == 5
    assert "Went swimming" in plain[0]["snippet"] and not any("Went swimming" in r["snippet"] for r in plain[1:6])


def test_instances_of_a_count_never_supersede_each_other_but_the_value_now_still_does(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    try:
        for day, laps in ((3, 20), (10, 24), (17, 30)):  # the same words, another number: an update, if asked now
            write(mem, f"memory/2026-03-{day:02d}.md", f"- Went swimming at the pool, {laps} laps.\n")
        write(mem, "memory/2026-03-04.md", "- My longest run so far is 8 kilometres.\n")
        write(mem, "memory/2026-03-20.md", "- My longest run is now 12 kilometres.\n")
        mem.sync()
        swims = mem.search("How many times did I go swimming?", 10, record_signals=False)["results"]
        assert len({r["path"] for r in swims}) == 3
        assert not any(r.get("supersededBy") for r in swims)  # three swims, each one counted
        run = mem.search("How many kilometres is my longest run now?", 10, record_signals=False)["results"]
        assert "12 kilometres" in run[0]["snippet"]
        assert any(r.get("supersededBy") == "memory/2026-03-20.md#L1-L1" for r in run if "8 kilometres" in r["snippet"])
    finally:
        mem.close()
    assert counting.counts_instances("我一共去游了几次泳？") and not counting.counts_instances("我现在最长能跑多少公里？")


@pytest.mark.parametrize("query,instances", [
    ("How many times did I go swimming?", True), ("How often do I call my mother?", True),
    ("How many concerts did I attend?", True), ("How much have I spent on my bike in total?", True),
    ("How many books have I finished so far?", True), ("我一共读完了几本书？", True), ("我去了多少次健身房", True),
    # a value, which a later note updates: the newest-first order still applies
    ("How many cats do I have?", False), ("How many people are on my team?", False),
    ("How many kilometres is my longest run now?", False), ("我现在最长能跑多少公里？", False)])
def test_only_a_count_of_what_happened_skips_the_newest_first_order(query, instances):
    assert counting.counts_instances(query) is instances


def test_a_count_of_a_value_still_prefers_the_newest(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    try:
        write(mem, "memory/2026-01-10.md", "- My team has 5 people.\n")
        write(mem, "memory/2026-03-10.md", "- My team now has 7 people after the hiring round.\n")
        mem.sync()
        got = mem.search("How many people are on my team?", 5, record_signals=False)["results"]
        assert "7 people" in got[0]["snippet"]
        assert next(r for r in got if "5 people" in r["snippet"])["supersededBy"] == "memory/2026-03-10.md#L1-L1"
    finally:
        mem.close()


INSTANCES = ["Went to a jazz concert at the old theatre tonight.", "Saw a stand-up comedy show downtown, so funny.",
             "I went to a small indie gig at a bar.", "Watched a musical with my parents, great songs."]
NOT_INSTANCES = ["assistant: Live music is a great way to unwind.", "My sister went to a rock concert last week.",
                 "assistant: Concert tickets often sell out early.", "My colleague plays in an orchestra on Sundays."]
CHORES = ["The printer jammed again.", "I made soup for the week.", "The bus was late twice.",
          "I cleaned the windows.", "Rent is due next week.", "The heating makes a clicking noise."]


@pytest.mark.semantic
def test_a_count_of_my_own_doings_puts_what_i_did_before_others_and_the_assistant(reverie_home, monkeypatch):
    """The real bundled embedder ranks the assistant's remarks about concerts and a sister's concert
    with the owner's own; for "how many … did I …" they are no instance and go below them."""
    mem = Memory(overrides=['memory.search.provider="local"'])
    mem.init()
    lines = [f"user: {t}" for t in INSTANCES] + [t if t.startswith("assistant") else f"user: {t}" for t in NOT_INSTANCES]
    lines += [f"user: {t}" for t in CHORES * 3]
    for day, line in enumerate(lines):
        write(mem, f"memory/2026-03-{day % 28 + 1:02d}-{day}.md", f"- {line}\n")
    mem.sync()
    query = "How many concerts and shows did I attend in total?"

    def first_four() -> tuple[list[str], dict]:
        out = mem.search(query, 10, 0.0, record_signals=False, explain=True)
        return [r["snippet"][2:].split(": ", 1)[1] for r in out["results"][:4]], out

    try:
        mine, out = first_four()
        assert sorted(mine) == sorted(INSTANCES)
        theirs = [r for r in out["results"] if r["explain"]["count"]["notMine"]]
        assert theirs and all(r["explain"]["count"]["multiplier"] == counting.NOT_MINE for r in theirs)
        monkeypatch.setattr(counting, "NOT_MINE", 1.0)
        assert sorted(first_four()[0]) != sorted(INSTANCES)  # without it, one of them is among the four
    finally:
        mem.close()


@pytest.mark.parametrize("text", ["user: My sister is studying to be a doctor.", "- My neighbour's plants all died.",
                                  "Our manager went to the conference.", "assistant: Swimming is gentle on the joints.",
                                  "助手：现场音乐很能放松心情。", "用户：我妹妹在读医学院，想当医生。", "邻居家的植物冬天全死了。",
                                  "**Assistant**: Live music is a great way to unwind.", "My friends went hiking.",
                                  # the people newest-first knows too (text/people.py: one list)
                                  "My co-worker ran the Berlin marathon.", "领导上周去了三次健身房。",
                                  "母亲去看了两次牙医。"])
def test_lines_that_are_no_instance_of_my_doings(text):
    assert counting.not_mine(text)


@pytest.mark.parametrize("text", ["user: My sister and I went to a concert.", "Went to the lake with my brother.",
                                  "My cousin's wedding was beautiful, I danced all night.", "老板让我周末加班。",
                                  "I saw a dermatologist about the rash.", "用户：和爸妈去看了一场音乐剧。",
                                  "我妹妹带我去看了一场演出。", "Took the kids swimming at the leisure centre."])
def test_lines_that_are(text):
    assert not counting.not_mine(text)


def test_only_a_count_of_my_own_doings_asks_it():
    assert counting.asks_mine("How many concerts did I attend in total?")
    assert counting.asks_mine("我一共去看了几场演出？")
    assert not counting.asks_mine("How many times has Melanie gone to the beach?")
    assert not counting.asks_mine("我妹妹一共看了几次医生？")  # her doings: her lines are the instances


# ---- what a count counts: an amount for a sum of money, the measure word of a Chinese count


@pytest.mark.parametrize("text", ["I paid 45 dollars for a new chain.", "A helmet, $60.", "€12 for the lights",
                                  "车行帮我补胎收了三十块。", "买了一把锁，两百块。", "花了150元", "十块钱的打气筒",
                                  "3.5k euros for the deposit", "停车花了五块。", "门票五元", "花了100多块", "paid 45€",
                                  "It cost fifty dollars.", "八十块买了个锁"])
def test_lines_naming_an_amount(text):
    assert counting.names_amount(text)


@pytest.mark.parametrize("text", ["I'm thinking of cycling to work.", "我在考虑春天骑车上班。", "It took 45 minutes.",
                                  "吃了一块蛋糕。", "搬了两块砖。", "吃了两三块饼干。", "我们一块去公园散步。", "2025元旦放假。",
                                  "Bought a helmet for the winter."])
def test_lines_naming_none(text):
    assert not counting.names_amount(text)


def test_a_sum_of_money_is_asked_only_by_a_count_of_money():
    assert counting.sums_money("How much have I spent on my bike in total?")
    assert counting.sums_money("我在自行车上一共花了多少钱？")
    assert not counting.sums_money("How many hours did I spend gaming in total?")
    assert not counting.sums_money("我一共花了多少时间学吉他？")
    for time_spent in ("How much time have I spent on hiking in total?", "我一共花了多少个小时练琴？",
                       "我一共花了多少精力在装修上？", "我总共花费了多少时间？"):
        assert not counting.sums_money(time_spent), time_spent
    assert counting.sums_money("这个月总共花了多少钱") and counting.sums_money("我一共花了多少买衣服？")
    assert not counting.sums_money("How much did the bike chain cost?")  # one price: a lookup


def test_a_chinese_count_names_its_measure():
    (pots,) = counting.measure_words("我给家里一共买了几盆植物？")
    assert pots.pair == "几盆" and pots.counted.startswith("植物")
    assert {"一盆", "两盆", "小盆"} <= set(pots.words) and "半盆" not in pots.words
    assert [m.pair for m in counting.measure_words("我一共读了多少本书？")] == ["少本"]
    # 一种 is any "a kind of", 一家 a family (一家人) as often as a shop; 个 and 次 are the count's frame
    assert counting.measure_words("我有几种爱好？") == [] and counting.measure_words("我去了几次？") == []
    assert counting.measure_words("我这个月去了几家餐厅？") == []
    # a set phrase after a measure is no instance, unless it is what the question counts
    (films,) = counting.measure_words("我今年看了几部电影？")
    assert "分" in films.not_before.split("|")
    (rain,) = counting.measure_words("这个月一共下了几场雨？")
    assert "雨" not in rain.not_before.split("|") and "病" in rain.not_before.split("|")


def test_a_measure_holds_the_pair_and_the_kind_it_measures_but_not_a_set_phrase():
    import apsw

    from reverie.search.keyword import analyse_query, expand_kinds, expand_measures

    def holds(question: str, text: str) -> dict[str, bool]:
        conn = apsw.Connection(":memory:")
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        qt = analyse_query(conn, question, "cjk", "t", 10)
        expand_kinds(qt, question, "cjk")
        assert expand_measures(qt, counting.measure_words(question), "cjk")  # the leg asks for them
        return dict(zip(qt.tokens, qt.mask(text, "cjk")))

    shows = "我一共去看了几场演出？"
    assert holds(shows, "周六看了一场话剧。")["几场"] and holds(shows, "在公园看了一场露天的摇滚。")["演出"]
    assert not any(holds(shows, "昨天下了一场大雨。")[t] for t in ("几场", "演出"))
    assert not holds(shows, "下半场太精彩了。")["几场"]  # 半场: half of a match
    assert not holds("我今年看了几部电影？", "一部分钱还给了朋友。")["几部"]
    assert holds("这个月一共下了几场雨？", "昨天下了一场雨。")["几场"]
    assert holds("我给家里一共买了几盆植物？", "厨房添了两小盆薄荷。")["植物"]


BIKE_SPENDING = {
    "memory/2026-02-03.md": "- 给自行车买了新脚踏，九十块。\n- 晚饭吃了面条。\n",
    "memory/2026-02-17.md": "- 修车铺帮我换车胎收了三十块。\n",
    "memory/2026-03-09.md": "- 买了一把骑车用的锁，一百二十元。\n",
    # a line about the bike said in many sessions, naming no amount, with more of the question's
    # characters than any of them (我在, and 在自 and 车上 across the edges of 自行车)
    **{f"memory/2026-0{m}-{d:02d}.md": "- 我在自行车上装了个铃铛。\n- 这周公交车又晚点了。\n"
       for m in (3, 4) for d in (12, 15, 19, 22, 26)},
}


@engines
def test_a_sum_of_money_puts_the_lines_naming_an_amount_first(keyword_memory, monkeypatch):
    m = keyword_memory(BIKE_SPENDING)
    query = "我在自行车上一共花了多少钱？"
    spent = {"memory/2026-02-03.md", "memory/2026-02-17.md", "memory/2026-03-09.md"}
    assert set(result_paths(m, query, NOW)[:3]) == spent
    rows = m.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
    said = {r["snippet"]: r["explain"]["count"] for r in rows}
    assert said["- 修车铺帮我换车胎收了三十块。"]["namesAmount"]
    idle = [c for s, c in said.items() if "铃铛" in s]
    assert idle and all(not c["namesAmount"] and c["multiplier"] == counting.NO_AMOUNT for c in idle)
    monkeypatch.setattr(counting, "NO_AMOUNT", 1.0)  # counterfactual: without it, an idle line comes first
    assert set(result_paths(m, query, NOW)[:3]) != spent


@engines
def test_a_chinese_count_finds_an_instance_by_its_measure(keyword_memory, monkeypatch):
    m = keyword_memory({
        "memory/2026-02-10.md": "- 厨房添了一小盆薄荷。\n",  # names no plant the lexicon knows
        "memory/2026-03-04.md": "- 给书房买了一盆文竹。\n",
        "memory/2026-03-20.md": "- 今天把家里打扫了一遍。\n- 晚上买了点水果。\n",
    })
    query = "我给家里一共买了几盆植物？"
    assert set(result_paths(m, query, NOW)[:2]) == {"memory/2026-02-10.md", "memory/2026-03-04.md"}
    rows = m.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
    members = {r["path"]: r["explain"]["keyword"]["members"] for r in rows}
    assert members["memory/2026-02-10.md"] == {"几盆": "小盆", "植物": "小盆"}, members
    monkeypatch.setattr(counting, "measure_words", lambda question: [])  # without it: the mint goes below
    assert result_paths(m, query, NOW).index("memory/2026-02-10.md") == 2  # the cleaning, which says 家里


def test_a_chinese_count_finds_an_instance_counted_in_digits(keyword_memory, monkeypatch):
    """SQLite: the index holds 2 and 盆多 apart, so the leg asks for "2" followed by a pair starting
    with 盆 (for each number up to DIGIT_COUNTS); the mask reads any number."""
    from reverie.search import keyword

    m = keyword_memory({
        "memory/2026-02-10.md": "- 厨房添了2盆薄荷。\n",
        "memory/2026-03-04.md": "- 给书房买了一盆文竹。\n",
        "memory/2026-03-20.md": "- 今天把家里打扫了一遍。\n- 晚上买了点水果。\n",
        "memory/2026-03-22.md": "- 这周读完了3.5本书。\n- 天气预报说有雨。\n",
    })
    query = "我给家里一共买了几盆植物？"
    assert set(result_paths(m, query, NOW)[:2]) == {"memory/2026-02-10.md", "memory/2026-03-04.md"}
    rows = m.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
    members = {r["path"]: r["explain"]["keyword"]["members"] for r in rows}
    assert members["memory/2026-02-10.md"] == {"几盆": "N盆", "植物": "N盆"}, members
    assert keyword._in_digits("本", "").surface.search("读完了3.5本书") is None  # not a number's decimals
    assert keyword._in_digits("场", "(?!雨)").surface.search("看了12场话剧")
    assert not keyword._in_digits("场", "(?!雨)").surface.search("下了2场雨")
    monkeypatch.setattr(keyword, "DIGIT_COUNTS", 1)  # the leg no longer asks for 2: the cleaning comes first
    assert result_paths(m, query, NOW).index("memory/2026-02-10.md") == 2


def test_a_split_verb_is_joined_only_where_its_second_character_ends_the_word():
    assert counting.without_frame("我这周一共看了几个病人？") == "我这周一共看了 病人？"  # 病人: no 看病
    assert counting.without_frame("我一共见过几个面试官？") == "我一共见过 面试官？"  # 面试官: no 见面
    assert counting.without_frame("我一共见了几次面？") == "我一共见了 面？ 见面"
    assert counting.without_frame("我一共看了几次车展？") == "我一共看了 车展？"  # 看车 is no verb of the list


def test_a_swim_is_said_with_laps_or_a_distance_not_every_游了():
    from reverie.search.keyword import analyse_query, expand_kinds
    import apsw

    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    for question in ("我一共去游了几次泳？", "How many times did I go swimming?"):
        qt = analyse_query(conn, counting.without_frame(question), "cjk", "t", 10)
        assert expand_kinds(qt, question, "cjk")
        assert qt.names_kind("今晚游了二十个来回，肩膀很酸。", "cjk")
        assert qt.names_kind("去游泳馆游了一千米。", "cjk")
        assert not qt.names_kind("五一去杭州旅游了一周。", "cjk")
        assert not qt.names_kind("坐船游了西湖。", "cjk")


def test_a_count_joins_again_a_verb_its_frame_split():
    """游了几次泳 asks about 游泳, as the notes say it, beside its own 游了."""
    assert counting.without_frame("我一共去游了几次泳？") == "我一共去游了 泳？ 游泳"
    assert counting.without_frame("我今年爬过几次山？") == "我今年爬过 山？ 爬山"
    assert counting.without_frame("这个月我跑了多少次步？") == "这个月我跑了 步？ 跑步"
    assert counting.without_frame("我一共看了几个不同的医生？") == "我一共看了 不同的医生？"  # nothing to join
    assert counting.without_frame("我游泳游了几次？") == "我游泳游了 ？"


def test_in_a_message_of_several_sentences_the_one_naming_what_is_counted_says_whose_it_is():
    doctor = lambda s: "医生" in s or "doctor" in s.lower()  # noqa: E731
    theirs = ["用户：晚饭后在公园里走了一圈。我妹妹在读医学院，想当医生。",
              "user: Walked in the park after dinner. My sister is studying to be a doctor."]
    for line in theirs:
        assert counting.not_mine(line, doctor)
        assert not counting.not_mine(line)  # read from its start, the line is the owner's
    assert not counting.not_mine("用户：我妹妹来住了两天。我去看了皮肤科医生。", doctor)
    assert not counting.not_mine("user: My sister visited. I saw the dentist about a filling.",
                                 lambda s: "dentist" in s)
    # the owner joins in the sentence that goes on with it; not in one about something else
    concert = lambda s: "concert" in s or "音乐会" in s  # noqa: E731
    assert not counting.not_mine("user: My sister got tickets for the concert. I loved it.", concert)
    assert not counting.not_mine("用户：我妹妹买了两张音乐会的票。我们一起去的，太棒了。", concert)
    assert counting.not_mine("user: My neighbour's plants all died. I read for a bit before sleeping.",
                             lambda s: "plant" in s)
    # no sentence names it: the line is judged from its start, as before
    assert counting.not_mine("用户：我妹妹在读医学院。", doctor)
    assert not counting.not_mine("用户：晚饭后在公园里走了一圈。", doctor)


SHOWS = ["用户：在市中心看了一场脱口秀，笑死了。", "用户：交响乐音乐会票卖光了，我们还是买到了。",
         "用户：我通勤大概要四十分钟。在公园参加了露天摇滚演出。"]
SHOWS_FILLER = ["用户：我坐在长椅上听了会儿音乐。", "用户：晚饭后在公园里走了一圈。我坐在长椅上听了会儿音乐。",
                "用户：我坐在长椅上听了会儿音乐。下了一整天雨，我就待在家里。"]
CHORES_ZH = ["用户：打印机又卡纸了。", "用户：煮了一大锅汤。", "用户：这周公交车晚点了两次。", "用户：终于把窗户擦干净了。"]


@pytest.mark.semantic
def test_a_count_of_a_kind_puts_the_lines_naming_one_before_lines_that_only_sound_like_it(reverie_home,
                                                                                       monkeypatch):
    """The bundled embedder ranks "我坐在长椅上听了会儿音乐" (listening to music on a bench) with the
    shows: for "几场演出和音乐会" it names neither the kind nor one of it (its 音乐 is no 音乐会), and
    goes below the lines that do."""
    mem = Memory(overrides=['memory.search.provider="local"'])
    mem.init()
    lines = SHOWS + SHOWS_FILLER + CHORES_ZH * 3
    for day, line in enumerate(lines):
        write(mem, f"memory/2026-03-{day % 28 + 1:02d}-{day}.md", f"- {line}\n")
    mem.sync()
    query = "我一共去看了几场演出和音乐会？"

    def first_three() -> tuple[list[str], list[dict]]:
        out = mem.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
        return [r["snippet"][2:] for r in out[:3]], out

    try:
        first, rows = first_three()
        assert sorted(first) == sorted(SHOWS)
        filler = [r for r in rows if "长椅" in r["snippet"]]
        assert filler and all(r["explain"]["count"]["namesKind"] is False
                              and r["explain"]["count"]["multiplier"] == counting.NO_KIND for r in filler)
        assert all(r["explain"]["count"]["namesKind"] for r in rows if r["snippet"][2:] in SHOWS)
        # without it (every line taken to name the kind), a bench among the three
        monkeypatch.setattr(QueryTerms, "names_kind", lambda self, text, tokenizer: True)
        assert sorted(first_three()[0]) != sorted(SHOWS)
    finally:
        mem.close()


DOCTORS = {
    "memory/2026-02-07.md": "- 上午去牙医那里补牙，今年不想再去了。\n",
    "memory/2026-03-10.md": "- 因为胳膊上的疹子去看了皮肤科医生。\n",
    "memory/2026-04-02.md": "- 咳嗽一直不好，去看了全科医生。\n",
    # the question's characters (看, 生) and no doctor, in many sessions
    **{f"memory/2026-05-{d:02d}.md": "- 我哥哥忙着照顾刚出生的宝宝。我们聊到去乡下看奶奶。\n" for d in range(3, 25, 3)},
}


@engines
def test_keyword_only_the_characters_of_a_count_of_a_kind_weigh_less_in_a_line_naming_none_of_it(
        keyword_memory, monkeypatch):
    from reverie.search import loose

    m = keyword_memory(DOCTORS)
    query = "我今年一共看了几个不同的医生？"
    visits = {"memory/2026-02-07.md", "memory/2026-03-10.md", "memory/2026-04-02.md"}
    assert set(result_paths(m, query, NOW)[:3]) == visits
    rows = m.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
    brother = [r["explain"] for r in rows if "哥哥" in r["snippet"]]
    assert brother and all(e["count"]["namesKind"] is False and e["count"]["multiplier"] == counting.NO_KIND
                           for e in brother)
    # its keyword relevance is what the characters it holds vouch for, ×NO_KIND (it holds no word)
    for e in brother:
        assert e["loose"]["share"] > 0
        assert e["keyword"]["score"] == pytest.approx(loose.WEIGHT * e["loose"]["share"] * counting.NO_KIND, abs=1e-4)
    monkeypatch.setattr(counting, "NO_KIND", 1.0)  # counterfactual: in full, a brother above the dentist
    again = m.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
    for e in (r["explain"] for r in again if "哥哥" in r["snippet"]):
        assert e["keyword"]["score"] == pytest.approx(loose.WEIGHT * e["loose"]["share"], abs=1e-4)
    assert set(result_paths(m, query, NOW)[:3]) != visits


@pytest.mark.parametrize("line", [
    "用户：妹妹结婚了！🎉 周末去听了一场音乐会",  # the next sentence opens with an emoji
    "user: My sister got married.\n- went to a concert after",  # ... with a list's dash
    "user: My sister got married. (Went to a concert after.)",  # ... with a bracket
    "用户：妹妹结婚了。“周末去听了一场音乐会”",  # ... with a quote
])
def test_a_message_is_read_sentence_by_sentence_wherever_a_sentence_ends(line):
    """Another person named in one sentence does not make the owner's concert in the next one theirs,
    whatever the next sentence opens with (where boilerplate.split_sentences splits)."""
    concert = lambda text: "concert" in text or "音乐会" in text  # noqa: E731
    assert not counting.not_mine(line, concert)
    assert counting.not_mine("user: My\tsister went to a concert.", concert)  # any space after "my"


def test_a_line_a_later_lift_can_carry_past_the_judged_ones_is_read_for_the_kind():
    """"How many concerts did I go to in March?": 64 January lines the embedder likes best name no
    concert; in March, "music at home" (no concert) scores above "a jazz gig" (a concert). Both are
    below x0.8 of the 64th, but the question's range lifts March lines x1.25: both are within reach
    and read, so the music line takes x0.8 and the gig is counted first (read only above x0.8 of the
    64th, the music line went unread and stayed first)."""
    from datetime import date

    from reverie.search import pipeline, timeq
    from reverie.search.candidates import Candidate

    names = lambda text: "gig" in text or "concert" in text  # noqa: E731

    def pool() -> list[Candidate]:
        out = []
        for i in range(64):
            c = Candidate(i)
            c.path, c.text, c.vector, c.keyword = f"memory/2026-01-{i % 28 + 1:02d}.md", "user: music on a bench", 1.0, 0.0
            out.append(c)
        for seq, day, text, vector in ((100, 10, "user: listened to music at home", 0.78),
                                       (101, 12, "user: went to a jazz gig downtown", 0.70)):
            c = Candidate(seq)
            c.path, c.text, c.vector, c.keyword = f"memory/2026-03-{day}.md", text, vector, 0.0
            out.append(c)
        return out

    params = pipeline.SearchParams("how many concerts did I go to in March?", 10, 0.0, 0, "cjk",
                                   datetime(2026, 4, 30, tzinfo=timezone.utc), counting=True, mine=True,
                                   names_kind=names,
                                   when=timeq.TimeRange(date(2026, 3, 1), date(2026, 3, 31), "in March"))
    so_far = lambda c: pipeline.VECTOR_WEIGHT * c.vector  # noqa: E731
    p = pool()
    judged = pipeline.kind_judged(p, so_far, params)
    assert {c.seq for c in p if id(c) in judged} >= {100, 101}
    for c in p:
        c.names_kind = names(c.text) if id(c) in judged else None
        c.content = pipeline.VECTOR_WEIGHT * c.vector
    pipeline._rescore(p, params, True, True, judge=True)
    assert max(p, key=lambda c: c.score).seq == 101
    # without the question's range nothing lifts March: the rule reads no further than x0.8
    plain = pipeline.SearchParams("how many concerts did I go to?", 10, 0.0, 0, "cjk",
                                  datetime(2026, 4, 30, tzinfo=timezone.utc), counting=True, names_kind=names)
    q = pool()
    assert {c.seq for c in q if id(c) in pipeline.kind_judged(q, so_far, plain)} == set(range(64))
