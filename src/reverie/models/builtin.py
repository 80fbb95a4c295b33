"""The built-in chat models as plugin factories (``reverie.models``, see :mod:`reverie.plugins`):
``factory(model_name, ChatSettings)``, each importing its module only when chosen."""

from __future__ import annotations

from .base import ChatModel


def offline(name: str, settings) -> ChatModel:
    from .offline import OfflineModel

    return OfflineModel(name, settings)


def openai(name: str, settings) -> ChatModel:
    from .openai_compat import OpenAIChat

    return OpenAIChat(name, settings)


def anthropic(name: str, settings) -> ChatModel:
    from .anthropic import AnthropicChat

    return AnthropicChat(name, settings)


def langchain(name: str, settings) -> ChatModel:
    """A LangChain chat model: one the program registered (reverie.hosts.langgraph.use_chat_model),
    else what LangChain's init_chat_model makes of ``name``."""
    from .langchain_chat import factory

    return factory(name, settings)


def scripted(name: str, settings) -> ChatModel:
    """Deterministic scripts for tests and demos."""
    from .scripted import ScriptedModel

    return ScriptedModel(name, settings)
