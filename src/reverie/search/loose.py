"""Loose matching: the characters of a Chinese question, not only its words.

The keyword index matches a Chinese question by its two-character words (fts.py: every run is indexed
as its bigrams). People seldom say a thing twice in the same words: "我一共去游了几次泳？" is
answered by "今晚游了二十个来回" and "去游泳馆游了一千米", "我二月去哪里爬山了？" by "今天去爬了香山";
the bigrams 游了/次泳 and 爬山 are not theirs. Their characters are: 游, 泳; 爬, 山.

So a question that gathers what many notes say -- a count ("一共", "几次"), a range of days
("上个月") -- and holds Han characters (Chinese, or a Japanese question's kanji; not kana or hangul,
whose single letters are syllables, not meanings) also asks the index for its *meaningful
characters* (the loose leg: each character a prefix query, which reaches every occurrence, since
every character starts a bigram or ends its run), and a unit's keyword relevance is at least
:data:`WEIGHT` times the share of those characters it holds: below a unit holding the question's
words themselves, above one that holds a single word of a long question. Particles, pronouns, the
question's own words (哪, 里, 什, 么, 几) and a count's frame (一共, 多少) do not count: they are
in every note, or in none that answers.

A plain lookup does not ask: its answer is one note, which its words or the vectors find. Nor does
a memory of more than :data:`MAX_UNITS` units: there the characters' prefixes match a third of it
(100k units: 18-35 ms to rank each time; a gathering question's p50 went 31.7 -> 52.1 ms hybrid,
``benchmarks/latency_ab.py --queries gathering``), and a character is found in so many units that
the hundred best say little. Nor does a question about what holds now ("我现在开的是什么车？"): the earlier
statement, often worded more like the question ("我目前跑得最远的一次是十二公里" for "我现在最长能跑多少
公里"), rose above the later one (measured: the later statement's note first 0.625 -> 0.500,
keyword-only). Latin words are matched loosely too where a unit's loose share is computed (rough
stems: hiking / hikes, but not hike), but they ask the index for nothing more: the stemmer already
finds them.
"""

from __future__ import annotations

import re

from ..text.cjk import CJK_RUN_RE
from ..text.concepts import STOP, content_words

WEIGHT = 0.4  # a unit holding every loose term: 0.4 (one holding every query word: up to 1.0)
LEG_LIMIT = 100  # units the loose leg brings (best bm25 over the characters first)
MAX_UNITS = 20_000  # in a larger memory the leg is not asked (its prefixes match too much to rank)

# the frame of a counting question, as the keyword query leaves it out (keyword.STOP_WORDS): "一共"
# is no evidence of a swim ("超市一共有多少种牛奶" is not a concert)
_COUNT_FRAME = re.compile("一共|总共|总计|累计|加起来|多少|到现在")
_LATIN_FRAME = re.compile(r"\b(?:how\s+many\s+times|times|in\s+total|total|altogether|overall)\b", re.I)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# single characters that say nothing of what is asked for: particles, pronouns, the question's own
# words (哪里, 什么, 几, 多少), measure words and the commonest verbs. Measured against stripping
# whole function words too (现在, 不同) and against requiring two characters held: both lost more
# than they won (docs/search.md, "Loose matching").
_FILLER_CHARS = frozenset("的了是在和也就都而及与吗呢吧啊着过把被我你他她它们这那个些有没哪里什么谁几多少怎样去来到呀么啥得地要"
                          "会能想做干次回天周月年")


def terms(text: str) -> frozenset[str]:
    """The loose terms of ``text``: each meaningful CJK character, and the rough stems of its
    Latin content words (stop words aside)."""
    text = text or ""
    out: set[str] = set()
    for run in CJK_RUN_RE.findall(text):
        out.update(ch for ch in _HAN.findall(_COUNT_FRAME.sub(" ", run)) if ch not in _FILLER_CHARS)
    latin = _LATIN_FRAME.sub(" ", CJK_RUN_RE.sub(" ", text))
    out.update(w for w in content_words(latin, matching=True) if w not in STOP)
    return frozenset(out)


def leg_words(wanted: frozenset[str]) -> str:
    """What the loose leg asks the keyword index for: of a question's loose terms (:func:`terms`),
    its meaningful Han characters, each its own query token ("" when it has none)."""
    return " ".join(sorted(t for t in wanted if _HAN.fullmatch(t)))


def share(text: str, wanted: frozenset[str]) -> float:
    """The share of ``wanted`` that ``text`` holds (0 when there is nothing to hold)."""
    if not wanted:
        return 0.0
    return len(wanted & terms(text)) / len(wanted)
