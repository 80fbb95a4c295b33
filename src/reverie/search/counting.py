"""Counting questions: "how many times did I go swimming?", "我一共看了几个医生？".

The answer to such a question is spread over many notes, each mentioning one instance in passing
(a swim on Tuesday in a session about work, a dentist's filling in one about the weekend). Two
things of the usual ranking work against that (docs/search.md §5):

- a unit is judged half by its own words and half by its window and file, which is right for a
  fact asked about once (a reply such as "yes, in May" means something only beside its question)
  but sinks a passing mention in a session about something else: every instance of a count is
  such a mention;
- the vector leg scores the units of the best :data:`~reverie.search.context.COARSE_WINDOWS`
  windows only, and a window about something else holding one instance is not among them.

So a counting question judges units mostly by their own relevance (:data:`OWN_WEIGHT`) and scores
the units of more windows (:data:`COARSE_WINDOWS`). Measured on the long-history benchmark (every
evidence session among the first five notes; docs/benchmarks.md): aggregate questions over
sessions of about 35 lines 0.222 → 0.444, short sessions 0.500 → 0.528; on LoCoMo, whose "how
many…" questions take this path too, read@ budgets unchanged within 0.002.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..text.boilerplate import ASSISTANT_ROLES, line_role, split_sentences
from ..text.cjk import LazyPattern, has_cjk
from ..text.kinds import MONEY_ASKED
from ..text.people import RELATIONS_EN, RELATIONS_ZH

if TYPE_CHECKING:
    from collections.abc import Callable

OWN_WEIGHT = 0.8  # a unit's own relevance against its context's (0.5 for other questions)
COARSE_WINDOWS = 96  # windows whose units are all read (12 for other questions) ...
UNITS_KEPT = 256  # ... of which the nearest by their own vector are scored (and every keyword hit)

# "how many / how often", "how much … in total / altogether / so far", "in total", "the total
# number"; "一共 / 总共 / 总计 / 加起来", "几" with a measure word of things or times ("几次 / 几个 /
# 几本 / 几场"; not "几点", what time, nor "几天前 / 这几天 / 几个月前 / 几年前", a few days ago),
# "多少次 / 多少个"
_ASKS = LazyPattern(
    r"\bhow\s+(?:many|often)\b"
    r"|\bhow\s+much\b[^.?!\n]{0,60}\b(?:in\s+total|altogether|so\s+far|overall|all\s+together)\b"
    r"|\bin\s+total\b|\btotal\s+(?:number|amount)\b"
    r"|一共|总共|总计|加起来|累计"
    r"|几(?:次|个(?!月|星期|小时|钟头)|本|场|盆|家|回|趟|种|件|部|篇|首|顿|杯|双|条|只|张|门)"
    r"|多少(?:次|个|本|场|回|趟|位|种|件|部|篇|首|顿|杯)", 0)


def asks_to_count(query: str) -> bool:
    return _ASKS.search(query.lower()) is not None


# "how many times": its "times" frames the count, as "many" does (a stop word): kept in the keyword
# query, it matched every "first time trying the recipe" as much as a swim matched "swimming"
_TIMES = LazyPattern(r"\b(how\s+many)\s+times\b", re.I)
# ... and in Chinese, 几次 / 多少次 (a count of times) and 几个 / 多少个 before a word (几个不同的医生), which
# any line saying "第一次" or "好几个小时" holds; a space in their place, so that the characters around
# them make no new bigram. Not 几个 before one character (几个人, 几个月: 个人 and 个月 are what "七个人",
# "三个月" say), nor a classifier that names the kind of thing (几盆植物: "买了一盆绿萝"; 几场演出: "看了一场芭蕾")
_ZH_FRAME = LazyPattern(r"几次|几回|几趟|多少次|多少回|多少趟|(?:几|多少)个(?=[\u4e00-\u9fff]{2})")


# A Chinese verb of two characters that a count splits around its frame: 游了几次泳, 跑过几次步, 爬了几次山
# (游泳, 跑步, 爬山): with the frame gone, the question also names the verb whole, as the notes say it
# ("早上又去泳池游泳"), beside what it said (游了). Only these verbs, and only where the second
# character ends the word (看了几个病人 and 见过几个面试官 name no 看病, no 见面).
_SPLIT_VERBS = ("游泳", "跑步", "爬山", "散步", "滑雪", "潜水", "划船", "钓鱼", "骑车", "看病", "见面", "洗澡", "唱歌",
                "跳舞", "理发", "露营")
_SPLIT_VERB = LazyPattern(
    "(?:" + "|".join(f"({v[0]})(?:了|过)?\\s+({v[1]})" for v in _SPLIT_VERBS) + ")"
    + r"(?![\u4e00-\u9fff](?<![了吗呢啊呀吧的]))", 0)


def without_frame(query: str) -> str:
    """A counting question's keyword query without the "times" of "how many times" (几个, 几次), and
    with a verb split around it named whole too (游了几次泳: 游泳)."""
    out = _ZH_FRAME.sub(" ", _TIMES.sub(r"\1", query))
    whole = ["".join(g for g in m.groups() if g) for m in _SPLIT_VERB.finditer(out)]
    return " ".join([out, *whole])


# a count of what happened over time: "how many times / how often", "in total", "so far", "how
# many … did I …", "几次 / 多少次 / 一共 / 总共…" (not "how many cats do I have?", "how many people
# are on my team?": a value, which a later note updates)
_INSTANCES = LazyPattern(
    r"\bhow\s+often\b|\bhow\s+many\s+times\b|\bin\s+total\b|\baltogether\b|\ball\s+together\b"
    r"|\btotal\s+(?:number|amount)\b|\bso\s+far\b|\bhow\s+(?:many|much)\b[^.?!\n]{0,60}\bdid\s+(?:i|we)\b"
    r"|几次|多少次|几回|几趟|一共|总共|总计|累计|加起来", 0)
# "so far" said with "now": "up to now", "until now", "to date", 到现在, 至今, 到目前为止 (an instance count:
# its 现在 asks for no value as it stands)
_UP_TO_NOW = LazyPattern(r"\b(?:up\s+to|until|till)\s+now\b|\bto\s+date\b|到现在(?:为止)?|至今|到目前为止|目前为止", 0)
# ... unless it asks for the value as it stands ("how many kilometres is my longest run now?")
_NOW = LazyPattern(r"\b(?:now|currently|current|these\s+days|at\s+the\s+moment|latest)\b|现在|目前|如今|最新", 0)


def counts_instances(query: str) -> bool:
    """A counting question about instances over time ("how many times did I swim?", "how many
    concerts did I attend in total?"): each saying is one of the things counted, none updates
    another (search/newest.py is not asked). A count of a value ("how many cats do I have?") or
    one that asks for it now is a question about the newest fact."""
    low = query.lower()
    if not asks_to_count(low):
        return False
    if _UP_TO_NOW.search(low):
        return True
    return _INSTANCES.search(low) is not None and _NOW.search(low) is None


# A count of the owner's own doings ("how many concerts did I attend?", "我一共看了几个医生？") is
# answered by what the owner said they did: the assistant's lines ("Live music is a great way to
# unwind") and another person's doings ("My sister is studying to be a doctor") are no instance, and
# the bundled embedder ranks them with the instances. They take ×NOT_MINE in the order (not in
# minScore's judgement: they still qualify as before) (long histories, multi-session questions,
# hybrid: short sessions 0.639 → 0.722, long 0.417 → 0.444; flat from 0.6 to 0.85).
NOT_MINE = 0.8
_RELATION = RELATIONS_EN + "|team"  # ("My team shipped…": its doings, not the owner's)
_RELATION_ZH = RELATIONS_ZH
# "did I", "have we", "I've"; in Chinese a 我 with no 你 (你给我推荐过几本书: the assistant's lines are
# the answer) and no relation (我妹妹来看过我几次: her doings)
_ASKS_MINE = LazyPattern(r"\b(?:did|have|had|do)\s+(?:i|we)\b|\bi've\b", re.I)
_NOT_MINE_ZH = LazyPattern(r"你|您|" + _RELATION_ZH)
# a line whose subject is another person: "My sister…", "Our neighbours…", "我妹妹…", "邻居家…"; not
# when the owner is in it ("My sister and I went…", "My cousin's wedding, I danced all night",
# "老板让我周末加班", "和我一起")
_OTHERS = LazyPattern(
    r"^(?:my|our)\s+(?:\w+\s+)?(?:" + _RELATION + r")(?:'s?)?\b(?![^\n]*\b(?:i|me|we|us|i'm|i've|i'd|we're)\b)"
    r"|^我?的?(?:" + _RELATION_ZH + r")(?![^\n]*我)",
    re.I)


# a sentence ends, and another begins: where boilerplate.split_sentences splits ("…married! 🎉 …",
# "…married.\n- went…", a quote or a bracket opening the next)
_MORE_AFTER = re.compile(r"[.!?;]\s+\S|[。！？；]\s*\S")
# another person anywhere in a line (what :data:`_OTHERS` needs at a sentence's start), each
# language's words read only where a line can hold them
_ANY_OTHER_EN = LazyPattern(r"\b(?:my|our)\s+(?:\w+\s+)?(?:" + _RELATION + r")", re.I)
_ANY_OTHER_ZH = LazyPattern(_RELATION_ZH, 0)


def _names_another(said: str) -> bool:
    low = said.lower()
    if ("my" in low or "our" in low) and _ANY_OTHER_EN.search(said) is not None:
        return True
    return has_cjk(said) and _ANY_OTHER_ZH.search(said) is not None


def asks_mine(query: str) -> bool:
    """Whether a counting question asks about the owner's own doings ("did I", "have I", 我)."""
    if _ASKS_MINE.search(query):
        return True
    return "我" in query and _NOT_MINE_ZH.search(query) is None


# a sentence that goes on with the one before ("I loved it", "我们一起去的"): the owner joins in there
_GOES_ON = LazyPattern(r"\b(?:it|that|there|them|too|also|with\s+(?:her|him|them))\b|一起|也|那次|那场|这次|跟着", re.I)


def _with_reply(sentences: list[str], i: int) -> str:
    """Sentence ``i`` of a message, with the next one when that one goes on with it."""
    if i + 1 < len(sentences) and _GOES_ON.search(sentences[i + 1]):
        return sentences[i] + " " + sentences[i + 1]
    return sentences[i]


def not_mine(text: str, names: Callable[[str], bool] | None = None) -> bool:
    """Whether a line is no instance of the owner's doings: the assistant's, or another person's.

    A message says several things ("Walked in the park after dinner. My sister is studying to be a
    doctor."): where ``names`` tells which sentences name what is counted, the line is another
    person's when every sentence naming it is (the park walk is no doctor's visit of the owner's);
    otherwise, when the line begins with another person."""
    role, said = line_role(text)
    if role in ASSISTANT_ROLES:
        return True
    said = said.strip()
    # (sentences only in a message of several, and one naming another person somewhere)
    several = names is not None and _MORE_AFTER.search(said) is not None and _names_another(said)
    sentences = split_sentences(said) if several else []
    if len(sentences) > 1:  # (one sentence: judged from its start either way)
        # each naming sentence with the next when that one goes on with it: the owner may join in
        # there ("My sister got tickets for the concert. I loved it."), not in a sentence about
        # something else ("My neighbour's plants all died. I read before sleeping.")
        naming = [i for i, sentence in enumerate(sentences) if names(sentence)]
        if naming:
            return all(_OTHERS.search(_with_reply(sentences, i)) is not None for i in naming)
    return _OTHERS.search(said) is not None


# A sum of money ("how much have I spent on my bike in total?", "我在自行车上一共花了多少钱？") is
# added up from the lines that name an amount ("a helmet, 60 dollars", "车行收了八十块"): a line
# about the bike that names none ("我在考虑春天骑车上班", said in many sessions, and holding more of the
# question's characters than any part of the sum) is no part of it. Such a line takes ×NO_AMOUNT
# in the order (not in minScore's judgement), as a line that is not the owner's does in a count of
# the owner's doings.
NO_AMOUNT = 0.8
# The same for a count of a kind (text/kinds.py: "how many plants did I buy?", "我一共去看了几场演出？"):
# a line naming neither the kind nor one of its members ("I need to buy more rice", "我坐在长椅上听了会儿
# 音乐", which the bundled embedder ranks above "看了一场脱口秀") takes ×NO_KIND, and so does the share
# of the question's characters it holds (search/loose.py: "出生…看奶奶" holds 看 and 生 of "看了几个不同的
# 医生"). Measured on the long histories, most in long sessions told in long turns (docs/benchmarks.md).
# A thing the lexicon does not know goes down with them: the price of a lexicon.
NO_KIND = 0.8
_MONEY = LazyPattern(MONEY_ASKED, 0)
# an amount: a currency sign and digits (before or after them), digits or a number's name and a
# currency's name, or a number and 块 / 元 ("$45", "45€", "fifty dollars", "一百五十块", "两百元",
# "100多块", "五元", "停车花了五块。"); a lone numeral before 块 and a word is a piece (一块蛋糕, 两三块饼干)
# unless 钱 follows (五块钱); not 元旦
_NUMBER_WORDS = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|"
                 r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|a\s+hundred|a\s+thousand|a\s+few)")
_AMOUNT = LazyPattern(
    r"[$€£¥￥]\s?\d|\d\s?[$€£¥￥]|(?:\d[\d,.]*\s*k?|\b" + _NUMBER_WORDS + r")\s*"
    r"(?:dollars?|bucks|euros?|pounds|quid|yuan|rmb|usd|eur|gbp|cents?)\b"
    r"|(?:\d[\d,.]*|[零一二两三四五六七八九十百千万]*[十百千万][零一二两三四五六七八九十百千万]*)\s*多?\s*(?:块|元(?!旦))"
    r"|[一二两三四五六七八九]\s*(?:元(?!旦)|块(?:钱|(?![\u4e00-\u9fff])))"
    r"|[\d零一二两三四五六七八九十百千万]\s*多?\s*(?:块钱|美元|欧元|英镑|美金)",
    re.I)


def sums_money(query: str) -> bool:
    """Whether a counting question asks for a sum of money ("how much … spent … in total")."""
    low = query.lower()
    return asks_to_count(low) and _MONEY.search(low) is not None


def names_amount(text: str) -> bool:
    """Whether a line names an amount of money ("$45", "60 dollars", "两百块")."""
    return _AMOUNT.search(text) is not None


def lowered_because(count: dict) -> str:
    """Why explain's ``count`` multiplier is below 1, as the CLI and the web view say it."""
    why = (["not the owner's doing"] if count.get("notMine") else []) + \
        (["names no amount"] if count.get("namesAmount") is False else []) + \
        (["names nothing of the kind counted"] if count.get("namesKind") is False else [])
    return ", ".join(why)


# A Chinese count names its measure word: 几盆植物, 几本书, 多少场演出. A note saying one instance
# says it with a number and the same measure word, whatever it calls the thing ("厨房添了一小盆罗勒",
# "看了一场脱口秀"): the pair 几盆 of the question is held by a line saying 一盆, 两盆, 一小盆. Not 种
# (一种 is any "a kind of"), 家 (一家人), 件 (一件事), nor the frame's 个 / 次 / 回 / 趟
# (:func:`without_frame`); nor, after a measure, the words that make it a set phrase (一场雨, 一部分,
# 一条消息), unless they are what the question counts (几场雨). A number in digits (3盆, 12场) is read
# by search/keyword.py (``_in_digits``): the index holds 3 and 盆 apart.
MEASURES = "盆本场部杯双条只张门位辆台棵瓶套首篇顿"
_NOT_BEFORE = {"场": ("大雨", "雨", "大雪", "雪", "病", "空", "梦", "误会"), "部": ("分", "门", "长"),
               "条": ("消息", "信息", "短信", "路"), "只": ("手", "脚", "眼", "耳"), "张": ("嘴", "脸"), "位": ("置",)}
_MEASURED = LazyPattern(r"(?:几|多少)([" + MEASURES + r"])", 0)
_NUMERALS = ("一", "两", "二", "三", "四", "五", "六", "七", "八", "九", "十", "几")


@dataclass(frozen=True)
class Measure:
    pair: str  # the question's pair ("几盆", "少本")
    words: list[str]  # what a note naming one instance says ("一盆", "两盆", "小盆" of 一小盆, …)
    counted: str  # the words after it, what is counted ("植物" of "几盆植物")
    not_before: str = ""  # a pattern of what may not follow one of ``words`` (一场雨 is no show)


def measure_words(question: str) -> list[Measure]:
    """The measured counts of a Chinese counting question ("几盆植物", "多少本书")."""
    out: list[Measure] = []
    for m in _MEASURED.finditer(question):
        unit = m.group(1)
        counted = question[m.end():m.end() + 4]
        words = [n + unit for n in _NUMERALS] + ["小" + unit]  # (一小盆 as 小盆: every pair holds the measure)
        phrases = [w for w in _NOT_BEFORE.get(unit, ()) if not counted.startswith(w)]  # (几场雨 counts rain)
        out.append(Measure(question[m.end() - 2:m.end()], words, counted, "|".join(phrases)))
    return out
