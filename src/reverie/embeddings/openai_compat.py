"""Any server that speaks the OpenAI embeddings protocol: OpenAI, Ollama, vLLM, LM Studio, Mistral.

One POST ``{base_url}/embeddings`` per batch; the base class does batching, retries and
normalisation, :class:`~reverie.embeddings.remote.RemoteEmbedder` the endpoint, the key and the
mapping of every failure to an :class:`EmbeddingError` with a one-line message that never contains
the API key, marked ``retryable`` only when waiting could help.
"""

from __future__ import annotations

import numpy as np

from .remote import RemoteEmbedder

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "text-embedding-3-small"


class OpenAICompatible(RemoteEmbedder):
    provider = "openai"
    default_base_url = DEFAULT_BASE_URL
    default_model = DEFAULT_MODEL
    # No key variable of its own here: config.py puts OPENAI_API_KEY into remote.apiKey for
    # OpenAI's own host only, and many compatible servers (Ollama, vLLM) need no key at all.
    key_env = ""

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        # The protocol has no query/document distinction, so ``query`` is not sent. Servers may
        # answer out of order; ``index`` says which input each vector belongs to.
        body = self._post("/embeddings", {"model": self.model, "input": list(texts)})
        return self._indexed(body, len(texts))
