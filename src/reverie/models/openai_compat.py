"""Any server that speaks the OpenAI chat-completions protocol: OpenAI, Ollama, vLLM, LM Studio,
DeepSeek and the many gateways that copy it.

One POST ``{base_url}/chat/completions`` per attempt. :class:`HttpChatModel` holds what every HTTP
adapter shares (lazy client, retries, one-line errors that never contain the API key); the
Anthropic adapter builds on it too. Every failure is a :class:`ChatModelError`, marked
``retryable`` only when waiting could help, or a :class:`ContextOverflowError` when the provider
says the input is too long (the runtime compacts and tries again; retrying here cannot help).
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, Callable, Mapping

import httpx

from ..errors import ConfigError
from ..httputil import post, retry_after, server_message
from ..retry import call_with_retries
from .base import (
    ChatMessage,
    ChatModel,
    ChatModelError,
    ChatResponse,
    ToolCall,
    Usage,
    is_overflow_message,
    model_error,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_KEY_HINT = "set chat.apiKey or REVERIE_CHAT_API_KEY"

# Known windows, matched by longest prefix of the model name.
KNOWN_CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "gpt-5": 272_000,  # the input limit: its 400k window includes up to 128k of output
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "deepseek-chat": 64_000,
    "deepseek-reasoner": 64_000,
}
# Unknown models on this protocol are mostly open models behind Ollama/vLLM/LM Studio (Llama 3.x,
# Qwen, Mistral), whose windows top out near 128k; the reference's 200,000 would let the transcript
# grow past what they accept before compaction starts. Servers configured smaller (Ollama's num_ctx)
# need chat.contextWindow: Ollama truncates silently instead of reporting an overflow.
DEFAULT_CONTEXT_WINDOW = 128_000


def lookup_window(model: str, table: Mapping[str, int], default: int) -> int:
    name = model.lower().rsplit("/", 1)[-1]  # gateways prefix the vendor: "openai/gpt-4o"
    best = max((p for p in table if name.startswith(p)), key=len, default=None)
    return table[best] if best else default


class HttpChatModel(ChatModel):
    """What the HTTP adapters share. Subclasses set ``provider``, ``default_base_url``,
    ``key_env`` and ``key_host``, build ``_headers`` and implement :meth:`_attempt`."""

    default_base_url = ""
    key_env = ""  # the vendor's own variable, e.g. OPENAI_API_KEY
    key_host = ""  # ... sent only to this host

    def __init__(self, model: str, settings, *, env: Mapping[str, str] | None = None):
        if not model.strip():
            raise ConfigError(f"bad value for 'chat.model': {self.provider!r} needs a model name, "
                              f"e.g. {self.provider}:<model>")
        self.model = model.strip()
        self.base_url = (settings.base_url or self.default_base_url).strip().rstrip("/")
        env = os.environ if env is None else env
        self._api_key = settings.api_key or ""
        # The vendor's variable never goes to another host: an OpenAI key must not leak to a
        # local or third-party server that happens to speak the same protocol.
        if not self._api_key and self._host() == self.key_host:
            self._api_key = env.get(self.key_env, "")
        self._extra_headers = dict(settings.headers)
        self._timeout = settings.timeout_seconds
        self._max_tokens = settings.max_output_tokens
        self._secrets = [s for s in (self._api_key, *self._extra_headers.values()) if len(s) >= 6]
        self._client: httpx.Client | None = None  # made on first use: __init__ stays offline and cheap

    def _host(self) -> str:
        try:
            return httpx.URL(self.base_url).host.lower()
        except Exception:  # a malformed URL fails on first use, with a message
            return ""

    # -- errors -------------------------------------------------------------------------------
    def _fail(self, message: str, *, retryable: bool = False, status: int | None = None,
              overflow: bool = False, retry_after: float | None = None) -> ChatModelError:
        return model_error(f"{self.provider}:{self.model} ({self.base_url})", message, self._secrets,
                           retryable=retryable, status=status, overflow=overflow, retry_after=retry_after)

    def not_ready(self) -> str | None:
        # The vendor's own host always wants a key: say so before sending anything, rather than
        # after a round trip (or, offline, after a connection error that hides the real cause).
        if not self._api_key and self.key_host and self._host() == self.key_host:
            return (f"{self.provider}:{self.model} needs an API key: set {self.key_env} or chat.apiKey "
                    "(REVERIE_CHAT_API_KEY); nothing was sent")
        return None

    def _auth_hint(self) -> str:
        if not self._api_key:
            return f"no API key configured; {_KEY_HINT}" + (f" (or {self.key_env})" if self.key_env else "")
        return "the API key was rejected; check chat.apiKey / REVERIE_CHAT_API_KEY"

    def _check_status(self, resp: httpx.Response) -> None:
        status = resp.status_code
        if 200 <= status < 300:
            return
        message = server_message(resp)
        if status in (401, 403):
            # The server's text is not shown: it may quote part of the key.
            raise self._fail(f"authentication failed (HTTP {status}); {self._auth_hint()}", status=status)
        # Checked before the retry rules: some servers report an overflow as a 5xx, and waiting
        # cannot shrink a prompt, compacting can.
        if status != 429 and (status in (400, 413, 422) or status >= 500) and is_overflow_message(resp.text):
            raise self._fail(f"context overflow (HTTP {status}): {message}", status=status, overflow=True)
        if status == 429:
            # A rate limit passes with time; an exhausted quota or billing limit does not.
            exhausted = "insufficient_quota" in resp.text.lower()
            raise self._fail(f"quota or rate limit (HTTP 429): {message}", status=status, retryable=not exhausted,
                             retry_after=retry_after(resp))
        if status >= 500 or status == 408:
            raise self._fail(f"server error (HTTP {status}): {message}", status=status, retryable=True,
                             retry_after=retry_after(resp))
        if status == 404:
            raise self._fail(f"not found (HTTP 404): {message}; check chat.baseUrl and the model name",
                             status=status)
        raise self._fail(f"request rejected (HTTP {status}): {message}", status=status)

    # -- transport ----------------------------------------------------------------------------
    def _post(self, url: str, payload: dict, timeout: float) -> dict:
        """One attempt: the parsed JSON body of a 2xx answer, or a ChatModelError."""
        missing = self.not_ready()
        if missing:
            raise ChatModelError(missing)  # not retryable: no request is made
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout)
        resp = post(self._client, url, headers=self._headers(), payload=payload, timeout=timeout,
                    fail=self._fail, url_hint="; check chat.baseUrl")
        self._check_status(resp)
        try:
            body = resp.json()
        except ValueError:
            raise self._fail(f"malformed response (not JSON): {resp.text[:120]!r}") from None
        if not isinstance(body, dict):
            raise self._fail(f"malformed response: expected an object, got {type(body).__name__}")
        return body

    def _with_retries(self, attempt: Callable[[], ChatResponse]) -> ChatResponse:
        # an adapter bug must reach the runtime as a model error, not a crash
        return call_with_retries(attempt, error=ChatModelError,
                                 wrap=lambda exc: self._fail(f"{type(exc).__name__}: {exc}"))

    def _headers(self) -> dict[str, str]:  # pragma: no cover
        raise NotImplementedError

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict. Models do emit broken JSON; that must reach the runtime as
    data (``{"_raw": text}``, which the tool can reject) rather than crash the turn."""
    if isinstance(raw, dict):  # some servers send an object instead of a JSON string
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        return {"_raw": json.dumps(raw, ensure_ascii=False)}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_raw": raw}


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


class OpenAIChat(HttpChatModel):
    provider = "openai"
    default_base_url = DEFAULT_BASE_URL
    key_env = "OPENAI_API_KEY"
    key_host = "api.openai.com"

    def __init__(self, model: str, settings, *, env: Mapping[str, str] | None = None):
        super().__init__(model, settings, env=env)
        self.context_window = settings.context_window or lookup_window(
            self.model, KNOWN_CONTEXT_WINDOWS, DEFAULT_CONTEXT_WINDOW)
        # OpenAI's reasoning models refuse max_tokens and want max_completion_tokens, while most
        # other servers know only max_tokens; switched once when the server says so.
        self._max_tokens_field = "max_tokens"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        # Configured headers go last so they can replace Authorization (gateways with their own scheme).
        headers.update(self._extra_headers)
        return headers

    def complete(self, messages: list[ChatMessage], tools: list[dict] | None = None, *,
                 timeout: float | None = None, max_tokens: int | None = None) -> ChatResponse:
        payload: dict[str, Any] = {"model": self.model, "messages": [to_wire(m) for m in messages]}
        if tools:  # some servers reject an empty list
            payload["tools"] = list(tools)
        limit = max_tokens or self._max_tokens
        wait = timeout or self._timeout

        def attempt() -> ChatResponse:
            body = dict(payload, **{self._max_tokens_field: limit})
            try:
                data = self._post(f"{self.base_url}/chat/completions", body, wait)
            except ChatModelError as exc:
                if (exc.status == 400 and self._max_tokens_field == "max_tokens"
                        and "max_completion_tokens" in str(exc)):
                    self._max_tokens_field = "max_completion_tokens"
                    data = self._post(f"{self.base_url}/chat/completions",
                                      dict(payload, max_completion_tokens=limit), wait)
                else:
                    raise
            return self._parse(data)

        return self._with_retries(attempt)

    def _parse(self, data: dict) -> ChatResponse:
        if data.get("error"):  # some gateways wrap a failure in a 200
            err = data["error"]
            text = str(err.get("message") or err) if isinstance(err, dict) else str(err)
            raise self._fail(f"error in response: {text}", overflow=is_overflow_message(text))
        try:
            choice = data["choices"][0]
            msg = choice.get("message") or {}
            content = msg.get("content")
            if isinstance(content, list):  # content parts, from a few servers
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            calls = []
            for call in msg.get("tool_calls") or []:
                fn = call.get("function") or {}
                calls.append(ToolCall(id=call.get("id") or new_call_id(), name=str(fn.get("name", "")),
                                      arguments=parse_arguments(fn.get("arguments"))))
            usage = data.get("usage") or {}
            used = (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
            reason = choice.get("finish_reason")
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise self._fail(f"malformed response: {type(exc).__name__}: {exc}") from None
        # Ollama and others say "stop" even when the answer is tool calls; the calls decide.
        finish = "tool_calls" if calls else ("length" if reason == "length" else "stop")
        return ChatResponse(
            message=ChatMessage(role="assistant", content=content or "", tool_calls=calls),
            usage=Usage(input_tokens=used[0], output_tokens=used[1]),
            finish_reason=finish, model=str(data.get("model") or self.model))


def to_wire(m: ChatMessage) -> dict[str, Any]:
    """One message in the chat-completions shape."""
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content}
    if m.role == "assistant" and m.tool_calls:
        return {"role": "assistant", "content": m.content or None,
                "tool_calls": [{"id": c.id, "type": "function",
                                "function": {"name": c.name,
                                             "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                               for c in m.tool_calls]}
    return {"role": m.role, "content": m.content}
