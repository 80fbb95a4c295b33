"""Embedding providers, chosen by name and imported only when chosen.

Built-in providers register through :func:`register`, the same call a third-party package makes
(or exposes through the ``reverie.embedders`` entry-point group).
"""

from __future__ import annotations

from importlib import metadata
from typing import Callable

from ..config import SearchSettings
from ..errors import ConfigError
from .base import Embedder, ProviderState

Factory = Callable[[SearchSettings], Embedder]
_REGISTRY: dict[str, Factory] = {}
_entry_points_loaded = False


def register(name: str, factory: Factory) -> None:
    _REGISTRY[name.lower()] = factory


def _local(settings: SearchSettings) -> Embedder:
    from .local import LocalE5

    return LocalE5(settings.model)


def _openai(settings: SearchSettings) -> Embedder:
    from .openai_compat import OpenAICompatible

    return OpenAICompatible(settings)


def _fake(settings: SearchSettings) -> Embedder:
    from .fake import FakeEmbedder

    return FakeEmbedder(settings.model)


register("local", _local)
register("openai", _openai)
register("fake", _fake)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    try:
        for ep in metadata.entry_points(group="reverie.embedders"):
            if ep.name.lower() not in _REGISTRY:
                register(ep.name, ep.load())
    except Exception:  # a broken plugin must not break reverie
        pass


def available() -> list[str]:
    _load_entry_points()
    return sorted([*_REGISTRY, "none", "auto"])


def create(name: str, settings: SearchSettings) -> Embedder:
    _load_entry_points()
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ConfigError(
            f"bad value for 'memory.search.provider': unknown provider {name!r} (known: {', '.join(available())})")
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


__all__ = ["Embedder", "ProviderState", "register", "create", "resolve", "available"]
