"""Rerank providers, chosen by name (``memory.search.rerank.provider``) and imported only when chosen.

Providers are plugins of the ``reverie.rerankers`` entry-point group (:mod:`reverie.plugins`): the
built-ins (cohere, jina, voyage, http, and the hidden test double fake) are declared the same way a
third-party package declares its own. :func:`register` adds one in-process (a host application,
a test) and wins over both. The default is ``none``: search runs without a reranker.
"""

from __future__ import annotations

from typing import Callable

from .. import plugins
from ..config import RerankSettings
from ..errors import ConfigError
from .base import Outcome, Reranker, RerankError, RerankState, within

Factory = Callable[[RerankSettings], Reranker]
_REGISTRY: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    _REGISTRY[name.lower()] = factory


def available() -> list[str]:
    return sorted({*_REGISTRY, *plugins.names(plugins.RERANKERS), "none"})


def create(name: str, settings: RerankSettings) -> Reranker:
    factory = _REGISTRY.get(name.lower())
    if factory is None:
        found = plugins.find(plugins.RERANKERS, name)
        if found is None:
            raise ConfigError(f"bad value for 'memory.search.rerank.provider': unknown rerank provider {name!r} "
                              f"(known: {', '.join(available())}; reverie plugins lists what is installed)")
        factory = plugins.load(found)
    return factory(settings)


def resolve(settings: RerankSettings) -> tuple[Reranker | None, RerankState]:
    """The reranker for these settings (None: search without one) and why. A name nobody knows or
    a setting missing is a :class:`ConfigError`; a provider that fails to start otherwise leaves
    search without rerank, with the reason in its state."""
    requested = settings.provider
    if requested == "none":
        return None, RerankState("none", "none", None, "off: memory.search.rerank.provider is 'none'")
    try:
        rr = create(requested, settings)
    except ConfigError:
        raise
    except Exception as exc:
        return None, RerankState(requested, "none", settings.model, f"{requested} failed to start; searching "
                                 "without rerank", error=f"{type(exc).__name__}: {exc}")
    return rr, RerankState(requested, rr.provider, rr.model or None, f"configured: {requested}")


def status(settings: RerankSettings, *, deep: bool = False) -> dict:
    """The reranker as ``reverie status`` shows it; ``deep`` also asks it to rank two texts now.
    Never raises: a bad setting is reported as the error."""
    try:
        rr, state = resolve(settings)
    except ConfigError as exc:
        rr, state = None, RerankState(settings.provider, "none", settings.model, "not usable", error=str(exc))
    out = {**state.as_dict(), **(rr.describe() if rr is not None else {}), "poolSize": settings.pool_size,
           "timeoutMs": settings.timeout_ms, "weight": settings.weight}
    if deep and rr is not None:
        probe = within(rr, "reverie status probe", ["a probe of the rerank provider", "an unrelated text"],
                       settings.timeout_ms / 1000)
        out["probe"] = {"ok": True, "ms": probe.ms} if probe.error is None else {"ok": False, "error": probe.error,
                                                                                 "ms": probe.ms}
    return out


__all__ = ["Outcome", "Reranker", "RerankError", "RerankState", "available", "create", "register", "resolve",
           "within"]
