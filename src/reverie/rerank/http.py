"""The common ``/rerank`` HTTP shape, spoken by Cohere, Jina and Voyage and by many local servers
(vLLM, Infinity, llama.cpp's server, LocalAI, gateways such as LiteLLM)::

    POST {base}/rerank   {"model": M, "query": Q, "documents": [D0, D1, ...], "top_n": N}
    200                  {"results": [{"index": 1, "relevance_score": 0.93}, ...]}

| provider | endpoint (default) | model default | differences | key |
|---|---|---|---|---|
| cohere | ``https://api.cohere.com/v2/rerank`` | rerank-v3.5 | | ``COHERE_API_KEY``, ``CO_API_KEY`` |
| jina | ``https://api.jina.ai/v1/rerank`` | jina-reranker-v2-base-multilingual | | ``JINA_API_KEY`` |
| voyage | ``https://api.voyageai.com/v1/rerank`` | rerank-2.5 | ``top_k``; answers under ``data`` | ``VOYAGE_API_KEY`` |
| http | ``{baseUrl}/rerank`` (``baseUrl`` required) | none (the server's) | | ``apiKey`` only |

A key from a provider's usual variable goes only to that provider's own host
(:meth:`RerankSettings.key_for`); failures become one scrubbed line in a :class:`RerankError`,
rate limits and server errors marked retryable.
"""

from __future__ import annotations

from urllib.parse import urlparse

import httpx

from ..config import RerankSettings, RERANK_KEY_ENV
from ..errors import ConfigError
from ..httputil import post, retry_after, server_message
from .base import Reranker, RerankError

MAX_DOCUMENT_CHARS = 2_000  # a candidate's text as sent: APIs bill and truncate by tokens anyway


class HttpReranker(Reranker):
    default_base_url = ""
    default_model = ""
    path = "/rerank"
    top_field = "top_n"

    def __init__(self, settings: RerankSettings):
        self.model = (settings.model or self.default_model).strip()
        base = (settings.base_url or self.default_base_url).strip().rstrip("/")
        if not base:
            raise ConfigError(f"memory.search.rerank.provider = {self.provider!r} needs memory.search.rerank.baseUrl "
                              f"(the server's address, e.g. http://localhost:8080; {self.path} is added)")
        self.base_url = base.removesuffix(self.path)  # a full endpoint copied from a server's docs works too
        own_host = urlparse(self.default_base_url).hostname or ""
        self._api_key = settings.key_for(self.provider, own_host) if own_host else (settings.api_key or "")
        self._headers = {"Content-Type": "application/json"}
        if self._api_key:
            self._headers["Authorization"] = f"Bearer {self._api_key}"
        self._client: httpx.Client | None = None  # made on first use: building one stays offline and cheap

    def describe(self) -> dict:
        return {"provider": self.provider, "model": self.model or None, "endpoint": self.base_url + self.path}

    def _fail(self, message: str, *, retryable: bool = False, retry_after: float | None = None) -> RerankError:
        text = " ".join(str(message).split())  # one line, bounded, scrubbed: servers echo keys back
        if self._api_key:
            text = text.replace(self._api_key, "***")
        if len(text) > 300:
            text = text[:297] + "..."
        return RerankError(f"rerank {self.provider} ({self.base_url}): {text}", retryable=retryable,
                           retry_after=retry_after)

    def _check_status(self, resp: httpx.Response) -> None:
        status = resp.status_code
        if 200 <= status < 300:
            return
        if status in (401, 403):  # the server's text may quote part of the key: not shown
            names = " / ".join(RERANK_KEY_ENV.get(self.provider, ()))
            raise self._fail(f"authentication failed (HTTP {status}); check memory.search.rerank.apiKey"
                             + (f" or {names}" if names else ""))
        message = server_message(resp)
        if status == 429:
            raise self._fail(f"rate limited (HTTP 429): {message}", retryable=True, retry_after=retry_after(resp))
        if status >= 500:
            raise self._fail(f"server error (HTTP {status}): {message}", retryable=True,
                             retry_after=retry_after(resp))
        raise self._fail(f"request rejected (HTTP {status}): {message}")

    def _score(self, query: str, documents: list[str], *, timeout: float) -> list[tuple[int, float]]:
        if RERANK_KEY_ENV.get(self.provider) and not self._api_key:
            raise self._fail(f"no API key; set {RERANK_KEY_ENV[self.provider][0]} or memory.search.rerank.apiKey")
        payload: dict = {"query": query, "documents": [d[:MAX_DOCUMENT_CHARS] for d in documents],
                         self.top_field: len(documents)}
        if self.model:
            payload["model"] = self.model
        if self._client is None:
            self._client = httpx.Client()
        timeout = max(0.05, min(timeout, 60.0))
        resp = post(self._client, self.base_url + self.path, headers=self._headers, payload=payload,
                    timeout=timeout, fail=self._fail)
        self._check_status(resp)
        try:
            body = resp.json()
        except ValueError as exc:
            raise self._fail(f"malformed response: not JSON ({exc})") from None
        items = body.get("results", body.get("data")) if isinstance(body, dict) else None
        if not isinstance(items, list):
            raise self._fail("malformed response: no \"results\" list")
        try:
            return [(item["index"], item["relevance_score"]) for item in items]
        except (KeyError, TypeError) as exc:
            raise self._fail(f"malformed response: each result needs \"index\" and \"relevance_score\" "
                             f"({type(exc).__name__}: {exc})") from None

    def _checked(self, pairs, count: int):
        try:
            return super()._checked(pairs, count)
        except RerankError as exc:  # name the endpoint, as every other failure does
            raise self._fail(str(exc).removeprefix(f"{self.provider}: ")) from None


class CohereReranker(HttpReranker):
    provider = "cohere"
    default_base_url = "https://api.cohere.com"
    default_model = "rerank-v3.5"
    path = "/v2/rerank"


class JinaReranker(HttpReranker):
    provider = "jina"
    default_base_url = "https://api.jina.ai/v1"
    default_model = "jina-reranker-v2-base-multilingual"


class VoyageReranker(HttpReranker):
    provider = "voyage"
    default_base_url = "https://api.voyageai.com/v1"
    default_model = "rerank-2.5"
    top_field = "top_k"


class GenericReranker(HttpReranker):
    """Any server speaking the shape; no default host, so no key from the environment."""

    provider = "http"
