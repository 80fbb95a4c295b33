"""What the native HTTP embedding providers share: endpoint and key, one POST per batch, and the
mapping of every failure to one scrubbed line.

A key comes from ``memory.search.remote.apiKey`` or the provider's usual environment variable, and
the latter is sent only to the provider's own host (:meth:`RemoteSettings.key_for`). Failures
become :class:`EmbeddingError`: rate limits and quotas are ``quota`` (so search answers
``unavailable`` with the quota warning, never keyword results passed off as semantic ones), rate
limits and server errors are ``retryable`` (the base class retries them), an exhausted quota or a
billing problem is not.
"""

from __future__ import annotations

from urllib.parse import urlparse

import httpx
import numpy as np

from ..config import SearchSettings
from ..errors import EmbeddingError
from ..httputil import post, retry_after, server_message
from .base import Embedder

# Words in an error body that say waiting will not help (quota used up, trial caps, no credit).
# Not "billing" or "payment": OpenAI's ordinary rate-limit message suggests adding a payment method.
EXHAUSTED = ("insufficient_quota", "exceeded your current quota", "trial key", "month", "perday", "per day",
             "credit balance")


class RemoteEmbedder(Embedder):
    """Subclasses set ``provider``, ``default_base_url``, ``default_model``, ``key_env`` (the
    variable named in hints; empty when no key is needed) and implement :meth:`_embed_batch`
    with :meth:`_post`."""

    remote = True
    default_base_url = ""
    default_model = ""
    key_env = ""

    def __init__(self, settings: SearchSettings):
        remote = settings.remote
        self.model = (settings.model or self.default_model).strip()
        self.base_url = self._normalise_base((remote.base_url or self.default_base_url).strip().rstrip("/"))
        self.dims = 0  # learned from the first response
        # The same model behind another endpoint (a proxy, a local mirror) need not give the same
        # vectors, so the endpoint is part of the index identity (as for OpenAI-compatible servers).
        self.key_options = {"base_url": self.base_url, **self.vector_options()}
        own_host = urlparse(self.default_base_url).hostname or ""
        self._api_key = remote.key_for(self.provider, own_host) if self.key_env else (remote.api_key or "")
        self._headers = {"Content-Type": "application/json", **self.auth_headers(self._api_key)}
        self._headers.update(remote.headers)  # configured headers last: gateways may replace auth
        self._timeout = remote.timeout_seconds
        self._client: httpx.Client | None = None  # made on first use: __init__ stays offline and cheap

    # -- provider hooks -------------------------------------------------------------------------
    def _normalise_base(self, url: str) -> str:
        return url

    def vector_options(self) -> dict:
        """Request options that change the vectors (dimensions, prefixes): part of the identity."""
        return {}

    def auth_headers(self, key: str) -> dict:
        return {"Authorization": f"Bearer {key}"} if key else {}

    def is_auth_error(self, status: int, text: str) -> bool:
        return status in (401, 403)

    # -- shared machinery -----------------------------------------------------------------------
    def _fail(self, message: str, *, quota: bool = False, retryable: bool = False,
              retry_after: float | None = None) -> EmbeddingError:
        # One line, bounded, and scrubbed: servers echo keys back in their errors.
        text = " ".join(str(message).split())
        if self._api_key:
            text = text.replace(self._api_key, "***")
        if len(text) > 300:
            text = text[:297] + "..."
        return EmbeddingError(f"{self.provider} ({self.base_url}): {text}", quota=quota, retryable=retryable,
                              retry_after=retry_after)

    def _auth_hint(self) -> str:
        env = f" or {self.key_env}" if self.key_env else ""
        return f"check memory.search.remote.apiKey / REVERIE_EMBEDDING_API_KEY{env}"

    def _check_status(self, resp: httpx.Response) -> None:
        status = resp.status_code
        if 200 <= status < 300:
            return
        text = resp.text.lower()
        message = server_message(resp)
        if self.is_auth_error(status, text):
            # The server's text is not shown: it may quote part of the key.
            raise self._fail(f"authentication failed (HTTP {status}); {self._auth_hint()}")
        wait = retry_after(resp)
        if status in (402, 429) or "quota" in text or "rate limit" in text:
            # A rate limit passes with time (and a server that names a wait says so); an exhausted
            # quota, a trial cap or an empty balance does not.
            exhausted = status == 402 or (wait is None and any(word in text for word in EXHAUSTED))
            raise self._fail(f"quota or rate limit (HTTP {status}): {message}", quota=True,
                             retryable=not exhausted, retry_after=wait)
        if status >= 500:
            raise self._fail(f"server error (HTTP {status}): {message}", retryable=True, retry_after=wait)
        raise self._fail(f"request rejected (HTTP {status}): {message}")

    def _post(self, path: str, payload: dict):
        """POST ``payload`` to ``{base_url}{path}``; the decoded JSON body, or a provider error."""
        if self.key_env and not self._api_key:
            raise self._fail(f"no API key; set {self.key_env} or memory.search.remote.apiKey")
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout)
        resp = post(self._client, f"{self.base_url}{path}", headers=self._headers, payload=payload,
                    timeout=self._timeout, fail=self._fail)
        self._check_status(resp)
        try:
            return resp.json()
        except ValueError as exc:
            raise self._fail(f"malformed response: {exc}") from None

    def _extract(self, body, pick) -> list:
        """``pick(body)``, the vectors where this API puts them; a missing field is a malformed answer."""
        try:
            return pick(body)
        except (KeyError, TypeError, IndexError) as exc:
            raise self._fail(f"malformed response: {type(exc).__name__}: {exc}") from None

    def _matrix(self, rows, count: int) -> np.ndarray:
        """Vectors as a matrix, checked: a wrong count would pair texts with the wrong vectors."""
        try:
            out = np.asarray(rows, dtype=np.float32)
        except (ValueError, TypeError) as exc:
            raise self._fail(f"malformed response: {type(exc).__name__}: {exc}") from None
        if out.ndim != 2 or out.shape[0] != count or out.shape[1] == 0:
            raise self._fail(f"expected {count} vectors, got shape {out.shape}")
        return out

    def _indexed(self, body, count: int) -> np.ndarray:
        """The OpenAI-style ``{"data": [{"index", "embedding"}]}`` answer (Voyage and Mistral use it)."""
        items = self._extract(body, lambda b: sorted(b["data"], key=lambda d: d["index"]))
        indices = [item["index"] for item in items]
        rows = self._extract(items, lambda its: [item["embedding"] for item in its])
        if indices != list(range(count)):
            raise self._fail(f"expected {count} vectors indexed 0..{count - 1}, got indices {indices[:8]}")
        return self._matrix(rows, count)
