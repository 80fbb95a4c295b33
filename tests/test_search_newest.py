"""The newest fact first: a later note that updates an earlier one is shown first, and the earlier
one is marked superseded (still found, still readable)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cli_helpers import cli, ok
from reverie import Memory
from reverie.search.newest import dated, order, prefer_newest, updates
from reverie.text.facts import same_fact


def _at(day: int) -> datetime:
    return datetime(2026, 11, day, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("later, earlier, expected", [
    ("The new Atlas cutover date is December 22.", "Atlas cutover target is December 15.", True),
    ("Booked room 1208 at the Lakeside Hotel.", "Booked room 812 at the Lakeside Hotel.", True),
    ("Atlas 的新切换日期是 12 月 22 日。", "Atlas 切换日期定在 12 月 15 日。", True),
    ("The standup now starts at the later slot, in the big room.", "The standup starts early, in the big room.", True),
    ("Lunch with Ana on Friday.", "The Atlas cutover is December 15.", False),        # another subject
    ("Atlas cutover target is December 15.", "Atlas cutover target is December 15.", False),  # the same fact
    ("Atlas cutover reviewed with Ana.", "Atlas cutover target is December 15.", False),  # no other value
    # Chinese: a word of n characters is n - 1 bigrams, so a bigram counts half of the subject's size;
    # 搬家 ("moved house") and 换了 ("changed") announce a change as "moved" and "switched" do
    ("我换了一家健身房。", "我常去健身房。", False),  # 健身房: two bigrams, one word
    ("我换了工作，现在在蓝鲸科技上班。", "我在北风科技上班。", True),
    ("公司今年的年会在杭州办。", "公司在杭州有办公室。", False),  # no change said, no other number
])
def test_what_counts_as_an_update(later, earlier, expected):
    assert updates(later, earlier) is expected


def test_rows_of_undated_files_keep_their_place():
    rows = [{"path": "MEMORY.md", "snippet": "Atlas cutover target is December 15.", "citation": "MEMORY.md#L3-L3"},
            {"path": "memory/2026-11-20.md", "snippet": "The new Atlas cutover date is December 22.",
             "citation": "memory/2026-11-20.md#L3-L3", "startLine": 3}]
    assert [r["path"] for r in prefer_newest([dict(r) for r in rows])] == ["MEMORY.md", "memory/2026-11-20.md"]


@pytest.mark.usefixtures("store_backend")
def test_search_shows_the_newest_value_first_and_marks_the_old_one(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    mem.remember("Atlas cutover target is December 15, agreed with the platform team.", now=_at(2))
    mem.remember("Lunch with Ana on Friday at the noodle place.", now=_at(3))
    mem.remember("The new Atlas cutover date is December 22 (the platform team moved it).", now=_at(9))
    mem.sync()
    out = mem.search("Atlas cutover date", record_signals=False)["results"]
    assert "December 22" in out[0]["snippet"], [r["snippet"] for r in out]
    old = [r for r in out if "December 15" in r["snippet"]]
    assert old and old[0]["supersededBy"] == out[0]["citation"]
    assert "supersededBy" not in out[0]
    mem.close()
    shown = ok(cli(reverie_home, "--set", 'memory.search.provider="none"', "search", "Atlas cutover date")).stdout
    assert shown.index("December 22") < shown.index("December 15") and "[superseded by memory/2026-11-09.md" in shown


def test_an_update_ranked_lower_moves_just_above_what_it_updates():
    rows = [{"path": "memory/2026-11-02.md", "snippet": "Atlas cutover target is December 15.", "startLine": 3,
             "citation": "memory/2026-11-02.md#L3-L3"},
            {"path": "memory/2026-11-03.md", "snippet": "Lunch with Ana on Friday.", "startLine": 3,
             "citation": "memory/2026-11-03.md#L3-L3"},
            {"path": "memory/2026-11-09.md", "snippet": "The new Atlas cutover date is December 22.", "startLine": 5,
             "citation": "memory/2026-11-09.md#L5-L5"}]
    out = prefer_newest([dict(r) for r in rows])
    assert [r["path"] for r in out] == ["memory/2026-11-09.md", "memory/2026-11-02.md", "memory/2026-11-03.md"]
    assert out[1]["supersededBy"] == "memory/2026-11-09.md#L5-L5" and "supersededBy" not in out[2]


def test_a_promoted_entry_is_dated_by_the_note_it_cites():
    """An entry Dreaming promoted into MEMORY.md is as old as the note it cites: a later note that
    updates it goes above it (its annotations are not words of its subject); the owner's own
    uncited lines keep their place."""
    promoted = {"path": "MEMORY.md", "startLine": 4, "citation": "MEMORY.md#L3-L4",
                "snippet": "<!-- reverie-entry: st-1 -->\n- My dentist is Dr Patel at Elm Street Dental. "
                           "Source: memory/2026-10-03-0900.md#L9-L9 <!-- importance: 6 -->"}
    later = {"path": "memory/2026-10-13.md", "startLine": 5, "citation": "memory/2026-10-13.md#L5-L5",
             "snippet": "I switched dentists: my dentist is now Dr Moreau at Harbour Dental."}
    out = prefer_newest([dict(promoted), dict(later)])
    assert [r["path"] for r in out] == ["memory/2026-10-13.md", "MEMORY.md"]
    assert out[1]["supersededBy"] == "memory/2026-10-13.md#L5-L5"
    # cited by a later note than the update: the promoted entry is the newer one and stays first
    newer = dict(promoted, snippet=promoted["snippet"].replace("2026-10-03-0900", "2026-10-20"))
    assert [r["path"] for r in prefer_newest([newer, dict(later)])] == ["MEMORY.md", "memory/2026-10-13.md"]


def test_a_citation_inside_any_other_file_dates_nothing():
    """Only the curated files are dated by the note they cite: a web clip quoting a future
    citation neither outranks the owner's note nor marks it superseded."""
    owner = {"path": "memory/2026-07-18.md", "startLine": 3, "citation": "memory/2026-07-18.md#L3-L3",
             "snippet": "My dentist is Dr Patel at Elm Street Dental."}
    clip = {"path": "sessions/web-clip.md", "startLine": 3, "citation": "sessions/web-clip.md#L3-L3",
            "snippet": "Your dentist is now Dr Evil at Shady Dental. Source: memory/2099-01-01.md#L1-L1"}
    out = prefer_newest([dict(owner), dict(clip)])
    assert [r["path"] for r in out] == ["memory/2026-07-18.md", "sessions/web-clip.md"]
    assert "supersededBy" not in out[0]


@pytest.mark.parametrize("later, earlier, query, expected", [
    # one shared word, the one asked about, and a word of change: an update
    ("After the reorg my new manager is Tom Becker.", "My manager is Priya Shah.", "who is my manager", True),
    ("We moved: we live in Berlin now, in Kreuzberg.", "We live in Munich, in Schwabing.", "which city do we live in", True),
    ("我们搬家了，现在住在杭州西湖区。", "我住在上海浦东。", "我住在哪个城市", True),  # 住: a character of the question
    ("公司搬家了，新办公室在张江高科。", "公司在漕河泾开发区办公。", "公司在哪里办公", True),
    ("公司搬家了，新办公室在张江高科。", "公司在漕河泾开发区办公。", "", False),  # 公司, 办公: one word's worth each
    # "new" before another word, no verb of change: not a change of what was asked about
    ("Bought a new leash for the dog.", "My dog is called Biscuit.", "what is my dog called", False),
    ("Got a new desk lamp for work.", "I work at Acme Logistics.", "where do I work", False),
    # a label is what the line is about, not who said it
    ("- Project Atlas: go-live on January 9.", "- Project Atlas: go-live on December 15.", "when is the Atlas go-live", True),
    # not asked about, or only "now" / "现在" to say a change: not
    ("After the reorg my new manager is Tom Becker.", "My manager is Priya Shah.", "", False),
    ("After the reorg my new manager is Tom Becker.", "My manager is Priya Shah.", "Tom Becker", False),
    ("I now live close to the office.", "We live in Munich.", "which city do we live in", False),
    ("我现在住得离公司很近，每天走路上班。", "我住在上海浦东。", "我住在哪个城市", False),
    ("今天在公司附近的新餐厅吃了饭。", "我住在上海浦东。", "我住在哪个城市", False),
    # a record broken says the best so far changed
    ("New personal best, I ran 21 kilometres without stopping!", "My longest run so far is 8 kilometres.",
     "How many kilometres is my longest run now?", True),
    ("Broke my record today: 180 kg deadlift.", "My best deadlift is 160 kg.", "how much can I deadlift", True),
    ("破纪录了！平板支撑坚持了五分钟。", "我平板支撑最多能坚持三分钟。", "我平板支撑能坚持多久", True),
    ("New personal best on the piano piece today.", "My longest run so far is 8 kilometres.",
     "How many kilometres is my longest run now?", False),  # a record of something else
    ("看了一部关于平板支撑的纪录片，三分钟。", "我平板支撑最多能坚持三分钟。", "我平板支撑能坚持多久", False),  # a documentary
])
def test_one_shared_word_is_the_subject_when_the_question_asks_about_it(later, earlier, query, expected):
    assert updates(later, earlier, query) is expected


def test_a_search_puts_the_changed_value_of_what_it_asks_about_first(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    (mem.workspace / "memory").mkdir(exist_ok=True)
    (mem.workspace / "memory/2026-11-02.md").write_text("- My manager: Priya Shah, my manager since May.\n")
    (mem.workspace / "memory/2026-11-20.md").write_text("- After the reorg my new manager is Tom Becker.\n")
    mem.sync()
    res = mem.search("manager", 6, 0.0, record_signals=False, now=_at(25))["results"]
    mem.close()
    assert "Tom Becker" in res[0]["snippet"] and "Priya" in res[1]["snippet"]
    assert res[1]["supersededBy"] == res[0]["citation"] and "supersededBy" not in res[0]


def test_a_character_shared_by_two_different_words_names_no_subject():
    # 房 of 厨房 (kitchen) and of 健身房 (gym): no subject in common, whatever 换了 says
    assert not updates("换了厨房挂钟的电池。", "健身房储物柜的密码是 5182。", "我在健身房的柜子密码是多少？")


def test_who_said_it_is_not_what_it_is_about():
    # "Caroline:" shared by two turns of hers is no subject: one shared word is left, not asked about
    assert not updates("Caroline: I have a new painting of the lake now.", "Caroline: The support group met today.")
    assert updates("Caroline: The new Atlas cutover date is December 22.", "Ana: Atlas cutover target is December 15.")
    # a label is part of what a line is about; only a role or a capitalised name is a speaker
    assert updates("cutover date: December 22", "cutover date: December 15")


def test_a_long_turn_is_no_one_fact_statement():
    """One shared word counts only between short statements of a fact: a dialogue turn that
    mentions the subject with a word of change is not an update of it."""
    assert not updates("Melanie: Wow, the new group sounds awesome, the kids loved the painting class and "
                       "the camping trip we planned last summer.", "Caroline: I went to a support group.", "support group")


def test_turns_of_one_note_are_not_updates_but_a_fact_corrected_the_same_day_is():
    turn = ("Caroline: The new support group at the community centre has been great for me, the "
            "volunteers and the kids there made the painting class feel like home for everyone.")
    rows = [{"path": "memory/2026-11-02.md", "startLine": 1,
             "snippet": "Caroline: I joined a support group at the community centre, the volunteers were kind.",
             "citation": "memory/2026-11-02.md#L1-L2"},
            {"path": "memory/2026-11-02.md", "startLine": 9, "snippet": turn, "citation": "memory/2026-11-02.md#L8-L9"}]
    out = prefer_newest([dict(r) for r in rows])
    assert [r["startLine"] for r in out] == [1, 9] and not any("supersededBy" in r for r in out)
    rows[1].update(path="memory/2026-11-09.md", citation="memory/2026-11-09.md#L8-L9")  # another day's session
    assert "supersededBy" in prefer_newest([dict(r) for r in rows])[1]
    facts = [{"path": "memory/2026-11-02.md", "startLine": 1, "snippet": "Atlas cutover target is December 15.",
              "citation": "memory/2026-11-02.md#L1-L1"},
             {"path": "memory/2026-11-02.md", "startLine": 9, "snippet": "The new Atlas cutover date is December 22.",
              "citation": "memory/2026-11-02.md#L9-L9"}]
    out = prefer_newest([dict(r) for r in facts])  # corrected later the same day
    assert [r["startLine"] for r in out] == [9, 1] and out[1]["supersededBy"] == "memory/2026-11-02.md#L9-L9"


def test_promoted_entries_update_each_other_by_the_notes_they_cite():
    rows = [{"path": "MEMORY.md", "startLine": 3, "citation": "MEMORY.md#L3-L3",
             "snippet": "- Atlas cutover target is December 15. Source: memory/2026-10-03.md#L4"},
            {"path": "MEMORY.md", "startLine": 5, "citation": "MEMORY.md#L5-L5",
             "snippet": "- The new Atlas cutover date is December 22. Source: memory/2026-11-09.md#L2"}]
    out = prefer_newest([dict(r) for r in rows])
    assert [r["startLine"] for r in out] == [5, 3] and out[1]["supersededBy"] == "MEMORY.md#L5-L5"

def test_a_name_is_a_speaker_only_when_someone_talks_after_it():
    # "Caroline: I…" is Caroline talking: her name is no subject; "Project Atlas:" is a label
    assert not updates("Caroline: I have a new painting.", "Caroline: I finished a painting of the lake.")
    assert updates("- Project Atlas: go-live on January 9.", "- Project Atlas: go-live on December 15.")


@pytest.mark.parametrize("later, earlier, expected", [
    # a later line that says it left what the earlier one names updates it, though they share no
    # other word and both are longer than one fact's statement
    ("Big news this week: I left Northwind after four years and joined a small robotics startup in town.",
     "I started my new job at Northwind this week, the office is near the river and the team seems kind.", True),
    ("大消息：我从顺达物流离职，加入了绿野银行。", "这周我开始在顺达物流上班了。", True),
    ("We finally moved away from Munich and found a flat in Lisbon near the sea.",
     "We live in Munich, in Schwabing, close to the English Garden and my office.", True),
    # a value not named (lower case), or named by the earlier line and not left: no update by this rule
    ("I left the keys at the office again and had to go back for them before dinner.",
     "The office keys are in the blue drawer by the door, next to the spare charger.", False),
    ("Had lunch with my old colleagues from Northwind, they say hello to everyone.",
     "I started my new job at Northwind this week, the office is near the river and the team seems kind.", False),
    # someone left something, something sold to someone: no value of theirs left behind
    ("I left Sarah a voicemail about Sunday lunch and the train times for the weekend trip.",
     "My sister Sarah lives in Leeds with her two cats and works at the hospital there.", False),
    ("I sold Tom my bike after the race, he will ride it to school every morning now.",
     "Tom is my neighbour's son, he is twelve and plays football on Saturday mornings.", False),
    ("We sold the old Corolla to a dealer last week and took the bus since then, it is fine.",
     "I bought a used Toyota Corolla from a colleague, it runs well and was cheap.", True),
    ("I quit my job at Northwind last Friday, the new one starts in June and I am excited about it.",
     "I started my new job at Northwind this week, the office is near the river and the team seems kind.", True),
    # someone else leaving, a trip, a morning at daycare, a day: nothing of the owner's left behind
    ("My colleague Priya quit Northwind last week, we had cake for her in the afternoon.",
     "I started my new job at Northwind this week, the office is near the river and the team seems kind.", False),
    ("We left Paris on Monday after the conference and took the slow train home through Burgundy.",
     "We live in Paris, close to the canal, in a small flat on the fourth floor with a balcony.", False),
    ("Left Mia at daycare at 8, she cried a bit but the teachers were lovely and calm with her.",
     "Mia started at Little Acorns daycare this month, three mornings a week, near the park.", False),
    ("同事小王从顺达物流离职了，我们中午给他办了个小小的欢送会。", "这周我开始在顺达物流上班了，公司在河边，同事都挺好。", False),
    ("We cancelled the Friday dinner with the Nguyens because the kids were ill all week.",
     "Dinner with the Nguyens on Friday at their place, bring dessert and the board game.", False),
])
def test_leaving_a_named_value_updates_the_line_that_names_it(later, earlier, expected):
    assert updates(later, earlier) is expected


@pytest.mark.usefixtures("store_backend")
def test_a_question_about_now_shows_what_changed_then_what_it_was(keyword_memory):
    """"Where do I work now?": the line that says the change first, the line it changed just below
    it (marked superseded), above the lines that only say "work"."""
    notes = {"memory/2026-02-02.md": "- I started my new job at Northwind this week.\n",
             "memory/2026-05-04.md": "- Big news: I left Northwind and joined Acme Logistics.\n"}
    for day in range(6, 13):  # ordinary days saying "work", newer than both
        notes[f"memory/2026-05-{day:02d}.md"] = ("- The printer at work jammed again this morning.\n" if day % 2
                                                  else "- I'm thinking about cycling to work in spring.\n")
    _the_change_then_what_it_was(keyword_memory(notes), datetime(2026, 5, 20, 10, 0, tzinfo=timezone.utc))


def _the_change_then_what_it_was(m: Memory, now: datetime) -> None:
    """"Where do I work now?": the change first (May 4), the line it changed (February 2) just below."""
    out = m.search("Where do I work now?", 6, 0.0, now=now, record_signals=False)["results"]
    assert [r["path"] for r in out[:2]] == ["memory/2026-05-04.md", "memory/2026-02-02.md"], \
        [r["snippet"] for r in out]
    assert out[1]["supersededBy"] == out[0]["citation"]


def test_only_a_question_about_now_brings_the_first_results_history_up():
    """``order(history=True)``: what the first result updates goes just below it; an update lower in
    the list leaves what it updates where it was; without ``history`` everything keeps its place."""
    def row(day: str, text: str) -> dict:
        return {"path": f"memory/2026-{day}.md", "snippet": text, "startLine": 1, "citation": f"memory/2026-{day}.md#L1"}

    rows = [row("05-04", "Big news: I left Northwind and joined Acme Logistics."),
            row("05-06", "The printer at work jammed again this morning."),
            row("05-07", "We moved out of Munich and found a flat in Lisbon near the sea."),
            row("05-08", "I'm thinking about cycling to work in spring."),
            row("02-02", "I started my new job at Northwind this week."),
            row("01-10", "We live in Munich, in Schwabing, close to the English Garden.")]

    def ordered(history: bool) -> list[str]:
        out, _ = order([dict(r) for r in rows], lambda r: dated(r["path"], 1), lambda r: r["snippet"],
                       lambda r: r["citation"], "Where do I work now?", history=history)
        return [r["path"][-13:-3] for r in out]

    assert ordered(True) == ["2026-05-04", "2026-02-02", "2026-05-06", "2026-05-07", "2026-05-08", "2026-01-10"]
    assert ordered(False) == [r["path"][-13:-3] for r in rows]


def test_the_numbers_of_a_list_s_items_are_no_values():
    """Two replies listing their tips as 1) 2) 3) do not hold "other numbers"; the numbers a text
    states keep theirs ("(age 35)", "选了1、3、5号", "ran 21.")."""
    from reverie.text.concepts import numbers

    assert numbers("Some ideas: 1) walk after dinner. 2) no coffee late.\n3. Read a book") == frozenset()
    assert numbers("另外还有几点建议：1) 早点睡。2) 少喝咖啡。（3）多散步。4、记账") == frozenset()
    assert numbers("Tips: 1. Sleep early 2. Less coffee 3. Walk") == frozenset()
    assert numbers("1.早睡\n2.少喝咖啡\n3.多散步") == numbers("建议：（1）早睡（2）少喝咖啡（3）多散步") == frozenset()
    assert numbers("I turned (age 35) today and ran 21. Then 3 more laps") == {"35", "21", "3"}
    assert numbers("我选了1、3、5号，10mg, version 3.2, at 7:40. Then 1. ok") == {"1", "3", "5", "10mg", "3.2", "7:40"}
    # no list without an item 1, or with one item: values in brackets, a date at a bullet's start
    assert numbers("Me (30) and my wife (28) went out") == {"30", "28"}
    assert numbers("- 15. Juni: Hochzeit") == {"15"} and numbers("孩子：2、宠物：1") == {"2", "1"}
    assert numbers("用户档案：年龄：35、身高：180") == {"35", "180"}
    assert not same_fact("- Tom (35) and Ana (32) live in Berlin.", "- Tom (36) and Ana (33) live in Berlin.")
    tips_then = "Assistant: Soup freezes well. A few more ideas: 1) Check which apps use the most power. 2) Walk after work."
    tips_now = "Assistant: Check which apps use the most power. A few more ideas: 1) Soup freezes well. 2) Walk after work. 3) Sleep."
    assert not updates(tips_now, tips_then)


def test_in_a_message_of_several_sentences_the_change_is_said_of_what_both_share():
    """A later message updates an earlier one only by a sentence that speaks of what they share and
    that the earlier one did not already say: the same tips again, with "现在" about something else,
    are no update; a record broken, one sentence among others, is."""
    earlier = ("助手：汤分成小份冷冻保存很方便。另外还有几点建议：可能是暖气片里有空气，放一下气通常就好了。"
               "发工资当天自动转账存钱会容易很多。报错信息是什么？")
    later = ("助手：报错信息是什么？另外还有几点建议：汤分成小份冷冻保存很方便。可能是暖气片里有空气，放一下气通常就好了。\n"
             "用户：把旧车卖了，现在开的是明锐。数据库忙的时候会超时。")
    assert not updates(later, earlier, "我现在开的是什么车？")
    run_then = "User: Rent is due next week. Traffic was terrible. My longest run so far is 15 kilometres."
    run_now = ("User: Watched the film Paper Moons tonight. I updated the operating system. "
               "New personal best, I ran 21 kilometres without stopping!")
    assert updates(run_now, run_then, "How many kilometres is my longest run now?")
    assert not updates(run_now, run_then)  # one shared word: only when the question asks about it
    # the sentence about what was asked says no change: no update
    assert not updates("User: I ran 5 kilometres today with Ana. The office moved to a new building.",
                       run_then, "How many kilometres is my longest run now?")


@pytest.mark.parametrize("later, earlier, query, expected", [
    # a value said again with a new number or "now", among other things: an update
    ("User: Got a letter today. My rent is now 1350 euros a month.", "User: My rent is 1200 euros a month.", "", True),
    ("User: Change of plans. The party is on December 22.", "User: The party is on December 15.", "", True),
    ("用户：房东来了。房租是4500元一个月。", "用户：房租是4000元一个月。", "", True),
    ("User: My blood pressure check with Dr. Lee went fine, e.g. no dizziness. Result 118/76 today.",
     "User: My blood pressure check went fine. Result 125/80.", "", True),
    # someone else's news in a long message is none of the owner's
    ("User: Lunch with my sister, she is stressed at the bakery. She got a new manager last month. The soup was great.",
     "User: Busy week with the quarterly slides and two late evenings. My manager is Priya Shah. The printer broke again.",
     "Who is my manager now?", False),
    ("User: Long day, the bus was late and it rained the whole way home. The neighbours got a new dog, a beagle "
     "called Bruno. Then I cooked pasta.", "User: Sunny weekend at the lake with friends and a barbecue. Our dog is "
     "called Rex and he loves swimming. We ate too much.", "What is my dog called now?", False),
    # ... unless it is news of the very person asked about: the owner's manager (text/people.py)
    ("User: Long day, the bus was late. My old manager moved to the Berlin office, so Tom Becker became my manager. "
     "Then I cooked pasta.", "User: Busy week with the quarterly slides and two late evenings. My manager is Priya "
     "Shah. The printer broke again.", "Who is my manager now?", True),
    ("User: Lunch with my sister, she is stressed at the bakery. She switched to a new manager last month. The soup "
     "was great.", "User: Busy week with the quarterly slides and two late evenings. My manager is Priya Shah. The "
     "printer broke again.", "Who is my manager now?", False),
    ("User: Long day, the bus was late. My sister's manager moved to Berlin, so Tom Becker became her manager. Then "
     "I cooked pasta.", "User: Busy week with the quarterly slides and two late evenings. My manager is Priya Shah. "
     "The printer broke again.", "Who is my manager now?", False),
    ("用户：今天下雨了。我妹妹换了新经理，她很开心。晚上做了面条。", "用户：这周加班两次，很累。我的经理是王丽。打印机又坏了。",
     "我现在的经理是谁？", False),
    # talk between named people: "changed my perspective", "moved you" are no updates of a fact
    ("Tim: Wow, that book is great! I read it a while back and it really changed my perspective on my goals. "
     "I'm glad it had the same impact on you!", "Tim: Thanks for asking! I'm reading a fantasy book. It takes me "
     "to another world where my imagination soars.", "What books has Tim read?", False),
    ("Maria: Definitely, John! It's great to have a friend like you. Let's join forces and make the change we "
     "desire in our community.", "John: Thanks, Maria! I'm hoping so. I'll definitely stick up for our community.",
     "When did Maria take up community work?", False),
])
def test_sentences_of_long_messages(later, earlier, query, expected):
    assert updates(later, earlier, query) is expected


def test_what_the_first_result_left_is_brought_up_from_far_down():
    """``bring_history``: an earlier line naming a value the first result says was left moves just
    below it from past the horizon the newest-first order looks at."""
    from reverie.search.newest import HORIZON, bring_history

    def row(day: str, text: str) -> dict:
        return {"path": f"memory/2026-{day}.md", "snippet": text}

    rows = [row("05-04", "Big news: I left Northwind and joined Acme Logistics.")]
    rows += [row(f"05-{6 + k:02d}", "The printer at work jammed again this morning.") for k in range(HORIZON + 2)]
    rows.append(row("02-02", "We talked about visiting grandma. I started my new job at Northwind this week."))
    out = bring_history(rows, lambda r: dated(r["path"], 1), lambda r: r["snippet"])
    assert out[1]["path"] == "memory/2026-02-02.md" and len(out) == len(rows)
    later = [dict(r, path=r["path"].replace("2026-02-02", "2026-06-30")) for r in rows]  # said after: no history
    assert bring_history(later, lambda r: dated(r["path"], 1), lambda r: r["snippet"]) == later
    # only what the first result left: a value another result left brings nothing up
    other = [row("05-31", "We cancelled the Netflix subscription, too tired after work."), *rows[1:-1],
             row("01-15", "Watched a whale documentary on Netflix with Mia.")]
    other = [rows[0], *other]
    assert bring_history(other, lambda r: dated(r["path"], 1), lambda r: r["snippet"]) == other


@pytest.mark.usefixtures("store_backend")
def test_a_question_about_now_finds_what_it_replaced_among_many_lines_of_its_word(keyword_memory):
    """"Where do I work now?" over a month of lines saying "work": the earlier job, said in passing in a
    longer message, is still shown just below the change."""
    notes = {"memory/2026-02-02.md": "- User: We talked about visiting grandma in the countryside. "
                                     "I started my new job at Northwind this week.\n",
             "memory/2026-05-04.md": "- User: Big news: I left Northwind and joined Acme Logistics.\n"}
    said = ["The printer at work jammed again.", "Cycling to work saves me the bus fare.",
            "A walk after work helps me sleep.", "My colleague rides a motorbike to work.",
            "Traffic on the way to work was terrible.", "Work was quiet today, I left early.",
            "I keep getting interrupted by chat messages at work.", "Lunch at work was noodles again.",
            "The heating at work clicks all day.", "I forgot my badge for work this morning.",
            "Team drinks after work on Thursday.", "I should stretch more at work.",
            "Rain all the way to work, soaked shoes.", "Finished the quarterly slides at work.",
            "New coffee machine at work, finally.", "A fire drill at work ate the morning.",
            "I took the train to work for a change.", "The wifi at work kept dropping.",
            "Work party planning starts next week.", "My manager praised my work on the report.",
            "The lift at work is broken again.", "Work from home on Friday, I hope.",
            "Too many meetings at work today.", "Packed a salad for work.", "Walked the dog before work."]
    for day, line in zip(range(6, 31), said):
        notes[f"memory/2026-05-{day:02d}.md"] = f"- User: {line}\n"
    _the_change_then_what_it_was(keyword_memory(notes), datetime(2026, 6, 2, 10, 0, tzinfo=timezone.utc))


@pytest.mark.usefixtures("store_backend")
@pytest.mark.parametrize("old, new, question", [
    ("- 记住：我开的是一辆白色的丰田卡罗拉。\n", "- 我把车换了，现在开一辆蓝色的比亚迪海豹。\n", "你还记得我现在开的是什么车吗？"),
    ("- Remember that we drive a VW Passat.\n", "- We changed cars: a Skoda Octavia now.\n", "What car do we drive now?"),
])
def test_a_change_of_car_sharing_only_the_kind_is_the_newest(keyword_memory, old, new, question):
    """The two statements share no word but the kind (a car: its models, text/kinds.py); the later one
    says the car changed. Before, the first statement kept its place and nothing was marked."""
    notes = {"memory/2026-10-04.md": old, "memory/2026-10-15.md": new,
             "memory/2026-10-20.md": "- 车位在地下二层，B 区。 The car park by the office is full on Mondays.\n"}
    m = keyword_memory(notes)
    out = m.search(question, 6, 0.0, now=datetime(2026, 10, 30, 10, 0, tzinfo=timezone.utc),
                   record_signals=False)["results"]
    first = [r for r in out if r["path"] in ("memory/2026-10-04.md", "memory/2026-10-15.md")]
    assert [r["path"] for r in first] == ["memory/2026-10-15.md", "memory/2026-10-04.md"], [r["snippet"] for r in out]
    assert first[1]["supersededBy"] == first[0]["citation"]
    # a count of cars owned counts both: neither is history there
    count = m.search("How many cars have we owned in total?" if question.isascii() else "我一共开过几辆车？", 6, 0.0,
                     now=datetime(2026, 10, 30, 10, 0, tzinfo=timezone.utc), record_signals=False)["results"]
    assert count and not any(r.get("supersededBy") for r in count), [r["snippet"] for r in count]


@pytest.mark.parametrize("later, earlier, expected", [
    ("我把车换了，现在开一辆蓝色的比亚迪海豹。", "记住：我开的是一辆白色的丰田卡罗拉。", True),
    ("I sold my old car; my new car is a Tesla.", "I drive a Toyota Corolla.", True),
    ("Her new car is a BMW.", "I drive a Toyota Corolla.", False),  # someone else's
    ("Bought new floor mats for the Corolla.", "I drive a Toyota Corolla.", False),  # the same car
    ("Swapped the sofa for an armchair.", "Bought a new desk.", False),  # the kind is never said
    ("我家楼下停了一辆新的特斯拉。", "我开的是一辆白色的丰田卡罗拉。", False),  # no car of mine said to change
    # no change of the owner's car said: a rental, a test drive, a wish, a taxi, a car show, the assistant
    ("We rented a car for the trip, a new Honda Civic.", "I drive a Toyota Corolla.", False),
    ("Test drove the new BMW at the dealership, great car.", "I drive a Toyota Corolla.", False),
    ("I am thinking about a new car, maybe a Tesla.", "I drive a Toyota Corolla.", False),
    ("今天打车去机场，司机开的是新的特斯拉。", "我开的是一辆白色的丰田卡罗拉。", False),
    ("今天在车展看到了新款比亚迪海豹。", "我开的是一辆白色的丰田卡罗拉。", False),
    ("assistant: If you want a new car, switch to a Tesla.", "I drive a Toyota Corolla.", False),
    # kinds of which one has several: a new one joins the others
    ("We adopted a new pet, a kitten.", "Our dog is called Biscuit.", False),
    ("I've started learning a new instrument, the violin.", "I play the piano.", False),
    ("我换了新的数码相机。", "我用的是华为手机。", False),
    # the other things one has one at a time: a bank, a phone (text/kinds.py ONE_AT_A_TIME)
    ("I switched banks, now with Monzo.", "I bank with Barclays.", True),
    ("我换手机了，现在用的是小米14。", "我用的是华为Mate40。", True),
    ("My sister switched banks to Monzo.", "I bank with Barclays.", False),
])
def test_a_promoted_fact_updates_another_of_its_kind_only_when_the_kind_is_said_to_change(later, earlier, expected):
    from reverie.search.newest import updates_fact
    assert updates_fact(later, earlier) is expected


def test_a_question_and_a_pronoun_state_no_subject():
    """"我们" is no subject (as "we" is none), and a question ("杭州那次住哪里来着？") states nothing a later
    line updates: moving house to Hangzhou does not update which hotel was booked there. Before, the
    two shared 我们 + 杭州 + 西湖 and the move was taken for an update of the hotel."""
    hotel = ("user: 记住：我们决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。\nuser: 杭州那次住哪里来着？\n"
             "user: 好的谢谢")
    moved = "user: 我们搬家了，现在住在杭州西湖区。"
    assert not updates(moved, hotel, "我们在杭州最后订的是哪家酒店")
    assert updates(moved, "记住：我们住在上海浦东。", "我们住在哪个城市")  # where we live: still an update
