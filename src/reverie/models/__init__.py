"""Chat models, chosen by name (``offline``, ``openai:<model>``, ``anthropic:<model>``, or a
plugin's ``<name>:<model>``) and imported only when chosen.

Model providers are plugins of the ``reverie.models`` entry-point group (:mod:`reverie.plugins`),
built-ins included; :func:`register` adds one in-process and wins over both.
"""

from __future__ import annotations

from typing import Callable

from .. import plugins
from ..errors import ConfigError
from .base import (
    ChatMessage,
    ChatModel,
    ChatModelError,
    ChatResponse,
    ContextOverflowError,
    ToolCall,
    Usage,
    is_overflow_message,
)

Factory = Callable[[str, object], ChatModel]  # (model name after the colon, ChatSettings)
_REGISTRY: dict[str, Factory] = {}


def register(provider: str, factory: Factory) -> None:
    _REGISTRY[provider.lower()] = factory


def available() -> list[str]:
    return sorted({*_REGISTRY, *plugins.names(plugins.MODELS)})


def create(spec: str, settings) -> ChatModel:
    """A model from a spec such as ``offline``, ``openai:gpt-4o-mini`` or ``anthropic:claude-sonnet-4``."""
    spec = (spec or "offline").strip()
    provider, _, name = spec.partition(":")
    factory = _REGISTRY.get(provider.lower())
    if factory is None:
        found = plugins.find(plugins.MODELS, provider)
        if found is None:
            raise ConfigError(f"bad value for 'chat.model': unknown provider {provider!r} in {spec!r} "
                              f"(known: {', '.join(available())}; reverie plugins lists what is installed)")
        factory = plugins.load(found)
    return factory(name, settings)


__all__ = ["ChatMessage", "ChatModel", "ChatModelError", "ChatResponse", "ContextOverflowError", "ToolCall",
           "Usage", "is_overflow_message", "register", "create", "available"]
