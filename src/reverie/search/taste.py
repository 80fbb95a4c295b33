"""Preferences: a question asking for advice ("recommend me a podcast", "有什么建议") lifts the
entries where the owner stated a taste ("I love history podcasts", "我不喜欢人多的地方").

Such a question rarely shares its words with the taste that answers it, so the taste ranks below
entries that merely share a word ("dinner", "podcast"), or is not a candidate at all: an advice
question also asks the keyword index for the verbs of a taste (:data:`TASTE_WORDS`), and the
statements found join the candidates, judged by the vector leg like any other (keyword-only, they
have no relevance to the question and stay where they were). The lift is
gated by relevance as every boost is (rescore.py), on a wider band: it applies in full to an entry
within 80 % of the best result's relevance and fades to nothing at 65 % (a taste unrelated to the
question stays where it was). Only the :data:`TASTES_LIFTED` tastes most relevant to the question
are lifted.
"""

from __future__ import annotations

from ..text.cjk import LazyPattern
from ..text.topics import topics_of
from .rescore import band
from .results import wording

TASTE_BOOST = 1.35
GATE_NONE = 0.65  # below this share of the best relevance, no lift
GATE_FULL = 0.80  # from this share on, all of it

# "should I" / "我该" ask for a choice only with a "what", "which" or "where" ("what kind of holiday
# should I book", "what do you think I should cook", "我该订什么样的假期"); "how should I answer my
# manager" / "我该怎么回复" ask how to do
# something, which no stated taste answers (lifting every "I like…" there buried the fact asked for)
_ASKS = LazyPattern(
    r"\b(?:recommend\w*|suggest\w*|ideas?|advice|advise|tips?|would i like)\b"
    r"|\b(?:what|which|where)\b[^.?!\n]{0,40}\b(?:(?:should|shall) (?:i|we)|(?:i|we) (?:should|shall))\b"
    r"|推荐|建议|有什么好|主意|适合我|我该.{0,4}(?:什么|哪)|应该.{0,4}(?:什么|哪)", 0)
_TASTE = LazyPattern(
    r"\b(?:i|we)(?:'ve|'d|\s+have|\s+had|\s+do|\s+don't|\s+do\s+not|\s+never)?"
    r"(?:\s+(?:really|absolutely|truly|just|always|also|still|so|much))*"
    r"\s+(?:love|loved|like|liked|enjoy|enjoyed|prefer|preferred|hate|hated|dislike|adore)\b"
    r"|\bcan'?t\s+stand\b|\bmy\s+favou?rite\b|\bi'?m\s+(?:a\s+)?(?:vegetarian|vegan|big\s+fan)\b|\bnot\s+a\s+fan\b"
    r"|喜欢|喜爱|爱吃|爱喝|爱看|爱听|讨厌|最爱|偏爱|受不了|吃素|不爱")


# a question about advice given before ("which budgeting method did you recommend?", "你推荐过我
#哪种记账方法？", "你之前建议我做什么…") asks what was said, not for a new recommendation: the
# advice is in the assistant's turn, and lifting the owner's tastes buried it
_PAST_ADVICE = LazyPattern(
    r"\b(?:did|have|had)\s+you\s+(?:\w+\s+)?(?:recommend|suggest|advise|propose)"
    r"|\byou\s+(?:\w+\s+)?(?:recommended|suggested|advised|proposed)\b"
    r"|\b(?:recommend|suggest)\w*\s+(?:to\s+me\s+)?(?:earlier|before|last\s+time)\b"
    r"|(?:推荐|建议|介绍)过|(?:之前|上次|以前|那次|曾经)[^。？！\n]{0,4}(?:推荐|建议)|(?:推荐|建议)的(?:那|是)", 0)


# what the taste leg asks the keyword index for: the verbs of a stated taste (each a query token)
TASTE_WORDS = "love loves enjoy enjoyed prefer hate favourite favorite vegetarian vegan 喜欢 讨厌 最爱 爱吃 吃素"
LEG_LIMIT = 64  # taste statements made candidates for an advice question (their vectors then judge them)


# keyword-only, a stated taste on a topic the request names (text/topics.py) is at least this
# relevant by keyword: above a unit holding one common word of the request ("birthday" in "my
# sister's birthday is in March"), below one holding its rarer words ("Sichuan restaurant")
TOPIC_WEIGHT = 0.3


def asks_for_advice(query: str) -> bool:
    low = query.lower()
    return _ASKS.search(low) is not None and not past_advice(low)


def past_advice(low: str) -> bool:
    """``low`` (lower-cased) asks about advice the assistant gave before."""
    return _PAST_ADVICE.search(low) is not None


def states_taste(text: str) -> bool:
    return _TASTE.search(text.lower()) is not None


TASTES_LIFTED = 2


def lifted(pool: list) -> set[int]:
    """The ids of the candidates an advice question lifts: the :data:`TASTES_LIFTED` stated tastes
    most relevant to it (not every taste: a request for listening material lifted "I love old
    pop songs", "I love Go", "I hate crowds" and three more above the fact that answered it)."""
    tastes = [c for c in pool if not c.specificity and states_taste(c.text)]
    tastes.sort(key=lambda c: -c.content)
    chosen: dict[str, int] = {}  # one per wording: the same line in two notes is one taste
    for c in tastes:
        if len(chosen) == TASTES_LIFTED:
            break
        chosen.setdefault(wording(c.text), id(c))
    return set(chosen.values())


def keep_topical(pool: list, topics: frozenset[str], alone: set[int]) -> list:
    """Keyword-only: marks the stated tastes on one of ``topics`` (the topics the request names)
    and returns the pool without the units only the taste leg brought (``alone``) that are not."""
    out = []
    for c in pool:
        if not c.specificity and states_taste(c.text) and topics & topics_of(c.text):
            c.topical = True
        elif c.seq in alone:
            continue
        out.append(c)
    return out


def gate(content: float, best: float) -> float:
    return band(content, best, GATE_NONE, GATE_FULL)
