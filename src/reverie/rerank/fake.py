"""A deterministic reranker for tests, registered like any other provider (hidden from users).

Models:

* ``overlap`` (default): the share of the query's tokens found in the document;
* ``prefer:WORD[,WORD...]``: 1.0 for a document holding one of the words, else 0.0, so a test can
  say which candidates the "model" finds relevant;
* ``logits:WORD``: as ``prefer`` but answering raw logits (+4 / -4), as some local servers do;
* ``broken``: every call fails;
* ``slow``: sleeps 2 s per call (past any test deadline), then answers as ``overlap``.

Every call is recorded in :attr:`FakeReranker.calls` (query and documents).
"""

from __future__ import annotations

import time

from ..text.cjk import similarity_tokens
from .base import Reranker, RerankError


class FakeReranker(Reranker):
    provider = "fake"
    calls: list[tuple[str, list[str]]] = []  # shared by all instances, for tests

    def __init__(self, model: str | None = None):
        self.model = model or "overlap"

    def _score(self, query: str, documents: list[str], *, timeout: float) -> list[tuple[int, float]]:
        FakeReranker.calls.append((query, list(documents)))
        name, _, arg = self.model.partition(":")
        if name == "broken":
            raise RerankError("fake reranker 'broken' always fails")
        if name == "slow":
            time.sleep(2.0)
        if name in ("prefer", "logits"):
            words = [w.strip().lower() for w in arg.split(",") if w.strip()]
            hit, miss = (4.0, -4.0) if name == "logits" else (1.0, 0.0)
            return [(i, hit if any(w in d.lower() for w in words) else miss) for i, d in enumerate(documents)]
        q = set(similarity_tokens(query))
        return [(i, len(q & set(similarity_tokens(d))) / len(q) if q else 0.0) for i, d in enumerate(documents)]
