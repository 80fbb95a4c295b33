"""What a "which" question asks the name of: "Which hotel…", "哪家酒店", "什么车型" ask for a hotel, a
car model; the thing, and the words that name one (a kind's members: text/kinds.py).

Read by the offline model's recall (a hit naming such a thing answers better than one sharing the
question's other words: models/offline.py) and by search's newest-first order (a later statement
naming none of it is no newer answer to the question: search/newest.py).
"""

from __future__ import annotations

import re

from .cjk import LazyPattern

_FOCUS_EN = LazyPattern(r"\b(?:which|what)\s+([a-z]{3,})\b", re.I)
_FOCUS_ZH = LazyPattern(r"(?:哪一?[家个间所座位辆本部款台种只条]|什么)([\u4e00-\u9fff]{2})")
_NOT_FOCUS = frozenset("""is was are were did does do has have had will would can could should time times day days
kind sort type way ways one ones the this that about""".split()) | frozenset(
    "时候 时间 地方 意思 样子 东西 事情 原因 问题".split())
_FOCUS_PARTICLES = frozenset("吗呢了的啊吧是在有呀么")


def focus_of(asked: str) -> str | None:
    """The thing a "which" / "what X" question asks the name of, or None."""
    m = _FOCUS_ZH.search(asked or "")
    if m and not _FOCUS_PARTICLES & set(m.group(1)) and m.group(1) not in _NOT_FOCUS:
        return m.group(1)
    m = _FOCUS_EN.search(asked or "")
    if m and m.group(1).lower() not in _NOT_FOCUS:
        return m.group(1).lower()
    return None


def focus_words(focus: str) -> tuple[str, ...]:
    """The focus and, when it heads a kind (text/kinds.py), the kind's members: "What instrument did I
    start learning?" is answered by "the cello", which never says "instrument"."""
    from .kinds import KIND_LIST, names

    words = [focus]
    for kind in KIND_LIST:
        if any(names(focus, h) for h in kind.heads):
            words += kind.members
    return tuple(dict.fromkeys(words))


def names_focus(text: str, words: tuple[str, ...]) -> bool:
    """Whether ``text`` names one of ``words``, singular or plural ("hotel", "hotels"; text/kinds.py)."""
    from .kinds import names

    low = text.lower()
    return any(names(low, w) for w in words)
