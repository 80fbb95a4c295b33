"""Spotting a *time-based* reminder handed to the intent tool, so it can be refused with a pointer
to the scheduler: "tomorrow at 9" is an automation (``reverie cron add``), "when someone mentions
Hangzhou" a standing intent.

Conservative on purpose: only unmistakable scheduling phrases count (a clock time, a relative
delay, a named day to come, a repetition), so an intent about "tomorrow's meeting" (a condition on
what is said) or "注意一点" ("be a bit careful", not "one o'clock") is still accepted.
"""

from __future__ import annotations

import re

from ..text.cjk import LazyPattern

_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
_MONTHS = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
           r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
_UNITS = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?)"
_NUM_WORDS = r"(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|forty-five|a few|a couple of|half an?)"
_CN_NUM = r"[0-9０-９一二两三四五六七八九十百半]+"

_ENGLISH = [
    # "tomorrow", "tonight" as a when (not "tomorrow's meeting")
    r"\b(?:tomorrow|tonight|the day after tomorrow)\b(?!'s|’s)",
    r"\bthis (?:morning|afternoon|evening)\b(?!'s|’s)",
    rf"\bin {_NUM_WORDS} ?{_UNITS}\b",
    rf"\b(?:after|within) {_NUM_WORDS} ?{_UNITS}\b",
    r"\bat \d{1,2}(?::\d{2})? ?(?:am|pm|a\.m\.|p\.m\.|o'?clock)",
    r"\bat \d{1,2}(?::\d{2})?(?= *(?:$|[.,;!?]|today|tomorrow|tonight|on |every ))",
    r"\bat (?:noon|midnight)\b",
    r"\b\d{1,2}:\d{2} ?(?:am|pm)?\b",
    r"\b\d{1,2} ?(?:am|pm)\b",
    rf"\b(?:every|each) (?:other )?(?:day|morning|afternoon|evening|night|week|weekday|month|year|hour|minute|{_DAYS})s?\b",
    rf"\bnext {_DAYS}\b",
    r"\bnext (?:week|month|year)\b(?!'s|’s)",
    rf"\bon {_DAYS}s?\b(?!'s|’s)",
    r"\bon (?:the )?\d{1,2}(?:st|nd|rd|th)\b",
    rf"\bon {_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?\b",
    rf"\b(?!may\b){_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?\b",  # "they may 2 ..." is not a date
    r"\b\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2})?",
]
_CHINESE = [
    r"(?:大后天|后天|明天|明日|明早|明晚|今晚|今早|今夜|今天(?:早上|上午|中午|下午|傍晚|晚上))(?!的)",
    rf"(?:早上|上午|中午|下午|傍晚|晚上|凌晨|夜里|明早|明晚|今晚){_CN_NUM}[点點时]",
    r"[0-9０-９]{1,2}\s*[点點](?:半|[0-9０-９]{1,2}分|钟|鐘)?",
    r"[0-9０-９]{1,2}[:：][0-9０-９]{2}",
    rf"{_CN_NUM}\s*个?(?:秒钟?|分钟|小时|小時|钟头|鐘頭|天|日|周|星期|礼拜|禮拜|个?月)(?:之后|以后|后|後)",
    r"每(?:天|日|晚|早|周|週|星期|礼拜|禮拜|月|年|小时|小時|隔|个?工作日)",
    r"(?:下|这|這|本)个?(?:周|週|星期|礼拜|禮拜)[一二三四五六日天]?",
    r"下个?月",
    r"[0-9０-９一二三四五六七八九十]{1,3}月[0-9０-９一二三四五六七八九十]{1,3}[日号號]",
    r"(?:过|過)(?:一会儿?|一會兒?|几分钟|幾分鐘|半小时)",
]
_PATTERNS = [LazyPattern(p, re.IGNORECASE) for p in _ENGLISH + _CHINESE]


def time_phrase(text: str) -> str | None:
    """The first scheduling phrase in ``text`` ("at 9am", "明天早上9点"), or None."""
    for pattern in _PATTERNS:
        m = pattern.search(text)
        if m:
            return m.group(0).strip()
    return None


def refusal(phrase: str) -> str:
    return (f"this looks like a time-based reminder ({phrase!r}); a standing intent waits for something "
            "to be said, not for a time. Schedule it as an automation instead: reverie cron add "
            "--at/--every/--cron ... --text ...")
