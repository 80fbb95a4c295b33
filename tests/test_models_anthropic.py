"""The Anthropic messages adapter against a real local HTTP server that speaks the wire protocol."""

from __future__ import annotations

import json
import threading

import pytest

from http_helpers import JsonHandler, serving

import reverie.models
import reverie.models.openai_compat as oc
import reverie.retry as retry
from reverie.config import ChatSettings, load_settings
from reverie.errors import ConfigError
from reverie.models import ChatMessage, ChatModelError, ContextOverflowError, ToolCall
from reverie.models.anthropic import AnthropicChat
from reverie.tools.base import Tool

KEY = "sk-ant-test-SECRET-1234567890"
SEARCH_TOOL = Tool(name="memory_search", description="Search memory notes.",
                   schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
                   handler=lambda args: {}).openai()


def reply(*blocks: dict, stop: str = "end_turn", usage: dict | None = None) -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-served",
            "content": list(blocks), "stop_reason": stop, "stop_sequence": None,
            "usage": usage or {"input_tokens": 21, "output_tokens": 7}}


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def tool_use(cid: str, name: str, arguments) -> dict:
    return {"type": "tool_use", "id": cid, "name": name, "input": arguments}


def error_body(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


class MessagesServer:
    """State shared with the handler: what was asked, and what to answer next."""

    def __init__(self):
        self.requests: list[dict] = []
        self.script: list[tuple[int, str]] = []  # (status, body) for the next requests, in order
        self.hang = threading.Event()  # set: requests stall until release is set
        self.release = threading.Event()
        self.base = ""
        self.lock = threading.Lock()

    def answer(self, body: dict | str, *, status: int = 200, times: int = 1) -> None:
        text_body = body if isinstance(body, str) else json.dumps(body)
        self.script.extend([(status, text_body)] * times)

    def fail_next(self, n: int, status: int, body: dict | str = "") -> None:
        self.answer(body, status=status, times=n)


def make_handler(state: MessagesServer):
    class Handler(JsonHandler):
        def do_POST(self):
            payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with state.lock:
                state.requests.append({"path": self.path, "json": payload,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}})
                step = state.script.pop(0) if state.script else None
            if state.hang.is_set():
                state.release.wait(10)
                return
            if self.path != "/v1/messages":
                return self._send(404, json.dumps(error_body("not_found_error", f"no route {self.path}")))
            if self.headers.get("anthropic-version") != "2023-06-01":
                return self._send(400, json.dumps(error_body("invalid_request_error", "anthropic-version missing")))
            if step:
                return self._send(*step)
            last = payload["messages"][-1]["content"][-1]
            self._send(200, json.dumps(reply(text(f"echo: {last.get('text') or last.get('content')}"))))

    return Handler


@pytest.fixture
def server():
    state = MessagesServer()
    with serving(make_handler(state), release=state.release) as base:
        state.base = base
        yield state


@pytest.fixture(autouse=True)
def fast_retry_and_clean_env(monkeypatch):
    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)  # the shared retry loop's delay
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def make(server: MessagesServer, model: str = "claude-test", **chat) -> AnthropicChat:
    return AnthropicChat(model, ChatSettings(**{"baseUrl": server.base, "timeoutSeconds": 5, **chat}))


USER = [ChatMessage("system", "You are terse."), ChatMessage("user", "hello 你好")]


def assert_alternates(messages: list[dict]) -> None:
    roles = [m["role"] for m in messages]
    assert roles[0] == "user" and all(a != b for a, b in zip(roles, roles[1:])), roles


def test_text_answer_usage_and_request_shape(server):
    server.answer(reply(text("Hi "), {"type": "thinking", "thinking": "hmm"}, text("there."),
                        usage={"input_tokens": 5, "output_tokens": 3, "cache_creation_input_tokens": 100,
                               "cache_read_input_tokens": 900}))
    resp = make(server, apiKey=KEY, headers={"X-Custom": "yes"}).complete(USER)
    assert resp.message.role == "assistant" and resp.message.content == "Hi there."
    assert resp.message.tool_calls == [] and resp.finish_reason == "stop" and resp.model == "claude-served"
    assert (resp.usage.input_tokens, resp.usage.output_tokens) == (1005, 3)  # cached input fills the window too
    req = server.requests[0]
    assert req["path"] == "/v1/messages"
    assert req["json"] == {"model": "claude-test", "max_tokens": 4096, "system": "You are terse.",
                           "messages": [{"role": "user", "content": [{"type": "text", "text": "hello 你好"}]}]}
    headers = req["headers"]
    assert headers["x-api-key"] == KEY and headers["anthropic-version"] == "2023-06-01"
    assert headers["x-custom"] == "yes" and "authorization" not in headers


def test_no_system_no_key_and_max_tokens(server):
    resp = make(server).complete([ChatMessage("user", "plain")], max_tokens=99)
    assert resp.message.content == "echo: plain"
    req = server.requests[0]
    assert "system" not in req["json"] and req["json"]["max_tokens"] == 99
    assert "x-api-key" not in req["headers"]


def test_max_tokens_stop_is_length(server):
    server.answer(reply(text("cut"), stop="max_tokens"))
    assert make(server).complete(USER).finish_reason == "length"


def test_tools_sent_as_anthropic_tools(server):
    bare = {"name": "memory_get", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}
    no_params = {"type": "function", "function": {"name": "ping", "description": "Ping."}}
    make(server).complete(USER, tools=[SEARCH_TOOL, bare, no_params])
    assert server.requests[0]["json"]["tools"] == [
        {"name": "memory_search", "description": "Search memory notes.",
         "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
        {"name": "memory_get", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}},
        {"name": "ping", "description": "Ping.", "input_schema": {"type": "object", "properties": {}}}]
    make(server).complete(USER, tools=[])
    assert "tools" not in server.requests[1]["json"]


def test_tool_call_round_trip_blocks_and_alternation(server):
    server.answer(reply(text("Looking."), tool_use("toolu_a", "memory_search", {"query": "数据库"}),
                        tool_use("toolu_b", "memory_get", {"path": "MEMORY.md"}), stop="tool_use"))
    model = make(server)
    first = model.complete(USER, tools=[SEARCH_TOOL])
    assert first.finish_reason == "tool_calls" and first.message.content == "Looking."
    assert first.message.tool_calls == [ToolCall("toolu_a", "memory_search", {"query": "数据库"}),
                                        ToolCall("toolu_b", "memory_get", {"path": "MEMORY.md"})]

    history = [*USER, first.message,
               ChatMessage("tool", '{"results": []}', tool_call_id="toolu_a", name="memory_search"),
               ChatMessage("tool", "# Memory", tool_call_id="toolu_b", name="memory_get")]
    second = model.complete(history, tools=[SEARCH_TOOL])
    assert second.message.content == "echo: # Memory"
    sent = server.requests[1]["json"]
    assert sent["system"] == "You are terse."
    msgs = sent["messages"]
    assert_alternates(msgs)
    assert msgs[1] == {"role": "assistant", "content": [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_a", "name": "memory_search", "input": {"query": "数据库"}},
        {"type": "tool_use", "id": "toolu_b", "name": "memory_get", "input": {"path": "MEMORY.md"}}]}
    # Both results in ONE user message, in order, each naming its tool_use.
    assert msgs[2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": '{"results": []}'},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "# Memory"}]}
    assert len(msgs) == 3


def test_conversation_edge_cases_stay_legal(server):
    history = [
        ChatMessage("assistant", "Summary so far: we chose SQLite."),  # opens with assistant (after compaction)
        ChatMessage("system", "Compaction summary: decisions kept."),  # mid-conversation system
        ChatMessage("user", "and then?"),
        ChatMessage("user", ""),  # empty text blocks are refused by the API
        ChatMessage("assistant", "", [ToolCall("functions.search:0", "memory_search", {"query": "x"})]),
        ChatMessage("tool", "", tool_call_id="functions.search:0"),
        ChatMessage("user", "thanks"),
    ]
    make(server).complete([ChatMessage("system", "Be brief."), *history])
    sent = server.requests[0]["json"]
    assert sent["system"] == "Be brief.\n\nCompaction summary: decisions kept."
    msgs = sent["messages"]
    assert_alternates(msgs)
    assert msgs[0]["content"][0]["type"] == "text"  # a neutral opening user turn
    assert msgs[1] == {"role": "assistant", "content": [{"type": "text", "text": "Summary so far: we chose SQLite."}]}
    assert msgs[2] == {"role": "user", "content": [{"type": "text", "text": "and then?"}]}
    assert msgs[3]["content"] == [{"type": "tool_use", "id": "functions_search_0", "name": "memory_search",
                                   "input": {"query": "x"}}]
    # The tool result leads the user turn that follows; the id is rewritten the same way.
    assert msgs[4]["content"] == [{"type": "tool_result", "tool_use_id": "functions_search_0"},
                                  {"type": "text", "text": "thanks"}]


def test_malformed_tool_input_becomes_raw_not_a_crash(server):
    server.answer(reply(tool_use("toolu_1", "memory_search", '{"query": "unterminated'),
                        tool_use("toolu_2", "memory_search", '{"query": "ok"}'),
                        tool_use("toolu_3", "memory_get", None),
                        {"type": "tool_use", "name": "memory_get", "input": [1, 2]}, stop="tool_use"))
    calls = make(server).complete(USER).message.tool_calls
    assert calls[0].arguments == {"_raw": '{"query": "unterminated'}
    assert calls[1].arguments == {"query": "ok"}
    assert calls[2].arguments == {}
    assert calls[3].arguments == {"_raw": "[1, 2]"} and calls[3].id.startswith("call_")


@pytest.mark.parametrize("status,body", [
    (400, error_body("invalid_request_error", "prompt is too long: 210034 tokens > 200000 maximum")),
    (413, error_body("request_too_large", "Request exceeds the maximum allowed number of bytes.")),
    (400, error_body("invalid_request_error",
                     "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, "
                     "decrease input length or `max_tokens` and try again; too many tokens")),
])
def test_overflow_is_context_overflow_and_not_retried(server, status, body):
    server.fail_next(3, status, body)
    with pytest.raises(ContextOverflowError) as info:
        make(server).complete(USER)
    assert not info.value.retryable and info.value.status == status and len(server.requests) == 1


def test_other_bad_request_shows_message(server):
    server.fail_next(1, 400, error_body("invalid_request_error", "messages.1: tool_use ids must be unique"))
    with pytest.raises(ChatModelError, match="tool_use ids must be unique") as info:
        make(server).complete(USER)
    assert not isinstance(info.value, ContextOverflowError) and not info.value.retryable


@pytest.mark.parametrize("status,kind", [(529, "overloaded_error"), (500, "api_error"), (429, "rate_limit_error")])
def test_transient_errors_then_success_are_retried(server, status, kind):
    server.fail_next(2, status, error_body(kind, "try again"))
    resp = make(server).complete(USER)
    assert resp.message.content == "echo: hello 你好" and len(server.requests) == 3


def test_persistent_overload_gives_up_retryable(server):
    server.fail_next(5, 529, error_body("overloaded_error", "Overloaded"))
    with pytest.raises(ChatModelError) as info:
        make(server).complete(USER)
    assert info.value.retryable and info.value.status == 529 and "Overloaded" in str(info.value)
    assert len(server.requests) == retry.ATTEMPTS


def test_unauthorised_hides_key_and_hints(server):
    server.fail_next(2, 401, error_body("authentication_error", f"invalid x-api-key {KEY}"))
    with pytest.raises(ChatModelError) as info:
        make(server, apiKey=KEY).complete(USER)
    msg = str(info.value)
    assert KEY not in msg and "SECRET" not in msg
    assert "authentication failed (HTTP 401)" in msg and "REVERIE_CHAT_API_KEY" in msg
    assert not info.value.retryable and len(server.requests) == 1
    with pytest.raises(ChatModelError, match="no API key configured.*ANTHROPIC_API_KEY"):
        make(server).complete(USER)


def test_timeout_is_retryable_and_fast(server):
    server.hang.set()  # the server never answers: only the 0.3 s timeout ends each call
    with pytest.raises(ChatModelError) as info:
        make(server, timeoutSeconds=0.3).complete(USER)
    assert info.value.retryable and "timed out after 0.3s" in str(info.value)
    assert len(server.requests) == retry.ATTEMPTS


def test_malformed_response_not_retried(server):
    server.answer({"type": "message", "role": "assistant"})  # no content
    with pytest.raises(ChatModelError, match="malformed response") as info:
        make(server).complete(USER)
    assert not info.value.retryable and len(server.requests) == 1


def test_anthropic_key_from_environment_only_for_anthropic(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-123")
    make(server).complete(USER)
    assert "x-api-key" not in server.requests[-1]["headers"]  # a local gateway never gets it
    official = AnthropicChat("claude-x", ChatSettings())
    assert official.base_url == "https://api.anthropic.com"
    assert official._headers()["x-api-key"] == "sk-ant-env-123"
    assert AnthropicChat("claude-x", ChatSettings(apiKey="k2"))._headers()["x-api-key"] == "k2"


def test_context_window():
    assert AnthropicChat("claude-x", ChatSettings()).context_window == 200_000
    assert AnthropicChat("claude-x", ChatSettings(contextWindow=50_000)).context_window == 50_000


def test_create_from_loaded_settings(server):
    settings = load_settings(None, env={"REVERIE_CHAT_MODEL": "anthropic:claude-x",
                                        "REVERIE_CHAT_BASE_URL": server.base + "/v1/",  # OpenAI-style paste
                                        "REVERIE_CHAT_API_KEY": KEY})
    model = reverie.models.create(settings.chat.model, settings.chat)
    assert isinstance(model, AnthropicChat) and model.provider == "anthropic" and model.model == "claude-x"
    assert model.complete(USER).message.content == "echo: hello 你好"
    req = server.requests[-1]
    assert req["path"] == "/v1/messages" and req["json"]["model"] == "claude-x"
    assert req["headers"]["x-api-key"] == KEY


def test_bad_specs_are_config_errors():
    settings = load_settings(None, env={}).chat
    with pytest.raises(ConfigError, match="chat.model.*claude"):
        reverie.models.create("claude:sonnet", settings)
    with pytest.raises(ConfigError, match="chat.model.*needs a model name"):
        reverie.models.create("anthropic:", settings)
