"""Chinese numerals: the value of 三, 十五, 两万六 or 2万8, for every reading that meets a number written
in Chinese (the time words of a search, "二十天前"; the amounts the newest-first order compares, a raise
from 两万二 to 两万六)."""

from __future__ import annotations

import re

DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
# a number said with Chinese digits and units, Arabic digits standing for the Chinese ones where people
# mix them (2万8, 1.2万, 3千5)
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]")
_WHOLE = re.compile(f"(?:{_TOKEN.pattern})+")


def zh_value(said: str) -> float:
    """The value of the number ``said`` with Chinese digits and units; a digit after the last unit is of
    the unit below it (两万六 is 26000, 三千五 3500, 三百五 350), a 十 with no digit before it is ten
    (十五 is 15). Characters that are no numeral are passed over."""
    total = section = 0.0
    num: float | None = None
    last = 1
    for tok in _TOKEN.findall(said):
        if tok in UNITS:
            unit = UNITS[tok]
            if unit == 10000:
                total += (section + (num or 0)) * unit
                section = 0.0
            else:
                section += (1 if num is None and unit == 10 else num or 0) * unit
            num, last = None, unit
        else:
            num = float(tok) if tok[0].isdigit() else DIGITS[tok]
    tail = (num or 0) * (last / 10 if last >= 100 else 1)
    return total + section + tail


def zh_int(s: str) -> int | None:
    """The whole number ``s`` says when it is all numerals (12, 三, 十二, 二十), else None."""
    if not _WHOLE.fullmatch(s):
        return None
    value = zh_value(s)
    return int(value) if value == int(value) else None
