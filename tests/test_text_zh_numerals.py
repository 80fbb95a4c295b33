"""Chinese numerals (text/zh_numerals.py): one reading of 十五, 两万六 or 2万8 for the time words of a
search and the amounts the newest-first order compares."""

from __future__ import annotations

import pytest

from reverie.text.zh_numerals import zh_int, zh_value


@pytest.mark.parametrize("said, value", [
    ("三", 3), ("两", 2), ("十", 10), ("十五", 15), ("二十", 20), ("二十三", 23), ("一百", 100),
    ("三百五", 350), ("三千五", 3500), ("两万六", 26000), ("两万二", 22000), ("2万8", 28000), ("1.2万", 12000),
    ("3千5", 3500), ("一万零五百", 10500), ("月薪两万六", 26000),
])
def test_the_value_of_a_number_said_in_chinese(said, value):
    assert zh_value(said) == value


def test_a_whole_number_only_when_all_of_it_is_numerals():
    assert [zh_int(s) for s in ("12", "三", "十二", "二十", "两")] == [12, 3, 12, 20, 2]
    assert zh_int("三天") is None and zh_int("") is None and zh_int("1.5") is None
