"""The chat-model interface: one small protocol, adapters chosen by name.

Messages follow the OpenAI chat shape (role, content, tool calls, tool call id) because every
provider maps onto it; adapters translate to their own wire protocol (Anthropic messages, ...).
Tools are passed as OpenAI-style function definitions (what ``reverie tools --json`` prints).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ReverieError

Role = Literal["system", "user", "assistant", "tool"]


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class ChatMessage:
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None  # for role "tool": which call this answers
    name: str | None = None  # for role "tool": the tool's name


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class ChatResponse:
    message: ChatMessage
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"  # "stop" | "tool_calls" | "length"
    model: str = ""


class ChatModelError(ReverieError):
    """The model call failed (network, HTTP error, malformed answer): the user fixes the model or
    its configuration, so exit code 1."""

    exit_code = 1

    def __init__(self, message: str, *, retryable: bool = False, status: int | None = None,
                 retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after  # seconds the server asked to wait (Retry-After), if it did


class ContextOverflowError(ChatModelError):
    """The provider said the input is larger than the model's context window: compact and retry."""


def model_error(label: str, message: str, secrets=(), *, retryable: bool = False, status: int | None = None,
                overflow: bool = False, retry_after: float | None = None) -> ChatModelError:
    """A model's failure as reverie says it: ``label: message`` on one line, bounded, with
    ``secrets`` scrubbed (servers, OpenAI's 401 among them, echo keys back)."""
    text = " ".join(str(message).split())
    for secret in secrets:
        text = text.replace(secret, "***")
    if len(text) > 400:
        text = text[:397] + "..."
    cls = ContextOverflowError if overflow else ChatModelError
    return cls(f"{label}: {text}", retryable=retryable, status=status, retry_after=retry_after)


# Provider messages that mean "the prompt is too long" (reference §13), matched case-insensitively.
OVERFLOW_MARKERS = (
    "request_too_large", "context length exceeded", "context_length_exceeded", "maximum context length",
    "input exceeds the maximum number of tokens", "input token count exceeds the maximum number of input tokens",
    "input is too long for the model", "prompt is too long", "too many tokens",
    "exceeds the available context size", "exceeds the context window", "context window exceeded",
    "ollama error: context length exceeded",
)


def is_overflow_message(text: str) -> bool:
    low = (text or "").lower()
    return any(m in low for m in OVERFLOW_MARKERS)


class ChatModel:
    """Base class. Adapters set ``provider``, ``model`` and ``context_window`` and implement
    :meth:`complete`."""

    provider: str = ""
    model: str = ""
    context_window: int = 200_000  # the reference's default when a model's window is unknown
    offline: bool = False  # True for the built-in model that needs no service

    def complete(self, messages: list[ChatMessage], tools: list[dict] | None = None, *,
                 timeout: float | None = None, max_tokens: int | None = None) -> ChatResponse:  # pragma: no cover
        raise NotImplementedError

    def not_ready(self) -> str | None:
        """Why this model cannot be called at all (a missing API key), found without a network
        call; None when it may be tried."""
        return None
