"""An eighteenth round of the newest-first order (search/newest.py), from a blind set of traps and updates
(benchmarks/newest_pairs_data.py): where one lives is a facet of its own (text/facets.py "home": "We moved
to Berlin last month" for "Where do I live?"); a change denied, one more thing beside the one held, a story
of long ago and a doctor of another part of medicine change nothing; 临时 before a cancellation is "at short
notice"; a price moved with no amount said is no new provider; a first week somewhere is a taking up."""

from __future__ import annotations

import pytest

from answer_rows import assert_earlier_first, assert_later_first, two_answers
from reverie.search.newest import _change_denied, _not_now, _says_change_now, prefer_newest
from reverie.text.facets import facets_of


@pytest.mark.parametrize("text, home", [
    ("Where do I live?", True), ("Which city do I live in now?", True), ("我住在哪里？", True),
    ("我现在住哪", True), ("What's my address?", True),
    ("We moved to Berlin last month, still unpacking.", True), ("Moved into a new apartment on Cedar Lane!", True),
    ("I'm in Berlin these days, the new flat is great.", True), ("我们搬到杭州了，新家离西湖很近。", True),
    ("Our new address is 48 Birch Road", True),
    # a meeting, a team, a desk moved; live music; a stay at a hotel; a moving company; someone else's move
    ("The standup moved to 10am from now on.", False), ("Moved to a new team at work", False),
    ("going to see live music tonight", False), ("出差这周住在深圳的酒店", False), ("找了家搬家公司", False),
    ("My sister moved to Seattle last week.", False), ("Where does my sister live?", False),
])
def test_where_one_lives_is_a_facet(text, home):
    assert ("home" in facets_of(text)) is home


@pytest.mark.parametrize("earlier, later, query", [
    ("I live in Munich, near the English Garden.", "We moved to Berlin last month, still unpacking.",
     "Where do I live?"),
    ("I live in a studio on Maple Avenue, tiny but cheap.", "Moved into a new apartment on Cedar Lane this weekend!",
     "Where do I live?"),
    ("We live in Oakland, in a little house off Grand Ave.", "I'm in Berlin these days, the new flat is great.",
     "Where do I live now?"),
    ("我住在成都锦江区。", "我们搬到杭州了，新家离西湖很近。", "我住在哪里？"),
    ("My address is 12 Elm Street, Apt 3.", "Our new address is 48 Birch Road, we moved in on Saturday.",
     "What's my address?"),
    # a roommate is a facet too, and the one a question asks who is, is no one else's news
    ("我跟大学同学阿强合租。", "阿强搬走了，新室友是个程序员，叫李航。", "我的室友是谁？"),
])
def test_a_move_is_news_of_where_one_lives(earlier, later, query):
    assert_later_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("earlier, later, query", [
    # someone else's move, a plan, a meeting or a team moved, a helping hand, a hotel on a trip
    ("I live in Portland.", "My sister moved to Seattle last week.", "Where do I live?"),
    ("I live in Portland.", "We're thinking about moving to Denver next year.", "Where do I live?"),
    ("I live in Munich.", "The standup moved to 10am from now on.", "Where do I live?"),
    ("I live in Munich.", "Moved to a new team at work, it's great.", "Where do I live?"),
    ("I live in Munich.", "Helped my friend move into a new flat in Berlin today.", "Where do I live?"),
    ("我住在成都锦江区。", "公司搬到高新区了，通勤变远了。", "我住在哪里？"),
    ("我住在成都锦江区。", "帮朋友搬家累死了，他搬去了双流。", "我住在哪里？"),
    ("我住在成都锦江区。", "出差这周住在深圳的酒店。", "我住在哪里？"),
    # a day, a tool, a desk, a shift, a plan, an office, an email address; a department, a sofa, a chat group,
    # a pet's new home, new furniture (a fresh-eyes review of this round's first version found each)
    ("I live in Munich.", "Book club: we moved to Thursdays, same cafe.", "Where do I live?"),
    ("I live in Munich.", "We moved to Slack from Teams at work, way better.", "Where do I live?"),
    ("I live in Munich.", "Just moved to a standing desk, my back thanks me.", "Where do I live?"),
    ("I live in Munich.", "I've moved to the night shift at the hospital.", "Where do I live?"),
    ("I live in Munich.", "I moved to the Pro plan on Spotify, no more ads.", "Where do I live?"),
    ("I live in Munich.", "Finally moved into the corner office, got a window!", "Where do I live?"),
    ("I live in Munich.", "Our new house closes next month, can't wait to move in!", "Where do I live?"),
    ("I live in Munich.", "My new address is jane.doe@proton.me, use that for the newsletter.", "Where do I live?"),
    ("我住在成都锦江区。", "我们部门搬到了5楼，离食堂近多了。", "我住在哪里？"),
    ("我住在成都锦江区。", "我把沙发搬到阳台了，客厅宽敞多了。", "我住在哪里？"),
    ("我住在成都锦江区。", "我们家长群搬到新群了，老群不用了。", "我住在哪里？"),
    ("我住在成都锦江区。", "给仓鼠换了个新家，笼子大了一倍。", "我住在哪里？"),
    ("我住在成都锦江区。", "新家具到了，沙发特别舒服。", "我住在哪里？"),
    # 临时有事, 临时通知, 临时取消: this time only; "went back to" the same place; someone's old boss
    ("瑜伽课是每周五晚上。", "这周五临时有事，瑜伽课换到周六了。", "瑜伽课是星期几？"),
    ("钢琴课是每周六上午10点。", "老师临时通知，明天的课改到下午4点。", "钢琴课是几点？"),
    ("My dentist is Dr. Lee at Smile Dental.", "Went back to Smile Dental today for a filling, Dr. Lee was great.",
     "Who is my dentist?"),
    ("I report to Linda on the data team.", "Greg, my old boss from Acme, just got promoted to VP.", "Who is my boss?"),
    ("My roommate is Tom.", "My sister's roommate moved out last week.", "Who is my roommate?"),
    ("我的室友是阿强。", "表妹的室友换了个新的。", "我的室友是谁？"),
    # a story of long ago
    ("I live in Portland now, in a little apartment off Division Street.",
     "Back when I moved to Seattle for grad school in 2015, I lived in a basement apartment for two years.",
     "Where do I live?"),
    # a change denied
    ("I'm on T-Mobile, a family plan with my parents.",
     "Looked into switching to Mint Mobile but didn't switch after all, the coverage is bad.",
     "Which phone carrier am I on?"),
    ("我用的是电信的宽带。", "本来想换联通的宽带，最后还是没换。", "我家宽带是哪家的？"),
    # one more thing beside the one held
    ("Spanish class is Wednesday evenings at the public library.",
     "I also joined a Spanish conversation group on Saturday mornings, separate from the class.",
     "What day is my Spanish class?"),
    # a doctor of another part of medicine
    ("My primary care doctor is Dr. Patel at Riverside Clinic.",
     "Got referred to a new dermatologist, Dr. Nguyen, first appointment is November 3.",
     "Who is my primary care doctor?"),
    ("My dentist is Dr. Patel.", "Started seeing a new physiotherapist, Dr. Chen.", "Who is my dentist?"),
    # a price moved, no amount said: the provider stands (光明 begins a word in both lines)
    ("我每天订的是光明的鲜奶，早上送到门口。", "光明鲜奶下个月开始涨价，一瓶贵了五毛。", "我订的是哪家的牛奶？"),
])
def test_what_changes_nothing_keeps_the_first_answer(earlier, later, query):
    assert_earlier_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("earlier, later, query", [
    # a change with a denial, an addition or a time long ago beside it, in a clause of its own or of another
    # thing (the review's cases: each had been kept from its update by this round's first version)
    ("I use a Pixel 6.", "Tried an iPhone 15 for work and never switched back, the Pixel's in a drawer.",
     "What phone do I use?"),
    ("Yoga is Tuesday evenings.", "Yoga won't be moving back to Tuesdays, it's Thursdays for good.", "What day is yoga?"),
    ("I take 25mg of sertraline.", "My sertraline dose went up to 50mg, in addition to the vitamin D.",
     "How much sertraline do I take?"),
    ("I take 10mg of lisinopril.", "Doctor bumped me to 20mg, and I also started a statin.",
     "What dose of lisinopril do I take?"),
    ("孩子周六上午上钢琴课。", "钢琴课停了，另外报了个书法班，周六上午上。", "孩子周六上什么课？"),
    ("我的健身教练是小刘。", "小刘离职了，另外报了个私教，是王教练。", "我的健身教练是谁？"),
    ("I drive a Honda Civic.", "Sold the Civic I bought back when I started college; driving a Model 3 now.",
     "What car do I drive?"),
    ("我开的是朗逸。", "当年买的那辆朗逸卖了，换了辆特斯拉Model 3。", "我开的是什么车？"),
    ("I live in Austin.", "We moved to Denver in May and I also started at a new firm there.",
     "Where do I live?"),
    ("我一般找协和的王医生看病。", "王医生退休了，现在找骨科转过来的李医生看病。", "我一般找哪个医生看病？"),
    ("My doctor is Dr. Patel.", "Got a new family doctor, Dr. Kim, and she's already sending me to a cardiologist.",
     "Who's my doctor?"),
])
def test_a_change_beside_a_denial_an_addition_or_a_time_long_ago_still_leads(earlier, later, query):
    assert_later_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("text, denied", [
    ("Looked into switching to Mint Mobile but didn't switch after all.", True),
    ("decided against moving to Austin", True),
    ("最后还是没换，继续用电信", True),
    ("我没换手机号，但是换了套餐", False),  # (another clause says a change)
    ("我不得不换了新的", False),  # (不得不: had to)
    ("I didn't like Verizon so I switched to Mint", False),  # (the denial is of a liking, not of the change)
    ("本来想换联通的宽带，最后还是没换。", True),  # (weighed, then denied)
])
def test_a_change_denied(text, denied):
    assert _change_denied(text) is denied


def test_a_change_looked_into_and_made_is_still_a_change():
    from reverie.search.newest import _two_statements

    assert _two_statements("user: Looked into it and switched to Mint last week", "user: I'm on T-Mobile")
    assert _says_change_now("Looked into it and switched to Mint last week")


def test_at_short_notice_is_no_while_and_a_first_week_somewhere_is_taken_up():
    assert not _not_now("1号的票临时退了，改签到10月3号回老家。")
    assert _not_now("这周周会临时改到周三了")  # (临时 before a change of its own: this time only)
    assert _says_change_now("First week on the search team went well, everyone's really nice.")
    assert _says_change_now("Had my first day at Google")


def test_a_ticket_changed_at_short_notice_is_the_day_now():
    out = prefer_newest(two_answers("国庆我10月1号回老家，票已经买好了。", "1号的票临时退了，改签到10月3号回老家。"),
                        "我哪天回老家？")
    assert_later_first(out)


def test_a_question_of_how_long_or_how_much_after_a_statement_leaves_the_statement():
    from reverie.search.newest import _asking_off

    assert _asking_off("猫粮换成渴望了，一袋5.4公斤，多久要买一次？") == "猫粮换成渴望了，一袋5.4公斤"
    for asks in ("帮我算一下，现在换成渴望了，一袋5.4公斤，多久要买一次？", "我是不是约了牙医？", "帮我看看，这个多少钱？",
                 "多少有点舍不得，但我们已经搬到杭州了"):
        assert _asking_off(asks) == asks  # (a line opening with a request or a question stays whole)


def test_one_gone_home_or_moved_away_is_a_value_left():
    from reverie.search.newest import _asked_of, _value_stands

    asked = _asked_of("Who is my English tutor?")
    assert not _value_stands("New English tutor Mark started today, Sarah went back home to Leeds.",
                             "My English tutor is Sarah.", asked)
    asked_zh = _asked_of("我的英语老师是谁？")
    assert not _value_stands("英语老师换成Mark了，Sarah回国了。", "我的英语老师是Sarah。", asked_zh)
    assert _value_stands("Sarah sent the homework for next week.", "My English tutor is Sarah.", asked)


def test_a_request_with_a_question_after_it_lifts_no_line_near_in_matter():
    """A line that opens with a request and ends with a question stays a question, so two lines are
    read alone, at the stricter bar: "猫最近掉毛好严重，正常吗？" (最近, "lately", says a change for the
    rules) stays below the cat's food for "我家猫吃什么牌子的猫粮？"; this round's first version read the
    request's statement and so read three, and it was lifted."""
    rows = [(d, f"user: {t}") for d, t in (("2026-09-20", "我家猫吃的是皇家的室内成猫粮。"),
                                           ("2026-10-11", "猫最近掉毛好严重，正常吗？"),
                                           ("2026-11-07", "帮我算一下，一袋5.4公斤，猫一天吃60克，多久要买一次？"))]
    out = prefer_newest([{"path": f"memory/{d}.md", "snippet": t, "score": 0.7 - 0.012 * i, "startLine": 7,
                          "citation": f"memory/{d}.md#L7-L9"} for i, (d, t) in enumerate(rows)], "我家猫吃什么牌子的猫粮？")
    assert out[0]["snippet"].startswith("user: 我家猫吃的是皇家"), [r["snippet"] for r in out]
