"""An example reverie plugin: an embedding provider, a chat model and a rerank provider.

reverie finds each through the entry points in pyproject.toml and imports this module only when
one of them is chosen by name.
"""

from __future__ import annotations

import hashlib

import numpy as np

from reverie.embeddings.base import Embedder
from reverie.models.base import ChatMessage, ChatModel, ChatResponse, Usage
from reverie.rerank.base import Reranker


class TrigramEmbedder(Embedder):
    """Hashes the character trigrams of a text into 256 buckets: no model, no network, and texts
    that share words (in any script) get similar vectors."""

    provider = "trigram"
    remote = False

    def __init__(self, model: str | None = None):
        self.model = model or "trigram-256"
        self.dims = 256
        self.key_options = {}  # nothing else changes the vectors

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            padded = f"  {text.lower()}  "
            for i in range(len(padded) - 2):
                bucket = int.from_bytes(hashlib.blake2b(padded[i:i + 3].encode(), digest_size=4).digest(), "little")
                out[row, bucket % self.dims] += 1.0
        return out  # the base class checks the shape and normalises


def trigram_embedder(settings) -> Embedder:
    """The ``reverie.providers`` entry point: called with the SearchSettings."""
    return TrigramEmbedder(settings.model)


class EchoModel(ChatModel):
    """Answers every turn with the user's last message; ``echo:loud`` shouts it."""

    provider = "echo"
    context_window = 8_000

    def __init__(self, name: str, settings=None):
        self.model = name or "plain"

    def complete(self, messages, tools=None, *, timeout=None, max_tokens=None) -> ChatResponse:
        last = next((m.content for m in reversed(messages) if m.role == "user"), "")
        text = f"echo: {last.upper() if self.model == 'loud' else last}"
        return ChatResponse(ChatMessage("assistant", text), Usage(len(last) // 4 + 1, len(text) // 4 + 1),
                            "stop", self.model)


def echo_model(name: str, settings) -> ChatModel:
    """The ``reverie.models`` entry point: called with the model name after the colon and the ChatSettings."""
    return EchoModel(name, settings)


class ShortestReranker(Reranker):
    """Finds shorter texts more relevant (a toy judgement that is easy to see in a test)."""

    provider = "shortest"

    def __init__(self, model: str | None = None):
        self.model = model or "by-length"

    def _score(self, query: str, documents: list[str], *, timeout: float) -> list[tuple[int, float]]:
        # (index, relevance) pairs, in any order; relevance in [0, 1] or raw logits
        return [(i, 1.0 / (1.0 + len(text) / 100)) for i, text in enumerate(documents)]


def shortest_reranker(settings) -> Reranker:
    """The ``reverie.rerankers`` entry point: called with the RerankSettings (memory.search.rerank)."""
    return ShortestReranker(settings.model)
