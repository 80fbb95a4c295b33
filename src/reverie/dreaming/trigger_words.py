"""The trigger phrases Dreaming writes on a promoted entry: worth firing, and quiet otherwise.

A trigger brings its entry into any conversation whose message holds the phrase, with no model
call (:mod:`reverie.recall.trigger`; a one-word phrase present scores 0.68, over the 0.65 bar on
its own). So a trigger must name what the fact is about -- the place, the thing, the person --
and nothing a person says every day. The reference's rule (the first three concept tags) wrote
``user, remember, wifi`` for ``user: Remember that the wifi password …`` and ``决定, 定住, 住西``
for a Chinese hotel decision; both fired on ordinary messages.

:func:`triggers_for` derives them from the fact's text (already cleaned, :mod:`.facttext`):

* **English**: runs of capitalised words inside a clause (names: ``Lake Vessel``, ``Atlas``,
  ``Northside Climbing``; the first two words of a longer run), then pairs of adjacent content words
  of one clause (``wood stove``, ``prawn dishes``); stop words, role words (``user``), generic
  verbs (``decide``, ``remember``, ``need``) and the names of days and months are never part of one.
  A lone common word is never a trigger: a pair fires only when both words are there.
* **Chinese**: nouns from a dictionary segmenter (:func:`reverie.text.segment.nouns`: words, never
  character pairs; ``湖滨酒店``, ``静安寺``, ``钢琴课``); a name or a noun of three characters or more
  stands alone, two-character nouns pair with the next noun of the clause (``女儿 钢琴课``).
  Generic nouns (``用户``, ``时间``, ``事情`` …) are never used.
* **The false-fire check**: each phrase is scored by the trigger lane's own functions against a
  background sample of ordinary messages in both languages (:mod:`.background`), with the keyword
  half of the score taken at its maximum; a phrase that would fire on any of them is dropped.

At most three phrases; an entry with none left gets no trigger at all (it is still in
``MEMORY.md``, loaded at every start, and found by search).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..recall.triggers import match_score, phrase_score, phrase_words, words_of
from ..text.cjk import has_cjk
from ..text.concepts import STOP
from ..text.segment import nouns

MAX_TRIGGERS = 3
ROLE = frozenset("user users assistant human bot model system tool 用户 助手 助理 系统 模型".split())
GENERIC_VERBS = frozenset("""
decide decided decides deciding decision remember remembered remembering remind reminded note noted notes
forget forgot need needs needed want wants wanted think thought know knew known tell told say says said ask
asked like liked likes love loved prefer prefers preferred hate go goes going went gone get gets getting got
make makes making made take takes took taken give gave given come came put keep kept let see saw seen look
looked use using find found feel felt seem try tried call called start started stop stopped change changed
plan planned move moved moving buy bought pay paid book booked bring brought leave left work works worked
behind across around along inside outside next onto toward towards via among beyond except hang hangs hung
suggest suggested live lives lived living always never usually often sometimes every sure okay yes just really thanks thank please also still maybe actually
""".split())
CALENDAR = frozenset("""
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december morning mornings afternoon afternoons evening evenings night nights
""".split())
GENERIC_NOUNS_ZH = frozenset("""
用户 助手 模型 记忆 时间 事情 东西 问题 地方 时候 今天 明天 昨天 工作 朋友 情况 方面 部分 内容 结果 原因 办法 意思
大家 人家 自己 别人 这里 那里 一下 样子 东西 消息 信息 记录 日期 上午 下午 晚上 早上 周末 附近 预算
""".split())
_CLAUSE = re.compile(r"[,.;:!?()\[\]\"“”‘’—–/]|，|。|；|：|！|？|、|（|）|\band\b|\bbut\b|\bbecause\b|\bso\b|\bor\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*[A-Za-z0-9]|[A-Za-z]")


def _content(word: str) -> bool:
    low = word.lower()
    return (len(low) >= 3 and low not in STOP and low not in GENERIC_VERBS and low not in ROLE
            and low not in CALENDAR and "'" not in low and "’" not in low)


def _english(text: str) -> tuple[list[str], list[str]]:
    """(names, pairs) of the Latin-script part of ``text``."""
    names: list[str] = []
    pairs: list[str] = []
    for clause in _CLAUSE.split(re.sub(r"[\u3000-\u9fff\uac00-\ud7af]+", " , ", text)):
        words = _WORD.findall(clause or "")
        run: list[str] = []
        in_name: set[int] = set()
        for i, w in enumerate(words + [""]):
            proper = bool(w) and w[0].isupper() and (i > 0 or len(words) == 1 or w.isupper()) and _content(w)
            if proper:
                run.append(w.lower())
                in_name.add(i)
                continue
            if run:
                names.append(" ".join(run[:2]))
                run = []
        # pairs of the other words: a pair straddling a name ("vessel wood") says nothing
        content = [w.lower() if i not in in_name else None for i, w in enumerate(words) if _content(w)]
        for a, b in zip(content, content[1:]):
            if a and b and a != b:
                pairs.append(f"{a} {b}")
    return names, pairs


# a verb of everyday doing before a noun: the dictionary holds 喝咖啡, 吃水果, 弹钢琴 as nouns (喝咖啡
# even as a proper one), and as a trigger 喝咖啡 fired on "感冒了能喝咖啡吗？" and every other question about
# coffee; what the fact is about is the noun (咖啡, 钢琴), which pairs with another like any two-character noun
# (verbs that rarely begin a noun of their own: not 打 of 打印机, 学 of 学生, 开 of 开关, 看 of 看守所)
_DOING = frozenset("喝吃弹玩买骑踢唱逛煮烤")


def _without_doing(n):
    """A noun of the segmenter with an everyday verb before it (喝咖啡) as the noun alone (咖啡, not a
    name); others as they are, and so is one whose rest is no noun of its own."""
    if len(n.word) < 3 or n.word[0] not in _DOING:
        return n
    rest = nouns(n.word[1:])
    if len(rest) == 1 and rest[0].word == n.word[1:]:
        return type(n)(word=rest[0].word, proper=False, start=n.start + 1)
    return n


def _chinese(text: str) -> tuple[list[str], list[str]]:
    """(words that stand alone, pairs of two-character nouns) of the Chinese part of ``text``."""
    alone: list[str] = []
    pairs: list[str] = []
    segmented = nouns(text)
    found = [n for n in map(_without_doing, segmented) if n.word not in GENERIC_NOUNS_ZH and n.word not in ROLE]
    undone = {n.start for n in found} - {n.start for n in segmented}  # the nouns an everyday verb was taken from

    def one_clause(x, y) -> bool:
        return not re.search(r"[，。；：！？,.;:!?]", text[x.start + len(x.word):y.start])

    for i, n in enumerate(found):
        if n.proper or len(n.word) >= 3:
            alone.append(n.word)
        elif i + 1 < len(found) and one_clause(n, found[i + 1]):
            pairs.append(f"{n.word} {found[i + 1].word}")
        elif n.start in undone and i > 0 and one_clause(found[i - 1], n):
            # a noun an everyday verb was taken from, last of its clause, pairs with the one before
            # (女儿 钢琴 of "我女儿周六上午学弹钢琴"): alone it would fire on every message about pianos
            pairs.append(f"{found[i - 1].word} {n.word}")
    return alone, pairs


@lru_cache(maxsize=1)
def _background():
    from .background import messages

    return [words_of(m) for m in messages()]


def false_fires(phrase: str, threshold: float = 0.65, sample=None) -> int:
    """How many background messages ``phrase`` would fire on (the keyword half at its maximum)."""
    words = phrase_words(phrase)
    if not words:
        return 0
    msgs = _background() if sample is None else [words_of(m) for m in sample]
    return sum(1 for m in msgs if match_score(phrase_score(words, m), 1.0) + 1e-9 >= threshold)


def candidates(text: str) -> list[str]:
    """Every phrase worth trying, most distinctive first (names, then pairs)."""
    names, pairs = _english(text or "")
    alone, zh_pairs = _chinese(text or "") if has_cjk(text or "") else ([], [])
    out: list[str] = []
    for p in [*names, *alone, *pairs, *zh_pairs]:
        if p not in out and phrase_words(p):
            out.append(p)
    return out


def triggers_for(text: str, *, threshold: float = 0.65, limit: int = MAX_TRIGGERS) -> list[str]:
    """Up to ``limit`` trigger phrases for a promoted fact (see the module text); [] for none."""
    kept: list[str] = []
    covered: set[str] = set()
    for p in candidates(text):
        words = set(phrase_words(p))
        if words & covered:
            continue  # "atlas" is there already: "atlas migration" would fire on the same messages and more
        if false_fires(p, threshold):
            continue
        kept.append(p)
        covered |= words
        if len(kept) >= limit:
            break
    return kept
