"""Words of trigger keywords and messages, the FTS text written for a trigger, and the prefilter query.

One normalisation for both sides: NFKC (full-width ``ＨＺ`` is ``hz``) then lowercase. A text splits
into *Latin words* (runs of letters and digits, the way FTS5's ``unicode61`` splits them: ``_`` and
``-`` separate words) and *CJK runs* (Han, Kana, Hangul), since CJK text has no spaces to split on.

The exact rule (reference §11.4): a keyword entry matches when every Latin word of it is a word of
the message and every CJK run of it occurs in the message as a substring (``杭州`` in
``明天去杭州出差``).

The FTS prefilter must find every intent the exact rule would accept (it may find more; the recheck
drops them). Latin words are indexed as themselves; CJK runs as in the memory index
(:func:`reverie.text.fts.segment_for_index`: overlapping bigrams plus the last character), so a
message's bigrams find any CJK run of two or more characters it contains. A one-character CJK word
(``茶``) has no bigram: it also goes to a second column, ``fts_solo``, that only the message's
single characters are matched against. Matching single characters against the first column would
hit the last-character token of every longer word ending in that character, flooding the 256
candidates a turn may examine.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..text.cjk import CJK_RUN_RE, LazyPattern, has_cjk
from ..text.fts import segment_for_index

_WORD_RE = re.compile(r"[^\W_]+")
_SPLIT_CJK_RE = LazyPattern(f"({CJK_RUN_RE.pattern})")  # compiled when first used: see LazyPattern

# A turn's text beyond this is not matched (a pasted document is not a trigger phrase); it keeps
# the prefilter query bounded whatever the message size.
MAX_MATCH_CHARS = 4000


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


@dataclass(frozen=True)
class Words:
    latin: tuple[str, ...]
    cjk: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.latin and not self.cjk


def split_words(text: str) -> Words:
    """Latin words and CJK runs of an already normalised text, each deduplicated in order."""
    latin: list[str] = []
    cjk: list[str] = []
    for m in _WORD_RE.finditer(text):
        word = m.group(0)
        parts = [word] if not has_cjk(word) else [p for p in _SPLIT_CJK_RE.split(word) if p]
        for p in parts:
            bucket = cjk if has_cjk(p) else latin
            if p not in bucket:
                bucket.append(p)
    return Words(tuple(latin), tuple(cjk))


@dataclass(frozen=True)
class Message:
    """A turn's text, prepared once for all the candidates it is checked against."""

    text: str
    words: set[str]

    @classmethod
    def of(cls, raw: str) -> "Message":
        text = normalize(raw[:MAX_MATCH_CHARS])
        return cls(text, set(split_words(text).latin))

    def contains(self, entry: Words) -> bool:
        """The exact trigger rule for one keyword entry."""
        if entry.empty:
            return False
        return all(w in self.words for w in entry.latin) and all(run in self.text for run in entry.cjk)


def fts_columns(keywords: list[str]) -> tuple[str, str]:
    """``(fts_words, fts_solo)`` as written to ``standing_intents`` for these (normalised) keywords."""
    words: list[str] = []
    solo: list[str] = []
    for kw in keywords:
        parts = split_words(kw)
        words.extend(parts.latin)
        for run in parts.cjk:
            words.append(segment_for_index(run, "cjk").strip())
            if len(run) == 1:
                solo.append(run)
    return " ".join(words), " ".join(solo)


def _quote(term: str) -> str:
    return '"' + term.replace('"', "") + '"'


def prefilter_terms(message: Message) -> tuple[list[str], list[str]]:
    """(word terms, single-character terms): an intent whose ``fts_words`` holds any of the first
    or whose ``fts_solo`` holds any of the second may trigger on this message."""
    parts = split_words(message.text)
    word_terms: dict[str, None] = dict.fromkeys(parts.latin)
    solo_terms: dict[str, None] = {}
    for run in parts.cjk:
        for i in range(len(run) - 1):
            word_terms[run[i:i + 2]] = None
        for ch in run:
            solo_terms[ch] = None
    return list(word_terms), list(solo_terms)


def prefilter_query(message: Message) -> str | None:
    """An FTS5 query (OR of quoted terms, column-filtered) that finds every possible trigger."""
    word_terms, solo_terms = prefilter_terms(message)
    clauses = []
    if word_terms:
        clauses.append("fts_words : (" + " OR ".join(_quote(t) for t in word_terms) + ")")
    if solo_terms:
        clauses.append("fts_solo : (" + " OR ".join(_quote(t) for t in solo_terms) + ")")
    return " OR ".join(clauses) or None
