"""The newest fact first: when a later note updates an earlier one, search shows the later one first
and marks the earlier one as superseded (its history stays readable, nothing is removed).

A result *updates* another when both come from dated notes (``memory/YYYY-MM-DD.md``; the same day:
the later line) or one is an entry Dreaming promoted into ``MEMORY.md`` or ``USER.md``, dated by the
note it cites (``Source: memory/YYYY-MM-DD….md#L3``: a fact promoted in October is October's), the
later one is about the same subject — at least two shared content words and two fifths of the
smaller text's (a Chinese bigram counting half: a word of n characters is n - 1 of them), or one
shared word that the search asked about, between two short statements, and then only with a word
announcing a change said of that word; who said it (``user:``, ``Caroline: I…``) is no subject, and
lines of one note update each other only when both are short statements — and says something
else about it: other numbers ("December 22" after "December 15", "room 1208" after "room 812"), or
words that announce a change ("now", "moved", "no longer", "新的", "改为"...). A later line that says
it left a value the earlier one names updates it whatever else they share ("I left Northwind and
joined Acme" after "I started my new job at Northwind"; "我从顺达物流离职" after "我开始在顺达物流上班了").
For a question about what holds now, what the first result updates goes just below it (the
history of the answer, next to it). Undated results (the owner's own lines of MEMORY.md and USER.md,
conversations) are left where they are: Dreaming keeps the curated files current (``status: superseded``,
written in place by dreaming/outdated.py with :func:`updates_fact`).

How this compares with other designs (add-only stores that read time-aware, invalidation windows,
expiry) is in docs/search.md.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import repeat

from ..text.boilerplate import said_by_assistant
from ..text.bilingual import DOCTOR, SPECIALTIES, SUBJECTS, key_of, keys_in
from ..text.cjk import CJK_RUN_RE, has_cjk
from ..text.concepts import content_words, numbers, stem
from ..text.facets import facets_named, facets_of
from ..text.focus import focus_of, focus_words, names_focus
from ..text.people import OWNER, RELATIONS_EN, RELATIONS_ZH, SHORT_ZH, WORDS_EN, WORDS_ZH, kin, people_in
from ..text.zh_numerals import DIGITS as ZH_DIGITS, zh_value
from .keyword import STOP_WORDS

_WIDE = "\u1100"  # Hangul Jamo, the lowest of the CJK letters (text/cjk.py); a Latin content word starts below
# how far down the ranked list an update is looked for: the default six results and ten below
# them (24 found no more updates on the month of benchmarks/month_life.py nor on the long histories,
# marked 721 LoCoMo results superseded against 583, most of them falsely, and cost a search at
# 100,000 units twice the time)
HORIZON = 16
SHORT_FACT = 4  # content words of a one-fact statement ("We live in Munich, in Schwabing": 3)

_DATED = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})(?:-[^/]+)?\.md$")
_CHANGE = re.compile(r"\b(?:now|new|newly|changed?|moved|instead|no longer|anymore|updated?|rescheduled|postponed|"
                     r"switched|replaced|actually)\b|新的|改为|改成|换成|换到|换了|改了|现在|搬到|搬家|推迟|提前|不再|改到|更新"
                     r"|纪录(?!片)", re.I)  # (a record; not 纪录片, a documentary)
# With one shared word, only a verb of change ("moved", "switched", 搬家, 换成) or "new" right before
# that word ("my new manager", 新的经理) says the change is of it: "I now live close to the office"
# says nothing new about where "we live in Munich", nor "Bought a new leash for the dog" about the
# dog's name
# ... and a record broken says the best so far changed ("New personal best, I ran 21 kilometres" after
# "My longest run so far is 8 kilometres"; 破纪录, 新纪录)
_CHANGE_VERB = re.compile(r"\b(?:changed?|moved|instead|no longer|anymore|rescheduled|postponed|switched|replaced"
                          r"|personal (?:best|record)|new record|(?:beat|broke|smashed) my (?:old |previous )?record)\b"
                          r"|改为|改成|换成|换到|换了|改了|搬到|搬家|推迟|不再|改到|新纪录|破纪录|打破了?(?:我的)?纪录|刷新了?(?:我的)?纪录",
                          re.I)
_NEW_WORD = re.compile(r"\bnew(?:ly)?\s+(\w+)", re.I)
_NEW_CJK = re.compile(r"新的?([\u4e00-\u9fff])")
# a value the owner says they left: a name (capitalised words) said by "I" or "we" (who else
# quits is no change of the owner's: "my colleague Priya quit Northwind", "he left Google") after a
# verb that leaves for good: "quit", "resigned from", "moved out of / away from / from", "switched
# from", "no longer at / with / working for", "sold" or "cancelled" with a determiner ("we sold the
# old Corolla"; "I sold Tom my bike" sells nothing of Tom's), "left my job at"; "left" alone only
# with the new value in the same breath ("I left Northwind and joined Acme", "we left Paris and moved
# to Lyon": "we left Paris on Monday" is a trip, "left Mia at daycare" a morning). Not a name someone
# was left something ("left Sarah Jones a voicemail"), nor a day or a month ("we cancelled the
# Friday dinner"). In Chinese, 我 / 我们 then 从 what is left and a verb of leaving (我从顺达物流离职;
# "同事从顺达物流离职了" is the colleague's), or 我辞去了…的工作; not 离开 (离开杭州 is as often a trip)
_NAME = (r"([A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*){0,3})\b"
         r"(?!\s+[A-Z])(?!\s+(?i:a|an|the|my|our|his|her|their|some|two|three)\b)")
_WHO = r"\b(?i:i|we)(?:'ve|\s+have|\s+had|\s+just|\s+finally|\s+already|\s+then|\s+also)*\s+"
_OWN = r"(?:(?i:my|our|the)\s+)?(?:(?i:old)\s+)?"
_JOB = r"(?i:my|our)\s+(?:(?i:old)\s+)?(?i:job|position|role|post)\s+(?i:at|with|in)\s+"
_LEFT = re.compile(
    r"(?:(?:" + _WHO + r"(?i:quit|resigned\s+from|moved\s+(?:out\s+of|away\s+from|from)|switched\s+(?:away\s+)?from)"
    r"|\b(?i:i'm|i\s+am|we're|we\s+are)\s+(?i:no\s+longer\s+(?:at|with|in|working\s+(?:at|for))))\s+" + _OWN
    + r"|" + _WHO + r"(?:(?i:left|quit|resigned\s+from)\s+" + _JOB
    + r"|(?i:sold|cancell?ed)\s+(?i:my|our|the)\s+(?:(?i:old)\s+)?))" + _NAME
    + r"|" + _WHO + r"(?i:left)\s+" + _OWN + _NAME
    + r"(?=(?:\s+(?i:after|last|this)\s+\w+(?:\s+\w+)?)?,?\s+(?i:and|to|for)\s+(?:(?i:i|we)\s+)?"
    r"(?i:joined|join|started|start|moved|move|went\s+to|signed|took)\b)"
    r"|我们?(?:已经|刚刚?|终于|上个?月|上周|今天|昨天)?从([\u4e00-\u9fff\w]{2,10}?)(?:离职|辞职|搬走|搬出|跳槽|退出|退会)"
    r"|我们?(?:已经|刚刚?|终于)?辞去了?([\u4e00-\u9fff\w]{2,10}?)的(?:工作|职位)")
# ... a day or a month is when, not what was left
_WHEN_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday january february march april "
                        "may june july august september october november december".split())
# words that say when or how, not what about: left out of the subject
_NOT_SUBJECT = frozenset({"now", "new", "newly", "change", "changed", "moved", "instead", "longer", "anymore",
                          "update", "updated", "rescheduled", "postponed", "switched", "replaced", "actually",
                          "date", "today", "yesterday", "tomorrow"})
# to work out is to exercise, not to work: "I take the 7:42 express to get to work" is no news of "I work out at
# Ironworks Fitness", for "Where do I work out these days?" (read as one word, "workout")
# (not to work out of an office, nor to work out a budget or how: to work from it, to figure it out)
_WORK_OUT = re.compile(r"\b(?:work(?:s|ed|ing)?)\s+out\b(?!\s+(?:of|the|a|an|my|our|your|his|her|their|how|what|whether|"
                       r"when|where|why|which|who|if|it|that|this|them|something|things|details|plans?|budgets?)\b)", re.I)


def _work_out_as_one(text: str) -> str:
    """``text`` with each "work out" (exercise) written as one word (:data:`_WORK_OUT`); tried only on a text
    holding " out" (not "about")."""
    return _WORK_OUT.sub("workout", text) if " out" in text else text


# words of when and how often: part of what a line says (they count in its size), but two lines sharing them
# share no subject unless the question asks them ("我妈每天早上去做什么？"): "doc has me on 10mg of lisinopril,
# should i take it morning or night?" is no news of "taking the 42 bus to work every morning" (as stems,
# content_words' own)
_WHEN_WORDS = frozenset({"morn", "even", "night", "aftern", "tonight", "weekly", "daily", "usuall", "alway",
                         "早上", "晚上", "上午", "下午", "中午", "每天", "每周", "明天", "昨天", "今天",
                         "tak", "took"})  # (and "take": a bus, a pill, a while, "how long would it take")


# how often one does a thing ("usually", 一般, 平时) is no subject two lines share alone, even where the question
# says it: "我的快递现在一般放在哪？" had "足球队训练场地换了…那边停车方便吗一般" update "我快递一般都放小区东门的菜鸟驿站";
# beside another word it counts as before ("孩子现在一般放学直接回家了，托管班就退了" after "孩子一般放学后在托管班待到6点")
_HABIT = frozenset({"usual", "usuall", "alway", "typica", "normal", "一般", "平时", "通常", "经常"})
_HABIT_CHARS = frozenset("".join(w for w in _HABIT if w[0] >= _WIDE))


def _subject_shared(a: frozenset[str], b: frozenset[str], unshared: frozenset[str]) -> frozenset[str]:
    """The subject words two lines share (``a``, ``b``): not those ``unshared`` (:func:`_unshared`), and none
    where all they share is a word of habit."""
    shared = a & b - unshared
    if not shared & _HABIT:
        return shared
    # (nor a Chinese word's bigram that runs into one: 我经 of "我经常去楼下那家瑞幸买咖啡" and "我经常失眠")
    return shared if any(w[0] < _WIDE or not _HABIT_CHARS.intersection(w) for w in shared - _HABIT) else frozenset()


@lru_cache(maxsize=256)
def _unshared(asked: frozenset[str]) -> frozenset[str]:
    """The words two lines may share and not share a subject by: those of when, but those the question asks."""
    return _WHEN_WORDS - asked


# who said a line: a role ("user:", "助手：", as reverie's session notes write them), or a name of one
# or two capitalised words when what follows is someone talking ("Caroline: I went…", "Melanie:
# Wow, …"); a label such as "Project Atlas: go-live on January 9" or "cutover date:" is part of
# what the line is about
_NAME_TALKING = (r"[A-Z][\w'-]{0,20}(?: [A-Z][\w'-]{0,20})?(?=[:：]\s*(?i:(?:i|i'm|i've|i'd|i'll|my|me|we|we're|our|us|"
                 r"you|you're|your|hey|hi|hello|wow|thanks|thank|yes|yeah|no|oh|haha|great|sure|sounds|that's|it's)\b|我|你))")
_SPEAKER = re.compile(r"^\s*(?:[-*]\s+)?(?:(?i:user|assistant|system|human|ai)|用户|助手|" + _NAME_TALKING + r")[:：]\s*", re.M)
# a conversation of named people ("Caroline: I went…", "Jon: Yeah, Gina!"), anywhere in a passage
# (its lines are joined): their talk is no statement of the owner's
_NAMED_TALK = re.compile(r"(?<![\w'-])(?!(?i:user|assistant|system|human|ai)\b)" + _NAME_TALKING)

# the curated files Dreaming promotes into, each entry citing the note it came from
CURATED = ("MEMORY.md", "USER.md")
# (a consolidated entry cites "Source: memory/….md#L3-L3", one of the append-only form "[score=0.812 …
# source=memory/….md:3-3]": dreaming/memoryfile.py)
_CITED = re.compile(r"(?:\bSource:\s+|\bsource=)memory/(\d{4}-\d{2}-\d{2})(?:-[^/#\s:]+)?\.md(?:#L|:)(\d+)")
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}T")
_BULLET = re.compile(r"^\s*[-*+]\s+")
_CITED_NOTE = re.compile(r"(?:\bSource:\s+|\bsource=)(memory/[^#\s:]+\.md)")
_ANNOTATIONS = re.compile(r"<!--.*?-->|\bSource:\s+\S+|\[score=[^\]\n]*\]", re.S)


def dated(path: str, line: int, text: str = "") -> tuple[str, int] | None:
    """(the note's date, the line) of a result in a dated note, or of a promoted entry (``text``)
    by the dated note it cites; None when neither says when."""
    m = _DATED.match(path or "")
    if m:
        return m.group(1), int(line or 0)
    if (path or "") not in CURATED:  # a citation inside any other text (a web clip) dates nothing
        return None
    c = _CITED.search(text) if text and ("Source:" in text or "source=" in text) else None
    return (c.group(1), int(c.group(2))) if c else None


def _subject(text: str, nums: frozenset[str] | None = None, keyed: bool = False) -> frozenset[str]:
    """The words ``text`` speaks of; ``keyed``: an everyday thing by its one key in either language (瑜伽
    and "yoga" are one, text/bilingual.py), for comparing a line with one in the other language."""
    text = _SPEAKER.sub("", text)  # who said it ("Caroline:", "user:") is not what it is about
    text = _work_out_as_one(text)
    nums = numbers(text) if nums is None else nums
    words = (w for w in content_words(text, matching=True) if w not in nums and w not in _NOT_SUBJECT
             and not w.isdigit())
    return _keyed(frozenset(words), text) if keyed else frozenset(words)


def _keyed(words: frozenset[str], text: str) -> frozenset[str]:
    """``words`` (of ``text``) with each everyday thing and each of the owner's people by its one key."""
    things = keys_in(text)
    return frozenset(things.get(w) or (_kin_word(w) if w in _RELATION_WORDS else w) for w in words)


def _asked_of(query: str) -> frozenset[str]:
    """A question's subject words, and the keys of the everyday things it names (text/bilingual.py), so
    that a line in the other language may hold what it asks."""
    return _subject(query) | frozenset(keys_in(query).values())


@lru_cache(maxsize=256)
def _kin_word(word: str) -> str:
    """One of the owner's people as one word in either language: 老公 as "husband" is (its stem), 儿子 "son"."""
    said = content_words(kin(word), matching=True)
    return said[0] if len(said) == 1 and said[0] in _RELATION_WORDS else word


def _size(subject: frozenset[str]) -> float:
    """How many words a subject holds: a Chinese word of n characters is indexed as its n - 1
    overlapping bigrams (公司在漕河泾开发区办公: 8), so a bigram counts half; a word of other
    scripts counts one. (A content word is all of one script: its first character says which.)"""
    wide = sum(1 for w in subject if w[0] >= _WIDE)
    return len(subject) - 0.5 * wide


def _extent(words: frozenset[str]) -> float:
    """How much of a text ``words`` cover, in words: one for a word of other scripts; for Chinese,
    half its distinct characters (a word of two), so that the bigrams straddling two words of the
    question ("教资面试": 教资, 资面, 面试) count no more than the words they join."""
    wide = frozenset(ch for w in words if w[0] >= _WIDE for ch in w)
    return sum(1 for w in words if w[0] < _WIDE) + 0.5 * len(wide)


@lru_cache(maxsize=16_384)
def _facts(text: str, keyed: bool = False) -> tuple[frozenset[str], frozenset[str], str, float]:
    """What an update is judged on, once per text: its subject, its numbers, its words (a promoted
    entry's annotations and citation left out), its subject's size. (Whether it announces a change
    is asked only of a pair that needs it: :func:`_announces`.) ``keyed``: see :func:`_subject`."""
    if keyed:  # (the words read once: the keyed subject maps them)
        subject, nums, text, _ = _facts(text)
        subject = _keyed(subject, _SPEAKER.sub("", text))
        return subject, nums, text, _size(subject)
    if "<!--" in text or "Source:" in text or "[score=" in text:
        text = _ANNOTATIONS.sub(" ", text)
    text = text.strip()
    nums = numbers(text)
    subject = _subject(text, nums)
    return subject, nums, text, _size(subject)


def _across(later: str, earlier: str) -> bool:
    """Whether two lines are in two languages, one Chinese and one not (then compared by :func:`_facts`
    ``keyed``: "Started going to Yoga Barn" after "我的瑜伽课在Pure Yoga上" share 瑜伽/yoga)."""
    return has_cjk(later) != has_cjk(earlier)


@lru_cache(maxsize=4096)
def _announces(text: str) -> bool:
    return _CHANGE.search(text) is not None


@lru_cache(maxsize=4096)
def _left_values(text: str) -> tuple[frozenset[str], ...]:
    """The subjects of the values ``text`` says were left (see :data:`_LEFT`): each a set of words."""
    low = text.lower()
    if not any(w in low for w in ("left", "quit", "sold", "ancel", "from", "moved", "longer", "resign", "从", "辞去")):
        return ()
    out = []
    for m in _LEFT.finditer(text):
        name = next(g for g in m.groups() if g)
        if name.lower() in _WHEN_NAMES:
            continue
        words = _subject(name)
        if words:
            out.append(words)
    return tuple(out)


def _leaves(later: tuple, earlier: tuple) -> bool:
    """Whether the later text says it left a value the earlier one names (all its words)."""
    return any(v <= earlier[0] for v in _left_values(later[2]))


def _short(facts: tuple) -> bool:
    return facts[3] <= 2 * SHORT_FACT


def _updates(later: tuple, earlier: tuple, asked: frozenset[str] = frozenset(), whole: bool = True) -> bool:
    (a, na, words_a, size_a), (b, nb, words_b, size_b) = later, earlier
    shared = _subject_shared(a, b, _unshared(asked))
    if shared and _leaves(later, earlier):  # "I left Northwind…" after "…my new job at Northwind"
        return True
    # two words' worth shared (a Chinese bigram half of one: 健身房 is two bigrams and one word;
    # 科技 + 上班 three, with 技上)
    both = _size(shared) if len(shared) >= 2 else 0.0  # (two words at the least, whatever their script)
    if both < 1.5 or 5 * both < 2 * min(size_a, size_b):
        # between two short statements of a fact, one shared word is the subject when it is
        # what the question asks about ("who is my manager": "My manager is Priya Shah", then
        # "After the reorg my new manager is Tom Becker"), and then only a later line that says
        # it changed updates the earlier one (dialogue turns are longer: on LoCoMo's sessions,
        # allowing any length marked four times as many results superseded)
        if size_b <= SHORT_FACT and size_a <= 2 * SHORT_FACT:
            return (words_a != words_b and not (na and nb and na == nb) and _asked_about(shared, asked, words_a, words_b)
                    and _says_change_of(words_a, shared & asked or shared, asked))
        # a message says several things in one go ("Watched a film tonight. My longest run so far is
        # 8 kilometres."): the statements about what was asked are its short sentences holding
        # that word (at most a few of each: a search judges up to 120 pairs), and a later one about
        # someone else ("She got a new manager"), or a conversation of named people (figurative
        # "moved me", "changed my perspective": on LoCoMo 51 pairs of turns), is none of the owner's
        about = shared & asked
        if not (whole and about and (_owner_says_change(words_a) or _a_new_one_said(words_a, asked))) \
                or _named_talk(words_b):
            return False
        # (and one person's statement updates only that person's: in a conversation of two, Melanie's
        # "I got a new painting" is no change of Caroline's)
        people = about & _RELATION_WORDS
        keep = _a_change_of_my(people) if people else _a_change_of_mine
        # (a Chinese message's clauses are read only when the two share a thing asked, not a person alone:
        # "儿子的游泳课改到周六了" is no news of "儿子在实验小学读三年级，班主任是李老师")
        clauses = people if about - _RELATION_WORDS else None
        # (a change supposed or wished is none: "要是儿子的游泳课能改成周六就好了")
        later_s = _holding(words_a, about, words_b, lambda x: (keep(x) or _a_new_one_of_mine(x, asked))
                           and not _SUPPOSED.search(x) and not _WISH.search(x), clauses)
        # (the earlier's clauses all: a fact said beside what someone said of it is still said, "孩子班主任李老师说他
        # 上课老走神"; the later's only those it may read alone, :func:`_clauses_alone`)
        earlier_s = _holding(words_b, about, keep=_one_fact, clauses=clauses, alone=False) if later_s else []
        # (a clause of the earlier is judged against a clause of the later, or a later sentence of one: a whole
        # message of several may say another's change beside the owner's "still", "女儿的英语老师换成Tom了，我的还是
        # Lisa"; and a clause naming the earlier one's value again tells more of it: "阳光幼儿园换了新园长" is no
        # other kindergarten than "女儿在阳光幼儿园上中班")
        return any(_updates(_facts(x), _facts(y), asked, whole=False)
                   and not ((a_part or b_part) and _value_stands(x, y, asked))
                   for x, who, a_part in later_s for y, was, b_part in earlier_s
                   if not (who and was and who != was) and not (b_part and not a_part and _zh_clauses(x)))
    if whole and not _one_sentence(words_a):
        # in a text of several sentences, the change is said in a message (a line) with a sentence
        # that speaks of what both share and that the earlier text did not already say: a reply
        # repeating the same tips, with a "now" in another message about something else, updates nothing
        said = _lines_holding(words_a, shared, words_b)
        if not said:
            return False
        new_nums = numbers(" ".join(said))
        return bool(nb and new_nums - nb) or _announces(" ".join(said))
    if na and nb and na != nb:
        return True
    return words_a != words_b and _announces(words_a)


# where a sentence ends: a full stop of Chinese or Japanese, ！？；, or a Latin . ! ? ; before a space
# (not in "3.5", a URL's "?", "Dr. Lee", "e.g. this")
# (after a number ! ? ; end one too: "my sister's due date is March 3! what's a good gift…")
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[^\s.][!?;])(?=\s)|(?<=[^\d\s.]\.)(?<!\b(?:Dr|Mr|Ms|St|No|vs)\.)"
                           r"(?<!\bMrs\.)(?<!\b[a-zA-Z]\.[a-zA-Z]\.)(?=\s)|(?<=\d\.)(?=\s+[A-Z])"  # ("…on May 5. See")
                           r"|(?<=\w\.[!?])(?=\s)")  # ("moved to 3 p.m.! what should I bring?")
#: the sentences of each side judged as statements when two long texts share one asked-about word
SENTENCES_JUDGED = 4
# someone else's news ("She got a new manager", "The neighbours got a new dog", "我妹妹换了新工作"),
# unless the owner does something in it too ("I", "we", 我 not before one of those people)
_SOMEONE_ELSE = re.compile(r"\b(?:he|she|they|his|her|their|him|them|(?:the|my|our|a)\s+(?:" + RELATIONS_EN + r"))\b"
                           r"|[他她]|" + RELATIONS_ZH + "|" + SHORT_ZH, re.I)
# one of the owner's people ("my manager", "our old neighbours", 我的经理), and the words of a question
# asking about one of them ("Who is my manager now?": "manage")
_MY_PERSON = re.compile(r"\b(?:my|our)\s+(?:\w+\s+)?(" + RELATIONS_EN + r")\b|我们?的?(" + RELATIONS_ZH + ")", re.I)
_RELATION_WORDS = frozenset(content_words(" ".join(WORDS_EN + WORDS_ZH), matching=True))


def _changed(text: str) -> bool:
    return any(m.group(0).lower() != "change" for m in _CHANGE_VERB.finditer(text))  # (not the noun)


@lru_cache(maxsize=4096)
def _named_talk(text: str) -> bool:
    """Whether a passage is a conversation of named people (asked of each passage once per pair)."""
    return _NAMED_TALK.search(text) is not None


@lru_cache(maxsize=4096)
def _owner_says_change(text: str) -> bool:
    """Whether a text may hold a statement of change by the owner: a verb of change, and no
    conversation of named people (see :func:`_a_change_of_mine`); a cheap look before its sentences are read."""
    return _changed(text) and not _named_talk(text)


@lru_cache(maxsize=8192)
def _a_change_of_mine(sentence: str) -> bool:
    """Whether a sentence of a long message may be the owner's statement of a change: short, a verb of
    change in it ("moved", "switched", "personal best", 换成, 新纪录; not "new" alone nor "change", which
    in conversation are as often "new art" and "make a change": on LoCoMo they marked 231 pairs of
    turns), and not someone else's news."""
    return _a_change_said(sentence) and not _someone_else_s(sentence)


def _someone_else_s(text: str) -> bool:
    """Whether ``text`` tells someone else's news: one of :data:`_SOMEONE_ELSE`, and the owner doing
    nothing in it ("I", "we", 我 not before one of their people)."""
    return _SOMEONE_ELSE.search(text) is not None and OWNER.search(text) is None


@lru_cache(maxsize=8192)
def _a_change_said(sentence: str) -> bool:
    """A short sentence with a verb of change, whoever it is about."""
    return _facts(sentence)[3] <= 2 * SHORT_FACT and _changed(sentence)


def _a_change_of_my(people: frozenset[str]):
    """For a question about one of the owner's people ("Who is my manager now?": ``people`` holds
    "manage"): a change said of "my manager" is the owner's news too ("My old manager moved to
    Berlin, so Tom became my manager"); "She switched to a new manager", "我妹妹换了新经理" stay someone
    else's."""
    def keep(sentence: str) -> bool:
        if not _a_change_said(sentence):
            return False
        return _a_change_of_mine(sentence) or any(
            people & frozenset(content_words(m.group(1) or m.group(2), matching=True))
            for m in _MY_PERSON.finditer(sentence)) or _bare_kin(sentence, people)
    return keep


# one of the owner's people named bare in Chinese, as the owner speaks of their own ("以后儿子改成周六上午10点上",
# "老公换了新工作"); not someone's ("同事的儿子", "他老婆") nor one addressed ("你老公")
_BARE_KIN = re.compile(r"(?<![的他她你家])(" + RELATIONS_ZH + ")(?!同学|同桌|班|的?(?:朋友|同事|同学))")


def _bare_kin(sentence: str, people: frozenset[str]) -> bool:
    """(and no one else named: "我妹妹换了新经理" is the sister's)"""
    if not has_cjk(sentence):
        return False
    named = {m.start() for m in _BARE_KIN.finditer(sentence)
             if people & frozenset(content_words(m.group(1), matching=True))}
    if not named:
        return False
    rest = _BARE_KIN.sub(lambda m: " " if m.start() in named else m.group(0), sentence)
    return not _SOMEONE_ELSE.search(rest) and not _OTHERS_ZH.search(sentence)


# a new one of what is asked, said in Chinese: 新来的刘阿姨, 新的经理, 新老师 (the head's character one of the
# question's, after at most one character of a name; "new" said in English is read by _NEW_WORD, and only in a
# short statement: in conversation "new art" is as often no change of anything)
# (not 新 of another word: 新鲜, 新闻, 新年, 新手, 重新, 更新, 最新…)
_NEW_ONE_ZH = re.compile(r"(?<![重更创革翻清最崭])新(?![鲜闻年手疆加西华奇意郎娘春])(?:来的?|的)?([\u4e00-\u9fff]{1,2})")


@lru_cache(maxsize=8192)
def _a_new_one_said(text: str, asked: frozenset[str]) -> bool:
    """Whether ``text`` says, in Chinese, a new one of what the question (its words ``asked``) asks about.
    (Read for most pairs of a search's results: a line without 新 is passed over at once, and each line's
    reading is kept.)"""
    if "新" not in text:
        return False
    chars = _asked_chars(asked)
    return bool(chars) and any(m.group(1)[-1] in chars and m.group(1)[-1] not in _ASKING_CHARS
                               for m in _NEW_ONE_ZH.finditer(text))


def _a_new_one_of_mine(sentence: str, asked: frozenset[str]) -> bool:
    """A short sentence saying a new one of what is asked (:func:`_a_new_one_said`), not someone else's."""
    return _facts(sentence)[3] <= 2 * SHORT_FACT and _a_new_one_said(sentence, asked) and not _someone_else_s(sentence)


def _one_fact(sentence: str) -> bool:
    """A short sentence stating something: a question ("杭州那次住哪里来着？") states nothing a later
    statement could update."""
    return _facts(sentence)[3] <= SHORT_FACT and not sentence.rstrip().endswith(("?", "？"))


@lru_cache(maxsize=8192)
def _sentences(line: str) -> tuple[str, ...]:
    return tuple(x for x in (p.strip() for p in _SENTENCE_END.split(line)) if x)


_NOT_SAID = re.compile(r"[\W_]+")
_ITEM = re.compile(r"^\s*(?:[-*+]\s+)?(?:\d{1,2}[.)）、]|[(（]\d{1,2}[)）])", re.M)


@lru_cache(maxsize=8192)
def _said(text: str) -> str:
    """What a text says, to tell a sentence said again: its words and numbers, without who said it,
    a list's item number, spaces or punctuation ("3) 汤分成小份冷冻保存很方便。" is in "助手：汤分成小份冷冻
    保存很方便。"; "My rent is now 1350." is not in "My rent is 1200.")."""
    return _NOT_SAID.sub("", _ITEM.sub("", _SPEAKER.sub("", text))).lower()


@lru_cache(maxsize=2048)
def _parsed(text: str) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """A text's lines, each with who said it ("" when no one is named: :data:`_SPEAKER`) and its
    sentences, each with its lower case (a word's stem or a bigram is in it where the word is: a
    cheap look before its words are read)."""
    out = []
    for line in text.split("\n"):
        m = _SPEAKER.match(line)
        who = _NOT_SAID.sub("", m.group(0)).lower() if m else ""
        out.append((who, tuple((x, _work_out_as_one(x.lower())) for x in _sentences(line))))
    return tuple(out)


def _holds(sentence: tuple[str, str], words: frozenset[str]) -> bool:
    return any(w in sentence[1] for w in words) and bool(_facts(sentence[0])[0] & words)


def _holding(text: str, words: frozenset[str], other: str = "", keep=None,
             clauses: frozenset[str] | None = None, alone: bool = True) -> list[tuple[str, str, bool]]:
    """(sentence, who said it, whether it is a clause of a longer one) of the first :data:`SENTENCES_JUDGED`
    sentences of ``text`` holding one of ``words`` that ``other`` did not say already and that ``keep`` keeps
    (all, without it). With ``clauses`` (the owner's people the question asks about, or none), the clauses of
    a Chinese sentence of several that may be read alone (:func:`_clauses_alone`; every one, with ``alone``
    false) are read too."""
    lines = _parsed(text)
    known = _said(other) if other else ""
    out: list[tuple[str, str, bool]] = []
    for who, parts in lines:
        for x in parts:
            # (a Chinese message runs its statements together with commas: "儿子的游泳课在周二晚上7点，下课都快8点半
            # 了，晚饭怎么安排比较好？" is three, a fact, a remark and a question)
            read = () if clauses is None else _clauses_alone(x[0], clauses) if alone else _zh_clauses(x[0])
            for y, part in ((x, False), *((c, True) for c in read)):
                # (holding a word first: the cheap test, most clauses hold none)
                if _holds(y, words) and (keep is None or keep(y[0])) and not (known and _said(y[0]) in known):
                    out.append((y[0], who, part))
                    if len(out) == SENTENCES_JUDGED:
                        return out
    return out


_ZH_COMMA = re.compile(r"[，；：]")


@lru_cache(maxsize=4096)
def _zh_clauses(sentence: str) -> tuple[tuple[str, str], ...]:
    """The clauses of a Chinese sentence of several (none for one of one, or not Chinese)."""
    if not has_cjk(sentence) or not _ZH_COMMA.search(sentence):
        return ()
    return tuple((c, c.lower()) for c in (p.strip() for p in _ZH_COMMA.split(_SPEAKER.sub("", sentence))) if c)


# what a clause leaves to the next ones: a supposition, a wish, a plan, what someone said or asked, a question
# ("要是教练同意，儿子的游泳课就改到周六上午", "邻居问我，游泳课是不是改到周六了", "儿子说，同桌的游泳课改到…")
_FRAMES_ZH = re.compile(r"要是|如果|假如|万一|的话|想|打算|准备|可能|也许|或许|考虑|听说|据说|说|问|是不是|吗|[?？]")
# others a Chinese clause names beside the owner's people: a classmate, a desk mate, the next class, another's child
_OTHERS_ZH = re.compile(r"同学|同桌|隔壁|[^我]家(?:孩子|小孩|儿子|女儿)")


@lru_cache(maxsize=4096)
def _clauses_alone(sentence: str, people: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """The clauses of a Chinese sentence of several that may be read alone: each up to the first that names
    someone else (not one of ``people``, the owner's people asked about, named bare) or frames what follows
    (:data:`_FRAMES_ZH`): that one and the rest tell of another's doing, or of none."""
    out = []
    for c in _zh_clauses(sentence):
        if _FRAMES_ZH.search(c[0]) or _OTHERS_ZH.search(c[0]) or (
                _SOMEONE_ELSE.search(c[0]) and not _bare_kin(c[0], people)):
            break
        out.append(c)
    return tuple(out)


def _lines_holding(text: str, words: frozenset[str], other: str) -> list[str]:
    """Every sentence ``other`` did not say already of each line (a message) of ``text`` with a new
    sentence holding one of ``words``."""
    known = _said(other)
    out: list[str] = []
    for _, parts in _parsed(text):
        new = [x for x in parts if _said(x[0]) not in known]
        if any(_holds(x, words) for x in new):
            out += [x[0] for x in new]
    return out


def _one_sentence(text: str) -> bool:
    return sum(len(parts) for _, parts in _parsed(text)) <= 1


def _says_change_of(text: str, words: frozenset[str], asked: frozenset[str]) -> bool:
    """A verb of change anywhere, or "new" / 新 right before one of ``words`` (or, in Chinese, a
    character of the question's words)."""
    if _CHANGE_VERB.search(text):
        return True
    for m in _NEW_WORD.finditer(text):
        if set(content_words(m.group(1), matching=True)) & words:
            return True
    chars = _asked_chars(asked)
    return any(m.group(1) in chars for m in _NEW_CJK.finditer(text)) or _a_new_one_said(text, asked)


@lru_cache(maxsize=256)
def _asked_chars(asked: frozenset[str]) -> frozenset[str]:
    """The characters of the question's Chinese words that are no function word."""
    return frozenset(ch for w in asked if has_cjk(w) for ch in w if ch not in STOP_WORDS)


def _bigrams(text: str) -> set[str]:
    return {run[i:i + 2] for run in CJK_RUN_RE.findall(text) for i in range(len(run) - 1)}


def _asked_about(shared: frozenset[str], asked: frozenset[str], later: str, earlier: str) -> bool:
    """Whether both texts speak of what the question asked about: a shared word of it, or in
    Chinese, whose words are bigrams of a text cut where it was (住 is "我住" in 我住在哪个城市 and
    nowhere a word of 现在住在杭州), two characters both texts hold together, one of them of the
    question's words and no function word (住在; not 房 alone, of 厨房 and 健身房)."""
    if any(_one_word(w, asked, later, earlier) for w in shared & asked):
        return True
    chars = _asked_chars(asked)
    if not chars:
        return False
    # (not a character of how the question asks: 点 of 几点 is in "十二点以后" and "三点以后" alike)
    both = (_bigrams(later) & _bigrams(earlier)) - _FRAME_BIGRAMS
    return any(ch in chars and ch not in _ASKING_CHARS and _one_word(pair, asked, later, earlier)
               for pair in both for ch in pair)


def _one_word(pair: str, asked: frozenset[str], later: str, earlier: str) -> bool:
    """Whether two characters both texts hold are one word of the question in both: when the question
    goes on with them (its bigrams 会议 and 议室: 会议室), both texts go on alike. "成都那趟改签了…会议推迟了两天"
    holds 会议 and no 会议室 of "周会现在在哪个会议室开？" (a Latin word is whole already). Only going on
    after them, where a Chinese word has its head (会议室 is a room; 剪头发 is 头发 cut), and not into
    a frame word (会现 of 周会现在: the next word)."""
    if len(pair) != 2 or pair[0] < _WIDE or pair not in asked:
        return True
    longer = [w for w in asked if len(w) == 2 and w != pair and w[0] == pair[1] and w[1] not in _FRAME_CHARS
              and not _next_word_held(w, asked, later, earlier)]
    return all(_goes_on(w, later) == _goes_on(w, earlier) for w in longer)


# heads that name one thing: a class is a 课 or a 班 (数学课, 数学班), a shop a 店 or a 馆 (面店, 面馆)
_SAME_HEAD = {"课": "班", "班": "课", "店": "馆", "馆": "店"}
_HEAD_CHARS = "".join(_SAME_HEAD)  # (the last character of a Chinese word that says what kind of thing it is)


def _goes_on(w: str, text: str) -> bool:
    """Whether ``text`` holds ``w``, two characters of the question going on into a head, or the same
    going on into a head naming the same thing (:data:`_SAME_HEAD`)."""
    return w in text or (w[1] in _SAME_HEAD and w[0] + _SAME_HEAD[w[1]] in text)


def _next_word_held(w: str, asked: frozenset[str], later: str, earlier: str) -> bool:
    """Whether the question's going on ``w`` is into a next word both texts hold: 琴老 of 钢琴老师 goes
    into 老师, which "钢琴换了个老师" holds too (two words, 钢琴 and 老师, not one)."""
    return any(v != w and v[0] == w[1] and v in later and v in earlier for v in asked if len(v) == 2)


# two characters that frame a Chinese question or statement, whatever it is about: 现在 in "周会现在在哪个
# 会议室开？" and in "现在帮我们遛狗的换成陈晨了" is no subject they share
_FRAME_BIGRAMS = frozenset("现在 我现 们现 目前 如今 哪个 那个 这个 一个 什么 时候 怎么 多少 我们 你们 他们 她们 咱们 已经 以后 "
                           "之后".split())
_FRAME_CHARS = frozenset("".join(_FRAME_BIGRAMS))
# the characters of how a Chinese question asks (几点, 一般, 多少, 还…吗, 每天), not of what it asks about
_ASKING_CHARS = _FRAME_CHARS | frozenset("几点般多少么样哪谁吗呢还都常平经时每次天周月年")


def _note_of(path: str, text: str) -> str:
    if path in CURATED and ("Source:" in text or "source=" in text):
        m = _CITED_NOTE.search(text)
        if m:
            return m.group(1)
    return path


# -- two answers to one question ---------------------------------------------------------------------
# The rules above read a pair alone, and must be strict: on LoCoMo's conversations any looser reading
# marked hundreds of turns superseded. People say an update in more ways than any list of verbs holds
# ("Finally ditched Xfinity! We're on Google Fiber now", "女儿转园了，现在去的是小太阳双语幼儿园", "涨到
# 2万8"), and of 60 updates written apart from this code (benchmarks/updates_fresh_data.py) those
# rules caught 13. So where the question vouches for the pair, a looser reading decides: a question
# asking for a fact as it stands (search/current.asks_what_holds), two of the owner's statements near
# the top of its results (the first :data:`ANSWERS`, or for two lines a facet the question names links
# or of a kind it asks about, the first :data:`HORIZON`; each one's score at least :data:`ANSWER_RATIO`
# of the other's), both about what the question asks (a word of it, or two Chinese characters one
# of which is of its words, beside one of the owner's people; or, sharing no word, a facet of life
# the question names, said in other words: text/facets.py) or about one named thing (see
# :func:`answers_alike`), the later one saying something the earlier did not, with a change said in
# any of the ways of :data:`_SAYS_CHANGE` or other numbers. Then the later one is the fact now.
ANSWERS = 8
ANSWER_RATIO = 0.7
# a later answer holding less of the question's words must rank this close (0.75 was tried: "我取消了一个从来
# 不用的视频会员" then scored close enough to "把原来的健身房退了，会员换成了铁馆" to be taken as the fact now, for
# "我现在是哪家健身房的会员？", on two of the long histories; and "考点通知改时间了，面试推到12月16号", at 0.77 of
# "我的教资面试定在12月9号" with the default settings, stays below it)
CLOSE_RATIO = 0.85
# keyword scores spread wider than hybrid ones (a longer line that says the change scores lower on
# the same words): a keyword-only search asks (0.5, 0.7) of the pair's scores
KEYWORD_RATIOS = (0.5, 0.7)
# two answers a facet the question names links (both name it, the later says a change of it) vouch for
# each other more than a shared word: the later one may score half the earlier's (with the default
# settings, the earlier line holding the question's very words outscores the later by 0.79 to 0.46:
# "our babysitter is Kelsey", "our old sitter left for college, so her friend Brooke is watching the kids")
LINKED_RATIO = 0.5
# a word of a thing named after "my" or "the", then a space: not an article, a particle or a joining word
_THING_WORDS = r"(?:(?!(?:a|an|and|but|then|so|on|up|down|away|to|for|off|out|i)\b)[\w'+&-]+\s+)"
_SAYS_CHANGE = re.compile(
    r"\b(?:now|new|newly|no\s+longer|no\s+more|anymore|any\s+more|instead|switch(?:ed|ing)?|mov(?:e|ed|es|ing)|"
    r"chang(?:ed|ing)|cancell?(?:ed)?|ditched|dropped|quit|left|sold|replaced|rebooked|rescheduled|postponed|pushed|"
    r"bumped|slipped|delayed|retired|retiring|handed\s+(?:me|us)\s+(?:off|over)|upgraded|downgraded|promot(?:ed|ion)|transferred|raised|lowered|officially|as\s+of|"
    r"(?:goes|going|went|gone)\s+(?:up|down)|(?:i've|i\s+have|we've|we\s+have)\s+gone|from\s+(?:now|here)\s+on|starting|"
    r"started|gave\s+up|stopped|accepted|joined|updated?|these\s+days|took\s+over|taking\s+over|back\s+to|"
    r"ported\s+(?:my|our)\s+numbers?|"
    r"from\s+(?:next|this|the\s+next)\s+(?:week|month|year|term|season)|going\s+forward|lately|"
    r"laid\s+off|resigned|(?:first|last)\s+(?:day|week|shift)\s+(?:at|with)|jumped\s+ship|"
    # (a price, a dose, a count moved, said with the new amount: "Streamly just hiked me to £11.49", "upped my
    # weekly mileage to 32", "put it up to £41.50", "the plan goes to $19.99"; not a hike, nor a visit to a $1
    # happy hour)
    r"(?:hiked|upped|put)\s+(?:\w+\s+){0,3}(?:up\s+)?to\s+[$£€¥]?\d+|(?:goes|going)\s+(?:up\s+)?to\s+[$£€¥]\d+|"
    # (a thing of the owner's put elsewhere or given to another keeper: "gave my spare key to my coworker Tom",
    # "put the passports + birth certificates in it, it's on the top shelf"; a few words of a thing between,
    # no article nor particle: not "gave my mom a call to ask", "put the kids to bed in time", "put my heart
    # into it", "put the kettle on")
    r"(?:gave|handed|lent|loaned)\s+(?:my|our|the)\s+(?!(?:best|all|word|seat)\b)" + _THING_WORDS + r"{1,3}to"
    r"|put\s+(?:my|our|the)\s+(?!(?:kids|baby|heart|foot|name|mind)\b)" + _THING_WORDS + r"{1,4}(?:in|into)\s+"
    r"(?:the|my|our|a|an|it)"
    r")\b"
    # (交给, 放到, 放进, 存到: not 提交给, 交给你, 播放到, 开放到, 放到一边, 放到明天, 放到购物车, 保存到)
    r"|(?<![提移])交给(?![你我他她])|(?<![播开释])放[到进](?!一边|旁边|明天|后天|以后|下次|购物车)|(?<!保)存[到进]"
    r"|离职|入职|跳槽|辞职|被裁|裸辞|接了?[^，。！？\s]{0,6}offer|现在|目前|如今|最近(?!的)"
    # (from a day on, as "starting next month": 下个月起, 从周一起)
    r"|(?:下个?月|下周|下星期|明年|本月|这个月|今年|从[^，。！？\s]{1,6})起(?![来床飞])"
    r"|干脆(?:办|买|不再?|以后|每天|天天)|新|改|换|转|调|搬|涨|降|提高|提到|延期|推迟|提前|重新|以后|之后|不再|退了|取消|戒"
    # (a value moved, said with the new one: 加到850mg, 减到一粒, 推到22号, 推到下下周; not 推到一边, 加到购物车,
    # 参加到很晚, 升到高中, 蔓延到)
    r"|(?<![添参增蔓])[加减推升延]到(?:\s*\d|[两二三四五六七八九十半]|一(?![边旁起块下])|下个?[周月星礼]|下下|月底|年底)"
    r"|(?<![不没])变|停|开始|已经|卖|续保?到|挪",
    re.I)
# words two statements share whatever they are about: a time of the day or of the week
_ANY_TOPIC = frozenset(content_words(
    "day days week weeks weekend month months year years time times today tonight morning mornings afternoon "
    "evening evenings night nights daily weekly monthly home house place thing things stuff "
    "每周 每天 每月 周末 上午 下午 晚上 早上 时间 今天 明天 个月 每个 家里 东西",
    matching=True)) | _FRAME_BIGRAMS
_OTHER_TURN = re.compile(r"(?:^|\s)(?:[-*]\s+)?(?:(?i:assistant|ai|system)|助手)[:：]")
# a value left, replaced or ended: what a later line must say of a name it shares with the earlier
_LEFT_IT = re.compile(r"\b(?:sold|cancell?(?:ed)?|ditched|dropped|quit|left|retired|replaced|stopped|gave\s+up|closed|"
                      r"switched|no\s+longer|instead|promoted|(?:on|went\s+on|taking)\s+(?:\w+\s+)?leave|"
                      r"mov(?:e|ed|es|ing)\s+(?:to|from|over|away|out)|"
                      r"put\s+\w+(?:\s+\w+)?\s+on\s+(?:pause|hold)|from\s+(?:now|here)\s+on|change\s+from|laid\s+off|resigned|"
                      r"jumped\s+ship|last\s+(?:day|shift|week)\s+(?:at|with)|traded\s+(?:\w+\s+){0,2}in|"
                      r"went\s+(?:bust|under|out\s+of\s+business))\b"
                      r"|退休|卖了|退了|不再|离开|辞|取消|换|转到|不干|不做了|走了|停了|以后改|从此|调去别的|调走|调到别的|跑路|倒闭"
                      r"|没续|不续|退订|解约|离职|退卡|回老家",
                      re.I)
# a line said by someone named ("Melanie: Painting sunsets", "Caroline: …"): no statement of the owner's
_NAMED_LINE = re.compile(r"^\s*(?:[-*]\s+)?(?!(?i:user|assistant|system|human|ai)\b)[A-Z][\w'-]{1,20}"
                         r"(?:\s[A-Z][\w'-]{1,20})?:\s")
_CAPITALISED = re.compile(r"(?<![\w'-])[A-Z][\w&'-]+")
_PRONOUN_SAID = re.compile(r"(?:i|we|you|he|she|it|they|let|that|there|here|what|who)['’]", re.I)


@lru_cache(maxsize=4096)
def _owner_said(text: str) -> str:
    """What the owner says in a result's text: up to another speaker's turn, without a role or a dash;
    "" when it is an assistant's turn or a conversation of named people."""
    if said_by_assistant(text) or _named_talk(text) or _NAMED_LINE.match(text):
        return ""
    m = _OTHER_TURN.search(text)
    return _statement(text[:m.start()] if m else text)


def _owner_facts(text: str, said: str, keyed: bool = False) -> tuple:
    """:func:`_facts` of what the owner said in ``text`` (``said``): the whole text's, which a search
    has already read, when no one else speaks in it (who said it and a dash are no subject word)."""
    return _keyed_facts(said, keyed) if _others_speak(text) else _keyed_facts(text, keyed)


def _keyed_facts(text: str, keyed: bool) -> tuple:
    """:func:`_facts`, keyed or not (asked as ``_facts(text)`` when not: one cache entry a text)."""
    return _facts(text, True) if keyed else _facts(text)


@lru_cache(maxsize=4096)
def _others_speak(text: str) -> bool:
    return _OTHER_TURN.search(text) is not None


@lru_cache(maxsize=4096)
def _says_change(text: str) -> bool:
    """Whether ``text`` says a change in any of the ways of :data:`_SAYS_CHANGE` (asked once per text:
    a search judges a text in several pairs)."""
    return _SAYS_CHANGE.search(text) is not None


# Two words of a question said together name one thing, the first telling which of its kind ("Japanese
# class", 钢琴老师): a later line naming the kind with another word before it telling which is of another
# thing of that kind, where the earlier line names the first ("went to the 7am class before work again" is no
# news of "Japanese class is Sunday mornings now", for "When is my Japanese class?"; "补习班老师说下学期开始
# 改周四上课了" none of "女儿的钢琴老师陈老师", for "我女儿现在的钢琴老师是谁？"). Found in a fresh update set
# (updates_fresh_data_7.py): each had put the other thing first. The kind alone is the thing asked
# ("考点通知改时间了，面试推到12月16号" for "教资面试是哪天？"), and so is the first word alone ("yoga is
# Saturday mornings now" for "When's my yoga class?"). In Chinese the word before is read only where it
# ends with the head of another thing (补习班, 游泳课: :data:`_HEAD_CHARS`); a name before a 老师 or a 医生 is
# the new one's (陈老师).
_LATIN_WORD = re.compile(r"[A-Za-z0-9][\w'’:-]*")
# (words before a kind that tell no other one: "my new class", "the usual class")
_NOT_WHICH = frozenset({"new", "old", "next", "first", "last", "current", "usual", "regular", "weekly", "daily",
                        "same", "own", "nice", "great", "good", "whole", "entire", "default", "normal", "standard",
                        "typical", "favourite", "favorite", "go-to", "main", "everyday", "preferred",
                        # (a pronoun is one asked of: "she swims with Aquakids now" for "Which club does my daughter
                        # swim with?")
                        "she", "he", "they", "we", "you", "it", "his", "her", "their", "its", "our", "your", "my"})


@lru_cache(maxsize=1024)
def phrases_of(query: str) -> tuple[tuple[str, str], ...]:
    """The question's two-word phrases: two content words next to each other (English, as stems), or two
    of its words of two characters each (Chinese, as written)."""
    out: list[tuple[str, str]] = []
    for run in CJK_RUN_RE.findall(query):
        words = {w for w in content_words(run, matching=True) if len(w) == 2}
        out += [(run[i:i + 2], run[i + 2:i + 4]) for i in range(len(run) - 3)
                if run[i:i + 2] in words and run[i + 2:i + 4] in words
                and not (_ASKING_CHARS & set(run[i:i + 4]))]
    prev = None
    for m in _LATIN_WORD.finditer(CJK_RUN_RE.sub(" . ", query)):
        low = m.group(0).lower().replace("’", "'")
        gap = query[m.start() - 1:m.start()] if m.start() else ""
        if len(low) < 3 or low in STOP_WORDS or "'" in low or not low[0].isalpha():
            prev = None
            continue
        word = stem(low)
        if prev is not None and gap == " ":
            out.append((prev, word))
        prev = word
    return tuple(out)


def _part_of_a_phrase(later: str, earlier: str, phrases: tuple[tuple[str, str], ...]) -> bool:
    """Whether ``later`` names the kind of a phrase of the question (its second word) with another word
    before it telling which, and not the first word, where ``earlier`` names the first (:func:`phrases_of`):
    "the 7am class" after "Japanese class", 补习班老师 after "周老师…学琴" for 钢琴老师. (A character of the
    first word is the thing asked in a Chinese line: 学琴 of 钢琴.)"""
    if not phrases or _names(earlier) & _names(later):
        return False  # (one name in both is one thing: "Mara's evening class moved to 7pm" after "Yoga with Mara")
    lb = la = words = None  # (the Latin words of each line, read once, and only for an English phrase)
    for x, y in phrases:
        if x[0] >= _WIDE:
            if any(ch in earlier for ch in x) and not any(ch in later for ch in x) and any(
                    m.start() and later[m.start() - 1] in _HEAD_CHARS and not _TIME_CHARS & set(later[max(0, m.start() - 3):m.start() - 1])
                    for m in re.finditer(y, later)):
                return True
            continue
        if lb is None:
            lb, la = _stems_of(earlier), _stems_of(later)
            words = [w.lower() for w in _LATIN_WORD.findall(later)]
        if not _asks(x, lb) or _asks(x, la):
            continue
        for i in range(1, len(words)):
            before = words[i - 1]
            # (a word the earlier line says of it too tells no other one: "my Tuesday class" after "Yoga is on
            # Tuesdays")
            if _asks(stem(words[i]), frozenset({y})) and before not in STOP_WORDS and before not in _NOT_WHICH \
                    and "'" not in before and not _asks(stem(before), frozenset({x})) and not _asks(stem(before), lb):
                return True
    return False


# (a class of a time of the week or the day is the one asked at another time: 周末班, 晚班, 暑假班)
_TIME_CHARS = frozenset("周末早晚午夜假日天")


def _stems_of(text: str) -> frozenset[str]:
    return frozenset(w for w in content_words(text, matching=True) if w.isascii())


def answers_alike(later: str, earlier: str, asked: frozenset[str], ratio: float = 1.0,
                  focus: tuple[str, ...] = (), close: float = CLOSE_RATIO, amount: bool = False,
                  linked: bool = False, when: bool = False, phrases: tuple = (), whom: bool = False,
                  where: bool = False) -> bool:
    """Whether ``later`` says the fact now of what ``earlier`` said, both found as answers to one
    question whose subject words are ``asked``, the later one's score ``ratio`` of the earlier's
    (see the text above :data:`ANSWERS`); ``focus``: the words naming what a "which" question asks
    for (text/focus.py), of which the later must name one when the earlier does ("我们搬家了，现在住在
    杭州西湖区" names no 酒店 of "你还记得我们在杭州最后订的是哪家酒店吗？"); ``amount``: the question asks
    how much or how many (:func:`asks_amount`), so the numbers compared are amounts, the later must say
    one of the thing (:func:`_an_amount_of_it`), and another beside a name, said as a change, answers it;
    ``linked``: both name a facet of life the question names (text/facets.py: "Hartwell Drugs has all my
    refills now" and "my prescriptions filled at the CVS" for "Which pharmacy do I use?"), which stands
    for a shared word of the question, with no closer score asked of the later one than of any pair (the
    facet is the question's own); ``when``: the question asks when (:func:`asks_when`), so a name of the
    earlier one said again beside another time said as a change is no value said again (the other
    tests stand); ``phrases``: the question's two-word phrases (:func:`phrases_of`), whose kind the later
    may not name as another of it where the earlier names the one asked (:func:`_part_of_a_phrase`);
    ``whom``: the question asks who (:func:`_change_elsewhere`); ``where``: it asks where, so a value of the
    earlier one said again as moved to another place is news of where."""
    said = _two_statements(later, earlier)
    if said is None or _not_now(said[0]):  # (hearsay, a while, long ago, a change denied, one more beside)
        return False
    a, b = said
    if focus and names_focus(b, focus) and not names_focus(a, focus) and not linked:
        return False
    if phrases and not linked and _part_of_a_phrase(a, b, phrases) or _another_subject(a, b, asked):
        return False
    keyed = _across(a, b)
    fa, fb = _owner_facts(later, a, keyed), _owner_facts(earlier, b, keyed)
    if keyed and whom and _change_elsewhere(a, asked):  # (across languages, a word in common is a weaker link)
        return False
    if fa[0] <= fb[0] and fa[1] <= fb[1]:
        return False  # nothing the earlier one did not say
    # the numbers compared: for a question asking how much, its amounts (not "due on the 1st", 15号交),
    # which the later one must say (:func:`_an_amount_of_it`)
    na, nb = (_amounts(a), _amounts(b)) if amount else (fa[1], fb[1])
    if amount and not _an_amount_of_it(a, b, asked):
        return False
    if not _says_change(a) and not (na and nb and na != nb):
        return False
    # someone else's news is no change of the owner's fact: "My friend Dana's rent went up to $2,600"
    # after "My rent is $2,100", "我老婆现在在阿里上班" after "我在腾讯上班" (one of the owner's people the
    # earlier one does not name), "My neighbor just sold his Honda Civic"
    # (a pronoun says nothing here: "The studio shuffled their timetable, yoga is Saturday mornings now")
    if _others_news(fa, fb, a, b, asked) or _their_thing(a, b, asked) or _named_news(a, b, asked):
        return False
    # what they share, without a time or a word of change (改到 in "周会现在改到5楼" and "游泳课改到周六")
    # (and one word of the question in both: 会议 of 会议室 is not the 会议 of another matter)
    # (nor a word one of them holds only as a landmark or as a deed done: "5 min from work", "the little
    # place near work" and "usually before work" are about no work; "we booked Kyoto" about no book club)
    shared = frozenset(w for w in (fa[0] & fb[0]) - _ANY_TOPIC if not _says_change(w) and _one_word(w, asked, a, b)
                       and not (w.isascii() and (_held_aside(a, w) or _held_aside(b, w) or _done(a, w) != _done(b, w))))
    # A name of the earlier one said again (not one the question asks about) is its value spoken of
    # again: the later must say it was left ("Sold the Civic last week" after "I drive a grey Honda
    # Civic", "李大夫退休了", "Cancelled the Hilton for Boston"); a line that only speaks of it ("Dr.
    # Patel moved her office", "Xfinity raised our bill", "招商银行的App改版了") changes nothing of it.
    # (a Chinese word of three characters or more: 李大 + 大夫; a character alone, 去 of 年假去哪儿玩 or
    # 儿 of 女儿 and 儿子, names nothing)
    # (a word naming the facet that links them is no value said again: "CPA" in "my accountant is Linda
    # Marsh, CPA" and "my sister referred me to her CPA, Raj Patel — he's handling my return")
    again = frozenset(w for w in shared if not _asks(w, asked) and not (linked and facets_of(w)))
    named = bool(again & _names(b)) or _size(frozenset(w for w in again if w[0] >= _WIDE) - _RELATION_WORDS) >= 1
    # (unless the two say other numbers of what the question asks, the name beside it: "Amsel gave me an
    # extension, the draft isn't due until April 2" after "my thesis draft is due to Professor Amsel on
    # March 14", for "When is my thesis draft due?"; or a question asking how much, whose answer is the
    # number beside the name: "Tidal is going up to $12.99/mo" after "I pay $10.99 a month for Tidal",
    # said as a change: "万科城的物业费是每平米3块5" is another number beside the name, of another thing)
    renumbered = na and nb and na != nb and (any(_asks(w, asked) for w in shared) or amount and _says_change(a))
    # (or, for a question asking when, another time said as a change: "厨余垃圾改成每天晚上七点到九点收了"
    # after "小区厨余垃圾是每周二和周五收", whose 厨余 is no value said again)
    renumbered = renumbered or when and _says_change(a) and _other_time(a, b)
    # (or, for a question asking where, the value itself said to have moved: "琴行搬到龙湖天街了，课还是周四晚上"
    # after "在万达那边的琴行", for "我尤克里里在哪上课？"; fresh update set 9)
    if named and not renumbered and not _left_said(a) and not (where and _MOVED_TO.search(a)):
        return False
    if named and again & _moved_from(b):
        # (nor is a name the earlier one already moved away from: "Finally cancelled the old Chase credit
        # card too" after "Moved my checking from Chase to Ally Bank")
        return False
    # Or both are about what the question asks: a shared word of it (or of its stem: "insures",
    # "insurance"; in Chinese a shared word one of whose characters is of the question's words: 猫粮
    # for 什么牌子的粮). One of the owner's people is what both are about only when the earlier holds
    # nothing else of the question ("我爸妈住在老家洛阳", "爸妈…去苏州养老" for "我爸妈现在住在哪个城市？"):
    # "儿子的游泳课改到周六" and "儿子周末在新东方上英语课" are both the son's, and only one is his English
    # class. A later one holding less than half of the question's words the earlier holds must rank
    # nearly as high ("Cancelled the Hilton for Boston" holds one of "Where am I staying for the Boston
    # conference?").
    chars = _asked_chars(asked)
    held = frozenset(w for w in fb[0] if _asks(w, asked))
    people = all(_a_person(w) for w in held)
    if people and held and not (linked and any(facets_of(w) for w in held)) \
            and any(_asks(w, asked) and not _a_person(w) for w in fa[0] - fb[0]):
        # (an earlier one holding only the person is no answer the later one could change when the later
        # holds what the question asks of them: "儿子在实验小学读三年级" and "儿子的游泳课改到周六上午十点了"
        # for "儿子的游泳课是什么时候？"; unless the person is the facet asked: "我直属领导是王建国" and "我现在直接
        # 汇报给赵磊" for "我现在的领导是谁？")
        return False
    if any((people or w not in _RELATION_WORDS) and (_asks(w, asked) or any(ch in chars and ch not in _ASKING_CHARS
                                                                              for ch in w))
           for w in shared):
        return linked or ratio >= close or 2 * _extent(held & fa[0]) > _extent(held)
    return named or linked


# A statement the owner ends with a question to the assistant is a statement still: "we only have Netflix
# rn, is there anything good on there for a rainy sunday?", "Theo's piano teacher Mrs. Albright said he's
# ready for grade 2, so proud!! can you help me find a nice song?", "physio with Mark on thursday again,
# my knee is still clicking. is that bad?" (a fresh update set, updates_fresh_data_7.py, wrote five such
# lines; each was read as a question and no update of it was seen). The question is left off: the
# sentences after the statement that ask, or, in one sentence, its last clause when that begins as a
# question does ("is there…", "can you…", 有没有…, …吗). A line that only asks stays a question.
_ASKING_CLAUSE = re.compile(r"^(?:(?:so|and|but|also|btw|ok|oh)\s+)*(?:is|are|am|was|were|do|does|did|can|could|"
                            r"should|would|will|shall|any|anything|what|which|who|whom|how|where|when|why|"
                            r"have|has)\b|^(?:有没有|能不能|可不可以|是不是|要不要|怎么|什么|哪|请问|帮我)|吗[？?]*$|呢[？?]*$",
                            re.I)
# (a last clause asking how long, how much or when, after a statement: "…，多久要买一次？")
_ASKING_TAIL = re.compile(r"^(?:多久|多少钱|几[点号天次])[^，,]*[？?]$")
_CLAUSE_END = re.compile(r"(?<=[,，;；])\s*")


@lru_cache(maxsize=4096)
def _asking_off(said: str) -> str:
    """``said`` without the question it ends with, when a statement comes before it (see above)."""
    if not said.endswith(("?", "？")):
        return said
    starts = [0] + [m.end() for m in _SENTENCE_END.finditer(said) if 0 < m.end() < len(said)]
    k = len(starts)  # the sentences from starts[k] on are the question
    while k > 0 and said[starts[k - 1]:starts[k] if k < len(starts) else len(said)].rstrip().endswith(("?", "？")):
        k -= 1
    if 0 < k < len(starts):
        head = said[:starts[k]].rstrip()
        return said if _ASKING_CLAUSE.search(head) else head
    clauses = [x for x in _CLAUSE_END.split(said) if x.strip()]
    last = clauses[-1].strip() if clauses else ""
    if len(starts) == 1 and len(clauses) > 1 and (_ASKING_CLAUSE.search(last) or _ASKING_TAIL.match(last)) \
            and not _ASKING_CLAUSE.search(clauses[0].strip()):
        return "".join(clauses[:-1]).rstrip(" ,，;；")
    return said


def _another_subject(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """Whether ``later`` is of another lesson or subject (text/bilingual.py ``SUBJECTS``), or of another
    doctor's part of medicine (``SPECIALTIES``), than the one the question (its words ``asked``) and the
    earlier line name: "我换了新的数学老师" is no news of "My Chinese teacher is Ms Wang", for "Who's my
    Chinese teacher?" (a fresh-eyes review's case; in either language). An earlier line naming no subject
    is of the one asked: "had my first lesson with my new guitar teacher Sam" is no news of "had my first
    lesson with Tomasz", for "Who teaches my piano lessons now?"."""
    wanted = asked & SUBJECTS
    if wanted:
        said = SUBJECTS.intersection(keys_in(later).values())
        # (the earlier line's subjects read only where the later names another: most pairs stop before)
        if said and not said & wanted and ((held := SUBJECTS.intersection(keys_in(earlier).values())) & wanted
                                           or not held):
            # (where it says a change, of another subject: "开学换了新班主任周老师" for "我的吉他老师是谁？"; not
            # "闺女现在跟着周老师学琴…对了她们班主任也换了", whose first clause tells of the piano)
            # (the first clause saying a change names the other subject: "Emma's dance teacher changed to Miss
            # Tara, the old one moved away", "数学网课的老师换了，现在是一个北师大的研究生")
            first = next((c for c in _CLAUSE.split(later) if c.strip() and _says_change_or_took_up(c)), None)
            if first is None or SUBJECTS.intersection(keys_in(first).values()):
                return True
    # (and a doctor of another part of medicine than the one asked, or than one's doctor: "Got referred to a
    # new dermatologist, Dr. Nguyen" is no news of "My primary care doctor is Dr. Patel"; "Started seeing a new
    # physiotherapist" none of "My dentist is Dr. Patel")
    wanted = asked & (SPECIALTIES | {DOCTOR})
    if not wanted:
        return False
    held = frozenset(keys_in(earlier).values())
    named = frozenset(keys_in(later).values())
    said = SPECIALTIES & named
    # (a line naming the doctor asked as well is of that doctor: "Got a new family doctor, Dr. Kim, and she's
    # already sending me to a cardiologist"; in Chinese 医生 names every doctor, 家庭医生 or 全科 the one's own)
    asked_too = named & (wanted | held) - ({DOCTOR} if has_cjk(later) and not facets_named(later, _GP) else set())
    # (and one whose earlier value is said to have left changes it: "王医生退休了，现在找骨科转过来的李医生看病")
    return bool(said) and not said & (wanted | held) and bool(wanted & held) and not asked_too \
        and not _name_left(later, earlier) and not _gone_before(later, earlier)


def _gone_before(later: str, earlier: str) -> bool:
    """Whether ``later`` says gone (:data:`_GONE`) right after two characters ``earlier`` holds too: the
    earlier line's value left, in Chinese ("王医生退休了" after "我一般找协和的王医生看病")."""
    return any(later[i:i + 2] in earlier for m in _GONE.finditer(later)
               for i in range(max(0, m.start() - 4), m.start() - 1) if has_cjk(later[i:i + 2]))


_GP = frozenset({"doctor"})  # (text/facets.py: one's own doctor, 家庭医生, 全科, "primary care")


def _change_elsewhere(said: str, asked: frozenset[str]) -> bool:
    """For a question asking who: whether what the owner ``said`` names what the question asks (its
    words ``asked``) in one clause and says a change only in others, of no word of it and naming no one:
    "房东来修了水管，顺便把网换成了电信" changes the internet, not the landlord of "Who's my landlord?". Read
    only across languages: in one language the clause after may go on of the same thing
    ("爸妈退休后决定去苏州养老，上周刚把家搬完"), and the rules read their words as before."""
    clauses = [c for c in _CLAUSE.split(said) if c.strip()]
    if len(clauses) < 2:
        return False
    asks = [any(_asks(w, asked) for w in _subject(c, keyed=True)) for c in clauses]
    changes = [_says_change(c) for c in clauses]
    return any(changes) and not any(x and y for x, y in zip(asks, changes)) \
        and any(x and not y for x, y in zip(asks, changes)) \
        and not any(y and _SOMEONE_NAMED.search(c) for c, y in zip(clauses, changes))


# someone named: a capitalised word but the first, or in Chinese by a title (王先生, 李老师, 姓张)
_SOMEONE_NAMED = re.compile(r"(?<=\S\s)(?!I['’]|I\b)[A-Z][a-z]|[\u4e00-\u9fff](?:先生|女士|老师|医生|大夫|师傅|阿姨)|姓[\u4e00-\u9fff]")
_ASKS_WHO = re.compile(r"\bwho(?:['’]s|m|se)?\b|谁", re.I)
_ASKS_WHERE = re.compile(r"\bwhere\b|在哪|去哪|哪里|哪儿|什么地方", re.I)
# a place said to have moved ("the studio moved to Elm St", 琴行搬到龙湖天街了)
_MOVED_TO = re.compile(r"\b(?:moved|relocated)\s+(?:(?:its|their|his|her|the)\s+\w+\s+)?(?:over\s+|across\s+)?to\b"
                       r"|搬到|搬去|迁到|挪到", re.I)


def _two_statements(later: str, earlier: str) -> tuple[str, str] | None:
    """What the owner said in each of two answers (a promoted entry's notes left out), when both are
    statements, differ, and the later is no wish: the pair the readings of two answers judge."""
    a, b = _asking_off(_owner_said(_facts(later)[2])), _asking_off(_owner_said(_facts(earlier)[2]))
    if not a or not b or a.endswith(("?", "？")) or b.endswith(("?", "？")) or a == b or _WISH.search(a):
        return None
    return a, b


# a question asking how much or how many of something holds now ("How much am I paying for music
# streaming?", "我每个月给我爸多少生活费？", "What percent of my salary goes into my 401k?"): its answer is a number
_AMOUNT = re.compile(r"\bhow\s+(?:much|many)\b|\bwhat\s+(?:percent(?:age)?|share|rate)\b|多少|百分之几|几成", re.I)


def asks_amount(query: str) -> bool:
    return _AMOUNT.search(query) is not None


# a number that says when or which, not how much: an ordinal, a day, an hour, a month, a year
# (nor a code or a number that names one thing: "My gym locker code is 3318", "PIN 4471", "room 214",
# 密码是, 车位号218)
_NOT_AMOUNT = re.compile(r"\d+\s*(?:st|nd|rd|th)\b|\d+\s*(?:号|日|点|月|年|时)|\d{1,2}:\d{2}|\b\d+\s*(?:am|pm)\b"
                         r"|\b(?:code|pin|passcode|password|combination|number|no\.|room|flat|unit|locker|ext\.?)"
                         r"(?:\s+(?:is|was|=|:))?\s*#?\s*\d+|#\s*\d+"
                         r"|(?:密码|编号|号码|车位号|门牌号?|房间号?|柜号)(?:是|为|：|:)?\s*\d+", re.I)
# a charge, a sum paid back or taken off, another thing paid for beside it (a parking spot, 车位, the
# utilities, 水电): another amount than a price or a rent (not storage or a garage: "the 2TB storage
# plan, $9.99 a month now" is the iCloud price, "the garage on Elm" a mechanic)
_CHARGE = re.compile(r"\b(?:fees?|deposits?|fines?|tips?|tax(?:es)?|surcharges?|penalt(?:y|ies)|refunds?|cashback|"
                     r"rebates?|discounts?|coupons?|copays?|co-pays?|parking|utilities)\b|[\u4e00-\u9fff]费|押金|罚款|"
                     r"报销|退款|返现|优惠|折扣|补贴|车位|停车|水电", re.I)


@lru_cache(maxsize=4096)
def _amounts(text: str) -> frozenset[str]:
    """The numbers of ``text`` that may say how much (:data:`_NOT_AMOUNT` left out), and each amount
    said with a Chinese unit as its value ("两万六", "2万8" and "三千五" as 26000, 28000 and 3500: a raise
    from 两万二 to 两万六 is one of 22000 to 26000, not of the digits written)."""
    said = _NOT_AMOUNT.sub(" ", text)
    found = numbers(said)
    if has_cjk(said):
        found |= frozenset(f"{v:g}" for m in _ZH_AMOUNT.finditer(said) if (v := zh_value(m.group(0))))
        # (a dose counted in pills, drops or spoonfuls: 半片, 一片, 两粒; with its measure, so 一片 is no 1 of another
        # thing)
        found |= frozenset(f"{_dose(m):g}{m.group(3)}" for m in _ZH_DOSE.finditer(said))
    return found


# (a count, 两片; a fraction, 三分之一片; and a half more, 一片半)
_ZH_DOSE = re.compile(r"(?:([一二两三四五六七八九十]|\d+)分之)?(半|[一二两三四五六七八九十]|\d+(?:\.\d+)?)(?:个|整)?"
                      r"(片|粒|颗|丸|滴|勺|袋|支)(半)?")


def _dose(m: re.Match) -> float:
    """The value of a dose :data:`_ZH_DOSE` found."""
    n = _ZH_SMALL.get(m.group(2)) or float(m.group(2))
    if m.group(1):
        n = n / (_ZH_SMALL.get(m.group(1)) or float(m.group(1)) or 1)
    return n + (0.5 if m.group(4) else 0)


_ZH_SMALL = {**ZH_DIGITS, "半": 0.5, "十": 10}  # (a dose's count: :data:`_ZH_DOSE`)
# an amount with a unit of a hundred or more in it (a digit or 十 alone is as often a day or a count:
# 十五号, 一个月); Arabic digits may stand for the Chinese ones (2万8, 1.2万, 3千5)
_ZH_AMOUNT = re.compile(r"(?:\d+(?:\.\d+)?|[零〇一二两三四五六七八九十])[\d零〇一二两三四五六七八九十]*"
                        r"[百千万][\d零〇一二两三四五六七八九十百千万]*")


# a question asking when ("When is the Hollis rebrand launch?", 食堂几点开饭, 面试是哪天): its answer is a time
# (not "when" as a conjunction, "When I travel, which airline…", nor "what time management techniques";
# not 几号线, 几号楼, 哪几点)
_ASKS_WHEN = re.compile(
    r"\bwhen(?:['’]s\b|\s+(?:is|are|was|were|do|does|did|will|would|should|can|am|has|have)\b)"
    r"|\bwhat\s+(?:time|day|date|days|night|month)"
    r"(?=['’]s|\s+(?:do|does|did|is|are|was|were|will|would|should|can|am|of)\b|\s*\?|\s*$)"
    r"|\bwhat(?:['’]s|\s+is)\s+the\s+(?:time|date|day)\b"
    r"|\bwhich\s+(?:day|date|night|month)s?\b|\bhow\s+(?:early|late|often)\b"
    r"|(?<!哪)几点|什么时候|什么时间|哪天|哪一天|几号(?![楼线门床房位座])|星期几|周几|礼拜几|几月|哪个月|几时"
    r"|多久[^，。？?]{0,6}一次",
    re.I)
_NUM_ZH = "一二两三四五六七八九十"
# a time said: a clock time, a day of the week or of the month, a part of the day, a shift, a
# frequency; not a price by the month, a speed or a temperature "at 30", the year 2000 of "2000 yen",
# 好吃了一点, 第一次, 一年级, 三周岁
_A_TIME = re.compile(
    r"\d{1,2}:\d{2}|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\bat\s+\d{1,2}(?:[.:]\d{2})?\b(?!\s*(?:%|percent|dollars|bucks|people|pages?|mph|kph|km|miles|degrees|°|kg|"
    r"lbs?|pounds|years?))"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:mon|tue|tues|thu|thur|thurs|fri)\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b(?!\s+(?:floor|grade|street|st|avenue|ave|place|row|level|round|time|year|"
    r"century|opinion|visit|birthday|anniversary))"
    r"|\b(?:noon|midnight|tonight|tomorrow|weekends?|afternoons?|evenings?|nights?)\b|(?<!good\s)\bmornings?\b"
    r"|\b(?:daily|weekly|monthly)\b(?!\s+(?:fees?|price|prices|rate|rates|subscription|plan|budget|rent|payments?|"
    r"allowance|limit|salary|mileage|cap|bill|cost|dues))"
    r"|\b(?:next|this|every|each)\s+(?:week|month|year|term|quarter|day)\b"
    r"|(?<![$¥€£])\b(?:19|20)\d{2}\b(?!\s*(?:yen|dollars|bucks|rmb|calories|cal|kcal|steps|words|pages|mg|ml|km|miles|"
    r"ft|feet|meters|sq))"
    r"|\b(?:a|an|one|two|three|four|five|six|half\s+an?|\d+)\s+(?:minutes?|hours?|days?|weeks?|months?)\s+"
    r"(?:later|earlier|sooner|from\s+now)\b|\b(?:back|up|forward|out|ahead)\s+(?:by\s+)?(?:a|an|one|two|three|four|"
    r"five|six|half\s+an?|\d+)\s+(?:minutes?|hours?|days?|weeks?|months?)\b"
    r"|\b(?:end|start|beginning|middle|mid)\s+of\s+(?:the\s+)?(?:week|month|year|quarter|term|semester)\b"
    r"|\b(?:after|before|until|till)\s+(?:christmas|thanksgiving|easter|new\s+year|the\s+holidays)\b"
    r"|\b(?:once|twice|three\s+times|\d+\s+times)\s+a\s+(?:day|week|month)\b"
    r"|每?(?:周|星期|礼拜)[一二三四五六日天末]"  # (每周二 whole: 每周 alone would hide 周二 of 每周二晚上七点)
    # (how often: 一周三次, 每天两次)
    r"|(?:每|[\d" + _NUM_ZH + r"]*)\s*个?(?:周|天|月|星期|礼拜)[\d" + _NUM_ZH + r"]+次"
    r"|(?:\d{1,2}\s*|[两二三四五六七八九十][一二]?|(?<=上午|下午|凌晨|中午|晚上|早上)一"
    r"|一(?=点(?:半|钟|多|前|后|左右|到|开始|以后|之前|整)))点(?:半|钟|一刻|三刻|[\d" + _NUM_ZH + r"]+分?)?"
    r"|[\d" + _NUM_ZH + r"]+\s*(?:号(?![楼线门床房位座])|日(?![元本])|月(?![薪费卡租票饼])|周(?![岁年])"
    r"|年(?![级纪薪费卡]))"
    r"|[\d" + _NUM_ZH + r"半]+\s*个?(?:小时|分钟|天|星期|礼拜|月)(?:后|以后|之后|前|左右)?"
    r"|上午|下午|晚上|早上|中午|傍晚|凌晨|明天|后天|下下?周|下个?月|月底|月初|年底|每天|每周|每月|周末|春节|国庆",
    re.I)
_TIME_SPACES = re.compile(r"^at\s+|[\s.]")


@lru_cache(maxsize=4096)
def _times(text: str) -> frozenset[str]:
    """The times ``text`` says (:data:`_A_TIME`), written alike ("6 p.m." and "6pm", "at 7:40" and "7:40")."""
    return frozenset(_TIME_SPACES.sub("", m.group(0).lower()) for m in _A_TIME.finditer(text))


# how often ("每月", "twice a week", 一周三次; not 每周二, a day); by the month, as a sum is said
_BY_THE_MONTH = frozenset({"每月", "每个月", "monthly", "everymonth", "eachmonth"})
_HOW_OFTEN = re.compile(r"^(?:每(?:个?月|天|日|周|星期|礼拜|年)|daily|weekly|monthly|(?:every|each)(?:day|week|month|year|"
                        r"term|quarter)|.*(?:aday|aweek|amonth)|.*[周天月]\S*次)$")


def _new_time(later: str, earlier: str) -> bool:
    """Whether ``later`` says a time ``earlier`` does not ("still on thursdays" says none); where the
    earlier says when but not how often, "by the month" beside a sum is no other time of it: "现在每月2150"
    changes no pay day "每个月10号" (fresh update set 8); "we go daily now" is news of "on Tuesdays"."""
    new = _times(later) - _times(earlier)
    before = _times(earlier)
    if new and before and new <= _BY_THE_MONTH and _amounts(later) \
            and not any(_HOW_OFTEN.match(t) for t in before):
        return False  # (a sum by the month: 现在每月2150)
    return bool(new)


# a time a price moves from, or the span it is for: "going up to $120 a month from next month", 现在一个月800
_FROM_OR_FOR = re.compile(r"^(?:next|this)(?:week|month|year|term|quarter)$|^(?:下个?月|下周|下星期|下礼拜|本月|这个?月"
                          r"|本周|这周)$|^[一1]个?(?:月|星期|礼拜|周)$")


def _a_price_from(later: str, earlier: str) -> bool:
    """For a question asking when: whether ``later`` says a price moved (as :func:`_priced` reads it, the
    earlier's times no price) and no other time than one it moves from or is for ("yoga's going up to $120 a month from next month" is no news
    of "Yoga class is Tuesday and Thursday evenings at 7", for "Which days do I have yoga?": a fresh-eyes
    review's case)."""
    # (the earlier's numbers that are its times are no price: "evenings at 7")
    return _priced(later, earlier, _times(earlier)) \
        and all(_FROM_OR_FOR.search(t) for t in _times(later) - _times(earlier))


def _other_time(later: str, earlier: str) -> bool:
    """Whether both say a time and the later says one the earlier does not."""
    return bool(_times(earlier)) and _new_time(later, earlier)


def asks_when(query: str) -> bool:
    """Whether a question asks when, at what time or how often ("What time is the weekly team sync?",
    周会几点开？): its answer is a time."""
    return _ASKS_WHEN.search(query) is not None


# a question asking which day (not at what time), and a time of the day said (a clock time, a part of the day,
# a span of hours): "最近改成5点50起了" tells no day of "体检改到3月15号了", for "我的体检是哪天？"
_ASKS_DAY = re.compile(r"\bwhat\s+(?:day|date)s?\b|\bwhich\s+(?:day|date)s?\b|\bwhat(?:['’]s|\s+is)\s+the\s+(?:date|day)\b"
                       r"|哪天|哪一天|几号(?![楼线门床房位座])|星期几|周几|礼拜几|几月几|哪个月|什么日子", re.I)
_OF_THE_DAY = re.compile(r"^\d{1,2}$|\d:\d|\d(?:am|pm|a\.m\.|p\.m\.)$|^at\d|点|小时|分钟|minute|hour|^(?:noon|midnight|tonight|"
                         r"afternoons?|evenings?|nights?|mornings?|上午|下午|晚上|早上|中午|傍晚|凌晨)$")


def asks_day(query: str) -> bool:
    """Whether a question asks which day or date (its answer a day, not a time of the day)."""
    return _ASKS_DAY.search(query) is not None


def _a_day_anew(later: str, earlier: str) -> bool:
    """Whether ``later`` says a time ``earlier`` does not that is more than a time of the day (a day, a date,
    how often): what a later line of the same thing must say for a question asking which day."""
    return any(not _OF_THE_DAY.search(t) for t in _times(later) - _times(earlier))


def _a_time_of_it(later: str, earlier: str) -> bool:
    """For a question asking when (:func:`asks_when`): whether ``later`` may say another time of what
    ``earlier`` says: a time the earlier does not say, where the earlier says one. A change of the same
    thing that says no new time is of something else: "cafeteria switched vendors" after "the cafeteria
    opens for lunch at 11:30", "team sync moved to conference room 3B", "yoga moved to studio B, still on
    thursdays", 食堂二楼换了新的承包商, 英语课换了教室; a review wrote 30 such traps blind, of which the
    order took 21 or 22 before this test."""
    return not _times(earlier) or _new_time(later, earlier)


def _time_anew(later: str, earlier: str) -> bool:
    """For a question asking when, of a later line only the second model links to the first: whether it
    says a time, and another than the first's (:func:`_a_time_of_it`). Where the words link two lines a
    change said without a time may be the news ("the delivery got pushed back"); a line only near in
    matter that says no time is of something else ("Installed a new shelf in the hallway for shoes"
    after "Ordered a standing desk from Fjordline; delivery expected in two weeks", for "When is the new
    desk arriving?")."""
    return bool(_times(later)) and _a_time_of_it(later, earlier)


def _an_amount_of_it(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """For a question asking how much: whether ``later`` may say another amount of what ``earlier``
    says, an amount (:func:`_amounts`) where the earlier says one ("Rent is due on the 3rd from now on"
    says none) and no charge (:data:`_CHARGE`) that neither the earlier nor the question (its words
    ``asked``) names ("a $15 towel fee" for "how much is my gym membership", 要交200教材费, "$120 back
    as a refund")."""
    if _amounts(earlier) and not _amounts(later):
        return False
    low_b = earlier.lower()
    return not any(m.group(0).lower() not in low_b and not _asked_word(m.group(0), asked)
                   for m in _CHARGE.finditer(later))


# a place named only to say where something else is, or when: "near work", "5 min from work", "before
# work" (not "from" of a move: "switched from Farrow to Kim" names the value left)
_LANDMARK = re.compile(r"\b(?:before|after|near|close\s+to|next\s+to|outside|behind|"
                       r"(?:\d+|a|an|few)\s*(?:min(?:ute)?s?|blocks?|miles?|km|hours?|steps?)\s+(?:away\s+)?from|"
                       r"(?:walk|drive|ride)\s+from)\s+(?:(?:the|my|our)\s+)?([a-z]+)\b", re.I)
_WORD = re.compile(r"[a-z][a-z'-]+")


@lru_cache(maxsize=8192)
def _forms(text: str) -> tuple[tuple[str, str], ...]:
    """(stem, form) of each Latin word of ``text`` as written, lower case."""
    return tuple((stem(w), w) for w in _WORD.findall(text.lower()))


@lru_cache(maxsize=4096)
def _landmarks(text: str) -> tuple[str, ...]:
    """The stems of the words ``text`` names as landmarks (:data:`_LANDMARK`), once per text."""
    return tuple(stem(m.group(1).lower()) for m in _LANDMARK.finditer(text))


def _held_aside(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word`` (a stem) only as a landmark (:data:`_LANDMARK`)."""
    aside = _landmarks(text).count(word)
    return aside > 0 and sum(1 for s, _ in _forms(text) if s == word) <= aside


def _done(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word`` (a stem) only as a past deed ("booked", "ordered")."""
    forms = [f for s, f in _forms(text) if s == word]
    return bool(forms) and all(f.endswith("ed") for f in forms)


def _others_news(fa: tuple, fb: tuple, a: str, b: str, asked: frozenset[str] = frozenset()) -> bool:
    """Whether the later text ``a`` (its facts ``fa``) names one of the owner's people the earlier ``b``
    does not: by relation among its subject words, or as people say them short (我爸把朗逸卖了). Not the
    one a question asks who is, said new (:func:`_the_new_one`): "新室友是个程序员，叫李航" is the answer to
    "我的室友是谁？"."""
    # (one person in either language is one: "Bumped Dad's monthly allowance" after 我每个月给我爸…; and
    # someone else's person is none of the owner's: "her friend Brooke is watching the kids", read
    # without them, so that "my friend Dana" beside them still counts)
    mine = frozenset(map(kin, people_in(b) | (fb[0] & _RELATION_WORDS)))
    own = _CARED_FOR.sub(" ", _RECOMMENDED.sub(" ", _THEIR_PERSON.sub(" ", _passed_on(a))))
    if own != a:
        fa = _facts(own)
    return any(not _among(kin(w), mine) and not _the_new_one(w, own, asked) for w in (fa[0] & _RELATION_WORDS) - fb[0]) \
        or any(not _among(kin(p), mine) and not _the_new_one(p, own, asked) for p in people_in(own) - people_in(b))


def _the_new_one(person: str, said: str, asked: frozenset[str]) -> bool:
    """Whether ``person`` is the one the question asks who is, said new in ``said`` ("新室友是个程序员",
    "my new flatmate is Priya"): the answer, not someone else ("Greg, my old boss from Acme, just got
    promoted")."""
    return _asks(person, asked) and re.search(rf"(?:\bnew\s+|新的?){re.escape(person)}", said, re.I) is not None


# people said as a group and one of them: "the kids' new English tutor" is of 我儿子's, "Mum and Dad" of
# "my parents"
_GROUPS = {"kid": frozenset({"son", "daughter"}), "parents": frozenset({"father", "mother"})}


def _among(person: str, mine: frozenset[str]) -> bool:
    """Whether ``person`` (a :func:`kin` key) is one of ``mine``, or of a group of theirs, or a group one of them is of."""
    return person in mine or bool(_GROUPS.get(person, frozenset()) & mine) \
        or any(person in members and group in mine for group, members in _GROUPS.items())


# one of the owner's people who only recommended or introduced what the line says (朋友推荐的, "a friend
# referred me"): the change is still the owner's
_RECOMMENDED = re.compile(r"\b(?:(?:recommended|referred|suggested|introduced)\s+by\s+(?:my|a)\s+(?:" + RELATIONS_EN
                          + r")|(?:my|a)\s+(?:" + RELATIONS_EN + r")\s+(?:recommended|referred|suggested|introduced))\b"
                          r"|(?:" + RELATIONS_ZH + r")(?:推荐|介绍)(?:的|给我)", re.I)
# the owner's people someone looks after for them ("Brooke is watching the kids", 阿姨每天接孩子): whom a
# babysitter or a tutor serves, not whose news it is
_CARED_FOR = re.compile(r"\b(?:watch(?:es|ed|ing)?|mind(?:s|ed|ing)?|babysit(?:s|ting)?|tutor(?:s|ed|ing)?|"
                        r"(?:look(?:s|ed|ing)?|care(?:s|d)?)\s+(?:after|for)|tak(?:e|es|ing)\s+care\s+of|"
                        r"(?:pick(?:s|ed|ing)?|drop(?:s|ped|ping)?)\s+(?:up|off))\s+(?:the|my|our)\s+(?:"
                        + RELATIONS_EN + r")\b|(?:带|看|接送|接|送|照顾|辅导)(?:我们?家?的?)?(?:孩子|娃|儿子|女儿|宝宝)", re.I)
# one of the owner's people who only passes the news on, first in the line ("领导说周会提前了半小时", "my
# manager told us the sync moves to 9"): what follows is the owner's matter unless it is someone's
# (a pronoun: "我老婆说她公司搬到张江了")
_MESSENGER = re.compile(r"^\s*(?:(?:my|our|the)\s+)?(?:" + RELATIONS_EN + r")\s+(?:said|says|told\s+(?:me|us)|"
                        r"announced|emailed|texted|called)\b(?:\s+that)?[,:]?\s*"
                        r"|^\s*(?:我们?的?)?(?:" + RELATIONS_ZH + r")(?:说|通知|告诉我们?|发消息说|打电话说)[，,：:]?", re.I)
_THIRD = re.compile(r"\b(?:he|she|they|his|her|their|him|them)\b|[他她]", re.I)


@lru_cache(maxsize=4096)
def _passed_on(text: str) -> str:
    """``text`` without a messenger first in it (:data:`_MESSENGER`), when what follows is no one's."""
    rest = _MESSENGER.sub("", text, count=1)
    return rest if rest != text and not _THIRD.search(rest) else text


# one of someone else's people: "her friend", "his old partner", 她的朋友
_THEIR_PERSON = re.compile(r"\b(?:his|her|their)\s+(?:(?:old|new|former|best|business|own)\s+)?(?:" + RELATIONS_EN
                           + r")\b|[他她]们?的(?:" + RELATIONS_ZH + ")",
                           re.I)


# one of the owner's people owning the thing said next ("my sister's", "wife's", 我妈的, 老婆的), or
# doing what the line says, named first ("mom switched her doctor", 我妈换了个医生), or someone else's
# ("her husband switched dentists", 他儿子换了新牙医)
_THEIRS_SAID = re.compile(r"\b(?:" + RELATIONS_EN + r")['’]s\b|(?:" + RELATIONS_ZH + r")的|" + SHORT_ZH + "的"
                          r"|^(?:(?:my|our|his|her|their)\s+)?(?:" + RELATIONS_EN + r")\b"
                          r"|^(?:我们?的?|[他她]们?的?)?(?:" + RELATIONS_ZH + r")|^"
                          + SHORT_ZH, re.I)
# someone else's thing, said by a pronoun: "his rent", "her doctor", 他的房租
_THEIR_THING = re.compile(r"\b(?:his|her|their)\s+(?:own\s+|new\s+|old\s+)?([a-z]+)|[他她]们?的([\u4e00-\u9fff]{2})", re.I)


def _theirs(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """For the strict rule: whether ``later`` speaks of a thing of one of the owner's people the earlier
    does not name (said as theirs or as their doing: :data:`_THEIRS_SAID`), or holds the question's
    words (``asked``) only as someone else's (:func:`_their_thing`). (The pair rule reads the first
    part more widely: :func:`_others_news`.)"""
    said = _passed_on(_statement(later))
    if not OWNER.search(said):
        owners = frozenset().union(*(people_in(m.group(0)) for m in _THEIRS_SAID.finditer(said)))
        # (not one the question asks about: "女儿班主任换了，现在是王老师" for "女儿班主任是谁")
        if any(not frozenset(content_words(o, matching=True)) & asked for o in owners - people_in(earlier)):
            return True
    return _their_thing(later, earlier, asked)


def _their_thing(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """Whether ``later`` holds the question's words (``asked``) only as someone else's thing, said by a
    pronoun ("lent Jake $200 for his rent")."""
    # (a pronoun may be of one of the owner's people the earlier line or the question names: "her piano
    # tutor is Ms Ferreira now" after "My daughter's piano tutor is Mr Holt")
    said = _statement(later)
    theirs = [m.group(1) or m.group(2) for m in _THEIR_THING.finditer(said)]
    if not theirs or not asked or asked & _RELATION_WORDS or people_in(earlier):
        return False
    held = [w for w in content_words(said, matching=True) if _asks(w, asked)]
    return bool(held) and all(any(_asked_word(t, frozenset({w})) for t in theirs) for w in held)


_FROM_NAME = re.compile(r"\bfrom\s+(?:(?i:the|my|our|old)\s+)*([A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,2})"
                        r"|从([\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?:换|转|搬|跳槽|离职|调)")


@lru_cache(maxsize=4096)
def _moved_from(text: str) -> frozenset[str]:
    """The content words of what ``text`` says the owner moved away from ("switched from Chase to Ally",
    "从电信换到联通")."""
    return frozenset(w for m in _FROM_NAME.finditer(text) for w in content_words(m.group(1) or m.group(2),
                                                                                  matching=True))


_PERSON_STARTS = frozenset(w[0] for w in WORDS_ZH)


def _a_person(word: str) -> bool:
    """One of the owner's people as a subject word: "manager", 爸妈, or 我 before one (我爸 of 我爸妈)."""
    return word in _RELATION_WORDS or (len(word) == 2 and word[0] == "我" and word[1] in _PERSON_STARTS)


def _asked_word(word: str, asked: frozenset[str]) -> bool:
    """:func:`_asks` of a word as a text writes it (a Latin one stemmed as the question's words are)."""
    return _asks(stem(word.lower()) if word.isascii() else word, asked)


def _asks(word: str, asked: frozenset[str]) -> bool:
    """Whether a word is one of the question's, or of its stem ("insura" of "insurance", "insur" of
    "insures"), or names the same one of the owner's people (爸妈 of 父母, "mum" of "mother")."""
    return word in asked or (word.isascii() and len(word) >= 4 and any(
        len(q) >= 4 and q.isascii() and (word.startswith(q) or q.startswith(word)) for q in asked)) \
        or word in _RELATION_WORDS and kin(word) in _kin_asked(asked) \
        or not word.isascii() and key_of(word) in asked  # (a Chinese word of a question in English)


@lru_cache(maxsize=1024)
def _kin_asked(asked: frozenset[str]) -> frozenset[str]:
    """The people a question's words name, one key each however named (text/people.py ``kin``)."""
    return frozenset(kin(w) for w in asked if w in _RELATION_WORDS)


@lru_cache(maxsize=4096)
def _names(text: str) -> frozenset[str]:
    """The content words of ``text``'s capitalised words but its first (names: "Civic", "Jake")."""
    words = _CAPITALISED.findall(text)
    if words and text.startswith(words[0]):
        words = words[1:]
    # ("We're", "I'm", "She's" start sentences: no name)
    return frozenset(content_words(" ".join(w for w in words if not _PRONOUN_SAID.match(w)), matching=True))


def _whole_focus(query: str, focus: str) -> bool:
    """Whether a Chinese focus (text/focus.py reads two characters) is a word of the question, not
    the start of its next words (哪家酒店吗: 酒店; 哪家店剪头发: 店剪 is none)."""
    at = query.find(focus)
    after = query[at + len(focus):at + len(focus) + 1] if at >= 0 else ""
    return focus.isascii() or not after or not has_cjk(after) or after in "吗呢了的啊吧呀"


def updates(later: str, earlier: str, query: str = "") -> bool:
    """Whether ``later`` updates ``earlier`` (see the module text), found by a search for ``query``."""
    return _updates(_facts(later), _facts(earlier), _asked_of(query) if query else frozenset())


def _said_keys(when: tuple[str, int], words: str, text: str, cite) -> tuple:
    """What tells a statement once said wherever it shows (a note's line, the entry promoted from it):
    its day and words, and the line of the note it is or cites."""
    c = _CITED_NOTE.search(text) if "Source:" in text or "source=" in text else None
    if c is not None:
        line = _CITED.search(text)
        origin = (c.group(1), int(line.group(2))) if line else None
    else:
        origin = (str(cite).split("#", 1)[0], when[1])
    return ((when[0], _statement(words).casefold()),) + ((origin,) if origin else ())


def _statement(text: str) -> str:
    """A text's words without who said it or a list's dash: what two copies of one message share."""
    return " ".join(_SPEAKER.sub("", _BULLET.sub("", text, count=1)).split())


@lru_cache(maxsize=1)
def _kind_words() -> tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], object], ...]:
    """Each kind one has one of at a time (text/kinds.py ``ONE_AT_A_TIME``) as (its heads, its
    one-character heads, its members, the kind)."""
    from ..text.kinds import KIND_LIST, ONE_AT_A_TIME, one_character_heads

    return tuple((kind.heads, tuple(c for h in kind.heads for c in one_character_heads(h)), kind.members, kind)
                 for kind in KIND_LIST if kind.heads[0] in ONE_AT_A_TIME)


# what a question asks of the thing rather than which it is: its insurance, its plate, its keys, where
# it is parked, a connection's speed or password, a bill, opening hours, a loan with the bank; who insures
# it, services or fixes it ("picked up the keys to the Mazda CX-5" is no news of "car insurance is with
# Northgate", for "Who insures my car?"); the bus or train one rides (上班坐什么车)
_NOT_THE_THING = re.compile(
    r"\b(?:insurance|insurer|plates?|wash|parked|parking|keys?|licen[cs]e|registration|speed|password|bills?|outage|"
    r"open|opens|close|closes|closing|hours|number|mortgage|loan|coffee|park|best|fastest|cheapest|recommend\w*|"
    r"insur(?:es|ed|ing)|servic(?:es|ed|ing)|repair(?:s|ed|ing)?|fix(?:es|ed|ing)?)\b"
    r"|\b(?:boss|manager|supervisor)'s|(?:老板|领导|上司|经理)的(?!是)|保险|车险|车牌|车位|停在|停车|钥匙|密码|网速|到期|多少钱|几点|关门|开门|房贷|贷款|号码|咖啡"
    r"|(?:坐|乘|搭)(?:的是)?(?:什么|哪[路趟班辆个])车"
    r"|最好|最快|最便宜|推荐", re.I)


@lru_cache(maxsize=1024)
def kinds_asked(query: str) -> tuple[bool, ...]:
    """For each kind of :func:`_kind_words`: whether a question names it by a head where it means it
    ("What car do we drive now?", "我现在开的是什么车": 汽车; "Which bank do I use?", not "Is Monday a bank
    holiday?") and asks what it is, not how many (a count of cars owned counts both)."""
    from .counting import counts_instances

    if counts_instances(query) or _NOT_THE_THING.search(query):
        return tuple(False for _ in _kind_words())
    # someone else's ("What car does my sister drive now?", 我爸现在开的是什么车); one's boss, however named
    # (manager, supervisor, 上司), is the boss kind asked, and another kind named is the boss's ("What car
    # does my supervisor drive?")
    if _people_asked(query):
        return tuple(False for _ in _kind_words())
    asked = tuple(n and kind.asked_in(query) for n, (_, _, _, kind) in zip(_kinds_named(query), _kind_words()))
    if people_in(query) and any(a and heads[0] != "boss" for a, (heads, _, _, _) in zip(asked, _kind_words())):
        return tuple(False for _ in _kind_words())
    return asked


def _kinds_named(query: str) -> tuple[bool, ...]:
    """For each kind of :func:`_kind_words`: whether ``query`` names it by one of its heads."""
    from ..text.kinds import names, with_heads_named

    low = with_heads_named(query).lower()
    return tuple(any(names(low, h) for h in heads) for heads, _, _, _ in _kind_words())


def _asked_of_thing(query: str, asked: frozenset[str]) -> tuple[tuple[bool, ...], frozenset[str]] | None:
    """For a question asking of a thing rather than which it is (:data:`_NOT_THE_THING`: "Who fixes my car?",
    "Who insures my car?"): (the kinds it names, its words that are not of them: the role asked, "fix");
    None for any other question."""
    if not _NOT_THE_THING.search(query):
        return None
    named = _kinds_named(query)
    if not any(named):
        return None
    role = frozenset(w for w in asked if not _names_kind(w, named))
    return (named, role) if role else None


def _a_new_thing_only(later: str, named: tuple[bool, ...], role: frozenset[str]) -> bool:
    """Whether ``later`` tells of a new thing of a kind the question asks of (``named``), bought or picked
    up, and nothing of the role asked (``role``): "Got a new car today, a Honda Fit!" is no new mechanic for
    "Who fixes my car?", nor a new insurer for "Who insures my car?" (a fresh-eyes review's traps)."""
    return _ACQUIRED.search(later) is not None and _names_kind(later, named) \
        and not any(_asks(w, role) for w in content_words(later, matching=True))


def asks_of_a_kind(query: str) -> bool:
    """Whether a question asks what one's thing of a kind one has one at a time is (:func:`kinds_asked`)."""
    return any(kinds_asked(query))


def _kind_changed(later: str, earlier: str, asked: tuple[bool, ...] = ()) -> bool:
    """Whether ``later`` says the owner's thing of a kind one has one at a time changed, to a member
    ``earlier`` does not name, where ``earlier`` names another: "我把车换了，现在开一辆蓝色的比亚迪海豹"
    after "我开的是一辆白色的丰田卡罗拉" share no word but the kind (a car; text/kinds.py). The later one
    names the kind itself ("car", 汽车, 车) and says a state changed as search/current.py reads it (a
    verb of change said by the speaker: "we changed", "I sold", 换了, 卖了), so "We rented a car, a new
    Honda Civic", "Test drove the new BMW", "I am thinking about a new car", 车展上的新款 and an
    assistant's words are none; nor someone else's ("Her new car is a BMW"). ``asked``: the kinds a
    question asks about (:func:`kinds_asked`), the only ones judged then (a car traded in is no answer
    to "Which bank do I use?"); without it (Dreaming, no question) every kind.

    (Someone else's is read more strictly here than in :func:`kind_answers`: a pair judged with no
    question and no clause read around the thing must have the owner doing something in the later
    one, "I", "we" or 我 not before one of their people; :func:`kind_answers` reads the clause before
    the thing itself (:func:`_takes`), so "they have all my refills" there says nothing of who took it.)"""
    from .current import states_change

    if said_by_assistant(later) or not states_change(later):
        return False
    if _someone_else_s(later):
        return False
    for ask, (head_a, named_a), (_, named_b) in zip(asked or repeat(True), _kind_reading(later),
                                                   _kind_reading(earlier)):
        if ask and head_a and named_b and named_a - named_b and not named_b <= named_a:
            return True
    return False


# a wish, a plan, a thought or hearsay is no change of what one has: "Thinking of switching to T-Mobile",
# "I might move my accounts to Ally", "我想换成小米" (not 想 of what one wants to watch: "最近想看的剧";
# not "would" or "if" of another clause: "…on Google Fiber now, would recommend"; nor "going to" of a
# change set for later: "Rent is going to be $1,790 from next month"; 准备 of preparing is none:
# "多一周准备也挺好"; 听说, "heard that": news of the world, "听说公积金贷款利率降了"; an exception for a
# while, "this week only I'm starting at 7", 临时, 暂时; a story of long ago, 小时候家里养过一只狗)
# (hearsay, an exception for a while and a story of long ago, :data:`_NOT_NOW`, are none for any rule;
# a wish or a plan is none for the rules a question vouches for, and may be the fact itself for the
# strict one: "I bumped my goal: I want to run a half marathon" for "What's my running goal?")
_NOT_NOW = re.compile(r"\b(?:heard\s+(?:that|about)|rumou?red|rumou?rs?|"
                      r"(?:this|just\s+this|only\s+this|for\s+this)\s+(?:week|day|time)\s+only|"
                      r"(?:just|only)\s+(?:this|for\s+this)\s+(?:week|day|time)|temporar(?:y|ily)|"
                      r"when\s+i\s+was\s+(?:a\s+kid|little|young|a\s+child)|growing\s+up|as\s+a\s+kid|"
                      r"on\s+pto|covering\s+for|filling\s+in\s+for|just\s+this\s+once|back\s+to\s+normal|"
                      r"(?:^|(?<=[,.;:!?]\s))back\s+when|back\s+in\s+(?:the\s+day|(?:19|20)\d\d)|"
                      r"when\s+i\s+was\s+in\s+(?:college|grad\s+school|high\s+school|school|university|uni))\b"
                      r"|听说|据说|新闻说|传言|暂时|小时候|当年(?:我|我们)|(?:上大学|刚毕业)(?:那会儿?|的时候)|(?:读书|上学)那会儿?"
                      # (临时 before a ticket or a booking returned is "at short notice", and what follows may hold:
                      # "1号的票临时退了，改签到10月3号回老家"; 临时有事, 临时通知 and 临时取消 tell of this time only)
                      r"|临时(?!退)"
                      r"|只有这一?次|就这一?次|(?:下周|下次|之后|以后)(?:就)?恢复|恢复正常", re.I)
# a change said not to have happened ("Looked into switching to Mint Mobile but didn't switch after all",
# "decided against moving", 最后还是没换): the clause denying it says none, though another clause of the
# line may ("我没换手机号，但是换了套餐")
_DENIED = re.compile(r"\b(?:didn['’]?t|did\s+not|never|haven['’]?t|have\s+not|hasn['’]?t|has\s+not|won['’]?t(?:\s+be)?|"
                     r"will\s+not(?:\s+be)?|not\s+going\s+to|decided\s+not\s+to|chose\s+not\s+to|decided\s+against|"
                     r"ended\s+up\s+not)\s+(?:end\s+up\s+|actually\s+|really\s+|go\s+through\s+with\s+)?"
                     r"(?:switch|chang|mov|transfer|join|sign(?:ed|ing)?\s+up|go(?:ing)?\s+with|cancel|leav|quit|replac)\w*\b"
                     r"(?!\s+(?:back|again)\b)"
                     r"|(?:没|没有|并没有?)(?:换|搬|转|改|跳槽)(?:成|掉)?", re.I)
# one more of a kind taken up beside the one held, not in its place ("I also joined a Spanish conversation
# group on Saturday mornings, separate from the class", 另外报了个周末班)
_ADDED = re.compile(r"\balso\s+(?:joined|signed\s+up|started|enrolled|picked\s+up|took\s+up)\b|\bseparate\s+from\b"
                    r"|另外(?:报|办|参加)|又报了(?:一|个)", re.I)
# a thing used while one's own is repaired: a loaner, a courtesy car, a rental car, 代步车 ("The Civic is in
# the shop so I'm driving a loaner Nissan now"), unless the line goes on to a thing bought or one left ("The
# Accord was being repaired for weeks so I gave up and bought a Mazda CX-5", 旧车送修太多次了，直接卖掉换了辆理想L6)
_FOR_A_WHILE = re.compile(r"\b(?:(?:a|the)\s+(?:loaner|courtesy\s+car|rental\s+car)|being\s+repaired)\b"
                          r"|代步车|送修|在修", re.I)
_FOR_GOOD = re.compile(r"\bfor\s+good\b|卖掉|换了|换成", re.I)


@lru_cache(maxsize=4096)  # (a line is read in every pair it stands in)
def _not_now(text: str) -> bool:
    """Whether ``text`` says something that holds for a while only, or is heard, or long past (:data:`_NOT_NOW`,
    :data:`_FOR_A_WHILE`), a change that did not happen (:func:`_change_denied`) or one more thing beside the
    one held (:data:`_ADDED`)."""
    return _NOT_NOW.search(text) is not None or _FOR_A_WHILE.search(text) is not None and not (
        _ACQUIRED.search(text) or _GONE.search(text) or _FOR_GOOD.search(text)) \
        or _change_denied(text) or _only_in_clauses(text, _ADDED)


def _change_denied(text: str) -> bool:
    """Whether ``text`` denies a change (:data:`_DENIED`) and no other clause of it says one that holds."""
    return _only_in_clauses(text, _DENIED)


def _only_in_clauses(text: str, said: re.Pattern) -> bool:
    """Whether ``text`` says ``said`` (a change denied, one more beside) and no other clause of it says a
    change that holds: "我没换手机号，但是换了套餐", "My dose went up to 50mg, and I also started a statin",
    "小刘离职了，另外报了个私教" say one."""
    if said.search(text) is None:
        return False
    return not any((_says_change_or_took_up(c) or _GONE.search(c)) and not _WISH.search(c)
                   and not _SUPPOSED.search(c) and not _WEIGHED.search(c)
                   for c in _CLAUSE.split(text) if c and not said.search(c))


# a change weighed before it was denied ("Looked into switching to Mint Mobile but didn't switch after all")
_WEIGHED = re.compile(r"\b(?:looked\s+(?:into|at)|thought\s+(?:of|about)|considered|was\s+going\s+to)\b"
                      r"|本来想|原本想|本打算|原来打算", re.I)
_WISH = re.compile(r"\b(?:thinking\s+(?:of|about)|considering|might|maybe|perhaps|want\s+to|wanna|"
                   r"planning\s+to|(?:^|[.!?]\s+|(?:i|we|you|they)\s+)(?:also\s+|still\s+)?plan\s+to|"
                   r"should\s+(?:i|we)|wish|hoping\s+to|hope\s+to|"
                   r"looking\s+into|tempted\s+to|if\s+(?:i|we)\s+(?:ever\s+)?(?:moved|switched|changed|took|went|quit|left|"
                   r"were|had\s+to))\b"
                   r"|想(?:换|要|把|改|转|试|买|办(?!法)|开|用)|打算|考虑|要不要|准备(?:换|要|把|改|转|试|买|办|开|用|搬|去|辞|跳|续)"
                   r"|(?:要是|假如|如果)[^，。！？,]{0,6}(?:搬|换|跳槽|辞职|转|改)"
                   r"|" + _NOT_NOW.pattern, re.I)
_NEW_ALONE = re.compile(r"\bnew(?:ly)?\b|新", re.I)


# A thing of the kind used for a while, given, tried or spoken of is no change of one's own: a rental,
# a loaner, a test drive, a trial, a work phone, a gift or a present, a promotion, a launch, a second
# account "on top of" the first, a card (no bank), a mortgage, stock, a fleet, a cabin, roaming, the
# office's connection, one who reports to the owner, an old boss, a roommate's or a niece's; 租, 代步,
# 试驾, 试用, 借, 推销, 发布, 预售, 工作手机, 送给, 出差, 境外 (a trip's SIM card), 以前的, 信用卡, 房贷,
# 股票, 公司网络, 室友, 闺蜜, 小王 (two fresh-eyes reviews found each in everyday lines)
_NOT_ONES_OWN = re.compile(
    r"\b(?:rent(?:ed|al|ing)?|loaner|hire\s+car|courtesy\s+car|test[- ]?dr(?:ove|ive|iving|iven)|trial|tried|trying|"
    r"work\s+phone|gift|birthday|anniversary|promo(?:tion)?s?|pre-?orders?|launch(?:es|ed)?|on\s+top\s+of|as\s+well|"
    r"alongside|to\s+me|old\s+(?:boss|manager)|(?:boss|manager)'s|for\s+the\s+trip|on\s+the\s+trip|"
    r"(?:credit|debit)\s+card|(?<!sim\s)card|the\s+office|at\s+work|bought\s+(?:my|our|his|her)\s+\w+\s+(?:a|an|the)|"
    r"roommate|flatmate|housemate|niece|nephew|landlord|landlady|classmate|teammate|intern|stocks?|shares|"
    r"mortgage|loan|fleet|company\s+car|cabin|roaming|abroad|vacation|hotel|airbnb|present|stocking\s+stuffer|"
    r"for\s+(?:the|my|our)\s+(?:kid|teen|teenager|son|daughter|wife|husband|mom|mum|dad|boyfriend|girlfriend)|"
    r"smartwatch|ipad|tablet)s?\b"
    r"|租|代步|试驾|试了|试用|体验|借|推销|打电话|发布|预售|上市|工作手机|公司发|送给|给[^，。,]{1,4}买|出差|境外|以前的|之前的"
    r"|信用卡|公司网络|公司的网|办公室|单位的|室友|侄子|侄女|外甥|闺蜜|同学|房东|实习生|小[王李张刘陈赵杨黄周吴]"
    r"|股票|房贷|贷款|换汇|换了点|摆摊|礼物",
    re.I)
# the owner taking the new one, said right before it in its clause: "I'm driving a used green Subaru",
# "picked up a used Tesla", "Moved all my accounts to Redwood Credit Union", "We're on Google Fiber",
# "we're just using Netflix", "went vegan", "I'm pescatarian now", "everything is with SoFi now"; 换了小米14,
# 开了腾讯视频, 现在用的是, 提了一辆, 工资打到建设银行. Not someone else taking it ("Jake just switched to a
# Tesla", "Priya now reports to Dan"), a visit ("went to Walgreens"), a thing merely named ("T-Mobile
# keeps texting me to switch", "小米粥"), nor another product of the make ("the Samsung Galaxy Watch")
_TAKES_EN = re.compile(
    r"^(?:(?:so|and|but|then|now|finally|just|officially|also|after\s+the\s+\w+)\s+)*"
    r"(?:(?:i|we)(?:'m|'re|'ve|\s+am|\s+are|\s+have)?\s+(?:(?:now|just|finally|officially|all|fully)\s+)*"
    r"|(?:everything|it|all(?:\s+of\s+it)?|my\s+\w+(?:\s+\w+)?)(?:\s+(?:is|are)|'s)\s+(?:now\s+)?"
    r"|(?:the\s+new\s+one|my\s+new\s+\w+|mine)(?:\s+is|'s)\s+(?:now\s+)?(?=(?:a|an|the)\s))?"
    r"(?:(?:switched|moved|changed|ported|transferred|upgraded|traded|signed\s+up|made\s+the\s+(?:jump|switch|move)|"
    r"picked\s+up|bought|got|getting|caved\s+and\s+got|drive|driving|use|using|on|with|at|bank(?:ing)?\s+with|joined|"
    r"goes\s+to|go\s+to|put\s+me\s+on|pay(?:ing)?\s+for|a|an|(?:gone|went|going)(?!\s+to\b))\b(?:\s+\S+){0,6}?\s*"
    # ("my carrier is now Verizon": the thing itself named right after)
    r"|(?:(?:so|and|but|then|now|finally|just|officially|also)\s+)*my\s+\w+(?:\s+\w+)?\s+(?:is|are)\s+now\s*)$", re.I)
_BE_EN = re.compile(r"^(?:(?:so|and|but|now)\s+)*(?:i|we)(?:'m|'re|\s+am|\s+are)\s+(?:(?:now|just|fully|officially)\s+)*$")
_TAKES_ZH = re.compile(r"(?:换成了?|换了|换到|转到|转去|改用|改成了?|改到|开了|办了|提了|买了|新买的|刚买的|新提的|刚提的|"
                       r"用上了?|开上了?|都用|只用|"
                       r"用的是|开的是|现在用|现在开|现在是|转网到|开始|发到|打到|存到|入了|改开|改装了?|改办|都在|都去|都用)"
                       r"[^，。！？；,.!?;]{0,6}$")
_TOOK_BEFORE_ZH = re.compile(r"(?:提车了?|换车了?|换手机了?|换了(?:车|手机|新车|新手机)|转网了?)[！!，,]?$")
_CLAUSE = re.compile(r"[.!?;,:。！？；，：]|\s[—–-]\s|\s(?:and|but)\s")
# another product of the make: a watch, earbuds, a washer, a Powerwall, its stock (手表, 耳机, 充电宝,
# 空气净化器, 股票; and Xiaomi's car, the SU7, for a question about one's phone)
_OTHER_PRODUCT = re.compile(r"[\s\w'-]{0,16}?\b(?:watch|earbuds|buds|tablet|tv|laptop|headphones|vacuum|fridge|washer|"
                            r"dryer|powerwall|charger|power\s*bank|purifier|speaker|monitor|stock|shares|solar|roof)s?\b"
                            r"|.{0,6}(?:手表|耳机|平板|电视|手环|笔记本|粥|充电宝|净化器|空调|冰箱|洗衣机|扫地机|音箱|路由器|股票|su7)")
# members that say the taking themselves ("I report to Tom Becker", 携号转网到联通)
_VERB_MEMBERS = frozenset({"report to", "reporting to", "reports to", "携号转网"})
_BY_OWNER = re.compile(r"(?:^|\b(?:i|we)(?:'m|\s+am|'re|\s+are)?(?:\s+(?:now|just|also))?)\s*$")


# a farewell to the old one ("…bye bye iPhone", "RIP old silver bullet", 告别油车), and a thing acquired
# ("got", "caved and got", 入了, 提了): ways a change is said that _SAYS_CHANGE and _LEFT_IT do not hold
_BYE = re.compile(r"\b(?:bye[\s-]+bye|good\s*bye|farewell|rip)\b|告别|再见", re.I)
_ACQUIRED = re.compile(r"\b(?:got|bought|picked\s+up|caved|made\s+the\s+(?:jump|switch|move))\b|入了|提了|买了"
                       r"|(?:新|刚)(?:买|提|入)的", re.I)  # (新买的比亚迪秦: fresh update set 9)


@lru_cache(maxsize=4096)
def _left_said(text: str) -> bool:
    """Whether ``text`` says a value was left (:data:`_LEFT_IT`) or bids it farewell (:data:`_BYE`)."""
    return _LEFT_IT.search(text) is not None or _BYE.search(text) is not None


_THIRD_PERSON = re.compile(r"\b(?:he|she|his|her|him|they|their|them)\b|[他她]", re.I)
# someone else right before the thing, in its clause ("she finally switched to a Pixel")
_THEY_BEFORE = re.compile(r"[他她]|\b(?:he|she|they|his|her|their)\b")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|my|me|we|we're|we've|our|us)\b|我", re.I)


def _takes(text: str, member: str) -> bool:
    """Whether the owner takes ``member`` (a member of a kind, as text/kinds.py names it) in ``text``."""
    from ..text.kinds import surface

    low = text.lower()
    sf = surface(member)
    found = [(m.start(), m.end()) for m in re.finditer(re.escape(sf), low)] if isinstance(sf, str) else \
        [m.span() for m in sf.finditer(low)]
    for at, end in found:
        cut = max((m.end() for m in _CLAUSE.finditer(low, 0, at)), default=0)
        pre = low[cut:at].strip()
        if _THEY_BEFORE.search(pre) or _OTHER_PRODUCT.match(low, end):
            continue
        if member in _VERB_MEMBERS:
            if _BY_OWNER.search(pre) or (has_cjk(member) and len(pre) <= 4):
                return True
        elif pre and has_cjk(pre[-1]):
            if _TAKES_ZH.search(pre):
                return True
        elif not pre and has_cjk(member):
            if _TOOK_BEFORE_ZH.search(low[:cut].rstrip()):
                return True
        elif _TAKES_EN.match(pre) or _BE_EN.match(pre + " " if pre else "-"):
            return True
    return False


def kind_answers(later: str, earlier: str, asked: tuple[bool, ...]) -> bool:
    """Whether ``later`` says the owner's thing of a kind the question asks about (``asked``:
    :func:`kinds_asked`) is now another than ``earlier`` says, when the two share no word of it
    but the kind: "RIP old silver bullet, traded it in Saturday. I'm driving a used green Subaru
    Outback now" after "My car is a 2014 Mazda3, silver" for "What car do I drive?", "Moved all my
    accounts to Redwood Credit Union" after "I bank with Chase" for "Which bank do I use?". Both are
    the owner's statements naming the kind (a head or a member: text/kinds.py); the later says the
    owner takes a member the earlier does not name (:func:`_takes`: "I'm driving a … Subaru", "Moved
    all my accounts to …", 换了小米14), with a change said (in any everyday way but the word "new"
    alone, or a value left: 爱奇艺到期没续，开了腾讯视频); and none of a wish or a plan ("Thinking of
    switching to T-Mobile"), a thing used for a while, tried, given or spoken of (a rental, a test
    drive, a trial, a work phone, a gift, a second account "on top of" the first: :data:`_NOT_ONES_OWN`),
    or someone else's news ("My brother switched to a Pixel", "She finally switched"). The caller
    holds both among the first answers (the first :data:`ANSWERS`, or both naming the kind in the first
    :data:`HORIZON`), each nearly as relevant as the other (:func:`order`)."""
    a, b = _owner_said(_facts(later)[2]), _owner_said(_facts(earlier)[2])
    if not a or not b or a.endswith(("?", "？")) or a == b or _WISH.search(a) or _NOT_ONES_OWN.search(a):
        return False
    if not (_says_change(_NEW_ALONE.sub(" ", a)) or _left_said(a) or _ACQUIRED.search(a)):
        return False  # (爱奇艺到期没续，开了腾讯视频; "Caved and got the Samsung S24 Ultra")
    if _others_news(_facts(a), _facts(b), a, b):
        return False
    if _THIRD_PERSON.search(a) and not _FIRST_PERSON.search(a):  # "Sarah just sold her Civic and bought a Kia"
        return False
    for ask, (_, named_a), (head_b, named_b) in zip(asked, _kind_reading(a), _kind_reading(b)):
        # (naming the earlier one too without leaving it adds one: "Moved my emergency fund to Ally,
        # everyday stuff stays at Chase")
        if ask and (named_b or head_b) and not (named_a & named_b and not _left_said(a)) \
                and any(_takes(a, m) for m in named_a - named_b):
            return True
    return False


@lru_cache(maxsize=4096)
def _kind_reading(text: str) -> tuple[tuple[bool, frozenset[str]], ...]:
    """For each kind of :func:`_kind_words`: whether ``text`` names it by a head, and the members it
    names (read once per text: a search judges a text against many)."""
    from ..text.kinds import names

    low = text.lower()
    return tuple((any(names(low, h) for h in heads) or any(c in low for c in one_char),
                  frozenset(w for w in members if names(low, w)))
                 for heads, one_char, members, _ in _kind_words())


# a named value leaving, said as the subject of its clause: "Greta stopped taking my insurance", "Mrs
# Patterson went on maternity leave", "Dr. Lamb retired", "Kelsey left for college" (not "I left Sarah a
# voicemail": the name leads; nor "Greta stopped by to say hi", "Greta left early today")
_NAME_LEFT = re.compile(
    r"(?:^|[.!?;,:]\s+|\b(?:so|and|but|then|now)\s+)(?:(?:Dr|Mr|Mrs|Ms|Miss)\.?\s+)?([A-Z][\w'-]+)(?:\s+[A-Z][\w'-]+)?"
    r"\s+(?:(?:just|has|had|finally|suddenly|officially)\s+)?(?:retired|quit|moved\s+away|"
    r"stopped\s+(?:taking|seeing|accepting|working|teaching|coming|doing|practi[cs]ing)|"
    r"left\s+(?:for|to\s+join|the\s+(?:practice|clinic|company|firm|school|studio|area|city|country)|town)|"
    r"went\s+on\s+(?:\w+\s+)?leave|is\s+on\s+(?:\w+\s+)?leave|is\s+no\s+longer|no\s+longer\s+(?:works|sees|takes|"
    r"teaches|practi[cs]es))\b")


def _name_left(later: str, earlier: str) -> bool:
    """Whether ``later`` says a value ``earlier`` names (a capitalised name but its first word) left, as
    the subject of its clause (:data:`_NAME_LEFT`)."""
    names = _names(earlier)
    return bool(names) and any(set(content_words(m.group(1), matching=True)) & names
                               for m in _NAME_LEFT.finditer(_statement(later)))


def _linked(facets: frozenset[str], later: tuple, earlier: tuple, names: frozenset[str] = frozenset()) -> bool:
    """Whether two answers (their :func:`_facts`) both name a facet of life the question names
    (``facets``: text/facets.py): "Hartwell Drugs has all my refills now" and "I get all my
    prescriptions filled at the CVS" for "Which pharmacy do I use?". Not when the earlier names
    whom the question names (``names``: its names' words) and the later does not: a facet is
    coarse, a name is not ("猫粮换成渴望了，兽医说…" is no news of Biscuit's vet after "We switched
    Biscuit's vet to Happy Paws"). (That both answer the question is the caller's to judge, by
    their ranks and scores.)"""
    both = facets_named(later[2], facets) & facets_named(earlier[2], facets)
    return bool(both) and not (names & earlier[0]) - later[0] and _facet_changed(later[2], both, later[0] & earlier[0])


def _facet_changed(text: str, facets: frozenset[str], shared: frozenset[str]) -> bool:
    """Whether the change ``text`` says (a value left, a number given) is of one of ``facets`` or of
    what it shares with the earlier answer (``shared``): said in a sentence naming it, in Chinese in a
    clause, or in the next one going on about it ("now …", 现在…, a number: "验光结果出来了，左右眼都550").
    A line says several things: "猫粮换成渴望了，兽医说蛋白质含量高一点对它好" changed the cat's food and the
    vet only spoke, "房东来修了水管，顺便把网换成了电信" changed the internet; "以前看牙的那位主任退休了，现在挂的是
    他徒弟赵医生的号" changed the dentist."""
    parts = _parts_read(text)
    about = [bool(shared & subject or facets_named(p, facets)) for p, subject, _, _ in parts]
    return any((about[i] or i and about[i - 1] and goes_on) and changed
               for i, (_, _, goes_on, changed) in enumerate(parts))


@lru_cache(maxsize=1024)
def _parts_read(text: str) -> tuple[tuple[str, frozenset[str], bool, bool], ...]:
    """Each clause (Chinese) or sentence of ``text``, with its subject, whether it goes on from the one
    before (:data:`_GOES_ON` or a number) and whether it says a change (or a number) -- read once per
    line, however many earlier lines :func:`_facet_changed` weighs it against."""
    parts = [p for p in (_CLAUSE.split(text) if has_cjk(text) else _sentences(text)) if p.strip()]
    return tuple((p, _subject(p), bool(_GOES_ON.match(p) or numbers(p)),
                  bool(_says_change(p) or _left_said(p) or numbers(p))) for p in parts)


# a clause or a sentence going on about what the one before named: "now …", "so …", 现在…, 所以…
_GOES_ON = re.compile(r"\s*(?:(?:and\s+|so\s+)?now\b|so\b|these\s+days\b|现在|目前|如今|所以|于是|就|已经)", re.I)


def updates_fact(later: str, earlier: str) -> bool:
    """Whether ``later``, a fact Dreaming is promoting, updates ``earlier``, an entry it promoted
    before, judged with no question: the subject shared (two words' worth) and new numbers or a
    word announcing a change. A single shared word is the subject only when a question names it,
    so that rule stays search's ("I bought a new phone case" says nothing new of "my phone
    number"); and a relation one names that the other does not makes it another person's fact
    ("My son's piano lesson is on Tuesday at 5" after "My daughter's piano lesson is on Saturday at 10").
    Two short facts about a thing one has one at a time may share no word at all: :func:`_kind_changed`."""
    a, b = _facts(_BULLET.sub("", later, count=1)), _facts(_BULLET.sub("", earlier, count=1))
    if a[2] == b[2] or (a[0] ^ b[0]) & _RELATION_WORDS:
        return False
    return _updates(a, b) or (_short(a) and _short(b) and _kind_changed(a[2], b[2]))


def order(items: list, when, text, cite, query: str = "", history: bool = False,
          score=None, ratios: tuple[float, float] = (ANSWER_RATIO, CLOSE_RATIO),
          vector=None) -> tuple[list, dict[int, str]]:
    """``items`` with each updated one's newest update moved just above it when it ranked lower,
    and {id(updated item): the update's citation}. ``when(item)`` is :func:`dated`'s answer for
    it, ``text(item)`` its words, ``cite(item)`` how to name it; ``query`` what was searched for
    (its words name the subject), ``score(item)`` its relevance (None: by rank alone), ``ratios``
    the shares of an earlier answer's score a later one needs (:data:`ANSWER_RATIO`,
    :data:`CLOSE_RATIO`; :data:`KEYWORD_RATIOS` for keyword scores). With
    ``history`` (a question about what holds now), the items the first one updates go just below
    it; ``vector(item)``: its stored embedding (bytes of float32, or None), for two amounts that share
    no word of the question (:func:`_meant_alike`). Order is otherwise kept."""
    from .current import asks_what_holds

    asked = _asked_of(query) if query else frozenset()
    unshared = _unshared(asked)
    # a question asking for a fact as it stands vouches for two answers to it (answers_alike)
    holds = bool(query) and asks_what_holds(query)
    focus = focus_of(query) if holds else None
    amount = holds and asks_amount(query)
    when_asked = holds and asks_when(query)
    day_asked = when_asked and asks_day(query)
    whom = holds and _ASKS_WHO.search(query) is not None
    # (where one works asks the employer: "Acme moved its office to Harbor Street" is no new workplace)
    where = holds and _ASKS_WHERE.search(query) is not None and "workplace" not in facets_of(query)
    named = focus_words(focus) if focus and _whole_focus(query, focus) else ()
    phrases = phrases_of(query) if holds else ()
    # a thing asked of, not which it is ("Who fixes my car?"): the kinds named, and the question's other words
    of_thing = _asked_of_thing(query, asked) if holds else None
    # most pairs of a result list are judged on one set intersection: without a Chinese word of the
    # question, two texts sharing no subject word never update each other, and sharing fewer than
    # two they must both be short (at 100,000 units this order cost a search 1-3 ms before)
    any_pair = bool(_asked_chars(asked))
    # a question naming a kind one has one at a time ("What car do I drive now?"): two short statements
    # may share nothing but the kind, one naming a member, the later another with a change said
    asked_kinds = kinds_asked(query) if query else ()
    kinds = any(asked_kinds)
    # a facet of life the question names ("Which pharmacy do I use?"), which two answers may name in
    # other words: "my prescriptions filled at the CVS", "Hartwell Drugs has all my refills now"
    facets = facets_of(query) if holds else frozenset()
    names_asked = _names(query) if facets else frozenset()
    people_asked = _people_asked(query) if holds else frozenset()
    out = list(items)
    # the first HORIZON of the ranked list, whatever the number of results asked for: the same
    # order for 1 or 20 (and a bounded cost on a long list); oldest first
    dated_items = sorted(((w, i, it) for i, it in enumerate(out[:HORIZON]) if (w := when(it)) is not None),
                         key=lambda x: (x[0], x[1]))
    facts = {id(it): _facts(text(it)) for _, _, it in dated_items}
    chinese = {k: has_cjk(f[2]) for k, f in facts.items()}  # (a pair in two languages is read by its keys)
    rank = {id(it): i for _, i, it in dated_items}
    # lines of one note are one conversation or one day's list: a later line there is the same
    # moment's talk, not an update (on LoCoMo's sessions that rule marked 1,666 results
    # superseded), unless both are short statements (a fact corrected later the same day); a
    # promoted entry belongs to the note it cites
    note = {id(it): _note_of(str(cite(it)).split("#", 1)[0], text(it)) for _, _, it in dated_items}
    # what each line names of the facets and the kinds asked: two lines past the first ANSWERS are read
    # as two answers only when both name one (most such pairs stop there)
    of_facet = {id(it): facets_named(facts[id(it)][2], facets) for _, _, it in dated_items} if facets else {}
    of_kind = {id(it): _names_kind(facts[id(it)][2], asked_kinds) for _, _, it in dated_items} if kinds else {}
    # the later answers alike in meaning to the first result, for a question asking how much (two
    # answers sharing no word of it: _meant_alike)
    # (only a dated first result can be updated: none is read otherwise)
    meant = _meant_alike(out[:ANSWERS], vector, text) \
        if amount and vector is not None and out and id(out[0]) in rank else None
    query_names = _names(query) if meant else frozenset()
    # the later statements of the first result's matter (:func:`_same_matter`), for any question asking
    # what holds: read once, and only when a later line of another note says a change (the model's
    # reading costs a search some milliseconds; most searches have no such line)
    matter: list = []
    by: dict[int, object] = {}
    marks: dict[int, str] = {}
    facet_news: set[int] = set()  # the updates of which both lines name a facet (or a kind) the question names
    for k, (when_old, _, older) in enumerate(dated_items):
        newest = alike = None
        for when_new, _, newer in dated_items[k + 1:]:
            if when_new <= when_old:
                continue
            f_old, f_new = facts[id(older)], facts[id(newer)]
            across = chinese[id(newer)] != chinese[id(older)]
            if across:  # (two languages: an everyday thing by its one key)
                f_old, f_new = _facts(text(older), True), _facts(text(newer), True)
            if f_new[0] == f_old[0] and _statement(f_new[2]) == _statement(f_old[2]):
                continue  # the same words twice (a message and its session note's line): no update
            shared = _subject_shared(f_new[0], f_old[0], unshared)
            # (exactly _updates' own tests, before the call: one word or none shared is an update
            # only between short statements, and none at all only by a Chinese word of the question,
            # or when the later one left what they share)
            short_pair = f_old[3] <= SHORT_FACT and f_new[3] <= 2 * SHORT_FACT
            kind = kinds and _short(f_new) and _short(f_old) and _kind_changed(f_new[2], f_old[2], asked_kinds)
            if note[id(newer)] == note[id(older)] and not (_short(f_new) and _short(f_old)):
                continue
            ratio = 1.0 if score is None else score(newer) / max(score(older), 1e-9)  # (as relevant as the earlier?)
            judged = kind or len(shared) >= 2 or bool((shared or any_pair) and short_pair) \
                or bool(shared and _leaves(f_new, f_old)) \
                or bool(shared & asked and (_owner_says_change(f_new[2]) or _a_new_one_said(f_new[2], asked))
                        and not _named_talk(f_old[2]))
            # (a thing of one of the owner's people is theirs, for the strict rule too: "my sister's phone
            # bill went up to $90", "wife's dentist appointment got moved to nov 3", 我妈的…)
            # (and, for a question asking how much, an amount of the thing: :func:`_an_amount_of_it`)
            # (nor hearsay, an exception for a while or a story of long ago: "这周周会临时改到周三了")
            hit = judged and (kind or _updates(f_new, f_old, asked) and not _theirs(f_new[2], f_old[2], asked)
                              and not _not_now(f_new[2]) and not _named_news(f_new[2], f_old[2], asked)
                              and not (whom and across and _change_elsewhere(_owner_said(f_new[2]), asked))
                              and not (phrases and _part_of_a_phrase(f_new[2], f_old[2], phrases))
                              and not _another_subject(f_new[2], f_old[2], asked)
                              and (not amount or _an_amount_of_it(f_new[2], f_old[2], asked)))
            # (both among the first ANSWERS; or, both naming a facet the question names or a kind it asks
            # about, anywhere in the HORIZON read: "Got the promotion!! Officially Staff Engineer" ranked
            # ninth for "What's my job title?", behind small talk the embedder finds close to any short
            # question)
            near = rank[id(older)] < ANSWERS and rank[id(newer)] < ANSWERS
            facet_both = bool(facets and of_facet[id(newer)] & of_facet[id(older)])
            kind_both = kinds and of_kind[id(newer)] and of_kind[id(older)]
            pair = not hit and holds and (near or facet_both or kind_both)
            # (for a question about one of the owner's people, a later line of the owner's own doing must
            # name them if the earlier does: "I now teach an after-school club" is no news of "the kids go
            # to the YMCA after-school program", for "What after-school program are the kids in now?";
            # "学校通知从下周起4点10分放学" is the son's school's, for "儿子几点放学")
            names_them = pair and _names_people(f_new[2], people_asked)
            pair = pair and (names_them or not _names_people(f_old[2], people_asked)
                             or not OWNER.search(_statement(f_new[2])))
            linked = pair and names_them and bool(facets) and _linked(facets, f_new, f_old, names_asked)
            pair = pair and (near or linked or kind_both)  # (a shortcut: the reading below asks as much)
            # (near the top, two texts sharing no subject word, nor a facet the question names, are never
            # two answers: most of those pairs stop at this test)
            if pair and (kinds or shared - _ANY_TOPIC or linked):
                # (both answers: the later one nearly as relevant as the earlier, and the earlier as the
                # later: "I backed up my photos to an external drive" is no answer to "What car do I
                # drive now?", however the line that answers it says "drive")
                low = min(ratios[0], LINKED_RATIO) if linked else ratios[0]  # (a facet's pair: wider)
                # (past the first ANSWERS, only a facet's link or the kind's own reading vouches: a word
                # shared there is too weak, "Bank holiday weekend plans changed" after "I bank with Chase")
                hit = low <= ratio <= 1 / low and (
                    bool(shared - _ANY_TOPIC or linked) and (near or linked)
                    and answers_alike(text(newer), text(older), asked, ratio, named, ratios[1], amount, linked,
                                      when_asked, phrases, whom, where)
                    or kinds and kind_answers(text(newer), text(older), asked_kinds))
            if not hit and holds and rank[id(older)] == 0 and shared and _name_left(f_new[2], f_old[2]):
                # the answer's named value said to have left, however far down the later line ranks
                # ("Greta stopped taking my insurance so I'm with Owen Batiste" after "Seeing a
                # therapist named Greta Lindqvist", for "Who's my therapist?": it holds no word of it)
                hit = answers_alike(text(newer), text(older), asked, 1.0, named, ratios[1], amount,
                                    when=when_asked, whom=whom, where=where)
            if not hit and meant is not None and rank[id(older)] == 0 and id(newer) in meant \
                    and note[id(newer)] != note[id(older)] and not any(_asks(w, asked) for w in shared) \
                    and query_names & f_old[0] <= f_new[0]:
                # (sharing a word of the question, the rules above have read them: "我取消了一个从来不用的视频会员"
                # is no news of "会员换成了铁馆" for "我现在是哪家健身房的会员？", however near its vector; and a
                # name the question asks about, said by the first, the later one says too)
                if LINKED_RATIO <= ratio <= 1 / LINKED_RATIO and _amount_alike(text(newer), text(older), asked):
                    alike = (newer, when_new, False)
            if not hit and alike is None and holds and rank[id(older)] == 0 and rank[id(newer)] < ANSWERS \
                    and note[id(newer)] != note[id(older)] and _may_say_change(f_new[2]) \
                    and LINKED_RATIO <= ratio <= 1 / LINKED_RATIO:
                if not matter:
                    matter.append(_same_matter(out[:ANSWERS], text, query) or {})
                a_line, b_line = matter[0].get(id(newer), ("", ""))
                # (what the question asks, the later line says anew: a time, an amount)
                if a_line and _matter_alike(a_line, b_line, asked) and not _a_sibling(a_line, b_line, query) \
                        and not _part_of_a_phrase(a_line, b_line, phrases) \
                        and not _another_subject(a_line, b_line, asked) and not _anothers(a_line, b_line, query) \
                        and (when_asked or amount or not _value_stands(a_line, b_line, asked)) \
                        and (not when_asked or _time_anew(_FROM_WHEN.sub(" ", a_line), b_line)) \
                        and (not day_asked or _a_day_anew(_FROM_WHEN.sub(" ", a_line), b_line)) \
                        and (_an_amount_of_it(a_line, b_line, asked) if amount else not _priced(a_line, b_line)):
                    alike = (newer, when_new, False)
            if hit and when_asked and not _a_time_of_it(_owner_said(f_new[2]), _owner_said(f_old[2])):
                hit = False  # (a time asked: the later says none where the earlier said one)
            if hit and day_asked and _times(f_old[2]) and not _a_day_anew(_owner_said(f_new[2]), _owner_said(f_old[2])):
                hit = False  # (a day asked: "start at 7:30 instead of 7" leaves "the first Thursday of the month")
            if hit and when_asked and _a_price_from(_owner_said(f_new[2]), _owner_said(f_old[2])):
                hit = False  # (a time asked: a price moved from a day on is no other time)
            if of_thing and (hit or alike and alike[0] is newer) and _a_new_thing_only(f_new[2], *of_thing):
                hit = False
                if alike and alike[0] is newer:
                    alike = None
            if hit and (newest is None or when_new > newest[1]):
                newest = (newer, when_new, facet_both or kind_both)
        newest = newest or alike  # (an update the words show before one only the vectors do)
        if newest is not None:
            by[id(older)] = newest[0]
            marks[id(older)] = cite(newest[0])
            if newest[2]:
                facet_news.add(id(newest[0]))
    # a promoted entry and the note line it was promoted from are one statement said once: what updates
    # one updates both (the entry, scored on the same words, may rank far above the later line)
    # (known by its words, or by the line it cites: a promoted entry's text is cleaned, "Doing Mandarin
    # lessons…" of "doing Mandarin lessons… any tips for tones??")
    said = {key: by[id(it)] for when_, _, it in dated_items if id(it) in by
            for key in _said_keys(when_, facts[id(it)][2], text(it), cite(it))}
    for when_, _, it in dated_items if said else ():
        newer = next((n for key in _said_keys(when_, facts[id(it)][2], text(it), cite(it)) if (n := said.get(key))),
                     None) if id(it) not in by else None
        if newer is not None:
            by[id(it)] = newer
            marks[id(it)] = cite(newer)
    if facet_news:  # an update of the facet asked goes above a first result naming none of it
        out = _facet_first(out, facet_news, text, facets, query, asked_kinds)
    for _ in range(len(out)):  # an update of an update moves up in turn
        moved = False
        for i, older in enumerate(out):
            newer = by.get(id(older))
            if newer is not None and out.index(newer) > i:
                out.insert(i, out.pop(out.index(newer)))
                moved = True
                break
        if not moved:
            break
    if history and out:  # the answer, then what it was before: what the first item updated, just below it
        # (only the first's: the history of another update in the list, a job change for a question
        # about one's car, pushed the car's first statement out of the first five notes)
        lead = out[0]
        olders = [it for it in out[1:] if by.get(id(it)) is lead]
        out = [lead, *olders, *(it for it in out[1:] if by.get(id(it)) is not lead)]
    return out, marks


# -- two amounts alike in meaning ----------------------------------------------------------------------
# People say a new amount in words the earlier statement never used ("Renewal letter came, $1,790
# starting next month" after "rent is $1,650 a month"; "after the raise I bumped my 401k contribution up
# to 10%" after "I'm putting 6% of my paycheck into the 401k", for "What percent of my salary goes into
# my 401k?"): no word of the question, no facet nor kind the rules above read links them. Their vectors
# may: the embedder places two statements of one fact nearer each other than either to the other
# answers. So for a question asking how much, a later line of the owner's among the first ANSWERS (of
# another note, sharing no word of the question with the first result) is the first result's update
# when the two are each other's nearest in meaning among the owner's statements there, at least
# MEANT_COS apart, the later scoring at least LINKED_RATIO of the first (the question's own word found
# the first, nothing the later: in a small memory the renewal above scores 0.61 of the rent line), and
# the later says the amount changed and another amount near in size (:func:`_amount_alike`).
# Mutual nearness, not a cosine alone: the bundled embedder puts unrelated statements of one person at
# 0.79 (median) and two statements of one fact at 0.90, with much between; and only amounts: two
# statements nearest in meaning that say a change, or another time, were as often two facts (read
# against benchmarks/no_memory.py's 220 notes of five facts each, and the three fresh update sets). An
# update the rules find comes first: "上个月重新做了贷款，利率降到5.9%" sat nearer "这边房租一个月4800" than
# "续约的时候房东涨到5200了".
MEANT_COS = 0.85
_COPY_COS = 0.985  # two vectors this close are one text twice (a promoted entry and its note's line)


def _meant_alike(head: list, vector, text) -> frozenset[int] | None:
    """The ids of the items of ``head`` (the first results) that are the first item's nearest in
    meaning among the owner's other statements there, it theirs (copies of either left out), at least
    :data:`MEANT_COS` apart; None when the first has no vector. (Only statements are rivals: small talk
    and questions sit near everything in the bundled embedder, "How's it going today?" at 0.89 of "my
    address is 48 Larkspur Lane", above the line that changed it.)"""
    import numpy as np  # (a vector search: loaded already)

    raw = [bytes(r) if isinstance(r := vector(it), (bytearray, memoryview)) else r for it in head]
    if not raw or not isinstance(raw[0], bytes) or not raw[0] or len(raw[0]) % 4:
        return None  # (no vector stored for it, or not one of float32: nothing to judge by)
    dims = len(raw[0])
    rows = [i for i, r in enumerate(raw) if isinstance(r, bytes) and len(r) == dims]
    if len(rows) < 2:
        return frozenset()
    mat = np.frombuffer(b"".join(raw[i] for i in rows), dtype=np.float32).reshape(len(rows), -1)
    if not np.isfinite(mat).all():
        return frozenset()
    mat = mat / np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    sims = mat @ mat.T
    said = [_statement(_facts(text(head[i]))[2]).casefold() for i in rows]
    # (a copy of the first, the same statement said again or its promoted entry, is no other answer)
    copies = {j for j in range(1, len(rows)) if sims[0, j] >= _COPY_COS or said[j] == said[0]}
    stated = [j for j in range(1, len(rows)) if j not in copies and _a_statement(text(head[rows[j]]))]
    return frozenset(id(head[rows[j]]) for j in _nearest_each_other(sims, stated, said, MEANT_COS, _COPY_COS))


def _nearest_each_other(sims, live: list[int], said: list, least: float, copy: float,
                        candidates=None, alone: float | None = None, one_way=frozenset()) -> list[int]:
    """The rows of ``live`` (or of ``candidates`` among them) that are row 0's nearest and it theirs
    (of the rows in ``one_way``, row 0's nearest only), by ``sims`` (a matrix of cosines), at least ``least``
    apart; another row is no rival of one when it says the same (``said``) or sits ``copy`` or nearer it
    (the entry Dreaming promoted from a line and the line itself). With ``alone``, a row with no rival
    at all must be that near."""
    out = []
    for j in live if candidates is None else candidates:
        near = sims[0, j]
        if not near >= least:
            continue
        rivals = [k for k in live if k != j and said[k] != said[j] and sims[j, k] < copy]
        mutual = j not in one_way
        if all(near > sims[0, k] and (not mutual or near > sims[j, k]) for k in rivals) \
                and (rivals or alone is None or near >= alone):
            out.append(j)
    return out


# -- two statements of one matter ----------------------------------------------------------------------
# Most updates people say share no word with what they update, or share words with much else: "Never
# going back to that garage after the way they overcharged me. Brightwater Motors gets the car from now
# on" after "I take the car to Dunmore Auto for servicing", 爸妈上个月搬去温江了 after 我爸妈住在成都的锦江区.
# The rules above read the words; the bundled embedder cannot tell an update from another fact of one
# person (docs/search.md). A second small model can (:mod:`reverie.text.matter`): so for a question
# asking what holds, a later statement of the owner's among the first ANSWERS results (of another
# note) is the first result's update when it is the first's nearest statement in matter there, whatever
# its own nearest is (at least MATTER_COS apart; the first said again in the other language, TWIN_COS or
# nearer, is no other statement), the later line is near the question too (MATTER_ASKED: "Started learning the
# cello" is no answer to "Who has my drill?"), scores at least LINKED_RATIO of the first, and says a
# change in any listed way (_SAYS_CHANGE: without it, the nearest statement of a matter was as often
# another fact of it, "Wrote an email to the school about the field trip" after "The kids' school
# closes early on Friday"), no supposition, hearsay nor someone else's news; a question asking when or
# how much wants a time or an amount anew. An update the rules find comes first.
MATTER_COS = 0.25
MATTER_ASKED = 0.2
MATTER_ALONE = 0.45
TWIN_COS = 0.6
_MATTER_COPY = 0.95  # (a line and its promoted entry, read by the second model)


def _same_matter(head: list, text, query: str) -> dict[int, tuple[str, str]] | None:
    """{id of an item of ``head``: (its line, the first item's line)} for the items that are the first
    item's nearest statement of the owner's in matter (:mod:`reverie.text.matter`; for a question about
    one of the owner's people, a line not naming them has the first as its nearest too), at least
    :data:`MATTER_COS` apart, the line itself at least :data:`MATTER_ASKED` near the question;
    None without the model or a statement first. Of a result of several lines (a day's list), the
    line nearest the question is read."""
    from ..text import matter

    lines = [_statement_lines(text(it)) for it in head]
    if not lines[0]:
        return None
    flat = list(dict.fromkeys(ln for item in lines for ln in item))
    vecs = matter.vectors([*flat, query])
    if vecs is None:
        return None
    at = {ln: k for k, ln in enumerate(flat)}
    near_q = vecs[:-1] @ vecs[-1]
    items = [i for i, item in enumerate(lines) if item]  # (the first among them)
    said = [max(lines[i], key=lambda ln: near_q[at[ln]]) for i in items]
    if len(items) < 2:
        return {}
    mat = vecs[[at[ln] for ln in said]]
    sims = mat @ mat.T
    folded = [ln.casefold() for ln in said]
    # (a copy of the first, or the first said again in the other language, is no other answer: the model
    # was taught on translations, and puts a restatement across languages at 0.57-0.80, an update across
    # them at 0.46-0.55)
    live = [j for j in range(1, len(items)) if not (sims[0, j] >= _MATTER_COPY or folded[j] == folded[0]
                                                    or has_cjk(said[j]) != has_cjk(said[0]) and sims[0, j] >= TWIN_COS)]
    # (nearest of none is no reading: alone, the two must be as near as an update's median)
    # (the first's nearest, whatever the later line's own nearest is: an update may sit nearer another line
    # of its day's talk than the fact it changes, "our new sitter Grace starts friday" nearer "we give the
    # kids $5 a week allowance" than "Maria can babysit saturday night"; but for a question about one of the
    # owner's people, a line not naming them must be each other's nearest: "I started a new job at the
    # library" is the first's nearest of "Dave's first day at the fire station went well" and no news of
    # where the husband works)
    people = _people_asked(query)
    near = _nearest_each_other(sims, live, folded, MATTER_COS, _MATTER_COPY, alone=MATTER_ALONE,
                               candidates=[j for j in live if near_q[at[said[j]]] >= MATTER_ASKED],
                               one_way=frozenset(j for j in live if _names_people(said[j], people)))
    return {id(head[items[j]]): (said[j], said[0]) for j in near}


_RUN_ITEMS = re.compile(r"\s+[-*]\s+(?=\S)")


def _statement_lines(text: str) -> list[str]:
    """The owner's statements of ``text``, one a line (a day's list, a note's lines): not another's
    turn, a question or small talk."""
    # (a passage of a list may come with its lines run together: "- a. - b. - c.")
    # (a promoted entry's notes, its source and trigger, may run over lines: read off the whole text first)
    pieces = [p for line in _ANNOTATIONS.sub(" ", text).splitlines()
              for p in (_RUN_ITEMS.split(line) if _BULLET.match(line) else (line,))]
    # ("Ok cool", 好的谢谢: talk; "我现在用的手机是锐科 X5" holds three Chinese words of two characters, 1.5)
    return [said for line in pieces if (said := _stated(line, 1.5))]


def _may_say_change(text: str) -> bool:
    """Whether the owner's words in ``text`` may say a change (:func:`_matter_alike` reads a line of
    them): the test that spares most searches the model's reading."""
    said = _owner_said(text)
    return bool(said) and _says_change_now(said)


def _says_change_now(text: str) -> bool:
    """Whether ``text`` says a change or a taking up, not one supposed or for a while."""
    return _says_change_or_took_up(text) and not (_not_now(text) or _SUPPOSED.search(text))


def _says_change_or_took_up(text: str) -> bool:
    # (已经, "already", says a change for the rules, where the words link the two lines; beside a line only
    # near in matter it is as often a state: "用户喜欢收集各地的冰箱贴，家里冰箱门上已经贴满了" after "用户家里装了地暖")
    text = text.replace("已经", " ")
    return _says_change(text) or _TOOK_UP.search(text) is not None


# taking up a plan, a card, an account, a membership: a change of what one has, said without a word of
# change ("营业厅小姐姐推荐了个39的套餐，流量够用，果断办了" after "我的手机套餐是每月58块的"; "Opened an account at
# Northbridge Bank for the 4.5% savings rate" after "I do all my banking with Summit Credit Union")
# ... and the first time with a new one ("Had my first session with Dr. Farah Mendel today", "Did my first
# run with the Greenway Striders tonight", "first session with Ingrid today", 今天去力美健身上了第一节团课),
# or one settled on ("we're sticking with them", "剪得还挺满意，就他了")
_TOOK_UP = re.compile(r"\b(?:signed\s+up|opened\s+(?:an?|my)\s+(?:new\s+)?account|enrolled|subscribed"
                      r"|sticking\s+with\s+(?:them|her|him|it|this\s+one)"
                      r"|(?:my|our)\s+first\s+(?:\w+\s+)?(?:session|run|class|lesson|appointment|"
                      r"visit|clean(?:ing)?|day|week|shift|practice|training|ride|game|match)"
                      r"|(?:^|(?<=[.!?,;:]\s)|\b(?:the|had|did)\s+)first\s+(?:\w+\s+)?(?:session|class|lesson|"
                      r"appointment|visit)\s+(?:with|at)\s+"
                      r"(?:(?:dr|mr|mrs|ms)\.?\s+)?(?-i:[A-Z\u4e00-\u9fff])\w*"
                      # (a first day or week somewhere: "First week on the search team went well")
                      r"|(?:^|(?<=[.!?,;:]\s)|\b(?:the|had|did)\s+)first\s+(?:full\s+)?(?:day|week|month|shift)\s+"
                      r"(?:on|at|with)\s+(?:the\s+|my\s+|our\s+)?(?!home\b|work\b|school\b)\w+)\b"
                      r"|办了|签了|开了?(?:个|张)?户|报了?名|第一(?:次|节|堂|天|周|回)"
                      r"|就(?:是|选|定|认)?(?:他|她|它|这家|那家|这个|那个|这儿|那儿)了", re.I)


# when a change takes effect, not a time of the thing ("Renewal letter came, $1,790 starting next month"
# says no new day the rent is due)
_FROM_WHEN = re.compile(r"\b(?:starting|from|as\s+of|beginning|effective)\s+"
                        r"(?:next|this|the\s+next|the\s+first\s+of\s+next)\s+(?:week|month|year|term|season|quarter)\b"
                        r"|(?:下个?月|下周|下星期|明年|本月|这个月|今年|下学期)(?:起|开始)", re.I)


def _value_stands(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """Whether ``later`` names the value ``earlier`` gives (a word of it the question does not ask, nor a
    time, nor a person) without saying it was left: then it tells more of that value, not another
    ("Mate40的电池换了个新的" after "我用的还是华为Mate40", "李大夫把我的洗牙改到5月12日了" after "我的牙医是李大夫",
    "The Civic is in the shop so I'm driving a loaner Nissan now" after "I drive a 2015 Honda Civic"; a Latin
    word only when it names one). (A value left is another's place: "南门那个驿站关了，现在快递都塞进丰巢柜里".)"""
    keyed = _across(later, earlier)
    fa, fb = _keyed_facts(later, keyed), _keyed_facts(earlier, keyed)
    shared = {w for w in fa[0] & fb[0]
              if not _asks(w, asked) and w not in _ANY_TOPIC and w not in _RELATION_WORDS}
    if has_cjk(earlier):
        # (a Chinese pair of characters is a value's when the character before it is the same in both: 李大夫
        # in both; 小学 of 实验小学 and 育才小学 is the kind of thing, each its own)
        # (or where it begins a word in both, at the line's start or after a word like 的 or 是: "光明鲜奶下个月开始涨价"
        # after "我每天订的是光明的鲜奶")
        shared = {w for w in shared if w.isascii() or not any(ch in _ASKING_CHARS for ch in w)
                  and (any(m.start() and later[m.start() - 1] + w in earlier for m in re.finditer(re.escape(w), later))
                       or _begins_a_word(w, later) and _begins_a_word(w, earlier))}
    # (a Latin word is a value's when it names one: a name, a model; "knee" in "she reckons it's my hip not my
    # knee" after "physio with Mark on thursday again, my knee is still clicking" is what both speak of)
    named = _names(earlier) | _names(later)
    shared = {w for w in shared if not w.isascii() or w in named or any(ch.isdigit() for ch in w)}
    if not shared:
        return False
    # (a value the earlier line already left, left again, is no news: "Finally cancelled the old Chase
    # credit card too" after "Moved my checking from Chase to Ally Bank")
    left = [_subject(g) for m in _FROM_NAME.finditer(fb[2]) for g in m.groups() if g]
    if any(v & shared for v in (*_left_values(fb[2]), *left)):
        return True
    return not (_leaves(fa, fb) or _name_left(later, earlier) or _GONE.search(later))


# (characters after which a Chinese word begins: a line's start, a mark, 的, 是, a verb of having or using)
_WORD_BEFORE = frozenset("的是在了把给跟和与用订叫去到从换，。！？、：；,.!?:; ")


def _begins_a_word(w: str, text: str) -> bool:
    """Whether ``w`` stands in ``text`` where a word begins (:data:`_WORD_BEFORE`), not as the end of a
    longer one (小学 of 实验小学)."""
    return any(not m.start() or text[m.start() - 1] in _WORD_BEFORE for m in re.finditer(re.escape(w), text))


# a value gone: closed, left, given up (not any change: "Mate40的电池换了个新的" keeps the phone)
_GONE = re.compile(r"\b(?:closed|shut|retired|quit|left|sold|cancell?ed|went\s+bust|out\s+of\s+business|"
                   r"no\s+longer|never\s+going\s+back|gave\s+up|stopped|moved\s+(?:away|back\s+home|abroad)|"
                   r"went\s+back\s+home)\b"
                   r"|关了|关门|倒闭|不干了|搬走|退休|离职|不去了|不再|取消|卖了|退了|退掉|退订|解约|注销|停了|不用了|回国了|出国了", re.I)


def _a_sibling(later: str, earlier: str, query: str) -> bool:
    """Whether ``later`` is of a sibling of the thing the question names and the earlier line holds, one
    of its kind said by the same head character ("跟你说一下，儿子的游泳课改到周六上午十点了" after
    "儿子周末在新东方上英语课" for "儿子在哪儿上英语课？": 泳课 beside the 语课 asked), or names none of
    its kind."""
    if not has_cjk(later):  # (a line in another language names no Chinese kind: "Started going to Yoga Barn")
        return False
    for m in _HEADED.finditer(query):
        pair = m.group(1)
        if pair not in earlier or pair in later:
            continue
        heads = {pair[1], _SAME_HEAD.get(pair[1])}
        held = [h.group(1) for h in _HEADED.finditer(later)]
        # (another of the kind; or none of it at all: "我们搬家了，现在住在杭州西湖区" names no hotel, for
        # "我们在杭州最后订的是哪家酒店"; a class by its other name is one, 数学班 for 数学课, and 儿子的课 the class)
        if any(h[1] == pair[1] and h[0] not in _NO_MODIFIER for h in held) or not any(h[1] in heads for h in held):
            return True
    return False


# a Chinese word's last two characters where the last says what kind of thing it is: a class, a course, a
# shop, a hall (英语课, 游泳班, 理发店, 图书馆)
_HEADED = re.compile(rf"(?=([\u4e00-\u9fff][{_HEAD_CHARS}]))")
_NO_MODIFIER = frozenset("的了在上去是个这那此该本每节堂门家")  # (儿子的课, 上课, 这节课: no other class)


def _priced(later: str, earlier: str, aside: frozenset[str] = frozenset()) -> bool:
    """Whether ``later`` says a price or an amount of the thing moved where ``earlier`` says none (but the
    numbers ``aside``): for a question not asking how much, a new fee is no new thing ("这个月物业费涨到了每平米3块"
    after "物业是万科物业", for 物业公司是哪家？: a fresh-eyes review's trap)."""
    return bool(_PRICE_MOVED.search(later) and (_amounts(later) or _PRICE_ALONE.search(later))
                and not _amounts(earlier) - aside)


# a price said to move with no amount said ("光明鲜奶下个月开始涨价，一瓶贵了五毛", "they raised their prices again")
_PRICE_ALONE = re.compile(r"\b(?:raised|hiked|increased|lowered|cut)\s+(?:the|their|its|our)\s+prices?\b"
                          r"|\bprices?\s+(?:went|go(?:es|ing)?|gone)\s+(?:up|down)\b|涨价|降价|提价|加价|调价", re.I)


_PRICE_MOVED = re.compile(r"\b(?:(?:up|down)\s+to|raised|lowered|hiked|increased|decreased|"
                          r"(?:goes|going|went|gone)\s+(?:up|down))\b|涨|降价|降到|提价|上调|下调|加价", re.I)


# done for someone else: "first appointment with Dr. Shah, the orthodontist, for Mia's braces", "for my son"
# (unless the question asks of that one: "Tried Greenway Animal Clinic for Luna's shots" for "Who is Luna's vet?")
_FOR_ANOTHER = re.compile(r"\bfor\s+((?-i:[A-Z])[\w-]+['’]s|(?:my|our)\s+(?:son|daughter|kids?|children|wife|husband|"
                          r"partner|mum|mom|dad|mother|father|sister|brother|boy|girl)(?:['’]s)?)\b", re.I)


def _for_another(text: str, asked: frozenset[str]) -> bool:
    """Whether ``text`` says it was done for someone the question (its words ``asked``) does not ask of."""
    return any(not any(_asks(w, asked) for w in content_words(m.group(1), matching=True))
               for m in _FOR_ANOTHER.finditer(text))


# news of someone named: "Leo's got a new piano teacher", "Mia got moved to Mr. Baker's class", "Mia's started
# at a new school"; and of someone's person: "Sophie's sister moved to Austin", "Tom's brother Sam got a new number"
_NAMED_NEWS = re.compile(r"([A-Z][a-z]+)(?:['’]s\s+(?:got|gotten|new|started|starting|been|gone|moved|"
                         r"switched|changed|now|finally|just)|\s+(?:got|has|had|just|finally|switched|moved|changed|"
                         r"started)\s+(?:a\s+new|new|moved|switched|changed|started|to)|"
                         r"['’]s\s+(?:" + RELATIONS_EN + r"))\b")


def _named_news(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """Whether ``later`` opens with news of someone it names whom neither the earlier line nor the
    question (its words ``asked``) names, or of someone's person the question does not ask of: another
    child's new teacher is no news of 小宇's (fresh update set 6), "Sophie's sister moved" none of where
    Sophie lives. (Only as the line opens: "Got a new English tutor for my son — Ms. Harper… Zhou moved to
    Shenzhen" is the owner's news, the old tutor's move its reason.)"""
    m = _NAMED_NEWS.match(_statement(later))
    if m is None or m.group(1).lower() in _OPENERS:
        return False
    name, rest = m.group(1), m.group(0)[len(m.group(1)):]
    if not _says_word(earlier, name) and not _asks(stem(name.lower()), asked):
        return True
    person = rest.split()[-1]  # (someone's person: "Sophie's sister")
    return rest[:1] in "'’" and re.fullmatch(RELATIONS_EN, person, re.I) is not None \
        and not _says_word(earlier, person) and not _asks(stem(person.lower()), asked)


def _says_word(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word`` whole, in any case (Leo is not in Cleo)."""
    return re.search(r"(?<![\w'’])" + re.escape(word) + r"(?![\w])", text, re.I) is not None


# the words a line opens with that are no one's name: "Just got a new dentist", "Finally switched…",
# "Today's been crazy, the standup moved to 10am", "We switched…"
_OPENERS = frozenset(STOP_WORDS) | frozenset(
    "just finally today tonight yesterday tomorrow still also so then well ok okay anyway update btw lol haha yay "
    "ugh hey oh omg wow sadly luckily honestly apparently officially everything nothing someone everyone "
    "we it he she they you i this that there here my our your".split())


def _matter_alike(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """Whether ``later``, of the matter of ``earlier`` (:func:`_same_matter`), is the owner's statement of
    it now: no question, wish, supposition or hearsay, nothing of someone else's."""
    said = _two_statements(later, earlier)
    if said is None:
        return False
    a, b = said
    # (news passed on by one of the owner's people is read by the rules, which know the matter by its
    # words: "My sister told me Verizon is cheaper now" is no new carrier of the owner's)
    if _MESSENGER.search(a) or not _says_change_now(a) or _for_another(a, asked) or _named_news(a, b, asked):
        return False
    # (whose change it is, the clauses saying it tell: "爸妈上个月搬去温江了，说那边空气好，离我姐也近" is the
    # parents' move, "Brightwater Motors gets the car from now on, a colleague swears by them" the owner's
    # garage; "My sister switched to Brightwater Motors" is the sister's)
    a = " ".join(c for c in _CLAUSE.split(a) if _says_change_or_took_up(c)) or a
    keyed = _across(a, b)
    fa, fb = _keyed_facts(a, keyed), _owner_facts(earlier, b, keyed)
    return not (_others_news(fa, fb, a, b, asked) or _their_thing(a, b, asked))


def _a_statement(text: str) -> bool:
    """Whether ``text`` holds a statement of the owner's: not another's turn, a question or small talk."""
    return bool(_stated(text))


def _stated(text: str, least: float = 2) -> str:
    """What the owner states in ``text``, or "" for another's turn, a question or small talk (fewer than
    ``least`` content words: "Ok cool")."""
    said = _asking_off(_owner_said(_facts(text)[2]))
    return said if said and not said.endswith(("?", "？")) and _size(_facts(said)[0]) >= least else ""


def _amount_alike(later: str, earlier: str, asked: frozenset[str]) -> bool:
    """Whether ``later``, alike in meaning to ``earlier`` (:func:`_meant_alike`), says the amount now
    that a question asking how much (its words ``asked``) asks for: both the owner's statements, not a
    question nor a wish nor hearsay, the later saying the amount changed (:data:`_AMOUNT_CHANGE`) and
    another amount of the thing, near in size (:func:`_near_amounts`), and nothing of someone else's.
    (Two lines nearest in meaning saying a change, without the amount asked, were as often two facts:
    "The garage door opener code is 9027, changed after the break-in" after "The smoke alarm in the
    attic takes a 9-volt battery", 换了烟雾报警器的电池 after 自行车换了链条, "Started learning the cello on
    Tuesday evenings" after "The kids' school closes early on Friday" for "When is the next
    parent-teacher meeting?": benchmarks/no_memory.py.)"""
    said = _two_statements(later, earlier)
    if said is None:
        return False
    a, b = said
    if _not_now(a) or _SUPPOSED.search(a) or not _AMOUNT_CHANGE.search(a):
        return False
    if not (_near_amounts(_amounts(_BY_AMOUNT.sub(" ", a)), _amounts(b)) and _an_amount_of_it(a, b, asked)):
        return False
    keyed = _across(a, b)
    fa, fb = _owner_facts(later, a, keyed), _owner_facts(earlier, b, keyed)
    return not (_others_news(fa, fb, a, b) or _their_thing(a, b, asked))


# an amount said to change: up or down, from a day on, now (not any word of change: "Paid $1,700 for the
# new sofa" says no new rent)
_AMOUNT_CHANGE = re.compile(
    r"\b(?:now|(?:up|down)\s+to|(?:go(?:es)?|went|going|gone)\s+(?:up|down)|raised?|lowered|bumped|upped|increased?|"
    r"decreased?|cut|dropped|starting|from\s+(?:now|here)\s+on|as\s+of|going\s+forward|instead)\b"
    r"|涨|降|提高|提到|调到|调整|改成|改为|变成|换成|现在|以后|开始|加到|减到|上调|下调"
    r"|(?:下个?月|下周|下星期|明年|本月|这个月|今年|从[^，。！？\s]{1,6})起(?![来床飞])", re.I)
# an amount supposed, offered or refused, not one that holds: "If rent went up to $2,000 I'd have to
# move", 要是房东涨到5500我就搬家, 房东说想涨到5000，我没同意 (a fresh-eyes review's traps; not "could":
# "$2,040 starting next month. I could cry" holds)
_SUPPOSED = re.compile(r"\b(?:if|unless|would|i'd|we'd|offered|proposed|asked\s+for|wants?\s+to|"
                       r"(?:asking|telling|texting|emailing|calling|begging|pushing|urging|nagging)\s+(?:me|us)\s+to|"
                       r"refused|declined|turned\s+down|didn't\s+agree|quoted)\b"
                       r"|要是|如果|假如|万一|的话|想涨|想降|想加|要涨|要求涨|没同意|不同意|拒绝|没答应|报价", re.I)
# what an amount changed by, not to ("went up by $100", "涨了500", 便宜了六百多): no value of the thing
_BY_AMOUNT = re.compile(r"\bby\s+(?:another\s+)?[$€£¥]?\s*\d[\d,.]*\s*(?:%|k\b|percent|points?)?"
                        r"|(?:涨|降|加|减|多|少|省|便宜|贵)了\s*[\d零〇一二两三四五六七八九十百千万.]+", re.I)
_FIGURE = re.compile(r"^(\d+(?:\.\d+)?)(k)?%?$", re.I)


def _near_amounts(later: frozenset[str], earlier: frozenset[str]) -> bool:
    """Whether ``later`` says another amount within twice or half of one ``earlier`` says: a rent, a
    price, a share goes up or down by less than that ("$1,790 starting next month" after "$1,650 a
    month", 10% after 6%); another thing's amount is as often of another size ("移动的128元套餐" beside
    "房租一个月4800")."""
    def values(said: frozenset[str]) -> set[tuple[float, bool]]:
        out = set()
        for s in said:
            m = _FIGURE.match(s.replace(",", ""))
            if m:
                out.add((float(m.group(1)) * (1000 if m.group(2) else 1), s.endswith("%")))
        return out

    va, vb = values(later), values(earlier)
    # (a share with a share, a sum with a sum: "$10 a week into the 401k" is no new 6 %)
    return any(x != y and y > 0 and 0.5 <= x / y <= 2 and pa == pb for x, pa in va for y, pb in vb)


def _facet_first(out: list, facet_news: set[int], text, facets: frozenset[str], query: str,
                 asked_kinds: tuple[bool, ...] = ()) -> list:
    """``out`` with the best ranked of ``facet_news`` (later answers that update an earlier one, both
    naming a facet the question names, or a kind one has one at a time it asks about: ``asked_kinds``)
    first, when what the owner says in the first result names none of them (an assistant's "Done, I
    saved your bank." names nothing the owner holds).

    "Where do I work at the moment?" ranked "I go to the Planet Fitness on 5th Avenue, usually before
    work" first, on its word "work", and with it the later line saying the gym membership ended; the
    job change ("accepted the offer from Fabrikam") after "I work as a data analyst at Northwind" came
    third. A result naming no facet the question names may well be its answer, said in words no facet
    holds ("all my meds come from Rite Aid on Main" for "Which pharmacy do I use?"): a line naming the
    facet goes above it only when it is an update of another that names it too, so that two statements
    of the facet and a change between them vouch for the matter; only within the :data:`HORIZON`,
    where the pairs were read; and not a wish or a supposition ("if I moved to Oakland my commute would
    be like 90 minutes", 要是搬到朝阳) nor someone else's facet ("Emma's bedtime is now 8pm"): a fresh-eyes
    review's cases, each of which had moved a wrong mark's line above the answer."""
    lead = _owner_said(_facts(text(out[0]))[2])  # (an assistant's turn names nothing the owner holds)
    if facets_named(lead, facets) or _names_kind(lead, asked_kinds):
        return out
    for i, it in enumerate(out[:HORIZON]):
        if id(it) not in facet_news:
            continue
        said = _facts(text(it))[2]
        if not _WISH.search(said) and not _someone_s_facet(said, facets, query):
            return [it, *out[:i], *out[i + 1:]]
    return out


def _names_kind(text: str, asked: tuple[bool, ...]) -> bool:
    """Whether ``text`` names a kind a question asks about (:func:`kinds_asked`), by a head or a member."""
    return any(asked) and any(ask and (head or named) for ask, (head, named) in zip(asked, _kind_reading(text)))


def _people_asked(query: str) -> frozenset[str]:
    """The owner's people a question asks about ("Where does my husband work now?": husband), as
    :func:`kin` names them; not one's boss, who is a facet (text/facets.py, "manager")."""
    return frozenset(map(kin, people_in(query))) - {kin("boss")}


def _names_people(text: str, people: frozenset[str]) -> bool:
    """Whether ``text`` names one of ``people`` (:func:`_people_asked`), or none are asked: a facet links
    a line about the owner's husband's work to no line of the owner's own ("I started a new job at the
    library" is no news of where he works)."""
    return not people or bool(people & frozenset(map(kin, people_in(text))))


# a name's thing ("Emma's bedtime", "Joe's landlord"): whose it is, when it names a facet
_NAME_S = re.compile(r"(?<![\w'’])([A-Z][\w-]+)['’]s\s+(\S+(?:\s+\S+)?)")


def _anothers(later: str, earlier: str, query: str) -> bool:
    """Whether ``later``, linked to ``earlier`` by the second model alone, names a person's thing that
    neither the question nor the earlier line names ("Emma's bedtime is now 8pm" for "What time do I go to
    sleep now?"; not "It's on the top shelf", nor "Mara's class moved" after "Yoga with Mara")."""
    return any(name.lower() not in _NOT_A_NAME for name, _ in _things_of_others(later, query, earlier))


# (a capitalised word before 's that is no one's name: "It's", "That's", "She's way tidier")
_NOT_A_NAME = frozenset("it that this there here what who where when how let he she everyone everything "
                        "nobody somebody someone today tomorrow mom mum dad".split())


def _someone_s_facet(text: str, facets: frozenset[str], query: str) -> bool:
    """Whether ``text`` names one of ``facets`` as the thing of a name the question does not name."""
    return any(facets_named(thing, facets) for _, thing in _things_of_others(text, query))


def _things_of_others(text: str, *known: str):
    """(name, thing) of each name's thing in ``text`` (:data:`_NAME_S`) whose name none of ``known`` (the
    question, an earlier line) holds."""
    for m in _NAME_S.finditer(text):
        if not any(m.group(1) in k for k in known):
            yield m.group(1), m.group(2)


def bring_history(items: list, when, text) -> list:
    """For a question about what holds now: ``items`` with the earlier statement of a value the first
    item says was left ("I left Bluefin Labs and joined Acme" — "I started my new job at Bluefin
    Labs") moved to just below it when it ranked past :data:`HORIZON`, where :func:`order` would
    never see the pair. In long turns the earlier statement is one sentence of a message about
    other things, and ranks far down a list full of the question's words ("work": every "walk after
    work"). Only the first item's: a value some other result left ("we cancelled the Netflix
    subscription") brought up a documentary seen on Netflix. ``when`` and ``text`` as for :func:`order`."""
    out = list(items)
    w = when(out[0]) if len(out) > HORIZON else None
    left = _left_values(_facts(text(out[0]))[2]) if w is not None else ()
    for j in range(HORIZON, len(out)) if left else ():
        low = text(out[j]).lower()
        if not any(all(word in low for word in v) for v in left):  # (a stem or a bigram is in the text)
            continue
        old = when(out[j])
        if old is not None and old < w and any(v <= _facts(text(out[j]))[0] for v in left):
            out.insert(1, out.pop(j))
            break
    return out


def row_when(r: dict) -> tuple[str, int] | None:
    """When a result row (``memory_search``'s shape) was said: a dated note's or a promoted entry's
    date (:func:`dated`), or, for a message of an earlier conversation, the day it was said (its
    ``timestamp``; no line: two messages of one day are not ordered). Only what the owner said is
    dated there: an assistant's reply quotes memory, it never updates it."""
    if r.get("source") == "sessions":
        ts = str(r.get("timestamp") or "")
        return (ts[:10], 0) if r.get("role") == "user" and _ISO_DAY.match(ts) else None
    return dated(str(r.get("path") or ""), r.get("snippetStartLine") or r.get("startLine"), str(r.get("snippet") or ""))


def prefer_newest(results: list[dict], query: str = "") -> list[dict]:
    """Result rows (``memory_search``'s shape: notes, promoted entries, messages of earlier
    conversations) ordered by :func:`order` for ``query``, each updated row marked ``supersededBy``."""
    rows, marks = order(results, row_when, lambda r: str(r.get("snippet") or ""),
                        lambda r: r.get("citation") or r.get("path"), query,
                        score=lambda r: float(r.get("score") or 0.0))
    for r in rows:
        if id(r) in marks:
            r["supersededBy"] = marks[id(r)]
    return rows
