"""CJK-aware text measures.

A CJK, Kana or Hangul character weighs about one token; other text about four characters per token
(the reference's estimate; no tokenizer download needed).
"""

from __future__ import annotations

import re

# Letters of the CJK scripts: Han (incl. extensions and compatibility), Kana, Hangul.
CJK_LETTER_CLASS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han + Ext A + compatibility
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # Hiragana, Katakana (+ext, halfwidth)
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # Hangul Jamo, compatibility Jamo, syllables
    "\U00020000-\U0002ebef\U00030000-\U0003134f"  # Han Ext B-F, G
)
# Punctuation and full-width forms that also weigh like a CJK character.
CJK_WIDE_CLASS = CJK_LETTER_CLASS + "\u3000-\u303f\uff00-\uff65\uffe0-\uffef"


class LazyPattern:
    """A regular expression compiled on its first use, used like the compiled one (``.pattern``
    is there at once). A character class spanning these scripts costs the ``re`` compiler a loop
    over every code point in it: 5-7 ms a pattern, paid at import by every command, also by those
    that only ever see ASCII text (the functions below answer that without a pattern)."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern | None = None

    def compiled(self) -> re.Pattern:
        if self._compiled is None:  # two threads may both compile: the same pattern either way
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def __getattr__(self, name: str):  # search, match, sub, finditer ...
        if name.startswith("_"):  # an unset slot (a copy in the making), never the pattern's
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"


CJK_LETTER_RE = LazyPattern(f"[{CJK_LETTER_CLASS}]")
CJK_RUN_RE = LazyPattern(f"[{CJK_LETTER_CLASS}]+")
_WIDE_RE = LazyPattern(f"[{CJK_WIDE_CLASS}]")

# Every range above lies beyond ASCII: an ASCII text (most notes and queries) holds none of it.


def has_cjk(text: str) -> bool:
    if text.isascii():
        return False
    return CJK_LETTER_RE.search(text) is not None


def is_cjk_char(ch: str) -> bool:
    if ch.isascii():
        return False
    return CJK_LETTER_RE.match(ch) is not None


def wide_count(text: str) -> int:
    """Number of code points that weigh like one token each."""
    if text.isascii():
        return 0
    return len(_WIDE_RE.findall(text))


def weighted_length(text: str) -> int:
    """Length in "characters" where each CJK code point counts as 4 (so 4 units ~ one token)."""
    wide = wide_count(text)
    return len(text) - wide + 4 * wide


def estimate_tokens(text: str) -> int:
    wide = wide_count(text)
    rest = len(text) - wide
    return wide + (rest + 3) // 4


_MMR_ASCII_RE = re.compile(r"[a-z0-9_]+")


def similarity_tokens(text: str) -> set[str]:
    """Token set for near-duplicate detection (MMR): ASCII words, CJK unigrams and adjacent bigrams."""
    lowered = text.lower()
    tokens = set(_MMR_ASCII_RE.findall(lowered))
    if lowered.isascii():
        return tokens
    for run in CJK_RUN_RE.findall(lowered):
        tokens.update(run)
        tokens.update(run[i:i + 2] for i in range(len(run) - 1))
    return tokens
