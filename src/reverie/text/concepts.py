"""Words that carry a snippet's meaning, in any script: concept tags and word sets.

* :func:`content_words` -- lower-cased Latin words (3+ letters, stop words aside) and, for Chinese,
  Japanese and Korean, the runs of 2-4 characters whole and the bigrams of longer runs. Used for
  word-set similarity (Dreaming's dedupe and same-fact tests) and for matching a query to entries.
* :func:`concept_tags` -- the first distinct content words of a snippet (reference §15.2: "concept
  tags re-derived from path + snippet"), at most :data:`MAX_TAGS`; Dreaming scores how many a
  snippet has, reports recurring ones as themes and writes the first three as triggers.
* :func:`jaccard` -- the share two word sets have in common.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .cjk import CJK_RUN_RE, LazyPattern

MAX_TAGS = 8
_LATIN = LazyPattern(r"[a-z][a-z0-9'’-]*[a-z0-9]|[a-z]", re.I)
_NUMBER = LazyPattern(r"\d+(?:[.,:/-]\d+)*[a-z%]*", re.I)
# the number of an item in a list ("1. ", "2) ", "（3）", "4、", "1.早睡") counts the items, it says
# nothing: two replies listing their tips are not two values. Only a list is one: two items or more,
# one of them numbered 1 ("Tom (35) and Ana (32)", "- 15. Juni", "年龄：35、身高：180", "选了1、3、5号"
# keep their numbers); an item starts a line or follows a stop, a colon or a space (or, bracketed,
# anything), something follows it ("(40)" at the end is a value), and a bracket it closes was not
# opened before it ("(see 1) and 2) below")
_ENUMERATOR = LazyPattern(r"(?:(?:^|(?<=[\s。！？!?；;，,])|(?<=[^\d][:：]))[ \t]*(?:[-*+][ \t]+)?(\d{1,2})(?:\.|[)）、])"
                          r"|[(（](\d{1,2})[)）])(?=[ \t]*[^\s\d.,;:!?。，；：！？)）])", re.M)


def _unlisted(text: str) -> str:
    found = list(_ENUMERATOR.finditer(text))
    if len(found) < 2 or not any((m.group(1) or m.group(2)) == "1" for m in found):
        return text
    out, last = [], 0
    for m in found:
        item = m.group(0).strip()
        if item[-1] in ")）" and item[0] not in "(（":
            before = text[:m.start()]
            if max(before.rfind("("), before.rfind("（")) > max(before.rfind(")"), before.rfind("）")):
                continue  # "(age 35)": the bracket was opened before
        out += [text[last:m.start()], " "]
        last = m.end()
    return "".join(out) + text[last:]


STOP = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each else ever every few for from further
get got had has have having he her here hers him his how however i if in into is it its itself just
let like made make many may me might mine more most much must my myself near need never no nor not now
of off often on once one only or other our ours out over own per please quite rather really said same
say see she should since so some still such than that the their theirs them then there these they
thing things this those though through thus to today tomorrow too under until up upon us use used very
was way we well were what whatever when where whether which while who whom whose why will with within
without would yes yet you your yours yesterday tonight week weeks day days
""".split()) | frozenset("的 了 是 在 和 也 就 都 而 及 与 吗 呢 吧 啊 我 你 他 她 它 们 这 那 一个 没有 什么 为什么 怎么 "
                 # the plural pronouns, as "we", "us", "they" above: they say who, not what about
                 # ("我们搬家了，现在住在杭州西湖区" and "我们决定住西湖边的湖滨酒店" are not one subject)
                 "我们 你们 他们 她们 它们 咱们".split())


_FUNCTION_CHARS = frozenset("的了是在和也就都而及与吗呢吧啊着过把被")


def _cjk_words(run: str, bigrams: bool = False) -> list[str]:
    if len(run) < 2:
        return []
    if len(run) <= 4 and not bigrams:
        return [run]
    # a long unspaced run: its bigrams, minus those straddling a particle (边的, 的湖)
    return [g for g in (run[i:i + 2] for i in range(len(run) - 1)) if not _FUNCTION_CHARS & set(g)]


def content_words(text: str, *, matching: bool = False) -> list[str]:
    """Content words of ``text`` in order of appearance (repeats kept). ``matching``: words made
    comparable -- every CJK run as its bigrams (湖景房 and 订湖景房间 share words) and Latin words
    cut to a rough stem (seats/seat, trains/train, preference/prefer) -- for telling whether two
    texts speak of the same thing; tags keep the words as written."""
    out: list[str] = []
    pos = 0
    text = text or ""
    for m in CJK_RUN_RE.finditer(text):
        out += _latin_words(text[pos:m.start()], matching)
        out += [w for w in _cjk_words(m.group(0), matching) if w not in STOP]
        pos = m.end()
    out += _latin_words(text[pos:], matching)
    return out


_SUFFIXES = ("ings", "ing", "ies", "ed", "es", "s")
_DOUBLING = frozenset({"ings", "ing", "ed"})


# a consonant English doubles before -ing and -ed (run: running, stop: stopped, plan: planned), not one
# a word ends with doubled (staff, fall, miss, buzz: staffed, falling)
_DOUBLED = frozenset("bdgmnprt")
_SIBILANT = ("s", "x", "z", "ch", "sh")  # -es after these is an ending (classes, boxes, dishes); else -s is


@lru_cache(maxsize=65536)  # (a search stems the words of every result it reads: most are the same words again)
def stem(word: str) -> str:
    """A rough stem for matching only: a plural or verb ending taken off, then the first 6 letters.
    One word's forms share it: a consonant doubled before -ing or -ed is undoubled ("running" is "run",
    for "What running club am I in?" against "I run with the Harriers"), a final e goes ("moved",
    "move", "moving"; "phones", "phone"), -ies is -y ("cities", "city"), and -ss is no plural ("miss",
    "missed"; "classes", "class")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[:-len(suffix)]
            if suffix == "es" and not base.endswith(_SIBILANT):
                base = word[:-1]  # (phones: phone)
            elif suffix == "s" and base.endswith("s"):
                break  # (miss, class)
            elif suffix == "ies":
                base += "y"
            elif suffix == "ed" and base.endswith("e"):
                base = word[:-1]  # (agreed: agree)
            # (a short stem keeps its double: "added" is "add")
            if suffix in _DOUBLING and len(base) >= 4 and base[-1] == base[-2] and base[-1] in _DOUBLED:
                base = base[:-1]
            word = base
            break
    if len(word) >= 4 and word.endswith("e") and not word.endswith("ee"):
        word = word[:-1]  # (hope, hoped, hoping)
    return word[:6]


def _latin_words(text: str, matching: bool = False) -> list[str]:
    words = []
    for w in _LATIN.findall(text):
        low = w.lower().replace("’", "'")
        if low.endswith("'s"):
            low = low[:-2]  # the owner's -> owner
        if len(low) >= 3 and low not in STOP:
            words.append(stem(low) if matching else low)
    return words


def word_set(text: str) -> frozenset[str]:
    """Content words (CJK as bigrams) and numbers (10 mg is not 100 mg): for comparing texts."""
    return frozenset(content_words(text, matching=True)) | numbers(text)


def numbers(text: str) -> frozenset[str]:
    """The numbers a text states (lower-cased, with their unit letters: "10mg"), not its list's item numbers."""
    if not text:
        return frozenset()
    if any(ch in text for ch in ".)）、"):
        text = _unlisted(text)
    return frozenset(m.group(0).lower() for m in _NUMBER.finditer(text))


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def concept_tags(text: str, path: str | None = None, limit: int = MAX_TAGS) -> list[str]:
    """Up to ``limit`` distinct content words of ``path`` (its name, dates aside) and ``text``."""
    seen: list[str] = []
    source = text or ""
    if path:
        name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        name = re.sub(r"^\d{4}-\d{2}-\d{2}-?", "", name).replace("-", " ")
        source = f"{name} {source}" if name else source
    for w in content_words(source):
        if w not in seen and not w.isdigit():
            seen.append(w)
            if len(seen) >= limit:
                break
    return seen
