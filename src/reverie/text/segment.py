"""Chinese words, for the triggers Dreaming writes (:mod:`reverie.dreaming.trigger_words`).

Chinese has no spaces, and the character pairs the index and the word sets use (``湖滨酒店`` ->
``湖滨 滨酒 酒店``) are fine for matching but are not words: a trigger made of them (``定住``,
``住西``) fires on text that merely shares two characters. Triggers need words, and preferably
nouns: the place, the thing, the person a fact is about.

:func:`nouns` uses `rjieba <https://pypi.org/project/rjieba/>`_ (jieba's dictionary and part-of-
speech tags, in Rust: a 3.7 MB wheel with the dictionary inside, imported in ~0.3 s, ~50 µs a
sentence), imported lazily on the first Chinese text a promotion meets -- never by a search, a
command or a turn. It keeps, of the tagged tokens:

* nouns only (``n``, ``nr`` person, ``ns`` place, ``nt`` organisation, ``nz`` other proper noun,
  ``nrt``, ``vn`` verbal noun): verbs (``决定``), time words, pronouns and particles never;
* dictionary words only: a token the dictionary does not hold was guessed by jieba's statistical
  model, and so were the tokens beside it (``订湖景房`` comes out as ``订湖`` + ``景房``, both
  wrong), so all of them are left out;
* adjacent dictionary nouns joined (``湖滨`` + ``酒店`` -> ``湖滨酒店``), the compound a person would
  type.

Without rjieba (a platform with no wheel) a plain fallback splits each Chinese run at particles and
common function words and keeps pieces of 2-4 characters: weaker (no parts of speech), still never
a pair that straddles a particle. The false-fire check on promotion catches what either lets through.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from .cjk import CJK_RUN_RE, has_cjk

NOUN_TAGS = frozenset({"n", "nr", "ns", "nt", "nz", "nrt", "nrfg", "vn", "an"})
PROPER_TAGS = frozenset({"nr", "ns", "nt", "nz", "nrt", "nrfg"})
_lock = threading.Lock()
_engine: object | None = None
_FALLBACK_SPLIT = re.compile("[的了是在和也就都而及与吗呢吧啊着过把被给从向对让我你他她它们这那个要会能去来说想没有不很还再又]+")


@dataclass(frozen=True)
class Noun:
    word: str
    proper: bool  # a name of a person, place or organisation (or a compound holding one)
    start: int  # position in the text (characters)


def _rjieba():
    global _engine
    with _lock:
        if _engine is None:
            try:
                import rjieba  # lazy: only a promotion of Chinese text pays its import

                _engine = rjieba
            except ImportError:
                _engine = False
    return _engine or None


def engine_name() -> str:
    return "rjieba" if _rjieba() else "fallback"


def nouns(text: str) -> list[Noun]:
    """The nouns (and noun compounds) of the Chinese parts of ``text``, in order."""
    if not has_cjk(text or ""):
        return []
    rj = _rjieba()
    if rj is None:
        return _fallback(text)
    out: list[Noun] = []
    tagged = rj.tag(text)
    pos = 0
    spans = []
    for word, tag in tagged:
        spans.append((word, tag, pos))
        pos += len(word)
    cjk = [bool(CJK_RUN_RE.fullmatch(w)) for w, _, _ in spans]
    known = [c and (len(w) == 1 or rj.has_word(w)) for (w, _, _), c in zip(spans, cjk)]
    # a guessed token, and the Chinese tokens touching it, have unreliable boundaries
    unsure = [False] * len(spans)
    for i, (c, k) in enumerate(zip(cjk, known)):
        if c and not k:
            for j in (i - 1, i, i + 1):
                if 0 <= j < len(spans) and cjk[j]:
                    unsure[j] = True
    run: list[int] = []

    def close() -> None:
        if run:
            word = "".join(spans[k][0] for k in run)
            if len(word) >= 2:
                out.append(Noun(word, any(spans[k][1] in PROPER_TAGS for k in run), spans[run[0]][2]))
            run.clear()

    for i, (word, tag, _) in enumerate(spans):
        if cjk[i] and not unsure[i] and tag in NOUN_TAGS and (len(word) >= 2 or run):
            run.append(i)
        else:
            close()
    close()
    return out


def _fallback(text: str) -> list[Noun]:
    out = []
    for m in CJK_RUN_RE.finditer(text):
        pos = m.start()
        for piece in _FALLBACK_SPLIT.split(m.group(0)):
            at = text.find(piece, pos)
            if 2 <= len(piece) <= 4:
                out.append(Noun(piece, False, at))
            pos = at + len(piece)
    return out
