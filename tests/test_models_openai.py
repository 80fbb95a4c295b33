"""The OpenAI-compatible chat adapter against a real local HTTP server that speaks the wire protocol."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from http_helpers import JsonHandler, serving

import reverie.models
import reverie.models.openai_compat as oc
import reverie.retry as retry
from reverie.config import ChatSettings, load_settings
from reverie.errors import ConfigError
from reverie.models import ChatMessage, ChatModelError, ContextOverflowError, ToolCall
from reverie.models.openai_compat import OpenAIChat
from reverie.tools.base import Tool

KEY = "sk-test-SECRET-1234567890"
SEARCH_TOOL = Tool(name="memory_search", description="Search memory notes.",
                   schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
                   handler=lambda args: {}).openai()


def text_reply(text: str | None, *, prompt: int = 11, completion: int = 5, reason: str = "stop") -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "served-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": reason}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}


def tool_reply(*calls: tuple[str | None, str, object], reason: str = "tool_calls") -> dict:
    """calls: (id, name, arguments as sent on the wire: normally a JSON string)."""
    body = text_reply(None, reason=reason)
    body["choices"][0]["message"]["tool_calls"] = [
        {**({"id": cid} if cid else {}), "type": "function", "function": {"name": name, "arguments": args}}
        for cid, name, args in calls]
    return body


class ChatServer:
    """State shared with the handler: what was asked, and what to answer next."""

    def __init__(self):
        self.requests: list[dict] = []
        self.script: list[tuple[int, str]] = []  # (status, body) for the next requests, in order
        self.reject_max_tokens = False  # answer like OpenAI's reasoning models do to max_tokens
        self.hang = threading.Event()  # set: requests stall until release is set
        self.release = threading.Event()
        self.url = ""
        self.lock = threading.Lock()

    def answer(self, *bodies: dict | str, status: int = 200, times: int = 1) -> None:
        for body in bodies:
            text = body if isinstance(body, str) else json.dumps(body)
            self.script.extend([(status, text)] * times)

    def fail_next(self, n: int, status: int, body: dict | str = "") -> None:
        self.answer(body, status=status, times=n)


def make_handler(state: ChatServer):
    class Handler(JsonHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            payload = json.loads(raw)
            with state.lock:
                state.requests.append({"path": self.path, "json": payload,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}})
                step = state.script.pop(0) if state.script else None
            if state.hang.is_set():
                state.release.wait(10)
                return
            if self.path != "/v1/chat/completions":
                return self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
            if state.reject_max_tokens and "max_tokens" in payload:
                return self._send(400, json.dumps({"error": {
                    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                               "Use 'max_completion_tokens' instead.", "type": "invalid_request_error",
                    "param": "max_tokens", "code": "unsupported_parameter"}}))
            if step:
                return self._send(*step)
            last = payload["messages"][-1]
            self._send(200, json.dumps(text_reply(f"echo: {last.get('content')}")))

    return Handler


@pytest.fixture
def server():
    state = ChatServer()
    with serving(make_handler(state), release=state.release) as base:
        state.url = base + "/v1"
        yield state


@pytest.fixture(autouse=True)
def fast_retry(monkeypatch):
    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)


def make(server: ChatServer, model: str = "test-model", **chat) -> OpenAIChat:
    return OpenAIChat(model, ChatSettings(**{"baseUrl": server.url, "timeoutSeconds": 5, **chat}))


USER = [ChatMessage("system", "You are terse."), ChatMessage("user", "hello 你好")]


def test_text_answer_usage_and_request_shape(server):
    resp = make(server, apiKey=KEY, headers={"X-Custom": "yes"}).complete(USER)
    assert resp.message.role == "assistant" and resp.message.content == "echo: hello 你好"
    assert resp.message.tool_calls == [] and resp.finish_reason == "stop"
    assert (resp.usage.input_tokens, resp.usage.output_tokens) == (11, 5)
    assert resp.model == "served-model"
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["json"] == {"model": "test-model", "max_tokens": 4096,
                           "messages": [{"role": "system", "content": "You are terse."},
                                        {"role": "user", "content": "hello 你好"}]}
    assert req["headers"]["authorization"] == f"Bearer {KEY}" and req["headers"]["x-custom"] == "yes"


def test_max_tokens_argument_and_no_key_means_no_authorization(server):
    make(server, maxOutputTokens=77).complete(USER)
    assert server.requests[-1]["json"]["max_tokens"] == 77
    assert "authorization" not in server.requests[-1]["headers"]
    make(server).complete(USER, max_tokens=12)
    assert server.requests[-1]["json"]["max_tokens"] == 12


def test_null_content_and_length_finish(server):
    server.answer(text_reply(None, reason="length"))
    resp = make(server).complete(USER)
    assert resp.message.content == "" and resp.finish_reason == "length"


def test_tools_sent_as_openai_function_definitions(server):
    make(server).complete(USER, tools=[SEARCH_TOOL])
    tools = server.requests[0]["json"]["tools"]
    assert tools == [{"type": "function", "function": {
        "name": "memory_search", "description": "Search memory notes.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}]
    make(server).complete(USER, tools=[])
    assert "tools" not in server.requests[1]["json"]  # some servers reject an empty list


def test_tool_call_round_trip(server):
    server.answer(tool_reply(("call_a", "memory_search", json.dumps({"query": "数据库 decision"})),
                             ("call_b", "memory_get", '{"path": "MEMORY.md", "from": 3}')))
    model = make(server)
    first = model.complete(USER, tools=[SEARCH_TOOL])
    assert first.finish_reason == "tool_calls" and first.message.content == ""
    assert first.message.tool_calls == [ToolCall("call_a", "memory_search", {"query": "数据库 decision"}),
                                        ToolCall("call_b", "memory_get", {"path": "MEMORY.md", "from": 3})]

    history = [*USER, first.message,
               ChatMessage("tool", '{"results": []}', tool_call_id="call_a", name="memory_search"),
               ChatMessage("tool", "line 3", tool_call_id="call_b", name="memory_get")]
    second = model.complete(history, tools=[SEARCH_TOOL])
    assert second.message.content == "echo: line 3"
    sent = server.requests[1]["json"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]
    assistant = sent[2]
    assert assistant["content"] is None
    assert [(c["id"], c["type"], c["function"]["name"]) for c in assistant["tool_calls"]] == [
        ("call_a", "function", "memory_search"), ("call_b", "function", "memory_get")]
    # Arguments go back as JSON strings, as the protocol wants, and decode to what the model sent.
    assert isinstance(assistant["tool_calls"][0]["function"]["arguments"], str)
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"query": "数据库 decision"}
    assert sent[3] == {"role": "tool", "tool_call_id": "call_a", "content": '{"results": []}'}
    assert sent[4] == {"role": "tool", "tool_call_id": "call_b", "content": "line 3"}


def test_assistant_text_with_tool_calls_keeps_text(server):
    make(server).complete([ChatMessage("user", "q"),
                           ChatMessage("assistant", "Let me look.", [ToolCall("c1", "memory_search", {})]),
                           ChatMessage("tool", "none", tool_call_id="c1")])
    assistant = server.requests[0]["json"]["messages"][1]
    assert assistant["content"] == "Let me look." and json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {}


def test_malformed_tool_arguments_become_raw_not_a_crash(server):
    server.answer(tool_reply(("c1", "memory_search", '{"query": "unterminated'),
                             ("c2", "memory_search", "[1, 2]"),
                             ("c3", "memory_get", ""),
                             (None, "memory_get", {"path": "x.md"})))  # Ollama-style object, no id
    calls = make(server).complete(USER).message.tool_calls
    assert calls[0].arguments == {"_raw": '{"query": "unterminated'}
    assert calls[1].arguments == {"_raw": "[1, 2]"}
    assert calls[2].arguments == {}
    assert calls[3].arguments == {"path": "x.md"} and calls[3].id.startswith("call_")
    # Sending the broken call back in history is valid JSON on the wire.
    make(server).complete([ChatMessage("user", "q"), ChatMessage("assistant", "", calls[:1]),
                           ChatMessage("tool", "error: bad arguments", tool_call_id="c1")])
    args = server.requests[-1]["json"]["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(args) == {"_raw": '{"query": "unterminated'}


def test_tool_calls_decide_finish_reason(server):
    server.answer(tool_reply(("c1", "memory_search", '{"query": "x"}'), reason="stop"))  # Ollama says "stop"
    assert make(server).complete(USER).finish_reason == "tool_calls"


@pytest.mark.parametrize("status,body", [
    (400, {"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages "
                                "resulted in 9000 tokens.", "code": "context_length_exceeded"}}),
    (413, {"error": {"type": "request_too_large", "message": "Request exceeds the maximum size"}}),
    (400, {"error": "ollama error: context length exceeded"}),
    (500, {"error": {"message": "input is too long for the model"}}),
])
def test_overflow_is_context_overflow_and_not_retried(server, status, body):
    server.fail_next(3, status, body)
    with pytest.raises(ContextOverflowError) as info:
        make(server).complete(USER)
    assert isinstance(info.value, ChatModelError) and not info.value.retryable
    assert info.value.status == status and "context overflow" in str(info.value)
    assert len(server.requests) == 1


def test_other_client_error_shows_server_message_without_key(server):
    server.fail_next(1, 400, {"error": {"message": f"Invalid value for 'temperature' (key {KEY})"}})
    with pytest.raises(ChatModelError) as info:
        make(server, apiKey=KEY).complete(USER)
    msg = str(info.value)
    assert not isinstance(info.value, ContextOverflowError)
    assert "Invalid value for 'temperature'" in msg and "400" in msg and KEY not in msg
    assert not info.value.retryable and info.value.status == 400 and len(server.requests) == 1


def test_not_found_says_check_base_url(server):
    server.fail_next(1, 404, {"error": 'model "llama9" not found, try pulling it first'})
    with pytest.raises(ChatModelError, match="try pulling it first.*chat.baseUrl"):
        make(server).complete(USER)
    wrong = OpenAIChat("m", ChatSettings(baseUrl=server.url.removesuffix("/v1"), timeoutSeconds=5))
    with pytest.raises(ChatModelError, match="404"):
        wrong.complete(USER)


def test_server_error_then_success_is_retried(server):
    server.fail_next(2, 500, {"error": {"message": "overloaded"}})
    resp = make(server).complete(USER)
    assert resp.message.content == "echo: hello 你好" and len(server.requests) == 3
    assert server.requests[0]["json"] == server.requests[2]["json"]


def test_persistent_server_error_gives_up_retryable(server):
    server.fail_next(5, 503, "upstream unavailable")
    with pytest.raises(ChatModelError) as info:
        make(server).complete(USER)
    assert info.value.retryable and info.value.status == 503
    assert "503" in str(info.value) and "upstream unavailable" in str(info.value)
    assert len(server.requests) == retry.ATTEMPTS


def test_rate_limit_retried_but_exhausted_quota_not(server):
    server.fail_next(1, 429, {"error": {"message": "Rate limit reached", "type": "requests"}})
    make(server).complete(USER)
    assert len(server.requests) == 2
    server.fail_next(3, 429, {"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}})
    with pytest.raises(ChatModelError) as info:
        make(server).complete(USER)
    assert not info.value.retryable and len(server.requests) == 3


def test_unauthorised_message_hides_key_and_hints(server):
    server.fail_next(3, 401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
    with pytest.raises(ChatModelError) as info:
        make(server, apiKey=KEY).complete(USER)
    msg = str(info.value)
    assert KEY not in msg and "SECRET" not in msg and "\n" not in msg
    assert "authentication failed" in msg and "chat.apiKey" in msg and "REVERIE_CHAT_API_KEY" in msg
    assert not info.value.retryable and info.value.status == 401 and len(server.requests) == 1
    with pytest.raises(ChatModelError, match="no API key configured"):
        make(server).complete(USER)


def test_custom_header_secret_scrubbed(server):
    token = "gateway-token-abcdef"
    server.fail_next(1, 400, {"error": {"message": f"bad header value {token}"}})
    with pytest.raises(ChatModelError) as info:
        make(server, headers={"X-Gateway": token}).complete(USER)
    assert token not in str(info.value) and "***" in str(info.value)


def test_timeout_is_retryable_and_fast(server):
    server.hang.set()
    model = make(server, timeoutSeconds=0.3)
    with pytest.raises(ChatModelError) as info:  # (the server never answers: only the timeout ends a call)
        model.complete(USER)
    assert info.value.retryable and "timed out after 0.3s" in str(info.value)
    assert len(server.requests) == retry.ATTEMPTS


def test_per_call_timeout_overrides_settings(server):
    server.hang.set()
    with pytest.raises(ChatModelError, match="timed out after 0.2s"):  # not the settings' 30 s
        make(server, timeoutSeconds=30).complete(USER, timeout=0.2)


def test_connection_refused_is_retryable():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OpenAIChat("m", ChatSettings(baseUrl=f"http://127.0.0.1:{port}/v1", apiKey=KEY))
    with pytest.raises(ChatModelError) as info:
        model.complete(USER)
    assert info.value.retryable and "connection failed" in str(info.value) and KEY not in str(info.value)


def test_bad_base_url_not_retried():
    with pytest.raises(ChatModelError, match="bad base URL") as info:
        OpenAIChat("m", ChatSettings(baseUrl="ftp://example.invalid/v1")).complete(USER)
    assert not info.value.retryable


def test_malformed_response_not_retried(server):
    server.answer("{not json")
    with pytest.raises(ChatModelError, match="not JSON") as info:
        make(server).complete(USER)
    assert not info.value.retryable and len(server.requests) == 1
    server.answer({"object": "chat.completion", "choices": []})
    with pytest.raises(ChatModelError, match="malformed response"):
        make(server).complete(USER)
    server.answer({**text_reply("hi"), "usage": {"prompt_tokens": "n/a"}})
    with pytest.raises(ChatModelError, match="malformed response"):
        make(server).complete(USER)


def test_error_wrapped_in_200_is_an_error(server):
    server.answer({"error": {"message": "prompt is too long for this route"}})
    with pytest.raises(ContextOverflowError):
        make(server).complete(USER)
    server.answer({"error": "provider returned nothing"})
    with pytest.raises(ChatModelError, match="provider returned nothing"):
        make(server).complete(USER)


def test_switches_to_max_completion_tokens_when_told(server):
    server.reject_max_tokens = True
    model = make(server, "o3-mini")
    assert model.complete(USER, max_tokens=50).message.content == "echo: hello 你好"
    assert [("max_tokens" in r["json"], r["json"].get("max_completion_tokens")) for r in server.requests] == [
        (True, None), (False, 50)]
    model.complete(USER)  # remembered: no failing request first
    assert len(server.requests) == 3 and server.requests[2]["json"]["max_completion_tokens"] == 4096


def test_context_window_table_override_and_default():
    window = lambda model, **kw: OpenAIChat(model, ChatSettings(**kw)).context_window  # noqa: E731
    assert window("gpt-4o-mini") == 128_000
    assert window("gpt-4.1-nano") == 1_047_576
    assert window("gpt-4") == 8_192 and window("gpt-4-turbo-preview") == 128_000
    assert window("gpt-5-mini") == 272_000 and window("o3-mini") == 200_000
    assert window("deepseek-chat", baseUrl="https://api.deepseek.com/v1") == 64_000
    assert window("openai/gpt-4o") == 128_000  # gateway-prefixed name
    assert window("qwen2.5:7b", baseUrl="http://localhost:11434/v1") == oc.DEFAULT_CONTEXT_WINDOW == 128_000
    assert window("gpt-4o", contextWindow=16_000) == 16_000


def test_openai_key_from_environment_only_for_openai(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123")
    local = make(server)
    local.complete(USER)
    assert "authorization" not in server.requests[-1]["headers"]  # never sent to another host
    assert OpenAIChat("gpt-4o", ChatSettings())._headers()["Authorization"] == "Bearer sk-from-env-123"
    lookalike = OpenAIChat("gpt-4o", ChatSettings(baseUrl="https://evil.example/api.openai.com/v1"))
    assert "Authorization" not in lookalike._headers()
    configured = OpenAIChat("gpt-4o", ChatSettings(apiKey="sk-configured"))
    assert configured._headers()["Authorization"] == "Bearer sk-configured"


def test_create_from_loaded_settings(server):
    settings = load_settings(None, env={"REVERIE_CHAT_MODEL": "openai:gpt-4o-mini",
                                        "REVERIE_CHAT_BASE_URL": server.url + "/",
                                        "REVERIE_CHAT_API_KEY": KEY})
    model = reverie.models.create(settings.chat.model, settings.chat)
    assert isinstance(model, OpenAIChat) and model.provider == "openai" and model.model == "gpt-4o-mini"
    assert model.context_window == 128_000 and model.offline is False
    assert model.complete(USER).message.content == "echo: hello 你好"
    req = server.requests[-1]
    assert req["path"] == "/v1/chat/completions" and req["json"]["model"] == "gpt-4o-mini"
    assert req["headers"]["authorization"] == f"Bearer {KEY}"


def test_bad_specs_are_config_errors():
    settings = load_settings(None, env={}).chat
    with pytest.raises(ConfigError, match="chat.model.*nope"):
        reverie.models.create("nope:gpt", settings)
    with pytest.raises(ConfigError, match="chat.model.*needs a model name"):
        reverie.models.create("openai", settings)
    assert {"openai", "anthropic"} <= set(reverie.models.available())
