"""Native embedding APIs: Gemini, Voyage, Mistral, Cohere and Ollama, each in its own request and
response shape, with its own batching limits and, where the API has them, separate query and
document input types (retrieval quality depends on them: a query embedded as a document ranks
worse). Shared plumbing is in :mod:`reverie.embeddings.remote`.

| provider | endpoint | input types | per request | key |
|---|---|---|---|---|
| gemini | ``POST /v1beta/models/{model}:batchEmbedContents`` | ``RETRIEVAL_QUERY`` / ``RETRIEVAL_DOCUMENT`` | 100 texts | ``GEMINI_API_KEY``, ``GOOGLE_API_KEY`` (``x-goog-api-key``) |
| voyage | ``POST /v1/embeddings`` | ``query`` / ``document`` | 128 texts | ``VOYAGE_API_KEY`` |
| mistral | ``POST /v1/embeddings`` | none | 128 texts, 16,384 tokens | ``MISTRAL_API_KEY`` |
| cohere | ``POST /v2/embed`` | ``search_query`` / ``search_document`` | 96 texts | ``COHERE_API_KEY``, ``CO_API_KEY`` |
| ollama | ``POST /api/embed`` | none (known prompt prefixes) | 64 texts | none |
"""

from __future__ import annotations

import numpy as np

from .remote import RemoteEmbedder


class GeminiEmbedder(RemoteEmbedder):
    provider = "gemini"
    default_base_url = "https://generativelanguage.googleapis.com/v1beta"
    default_model = "gemini-embedding-001"
    key_env = "GEMINI_API_KEY"
    batch_items = 100
    # gemini-embedding-001 answers 3,072 dimensions by default; 768 keeps the index four times
    # smaller at a small cost in quality (Google's own recommendation lists 768, 1536, 3072).
    output_dimensionality = 768

    def vector_options(self) -> dict:
        return {"outputDimensionality": self.output_dimensionality}

    def auth_headers(self, key: str) -> dict:
        return {"x-goog-api-key": key} if key else {}  # a header, never ?key= in a URL that gets logged

    def is_auth_error(self, status: int, text: str) -> bool:
        # Google answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID
        return status in (401, 403) or (status == 400 and ("api_key_invalid" in text or "api key not valid" in text))

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        name = self.model.removeprefix("models/")
        task = "RETRIEVAL_QUERY" if query else "RETRIEVAL_DOCUMENT"
        requests = [{"model": f"models/{name}", "content": {"parts": [{"text": t}]}, "taskType": task,
                     "outputDimensionality": self.output_dimensionality} for t in texts]
        body = self._post(f"/models/{name}:batchEmbedContents", {"requests": requests})
        return self._matrix(self._extract(body, lambda b: [e["values"] for e in b["embeddings"]]), len(texts))


class VoyageEmbedder(RemoteEmbedder):
    provider = "voyage"
    default_base_url = "https://api.voyageai.com/v1"
    default_model = "voyage-3.5"
    key_env = "VOYAGE_API_KEY"
    batch_items = 128

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        body = self._post("/embeddings", {"model": self.model, "input": list(texts),
                                          "input_type": "query" if query else "document"})
        return self._indexed(body, len(texts))


class MistralEmbedder(RemoteEmbedder):
    provider = "mistral"
    default_base_url = "https://api.mistral.ai/v1"
    default_model = "mistral-embed"
    key_env = "MISTRAL_API_KEY"
    batch_items = 128
    # Mistral refuses a batch over 16,384 tokens of its own tokenizer; our estimate (about four
    # characters a token) can undercount code and numbers, so stay well below.
    batch_tokens = 6_000

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        # The API has no query/document distinction.
        body = self._post("/embeddings", {"model": self.model, "input": list(texts)})
        return self._indexed(body, len(texts))


class CohereEmbedder(RemoteEmbedder):
    provider = "cohere"
    default_base_url = "https://api.cohere.com"
    default_model = "embed-v4.0"
    key_env = "COHERE_API_KEY"
    batch_items = 96

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        body = self._post("/v2/embed", {"model": self.model, "texts": list(texts), "embedding_types": ["float"],
                                        "input_type": "search_query" if query else "search_document",
                                        "truncate": "END"})
        return self._matrix(self._extract(body, lambda b: b["embeddings"]["float"]), len(texts))


# Ollama's API has no input types, but some models were trained with prompt prefixes and rank
# worse without them (their model cards say so). Keyed by the model name before any ":tag".
OLLAMA_PREFIXES: dict[str, tuple[str, str]] = {  # (query prefix, document prefix)
    "nomic-embed-text": ("search_query: ", "search_document: "),
    "mxbai-embed-large": ("Represent this sentence for searching relevant passages: ", ""),
}


class OllamaEmbedder(RemoteEmbedder):
    provider = "ollama"
    default_base_url = "http://localhost:11434"
    default_model = "nomic-embed-text"
    key_env = ""  # a local server: no key (a configured apiKey is still sent, for proxies)

    def _normalise_base(self, url: str) -> str:
        # the OpenAI-compatible base (…/v1) is what people copy from Ollama's docs; the native
        # API lives at the root
        return url.removesuffix("/v1")

    def _prefixes(self) -> tuple[str, str]:
        return OLLAMA_PREFIXES.get(self.model.split(":", 1)[0].split("/")[-1], ("", ""))

    def vector_options(self) -> dict:
        query, document = self._prefixes()
        return {"prefixes": [query, document]} if query or document else {}

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        prefix = self._prefixes()[0 if query else 1]
        body = self._post("/api/embed", {"model": self.model, "input": [prefix + t for t in texts],
                                         "truncate": True})
        return self._matrix(self._extract(body, lambda b: b["embeddings"]), len(texts))
