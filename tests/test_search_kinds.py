"""Kinds and their members (text/kinds.py, keyword.expand_kinds): a question that counts or gathers
names a kind ("doctors", "演出"), the notes name its members ("orthodontist", "芭蕾"). Real SQLite
and PostgreSQL, keyword-only: the keyword index is all these tests ask of. The notes use members
the long-history benchmark does not (it was in view when the lexicon was written)."""

from __future__ import annotations

from datetime import datetime, timezone

import apsw
import pytest

from reverie.search.keyword import _straddling, analyse_query, expand_kinds, expand_methods
from reverie.text.kinds import with_heads_named

from workspace_helpers import result_paths

engines = pytest.mark.usefixtures("store_backend")

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)
DOCTORS = {
    "memory/2026-02-03.md": "- Saw an orthodontist about the gap in my teeth.\n",
    "memory/2026-03-11.md": "- The cardiologist says my heart is fine, just less coffee.\n",
    "memory/2026-04-20.md": "- Booked a neurologist for the headaches, went on Friday.\n",
    "memory/2026-05-02.md": "- Painted the garden fence, two coats.\n",
    "memory/2026-05-09.md": "- The doctor's office moved to Elm Street.\n",
}


def paths(m, query: str, **kw) -> list[str]:
    return result_paths(m, query, NOW, **kw)


def _expanded(question: str, tokenizer: str = "cjk"):
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    qt = analyse_query(conn, question, tokenizer, "t", 10)
    return qt, expand_kinds(qt, question, tokenizer)


def held(question: str, text: str, word: str) -> bool:
    """Whether ``text`` holds the query token ``word`` (a head word of ``question``, as stemmed)."""
    qt, _ = _expanded(question)
    return qt.mask(text, "cjk")[qt.tokens.index(word)]


def test_a_head_word_is_held_by_its_members():
    qt, members = _expanded("How many plants did I buy?")
    asked = {m.fts for m in members}
    assert '"monstera"' in asked and '"绿萝"' in asked  # the leg asks for members in both languages
    assert held("How many plants did I buy?", "I bought a monstera for the hall.", "plant")
    assert held("How many plants did I buy?", "买了一盆绿萝。", "plant")
    assert not held("How many plants did I buy?", "I bought a new lamp for the hall.", "plant")
    # a Chinese member anywhere in a run of characters, not only at its end
    assert held("我一共看了几个医生？", "昨天去看牙医了。", "医生")
    assert held("How many plants did I buy?", "买了一盆绿萝放在客厅里", "plant")
    # a phrase member needs its words in a row: "snake plant", not "snake" nor "plant … snake"
    assert held("How many houseplants do I have?", "Got a snake plant for the bedroom.", "housepl")
    assert not held("How many houseplants do I have?", "Saw a snake in the garden.", "housepl")
    assert not held("How many houseplants do I have?", "The plant manager saw a snake.", "housepl")
    # a question naming no kind, or the trigram tokenizer: nothing
    qt3, none = _expanded("How many emails did I send?")
    assert none == [] and not qt3.alts
    assert _expanded("How many plants?", "trigram")[1] == []


def test_a_kind_counts_only_in_a_question_that_means_it():
    # "spend" is money only in "how much … spend"; "book" a kind only as a noun; live shows not TV
    assert _expanded("How much have I spent on my bike in total?")[1]
    assert not any(m.fts == '"dollars"' for m in _expanded("How many hours did I spend gaming?")[1])
    assert not any(m.fts == '"novel"' for m in _expanded("How many restaurants did I book?")[1])
    assert any(m.fts == '"novel"' for m in _expanded("How many books did I read?")[1])
    assert not any(m.fts == '"ballet"' for m in _expanded("How many TV shows did I watch?")[1])
    # words that name something else as often are no members: ran out of milk is no run
    assert not held("How many times did I go jogging?", "We ran out of milk.", "jog")
    # nor a question's head word in another sense: "show up late", a performance review, a program's classes
    assert not any(m.fts == '"opera"' for m in _expanded("How many times did I show up late to work?")[1])
    assert not any(m.fts == '"opera"' for m in _expanded("How many performance reviews did I have?")[1])
    assert not any(m.fts == '"workshop"' for m in _expanded("How many classes did I refactor in the Python code?")[1])
    assert not any(m.fts == '"书"' or m.fts == '"小说"' for m in _expanded("How many flights did you book for me?")[1])
    # one's employer and one's home: not a workout, hours worked, or a live show
    assert any(m.fts == '"joined"' for m in _expanded("Where do I work now?")[1])
    assert any(m.fts == '"离职"' for m in _expanded("我现在在哪家公司上班？")[1])
    assert not any(m.fts == '"joined"' for m in _expanded("How many times did I work out this week?")[1])
    assert not any(m.fts == '"joined"' for m in _expanded("How many hours did I work this week?")[1])
    assert not any(m.fts == '"离职"' for m in _expanded("我这周一共工作了多少个小时？")[1])
    assert not any(m.fts == '"离职"' for m in _expanded("我现在哪天上班？")[1])  # which day, not where
    assert any(m.fts == '"moved to"' for m in _expanded("Where do I live now?")[1])
    assert any(m.fts == '"搬到"' for m in _expanded("我现在住在哪个城市？")[1])
    assert not any(m.fts == '"moved to"' for m in _expanded("How many live shows did I see?")[1])
    assert not any(m.fts == '"moved to"' for m in _expanded("Where can I hear live music now?")[1])
    assert not any(m.fts == '"moved to"' for m in _expanded("What's my email address now?")[1])
    assert not any(m.fts == '"搬到"' for m in _expanded("我现在的邮箱地址是什么？")[1])
    # a member says the home changed, not that anything moved
    assert held("Where do I live now?", "We moved to a flat in Lisbon.", "live")
    assert not held("Where do I live now?", "We moved the standup to 10am.", "live")
    # money is spent in yuan, not in hours
    assert any(m.fts == '"块钱"' for m in _expanded("我在自行车上一共花了多少钱？")[1])
    assert not any(m.fts == '"块钱"' for m in _expanded("我一共花了多少时间学吉他？")[1])


def test_a_pair_across_the_edge_of_a_chinese_head_is_no_word():
    question = "我在自行车上一共花了多少钱？"
    qt, _ = _expanded(question)
    assert {"在自", "车上"} <= qt.void and "车上" in qt.tokens  # still weighed: every other text scores as before
    assert not held(question, "我在考虑春天骑车上班。", "车上")  # 骑车上班: a commute, not a bike
    assert held(question, "我在考虑春天骑车上班。", "我在")
    assert _straddling("去看了几场演出和音乐会", "演出") == {"出和"}  # 场演: a measure's, not a particle's
    assert _straddling("演出", "演出") == set() and _straddling("买了自行车, 自行车", "自行车") == {"了自"}
    # not a character that may make a word with the head: 健身房, 电影院, 动物园, 运动鞋, 演出票
    for question, head in (("我现在是哪家健身房的会员？", "健身"), ("我去了几次电影院？", "电影"), ("我今年去了几次动物园？", "动物"),
                           ("我买了几双运动鞋？", "运动"), ("我一共买了几张演出票？", "演出")):
        assert _straddling(question, head) == set(), question


def test_a_member_is_held_as_written_in_the_singular_or_the_plural():
    # the stem alone is not the member: "training" is stemmed as "train", "card game" needs both words
    assert held("How many classes did I take?", "Did a first aid training at work.", "class")
    assert not held("How many classes did I take?", "Took the train to Leeds.", "class")
    assert not held("How many games did I play?", "Paid with my credit card.", "game")
    # a phrase's last word in the singular or the plural, "y" as "ies"
    assert held("How many plants did I buy?", "Two peace lilies for the hall.", "plant")
    assert held("How much have I spent on my bike in total?", "A new brake pad, 12 dollars.", "bike")
    # a phrase right against Chinese text
    assert held("How many concerts did I go to?", "周末去看了stand-up comedy，很好笑。", "concert")


@engines
def test_a_count_of_a_kind_finds_each_member_named(keyword_memory):
    m = keyword_memory(DOCTORS)
    got = paths(m, "How many different doctors did I see?")
    for note in ("memory/2026-02-03.md", "memory/2026-03-11.md", "memory/2026-04-20.md"):
        assert note in got, got
    assert "memory/2026-05-02.md" not in got
    # a lookup asks for one note its own words find: the members are not brought
    assert paths(m, "Where is the doctor's office?") == ["memory/2026-05-09.md"]
    # explain names the member that held the head word (none where the text says "doctor" itself)
    rows = m.search("How many different doctors did I see?", 6, 0.0, now=NOW, record_signals=False,
                    explain=True)["results"]
    members = {r["path"]: r["explain"]["keyword"]["members"] for r in rows}
    assert members["memory/2026-03-11.md"] == {"doctors": "cardiologist"}, members  # the question's word
    assert members["memory/2026-05-09.md"] == {}, members


@engines
def test_a_chinese_count_finds_the_shows(keyword_memory):
    m = keyword_memory({
        "memory/2026-02-14.md": "- 在大剧院看了一场芭蕾，很美。\n",
        "memory/2026-03-08.md": "- 周末和朋友去听了相声。\n",
        "memory/2026-04-25.md": "- 去音乐节玩了两天，晒黑了。\n",
        "memory/2026-05-01.md": "- 把阳台打扫了一遍。\n",
    })
    got = paths(m, "我一共看了几场演出？")
    assert set(got[:3]) == {"memory/2026-02-14.md", "memory/2026-03-08.md", "memory/2026-04-25.md"}, got
    assert "memory/2026-05-01.md" not in got


@engines
def test_money_spent_on_a_thing_is_found_under_its_other_names(keyword_memory):
    m = keyword_memory({
        "memory/2026-03-02.md": "- Paid 40 dollars for new brake pads on the bicycle.\n",
        "memory/2026-03-20.md": "- A helmet for cycling, 55 dollars.\n",
        "memory/2026-04-04.md": "- Bought groceries for the week.\n",
        "memory/2026-04-18.md": "- Watered the tomatoes.\n",
    })
    got = paths(m, "How much have I spent on my bike in total?")
    assert set(got[:2]) == {"memory/2026-03-02.md", "memory/2026-03-20.md"}, got
    assert "memory/2026-04-18.md" not in got
    # explain names each head the note holds through a member: an English one by the question's
    # word, a Chinese one whole (not its bigrams 自行 and 行车)
    rows = m.search("How much have I spent on my bike in total?", 6, 0.0, now=NOW, record_signals=False,
                    explain=True)["results"]
    assert {r["path"]: r["explain"]["keyword"]["members"] for r in rows}["memory/2026-03-20.md"] == \
        {"spent": "dollars", "bike": "cycling"}
    m.close()
    m = keyword_memory({"memory/2026-05-02.md": "- 买打气筒花了七十块。\n"})  # (the same home: the notes above too)
    rows = m.search("我在自行车上一共花了多少钱？", 6, 0.0, now=NOW, record_signals=False, explain=True)["results"]
    members = {r["path"]: r["explain"]["keyword"]["members"] for r in rows}
    assert members["memory/2026-05-02.md"] == {"自行车": "打气筒"}, members  # (花了 it holds itself)


@engines
def test_every_member_is_asked_for_not_only_the_first_few(keyword_memory):
    """A kind with many members (relatives: 19 English and 17 Chinese words): the leg asks for all
    of them (the keyword query keeps 24 tokens; a first version found 24 of 38 notes)."""
    from reverie.text.kinds import KIND_LIST

    relatives = next(k for k in KIND_LIST if "relatives" in k.heads).members
    notes = {f"memory/2026-0{1 + i // 28}-{1 + i % 28:02d}.md": f"- Visited my {w} on Sunday.\n" if w.isascii()
             else f"- 周日去看望了{w}，聊了很久。\n" for i, w in enumerate(relatives)}
    m = keyword_memory(notes)
    out = m.search("How many relatives did I visit in total?", 60, 0.0, now=NOW, record_signals=False)
    assert {r["path"] for r in out["results"]} == set(notes)


@engines
def test_a_count_that_also_asks_for_advice_keeps_its_members(keyword_memory):
    m = keyword_memory({"memory/2026-05-01.md": "- Tried the new tapas bar with Ana, I love the place.\n",
                        "memory/2026-05-03.md": "- Dinner at a Sichuan restaurant downtown.\n"})
    got = paths(m, "How many restaurants did I go to in total? Any recommendations for the next one?")
    assert set(got) == {"memory/2026-05-01.md", "memory/2026-05-03.md"}, got


@engines
def test_a_question_about_now_finds_the_member_that_said_it(keyword_memory):
    # "What car do I drive now?": the car is named by its make, as people say it
    m = keyword_memory({"memory/2026-01-10.md": "- I bought a used Toyota Corolla, it runs well.\n",
                        "memory/2026-03-02.md": "- Backed up my photos to an external drive.\n",
                        "memory/2026-03-09.md": "- Watered the tomatoes.\n"})
    assert paths(m, "What car do I drive now?")[0] == "memory/2026-01-10.md"
    # keyword-only, a lookup without "now" is left to its words: without vectors nothing judges which
    # line naming a car answers it (with them, a thing one has one at a time takes its kind's members:
    # test_search_one_at_a_time.py)
    assert "memory/2026-01-10.md" not in paths(m, "What car do I drive?")


def test_a_chinese_question_names_a_kind_by_one_character_after_which_or_how_many():
    assert with_heads_named("我现在开的是什么车？") == "我现在开的是什么车？ 汽车"
    assert with_heads_named("我家有几辆车了") == "我家有几辆车了 汽车"
    assert with_heads_named("我一共读完了几本书？") == "我一共读完了几本书？ 书籍"
    # the character begins another word: no kind
    assert with_heads_named("我要买什么车票？") == "我要买什么车票？"
    assert with_heads_named("我一共买了几本书架？") == "我一共买了几本书架？"
    assert with_heads_named("车停在哪里？") == "车停在哪里？"  # (no asking word before it)


@engines
def test_a_chinese_question_about_now_finds_the_car_named_by_its_model(keyword_memory, monkeypatch):
    """"我现在开的是什么车？" names no head of the car kind (车 is one character); read as naming
    汽车, it finds the earlier car named by its model beside the later one, the later first."""
    from reverie.search import pipeline

    notes = {"memory/2026-02-04.md": "- 买了一辆二手凯美瑞，开着挺好。\n- 今晚吃的是剩饭。\n",
             "memory/2026-03-12.md": "- 把旧车卖了，现在开的是雅阁。\n",
             **{f"memory/2026-0{mo}-{d:02d}.md": "- 下午开的会拖了很久，是什么事都要讨论。\n- 公交车晚点了，车上很挤。\n"
                for mo in (4, 5) for d in (3, 9, 15, 21)}}
    m = keyword_memory(notes)
    cars = ["memory/2026-03-12.md", "memory/2026-02-04.md"]
    assert paths(m, "我现在开的是什么车？")[:2] == cars

    def model_named() -> dict:
        rows = m.search("我现在开的是什么车？", 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
        first = next(r for r in rows if r["path"] == "memory/2026-02-04.md")
        return (first["explain"]["keyword"] or {}).get("members", {})

    assert model_named() == {"汽车": "凯美瑞"}
    monkeypatch.setattr(pipeline, "with_heads_named", lambda question: question)  # counterfactual
    assert not model_named()


def _method_held(question: str, text: str) -> bool:
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    qt = analyse_query(conn, question, "cjk", "t", 10)
    expand_methods(qt, question, "cjk")
    return qt.mask(text, "cjk")[qt.tokens.index("方法")]


def test_a_named_method_holds_the_word_method():
    q = "你推荐过我哪种记账方法？"
    for text in ("可以用五十三十二十法：一半用于必需。", "试试番茄工作法吧。", "番茄工作法很好用", "用五十三十二十法来记账",
                 "物理疗法每周两次", "艾宾浩斯记忆法帮我背单词", "四象限法排优先级", "这个方法不错。"):
        assert _method_held(q, text), text
    # not any word ending in 法: an opinion, the law, grammar, calligraphy, "no way", "cannot"
    for text in ("我有个想法。", "他的看法不一样。", "开会到很晚，真是没办法。", "语法好难", "周末练书法", "看魔法电影",
                 "闯红灯是违法的", "我实在无法。", "法律规定", "去法国玩"):
        assert not _method_held(q, text), text
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    # a question asking for no method: nothing added ("地方法律" holds the pair 方法, and asks for a law);
    # the trigram tokenizer takes none
    for question in ("我最近在看什么书？", "这个地方法律怎么规定？"):
        qt = analyse_query(conn, question, "cjk", "t", 10)
        assert expand_methods(qt, question, "cjk") == [] and not qt.alts, question
    assert expand_methods(analyse_query(conn, q, "cjk", "t", 10), q, "trigram") == []


@engines
def test_a_method_asked_for_in_chinese_is_found_by_its_name(keyword_memory):
    """"你推荐过我什么提高效率的方法？" shares no word with the advice that answers it, which names the
    method ("番茄工作法", a particle after it); lines ending in 法 that name none (想法, 没办法, 语法) are
    no method, however many."""
    notes = {"memory/2026-02-10.md": "- 助手：可以试试番茄工作法吧，专注二十五分钟，休息五分钟。\n",
             "memory/2026-03-12.md": "- 周末整理了书架。\n"}
    for i, text in enumerate(("我有个想法。", "真是没办法。", "语法好难。", "他的看法不一样。") * 15):
        notes[f"memory/2026-01-{1 + i % 28:02d}-{i}.md"] = f"- {text}\n"
    m = keyword_memory(notes)
    q = "你推荐过我什么提高效率的方法？"
    got = paths(m, q)
    assert got[:1] == ["memory/2026-02-10.md"], got
    rows = m.search(q, 6, 0.0, now=NOW, record_signals=False, explain=True)["results"]
    assert rows[0]["explain"]["keyword"]["members"] == {"方法": "工作法"}
    # asked as an agent asks (the default minScore): the method alone
    got = [r["path"] for r in m.search(q, 6, now=NOW, record_signals=False)["results"]]
    assert got == ["memory/2026-02-10.md"], got
