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

CJK_LETTER_RE = re.compile(f"[{CJK_LETTER_CLASS}]")
CJK_RUN_RE = re.compile(f"[{CJK_LETTER_CLASS}]+")
_WIDE_RE = re.compile(f"[{CJK_WIDE_CLASS}]")


def has_cjk(text: str) -> bool:
    return CJK_LETTER_RE.search(text) is not None


def is_cjk_char(ch: str) -> bool:
    return CJK_LETTER_RE.match(ch) is not None


def wide_count(text: str) -> int:
    """Number of code points that weigh like one token each."""
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
    for run in CJK_RUN_RE.findall(lowered):
        tokens.update(run)
        tokens.update(run[i:i + 2] for i in range(len(run) - 1))
    return tokens
