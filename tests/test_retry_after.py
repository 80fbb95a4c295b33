"""One retry loop for every provider call, honouring ``Retry-After`` (issue 9, §4).

A real local HTTP server answers 429/503 with ``Retry-After`` (seconds, an HTTP date, or OpenAI's
``retry-after-ms``) before it answers properly; the time between its requests shows how long the
client waited. The backoff is shrunk to 10 ms, so only honouring the header can make a gap of a
second. Only lower bounds are asserted: a busy machine makes gaps longer, never shorter.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import numpy as np
import pytest

from http_helpers import JsonHandler, serving

import reverie.retry as retry
from reverie.config import ChatSettings, SearchSettings
from reverie.embeddings.openai_compat import OpenAICompatible
from reverie.errors import EmbeddingError
from reverie.models import ChatMessage, ChatModelError
from reverie.models.anthropic import AnthropicChat
from reverie.models.openai_compat import OpenAIChat
from reverie.retry import parse_retry_after


class Server:
    def __init__(self):
        self.times: list[float] = []
        self.failures: list[tuple[int, dict]] = []  # (status, headers) for the next requests
        self.lock = threading.Lock()
        self.url = ""

    def fail_next(self, status: int, **headers: str) -> None:
        self.failures.append((status, {k.replace("_", "-"): v for k, v in headers.items()}))

    def gaps(self) -> list[float]:
        return [b - a for a, b in zip(self.times, self.times[1:])]


def make_handler(state: Server):
    class Handler(JsonHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with state.lock:
                state.times.append(time.monotonic())
                failure = state.failures.pop(0) if state.failures else None
            if failure:
                status, headers = failure
                data = json.dumps({"error": {"message": "slow down", "type": "rate_limit_error"}}).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            if self.path == "/v1/embeddings":
                data = [{"index": i, "embedding": [1.0, float(i), 0.5]} for i in range(len(body["input"]))]
                return self._send(200, json.dumps({"data": data}))
            if self.path == "/v1/chat/completions":
                return self._send(200, json.dumps({"choices": [{"message": {"content": "hello"},
                                                                "finish_reason": "stop"}]}))
            if self.path == "/v1/messages":
                return self._send(200, json.dumps({"content": [{"type": "text", "text": "hello"}],
                                                   "stop_reason": "end_turn", "usage": {}}))
            self._send(404, "{}")

    return Handler


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)
    state = Server()
    with serving(make_handler(state)) as base:
        state.url = base + "/v1"
        yield state


def embedder(server: Server) -> OpenAICompatible:
    return OpenAICompatible(SearchSettings(provider="openai", model="m",
                                           remote={"baseUrl": server.url, "timeoutSeconds": 10}))


def chat(server: Server, kind=OpenAIChat):
    return kind("m", ChatSettings(baseUrl=server.url, apiKey="k-123456", timeoutSeconds=10))


HELLO = [ChatMessage("user", "hi")]


def test_embedding_waits_as_long_as_retry_after_says(server):
    server.fail_next(429, Retry_After="1")
    vectors = embedder(server).embed_documents(["a", "b"])
    assert vectors.shape == (2, 3) and np.allclose(np.linalg.norm(vectors, axis=1), 1)
    assert len(server.times) == 2 and server.gaps()[0] >= 0.95


def test_chat_honours_an_http_date_retry_after(server):
    when = datetime.now(timezone.utc) + timedelta(seconds=2)
    server.fail_next(503, Retry_After=format_datetime(when, usegmt=True))
    assert chat(server).complete(HELLO).message.content == "hello"
    # an HTTP date has whole seconds: now+2 s rounds down to a wait of at least 1 s
    assert len(server.times) == 2 and server.gaps()[0] >= 0.95


def test_anthropic_and_openai_retry_after_ms_go_through_the_same_loop(server):
    server.fail_next(429, Retry_After="1")
    assert chat(server, AnthropicChat).complete(HELLO).message.content == "hello"
    assert server.gaps()[0] >= 0.95
    server.times.clear()
    server.fail_next(429, retry_after_ms="1200", Retry_After="0")  # the finer header wins
    assert chat(server).complete(HELLO).message.content == "hello"
    assert server.gaps()[0] >= 1.15


def test_a_wait_longer_than_the_cap_fails_at_once_and_says_why(server):
    server.fail_next(429, Retry_After="3600")
    t0 = time.monotonic()
    with pytest.raises(ChatModelError, match="retry after 3600 s") as err:
        chat(server).complete(HELLO)
    assert len(server.times) == 1 and time.monotonic() - t0 < retry.RETRY_AFTER_MAX_SECONDS
    assert "\n" not in str(err.value)
    server.times.clear()
    server.fail_next(503, Retry_After="86400")
    with pytest.raises(EmbeddingError, match="retry after 86400 s"):
        embedder(server).embed_documents(["a"])
    assert len(server.times) == 1


def test_without_retry_after_the_backoff_is_used_and_attempts_are_bounded(server):
    for _ in range(retry.ATTEMPTS):
        server.fail_next(503)
    with pytest.raises(ChatModelError, match="HTTP 503"):
        chat(server).complete(HELLO)
    assert len(server.times) == retry.ATTEMPTS


def test_parse_retry_after():
    now = datetime(2026, 3, 1, 9, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("Sun, 01 Mar 2026 09:00:20 GMT", now=now) == 20.0
    assert parse_retry_after("Sun, 01 Mar 2026 08:59:00 GMT", now=now) == 0.0  # in the past: no wait
    assert parse_retry_after("-5") == 0.0
    for junk in (None, "", "soon", "nan", "inf"):
        assert parse_retry_after(junk) is None
