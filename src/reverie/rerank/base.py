"""The rerank provider interface: one scoring method plus its identity; retries, the deadline and
the checks of an answer live here once.

A reranker reads the query and each candidate's text together (a cross-encoder, or an API that
runs one) and says how relevant each is. Search calls it on a wide pool of candidates before MMR
(:mod:`reverie.search.rerank`), and only within a deadline: a reranker is an improvement, never a
dependency, so every failure of one leaves the search as it would have been without it.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from ..embeddings.base import ProviderState
from ..errors import ReverieError
from ..retry import call_with_retries
from ..trust.secrets import mask


class RerankError(ReverieError):
    """A rerank provider failed (network, rate limit, bad answer). Search never raises it: it
    answers without rerank and says why."""

    exit_code = 1

    def __init__(self, message: str, *, retryable: bool = False, retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class Reranker:
    """Base class for rerank providers.

    Subclasses set ``provider`` and ``model`` and implement :meth:`_score`, which returns
    ``(index, score)`` pairs for the documents it judged; scores may be probabilities in [0, 1]
    or raw logits (see :func:`normalise`).
    """

    provider: str = ""
    model: str = ""

    def _score(self, query: str, documents: list[str], *,
               timeout: float) -> list[tuple[int, float]]:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> dict:
        return {"provider": self.provider, "model": self.model}

    def rerank(self, query: str, documents: list[str], *, deadline: float | None = None) -> list[float | None]:
        """A relevance in [0, 1] for each document (None where the provider gave none), retried on
        rate limits and server errors while ``deadline`` (a ``time.monotonic()`` instant) allows."""
        if not documents:
            return []
        # a reranker is a service of its own: secrets never reach it, the words around them do
        # (docs/trust.md, Secrets); the value itself says nothing about relevance
        query, documents = mask(query), [mask(d) for d in documents]

        def attempt() -> list[tuple[int, float]]:
            left = math.inf if deadline is None else deadline - time.monotonic()
            if left <= 0:
                raise RerankError(f"{self.provider}: the deadline passed before an answer")
            try:
                return self._score(query, documents, timeout=left)
            except RerankError as exc:
                if exc.retryable and left - (exc.retry_after or 0.0) <= 0:
                    exc.retryable = False  # the wait asked for outlasts the deadline: give up now
                raise

        pairs = call_with_retries(attempt, error=RerankError,
                                  wrap=lambda exc: RerankError(f"{self.provider}: {type(exc).__name__}: {exc}"))
        return self._checked(pairs, len(documents))

    def _checked(self, pairs, count: int) -> list[float | None]:
        """Scores by document, checked: an index out of range or given twice, or a score that is
        not a finite number, would pair documents with the wrong relevance."""
        raw: list[float | None] = [None] * count
        try:
            for index, score in pairs:
                if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
                    raise RerankError(f"{self.provider}: malformed response: index {index!r} is not one of the "
                                      f"{count} documents sent")
                if raw[index] is not None:
                    raise RerankError(f"{self.provider}: malformed response: document {index} scored twice")
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                    raise RerankError(f"{self.provider}: malformed response: score {score!r} for document {index} "
                                      f"is not a finite number")
                raw[index] = float(score)
        except (TypeError, ValueError) as exc:
            raise RerankError(f"{self.provider}: malformed response: {exc}") from None
        if all(s is None for s in raw):
            raise RerankError(f"{self.provider}: malformed response: no document was scored")
        return normalise(raw)


def normalise(scores: list[float | None]) -> list[float | None]:
    """Relevance in [0, 1]. Hosted rerank APIs answer probabilities already and are kept as they
    are (their absolute level means something: a pool of unrelated notes stays low). A server that
    answers raw logits (some local ones do) gets the logistic function, which is what those
    probabilities are made of; one value outside [0, 1] is taken as the sign of logits for all."""
    known = [s for s in scores if s is not None]
    if all(0.0 <= s <= 1.0 for s in known):
        return list(scores)
    return [None if s is None else 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, s)))) for s in scores]


def _sane(scores, count: int) -> list[float | None]:
    """What a provider's ``rerank`` gave, checked once more (a plugin may override ``rerank`` itself):
    one relevance in [0, 1] or None per document, at least one given."""
    if not isinstance(scores, list) or len(scores) != count:
        raise RerankError(f"expected {count} scores, got {type(scores).__name__}"
                          + (f" of {len(scores)}" if isinstance(scores, list) else ""))
    if not all(s is None or (isinstance(s, (int, float)) and not isinstance(s, bool) and 0.0 <= s <= 1.0)
               for s in scores) or all(s is None for s in scores):
        raise RerankError("scores must be numbers in [0, 1] (or None for a document not judged), at least one")
    return [None if s is None else float(s) for s in scores]


@dataclass
class Outcome:
    """What one rerank call gave search: scores, or why there are none."""

    scores: list[float | None] | None
    ms: float
    error: str | None = None
    timed_out: bool = False


def within(reranker: Reranker, query: str, documents: list[str], seconds: float) -> Outcome:
    """Run the reranker for at most ``seconds``. The call runs in a daemon thread so that a server
    that hangs never holds up the search (or a one-shot command's exit); its own HTTP timeout is
    the time left, so the thread ends soon after the search moved on."""
    box: dict = {}
    done = threading.Event()
    t0 = time.perf_counter()
    deadline = time.monotonic() + seconds

    def work() -> None:
        try:
            box["scores"] = _sane(reranker.rerank(query, documents, deadline=deadline), len(documents))
        except Exception as exc:  # a provider bug is a failed rerank, never a failed search
            box["error"] = exc if isinstance(exc, RerankError) else RerankError(f"{type(exc).__name__}: {exc}")
        finally:
            done.set()

    threading.Thread(target=work, name="reverie-rerank", daemon=True).start()
    finished = done.wait(seconds)
    ms = round((time.perf_counter() - t0) * 1000, 2)
    if not finished:
        return Outcome(None, ms, f"no answer within the deadline of {seconds * 1000:.0f} ms", timed_out=True)
    if "error" in box:
        return Outcome(None, ms, str(box["error"]))
    return Outcome(box["scores"], ms)


# What was asked for, what runs, and why (``reverie status``, search debug): the embedders' record.
RerankState = ProviderState
