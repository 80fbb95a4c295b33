"""A search candidate: one unit of the index, with what each leg and each multiplier made of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .keyword import KeywordHit

if TYPE_CHECKING:  # the vector leg's types: a keyword-only search never imports numpy
    import numpy as np

    from .vectors import WindowMatrix


@dataclass
class Candidate:
    seq: int
    path: str = ""
    source: str = "memory"
    start_line: int = 0
    end_line: int = 0
    text: str = ""
    context: str = ""
    mtime: float | None = None
    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None
    status: str | None = None
    origin_class: str | None = None
    session_kind: str | None = None
    embedding: bytes | None = None
    window_start: int = 0  # the window cited for context
    window_end: int = 0
    vector_raw: float | None = None  # the unit's own cosine
    vector: float | None = None  # the vector leg with context, calibrated, in [0, 1]
    vector_parts: tuple = ()
    vector_rank: int | None = None  # 1-based place in the vector leg (by ``vector``), for --explain
    kw: KeywordHit | None = None
    kw_unit: float = 0.0
    member: bool = False  # found naming a member of a kind the question names (the members leg)
    keyword: float = 0.0  # the keyword leg with context, in [0, 1]
    keyword_parts: tuple = ()
    dated: bool = False  # keyword-only, the first unit of a note of the few days asked (search/days_asked.py)
    loose: float = 0.0  # ... the share of the question's loose terms it holds (search/days_asked.py)
    names_amount: bool = True  # for a sum of money: whether it names one (search/counting.py)
    names_kind: bool | None = True  # for a count of a kind: whether it names the kind or one of it (None: not read)
    topical: bool = False  # keyword-only, a stated taste on a topic the advice question names (search/taste.py)
    path_score: float | None = None
    specificity: int = 0
    content: float = 0.0
    fused: float | None = None  # content before a rerank blended into it (None: no rerank)
    rerank: float | None = None  # the rerank relevance used, in [0, 1]
    rerank_judged: bool = False  # ... given by the reranker (else assumed: see search.rerank)
    decay: float = 1.0
    age_days: float | None = None
    pre_decay: float = 0.0
    score: float = 0.0
    eligible: bool = False
    trace: dict = field(default_factory=dict)

    @property
    def text_score(self) -> float:
        if self.kw is not None or self.keyword > 0:
            return self.keyword
        if self.specificity:
            return 0.0
        return self.path_score or 0.0

    @property
    def index_text(self) -> str:
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass
class VectorQuery:
    """The query vector and the window matrix it is compared with (None on PostgreSQL until the
    pipeline reads the windows this query needs: search/postgres.py)."""

    matrix: WindowMatrix | None
    query: np.ndarray
    offset: float = 0.0  # added to every cosine with ``query`` (search/language.py)
