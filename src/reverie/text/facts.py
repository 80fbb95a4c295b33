"""When two memory entries state the same fact (Dreaming merges those, and only those).

An entry is compared on its words: the bullet, annotation comments (``<!-- importance: 8 -->``),
the ``Source: path#L3-L5`` reference and the ``[score=… signals=…]`` metadata Dreaming writes are
taken away, the rest is lower-cased. Two entries are the same fact when

* that text is identical, or
* they hold exactly the same numbers and the same bracketed values (``[10mg]`` is not ``[100mg]``,
  "room 12" is not "room 21") and at least :data:`NEAR_DUPLICATE` of their content words are shared
  (the same sentence reordered or lightly reworded).

The offline model merges by this rule and the consolidation validator accepts a merge only by it,
so a model cannot merge two different facts into one.
"""

from __future__ import annotations

import re

from .concepts import content_words, jaccard, numbers

NEAR_DUPLICATE = 0.75
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_SOURCE = re.compile(r"\s*\bSource:\s*\S+#L\d+(?:-L\d+)?", re.I)
_META = re.compile(r"\[(?:score|signals|recalls|avg|source|confidence|evidence)=[^\]]*\]", re.I)
_BRACKETED = re.compile(r"\[([^\]]*)\]")


def fact_text(entry: str) -> str:
    """An entry's words: no bullet, comments, Source reference or Dreaming metadata; lower-cased."""
    text = _COMMENT.sub(" ", entry or "")
    text = _BULLET.sub("", text.strip())
    text = _META.sub(" ", _SOURCE.sub(" ", text))
    return " ".join(text.lower().split())


def bracketed(text: str) -> frozenset[str]:
    return frozenset(" ".join(m.group(1).split()) for m in _BRACKETED.finditer(text))


def similarity(a: str, b: str) -> float:
    """Content-word overlap of two entries' fact texts."""
    return jaccard(frozenset(content_words(fact_text(a), matching=True)),
                   frozenset(content_words(fact_text(b), matching=True)))


def same_fact(a: str, b: str, threshold: float = NEAR_DUPLICATE) -> bool:
    fa, fb = fact_text(a), fact_text(b)
    if not fa or not fb:
        return False
    if fa == fb:
        return True
    if numbers(fa) != numbers(fb) or bracketed(fa) != bracketed(fb):
        return False
    wa, wb = frozenset(content_words(fa, matching=True)), frozenset(content_words(fb, matching=True))
    if not wa or not wb:
        return False
    return jaccard(wa, wb) >= threshold
