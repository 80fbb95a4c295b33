"""Model calls memory makes on its own never carry a secret to a remote model.

The flush, Active Memory, the heartbeat review and Dreaming's consolidation and diary call a chat
model without the owner asking for that call. :func:`shield` wraps such a model: when it is
remote, every message (content and tool-call arguments) has its secrets replaced by
:data:`~reverie.trust.secrets.PLACEHOLDER` before it is sent. A local model (the offline one, the
scripted one, a server on this machine) gets the text as it is: nothing leaves the machine.

The owner's own conversation is not wrapped: what the owner types to the chat model is theirs to
send. See docs/trust.md, "Secrets".
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlparse

from ..models.base import ChatMessage, ChatModel, ChatResponse, ToolCall
from .secrets import mask, mask_value

LOCAL_PROVIDERS = frozenset({"offline", "scripted", "fake", "builtin", "ollama", "llamacpp", "llama.cpp"})
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def is_remote(model: ChatModel) -> bool:
    """Whether a call to ``model`` leaves this machine (unknown adapters count as remote)."""
    if getattr(model, "offline", False) or (getattr(model, "provider", "") or "").lower() in LOCAL_PROVIDERS:
        return False
    base = getattr(model, "base_url", None)
    if isinstance(base, str) and base:
        host = (urlparse(base).hostname or "").lower()
        return not (host in _LOCAL_HOSTS or host.endswith(".localhost"))
    return True


def masked_messages(messages: list[ChatMessage]) -> list[ChatMessage]:
    out = []
    for m in messages:
        calls = [ToolCall(c.id, c.name, mask_value(c.arguments)) for c in m.tool_calls]
        out.append(replace(m, content=mask(m.content or ""), tool_calls=calls))
    return out


class Shielded(ChatModel):
    """``inner`` with secrets masked out of every request (see the module docstring)."""

    def __init__(self, inner: ChatModel):
        self.inner = inner
        self.provider, self.model = inner.provider, inner.model
        self.context_window, self.offline = inner.context_window, inner.offline

    def __getattr__(self, name):  # anything else an adapter offers (base_url, not_ready, ...)
        return getattr(self.inner, name)

    def complete(self, messages, tools=None, *, timeout=None, max_tokens=None) -> ChatResponse:
        return self.inner.complete(masked_messages(messages), tools, timeout=timeout, max_tokens=max_tokens)

    def not_ready(self) -> str | None:
        return self.inner.not_ready()


def shield(model):
    """``model`` for a call memory makes on its own: masked when remote, as it is when local."""
    if model is None or isinstance(model, Shielded) or not isinstance(model, ChatModel) or not is_remote(model):
        return model
    return Shielded(model)


__all__ = ["LOCAL_PROVIDERS", "Shielded", "is_remote", "masked_messages", "shield"]
