"""A question about what something is now (search/current.py): the statement that changed it is
found and lifted, though it shares no word with the question, with the real bundled embedder."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory
from reverie.search import current, pipeline

from workspace_helpers import filler_days, write

pytestmark = pytest.mark.semantic

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)
# ordinary days, several of them saying "work" or "car" in passing
FILLER = ["I'm thinking about cycling to work in spring.", "The printer at the office jammed again this morning.",
          "My colleague rides a motorbike.", "Good weather for a walk in the evening.",
          "My manager wants the quarterly slides by Friday.", "The bus was late twice this week.",
          "I made a big pot of soup for the week.", "The supermarket was out of oat milk again.",
          "I slept badly, maybe too much coffee.", "The electricity bill went up again.",
          "I walked around the park after dinner.", "My laptop battery drains really fast.",
          "Traffic was terrible on the way home.", "I backed up my photos to an external drive.",
          "The car park at the station was full.", "My brother washed his car on Sunday.",
          "下班路上堵车特别严重。", "同事每天开车上班。", "今天上班打印机又卡纸了。", "我在考虑春天骑车上班。",
          "周末去洗了车。", "超市的燕麦奶又卖完了。"]
CHANGES = {"memory/2026-02-10.md": "- Update on the job front: I left Bluefin Labs and joined Acme Logistics.\n",
           "memory/2026-02-17.md": "- 大消息：我从顺达物流离职，加入了北风科技。\n"}
# other changes, of things the questions do not ask about
OTHER_CHANGES = {"memory/2026-01-10.md": "- I switched my phone plan to a cheaper one.\n",
                 "memory/2026-01-11.md": "- We moved the sofa into the living room.\n",
                 "memory/2026-01-12.md": "- 我把手机套餐换成了便宜的。\n", "memory/2026-01-13.md": "- 我们搬到了新的小区。\n"}


def _ranked(m: Memory, query: str) -> list[str]:
    return [r["path"] for r in m.search(query, 10, 0.0, now=NOW, record_signals=False)["results"]]


def test_a_question_about_now_finds_the_statement_that_changed_it(reverie_home, store_backend, monkeypatch, tmp_path):
    m = Memory(home=tmp_path / "h", overrides=['memory.search.provider="local"'])  # (env= would hide the engine)
    m.init()
    filler_days(m, FILLER)
    for rel, text in {**CHANGES, **OTHER_CHANGES}.items():
        (m.workspace / rel).write_text(text, encoding="utf-8")
    m.sync()
    try:
        asked = ("Which company do I work for now?", "我现在在哪家公司上班？")
        assert m.search("Which company do I work for now?", 3, 0.0, now=NOW, record_signals=False)["debug"]["backend"] == store_backend
        # one owner, one employer now: the later change (in Chinese) answers both questions (a job taken
        # is a facet of life in both languages: text/facets.py), the English one found below it
        newest = "memory/2026-02-17.md"
        for query in asked:
            assert _ranked(m, query)[:2] == [newest, "memory/2026-02-10.md"], query
            # only the change most relevant to the question is lifted: every change in the band
            # put "我把手机套餐换成了便宜的" third for the question about one's employer
            res = m.search(query, 10, 0.0, now=NOW, record_signals=False, explain=True)
            lifted = [r["path"] for r in res["results"] if r["explain"]["now"]["multiplier"] > 1.0]
            assert len(lifted) == 1 and lifted[0] in CHANGES, query  # (one of the job changes)
            assert not set(OTHER_CHANGES) & set(r["path"] for r in res["results"][:3]), query
        # without the change leg, the lift, the employer's kind (text/kinds.py: "joined", 离职 hold "work",
        # 上班) and the facet's words (离职 for "work"), the lines that say "work" / 上班 come first
        monkeypatch.setattr(current, "LEG_LIMIT", 0)
        monkeypatch.setattr(current, "CHANGE_BOOST", 1.0)
        monkeypatch.setattr(pipeline, "expand_kinds", lambda *a: [])
        monkeypatch.setattr(pipeline, "expand_facets", lambda *a: [])
        for query in asked:
            assert _ranked(m, query)[0] not in CHANGES, query
    finally:
        m.close()


@pytest.mark.parametrize("query", ["Where do I work now?", "What car do I drive these days?",
                                   "What is my current gym membership?", "我现在在哪家公司上班？", "我目前住在哪里？",
                                   "狗现在每天该吃多少？", "我现在每天需要吃几片药？"])
def test_questions_about_now(query):
    assert current.asks_now(query)


@pytest.mark.parametrize("query", ["Where did I work in 2019?", "What car did my brother buy?", "我以前住在哪里？",
                                   "How many times did I go swimming?", "Do I need to start any paperwork now?",
                                   "What should I do now?", "现在需要开始办什么手续吗？", "我现在跳槽会有什么问题吗？",
                                   "我现在该做什么？", "What do I do now?", "What did we decide in the latest meeting?",
                                   "How many times have I gone swimming up to now?"])
def test_questions_not_about_now(query):
    assert not current.asks_now(query)


@pytest.mark.parametrize("text", ["Big news: I quit my job at Bluefin Labs and joined Acme Logistics.",
                                  "Sold the old car and now I drive a VW Golf.", "We moved to Berlin in May.",
                                  "I switched my membership to Pulse Studio.",
                                  "New personal best, I ran 15 kilometres without stopping!",
                                  "大消息：我从顺达物流离职，加入了北风科技。", "把旧车卖了，现在开的是明锐。",
                                  "会员换成了市体育中心。", "我们搬到了杭州。", "我跳槽到北风科技了。", "I'm now at Acme."])
def test_statements_of_change(text):
    assert current.states_change(text)


# "my new …" is left out: "I started my new job at Bluefin Labs" is the state a later line changed,
# and lifting it put the old employer first
@pytest.mark.parametrize("text", ["I'm thinking about cycling to work in spring.", "The printer at work jammed again.",
                                  "I started my new job at Bluefin Labs this week.", "Tom joined us for dinner.",
                                  "I left my keys at home.", "Now I need to buy groceries.", "现在在开会。",
                                  "My brother washed his car on Sunday.", "今天上班打印机又卡纸了。", "周末去洗了车。"])
def test_lines_that_change_nothing(text):
    assert not current.states_change(text)


def test_keyword_only_the_lift_is_judged_on_the_words(reverie_home):
    """Keyword-only (no change leg: relevance is the words), the statement of change that holds the
    question's words is lifted, one holding fewer is outside the band, and explain says which."""
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    lines = ["I switched my gym membership plan to Pulse Studio.", "We moved the gym membership cards to a drawer.",
             "The gym was crowded on Monday."]
    for day, line in zip((3, 1, 2), lines):  # the switch is the latest (else the newest-first order decides)
        write(mem, f"memory/2026-05-0{day}.md", f"- {line}\n")
    mem.sync()
    res = mem.search("Which gym membership plan do I have now?", 6, 0.0, record_signals=False, explain=True, now=NOW)
    mem.close()
    got = {r["snippet"][2:]: r["explain"]["now"] for r in res["results"]}
    assert got[lines[0]] == {"statesChange": True, "multiplier": current.CHANGE_BOOST}
    assert got[lines[1]] == {"statesChange": True, "multiplier": 1.0}
    assert got[lines[2]] == {"statesChange": False, "multiplier": 1.0}


def test_the_change_lifted_is_one_the_keywords_found_and_of_whom_the_question_asks():
    """A question about now lifts one statement of change (``current.lifted``): not one only its vector
    found ("现在帮我们遛狗的换成陈晨了" for "我现在在哪个团队？"), nor the change of someone the question does
    not ask about, nor, when it asks about one of the owner's people, the owner's own; and only one that
    shares a word of the question (in Chinese a character of what it asks about), or that the kinds' and
    facets' leg found naming a member of what it asks (``member``: "moved" for where one lives)."""
    from reverie.search.candidates import Candidate
    from reverie.search.keyword import KeywordHit

    def cand(seq: int, text: str, content: float, kw: bool = True, member: bool = False) -> Candidate:
        return Candidate(seq, text=text, content=content, kw=KeywordHit(seq, -1.0, seq, False) if kw else None,
                         member=member)

    dog = cand(1, "现在帮我们遛狗的换成陈晨了。", 0.8, kw=False)
    team = cand(2, "组织架构调整，我换到商业化团队了。", 0.7)
    assert current.lifted([dog, team], "我现在在哪个团队？") == {id(team)}
    mine = cand(3, "上个月搬家了，搬到海淀五道口附近。", 0.8)
    parents = cand(4, "爸妈上周搬到苏州了。", 0.7)
    assert current.lifted([mine, parents], "我爸妈现在住在哪个城市？") == {id(parents)}
    sister = cand(5, "My sister moved to Denver last month.", 0.8)
    me = cand(6, "We moved to Berlin in May.", 0.7, member=True)
    assert current.lifted([sister, me], "Where do I live now?") == {id(me)}
    # the owner with another: the owner's move (a fresh-eyes review's case)
    both = cand(7, "My husband and I moved to Denver in October.", 0.6, member=True)
    assert current.lifted([sister, both], "Where do I live now?") == {id(both)}
    # one of the owner's people said short, as speech does: 我爸 is the father, not the owner
    dad = cand(9, "我爸把朗逸卖了，提了一辆比亚迪汉，纯电的。", 0.8)
    sold = cand(10, "I sold the Civic last week and picked up a used Tesla Model 3.", 0.7, member=True)
    assert current.lifted([dad, sold], "What car do I have right now?") == {id(sold)}
    assert current.lifted([dad, sold], "我爸现在开什么车？") == {id(dad)}
    sister = cand(11, "我的姐姐搬到了上海。", 0.8)
    assert current.lifted([sister, me], "我现在住在哪里？") == {id(me)}
    # in a long message the sentence of the change says whose it is
    long = cand(8, "My cousin is getting married next year. Big news: I left Greenfield Bank and joined Acme.", 0.6,
                member=True)
    assert current.lifted([long], "Where do I work now?") == {id(long)}
    # a change the keyword index found by no word of what is asked (我的, 换了): another matter (fresh update
    # set 8: a new language teacher was lifted above the new orthodontist); a character of it is one
    teacher = cand(12, "我换了新的中文老师，她叫周晓雯，她说我的声调进步了很多！", 0.8)
    braces = cand(13, "转到华西口腔了，现在换成邓主任帮我调牙套了", 0.7)
    assert current.lifted([teacher, braces], "现在谁负责我的牙齿矫正？") == {id(braces)}
    assert current.lifted([teacher], "现在谁负责我的牙齿矫正？") == set()
    assert current.lifted([dog, team, me], "Where do I live now?") == {id(me)}
    me.member = False
    assert current.lifted([me], "Where do I live now?") == set()


@pytest.mark.parametrize("text, people, owner", [
    ("我爸把朗逸卖了。", {"爸爸"}, False), ("我爸爸搬家了。", {"爸爸"}, False), ("我妈下周来。", {"妈妈"}, False),
    ("我爸妈现在住在哪个城市？", {"爸妈"}, False), ("我的姐姐搬到了上海。", {"姐姐"}, False),
    ("我和我妈搬到了杭州。", {"妈妈"}, True), ("我们搬到了杭州。", set(), True), ("My dad moved to Leeds.", {"dad"}, False),
    # 哥们 (a friend), 姐夫 (a sister's husband) are other people, not the sibling; 老爸 is 爸爸
    ("我哥们儿搬到深圳了。", {"哥们"}, False), ("我姐夫换了工作。", {"姐夫"}, False), ("我老爸把车卖了。", {"爸爸"}, False)])
def test_the_owners_people_said_short_or_whole(text, people, owner):
    """One of the owner's people as speech says them (我爸, 我的姐姐) is that person, not the owner
    speaking (text/people.py), and 我爸 is the 爸爸 of another line."""
    from reverie.text.people import OWNER, people_in

    assert people_in(text) == people
    assert (OWNER.search(text) is not None) == owner
