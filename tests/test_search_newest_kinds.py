"""A thing one has one at a time (a car, a phone, a bank, home internet, a mobile carrier, a streaming
service, a diet, a pharmacy: text/kinds.py ``ONE_AT_A_TIME``), named by a make or a provider: of two of
the owner's statements answering a question about it, the later one naming another member of the kind
with a change said is the fact now, though they share no word (search/newest.kind_answers)."""

from __future__ import annotations

import pytest

from reverie.search.newest import _kind_words, asks_of_a_kind, kind_answers, kinds_asked, prefer_newest

from answer_rows import assert_earlier_first, two_answers


@pytest.mark.parametrize("query, expected", [
    ("What car do I drive?", True),
    ("我现在开的是什么车？", True),
    ("Which bank do I use?", True),
    ("我的工资打到哪个银行？", True),
    ("What phone do I have?", True),
    ("我用的什么手机？", True),
    ("Who's our home internet provider?", True),
    ("Who's my cell provider?", True),
    ("我用的是哪家运营商？", True),
    ("Which streaming service are we subscribed to?", True),
    ("What are my dietary restrictions?", True),
    ("Which pharmacy do I use?", True),
    ("Who's my boss currently?", True),
    ("Who do I report to?", True),
    ("我现在的组长是谁？", True),
    ("Who is the manager of the restaurant?", False),  # not one's own
    ("What car does my sister drive now?", False),
    ("我爸现在开的是什么车？", False),
    ("What car insurance do I have now?", False),  # of the thing, not which it is
    ("What time does the pharmacy close?", False),
    ("我家宽带密码是多少？", False),
    ("Who is my boss's boss?", False),
    ("Which internet provider is fastest in Austin?", False),
    ("What's the best streaming service for anime?", False),
    ("Where did I park my car?", False),
    # the word in another sense, or not asking what one's thing is
    ("Is Monday a bank holiday?", False),
    ("What's my phone number?", False),
    ("What's the wifi password at the cabin?", False),
    ("Do you have a carrier bag?", False),
    ("Is a diet soda OK with dinner?", False),
    ("How many cars have we owned in total?", False),  # a count: both are instances
    ("Which restaurant do I like best?", False),  # a kind, but one of many at a time
])
def test_which_questions_ask_for_a_thing_one_has_one_at_a_time(query, expected):
    assert asks_of_a_kind(query) is expected


@pytest.mark.parametrize("earlier, later, query", [
    ("My car is a 2014 Mazda3, silver, about 140k miles.",
     "RIP old silver bullet, traded it in Saturday. I'm driving a used green Subaru Outback now.",
     "What car do I drive?"),
    ("I bank with Chase, both checking and savings.",
     "Moved all my accounts to Redwood Credit Union. Better rates and no monthly fees.",
     "Which bank do I use?"),
    ("We have Comcast Xfinity for home internet, the 300 Mbps plan.",
     "Finally ditched Xfinity! We're on Google Fiber now, gig speed for less money.",
     "Who's our home internet provider?"),
    ("我用的还是华为Mate40，电池不太行了", "Mate40终于退休了，换了小米14，拍照真香", "我用的什么手机？"),
    ("我开的是爱奇艺的年度会员，追剧全靠它", "爱奇艺到期没续，开了腾讯视频，最近想看的剧都在那边", "我开的是哪个视频平台的会员？"),
    ("I get all my prescriptions filled at the CVS on Oak Ave.",
     "Done with the drive-thru lines, switched to Walgreens and they have all my refills now.",
     "Which pharmacy do I use?"),
    ("My manager is Priya Nair. She's great about letting me work from home on Fridays.",
     "Priya got promoted to director, so I report to Tom Becker now.", "Who's my boss currently?"),
    ("My phone carrier is Verizon, $70/mo for unlimited.",
     "Ported my number to Mint yesterday. Same coverage for half the price.", "Who's my cell provider?"),
    ("I'm vegetarian.", "I'm pescatarian now, started eating fish again.", "What diet am I on now?"),
    ("I bank with Chase.", "Closed my Chase account, everything is with SoFi now.", "Which bank do I use?"),
    ("我的工资卡是招商银行的。", "公司统一换了代发银行，工资打到建设银行的卡里了", "我的工资打到哪个银行？"),
    ("We pay for Netflix.", "Cancelled Netflix, we only pay for Hulu now.", "Which streaming service do we pay for now?"),
    ("我开的是爱奇艺的会员。", "爱奇艺不续了，改开腾讯视频会员。", "我现在开的是哪个视频会员？"),
    ("I'm still on an iPhone 12, battery is meh.", "Caved and got the Samsung S24 Ultra, bye bye iPhone.",
     "What phone do I have now?"),
    ("I bank with Chase, checking and savings both.", "Closed my Chase accounts, everything's at Schwab now.",
     "Which bank do I use?"),
    ("FYI I'm vegetarian, but I still eat eggs and dairy.",
     "I've gone fully vegan since the start of the month, so no more eggs or cheese for me.",
     "What are my dietary restrictions?"),
])
def test_a_later_member_of_the_kind_with_a_change_said_is_the_thing_now(earlier, later, query):
    out = prefer_newest(two_answers(earlier, later), query)
    assert out[0]["path"] == "memory/2026-10-20.md", [r["snippet"] for r in out]
    assert out[1]["supersededBy"] == out[0]["citation"]


@pytest.mark.parametrize("earlier, later, query", [
    ("I have an iPhone 12.", "The new Pixel 9 looks amazing.", "What phone do I have?"),  # "new" alone: no change
    ("I have an iPhone 12.", "My brother switched to a Pixel now.", "What phone do I have?"),  # someone else's
    ("I bank with Chase.", "Thinking of switching to Ally Bank now, better rates.", "Which bank do I use?"),  # a wish
    ("我用的是华为Mate40", "我想换成小米14，现在有优惠", "我用的什么手机？"),
    ("My car is a grey Honda Civic.", "Now I drive my dad's Toyota to work while he's away.",
     "What car do I drive?"),  # the father's car: someone else's
    ("I bank with Barclays.", "Moved my savings to Monzo now.", "Is Monday a bank holiday?"),  # not asked
    ("I'm vegetarian.", "Do you think I should go vegan now?", "What are my dietary restrictions?"),  # a question
    ("My manager is Priya Nair.", "My husband's team lead quit, so he reports to someone new now.",
     "Who's my boss currently?"),  # the husband's
    ("We have Comcast for home internet.", "My parents switched to Google Fiber now.",
     "Who's our home internet provider?"),
    # (a fresh-eyes review's cases) a thing used for a while, tried, given, spoken of, or someone else's
    ("I drive a 2015 Honda Civic.", "Rented a Toyota RAV4 for the Denver trip, picking it up now.",
     "What car do I drive now?"),
    ("I drive a 2015 Honda Civic.", "The Civic is in the shop so I'm driving a loaner Nissan now.",
     "What car do I drive now?"),
    ("My car is a silver Mazda3.", "My roommate sold his BMW and now takes the bus.", "What car do I drive now?"),
    ("I drive a Honda Civic.", "Jake just switched to a Tesla, he won't shut up about it.", "What car do I drive now?"),
    ("My wife and I share a Honda CR-V.", "Bought my wife a Tesla for our anniversary, she's now obsessed.",
     "What car do I drive now?"),
    ("我开的是一辆白色的丰田卡罗拉。", "室友刚换了一辆特斯拉，今天带我兜了一圈。", "我现在开的是什么车？"),
    ("我开的是一辆白色的丰田卡罗拉。", "今天去试驾了比亚迪海豹，已经有点心动了。", "我现在开的是什么车？"),
    ("My phone is a Pixel 7.", "Got the Samsung Galaxy Watch now, it tracks my sleep.", "What phone do I use now?"),
    ("我的手机是iPhone 13。", "晚饭煮了小米粥，已经好久没喝了。", "我现在用的是什么手机？"),
    ("I'm on Verizon.", "T-Mobile keeps texting me to switch, lol no.", "Which mobile carrier am I on now?"),
    ("我家宽带是电信的。", "公司网络换成联通了，快了很多。", "我家宽带现在是哪家的？"),
    ("We pay for Netflix.", "Started a 7-day free trial of HBO for the finale.", "What streaming service do we use now?"),
    ("My manager is Priya Nair.", "Priya now reports to Dan, the new VP.", "Who is my boss now?"),
    # (a second review's cases) a present, a second account, a card, another place, a trip, another product
    ("I'm still on an iPhone 12.", "Picked up a Pixel 8 on Black Friday as a stocking stuffer for the teenager, now to "
     "hide it.", "What phone do I have now?"),
    ("I bank with Chase, checking and savings both.", "Moved my emergency fund to Ally for the 4.2% APY, everyday "
     "stuff stays at Chase.", "Which bank do I use?"),
    ("I bank with Chase.", "Just got approved for a Capital One Venture card, now I'm chasing points.",
     "Which bank do I use?"),
    ("Our internet is Comcast Xfinity, 300 Mbps.", "We're on Starlink up at the cabin now, works surprisingly well.",
     "Who is our internet provider?"),
    ("I'm on Verizon for my phone plan.", "In London for two weeks, switched to a local EE SIM so I'm not paying "
     "roaming.", "Which carrier is my phone plan with?"),
    ("我用的是iPhone 13，用了三年了。", "刚买了小米的空气净化器，现在卧室空气好多了。", "我现在用的是什么手机？"),
    ("我用的是iPhone 13，用了三年了。", "上个月提了小米SU7，现在天天开着上班。", "我现在用的是什么手机？"),
    ("I drive a 2016 Honda Civic.", "Bought some Tesla stock now that it dipped, let's see.", "What car do I drive now?"),
    ("I'm still on an iPhone 12.", "Got a Samsung washer and dryer now that we finally have a laundry room.",
     "What phone do I have now?"),
    # a name the earlier answer already moved away from is no value the later one can leave again
    ("Moved my checking from Chase to Ally Bank, better rates.", "Finally cancelled the old Chase credit card too.",
     "Which bank do I use?"),
])
def test_no_change_of_one_s_own_thing_keeps_the_earlier_first(earlier, later, query):
    out = prefer_newest(two_answers(earlier, later), query)
    assert_earlier_first(out)


def test_the_pair_must_both_answer_the_question():
    earlier, later = "My car is a 2014 Mazda3.", "Sold it and I'm driving a Subaru Outback now."
    # far less relevant than the answer: no second answer to the question
    assert prefer_newest(two_answers(earlier, later, (0.9, 0.4)), "What car do I drive?")[0]["path"] == "memory/2026-10-02.md"
    assert prefer_newest(two_answers(earlier, later, (0.6, 0.58)), "What car do I drive?")[0]["path"] == \
        "memory/2026-10-20.md"


@pytest.mark.parametrize("query, asked", [
    ("Who is my supervisor now?", {"boss"}), ("我现在的上司是谁？", {"boss"}), ("Who's my manager now?", {"boss"}),
    ("Who is my sister's manager now?", set()),  # someone else's
    # the boss's own things are not the owner's, nor is the boss's boss
    ("What car does my supervisor drive now?", set()), ("Which bank does my boss use?", set()),
    ("我上司现在开什么车？", set()), ("Who is my supervisor's boss now?", set()), ("我上司的上司现在是谁？", set()),
    ("What car do I drive now?", {"car"}),
    # who insures or services the thing, or the bus one rides, asks no car (a new car is no new insurer)
    ("Who insures my car?", set()), ("Which garage services my car?", set()), ("我上班坐什么车？", set()),
])
def test_one_s_boss_however_named_is_the_kind_asked(query, asked):
    assert {heads[0] for a, (heads, _, _, _) in zip(kinds_asked(query), _kind_words()) if a} == asked


@pytest.mark.parametrize("later, led", [
    # the thing named right after "my carrier is now" is taken (a fresh-eyes review's case)
    ("Ported my number yesterday, my carrier is now Verizon", True),
    ("my sister's carrier is now Verizon", False), ("her carrier is now Verizon", False),
])
def test_my_thing_is_now_a_member(later, led):
    out = prefer_newest(two_answers("I'm on T-Mobile, the unlimited plan", later), "Who is my phone carrier?")
    assert (out[0]["path"] == "memory/2026-10-20.md") is led, [r["snippet"] for r in out]


def test_the_kind_asked_is_the_one_both_name():
    asked = kinds_asked("Which bank do I use?")
    # two cars are no answer about the bank
    assert not kind_answers("user: Sold the Mazda3, driving a Subaru now", "user: My car is a Mazda3", asked)
    assert kind_answers("user: Moved my accounts to Monzo now", "user: I bank with Barclays", asked)


def test_a_change_of_another_kind_is_no_update_for_the_kind_asked():
    # two short statements of one's car, the later a change: the car's own question orders them, a
    # question about one's bank leaves them as they ranked (the strict rule reads only the kind asked)
    rows = two_answers("My car is a silver Mazda, a 2014.", "I switched cars, now I drive a Subaru Outback.")
    car = prefer_newest([dict(r) for r in rows], "What car do I drive?")
    assert car[0]["path"] == "memory/2026-10-20.md" and car[1]["supersededBy"] == "memory/2026-10-20.md#L9-L9"
    bank = prefer_newest([dict(r) for r in rows], "Which bank do I use?")
    assert bank[0]["path"] == "memory/2026-10-02.md" and not any("supersededBy" in r for r in bank)
