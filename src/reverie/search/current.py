"""A question about the present state of something ("Which company do I work for now?", "我现在开的是
什么车？") is answered by the statement that changed it ("I left Bluefin Labs and joined Acme
Logistics", "把旧车卖了，现在开的是明锐"), and those lines rarely share the question's words: the lines
that do ("I'm thinking about cycling to work") say nothing of a state, and the bundled embedder
ranks them as high. So such a question asks the keyword index for the verbs of a change as well
(the change leg: their vectors then judge them) and lifts the lines that announce a change, within
the same band of the best relevance as a stated taste for an advice question (docs/search.md §17).
"""

from __future__ import annotations

import re

from ..text.boilerplate import split_sentences
from ..text.cjk import CJK_RUN_RE, LazyPattern
from ..text.bilingual import keys_in
from ..text.concepts import content_words
from ..text.people import OWNER, people_in
from . import counting
from .taste import gate  # noqa: F401  (the band of the lift: 65 % to 80 % of the best relevance)

# the leg does most of the work; ×1.3 put "Dentist appointment moved to Thursday" above the answer to
# "How much should the dog eat now?" (benchmarks/no_memory.py); ×1.1 moves the newest first nearly as often
CHANGE_BOOST = 1.1
# what the change leg asks the keyword index for (any of them), and how many it takes: their
# vectors then judge them
CHANGE_WORDS = "joined quit switched moved sold replaced upgraded 离职 跳槽 入职 加入 换成 换了 搬到 卖了 改成 改为"
LEG_LIMIT = 64
CHANGES_LIFTED = 1  # the statements of change most relevant to the question that are lifted

# a question asking what something is now: a question word and "now", "currently", "these days",
# "current", "latest" (现在, 目前, 如今 with 什么, 哪, 谁, 多少, 几). Not "now" as "at this time": "do I
# need to start any paperwork now?", "what should I do now?", "现在需要开始办什么手续吗？", "我现在跳槽会有
# 什么问题吗？" ask for advice, and lifting a change there cost the Chinese dialogue set one answer
_WH_NOW = LazyPattern(
    r"\b(?:what|which|where|who|whom|whose|how\s+(?:much|many|long|far|old|big))\b[^?.!\n]{0,60}"
    r"\b(?:now|currently|current|these\s+days|at\s+the\s+moment|nowadays|latest|most\s+recent)\b"
    r"|(?:现在|目前|如今|眼下)[^。？！?!\n]{0,20}(?:什么|哪|谁|多少|几)"
    r"|(?:什么|哪|谁|多少|几)[^。？！?!\n]{0,20}(?:现在|目前|如今|眼下)", re.I)
# ... not a request for advice said now ("what should I do now?", "what do I do now?", 我现在该做什么,
# 现在需要开始办什么手续吗), nor a question about the past ("what did we decide in the latest
# meeting?"); "狗现在每天该吃多少？" and "我现在每天需要吃几片药？" ask for a value as it stands
_ADVICE = LazyPattern(
    r"\b(?:should|shall|can|could|must|would)\s+(?:i|we)\b|\bwhat\s+(?:do|does)\s+(?:i|we)\s+do\b"
    r"|\b(?:did|was|were)\b"
    r"|(?:应该|该|需要|要不要|能不能|可以)(?:做|办|怎么|去|开始|准备)|吗\s*[？?]?\s*$", re.I)


# a line that says a state changed: a verb of change said by the speaker ("I left", "we moved"), "now
# I…", a new record. Not "my new …" nor "I started…": "I started my new job at Bluefin Labs" is the
# state a later line changes, and lifting it put the old employer first
_STATES_CHANGE = LazyPattern(
    r"\b(?:i|we)(?:'ve|\s+have|\s+just|\s+finally)?\s+(?:switched|moved|changed|sold|replaced|upgraded|swapped|quit)\b"
    r"|\b(?:i|we)(?:'ve|\s+have|\s+just|\s+finally)?\s+(?:left|joined)\s+(?:(?-i:[A-Z])|my\s+(?:old\s+)?(?:job|company|"
    r"firm|team|employer|position)|the\s+(?:company|firm|team|job))"
    r"|\bjoined\s+(?-i:[A-Z])|\b(?:switched|moved|changed)\s+to\b|\breplaced\s+(?:it|them)\s+with\b|\bno\s+longer\b"
    r"|\bnow\s+(?:i|we)\s+(?:live|work|drive|use|have|own|go|am|are)\b|\b(?:i|we)\s+now\s+(?:live|work|drive|use|have|own|go)\b"
    r"|\b(?:i'm|i\s+am|we're|we\s+are)\s+now\b|\bnew\s+(?:personal\s+)?(?:best|record)\b"
    r"|离职|跳槽|入职|加入了|换成|换了|换到|改成|改为|搬到|搬家|卖了|不再|新纪录"
    r"|现在(?:开的是|住在|用的是|在[^，。！？\n]{0,10}(?:上班|工作))",
    re.I)


# a question asking for a fact as it stands, "now" said or not ("Which bank do I use?", "When is the
# Orion launch?", "我女儿在哪个幼儿园？", "我现在还喝酒吗？"): a question word or mark, and none of a
# question about the past or of all that ever was ("Which bank did I use before?", "以前住在哪", "我2019年
# 在哪工作？", "Which countries have I visited?", "What happened at the meeting?"), a count ("我今年看了几部
# 电影？") or a request for advice
_ASKS_FACT = LazyPattern(
    r"\b(?:what|which|where|who|whom|whose|when|how\s+(?:much|many|long|far|often))(?:'s|'re)?\b|[?？]\s*$"
    r"|什么|哪|谁|几[点天号月个位次岁]|多少|吗\s*[？?]?\s*$", re.I)
_ASKS_PAST = LazyPattern(
    r"\b(?:did|was|were|had|used\s+to|before|previous(?:ly)?|originally|at\s+first|earlier|formerly|ago"
    r"|back\s+then|(?:my|our|the)\s+old|first|have\s+(?:i|we)|has\s+(?:he|she)|happened|ever|last\s+(?:year|month|week|time)"
    r"|in\s+(?:19|20)\d\d)\b|以前|之前|原来|原先|当初|最早|最初|第一|上次|上一[个次家位]|那时|当时|过去|曾经|去年|前年|上个?月|上周|上星期|上礼拜"
    r"|小时候|当年|那年|(?:19|20)\d\d年|几[部本场次趟回]|一共|总共",
    re.I)
_ASKS_ADVICE = LazyPattern(
    r"\b(?:should|shall|can|could|would|must)\s+(?:i|we)\b|\b(?:recommend|suggest|ideas?|tips?|advice)\b"
    r"|应该|该怎么|需要|要不要|能不能|可以|推荐|建议|怎么办", re.I)


def asks_what_holds(query: str) -> bool:
    """A question asking for a fact as it stands (see :data:`_ASKS_FACT`), or a short look-up phrase
    as an agent searches ("Atlas cutover date", "user's bank"): of two of the owner's statements
    answering it, the later is the fact now (search/newest.py). Not a count of instances, a question
    about the past, nor a request for advice."""
    looks_up = _ASKS_FACT.search(query) is not None or (len(query.split()) <= 6 and len(query) <= 40)
    return (looks_up and _ASKS_PAST.search(query) is None and _ASKS_ADVICE.search(query) is None
            and not counting.counts_instances(query))


def asks_now(query: str) -> bool:
    """A question about what something is now; not a count of instances "up to now" (到现在一共…)."""
    return (_WH_NOW.search(query) is not None and _ADVICE.search(query) is None
            and not counting.counts_instances(query))


def states_change(text: str) -> bool:
    return _STATES_CHANGE.search(text) is not None


def lifted(pool: list, query: str = "") -> set[int]:
    """The ids of the candidates a question about now lifts: the :data:`CHANGES_LIFTED` statements
    of change most relevant to it. Lifting every one in the band put "自行车换了新刹车片" (new brake
    pads) and a gym switch between a question about one's employer and the line that first said it.
    Only a statement the keyword index found too (a word of the question, or a member of the kind it
    names: "joined" for "work", 离职 for 上班): by its vector alone, "现在帮我们遛狗的换成陈晨了" was lifted
    above the answer to "我现在在哪个团队？". And only the change of whom the question asks about: the
    owner's own move is no answer to "我爸妈现在住在哪个城市？", nor a sister's to "Where do I live now?"."""
    asked = people_in(query)
    about = _asked_words(query)
    changes = sorted((c for c in pool if not c.specificity and c.kw is not None and states_change(c.text)
                      and (c.member or _speaks_of(c.text, about))
                      and _about_whom_asked(_change_said(c.text), asked)), key=lambda c: -c.content)
    return {id(c) for c in changes[:CHANGES_LIFTED]}


# the characters of how a Chinese question asks about now, not of what it asks about
_ASKING_ZH = frozenset("现在目前如今眼下什么哪谁几多少吗呢的是我们你他她在了还都个些样么")


def _asked_words(query: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """What a question asks about: its content words (stems, bigrams), the everyday things it names in
    either language (text/bilingual.py) and, in Chinese, its characters but those of asking
    (:data:`_ASKING_ZH`)."""
    chars = frozenset(ch for run in CJK_RUN_RE.findall(query) for ch in run) - _ASKING_ZH
    return frozenset(content_words(query, matching=True)), frozenset(keys_in(query).values()), chars


def _speaks_of(text: str, about: tuple[frozenset[str], frozenset[str], frozenset[str]]) -> bool:
    """Whether ``text`` shares a word of the question (or names a thing it names, in the other language:
    "我换了新的中文老师" for "Who's my Mandarin teacher now?"), or in Chinese a character of what it asks
    about ("转到华西口腔了，现在是邓主任帮我调牙套" of 牙齿矫正)."""
    words, things, chars = about
    return bool(words.intersection(content_words(text, matching=True))) \
        or bool(things.intersection(keys_in(text).values())) or any(ch in text for ch in chars)


def _change_said(text: str) -> str:
    """The sentence of ``text`` that states the change (a long message says other things too: "My
    cousin is getting married next year. … Big news: I left Greenfield Bank and joined Acme")."""
    return next((s for line in text.splitlines() for s in split_sentences(line) if _STATES_CHANGE.search(s)), "")


def _about_whom_asked(sentence: str, asked: frozenset[str]) -> bool:
    """Whether a change said in ``sentence`` is of whom the question asks (``asked``: the people it
    names): of one of them, or when it names none, of the owner (alone, or with others: "My husband
    and I moved to Denver")."""
    said = people_in(sentence)
    if asked:
        return bool(said & asked)
    return not said or OWNER.search(sentence) is not None
