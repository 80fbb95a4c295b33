"""Trigger phrase matching (reference §9): lexical, CJK-aware, no model.

Words are the lower-cased runs of Unicode letters, digits and ``_`` longer than one character;
a word matches only whole ("art" does not match "party"). A phrase scores:

* one word present -> 0.85;
* several words, all present (any order, repeats ignored) -> 1.0;
* otherwise ``coverage × 0.8 + min(1, overlap / 2) × 0.2`` (0 without overlap), where overlap is
  how many of its distinct words the message holds and coverage that share.

An entry's match score is ``0.8 × best phrase score + 0.2 × clamp(retrieval score, 0, 1)``.

**Chinese, Japanese and Korean.** These scripts write words without spaces, so a run of CJK
characters is not one word: ``下周去杭州，记得确认返程车票`` holds the word ``返程车票`` inside the
run ``记得确认返程车票``. A CJK word of a phrase (two characters or more) is therefore present when
its characters appear *contiguously* anywhere in the message's CJK text; the trigger ``返程车票``
matches that message as a one-word phrase (0.85), and ``返程 车票`` (two words) as a full
multi-word match (1.0). A single CJK character is never a word, as a single Latin letter is not.
A run mixing scripts (``Redis缓存``) splits where the script changes (``redis``, ``缓存``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..text.cjk import CJK_LETTER_CLASS, LazyPattern

ONE_WORD = 0.85
ALL_WORDS = 1.0
PHRASE_WEIGHT = 0.8
RETRIEVAL_WEIGHT = 0.2
_WORD_RE = re.compile(r"[^\W]+", re.UNICODE)  # letters, digits and _ (Python's \w)
_CJK_SPLIT_RE = LazyPattern(f"([{CJK_LETTER_CLASS}]+)")  # compiled when first used: see LazyPattern
_CJK_RE = LazyPattern(f"[{CJK_LETTER_CLASS}]")
_PHRASE_SPLIT_RE = re.compile(r"[\n;|]")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").lower()


@dataclass(frozen=True)
class Words:
    """A text's words: spaced-script words (whole-word matching) and CJK words (substring)."""

    plain: frozenset[str]
    cjk: tuple[str, ...]  # CJK runs of the text, searched as substrings

    def has(self, word: str) -> bool:
        if _CJK_RE.match(word):
            return any(word in run for run in self.cjk)
        return word in self.plain


def _parts(text: str):
    """The words of ``text`` in order: letter/digit/_ runs split where the script changes between
    CJK and the rest, one character long ones dropped."""
    for run in _WORD_RE.findall(_fold(text)):
        for part in _CJK_SPLIT_RE.split(run):
            if len(part) > 1:
                yield part


def words_of(text: str) -> Words:
    plain: set[str] = set()
    cjk: list[str] = []
    for part in _parts(text):
        if _CJK_RE.match(part):
            cjk.append(part)
        else:
            plain.add(part)
    return Words(frozenset(plain), tuple(cjk))


def phrase_words(phrase: str) -> tuple[str, ...]:
    """The distinct words of a trigger phrase, in order."""
    return tuple(dict.fromkeys(_parts(phrase)))


def split_phrases(triggers: str | None) -> list[str]:
    """A stored trigger list (``a; b``) as phrases (newline, ``;`` and ``|`` separate them)."""
    return [p.strip() for p in _PHRASE_SPLIT_RE.split(triggers or "") if p.strip()]


def phrase_score(words: tuple[str, ...], message: Words) -> float:
    if not words:
        return 0.0
    overlap = sum(1 for w in words if message.has(w))
    if overlap == len(words):
        return ONE_WORD if len(words) == 1 else ALL_WORDS
    if overlap == 0:
        return 0.0
    return (overlap / len(words)) * 0.8 + min(1.0, overlap / 2) * 0.2


def match_score(best_phrase: float, retrieval: float | None) -> float:
    r = min(1.0, max(0.0, float(retrieval or 0.0)))
    return PHRASE_WEIGHT * best_phrase + RETRIEVAL_WEIGHT * r


def score_message(message: str, triggers: str, retrieval: float | None = 0.0) -> float:
    """The match score of one entry's triggers against a message (what the tests pin down)."""
    msg = words_of(message)
    best = max((phrase_score(phrase_words(p), msg) for p in split_phrases(triggers)), default=0.0)
    return round(match_score(best, retrieval), 4) if best > 0 else 0.0
