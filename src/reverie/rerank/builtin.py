"""The built-in rerank providers as plugin factories (``reverie.rerankers``, see
:mod:`reverie.plugins`): each imports its module only when chosen."""

from __future__ import annotations

from ..config import RerankSettings
from .base import Reranker


def cohere(settings: RerankSettings) -> Reranker:
    from .http import CohereReranker

    return CohereReranker(settings)


def jina(settings: RerankSettings) -> Reranker:
    from .http import JinaReranker

    return JinaReranker(settings)


def voyage(settings: RerankSettings) -> Reranker:
    from .http import VoyageReranker

    return VoyageReranker(settings)


def http(settings: RerankSettings) -> Reranker:
    """Any server speaking the common ``/rerank`` shape at ``memory.search.rerank.baseUrl``."""
    from .http import GenericReranker

    return GenericReranker(settings)


def fake(settings: RerankSettings) -> Reranker:
    """A deterministic reranker for tests, registered like any other provider."""
    from .fake import FakeReranker

    return FakeReranker(settings.model)
