"""Chat models, chosen by name (``offline``, ``openai:<model>``, ``anthropic:<model>``) and
imported only when chosen. Built-ins register through :func:`register`, as a third party would."""

from __future__ import annotations

from typing import Callable

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
_HIDDEN: set[str] = set()  # usable by name, never listed to users (test models)


def register(provider: str, factory: Factory, *, hidden: bool = False) -> None:
    _REGISTRY[provider.lower()] = factory
    if hidden:
        _HIDDEN.add(provider.lower())


def create(spec: str, settings) -> ChatModel:
    """A model from a spec such as ``offline``, ``openai:gpt-4o-mini`` or ``anthropic:claude-sonnet-4``."""
    spec = (spec or "offline").strip()
    provider, _, name = spec.partition(":")
    factory = _REGISTRY.get(provider.lower())
    if factory is None:
        raise ConfigError(f"bad value for 'chat.model': unknown provider {provider!r} in {spec!r} "
                          f"(known: {', '.join(available())})")
    return factory(name, settings)


def available() -> list[str]:
    return sorted(n for n in _REGISTRY if n not in _HIDDEN)


def _openai(name: str, settings) -> ChatModel:
    from .openai_compat import OpenAIChat

    return OpenAIChat(name, settings)


def _anthropic(name: str, settings) -> ChatModel:
    from .anthropic import AnthropicChat

    return AnthropicChat(name, settings)


register("openai", _openai)
register("anthropic", _anthropic)


def _offline(name: str, settings) -> ChatModel:
    from .offline import OfflineModel

    return OfflineModel(name, settings)


def _scripted(name: str, settings) -> ChatModel:  # deterministic scripts for tests and demos
    from .scripted import ScriptedModel

    return ScriptedModel(name, settings)


register("offline", _offline)
register("scripted", _scripted, hidden=True)


__all__ = ["ChatMessage", "ChatModel", "ChatModelError", "ChatResponse", "ContextOverflowError", "ToolCall",
           "Usage", "is_overflow_message", "register", "create", "available"]
