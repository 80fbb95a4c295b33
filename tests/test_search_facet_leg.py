"""A question about what holds naming a facet of life finds the lines naming it in other words, in
either language (search/keyword.py ``expand_facets``, text/facets.py): "新房东是个年轻人叫陈磊" for "Who's my
landlord?", "办了张地铁卡" for "我平时怎么去上班？". Real SQLite and PostgreSQL, keyword-only: the keyword
index is all these tests ask of. And the pair reading such a line then meets (search/newest.py
``_linked``): the change must be said of the facet, and whom the question names must be named."""

from __future__ import annotations

from datetime import datetime, timezone

import apsw
import pytest

from reverie.search.keyword import analyse_query, expand_facets
from reverie.search.newest import prefer_newest
from reverie.text.facets import facets_of

from answer_rows import two_answers
from workspace_helpers import result_paths

engines = pytest.mark.usefixtures("store_backend")

NOW = datetime(2026, 11, 2, 12, 0, tzinfo=timezone.utc)


def _expanded(question: str):
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    qt = analyse_query(conn, question, "cjk", "t", 10)
    return qt, expand_facets(qt, question, "cjk")


def test_the_question_s_word_of_a_facet_is_held_by_the_facet_s_other_words():
    qt, members = _expanded("Who's my landlord?")
    words = {m.word for m in members}
    assert {"房东", "landlady"} <= words and "rent" not in words  # who the landlord is, not what the rent is
    assert qt.mask("房子被卖了，新房东是个年轻人叫陈磊", "cjk") == [t == "landlord" for t in qt.tokens]
    # a phrase of the facet in the question ("report to": its stop word is no query token)
    qt, members = _expanded("Who do I report to?")
    assert any(qt.mask("Reorg went through, Janelle Osei is my boss now", "cjk"))
    assert not any(qt.mask("The store manager gave me a discount", "cjk"))  # a manager of something else
    # a Chinese word kept from its other sense keeps it here too: 工资卡 is a bank card
    qt, _ = _expanded("我现在月薪多少？")
    assert any(qt.mask("工资涨到一万八了", "cjk")) and not any(qt.mask("我的工资卡丢了", "cjk"))
    # a question naming no facet, or not asking what holds, is left as it is
    assert _expanded("Where is the doctor's office?")[1] == []


@engines
def test_a_later_line_in_other_words_is_found_for_a_question_about_now(keyword_memory):
    m = keyword_memory({
        "memory/2026-10-01.md": "- My landlord is Mr. Petrakis, slow at fixing stuff.\n",
        "memory/2026-10-05.md": "- Painted the garden fence, two coats.\n",
        "memory/2026-10-11.md": "- 房子被卖了，新房东是个年轻人叫陈磊，微信秒回。\n",
        "memory/2026-10-12.md": "- 每天开车上班，走北四环大概四十分钟。\n",
        "memory/2026-10-16.md": "- 车限号太烦了，干脆办了张地铁卡，坐10号线过去。\n",
    })
    got = result_paths(m, "Who's my landlord?", NOW)
    assert got[0] == "memory/2026-10-11.md" and "memory/2026-10-01.md" in got, got
    assert "memory/2026-10-05.md" not in got
    got = result_paths(m, "我平时怎么去上班？", NOW)
    assert "memory/2026-10-16.md" in got, got


@pytest.mark.parametrize("earlier, later, query, first", [
    # the change is the cat's food, and the vet only spoke; nor is the dog the question names in it
    ("We switched Biscuit's vet to Happy Paws on Elm.", "猫粮换成渴望了，兽医说蛋白质含量高一点对它好。",
     "Which vet does Biscuit see?", "memory/2026-10-02.md"),
    ("Our cat Miso sees Dr Okafor at the Riverside Vet Clinic.", "猫粮换成渴望了，兽医说蛋白质含量高一点对它好。",
     "Which vet does Miso see?", "memory/2026-10-02.md"),
    # the dentist the earlier line names left, and the next clause says who now
    ("我的牙一直在口腔医院找刘主任看，挂号特别难。", "以前看牙的那位主任退休了，现在挂的是他徒弟赵医生的号。",
     "我看牙找哪位医生？", "memory/2026-10-20.md"),
    # who the landlord is and what the rent is are two facts; a landlord raising it speaks of the rent
    ("Rent is $1,650 a month, due on the 1st.", "房子被卖了，新房东是个年轻人叫陈磊，微信秒回。",
     "Who's my landlord?", "memory/2026-10-02.md"),
    ("Rent is $1,650 a month.", "Landlord hiked it, paying 1,800 for the apartment starting March.",
     "How much is my rent?", "memory/2026-10-20.md"),
    ("My landlord is Mr. Petrakis, nice guy.", "房子被卖了，新房东是个年轻人叫陈磊，微信秒回。",
     "Who's my landlord?", "memory/2026-10-20.md"),
    # one's manager, and someone else's
    ("My manager is Tobias, pretty hands-off.", "Reorg finally went through, Janelle Osei is my boss from here on.",
     "Who do I report to?", "memory/2026-10-20.md"),
    ("My boss is Karen Liu.", "Our team lead now reports to Dan Ortiz after the reorg.",
     "Who is my boss now?", "memory/2026-10-02.md"),
    ("我直属领导是王建国", "组织架构调整了，我现在直接汇报给赵磊", "我现在的领导是谁？", "memory/2026-10-20.md"),
    ("我上司是李娜", "Li Na got promoted to director, so my manager is Kevin Zhao now", "我的上司是谁",
     "memory/2026-10-20.md"),  # (上司 and a manager are one person of the owner's)
    ("My manager is Sam Okafor.", "Sam's on PTO so I'm sending my status updates to Lena instead",
     "Who do I report to?", "memory/2026-10-02.md"),  # covering for a week
    # the friend only recommended the new accountant; "his old partner" is the old accountant's
    ("My accountant is Mark Feldman, he does our taxes every April.", "今年报税换了个会计，叫郑丽，是朋友推荐的。",
     "Who does our taxes now?", "memory/2026-10-20.md"),
    ("我的会计是王会计", "Wang retired, so his old partner Grace Liu is my accountant now", "我的会计是谁",
     "memory/2026-10-20.md"),
    # 干脆 ("just went and") says a change, not of a day that was an exception
    ("每天开车上班，走北四环大概四十分钟", "车限号太烦了，干脆办了张地铁卡，坐10号线过去", "我平时怎么去上班？",
     "memory/2026-10-20.md"),
    ("坐公交上班，大概40分钟", "今天下大雨，干脆打车去公司了", "我上班怎么去", "memory/2026-10-02.md"),
    ("我每天开车去上班", "今天起我干脆改骑车上班了", "我平时怎么去上班？", "memory/2026-10-20.md"),
    # someone else's change, said short (他儿子) or told by a friend (朋友介绍说她…): not the owner's
    ("我的牙医是李医生", "他儿子换了新牙医，现在找张医生", "我的牙医是谁？", "memory/2026-10-02.md"),
    ("我的牙医是李医生", "朋友介绍说她换了新牙医，是张医生", "我的牙医是谁？", "memory/2026-10-02.md"),
    # a reorg is no change of one's manager by itself; the next clause changes another thing
    ("My manager is Priya.", "Survived the reorg, my boss is the same.", "Who's my manager?", "memory/2026-10-02.md"),
    ("My landlord is Mr. Ortiz.", "房东来修了水管，顺便把网换成了电信", "Who's my landlord?", "memory/2026-10-02.md"),
    ("近视400度", "验光结果出来了，左右眼都550", "我近视多少度？", "memory/2026-10-20.md"),  # a number goes on
    # a job taken, across languages
    ("我在一家广告公司做文案，公司叫青橙传媒", "Big news: accepted the offer at Northline Studios, started Monday!",
     "Where do I work?", "memory/2026-10-20.md"),
    ("I'm a line cook at Olive Garden", "last shift at Olive Garden was yesterday, started at a sushi place today",
     "Where do I work?", "memory/2026-10-20.md"),  # (the old one named again, said left)
    ("I work in sales at Oracle", "new job at HubSpot started today, onboarding is a lot",
     "Where am I working these days?", "memory/2026-10-20.md"),
    ("我在饿了么做运营", "接了美团的offer，已经在美团上了两周班了", "我现在在哪上班？", "memory/2026-10-20.md"),
    # a colleague's move, an interview: no change of the owner's
    ("我在阿里做前端", "同事离职了，去了拼多多", "我在哪上班？", "memory/2026-10-02.md"),
    ("I'm a nurse at St. Mary's", "had a job interview at Mercy General, fingers crossed", "Where do I work?",
     "memory/2026-10-02.md"),
])
def test_a_facet_links_two_answers_only_where_the_change_is_of_it(earlier, later, query, first):
    out = prefer_newest([dict(r) for r in two_answers(earlier, later, (0.6, 0.46))], query)
    assert out[0]["path"] == first, [r["snippet"] for r in out]


@pytest.mark.parametrize("text, facets", [
    ("Janelle Osei is my boss from here on", {"manager"}), ("I report to the VP now", {"manager"}),
    ("the store manager gave me a discount", set()), ("our property manager fixed the sink", set()),
    ("Our team lead now reports to Dan", set()), ("组织架构调整了，现在我汇报给李总", {"manager"}),
    ("饭店老板送了个菜", set()), ("老板娘人很好", set()), ("楼下面馆换了个新老板", set()),
    ("got promoted to manager, 3 direct reports", {"job title"}),  # the owner's own title, not one's manager
    ("房东涨到5200了", {"rent", "landlord"}), ("新房东是个年轻人", {"landlord"}), ("rent is $1,650", {"rent"}),
    ("我上班怎么去", {"commute"}), ("每天开车上班", {"commute"}), ("周末开车去郊游", set()),
    # a manager, a boss and reporting to someone in other senses (a fresh-eyes review's cases)
    ("Who's my manager now?", {"manager"}), ("final boss in Elden Ring", set()), ("Please report to gate 12", set()),
    ("switched password managers", set()), ("这家店的老板换人了", set()), ("面馆老板", set()), ("领导力培训", set()),
    ("汇报给客户", set()), ("The landlord put new locks on the door", {"landlord"}),
    # where one works: not working out, nor an offer on a house
    ("Where do I work?", {"workplace"}), ("I work as a data analyst at Northwind Logistics", {"workplace"}),
    ("I work out at the gym", set()), ("we accepted the offer on the house", set()),
    ("Big news! I accepted the offer from Fabrikam", {"workplace"}), ("我在一家广告公司做文案，公司叫青橙传媒", {"workplace"}),
    ("我在阿里做前端", {"workplace"}), ("我在家做饭", set()), ("started at 9 today", set()),
    ("I'm a line cook at Olive Garden", {"workplace"}), ("I'm a bit tired at night", set()),
    # what one makes, a title by its rank, prescriptions moved, who minds the kids (a review's misses)
    ("How much do I make now?", {"pay"}), ("I make about $85k", {"pay"}), ("we make pasta on sundays", set()),
    ("I'm a senior engineer on the payments team.", {"job title"}), ("Officially a senior citizen lol", set()),
    ("Got the promotion!! Officially Staff Engineer as of this week.", {"job title"}),
    ("moved my prescriptions to the Walgreens by work", {"pharmacy"}),
    ("Who picks up the kids from school now?", {"childcare"}), ("Grandma picks the kids up from school", {"childcare"}),
    ("孩子现在谁带？", {"childcare"}), ("奶奶回老家了，现在孩子送托班了", {"childcare"}), ("今天给孩子买了新书包", set()),
    # the same words in other senses (a second review's lines)
    ("we now make 3 loaves of sourdough a week lol", set()), ("I make 10k steps most days", set()),
    ("I now earn 3x points on dining with the new Amex card", set()),
    ("I'm the lead singer in a cover band now", set()), ("I'm officially head over heels for this ramen place", set()),
    ("I'm a senior now so I get the early-bird rate", set()), ("Dan's officially a principal engineer now", set()),
    ("moved my meds to the top shelf now", set()), ("switched my meds from Lexapro to Zoloft", set()),
    ("Took Biscuit to doggy daycare", set()), ("I picked up the kids' passports", set()),
    ("周末带孩子去公园玩了一天", set()), ("晚上看孩子写作业", set()), ("这件外套好看孩子也喜欢", set()), ("孩子们谁看过冰雪奇缘？", set()),
    # a promotion to a job's name, a sleep schedule (a third review's misses)
    ("promoted to staff engineer today!!", {"job title"}), ("promoted to the front of the line", set()),
    ("最近调作息了，每天十点半就睡", {"sleep"}),
    # where a small child spends the day (a review's miss: 孩子转到星星幼儿园了), not a level of skill
    ("孩子转到星星幼儿园了，今天第一天去", {"childcare"}), ("Which preschool does Leo go to now?", {"childcare"}),
    ("他的英语就是幼儿园水平", set()), ("我是幼儿园老师", set()), ("I teach pre-k at Little Acorns", set()),
    ("she's a preschool teacher", set()), ("pre-k drop-off is at 8", {"childcare"}),
    ("we moved him to a new nursery school", {"childcare"}), ("托儿所离家很近", {"childcare"}),
])
def test_the_facets_of_who_one_reports_to_and_who_one_rents_from(text, facets):
    assert facets_of(text) == frozenset(facets)


def _rows(*lines: tuple[str, str, float]) -> list[dict]:
    return [{"path": f"memory/{day}.md", "snippet": f"user: {text}", "score": score, "startLine": 9,
             "citation": f"memory/{day}.md#L9-L9"} for day, text, score in lines]


GYM = ("2026-10-11", "I go to the Planet Fitness on 5th Avenue, usually before work.", 0.79)
MANAGER = ("2026-10-06", "My manager is Priya Nair, she lets me work from home on Fridays.", 0.77)
NEW_JOB = ("2026-10-18", "Big news! I accepted the offer from Fabrikam and started on Monday.", 0.75)
OLD_JOB = ("2026-10-05", "I work as a data analyst at Northwind Logistics, been there almost four years.", 0.73)


def test_an_update_of_the_facet_asked_goes_above_a_first_result_naming_none_of_it():
    # the gym line ranked first on "work"; the job change of the facet asked comes first, the job it
    # replaced marked superseded
    out = prefer_newest(_rows(GYM, MANAGER, NEW_JOB, OLD_JOB), "Where do I work at the moment?")
    assert out[0]["snippet"].endswith(NEW_JOB[1]), [r["snippet"] for r in out]
    assert [r.get("supersededBy") for r in out if r["snippet"].endswith(OLD_JOB[1])] == ["memory/2026-10-18.md#L9-L9"]
    # one line naming the facet, updating nothing, is no reason to move an answer said in other words
    out = prefer_newest(_rows(GYM, MANAGER, NEW_JOB), "Where do I work at the moment?")
    assert out[0]["snippet"].endswith(GYM[1])
    out = prefer_newest(_rows(("2026-10-02", "all my meds come from Rite Aid on Main", 0.6),
                              ("2026-10-20", "heads up: that drugstore added a drive-thru window", 0.58)),
                        "Which pharmacy do I use?")
    assert "Rite Aid" in out[0]["snippet"] and not out[0].get("supersededBy")
    # a first result naming the facet keeps its place: the pair reading alone orders the two
    out = prefer_newest(_rows(OLD_JOB, GYM, NEW_JOB), "Where do I work at the moment?")
    assert out[0]["snippet"].endswith(NEW_JOB[1]) and out[1]["snippet"].endswith(OLD_JOB[1])


SMALL_TALK = ("How's it going today?", "Ok cool", "Pretty good, thanks for asking! How about you?",
              "As an AI, what do you think about oysters?", "Take it easy this weekend!",
              "Do you remember where I climb?", "Can you write me a poem about the sea?", "lol yeah",
              "Find me some deals this week.", "thanks!", "I don't have access to your calendar, do I?",
              "Just tired, long week.", "haha true", "see you tomorrow", "what a day", "nice one")


def _ranked(lines: dict[int, tuple[str, str]], n: int = 20) -> list[dict]:
    """``n`` rows scored from 0.70 down, small talk but at the ranks ``lines`` gives (rank: (day, text))."""
    return _rows(*(lines.get(i, (f"2026-09-{1 + i:02d}", SMALL_TALK[i % len(SMALL_TALK)])) + (0.70 - 0.012 * i,)
                   for i in range(n)))


def test_an_update_of_the_facet_ranked_past_the_first_answers_still_leads():
    # small talk the embedder finds close to any short question ranked above "Got the promotion!!",
    # ninth for "What's my job title?": two lines the facet links are read within the first HORIZON
    senior, staff = ("2026-10-12", "I'm a senior engineer on the payments team."), \
        ("2026-10-22", "Got the promotion!! Officially Staff Engineer as of this week.")
    out = prefer_newest(_ranked({3: senior, 8: staff}), "What's my job title?")
    assert out[0]["snippet"].endswith(staff[1]), [r["snippet"] for r in out[:4]]
    assert [r.get("supersededBy") for r in out if r["snippet"].endswith(senior[1])] == ["memory/2026-10-22.md#L9-L9"]
    # past the HORIZON (the first 16) nothing is read
    out = prefer_newest(_ranked({3: senior, 17: staff}), "What's my job title?")
    assert out[0]["snippet"].endswith(SMALL_TALK[0]) and not any(r.get("supersededBy") for r in out)


@pytest.mark.parametrize("earlier, later, query, led", [
    # a kind one has one at a time, read by the kind's own reading (a fresh-eyes review's case)
    ("I drive a 2012 Honda Civic", "Traded in the Civic, my car now is a used 2021 RAV4", "What car do I drive?", True),
    ("孩子在阳光幼儿园上小班", "孩子转到星星幼儿园了，今天第一天去", "孩子现在在哪个幼儿园？", True),
    # a word shared that far down vouches for nothing: another sense of the kind's word
    ("I bank with Chase, checking and savings",
     "Bank holiday weekend plans changed, now we're going to Brighton instead", "Which bank do I use?", False),
    ("我的工资卡是招商银行的", "今天路过银行门口，发现旁边新开了一家奶茶店，现在天天排长队", "我的银行卡是哪家银行的？", False),
])
def test_past_the_first_answers_only_a_facet_or_a_kind_s_reading_pairs_two_lines(earlier, later, query, led):
    out = prefer_newest(_ranked({1: ("2026-08-08", earlier), 12: ("2026-10-11", later)}), query)
    assert out[0]["snippet"].endswith(later) is led, [r["snippet"] for r in out[:3]]
    assert any(r.get("supersededBy") for r in out) is led


@pytest.mark.parametrize("query, lines, first", [
    # a supposition, someone else's facet, another person's work: none is an update to put first (a
    # fresh-eyes review's cases: the code before put each above the answer)
    ("What's my commute like these days?",
     [("2026-09-20", "taking the 7:40 ferry across the bay every morning now, honestly love it", 0.80),
      ("2026-09-25", "if I moved to Oakland my commute would be like 90 minutes", 0.75),
      ("2026-02-01", "my commute is 20 min by bike", 0.70)], 0),
    ("我现在房租多少？", [("2026-07-01", "新家一个月4500，押一付三", 0.80), ("2026-07-05", "要是搬到朝阳，房租得涨到6000", 0.75),
                   ("2026-01-01", "房租每月3800", 0.72)], 0),
    ("What time do I go to sleep now?",
     [("2026-08-10", "been crashing at like 9:30 since marathon training started", 0.80),
      ("2026-08-12", "Emma's bedtime is now 8pm since school started", 0.74),
      ("2026-02-01", "I go to bed around midnight", 0.72)], 0),
    ("Where does my husband work now?",
     [("2026-10-02", "Dave's first day at the fire station went well", 0.80),
      ("2026-10-05", "I started a new job at the library", 0.75),
      ("2025-03-01", "I work at the bank downtown", 0.72)], 0),
    # and ones that are (the kids asked about, named in the later line)
    ("Who picks up the kids from school now?",
     [("2026-09-05", "soccer practice moved to Thursdays", 0.80),
      ("2026-01-01", "Grandma picks the kids up from school", 0.74),
      ("2026-09-01", "Grandma moved to Florida so now the after-school program picks the kids up from school", 0.72)], 2),
    ("How much do I make now?", [("2026-12-01", "bought a new couch", 0.80), ("2025-06-01", "my salary is 85k", 0.74),
                                 ("2026-11-20", "got the raise!! salary is now 97k", 0.72)], 2),
    ("Who's my dentist?", [("2026-05-01", "finally booked the car in for its service", 0.80),
                           ("2026-01-10", "my dentist is Dr. Patel on Main", 0.74),
                           ("2026-04-20", "new dentist: Dr. Huang at SmileCare, Patel retired", 0.72)], 2),
])
def test_which_update_of_a_facet_goes_first(query, lines, first):
    rows = _rows(*lines)
    out = prefer_newest([dict(r) for r in rows], query)
    assert out[0]["snippet"] == rows[first]["snippet"], [r["snippet"] for r in out]


@pytest.mark.parametrize("earlier, later, query, first", [
    # the sitter's friend minds the owner's kids: the kids are whom the change serves, not whose it is
    ("our babysitter is Kelsey, she does Wednesday and Friday evenings",
     "our old sitter left for college, so her friend Brooke is watching the kids, same two nights",
     "Who's our babysitter?", "memory/2026-10-20.md"),
    ("我们家保姆是刘阿姨", "刘阿姨回老家了，现在换了张阿姨来带孩子", "我们家保姆是谁？", "memory/2026-10-20.md"),
    # one of the owner's people named as the one whose news it is still makes it theirs
    ("our babysitter is Kelsey", "my sister's babysitter quit, so Brooke is watching her kids now",
     "Who's our babysitter?", "memory/2026-10-02.md"),
    # a diet asked of with "any": a kind one has one at a time (text/kinds.py)
    ("I'm vegetarian, but I still eat eggs and dairy.",
     "I've gone fully vegan since the start of the month, so no more eggs or cheese for me.",
     "Do I have any dietary restrictions I should keep in mind when picking recipes?", "memory/2026-10-20.md"),
])
def test_whom_a_change_serves_and_a_diet_asked_of(earlier, later, query, first):
    out = prefer_newest([dict(r) for r in two_answers(earlier, later, (0.6, 0.5))], query)
    assert out[0]["path"] == first, [r["snippet"] for r in out]


@pytest.mark.parametrize("earlier, later, query, first", [
    # a class is a 课 or a 班: 数学班 goes on from the question's 数学课 as 数学课 would
    ("儿子周末在学而思上数学课，周日下午两点", "给儿子换了个数学班，在楼下的小步数学上，周六上午", "儿子周末在哪上数学课？",
     "memory/2026-10-20.md"),
    # and a room is no meeting: 会议 going on into another head is another matter
    ("周会现在在3号会议室开", "成都那趟改签了，会议推迟了两天", "周会现在在哪个会议室开？", "memory/2026-10-02.md"),
])
def test_a_head_naming_the_same_thing_goes_on_alike(earlier, later, query, first):
    out = prefer_newest([dict(r) for r in two_answers(earlier, later, (0.6, 0.55))], query)
    assert out[0]["path"] == first, [r["snippet"] for r in out]


def test_a_facet_s_two_answers_may_score_further_apart():
    # with the default settings the line holding the question's words outscores the later one by far
    earlier, later = ("our babysitter is Kelsey, she does Wednesday and Friday evenings",
                      "our old sitter left for college, so her friend Brooke is watching the kids, same two nights")
    out = prefer_newest([dict(r) for r in two_answers(earlier, later, (0.79, 0.46))], "Who's our babysitter?")
    assert out[0]["path"] == "memory/2026-10-20.md" and out[1].get("supersededBy")
    # not half as relevant: no answer
    out = prefer_newest([dict(r) for r in two_answers(earlier, later, (0.79, 0.35))], "Who's our babysitter?")
    assert out[0]["path"] == "memory/2026-10-02.md" and not out[0].get("supersededBy")


def test_a_later_answer_holding_less_of_the_question_must_rank_nearly_as_high():
    # a streaming membership shares 会员 with the question and the gym's line, and ranks 0.78 of it
    earlier, later = "把原来的健身房退了，会员换成了铁馆", "我取消了一个从来不用的视频会员"
    out = prefer_newest([dict(r) for r in two_answers(earlier, later, (0.66, 0.517))], "我现在是哪家健身房的会员？")
    assert out[0]["path"] == "memory/2026-10-02.md" and not out[0].get("supersededBy")


def test_an_assistant_s_turn_first_gives_way_to_an_update_of_the_kind_asked():
    # "Done, I saved your bank." names the bank and says nothing the owner holds
    rows = [{"path": "memory/2026-10-11.md", "snippet": "assistant: Done, I saved your bank.", "score": 0.63,
             "startLine": 9, "citation": "memory/2026-10-11.md#L9-L9"},
            *_rows(("2026-10-19", "Moved all my accounts to Redwood Credit Union. Better rates and no fees.", 0.57),
                   ("2026-10-10", "I bank with Chase, both checking and savings.", 0.63))]
    out = prefer_newest([dict(r) for r in rows], "Which bank do I use?")
    assert "Redwood" in out[0]["snippet"], [r["snippet"] for r in out]


@pytest.mark.parametrize("earlier, later, query, first", [
    # the owner's own doing is no news of the kids the question and the earlier line name
    ("The kids go to the YMCA after-school program.", "I now teach an after-school club for robotics at Lincoln",
     "What after-school program are the kids in now?", "memory/2026-10-02.md"),
    # the school's news is the son's, though it does not name him
    ("儿子下午3点半放学", "学校通知从下周起4点10分放学", "儿子几点放学", "memory/2026-10-20.md"),
    # the facet's own word said again is no value said again ("CPA" is no name)
    ("my accountant is Linda Marsh, CPA",
     "my sister referred me to her CPA, Raj Patel — he's handling my return this year and going forward",
     "Who does my taxes?", "memory/2026-10-20.md"),
    # a promotion to a job's name, a sleep schedule changed (a third review's misses)
    ("my title is senior engineer", "promoted to staff engineer today!!", "what's my job title?", "memory/2026-10-20.md"),
    ("我一般十二点睡", "最近调作息了，每天十点半就睡", "我几点睡觉？", "memory/2026-10-20.md"),
])
def test_news_of_the_owner_s_people_and_facets_asked_about(earlier, later, query, first):
    out = prefer_newest([dict(r) for r in two_answers(earlier, later, (0.6, 0.5))], query)
    assert out[0]["path"] == first, [r["snippet"] for r in out]
