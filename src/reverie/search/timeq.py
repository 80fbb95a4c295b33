"""Time in the query: "last week", "in March", "3 days ago", "上周", "上个月", "三月份" resolved against
the search's ``now`` into a range of dates, which lifts the daily notes dated inside it.

A question that says when ("Where did I go hiking last week?") is asked of a memory where the same
kind of event happens on many days; the words alone rank them alike, and the date in a daily
note's name (``memory/2026-07-01.md``) is what tells them apart. The expression is also taken out
of the keyword query: "last" and "week" said nothing about what to find, and matched every note
that happens to say them.

Only calendar expressions are resolved (no anchors such as "the week before my trip"); an
expression that names no range ("recently", "someday") is left to the text. Weeks start on Monday.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from ..text.cjk import LazyPattern
from ..text.zh_numerals import zh_int
from .rescore import band

TIME_BOOST = 1.25  # a dated note inside the range, gated by relevance on a wider band than other boosts:
GATE_NONE = 0.40  # below this share of the best result's relevance, no lift
GATE_FULL = 0.60  # from this share on, all of it (the question said when; the words alone tie)

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "couple of": 2, "few": 3}

_EN = LazyPattern(
    r"\b(?:(?P<yday>yesterday)|(?P<rel>last|this|past|previous)\s+(?P<unit>week(?:end)?|month|year)"
    r"|(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)\s+"
    r"(?P<nunit>day|week|month)s?\s+ago"
    r"|(?:in|during|since|of)\s+(?P<month>" + "|".join(_MONTHS) + r"))\b", re.I)
_ZH = LazyPattern(
    r"(?P<yday>昨天|前天)|(?P<rel>上|这|本|今|去)(?:个)?(?P<unit>周末|周|星期|礼拜|月|年)"
    r"|(?P<n>\d+|[一两二三四五六七八九十]{1,2})(?:个)?(?P<nunit>天|周|星期|礼拜|月)(?:以)?前"
    r"|(?P<month>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?:份)?")

# the time leg (hybrid): the best windows of the daily notes dated in the range join the candidates,
# whatever else matched (on PostgreSQL, of the latest LEG_NOTES notes of the range)
LEG_WINDOWS = 8
LEG_NOTES = 400


@dataclass(frozen=True)
class TimeRange:
    start: date  # inclusive
    end: date  # inclusive
    text: str  # the query with the expression taken out
    event_path: str | None = None  # the note of the event the range hangs on (Anchor)

    def holds(self, d: date | None) -> bool:
        return d is not None and self.start <= d <= self.end


def gate(content: float, best: float) -> float:
    return band(content, best, GATE_NONE, GATE_FULL)


def _month_range(y: int, m: int) -> tuple[date, date]:
    first = date(y, m, 1)
    nxt = date(y + (m == 12), m % 12 + 1, 1)
    return first, nxt - timedelta(days=1)


def _last_month_named(today: date, m: int) -> tuple[date, date]:
    """The latest month ``m`` that has begun by ``today`` (asked in June, "March" is this year's)."""
    y = today.year if m <= today.month else today.year - 1
    return _month_range(y, m)


def _relative(today: date, rel: str, unit: str) -> tuple[date, date]:
    back = rel in ("last", "previous", "上", "去")
    if unit in ("week", "weekend", "周", "星期", "礼拜", "周末"):
        monday = today - timedelta(days=today.weekday() + (7 if back else 0))
        if unit in ("weekend", "周末"):
            return monday + timedelta(days=5), monday + timedelta(days=6)
        return monday, monday + timedelta(days=6)
    if unit in ("month", "月"):
        y, m = today.year, today.month
        if back:
            y, m = (y - 1, 12) if m == 1 else (y, m - 1)
        return _month_range(y, m)
    y = today.year - (1 if back else 0)
    return date(y, 1, 1), date(y, 12, 31)


def _ago(today: date, n: int, unit: str) -> tuple[date, date]:
    """"3 days ago" is that day; "2 weeks ago" that week; "2 months ago" that month."""
    if unit in ("day", "天"):
        d = today - timedelta(days=n)
        return d, d
    if unit in ("week", "周", "星期", "礼拜"):
        monday = today - timedelta(days=today.weekday() + 7 * n)
        return monday, monday + timedelta(days=6)
    y, m = today.year, today.month - n
    while m < 1:
        y, m = y - 1, m + 12
    return _month_range(y, m)


def resolve(query: str, now: datetime) -> TimeRange | None:
    """The range of dates ``query`` names, relative to ``now`` (the first expression found), or None."""
    today = now.date()
    for pattern, zh in ((_EN, False), (_ZH, True)):
        if zh and query.isascii():  # every Chinese expression holds a Chinese character
            continue
        m = pattern.search(query)
        if m is None:
            continue
        g = m.groupdict()
        span: tuple[date, date] | None = None
        if g["yday"]:
            d = today - timedelta(days=2 if g["yday"] == "前天" else 1)
            span = (d, d)
        elif g["rel"]:
            span = _relative(today, g["rel"].lower(), g["unit"].lower())
        elif g["n"]:
            n = zh_int(g["n"]) if zh else (int(g["n"]) if g["n"].isdigit() else _NUM.get(g["n"].lower()))
            if n:
                span = _ago(today, n, g["nunit"].lower())
        elif g["month"]:
            m_no = zh_int(g["month"]) if zh else _MONTHS.index(g["month"].lower()) + 1
            if m_no and 1 <= m_no <= 12:
                span = _last_month_named(today, m_no)
        if span is not None:
            text = (query[:m.start()] + " " + query[m.end():]).strip()
            return TimeRange(span[0], span[1], text)
    return None


# -- a range relative to an event: "the week before my trip to Kyoto", "去桂林旅行的前一周" ----------
_EN_ANCHOR = LazyPattern(r"\b(?:the\s+|a\s+)?(?P<unit>day|week|month)\s+(?P<dir>before|after)\s+(?P<anchor>[^?.!,;]+)",
                         re.I)
_ZH_ANCHOR = LazyPattern(r"(?P<anchor>[\u4e00-\u9fffA-Za-z0-9]{2,16}?)(?:的|之)(?P<dir>前|后)一?个?(?P<unit>周|星期|天|月)")
_SPAN = {"day": 1, "天": 1, "week": 7, "周": 7, "星期": 7, "month": 31, "月": 31}


@dataclass(frozen=True)
class Anchor:
    """A span before or after an event the memory holds: its date is the date of the note that
    best matches ``event`` (the pipeline looks it up), and the range includes that day."""

    event: str
    before: bool
    days: int
    text: str  # the query without the span words (the event's words stay: its note is evidence too)

    def around(self, d: date, path: str | None = None) -> TimeRange:
        if self.before:
            return TimeRange(d - timedelta(days=self.days), d, self.text, path)
        return TimeRange(d, d + timedelta(days=self.days), self.text, path)


def anchored(query: str) -> Anchor | None:
    for pattern in (_EN_ANCHOR, _ZH_ANCHOR):
        if pattern is _ZH_ANCHOR and query.isascii():  # it needs 的 or 之
            continue
        m = pattern.search(query)
        if m is None:
            continue
        event = m.group("anchor").strip()
        before = m.group("dir").lower() in ("before", "前")
        rest = query[:m.start()] + " " + event + " " + query[m.end("anchor") if pattern is _EN_ANCHOR else m.end():]
        return Anchor(event, before, _SPAN[m.group("unit").lower()], rest.strip())
    return None
