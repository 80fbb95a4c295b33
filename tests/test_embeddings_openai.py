"""The OpenAI-compatible embedder against a real local HTTP server that speaks the wire protocol."""

from __future__ import annotations

import hashlib
import json
import threading

import numpy as np
import pytest

from http_helpers import JsonHandler, serving

import reverie.embeddings
import reverie.retry as retry
from reverie.config import SearchSettings, load_settings
from reverie.embeddings.openai_compat import OpenAICompatible
from reverie.errors import EmbeddingError

KEY = "sk-test-SECRET-1234567890"


def expected_vector(text: str, dims: int) -> np.ndarray:
    raw = hashlib.sha256(text.encode()).digest()
    return np.array([b / 255.0 + 0.01 for b in raw[:dims]], dtype=np.float32)


class EmbeddingServer:
    """State shared with the handler: what was asked, and how to misbehave next."""

    def __init__(self):
        self.requests: list[dict] = []
        self.failures: list[tuple[int, str]] = []  # (status, body) for the next requests, in order
        self.raw_response: str | None = None  # sent verbatim with 200 when set
        self.drop_last = False  # answer with one vector too few
        self.hang = threading.Event()  # set: requests stall until release is set
        self.release = threading.Event()
        self.dims = 8
        self.url = ""
        self.lock = threading.Lock()

    def fail_next(self, n: int, status: int, body: str | dict = "") -> None:
        text = json.dumps(body) if isinstance(body, dict) else body
        self.failures.extend([(status, text)] * n)


def make_handler(state: EmbeddingServer):
    class Handler(JsonHandler):

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with state.lock:
                state.requests.append({"path": self.path, "headers": dict(self.headers),
                                       "json": json.loads(body)})
                failure = state.failures.pop(0) if state.failures else None
            if state.hang.is_set():
                state.release.wait(10)
                return
            if self.path != "/v1/embeddings":
                return self._send(404, json.dumps({"error": {"message": "not found"}}))
            if failure:
                return self._send(*failure)
            if state.raw_response is not None:
                return self._send(200, state.raw_response)
            inputs = json.loads(body)["input"]
            data = [{"object": "embedding", "index": i,
                     "embedding": expected_vector(t, state.dims).tolist()} for i, t in enumerate(inputs)]
            data.reverse()  # out of order on purpose: the client must sort by index
            if state.drop_last:
                data = data[1:]
            self._send(200, json.dumps({"object": "list", "data": data, "model": "m"}))

    return Handler


@pytest.fixture
def server():
    state = EmbeddingServer()
    with serving(make_handler(state), release=state.release) as base:
        state.url = base + "/v1"
        yield state


@pytest.fixture
def fast_retry(monkeypatch):
    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)


def make(server: EmbeddingServer, **remote) -> OpenAICompatible:
    remote = {"baseUrl": server.url, "timeoutSeconds": 5, **remote}
    return OpenAICompatible(SearchSettings(provider="openai", model="test-embed", remote=remote))


def normalised(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def test_vectors_match_inputs_despite_out_of_order_response(server):
    emb = make(server)
    texts = ["alpha", "beta", "gamma", "记忆"]
    out = emb.embed_documents(texts)
    assert out.shape == (4, 8) and out.dtype == np.float32
    for row, text in zip(out, texts):
        np.testing.assert_allclose(row, normalised(expected_vector(text, 8)), rtol=1e-5)
    req = server.requests[0]
    assert req["path"] == "/v1/embeddings"
    assert req["json"] == {"model": "test-embed", "input": texts}
    q = emb.embed_query("beta")
    np.testing.assert_allclose(q, out[1], rtol=1e-5)


def test_defaults_and_trailing_slash(server):
    emb = OpenAICompatible(SearchSettings(provider="openai"))  # no network in __init__
    assert (emb.model, emb.base_url, emb.dims) == ("text-embedding-3-small", "https://api.openai.com/v1", 0)
    assert emb.provider == "openai" and emb.remote is True
    slashed = make(server, baseUrl=server.url + "/")
    slashed.embed_query("x")
    assert server.requests[-1]["path"] == "/v1/embeddings"


def test_batches_hold_at_most_64_inputs_and_keep_order(server):
    texts = [f"note number {i}" for i in range(150)]
    out = make(server).embed_documents(texts)
    sizes = [len(r["json"]["input"]) for r in server.requests]
    assert len(sizes) >= 3 and max(sizes) <= 64 and sum(sizes) == 150
    assert [t for r in server.requests for t in r["json"]["input"]] == texts
    np.testing.assert_allclose(out[149], normalised(expected_vector(texts[149], 8)), rtol=1e-5)


def test_auth_and_custom_headers_sent(server):
    make(server, apiKey=KEY, headers={"X-Custom": "yes"}).embed_query("hi")
    headers = {k.lower(): v for k, v in server.requests[-1]["headers"].items()}
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["x-custom"] == "yes"
    make(server).embed_query("hi")  # no key: no Authorization header at all
    assert "authorization" not in {k.lower() for k in server.requests[-1]["headers"]}


def test_server_error_is_retried_then_succeeds(server, fast_retry):
    server.fail_next(2, 500, {"error": {"message": "overloaded"}})
    vec = make(server).embed_query("retry me")
    assert len(server.requests) == 3
    np.testing.assert_allclose(vec, normalised(expected_vector("retry me", 8)), rtol=1e-5)


def test_persistent_server_error_gives_up_retryable(server, fast_retry):
    server.fail_next(5, 503, {"error": {"message": "overloaded"}})
    with pytest.raises(EmbeddingError) as info:
        make(server).embed_query("x")
    assert info.value.retryable and not info.value.quota
    assert "503" in str(info.value) and "overloaded" in str(info.value)
    assert len(server.requests) == retry.ATTEMPTS


def test_insufficient_quota_is_quota_and_not_retried(server, fast_retry):
    server.fail_next(3, 429, {"error": {"message": "You exceeded your current quota",
                                        "type": "insufficient_quota", "code": "insufficient_quota"}})
    with pytest.raises(EmbeddingError) as info:
        make(server, apiKey=KEY).embed_query("x")
    assert info.value.quota is True and info.value.retryable is False
    assert len(server.requests) == 1
    assert "\n" not in str(info.value)


def test_rate_limit_is_quota_and_retried(server, fast_retry):
    server.fail_next(1, 429, {"error": {"message": "Rate limit reached", "type": "requests"}})
    make(server).embed_query("x")
    assert len(server.requests) == 2
    server.fail_next(3, 429, {"error": {"message": "Rate limit reached"}})
    with pytest.raises(EmbeddingError) as info:
        make(server).embed_query("x")
    assert info.value.quota is True and info.value.retryable is True


def test_unauthorised_message_hides_key(server, fast_retry):
    # OpenAI's own 401 quotes the key back; none of it may reach the message.
    server.fail_next(1, 401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
    with pytest.raises(EmbeddingError) as info:
        make(server, apiKey=KEY).embed_query("x")
    msg = str(info.value)
    assert KEY not in msg and "SECRET" not in msg
    assert "authentication failed" in msg and "REVERIE_EMBEDDING_API_KEY" in msg
    assert not info.value.retryable and len(server.requests) == 1


def test_other_client_error_shows_server_message_without_key(server, fast_retry):
    server.fail_next(1, 400, {"error": {"message": f"model 'nope' not found (key {KEY})"}})
    with pytest.raises(EmbeddingError) as info:
        make(server, apiKey=KEY).embed_query("x")
    msg = str(info.value)
    assert "model 'nope' not found" in msg and "400" in msg and KEY not in msg
    assert not info.value.retryable and not info.value.quota and len(server.requests) == 1


def test_ollama_style_string_error(server):
    server.fail_next(1, 404, {"error": "model \"llama\" not found, try pulling it first"})
    with pytest.raises(EmbeddingError, match="try pulling it first"):
        make(server).embed_query("x")


def test_timeout_is_retryable_and_quick(server, fast_retry):
    server.hang.set()
    emb = make(server, timeoutSeconds=0.3)
    with pytest.raises(EmbeddingError) as info:  # (the server never answers: only the timeout ends a call)
        emb.embed_query("x")
    assert info.value.retryable and "timed out" in str(info.value)
    assert len(server.requests) == retry.ATTEMPTS  # retried, each ended by the timeout


def test_connection_refused_is_retryable(fast_retry):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    emb = OpenAICompatible(SearchSettings(remote={"baseUrl": f"http://127.0.0.1:{port}/v1", "apiKey": KEY}))
    with pytest.raises(EmbeddingError) as info:
        emb.embed_query("x")
    assert info.value.retryable and "connection failed" in str(info.value) and KEY not in str(info.value)


def test_malformed_json_not_retried(server, fast_retry):
    server.raw_response = "{not json"
    with pytest.raises(EmbeddingError, match="malformed") as info:
        make(server).embed_query("x")
    assert not info.value.retryable and len(server.requests) == 1


def test_wrong_vector_count_not_retried(server, fast_retry):
    server.drop_last = True
    with pytest.raises(EmbeddingError, match="expected 3 vectors") as info:
        make(server).embed_documents(["a", "b", "c"])
    assert not info.value.retryable and len(server.requests) == 1


def test_dims_learned_from_first_response(server):
    server.dims = 12
    emb = make(server)
    assert emb.dims == 0
    emb.embed_query("x")
    assert emb.dims == 12 and emb.describe()["dims"] == 12


def test_provider_key_depends_on_base_url():
    a = OpenAICompatible(SearchSettings(remote={"baseUrl": "http://localhost:11434/v1"}))
    b = OpenAICompatible(SearchSettings(remote={"baseUrl": "http://localhost:11434/v1/"}))
    c = OpenAICompatible(SearchSettings(remote={"baseUrl": "https://api.openai.com/v1"}))
    d = OpenAICompatible(SearchSettings(remote={"baseUrl": "http://localhost:11434/v1", "apiKey": "other"}))
    assert a.provider_key == b.provider_key == d.provider_key  # the key is not part of identity
    assert a.provider_key != c.provider_key


def test_registry_builds_it(server):
    settings = SearchSettings(provider="openai", model="test-embed", remote={"baseUrl": server.url})
    emb = reverie.embeddings.create("openai", settings)
    assert isinstance(emb, OpenAICompatible) and emb.model == "test-embed"
    emb.embed_query("via registry")
    assert server.requests[-1]["json"]["model"] == "test-embed"


def test_openai_api_key_env_fallback():
    settings = load_settings(None, env={"REVERIE_EMBEDDING_PROVIDER": "openai", "OPENAI_API_KEY": "k"})
    assert settings.search.provider == "openai"
    assert settings.search.remote.api_key == "k"
    emb = reverie.embeddings.create("openai", settings.search)
    assert emb._headers["Authorization"] == "Bearer k"
