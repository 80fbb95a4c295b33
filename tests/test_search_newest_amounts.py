"""Two amounts alike in meaning (search/newest.py ``_meant_alike``, ``_amount_alike``): for a question
asking how much, a later statement of the owner's that shares no word of the question with the first
result is its update when their vectors make them each other's nearest statement, and the later one
says a change and another amount near in size. On the real bundled embedder."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

import numpy as np

from reverie import Memory
from reverie.search.newest import _amount_alike, _amounts, _meant_alike, _near_amounts, _says_change, asks_amount
from reverie.text.zh_numerals import zh_value
from workspace_helpers import first_unmarked, hybrid_results, local_memory

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
    first_unmarked(mem, "When is my rent due?", NOW, "$1,650")


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
    # amounts said with Chinese units are compared by their value, not the digits written
    ("下个月起税前两万六", "我现在税前月薪是两万二", True), ("物业费涨到2万8一年", "物业费一年两万六", True),
    ("房租涨到三千五了", "房租三千二", True), ("房租涨到三千五了", "房租35000", False),
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
    # supposed, offered and refused (a fresh-eyes review's traps)
    ("user: If rent went up to $2,000 I'd have to move.", "user: rent is $1,650 a month"),
    ("user: 要是房东涨到5500，我就搬家。", "user: 房租一个月4800"),
    ("user: 房东说想涨到5000，我没同意，还是原价。", "user: 房租一个月4800"),
    # what it changed by is no value of it; a sum is no new share
    ("user: rent went up by $100, starting next month", "user: rent is $1,650 a month"),
    ("user: 房租涨了300，从下个月起", "user: 房租一个月480"),
    ("user: now $10 a week into the 401k", "user: I'm putting 6% of my paycheck into the 401k"),
])
def test_what_is_no_new_amount(later, earlier):
    assert not _amount_alike(later, earlier, frozenset({"rent"}))


def test_a_new_amount_is_one(mem):
    assert _amount_alike("user: The renewal came under the door, $2,040 starting next month. I could cry.",
                         "user: My rent is $1,850 a month, due on the first.", frozenset({"rent"}))
    assert _amount_alike("user: Renewal letter came, $1,790 starting next month. Signed it anyway",
                         "user: rent is $1,650 a month, due on the 1st", frozenset({"rent"}))


@pytest.mark.parametrize("said, value", [
    ("两万六", 26000), ("2万8", 28000), ("1.2万", 12000), ("3千5", 3500), ("三千五", 3500), ("三百五", 350),
    ("四千三百", 4300), ("一万二千", 12000), ("十二万", 120000), ("五百", 500),
])
def test_an_amount_with_chinese_units_is_read_as_its_value(said, value):
    assert zh_value(said) == value
    assert f"{value:g}" in _amounts(f"每个月{said}块")


def test_a_day_or_a_count_is_no_amount_of_chinese_units():
    # (a digit or 十 alone is as often a day or a count: 十五号, 一个月, 三个人)
    assert _amounts("十五号交房租，一个月一次，三个人住") == frozenset()


@pytest.mark.parametrize("later, changes", [
    ("下个月起税前两万六", True), ("从周一起改到亦庄上班", True), ("明年起保费涨到四千", True),
    ("下个月起床要早点", False), ("从明天起飞往上海", False),
])
def test_from_a_day_on_says_a_change(later, changes):
    assert _says_change(later) is changes


class _Item:
    def __init__(self, text: str, vec):
        self.text, self.vec = text, vec


def _vec(*xs: float) -> bytes:
    return np.asarray(xs, dtype=np.float32).tobytes()


def test_two_statements_alike_in_meaning_are_each_others_nearest():
    head = [_Item("user: rent is $1,650 a month", _vec(1, 0, 0)),
            _Item("user: Renewal letter came, $1,790 starting next month", _vec(0.95, 0.3, 0)),
            _Item("user: How's it going today?", _vec(0.99, 0.1, 0)),  # a question: no rival
            _Item("user: The boiler service is with Hartley Heating", _vec(0.6, 0, 0.8))]
    assert _meant_alike(head, lambda it: it.vec, lambda it: it.text) == {id(head[1])}
    # a statement nearer the first than the renewal is a rival: neither is taken
    head.append(_Item("user: My phone plan is $30 a month with Mint", _vec(0.97, 0, 0.2)))
    assert id(head[1]) not in _meant_alike(head, lambda it: it.vec, lambda it: it.text)


@pytest.mark.parametrize("first, other", [
    (None, _vec(1, 0)), (b"", _vec(1, 0)), (b"abc", _vec(1, 0)), ([1.0, 0.0], _vec(1, 0)),
    (_vec(float("nan"), 0), _vec(1, 0)), (_vec(1, 0), _vec(1, 0, 0)), (_vec(1, 0), None),
])
def test_vectors_missing_or_malformed_judge_nothing(first, other):
    head = [_Item("user: rent is $1,650 a month", first),
            _Item("user: Renewal letter came, $1,790 starting next month", other)]
    assert not _meant_alike(head, lambda it: it.vec, lambda it: it.text)
