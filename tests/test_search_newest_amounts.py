"""Two amounts alike in meaning (search/newest.py ``_meant_alike``, ``_amount_alike``): for a question
asking how much, a later statement of the owner's that shares no word of the question with the first
result is its update when their vectors make them each other's nearest statement, and the later one
says a change and another amount near in size. On the real bundled embedder."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory
from reverie.search.newest import _amount_alike, _amounts, _near_amounts, asks_amount
from workspace_helpers import hybrid_results, local_memory

NOW = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
# daily notes of a month of talk: the rent said once, then its renewal in other words (no "rent"),
# and other amounts, plans and small talk around them
NOTES = {
    "memory/2026-10-04.md": "- rent is $1,650 a month, due on the 1st, I pay through the portal\n",
    "memory/2026-10-06.md": "- My phone plan is $30 a month with Mint, unlimited calls\n"
                            "- Had a long walk by the river with my sister\n",
    "memory/2026-10-09.md": "- The boiler service is with Hartley Heating, contract renews in March\n",
    "memory/2026-10-12.md": "- I'm putting 6% of my paycheck into the 401k, just enough for the match\n",
    "memory/2026-10-19.md": "- Renewal letter came, $1,790 starting next month. Signed it anyway, moving is worse\n",
    "memory/2026-10-22.md": "- Watched a documentary about octopuses, surprisingly moving\n",
}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("amounts-home")


@pytest.fixture(scope="module")
def mem(home):
    m = local_memory(home, NOTES)
    yield m
    m.close()


def test_a_new_amount_said_in_other_words_comes_first_and_the_old_is_superseded(mem):
    res = hybrid_results(mem, "How much is my rent?", NOW)
    assert "$1,790" in res[0]["snippet"], [r["snippet"] for r in res]
    old = next(r for r in res if "$1,650" in r["snippet"])
    assert old["supersededBy"] == res[0]["citation"]


def test_without_vectors_the_rules_alone_decide(mem, home):
    # keyword-only on the same index: no vector says the renewal is of the rent, and no word of the
    # question does, so the rent line keeps its place unmarked
    kw = Memory(home=home, env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="none"'])
    try:
        out = kw.search("How much is my rent?", 10, 0.0, now=NOW, record_signals=False)
    finally:
        kw.close()
    assert out["mode"] != "hybrid"
    res = out["results"]
    assert "$1,650" in res[0]["snippet"], [r["snippet"] for r in res]
    assert not res[0].get("supersededBy")


def test_a_question_not_asking_how_much_is_left_to_the_rules(mem):
    res = hybrid_results(mem, "When is my rent due?", NOW)
    assert "$1,650" in res[0]["snippet"], [r["snippet"] for r in res]
    assert not res[0].get("supersededBy")


@pytest.mark.parametrize("question, expected", [
    ("How much is my rent?", True), ("What percent of my salary goes into my 401k?", True),
    ("我每个月房租多少？", True), ("房贷利率是百分之几？", True), ("What's the rate on my mortgage?", False),
    ("What rate do I pay on the mortgage?", True), ("When is my rent due?", False),
])
def test_what_asks_how_much(question, expected):
    assert asks_amount(question) is expected


@pytest.mark.parametrize("later, earlier, expected", [
    ("Renewal letter came, $1,790 starting next month", "rent is $1,650 a month", True),
    ("after the raise I bumped my 401k contribution up to 10%", "I'm putting 6% of my paycheck into the 401k", True),
    ("续约的时候房东涨到5200了", "这边房租一个月4800", True),
    ("用的是移动的128元套餐", "这边房租一个月4800", False),  # another thing's amount, of another size
    ("Renewed the car insurance, 612 euros a year now", "My phone plan is $30 a month", False),
    ("Rent is $1,650 again", "rent is $1,650 a month", False),  # the same amount
])
def test_near_amounts(later, earlier, expected):
    assert _near_amounts(_amounts(later), _amounts(earlier)) is expected


@pytest.mark.parametrize("later, earlier", [
    # no change said: a price mentioned is no new price
    ("user: Paid $1,700 for the new sofa, delivery on Friday", "user: rent is $1,650 a month"),
    # a wish, a question, hearsay
    ("user: thinking about offering $1,700 for the bigger flat next month", "user: rent is $1,650 a month"),
    ("user: would $1,790 starting next month be fair?", "user: rent is $1,650 a month"),
    ("user: heard that rents are going up to $1,790 next month", "user: rent is $1,650 a month"),
    # someone else's news
    ("user: my friend Dana's rent went up to $1,790 starting next month", "user: rent is $1,650 a month"),
    # another speaker's turn
    ("assistant: It goes up to $1,790 starting next month.", "user: rent is $1,650 a month"),
])
def test_what_is_no_new_amount(later, earlier):
    assert not _amount_alike(later, earlier, frozenset({"rent"}))


def test_a_new_amount_is_one(mem):
    assert _amount_alike("user: Renewal letter came, $1,790 starting next month. Signed it anyway",
                         "user: rent is $1,650 a month, due on the 1st", frozenset({"rent"}))
