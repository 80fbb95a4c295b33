"""Any server that speaks the OpenAI embeddings protocol: OpenAI, Ollama, vLLM, LM Studio, Mistral.

One POST ``{base_url}/embeddings`` per batch; the base class does batching, retries and
normalisation. Every failure becomes an :class:`EmbeddingError` with a one-line message that never
contains the API key, marked ``retryable`` only when waiting could help.
"""

from __future__ import annotations

import httpx
import numpy as np

from ..config import SearchSettings
from ..httputil import post, retry_after, server_message
from ..errors import EmbeddingError
from .base import Embedder

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "text-embedding-3-small"
_AUTH_HINT = "check memory.search.remote.apiKey / REVERIE_EMBEDDING_API_KEY"


class OpenAICompatible(Embedder):
    provider = "openai"
    remote = True

    def __init__(self, settings: SearchSettings):
        remote = settings.remote
        self.model = settings.model or DEFAULT_MODEL
        self.base_url = (remote.base_url or DEFAULT_BASE_URL).strip().rstrip("/")
        self.dims = 0  # learned from the first response; models differ and some are configurable
        # The same model name on two servers (say OpenAI and a local Ollama) need not give the same
        # vectors, so the endpoint is part of the index identity.
        self.key_options = {"base_url": self.base_url}
        self._api_key = remote.api_key or ""
        self._headers = {"Content-Type": "application/json"}
        if self._api_key:
            self._headers["Authorization"] = f"Bearer {self._api_key}"
        # Configured headers go last so they can replace Authorization (e.g. gateways that want
        # their own scheme).
        self._headers.update(remote.headers)
        self._timeout = remote.timeout_seconds
        self._client: httpx.Client | None = None  # made on first use: __init__ stays offline and cheap

    # -- helpers ------------------------------------------------------------------------------
    def _fail(self, message: str, *, quota: bool = False, retryable: bool = False,
              retry_after: float | None = None) -> EmbeddingError:
        # One line, bounded, and scrubbed: servers (OpenAI's 401 among them) echo keys back.
        text = " ".join(str(message).split())
        if self._api_key:
            text = text.replace(self._api_key, "***")
        if len(text) > 300:
            text = text[:297] + "..."
        return EmbeddingError(f"openai ({self.base_url}): {text}", quota=quota, retryable=retryable,
                              retry_after=retry_after)

    def _check_status(self, resp: httpx.Response) -> None:
        status = resp.status_code
        if 200 <= status < 300:
            return
        text = resp.text.lower()
        message = server_message(resp)
        if status == 429 or "quota" in text:
            # A rate limit passes with time; an exhausted quota or billing limit does not.
            exhausted = "insufficient_quota" in text
            raise self._fail(f"quota or rate limit (HTTP {status}): {message}", quota=True,
                             retryable=not exhausted, retry_after=retry_after(resp))
        if status in (401, 403):
            # The server's text is not shown: it may quote part of the key.
            raise self._fail(f"authentication failed (HTTP {status}); {_AUTH_HINT}")
        if status >= 500:
            raise self._fail(f"server error (HTTP {status}): {message}", retryable=True,
                             retry_after=retry_after(resp))
        raise self._fail(f"request rejected (HTTP {status}): {message}")

    # -- the provider -------------------------------------------------------------------------
    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        # The protocol has no query/document distinction, so ``query`` is not sent.
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout)
        resp = post(self._client, f"{self.base_url}/embeddings", headers=self._headers,
                    payload={"model": self.model, "input": list(texts)}, timeout=self._timeout, fail=self._fail)
        self._check_status(resp)
        try:
            data = resp.json()["data"]
            # Servers may answer out of order; ``index`` says which input each vector belongs to.
            items = sorted(data, key=lambda d: d["index"])
            indices = [item["index"] for item in items]
            out = np.asarray([item["embedding"] for item in items], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:  # JSONDecodeError is a ValueError
            raise self._fail(f"malformed response: {type(exc).__name__}: {exc}") from None
        # A wrong count or a repeated/missing index would silently pair texts with wrong vectors.
        if indices != list(range(len(texts))) or out.ndim != 2 or out.shape[1] == 0:
            raise self._fail(f"expected {len(texts)} vectors indexed 0..{len(texts) - 1}, "
                             f"got {len(items)} (shape {out.shape})")
        return out
