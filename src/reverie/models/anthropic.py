"""Anthropic's messages API: POST ``{base_url}/v1/messages``.

The interface speaks the OpenAI chat shape; this module translates. System messages move to the
top-level ``system`` field, assistant tool calls become ``tool_use`` blocks, and tool results
become ``tool_result`` blocks in a user message (consecutive results share one, since the API
wants user and assistant turns to alternate). Transport, retries and error wording are shared
with the OpenAI-compatible adapter (:class:`~reverie.models.openai_compat.HttpChatModel`).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from .base import ChatMessage, ChatModelError, ChatResponse, ToolCall, Usage, is_overflow_message
from .openai_compat import HttpChatModel, new_call_id, parse_arguments

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
DEFAULT_CONTEXT_WINDOW = 200_000  # every current Claude model; larger beta windows need chat.contextWindow
# The API rejects a conversation that opens with an assistant turn (possible after compaction or an
# import); this neutral user turn keeps the order legal without inventing content.
_OPENING = "(conversation continues)"


class AnthropicChat(HttpChatModel):
    provider = "anthropic"
    default_base_url = DEFAULT_BASE_URL
    key_env = "ANTHROPIC_API_KEY"
    key_host = "api.anthropic.com"

    def __init__(self, model: str, settings, *, env: Mapping[str, str] | None = None):
        super().__init__(model, settings, env=env)
        # People paste OpenAI-style URLs ending in /v1; the path below adds it.
        self.base_url = self.base_url.removesuffix("/v1")
        self.context_window = settings.context_window or DEFAULT_CONTEXT_WINDOW

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        headers.update(self._extra_headers)  # last, so a gateway can replace any of them
        return headers

    def complete(self, messages: list[ChatMessage], tools: list[dict] | None = None, *,
                 timeout: float | None = None, max_tokens: int | None = None) -> ChatResponse:
        system, wire = to_wire(messages)
        payload: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens or self._max_tokens,
                                   "messages": wire}
        if system:
            payload["system"] = system
        if tools:
            payload["tools"] = [tool_to_wire(t) for t in tools]
        wait = timeout or self._timeout
        return self._with_retries(lambda: self._parse(self._post(f"{self.base_url}/v1/messages", payload, wait)))

    def _parse(self, data: dict) -> ChatResponse:
        if data.get("type") == "error":
            err = data.get("error") or {}
            text = str(err.get("message") or err) if isinstance(err, dict) else str(err)
            raise self._fail(f"error in response: {text}", overflow=is_overflow_message(text))
        try:
            texts, calls = [], []
            for block in data["content"]:
                kind = block.get("type")
                if kind == "text":
                    texts.append(block.get("text") or "")
                elif kind == "tool_use":
                    calls.append(ToolCall(id=block.get("id") or new_call_id(), name=str(block.get("name", "")),
                                          arguments=parse_arguments(block.get("input"))))
                # thinking and other block kinds are not part of the answer
            usage = data.get("usage") or {}
            # Cached input is reported apart from input_tokens but still fills the window.
            used = sum(int(usage.get(k) or 0) for k in
                       ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
            reason = data.get("stop_reason")
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise self._fail(f"malformed response: {type(exc).__name__}: {exc}") from None
        finish = "tool_calls" if calls or reason == "tool_use" else ("length" if reason == "max_tokens" else "stop")
        return ChatResponse(
            message=ChatMessage(role="assistant", content="".join(texts), tool_calls=calls),
            usage=Usage(input_tokens=used, output_tokens=int(usage.get("output_tokens") or 0)),
            finish_reason=finish, model=str(data.get("model") or self.model))


def _safe_id(call_id: str | None) -> str:
    # The API accepts only [A-Za-z0-9_-] ids; imported transcripts carry others
    # ("functions.search:0"). Deterministic, so a tool_use and its result still match.
    return re.sub(r"[^A-Za-z0-9_-]", "_", call_id or "") or "call_unknown"


def to_wire(messages: list[ChatMessage]) -> tuple[str, list[dict]]:
    """(system text, alternating user/assistant messages with content blocks)."""
    system: list[str] = []
    turns: list[dict] = []
    for m in messages:
        if m.role == "system":
            # The API has one system field, so system messages from mid-conversation (a compaction
            # summary, say) join it in order.
            if m.content.strip():
                system.append(m.content)
            continue
        blocks: list[dict] = []
        if m.role == "tool":
            role = "user"
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": _safe_id(m.tool_call_id)}
            if m.content:
                block["content"] = m.content
            blocks.append(block)
        else:
            role = "assistant" if m.role == "assistant" else "user"
            if m.content.strip():  # the API rejects empty text blocks
                blocks.append({"type": "text", "text": m.content})
            if m.role == "assistant":
                blocks += [{"type": "tool_use", "id": _safe_id(c.id), "name": c.name, "input": c.arguments}
                           for c in m.tool_calls]
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    if turns and turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": _OPENING}]})
    return "\n\n".join(system), turns


def tool_to_wire(tool: dict) -> dict:
    """An OpenAI function definition (or a bare {name, parameters}) as an Anthropic tool."""
    fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    if not fn.get("name"):
        raise ChatModelError(f"anthropic: tool definition without a name: {str(tool)[:120]}")
    out: dict[str, Any] = {"name": fn["name"],
                           "input_schema": fn.get("parameters") or {"type": "object", "properties": {}}}
    if fn.get("description"):
        out["description"] = fn["description"]
    return out
