"""The keyword score shared by memory search and transcript search, and the memory keyword leg.

**Score.** A text's keyword score is the share of the query's information it contains: each query
token (a stemmed word, a CJK bigram) weighs its inverse document frequency in the index being
searched, ``log(1 + (N - df + 0.5) / (df + 0.5))``, and the score is the weight of the tokens the
text holds over the weight of all of them, in [0, 1]. Why: FTS5's bm25 squashed into [0, 1] is
≈ 0 in a workspace of a few notes and ≈ 0.9 for every hit in a large one, and plain word coverage
lets a chatty word ("remember", "talked") count as much as the one rare word that finds the answer;
the weighted share is 1 for a text holding every query word at any corpus size, and on a large
corpus it follows the rare words as bm25 does (measured both ends in docs/search.md). bm25 still
decides which texts the leg fetches (FTS5's fast ``ORDER BY rank``).

**Long, chatty queries** (an agent passing the last message or the dialogue so far): the tokens of
the most recent turn weigh twice, filler words are dropped, and only the most informative tokens
(:data:`MAX_QUERY_TOKENS`) go into the FTS query; tokens in more than a fifth of a large index are
left out of the FTS query (they only make FTS score most of the index) but still count in the score.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache

import apsw

from ..index import reads
from ..text.cjk import CJK_RUN_RE, LazyPattern, has_cjk
from ..text.fts import TOKENIZERS, bm25_to_score, build_query, escape_like, segment_for_index

# Words that carry no meaning in a query (English, Chinese, Japanese, Korean function words, the
# filler of conversational queries, and the frame of a counting question: "how many … in total",
# "一共 … 多少", which matched any note saying "many"; "now", as 现在, frames a question — "Where do I
# work now?" ranked "Concert tickets are so expensive now." first); FTS5's operator words are among them.
STOP_WORDS = frozenset(
    "a an and are as at be but by for from has have i in is it me my not of on or our so that the "
    "their them they this to was we were what when where which who why will with you your near "
    "do does did done can could would should shall may might must am been being had its it's "
    "about into over than then there these those here how any all some just also very really "
    "yes no ok okay oh hi hey hello thanks thank please well so um uh yeah sure let lets "
    "many much total altogether now "
    "的 了 是 在 和 也 就 都 而 及 与 吗 呢 吧 啊 呀 哦 嗯 哈 我 你 他 她 它 们 这 那 "
    "什么 为什么 怎么 怎么样 哪 哪里 我们 你们 他们 她们 自己 这个 那个 这些 那些 一个 一些 一下 "
    "可以 知道 觉得 现在 时候 真的 还是 就是 没有 不是 因为 所以 但是 如果 已经 有点 非常 比较 然后 "
    "还有 的话 是不是 有没有 怎样 这样 那样 哈哈 谢谢 你好 好的 对了 其实 一共 总共 多少 到现在 "
    "の は が を に で と も です ます 이 가 은 는 을 를 에 의".split())
MAX_QUERY_TOKENS = 24
COMMON_SHARE = 0.2  # a token in more of the index than this is left out of the FTS query ...
COMMON_MIN_DOCS = 2_000  # ... once the index is large enough for that to cost time
RECENT_WEIGHT = 2.0
_SPEAKER_RE = LazyPattern(r"^\s*[\w\u4e00-\u9fff .'-]{1,24}[:：]\s*")  # 3 ms to compile: on first use


def _tokenizer_spec(tokenizer: str) -> tuple[str, list[str]]:
    parts = TOKENIZERS[tokenizer].split()
    return parts[0], parts[1:]


_local = threading.local()


def _tokenize(tokenizer: str, text: str, query: bool) -> list[str]:
    """The tokens FTS5 itself makes of ``text`` (porter stems, unicode61 words, trigrams)."""
    toks = getattr(_local, "toks", None)
    if toks is None:
        toks = _local.toks = {"conn": apsw.Connection(":memory:")}
    if tokenizer not in toks:
        name, args = _tokenizer_spec(tokenizer)
        toks[tokenizer] = toks["conn"].fts5_tokenizer(name, args)
    reason = apsw.FTS5_TOKENIZE_QUERY if query else apsw.FTS5_TOKENIZE_DOCUMENT
    return [t[2] for t in toks[tokenizer](text.encode("utf-8"), reason, None)]


@lru_cache(maxsize=16_384)
def text_tokens(text: str, tokenizer: str = "cjk") -> frozenset[str]:
    """The index tokens of ``text`` (as written to the FTS table), for matching query tokens."""
    return frozenset(_tokenize(tokenizer, segment_for_index(text, tokenizer), False))


@lru_cache(maxsize=4)
def _stop_tokens(tokenizer: str, ascii_only: bool = False) -> frozenset[str]:
    """The tokens of the stop words; ``ascii_only``: of the ASCII ones only, all an ASCII text can
    hold (the CJK ones need the CJK pattern compiled, ~10 ms a cold command need not pay)."""
    out: set[str] = set()
    for w in STOP_WORDS:
        if w.isascii() or not ascii_only:
            out.update(_query_tokens_of(w, tokenizer))
    return frozenset(out)


def has_content(text: str, tokenizer: str) -> bool:
    """Whether ``text`` holds a query token that is not a stop word."""
    stop = _stop_tokens(tokenizer, text.isascii())
    return any(t not in stop for t in _query_tokens_of(text, tokenizer))


def _query_tokens_of(text: str, tokenizer: str) -> list[str]:
    """Query tokens: stemmed words and, for CJK runs under the ``cjk`` tokenizer, their bigrams
    (a one-character run stays one token)."""
    if tokenizer == "cjk" and has_cjk(text):
        out: list[str] = []
        pos = 0
        for m in CJK_RUN_RE.finditer(text):
            out.extend(_tokenize(tokenizer, text[pos:m.start()], True))
            run = m.group(0).lower()
            out.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
            pos = m.end()
        out.extend(_tokenize(tokenizer, text[pos:], True))
        return out
    return _tokenize(tokenizer, text, True)


def _turns(query: str) -> list[str]:
    return [ln for ln in (line.strip() for line in query.split("\n")) if ln]


def is_conversational(query: str) -> bool:
    """A dialogue or a long message rather than a search phrase."""
    return len(_turns(query)) > 1 or len(query) > 280 or (has_cjk(query) and len(query) > 80)


def recent_turn(query: str) -> str:
    """The last turn of a dialogue-like query, without a ``Speaker:`` prefix."""
    turns = _turns(query)
    last = turns[-1] if turns else query
    return _SPEAKER_RE.sub("", last, count=1) or last


@dataclass
class QueryTerms:
    """The query as index tokens, each weighed by its IDF in the searched index (and doubled for
    the most recent turn of a dialogue). Plain floats, no numpy: at most 24 tokens, and a keyword-only
    search must not pay for importing it. Weights are summed with ``math.fsum`` (exact), so texts
    holding equally weighted tokens score exactly alike."""

    tokens: list[str]
    weights: list[float]
    match: str | None  # FTS5 expression fetching candidates (any token), None when nothing to match
    strict: str | None = None  # all tokens, tried first for short queries
    like: list[str] = field(default_factory=list)  # trigram: short CJK words required as substrings
    n_docs: int = 0
    fetch: list[str] = field(default_factory=list)  # the tokens ``match`` asks for (engines matching tokens)
    # a token -> the members of the kind it names (see :func:`expand_kinds`): a text naming one of
    # them holds the token
    alts: dict[str, list[Member]] = field(default_factory=dict)
    heads: dict[str, str] = field(default_factory=dict)  # a token of :attr:`alts` -> the question's word for it
    # a token of a kind's head (or a count's measure) -> every member, those the question says itself
    # too (no alternative to a token it holds, but a line naming one names the kind: :meth:`names_kind`)
    kind_members: dict[str, list[Member]] = field(default_factory=dict)
    # a token -> the words of the thing it names in the other language (see :func:`expand_across`): a text
    # naming one holds the token at :data:`ACROSS_CREDIT`
    across: dict[str, list[Member]] = field(default_factory=dict)
    _kind_index: tuple | None = field(default=None, init=False, repr=False, compare=False)  # (names_kind's)
    # tokens no text holds: a pair across the edge of a word the question names (:func:`_straddling`),
    # still weighed (so every other text scores as before), never held
    void: frozenset[str] = frozenset()

    @property
    def empty(self) -> bool:
        return not self.tokens and not self.like

    def mask(self, text: str, tokenizer: str) -> list[float]:
        """How much of each query token ``text`` holds, in the order of :attr:`tokens`: 1 (True) held, 0
        (False) not, :data:`ACROSS_CREDIT` held only by its thing's name in the other language."""
        have = text_tokens(text, tokenizer)
        low = text.lower()
        held = [(t in have) if not _prefix(t) else (t in low) for t in self.tokens]
        if self.alts:
            held = [h or any(m.held(have, low) for m in self.alts.get(t, ())) for h, t in zip(held, self.tokens)]
        if self.across:
            held = [h or (ACROSS_CREDIT if any(m.held(have, low) for m in self.across.get(t, ())) else False)
                    for h, t in zip(held, self.tokens)]
        if self.void:  # (never held, whatever holds it)
            held = [h and t not in self.void for h, t in zip(held, self.tokens)]
        return held

    def held_by_members(self, text: str, tokenizer: str) -> dict[str, str]:
        """{head word as the question says it: the member that holds it} for the query tokens
        ``text`` holds only through a member of a kind, or through its thing's name in the other language
        (explain: why "Saw a dermatologist" holds "doctors", "Yoga on Mondays" 瑜伽; a Chinese head,
        whose bigrams are several tokens, once)."""
        if not self.alts and not self.across:
            return {}
        have = text_tokens(text, tokenizer)
        low = text.lower()
        out: dict[str, str] = {}
        for t in self.tokens:  # (a head is never a lone CJK character: held directly means in ``have``)
            if (t in self.alts or t in self.across) and t not in have:
                member = next((m for m in [*self.alts.get(t, ()), *self.across.get(t, ())] if m.held(have, low)), None)
                if member is not None:
                    out.setdefault(self.heads.get(t, t), member.word)
        return out

    def names_kind(self, text: str, tokenizer: str) -> bool:
        """Whether ``text`` names a kind the question counts (:attr:`kind_members`) or one of its
        members, as written: a Chinese head whole (音乐会, not the 音乐 of its bigrams: "听了会儿音乐"
        names no concert), an English one as a word in the singular or the plural ("shows", not
        "showed"), or a count's measure ("看了一场脱口秀")."""
        if self._kind_index is None:  # (asked of the best candidates of a count: what it looks for, once)
            self._kind_index = _kind_words(self, tokenizer)
        cjk, forms, latin = self._kind_index
        if any(w in text for w in cjk) or any(held in text and p.search(text) for held, p in forms):
            return True
        if not latin:
            return False
        low = text.lower()
        return any(p.search(low) for w in set(_LATIN_WORD.findall(low)) for p in latin.get(w, ()))

    def coverage(self, mask: list[float]) -> float:
        """The weight of the tokens ``mask`` marks (as much as it holds of each), over the weight of all (0
        when there is none)."""
        total = math.fsum(self.weights)
        return math.fsum(w * held for w, held in zip(self.weights, mask)) / total if total > 0 else 0.0


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def _prefix(token: str) -> bool:
    """A lone CJK character: matched as a prefix in FTS (it starts bigrams) and as a substring."""
    return len(token) == 1 and has_cjk(token)


def _quote(token: str) -> str:
    return '"' + token.replace('"', "") + '"' + ("*" if _prefix(token) else "")


def _fts_term(token: str, tokenizer: str, surface: dict[str, str]) -> str:
    """The FTS5 expression that matches ``token`` as stored. FTS5 stems a query term again, and
    the porter stem is not always a fixpoint ("japanese" -> "japanes" -> "japan": a search for
    "Japanese" found nothing): such a token is asked for by the query's own word, which stems to it."""
    if _tokenize(tokenizer, token, True) == [token]:
        return _quote(token)
    return _quote(surface.get(token, token))


def _surface_words(query: str, tokenizer: str) -> dict[str, str]:
    """token -> the query word it was stemmed from."""
    out: dict[str, str] = {}
    for word in re.findall(r"\w+", query):
        toks = _tokenize(tokenizer, word, True)
        if len(toks) == 1:
            out.setdefault(toks[0], word)
    return out


def analyse_query(conn: apsw.Connection, query: str, tokenizer: str, fts_table: str, n_docs: int,
                  version: tuple | None = None, frequencies=None) -> QueryTerms:
    """Tokens, weights and FTS expressions for ``query`` against ``fts_table`` (``n_docs`` rows;
    ``version`` names the index state, so token counts can be reused until it changes).
    ``frequencies(tokens)`` counts documents per token where the rows are not FTS5's (PostgreSQL)."""
    conversational = is_conversational(query)
    recent = recent_turn(query) if conversational else ""
    stop = _stop_tokens(tokenizer, query.isascii())  # (the recent turn is a part of the query)
    weights: dict[str, float] = {}
    for tok in _query_tokens_of(query, tokenizer):
        if tok not in stop:
            weights.setdefault(tok, 1.0)
    if recent:
        for tok in _query_tokens_of(recent, tokenizer):
            if tok in weights:
                weights[tok] = RECENT_WEIGHT
    if not weights:  # a query of stop words only: use them rather than nothing
        for tok in _query_tokens_of(query, tokenizer):
            weights.setdefault(tok, 1.0)
    like: list[str] = []
    if tokenizer == "trigram":
        # trigram cannot match 1-2 characters: a short CJK word becomes a substring filter
        for word in re.findall(r"\w+", query.lower()):
            if has_cjk(word) and len(word) < 3 and word not in like:
                like.append(word)
    df = frequencies(list(weights)) if frequencies else document_frequencies(conn, fts_table, list(weights), version)
    if conversational:  # a chatty word the memory never uses says nothing about what to find
        weights = {t: w for t, w in weights.items() if df.get(t, 0) > 0} or weights
    scored = {t: w * idf(n_docs, df.get(t, 0)) for t, w in weights.items()}
    # the most informative tokens the index holds come first; a word it lacks still lowers the
    # score of every text (the memory may not hold the answer) but never takes a present word's place
    tokens = sorted(scored, key=lambda t: (df.get(t, 0) == 0, -scored[t]))[:MAX_QUERY_TOKENS]
    common = n_docs >= COMMON_MIN_DOCS
    fetch = [t for t in tokens if not (common and df.get(t, 0) > COMMON_SHARE * n_docs)] or tokens[:1]
    surface = _surface_words(query, tokenizer)
    match = " OR ".join(_fts_term(t, tokenizer, surface) for t in fetch) if fetch else None
    strict = None
    if not conversational and len(tokens) > 1:
        strict = " AND ".join(_fts_term(t, tokenizer, surface) for t in tokens)
    w = [scored[t] for t in tokens]
    if w and math.fsum(w) <= 0:
        w = [1.0] * len(w)
    return QueryTerms(tokens, w, match, strict, like, n_docs, fetch)


@dataclass(frozen=True)
class Member:
    """A member of a kind (text/kinds.py) as the index and a text hold it."""

    tokens: frozenset[str]  # its query tokens (porter stems, CJK bigrams): all in a text that names it
    surface: re.Pattern | str  # its words as written, in a row; a Chinese word as written
    fts: str  # the FTS5 expression that finds it (its words or bigrams as a phrase)
    word: str = ""  # as the lexicon writes it (what explain shows)

    def held(self, have: frozenset[str], low: str) -> bool:
        if not self.tokens <= have:  # (a set lookup first: most texts hold none)
            return False
        return self.surface_in(low)

    def surface_in(self, low: str) -> bool:
        """Whether the lower-cased text ``low`` says it as written."""
        if isinstance(self.surface, str):
            return self.surface in low
        return self.surface.search(low) is not None


def members_note(members: dict[str, str]) -> str:
    """``{"doctor": "cardiologist"}`` -> ``'"doctor" as "cardiologist"'``: the head words of a kind a
    unit holds only through one of its members (explain's ``keyword.members``, for the CLI and the
    web view)."""
    return ", ".join(f'"{head}" as "{member}"' for head, member in members.items())


def _member(word: str, tokenizer: str) -> Member | None:
    toks = frozenset(_query_tokens_of(word, tokenizer))
    if not toks or any(_prefix(t) for t in toks):
        return None
    from ..text.kinds import surface  # (with the lexicon, on the first question that takes kinds)

    fts = _quote(" ".join(_query_tokens_of(word, tokenizer))) if has_cjk(word) else _quote(word)
    return Member(toks, surface(word), fts, word)


def _kind_words(qt: QueryTerms, tokenizer: str) -> tuple:
    """What :meth:`QueryTerms.names_kind` looks for, each with a cheap test first (it reads the
    best candidates of a count): the Chinese heads and members as written (a substring each); the
    Chinese forms of a pattern (a measure after a number, "游了" with laps), each after the words it
    must hold; the English words' patterns by their first word, read only where the text holds it."""
    cjk: dict[str, None] = {}
    cjk_forms: dict[tuple[str, str], None] = {}
    latin: dict[str, dict[str, None]] = {}  # a first word, in the forms it may take -> its patterns

    def add_latin(word: str, pattern: str) -> None:
        for w in re.findall(r"[a-z0-9]+", word.lower())[:1]:  # (in the singular or the plural)
            for form in {w, w + "s", w + "es", w[:-1] + "ies", w.rstrip("s"), w[:-1], w[:-2]}:
                latin.setdefault(form, {})[pattern] = None

    for t, members in qt.kind_members.items():
        head = qt.heads.get(t, t)
        if has_cjk(head):
            cjk[head] = None
        else:
            m = _member(head, tokenizer)
            if m is not None and not isinstance(m.surface, str):
                add_latin(head, m.surface.pattern)
        for m in members:
            if isinstance(m.surface, str):
                cjk[m.surface] = None
            elif has_cjk(m.word):
                cjk_forms[("".join(ch for ch in m.word if has_cjk(ch)), m.surface.pattern)] = None
            else:
                add_latin(m.word, m.surface.pattern)
    forms = tuple((held, re.compile(p)) for held, p in cjk_forms)
    return tuple(cjk), forms, {w: tuple(map(re.compile, ps)) for w, ps in latin.items()}


_LATIN_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=4)
def _kinds(tokenizer: str) -> list[tuple[tuple[str, ...], list[Member], object, str]]:
    """Each head word of text/kinds.py as (its query tokens, the kind's members, the kind, the head
    word): built on the first question that takes kinds (about 500 words)."""
    from ..text.kinds import KIND_LIST, PATTERN_MEMBERS

    out = []
    for kind in KIND_LIST:
        members = [m for m in (_member(w, tokenizer) for w in kind.members) if m is not None]
        for pattern, word in (PATTERN_MEMBERS[h] for h in kind.heads if h in PATTERN_MEMBERS):
            toks = _query_tokens_of(word.rstrip("…"), tokenizer)
            members.append(Member(frozenset(toks), re.compile(pattern), _quote(" ".join(toks)), word))
        for head in kind.heads:
            toks = tuple(dict.fromkeys(_query_tokens_of(head, tokenizer)))
            if toks and not any(_prefix(t) for t in toks):
                out.append((toks, members, kind, head))
    return out


def expand_kinds(qt: QueryTerms, question: str, tokenizer: str, only: tuple[str, ...] | None = None) -> list[Member]:
    """For a counting question or one about what holds now: each query token of a head word of a
    kind (text/kinds.py: "doctors", "植物") is held by a text that names a member of it
    ("dermatologist", "龟背竹"), as :attr:`QueryTerms.alts`; ``only``: the kinds (by their first head)
    taken, None for all. Returns those members, for a leg that asks the index for them ([] when the
    question names no kind)."""
    if tokenizer != "cjk" or not qt.tokens:
        return []
    have = frozenset(qt.tokens)
    found: dict[str, Member] = {}
    named: dict[str, str] = {}  # a token of a head -> the head as the question says it (explain)
    straddle: set[str] = set()  # the bigrams across a Chinese head's edges (自行车上: 车上)
    for toks, members, kind, head in _kinds(tokenizer):
        if all(t in have for t in toks) and kind.asked_in(question) and (only is None or kind.heads[0] in only):
            # a member the question asks for itself stands for nothing more ("swimming at the
            # pool": a unit saying "pool" holds "pool", not a swim as well)
            alts = [m for m in members if not m.tokens <= have]
            for t in toks:
                qt.alts.setdefault(t, []).extend(alts)
                qt.kind_members.setdefault(t, []).extend(members)
                if has_cjk(head) and head in question:  # a Chinese head whole: 自行车, not 自行 and 行车
                    named.setdefault(t, head)
            found.update((m.fts, m) for m in alts)
            if has_cjk(head):
                straddle.update(_straddling(question, head))
    qt.void = frozenset(straddle - set(qt.alts))
    if qt.alts:  # an English head by the question's word: "movies", not its stem "movi"
        words = {t: w for w in re.findall(r"[^\W\d_]+(?:['-][^\W\d_]+)*", question)
                 if not has_cjk(w) for t in _query_tokens_of(w, tokenizer)}
        qt.heads = {t: named.get(t) or words.get(t, t) for t in qt.alts}
    return list(found.values())


def expand_measures(qt: QueryTerms, measures: list, tokenizer: str) -> list[Member]:
    """Each measured count's pair in the query ("几盆" of "几盆植物": search/counting.py's
    ``measure_words``) is held by a text saying it with a number ("一盆", "两小盆"), as
    :attr:`QueryTerms.alts`; so is the head of the kind it measures (植物: "一小盆罗勒" is one).
    Returns the members, for the leg asking the index for them."""
    if tokenizer != "cjk":
        return []
    out: list[Member] = []
    for measure in measures:
        if measure.pair not in qt.tokens:
            continue
        after = f"(?!{measure.not_before})" if measure.not_before else ""  # 一场 of a show, not of 一场雨
        members = [m for m in (_member(w, tokenizer) for w in measure.words) if m is not None]
        if after:
            members = [Member(m.tokens, re.compile(re.escape(m.word) + after), m.fts, m.word) for m in members]
        members.append(_in_digits(measure.pair[-1], after))
        heads = [t for t in qt.alts if t in measure.counted]  # (a kind's head, from expand_kinds)
        for t in (measure.pair, *heads):
            qt.alts.setdefault(t, []).extend(members)
            qt.kind_members.setdefault(t, []).extend(members)
        qt.heads.setdefault(measure.pair, measure.pair)
        out.extend(members)
    return out


# A method is named in Chinese by what it is for, then 法 (番茄工作法, 艾宾浩斯记忆法, 物理疗法, 四象限法,
# 五十三十二十法): a question asking for a 方法 or an 办法 ("你推荐过我哪种记账方法？") is answered by such a
# name, which holds neither word (in English the name says it: "the 50/30/20 method"). Not any word
# ending in 法: 想法, 看法, 没办法, 语法, 书法, 魔法, 算法, 刑法 are no method anyone recommends. So a list of the
# endings of methods people use in their own lives -- study, memory, work, money, food, sleep, breath,
# exercise, tidying, children, and a number before 法 -- each found by its last two characters (the
# index's bigram, whatever follows: "番茄工作法很好用"), held where the text says the whole ending
METHOD_ENDINGS = ("工作法 学习法 记忆法 阅读法 复习法 速记法 笔记法 记账法 理财法 存钱法 饮食法 断食法 减肥法 "
                  "呼吸法 训练法 练习法 锻炼法 睡眠法 放松法 整理法 收纳法 思考法 管理法 育儿法 教学法 "
                  "象限法 疗法 步法 二法 三法 四法 五法 六法 七法 八法 九法 十法").split()
# the question's words for a method (its query tokens), and where one of them asks for it: not 地方法规 /
# 地方法律 (地方 "local" + 法律 "law")
METHOD_WORDS = ("方法", "办法", "辦法", "法子")
_ASKS_METHOD = LazyPattern(r"(?<!地)方法(?![律规院官庭])|办法|辦法|法子")


@lru_cache(maxsize=4)
def _method_members(tokenizer: str) -> tuple[Member, ...]:
    out = []
    for word in METHOD_ENDINGS:
        end = word[-2:]
        out.append(Member(frozenset(_query_tokens_of(end, tokenizer)), word, _quote(end), word))
    return tuple(out)


def expand_methods(qt: QueryTerms, question: str, tokenizer: str) -> list[Member]:
    """A question asking for a 方法 / 办法 holds it in a text naming a method (:data:`METHOD_ENDINGS`:
    "…二十法", "番茄工作法"), as :attr:`QueryTerms.alts`. Returns the members, for the leg asking the index
    for them ([] when the question asks for no method)."""
    if tokenizer != "cjk" or _ASKS_METHOD.search(question) is None:
        return []
    heads = [t for t in qt.tokens if t in METHOD_WORDS]
    if not heads:
        return []
    members = list(_method_members(tokenizer))
    for head in heads:
        qt.alts.setdefault(head, []).extend(members)
        qt.heads.setdefault(head, head)
    return members


@lru_cache(maxsize=4)
def _facet_members(tokenizer: str) -> dict[str, tuple[Member, ...]]:
    """Each facet of text/facets.py as the members its index words make (a Chinese word kept from
    a sense by what stands beside it is held where its pattern says it)."""
    from ..text.facets import index_words

    out = {}
    for facet, words in index_words().items():
        members = []
        for word, pattern in words:
            m = _member(word, tokenizer)
            if m is not None:
                members.append(Member(m.tokens, re.compile(pattern), m.fts, m.word) if pattern else m)
        out[facet] = tuple(members)
    return out


def expand_facets(qt: QueryTerms, question: str, tokenizer: str) -> list[Member]:
    """For a question asking what holds: each query token of a word naming a facet of life
    (text/facets.py: "landlord", 去上班) is held by a text naming any other word of that facet, in
    either language ("新房东是个年轻人" for "Who's my landlord?", "办了张地铁卡" for "我平时怎么去上班？"), as
    :attr:`QueryTerms.alts`. The later statement of such a fact often shares no word with the
    question, and the bundled embedder ranks it far below the earlier one that does: found, the
    newest-first order (search/newest.py) can read the two as one fact. Returns the members, for a
    leg that asks the index for them ([] when the question names no facet)."""
    if tokenizer != "cjk" or not qt.tokens:
        return []
    from ..text.facets import facets_of

    have, low, stop = frozenset(qt.tokens), question.lower(), _stop_tokens(tokenizer)
    found: dict[str, Member] = {}
    for facet in facets_of(question):
        # each member with its tokens but a phrase's stop words ("to" of "report to" is no query token)
        members = [(m, m.tokens - stop) for m in _facet_members(tokenizer).get(facet, ())]
        named = [(m, core) for m, core in members if core and core <= have and m.surface_in(low)]
        alts = [(m, core) for m, core in members if not core <= have]
        for m, core in named:
            for t in core:
                qt.alts.setdefault(t, []).extend(a for a, _ in alts)
                qt.heads.setdefault(t, m.word)
        if named:  # (the leg asks for words, not phrases: an engine matching tokens would ask for "home"
            # of "take-home"; a phrase is still held where another leg found its line)
            found.update((m.fts, m) for m, core in alts if len(core) == 1 or has_cjk(m.word))
    return list(found.values())


# how much of a query token a text holds that names its thing only in the other language ("hotel" for 酒店):
# enough to find the note, not enough to tie with a note of the question's own language ("酒店" found the
# English hotel note first at full credit, by its later date)
ACROSS_CREDIT = 0.5


def expand_across(qt: QueryTerms, question: str, tokenizer: str) -> list[Member]:
    """Each query token of an everyday thing the question names (text/bilingual.py: 瑜伽 and "yoga", 房东
    and "landlord", 牙医 and "dentist") is held by a text naming the thing in the other language, at
    :data:`ACROSS_CREDIT` (:attr:`QueryTerms.across`): an English note answers a Chinese question by keyword
    and the reverse, and a note in the question's own language saying as much still leads. Without it a
    search without vectors found no note across languages at all (docs/search.md, §17). Returns the
    members, for a leg that asks the index for them ([] when the question names no such thing)."""
    if tokenizer != "cjk" or not qt.tokens:
        return []
    from ..text.bilingual import key_of, keys_in, words_of

    named = set(keys_in(question).values())  # (a verb of the lexicon only where a word says which)
    have, surface = frozenset(qt.tokens), _surface_words(question, tokenizer)
    found: dict[str, Member] = {}
    for t in dict.fromkeys(qt.tokens):
        word = surface.get(t, t)  # (a Chinese token is a bigram, the lexicon's own form)
        # (a form the lexicon does not list, by its stem when that is a word it lists: "hotels"; never a
        # verb's: "renting" is no rent)
        key = key_of(word) or key_of(t)
        if key is None or key not in named and words_of(key)[2]:
            continue
        for m in _across_members(key, not has_cjk(word), tokenizer):
            if not m.tokens <= have:
                qt.across.setdefault(t, []).append(m)
                qt.heads.setdefault(t, word)
                found[m.fts] = m
    return list(found.values())


@lru_cache(maxsize=256)
def _across_members(key: str, to_cjk: bool, tokenizer: str) -> tuple[Member, ...]:
    """The words of the lexicon's ``key`` in one language (Chinese with ``to_cjk``) as members: a thing
    that is a verb too, in any of its forms, named only after a word saying which ("I'll rent a car",
    "I'll phone the plumber" name none; "my rent", "the phones" do) and asked of the index so too
    ("Can't bank on the weather" is no bank)."""
    from ..text.bilingual import WHICH_BEFORE, WHICH_WORDS, words_of

    en, zh, verbs = words_of(key)
    out = []
    for other in (zh if to_cjk else en):
        m = _member(other, tokenizer)
        if m is not None and verbs and not to_cjk:
            m = Member(m.tokens, re.compile(WHICH_BEFORE + re.escape(other) + r"(?![a-z0-9])"),
                       " OR ".join(_quote(f"{w} {other}") for w in WHICH_WORDS), m.word)
        if m is not None:
            out.append(m)
    return tuple(out)


def _in_digits(unit: str, after: str) -> Member:
    """A measure after a number in digits ("买了3盆多肉", "看了12场话剧"): the index holds the number and
    the pair the measure starts apart (3, 盆多), so the leg asks for each number up to
    :data:`DIGIT_COUNTS` followed by a pair starting with the measure (SQLite; an engine matching
    tokens asks for none: no token says it), and the text is read for any number; ``after``: what
    may not follow the measure (a negative lookahead, or "")."""
    fts = " OR ".join(f'"{n} {unit}"*' for n in range(1, DIGIT_COUNTS + 1))
    return Member(frozenset(), re.compile(rf"(?<![\d.,])\d{{1,3}}\s*小?{re.escape(unit)}{after}"), fts, "N" + unit)


DIGIT_COUNTS = 10

# what stands beside a noun without making a word with it: particles, prepositions, localizers
# (在, 上, 里, 的, 和, 给…), pronouns
_BESIDE = frozenset("在上里中下内外前后了的地得和与跟及同给把被对从向到往是有过着也都就还又很太更最吗呢吧啊么我你他她它")


def _straddling(question: str, word: str) -> set[str]:
    """The character pairs of ``question`` that straddle an edge of ``word`` where it stands in it,
    against a particle, a preposition or a localizer ("我在自行车上": 在自 and 车上): the index's bigrams
    of the run, but no words -- "车上" is what "骑车上班" holds, a line about commuting, not about a
    bike. Not a pair with a character that may make a word with ``word`` (健身房: 身房; 动物园: 物园)."""
    out: set[str] = set()
    at = question.find(word)
    while at >= 0:
        end = at + len(word)
        for pair, outside in ((question[at - 1:at + 1], question[at - 1:at]) if at else ("", ""),
                              (question[end - 1:end + 1], question[end:end + 1])):
            if len(pair) == 2 and outside in _BESIDE and pair not in word:
                out.add(pair)
        at = question.find(word, at + 1)
    return out


def members_query(members: list[Member], n_docs: int, tokenizer: str = "cjk") -> QueryTerms:
    """The query of a leg asking the index for any of ``members``, each as a phrase (SQLite), or
    for any of their tokens (an engine matching tokens: the mask then checks the phrase; not a
    phrase's stop words or single letters, "t" of "t-shirt" is in every "don't")."""
    stop = _stop_tokens(tokenizer)
    tokens = list(dict.fromkeys(t for m in members for t in sorted(m.tokens)
                                if has_cjk(t) or (len(t) > 1 and t not in stop)))
    match = " OR ".join(m.fts for m in members) if members else None
    return QueryTerms(tokens, [1.0] * len(tokens), match, None, [], n_docs, tokens)


def _vocab_table(conn: apsw.Connection, fts_table: str) -> str:
    name = f"{fts_table}_vocab"
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} USING fts5vocab(main, {fts_table}, row)")
    return f"temp.{name}"


_DF: dict[tuple, dict[str, int]] = {}


def document_frequencies(conn: apsw.Connection, fts_table: str, tokens: list[str],
                         version: tuple | None = None) -> dict[str, int]:
    """How many rows of ``fts_table`` hold each token, read from the index's own vocabulary (one
    lookup per token: counting a frequent token's rows costs about a millisecond per 100k, so the
    counts are kept per index ``version`` when the caller names one)."""
    if not tokens:
        return {}
    vocab = _vocab_table(conn, fts_table)
    if version is not None:
        if version not in _DF and len(_DF) >= 16:
            _DF.clear()
        cache = _DF.setdefault(version, {})
    else:
        cache = {}
    out: dict[str, int] = {}
    for t in tokens:
        if t not in cache:
            row = conn.execute(f"SELECT doc FROM {vocab} WHERE term = ?", (t,)).fetchone()
            cache[t] = row[0] if row else 0
        out[t] = cache[t]
    return out


# ---------------------------------------------------------------------------------------------
# the memory keyword leg
_N_DOCS: dict[tuple, int] = {}


def memory_index_version(conn: apsw.Connection) -> tuple:
    """(file, revision): changes whenever a sync writes, so counts cached under it stay true."""
    return (conn.filename, reads.state(conn, "revision")[0])


def memory_doc_count(conn: apsw.Connection, version: tuple | None = None) -> int:
    """Rows in the memory index, counted once per index version (the count scans the table)."""
    key = version or memory_index_version(conn)
    if key not in _N_DOCS:
        if len(_N_DOCS) > 64:
            _N_DOCS.clear()
        _N_DOCS[key] = conn.execute("SELECT count(*) FROM memory_index_chunks").fetchone()[0]
    return _N_DOCS[key]


@dataclass
class KeywordHit:
    seq: int
    bm25: float
    rank: int
    strict: bool  # matched every query token


def keyword_leg(conn: apsw.Connection, qt: QueryTerms, limit: int, newest: bool = False) -> list[KeywordHit]:
    """Units matching the query, best bm25 first: every token first (short queries), then any.
    ``newest``: the newest units matching, unranked (FTS5 reads a rowid-ordered match lazily and
    stops at ``limit``; ranking scores every match: 100k units, a kind's members held by 10-20k
    of them, 7-15 ms against 0.1)."""
    if qt.empty:
        return []
    hits: dict[int, KeywordHit] = {}

    def run(match: str | None, strict: bool) -> None:
        if qt.like:
            where, params = [], []
            if match:
                where.append("memory_index_chunks_fts MATCH ?")
                params.append(match)
            for term in qt.like:
                where.append("c.text LIKE ? ESCAPE '\\'")
                params.append(f"%{escape_like(term)}%")
            rank = "bm25(memory_index_chunks_fts)" if match else "0.0"
            sql = (f"SELECT f.rowid, {rank} FROM memory_index_chunks_fts f JOIN memory_index_chunks c "
                   f"ON c.seq = f.rowid WHERE {' AND '.join(where)} ORDER BY {rank} LIMIT ?")
            rows = conn.execute(sql, (*params, limit))
        else:
            # FTS5's ORDER BY rank fast path; the texts are read later, for the chosen candidates only
            order = "rowid DESC" if newest else "rank"
            rows = conn.execute(f"SELECT rowid, rank FROM memory_index_chunks_fts WHERE memory_index_chunks_fts "
                                f"MATCH ? ORDER BY {order} LIMIT ?", (match, limit))
        for seq, r in rows:
            if seq not in hits:
                hits[seq] = KeywordHit(seq, r, len(hits) + 1, strict)

    try:
        if qt.strict:
            run(qt.strict, True)
        if len(hits) < limit and (qt.match or qt.like):
            run(qt.match, not qt.strict and len(qt.tokens) <= 1)
    except apsw.SQLError:
        pass  # an expression FTS5 cannot parse (it should not happen: every token is quoted)
    return list(hits.values())


# ---------------------------------------------------------------------------------------------
# the path leg
@dataclass
class PathHit:
    source_id: int
    path: str
    score: float
    specificity: int  # 3 full path, 2 file name, 1 stem, 0 partial


def path_query(query: str) -> str | None:
    """The lowercased query when it could name a file: one word, never a sentence."""
    raw = query.strip().lower()
    return raw if raw and not any(ch.isspace() for ch in raw) else None


def path_specificity(raw: str, path: str) -> int:
    """How exactly ``raw`` (lowercased) names ``path``: its whole path (3), file name (2), stem (1), no (0)."""
    p = path.lower()
    name = p.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0]
    return 3 if raw == p else 2 if raw == name else 1 if raw == stem else 0


def specific_hits(raw: str, rows) -> list[PathHit]:
    out = []
    for sid, path in rows:
        spec = path_specificity(raw, path)
        if spec:
            out.append(PathHit(sid, path, 1.0, spec))
    return out


def exact_path_hits(conn, query: str) -> list[PathHit]:
    """Files the query names: its whole path (3), file name (2) or stem (1). Three index probes on
    the sources' lowercased path, name and stem (index/schema.py 0008_path_keys); a generation file
    a read-only process cannot migrate is matched by the scan it had before."""
    raw = path_query(query)
    if raw is None:
        return []
    try:
        rows = conn.execute("SELECT id, path FROM memory_index_sources "
                            "WHERE path_key = ? OR name_key = ? OR stem_key = ?", (raw, raw, raw)).fetchall()
    except apsw.SQLError:
        name_like = "%/" + escape_like(raw)
        rows = conn.execute(
            "SELECT id, path FROM memory_index_sources WHERE lower(path) = ? OR lower(path) LIKE ? ESCAPE '\\' "
            "OR lower(path) LIKE ? ESCAPE '\\' OR lower(path) LIKE ? ESCAPE '\\' OR lower(path) LIKE ? ESCAPE '\\'",
            (raw, name_like, name_like + ".%", escape_like(raw), escape_like(raw) + ".%"))
    return specific_hits(raw, rows)


def path_leg(conn: apsw.Connection, query: str, tokenizer: str, window: int) -> list[PathHit]:
    out: dict[int, PathHit] = {h.source_id: h for h in exact_path_hits(conn, query)}
    q = build_query(query, tokenizer)
    if q.strict and not q.like:
        try:
            rows = conn.execute(
                "SELECT f.rowid, bm25(memory_index_paths_fts), s.path FROM memory_index_paths_fts f "
                "JOIN memory_index_sources s ON s.id = f.rowid WHERE memory_index_paths_fts MATCH ? "
                "ORDER BY bm25(memory_index_paths_fts) LIMIT ?", (q.strict, window)).fetchall()
        except apsw.SQLError:
            rows = []
        for sid, r, path in rows:
            if sid not in out:
                out[sid] = PathHit(sid, path, 0.5 * bm25_to_score(r) + 0.5, 0)
    return sorted(out.values(), key=lambda h: (-h.specificity, -h.score, h.path))
