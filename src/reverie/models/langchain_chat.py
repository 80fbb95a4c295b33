"""A LangChain chat model (``BaseChatModel``: ChatOpenAI, ChatAnthropic, ChatOllama, ...) as reverie's
chat model, so Active Memory, the pre-compaction flush, Dreaming and every other model-backed step
run on the model a LangChain or LangGraph program already has: ``chat.model = "langchain:<name>"``.

``<name>`` is first looked up among the models registered in this process
(:func:`register_chat_model`; ``reverie.hosts.langgraph.use_chat_model`` does it for you), else it is
handed to LangChain's ``init_chat_model`` (``langchain:openai:gpt-4o-mini``,
``langchain:ollama:llama3.1``), which builds the model from the integration's own environment.

The translation: reverie's messages (OpenAI chat shape) become LangChain messages (system messages
joined into one leading ``SystemMessage``, as several integrations accept only that), tools are
bound with ``bind_tools`` (OpenAI function definitions, which LangChain takes as they are), a
``max_tokens`` of the request is set on a copy of the model under the integration's own field name,
and the reply's text, tool calls, usage and stop reason come back. Each call runs in an empty
context, so a graph run that is streaming never sees reverie's own model calls among its messages;
the call's deadline is kept by waiting for it in a worker thread. Every failure is a
:class:`ChatModelError` (a :class:`ContextOverflowError` when the input is too long), one line,
``retryable`` only when waiting can help, and retried like the other providers' calls.

``langchain_core`` is imported only when such a model is used: reverie does not depend on it.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any, Callable

from ..errors import ConfigError, UserError
from ..retry import call_with_retries
from .base import ChatMessage, ChatModel, ChatModelError, ChatResponse, ToolCall, Usage
from .base import is_overflow_message, model_error

PROVIDER = "langchain"
DEFAULT_CONTEXT_WINDOW = 128_000  # when neither chat.contextWindow nor the model's profile says
# The field that caps the answer's length, by integration: OpenAI, Anthropic, Mistral, Groq and most
# others call it max_tokens; Google's max_output_tokens, Ollama's num_predict, Hugging Face's max_new_tokens.
LIMIT_FIELDS = ("max_tokens", "max_output_tokens", "num_predict", "max_new_tokens")

_registered: dict[str, Any] = {}  # name -> the program's chat model, registered in this process
_made: dict[str, Any] = {}  # name -> a model init_chat_model made (made once per process)
_lock = threading.Lock()


# -- which model --------------------------------------------------------------------------------------
def _check_model(chat_model: Any) -> None:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import Runnable

    if not isinstance(chat_model, (BaseChatModel, Runnable)):
        raise UserError(f"a LangChain chat model (BaseChatModel: ChatOpenAI, ChatAnthropic, ...) is needed, "
                        f"not {type(chat_model).__name__}")


def default_name(chat_model: Any) -> str:
    """``<provider>:<model>`` as the model reports it for tracing (``openai:gpt-4o-mini``), else its class."""
    try:
        params = chat_model._get_ls_params()
    except Exception:  # not every integration implements it, and a binding may not forward it
        params = {}
    provider, model = params.get("ls_provider"), params.get("ls_model_name")
    if provider and model:
        return f"{provider}:{model}"
    return str(model or getattr(chat_model, "model_name", None) or getattr(chat_model, "model", None)
               or type(chat_model).__name__)


def register_chat_model(chat_model: Any, name: str | None = None) -> str:
    """Make ``chat_model`` usable as ``langchain:<name>`` in this process; returns that spec. Without
    a ``name``, its provider and model (``openai:gpt-4o-mini``), made unique when another model
    object already holds that name."""
    _check_model(chat_model)
    base = (name or default_name(chat_model)).strip()
    if not base:
        raise UserError("the name of a LangChain chat model cannot be empty")
    with _lock:
        key, n = base, 1
        while name is None and _registered.get(key) not in (None, chat_model):
            n += 1
            key = f"{base}#{n}"
        _registered[key] = chat_model
    return f"{PROVIDER}:{key}"


def registered(name: str) -> Any | None:
    with _lock:
        return _registered.get(name)


def factory(name: str, settings) -> "LangChainChat":
    """The ``reverie.models`` entry point of ``langchain``."""
    name = (name or "").strip()
    if not name:
        raise ConfigError("bad value for 'chat.model': langchain needs a model, e.g. langchain:openai:gpt-4o-mini, "
                          "or a chat model registered with reverie.hosts.langgraph.use_chat_model")
    chat_model = registered(name)
    if chat_model is None:
        chat_model = _made.get(name) or _init(name)
    return LangChainChat(chat_model, name, settings)


def _init(name: str) -> Any:
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigError(f"bad value for 'chat.model': no LangChain chat model is registered as {name!r} in this "
                          "process (reverie.hosts.langgraph.use_chat_model registers one), and the langchain "
                          "package, which could make one, is not installed") from None
    try:
        made = init_chat_model(name)
    except Exception as exc:  # an unknown provider, its integration package missing, a missing key
        text = " ".join(str(exc).split())[:300]
        raise ConfigError(f"bad value for 'chat.model': langchain:{name}: no chat model registered under this name "
                          f"in this process, and LangChain's init_chat_model could not make one: "
                          f"{type(exc).__name__}: {text}") from None
    with _lock:
        return _made.setdefault(name, made)


# -- the adapter ----------------------------------------------------------------------------------------
class LangChainChat(ChatModel):
    provider = PROVIDER

    def __init__(self, chat_model: Any, name: str, settings=None):
        _check_model(chat_model)
        self.chat_model = chat_model
        self.model = name
        self.kind = type(chat_model).__name__
        window = getattr(settings, "context_window", 0) if settings is not None else 0
        profile = getattr(chat_model, "profile", None)
        known = profile.get("max_input_tokens") if isinstance(profile, dict) else None
        self.context_window = int(window or known or DEFAULT_CONTEXT_WINDOW)
        fields = getattr(type(chat_model), "model_fields", {})
        self._limit_field = next((f for f in LIMIT_FIELDS if f in fields), None)
        self._secrets = _secrets_of(chat_model)
        self._config = {"run_name": "reverie", "tags": ["reverie"]}

    def complete(self, messages: list[ChatMessage], tools: list[dict] | None = None, *,
                 timeout: float | None = None, max_tokens: int | None = None) -> ChatResponse:
        request = to_langchain(messages)
        model = self._prepared(tools, max_tokens)

        def attempt() -> ChatResponse:
            try:
                reply = _run_isolated(lambda: model.invoke(request, config=dict(self._config)), timeout)
            except _Deadline:
                raise self._fail(f"timed out after {timeout:g} s", retryable=True) from None
            except Exception as exc:
                raise self._error(exc) from None
            return self._parse(reply)

        return call_with_retries(attempt, error=ChatModelError,
                                 wrap=lambda exc: self._fail(f"{type(exc).__name__}: {exc}"))

    def _prepared(self, tools: list[dict] | None, max_tokens: int | None):
        model = self.chat_model
        if max_tokens and self._limit_field:
            # A copy with the request's limit: the program's own model object is left as it is.
            model = model.model_copy(update={self._limit_field: int(max_tokens)})
        if tools:
            try:
                model = model.bind_tools(list(tools))
            except NotImplementedError:
                raise self._fail("this model cannot call tools (its bind_tools is not implemented); Active Memory "
                                 "and the flush need one that can") from None
            except Exception as exc:
                raise self._fail(f"binding reverie's tools failed: {type(exc).__name__}: {exc}") from None
        return model

    # -- the reply ----------------------------------------------------------------------------------
    def _parse(self, reply: Any) -> ChatResponse:
        from .openai_compat import new_call_id, parse_arguments

        if isinstance(reply, str):  # a runnable that ends in a string parser
            return ChatResponse(ChatMessage("assistant", reply), model=self.model)
        try:
            content = _text_of(reply.content)
            calls = [ToolCall(id=c.get("id") or new_call_id(), name=str(c.get("name") or ""),
                              arguments=parse_arguments(c.get("args")))
                     for c in getattr(reply, "tool_calls", None) or []]
            # arguments that were not JSON reach the tool as data ({"_raw": ...}), as with the HTTP adapters
            calls += [ToolCall(id=c.get("id") or new_call_id(), name=str(c.get("name") or ""),
                               arguments=parse_arguments(c.get("args")))
                      for c in getattr(reply, "invalid_tool_calls", None) or []]
            usage = getattr(reply, "usage_metadata", None) or {}
            meta = getattr(reply, "response_metadata", None) or {}
            reason = meta.get("finish_reason") or meta.get("stop_reason") or meta.get("done_reason")
            used = Usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0))
        except (AttributeError, TypeError, ValueError) as exc:
            raise self._fail(f"malformed reply ({type(reply).__name__}): {type(exc).__name__}: {exc}") from None
        finish = "tool_calls" if calls else ("length" if reason in ("length", "max_tokens") else "stop")
        return ChatResponse(ChatMessage("assistant", content, tool_calls=calls), used, finish,
                            str(meta.get("model_name") or meta.get("model") or self.model))

    # -- failures -----------------------------------------------------------------------------------
    def _fail(self, message: str, *, retryable: bool = False, status: int | None = None, overflow: bool = False,
              retry_after: float | None = None) -> ChatModelError:
        return model_error(f"{PROVIDER}:{self.model} ({self.kind})", message, self._secrets,
                           retryable=retryable, status=status, overflow=overflow, retry_after=retry_after)

    def _error(self, exc: Exception) -> ChatModelError:
        """What the LangChain model raised, as reverie's error: LangChain's own classes first
        (``langchain_core.exceptions.Model*Error``, raised by current integrations), then the HTTP
        status the provider's SDK put on the exception, then what the error is called."""
        from langchain_core import exceptions as lc

        def isa(name: str) -> bool:
            cls = getattr(lc, name, None)
            return cls is not None and isinstance(exc, cls)

        status = _status_of(exc)
        response = getattr(exc, "response", None)
        detail = _server_text(exc, response)
        name = type(exc).__name__
        if isa("ContextOverflowError") or (status != 429 and is_overflow_message(str(exc))):
            return self._fail(f"context overflow{_http(status)}: {detail}", status=status, overflow=True)
        if isa("ModelAuthenticationError") or isa("ModelPermissionDeniedError") or status in (401, 403):
            # the provider's text is not shown: it may quote part of the key
            return self._fail(f"authentication failed{_http(status)}: {name}; check the API key the LangChain "
                              "model was given", status=status)
        waited = _retry_after(response)
        if isa("ModelRateLimitError") or status == 429:
            exhausted = "insufficient_quota" in str(exc).lower()
            return self._fail(f"quota or rate limit{_http(status)}: {detail}", status=status,
                              retryable=not exhausted, retry_after=waited)
        if isa("ModelAPIError") or (status is not None and (status >= 500 or status == 408)):
            return self._fail(f"server error{_http(status)}: {detail}", status=status, retryable=True,
                              retry_after=waited)
        if isa("ModelTimeoutError") or isinstance(exc, TimeoutError) or "Timeout" in name:
            return self._fail(f"timed out: {name}: {detail}", status=status, retryable=True)
        if isa("ModelConnectionError") or isinstance(exc, ConnectionError) or "Connection" in name:
            return self._fail(f"connection failed: {name}: {detail}", status=status, retryable=True)
        if isa("ModelNotFoundError") or status == 404:
            return self._fail(f"not found{_http(status)}: {detail}; check the model's name and base URL",
                              status=status)
        if status is not None:
            return self._fail(f"request rejected{_http(status)}: {detail}", status=status)
        return self._fail(f"{name}: {detail}", retryable=bool(getattr(exc, "is_retryable", False)))


def to_langchain(messages: list[ChatMessage]) -> list:
    """reverie's messages as LangChain's, every system message joined into one leading SystemMessage."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    system = [m.content for m in messages if m.role == "system" and m.content.strip()]
    out: list = [SystemMessage(content="\n\n".join(system))] if system else []
    for m in messages:
        if m.role == "user":
            out.append(HumanMessage(content=m.content))
        elif m.role == "assistant":
            out.append(AIMessage(content=m.content, tool_calls=[
                {"name": c.name, "args": dict(c.arguments), "id": c.id, "type": "tool_call"} for c in m.tool_calls]))
        elif m.role == "tool":
            out.append(ToolMessage(content=m.content, tool_call_id=m.tool_call_id or "", name=m.name))
    return out


def _text_of(content: Any) -> str:
    """The answer's text: a string, or the text blocks of a list (reasoning and other blocks left out)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") in ("text", None) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


class _Deadline(Exception):
    pass


def _run_isolated(fn: Callable[[], Any], timeout: float | None) -> Any:
    """``fn()`` in an empty context (no run of the host's graph is its parent, so its callbacks and
    streams do not receive it), given at most ``timeout`` seconds: past them the worker thread is left
    to finish on its own and its answer is dropped."""
    context = contextvars.Context()
    if timeout is None:
        return context.run(fn)
    box: dict = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = context.run(fn)
        except BaseException as exc:  # handed to the caller
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="reverie-langchain-model", daemon=True).start()
    if not done.wait(max(0.0, timeout)):
        raise _Deadline()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _status_of(exc: Exception) -> int | None:
    for value in (getattr(exc, "status_code", None), getattr(exc, "status", None),
                  getattr(getattr(exc, "response", None), "status_code", None)):
        if isinstance(value, int) and 100 <= value < 600:
            return value
    return None


# The provider SDKs put the HTTP response on their errors (httpx's, or a fork of it, as openai's is):
# read by its shape, whatever the class.
def _server_text(exc: Exception, response: Any) -> str:
    if response is not None and hasattr(response, "json") and hasattr(response, "text"):
        try:
            from ..httputil import server_message

            return server_message(response)
        except Exception:  # a body not read, or not JSON-shaped as expected
            pass
    return str(getattr(exc, "message", None) or exc) or type(exc).__name__


def _retry_after(response: Any) -> float | None:
    if response is not None and hasattr(response, "headers"):
        try:
            from ..httputil import retry_after

            return retry_after(response)
        except Exception:
            pass
    return None


def _http(status: int | None) -> str:
    return f" (HTTP {status})" if status else ""


def _secrets_of(chat_model: Any) -> list[str]:
    """The key values the model holds (pydantic ``SecretStr`` fields), to scrub from messages."""
    found = []
    for value in getattr(chat_model, "__dict__", {}).values():
        get = getattr(value, "get_secret_value", None)
        if callable(get):
            try:
                secret = get()
            except Exception:
                continue
            if isinstance(secret, str) and len(secret) >= 6:
                found.append(secret)
    return found
