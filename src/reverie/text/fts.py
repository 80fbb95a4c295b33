"""Keyword indexing and safe FTS5 query building, for every tokenizer reverie offers.

The default ``cjk`` tokenizer pairs FTS5's ``porter unicode61`` (English stemming) with
*segmentation before indexing*: each run of CJK letters is written to the FTS table as its
overlapping bigrams plus the run's last character (``酒店预算`` -> ``酒店 店预 预算 算``). A query run
becomes the phrase of its bigrams, so two-character words (``酒店``, ``预算``), longer words
(``湖景房``) and single characters (a prefix query) all match, with no Python callback inside SQLite:
any SQLite can read the index. See docs/keyword-index.md for the measurements behind the choice.

Every query is built from extracted word tokens, each quoted, so user text can never raise an FTS5
syntax error; a strict (all terms) query is paired with a relaxed (any term) one so that a query
with one unmatched word still finds the chunks matching the others.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field

from .cjk import CJK_RUN_RE, has_cjk

TOKENIZERS = {
    "cjk": "porter unicode61 remove_diacritics 2",
    "unicode61": "unicode61 remove_diacritics 2",
    "trigram": "trigram case_sensitive 0",
}

_WORD_RE = re.compile(r"\w+", re.UNICODE)


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


def segment_for_index(text: str, tokenizer: str = "cjk") -> str:
    """Text as written to the FTS table. Only the ``cjk`` tokenizer rewrites anything."""
    if tokenizer != "cjk" or not has_cjk(text):
        return text

    def repl(m: re.Match) -> str:
        run = m.group(0)
        parts = _bigrams(run)
        if len(run) > 1:
            parts.append(run[-1])  # so a one-character prefix query reaches the last character too
        return " " + " ".join(parts) + " "

    return CJK_RUN_RE.sub(repl, text)


def _quote(term: str) -> str:
    return '"' + term.replace('"', "") + '"'


@dataclass
class FtsQuery:
    """A keyword query ready for ``MATCH``; ``like`` terms must each occur as substrings (trigram)."""

    strict: str | None
    relaxed: str | None
    like: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.strict and not self.like


def query_terms(query: str) -> list[str]:
    """Word tokens of a query, lowercased, deduplicated in order; CJK split from Latin."""
    out: list[str] = []
    for word in _WORD_RE.findall(query.lower()):
        word = word.strip("_")
        if not word:
            continue
        pieces = [word]
        if has_cjk(word):
            pieces = [p for p in re.split(f"({CJK_RUN_RE.pattern})", word) if p and p.strip("_")]
        for p in pieces:
            p = p.strip("_")
            if p and p not in out:
                out.append(p)
    return out


def build_query(query: str, tokenizer: str = "cjk") -> FtsQuery:
    terms = query_terms(query)
    if not terms:
        return FtsQuery(None, None, [], [])
    strict_parts: list[str] = []
    relaxed_parts: list[str] = []
    like: list[str] = []
    for term in terms:
        cjk = has_cjk(term)
        if tokenizer == "cjk" and cjk:
            grams = _bigrams(term)
            if len(term) == 1:
                expr = _quote(term) + "*"
                strict_parts.append(expr)
                relaxed_parts.append(expr)
            else:
                strict_parts.append(_quote(" ".join(grams)))
                relaxed_parts.extend(_quote(g) for g in grams)
        elif tokenizer == "trigram" and len(term) < 3:
            if cjk:
                like.append(term)  # trigram cannot match 1-2 characters: require a substring
            # short Latin words are dropped in trigram mode, as the reference does
        else:
            strict_parts.append(_quote(term))
            relaxed_parts.append(_quote(term))
    relaxed_unique = list(dict.fromkeys(relaxed_parts))
    strict = " AND ".join(strict_parts) if strict_parts else None
    relaxed = " OR ".join(relaxed_unique) if len(relaxed_unique) > 1 or (relaxed_unique and relaxed_unique[0] != strict) else None
    return FtsQuery(strict, relaxed, like, terms)


def escape_like(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def bm25_to_score(rank: float) -> float:
    """FTS5 bm25 rank (more negative = better) to a [0,1] score, as the reference does."""
    if rank != rank or rank in (float("inf"), float("-inf")):
        return 1 / 1000
    if rank < 0:
        r = -rank
        return r / (1 + r)
    return 1 / (1 + rank)


_tokenizers = threading.local()


def _fts5_tokens(text: str, tokenizer: str) -> list[str]:
    """Every token FTS5 makes of ``text`` as written to the index, repeats included, in order."""
    import apsw

    toks = getattr(_tokenizers, "map", None)
    if toks is None:
        toks = _tokenizers.map = {"conn": apsw.Connection(":memory:")}
    if tokenizer not in toks:
        name, *args = TOKENIZERS[tokenizer].split()
        toks[tokenizer] = toks["conn"].fts5_tokenizer(name, args)
    return [t[2] for t in toks[tokenizer](segment_for_index(text, tokenizer).encode("utf-8"),
                                          apsw.FTS5_TOKENIZE_DOCUMENT, None)]


def index_tokens(text: str, tokenizer: str = "cjk") -> list[str]:
    """The distinct tokens FTS5 makes of ``text`` as written to the index (CJK bigrams, porter
    stems), in order: the keyword column of engines without FTS5 (PostgreSQL) holds these."""
    return list(dict.fromkeys(_fts5_tokens(text, tokenizer)))


@dataclass(frozen=True)
class CountedTokens:
    """A unit's keyword column with what FTS5's bm25 knows of it: each token's count in the unit
    and the unit's length in FTS5 tokens."""

    tokens: list[str]  # as :func:`array_tokens`
    counts: list[int]  # aligned with ``tokens``
    length: int


def counted_tokens(text: str, tokenizer: str = "cjk") -> CountedTokens:
    """:func:`array_tokens` with counts and FTS5's length, so that an engine without FTS5 ranks
    by the same bm25. A CJK character counts its occurrences: what FTS5's one-character prefix
    query (the bigrams that start with it, and a run's last character) matches."""
    every = _fts5_tokens(text, tokenizer)
    counts = dict(Counter(every))  # (first occurrence order, as index_tokens)
    if tokenizer == "cjk" and has_cjk(text):
        counts.update(Counter("".join(CJK_RUN_RE.findall(text))))  # a character's own count replaces FTS5's
    return CountedTokens(list(counts), list(counts.values()), len(every))


def array_tokens(text: str, tokenizer: str = "cjk") -> list[str]:
    """The keyword column of an engine without FTS5: :func:`index_tokens` plus every distinct CJK
    character, so that a one-character query (FTS5: a prefix query on the bigrams) is an exact
    token match there too."""
    return counted_tokens(text, tokenizer).tokens


def term_tokens(term: str, tokenizer: str = "cjk") -> list[str]:
    """What one query term must match in :func:`array_tokens` (the phrase of its bigrams for a
    CJK word, the character itself for one CJK character, the stem for a word)."""
    if tokenizer == "cjk" and has_cjk(term):
        return _bigrams(term.lower())
    return index_tokens(term, tokenizer)
