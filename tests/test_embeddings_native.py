"""The native embedding providers (Gemini, Voyage, Mistral, Cohere, Ollama) against a real local
HTTP server that speaks each API's request and response shapes, errors included."""

from __future__ import annotations

import hashlib
import json
import threading

import numpy as np
import pytest

from http_helpers import JsonHandler, serving

import reverie.embeddings
from reverie import retry
from reverie import Memory
from reverie.config import SearchSettings, load_settings
from reverie.errors import EmbeddingError

KEY = "test-KEY-0123456789-secret"
DIMS = 6


def vector(text: str) -> list[float]:
    raw = hashlib.sha256(text.encode()).digest()
    return [b / 255.0 + 0.05 for b in raw[:DIMS]]


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


# -- one server, five dialects ----------------------------------------------------------------------
def texts_of(provider: str, body: dict) -> tuple[list[str], str | None]:
    """(the texts, the input type asked for) as each API carries them."""
    if provider == "gemini":
        texts = [r["content"]["parts"][0]["text"] for r in body["requests"]]
        return texts, body["requests"][0].get("taskType")
    if provider == "cohere":
        return body["texts"], body.get("input_type")
    if provider == "voyage":
        return body["input"], body.get("input_type")
    return body["input"], None


def answer(provider: str, texts: list[str]) -> dict:
    if provider == "gemini":
        return {"embeddings": [{"values": vector(t)} for t in texts]}
    if provider == "cohere":
        return {"id": "x", "embeddings": {"float": [vector(t) for t in texts]}, "texts": texts,
                "meta": {"api_version": {"version": "2"}}}
    if provider == "ollama":
        return {"model": "m", "embeddings": [vector(t) for t in texts], "total_duration": 1}
    data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)]
    return {"object": "list", "data": list(reversed(data)), "model": "m"}  # out of order on purpose


PATHS = {"gemini": "/v1beta/models/{model}:batchEmbedContents", "voyage": "/v1/embeddings",
         "mistral": "/v1/embeddings", "cohere": "/v2/embed", "ollama": "/api/embed"}
BASES = {"gemini": "/v1beta", "voyage": "/v1", "mistral": "/v1", "cohere": "", "ollama": ""}
MODELS = {"gemini": "gemini-embedding-001", "voyage": "voyage-3.5", "mistral": "mistral-embed",
          "cohere": "embed-v4.0", "ollama": "nomic-embed-text"}
PROVIDERS = list(PATHS)


class Server:
    def __init__(self, provider: str):
        self.provider = provider
        self.requests: list[dict] = []
        self.failures: list[tuple[int, str]] = []
        self.lock = threading.Lock()
        self.root = ""

    def fail_next(self, n: int, status: int, body, headers: dict | None = None) -> None:
        text = json.dumps(body) if not isinstance(body, str) else body
        self.failures.extend([(status, text, headers or {})] * n)

    @property
    def base_url(self) -> str:
        return self.root + BASES[self.provider]


def handler(state: Server):
    class Handler(JsonHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with state.lock:
                state.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                       "json": body})
                failure = state.failures.pop(0) if state.failures else None
            want = PATHS[state.provider].format(model=MODELS[state.provider])
            if self.path != want:
                return self._send(404, json.dumps({"error": f"no route {self.path}"}))
            if failure:
                status, text, headers = failure
                data = text.encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                return self.wfile.write(data)
            texts, _ = texts_of(state.provider, body)
            self._send(200, json.dumps(answer(state.provider, texts)))

    return Handler


@pytest.fixture(params=PROVIDERS)
def server(request):
    state = Server(request.param)
    with serving(handler(state)) as root:
        state.root = root
        yield state


@pytest.fixture
def fast_retry(monkeypatch):
    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)


def make(server: Server, api_key: str | None = KEY, **remote):
    settings = SearchSettings(provider=server.provider, remote={"baseUrl": server.base_url, "apiKey": api_key,
                                                                 "timeoutSeconds": 5, **remote})
    return reverie.embeddings.create(server.provider, settings)


# -- request and response shapes -------------------------------------------------------------------
def test_documents_and_queries_round_trip_with_input_types(server):
    emb = make(server)
    assert emb.provider == server.provider and emb.remote and emb.model == MODELS[server.provider]
    texts = ["alpha", "记忆 memory", "gamma"]
    docs = emb.embed_documents(texts)
    assert docs.shape == (3, DIMS)
    prefix = "search_document: " if server.provider == "ollama" else ""
    for row, text in zip(docs, texts):
        np.testing.assert_allclose(row, unit(vector(prefix + text)), rtol=1e-5)
    q = emb.embed_query("alpha")
    doc_req, query_req = server.requests
    doc_texts, doc_type = texts_of(server.provider, doc_req["json"])
    query_texts, query_type = texts_of(server.provider, query_req["json"])
    expected = {"gemini": ("RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY"), "voyage": ("document", "query"),
                "cohere": ("search_document", "search_query"), "mistral": (None, None), "ollama": (None, None)}
    assert (doc_type, query_type) == expected[server.provider]
    if server.provider == "ollama":  # nomic-embed-text was trained with prompt prefixes
        assert doc_texts[0] == "search_document: alpha" and query_texts == ["search_query: alpha"]
        np.testing.assert_allclose(q, unit(vector("search_query: alpha")), rtol=1e-5)
    else:
        assert doc_texts == texts and query_texts == ["alpha"]
        np.testing.assert_allclose(q, docs[0], rtol=1e-5)
    assert emb.dims == DIMS


def test_each_provider_sends_its_own_body(server):
    make(server).embed_documents(["x"])
    body = server.requests[0]["json"]
    if server.provider == "gemini":
        req = body["requests"][0]
        assert req["model"] == "models/gemini-embedding-001" and req["outputDimensionality"] == 768
    elif server.provider == "cohere":
        assert body["model"] == "embed-v4.0" and body["embedding_types"] == ["float"] and body["truncate"] == "END"
    elif server.provider == "ollama":
        assert body["model"] == "nomic-embed-text" and body["truncate"] is True
    else:
        assert body["model"] == MODELS[server.provider] and body["input"] == ["x"]


def test_key_goes_in_the_providers_own_header(server):
    make(server).embed_query("hi")
    headers = server.requests[-1]["headers"]
    if server.provider == "gemini":
        assert headers["x-goog-api-key"] == KEY and "authorization" not in headers
        assert KEY not in server.requests[-1]["path"]
    else:
        assert headers["authorization"] == f"Bearer {KEY}"


LIMITS = {"gemini": 100, "voyage": 128, "mistral": 128, "cohere": 96, "ollama": 64}


def test_batches_respect_each_providers_limit(server):
    texts = [f"n{i}" for i in range(300)]
    out = make(server).embed_documents(texts)
    sizes = [len(texts_of(server.provider, r["json"])[0]) for r in server.requests]
    assert max(sizes) == LIMITS[server.provider] and sum(sizes) == 300
    np.testing.assert_allclose(out[299], unit(vector(("search_document: " if server.provider == "ollama" else "")
                                                     + "n299")), rtol=1e-5)


def test_mistral_batches_by_tokens_too():
    state = Server("mistral")
    with serving(handler(state)) as root:
        state.root = root
        long = ["word " * 1000] * 12  # about 1,250 estimated tokens each
        make(state).embed_documents(long)
    sizes = [len(r["json"]["input"]) for r in state.requests]
    assert len(sizes) >= 3 and max(sizes) <= 5


# -- failures --------------------------------------------------------------------------------------
RATE_LIMITED = {
    "gemini": {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                         "status": "RESOURCE_EXHAUSTED"}},
    "voyage": {"detail": "You have exceeded the rate limit of 3 RPM. Please slow down."},
    "mistral": {"message": "Requests rate limit exceeded"},
    "cohere": {"message": "too many requests"},
    "ollama": {"error": "server busy, rate limit reached"},
}
EXHAUSTED = {
    "gemini": {"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and "
                         "billing details.", "status": "RESOURCE_EXHAUSTED"}},
    "voyage": {"detail": "Payment required: add a payment method."},
    "mistral": {"message": "You exceeded your monthly quota. Check your billing settings."},
    "cohere": {"message": "You are using a Trial key, which is limited to 1000 API calls / month."},
    "ollama": {"error": "quota exceeded for this month"},
}
BAD_KEY = {
    "gemini": (400, {"error": {"code": 400, "message": f"API key not valid. Please pass a valid API key. ({KEY})",
                               "status": "INVALID_ARGUMENT", "details": [{"reason": "API_KEY_INVALID"}]}}),
    "voyage": (401, {"detail": f"Provided API key is invalid: {KEY}"}),
    "mistral": (401, {"message": "Unauthorized", "request_id": "r1"}),
    "cohere": (401, {"message": f"invalid api token {KEY}"}),
    "ollama": (401, {"error": "unauthorized"}),
}


def test_rate_limit_is_quota_and_retried(server, fast_retry):
    server.fail_next(1, 429, RATE_LIMITED[server.provider])
    make(server).embed_query("x")
    assert len(server.requests) == 2
    server.fail_next(retry.ATTEMPTS, 429, RATE_LIMITED[server.provider])
    with pytest.raises(EmbeddingError) as info:
        make(server).embed_query("x")
    assert info.value.quota and info.value.retryable


def test_exhausted_quota_is_quota_and_not_retried(server, fast_retry):
    status = 402 if server.provider == "voyage" else 429
    server.fail_next(3, status, EXHAUSTED[server.provider])
    with pytest.raises(EmbeddingError) as info:
        make(server).embed_query("x")
    assert info.value.quota and not info.value.retryable and len(server.requests) == 1


def test_bad_key_message_names_the_fix_and_hides_the_key(server, fast_retry):
    status, body = BAD_KEY[server.provider]
    server.fail_next(1, status, body)
    with pytest.raises(EmbeddingError) as info:
        make(server).embed_query("x")
    msg = str(info.value)
    assert "authentication failed" in msg and KEY not in msg and "secret" not in msg
    assert not info.value.retryable and len(server.requests) == 1
    if server.provider != "ollama":
        assert f"{server.provider.upper()}_API_KEY" in msg


def test_server_error_retried_and_malformed_answer_not(server, fast_retry):
    server.fail_next(2, 503, {"error": "overloaded"})
    make(server).embed_query("x")
    assert len(server.requests) == 3
    server.requests.clear()
    server.fail_next(1, 200, {"unexpected": True})
    with pytest.raises(EmbeddingError, match="malformed|expected") as info:
        make(server).embed_query("x")
    assert not info.value.retryable and len(server.requests) == 1


def test_missing_key_fails_before_any_request(server):
    if server.provider == "ollama":
        make(server, api_key=None).embed_query("no key needed")
        assert "authorization" not in server.requests[-1]["headers"]
        return
    with pytest.raises(EmbeddingError, match=f"no API key; set {server.provider.upper()}_API_KEY"):
        make(server, api_key=None).embed_query("x")
    assert server.requests == []


# -- keys from the environment ---------------------------------------------------------------------
ENV = {"gemini": "GEMINI_API_KEY", "voyage": "VOYAGE_API_KEY", "mistral": "MISTRAL_API_KEY",
       "cohere": "COHERE_API_KEY"}


@pytest.mark.parametrize("provider", list(ENV))
def test_env_key_is_used_for_the_providers_own_host_only(provider):
    env = {"REVERIE_EMBEDDING_PROVIDER": provider, ENV[provider]: "env-key"}
    own = reverie.embeddings.create(provider, load_settings(None, env=env).search)
    assert own._api_key == "env-key"
    state = Server(provider)
    with serving(handler(state)) as root:
        state.root = root
        elsewhere = load_settings(None, env={**env, "REVERIE_EMBEDDING_BASE_URL": state.base_url}).search
        emb = reverie.embeddings.create(provider, elsewhere)
        with pytest.raises(EmbeddingError, match="no API key"):
            emb.embed_query("x")
    assert state.requests == []  # the key never left for a host that is not the provider's


def test_google_api_key_is_a_fallback_for_gemini():
    s = load_settings(None, env={"REVERIE_EMBEDDING_PROVIDER": "gemini", "GOOGLE_API_KEY": "g"}).search
    assert reverie.embeddings.create("gemini", s)._api_key == "g"
    s = load_settings(None, env={"REVERIE_EMBEDDING_PROVIDER": "gemini", "GOOGLE_API_KEY": "g",
                                 "GEMINI_API_KEY": "first"}).search
    assert reverie.embeddings.create("gemini", s)._api_key == "first"


def test_openai_key_never_goes_to_another_provider():
    env = {"REVERIE_EMBEDDING_PROVIDER": "cohere", "REVERIE_EMBEDDING_FALLBACK": "openai", "OPENAI_API_KEY": "sk-o"}
    s = load_settings(None, env=env).search
    assert s.remote.api_key == "sk-o"  # kept for the openai fallback
    assert reverie.embeddings.create("cohere", s)._api_key == ""
    assert "sk-o" not in json.dumps(load_settings(None, env=env).redacted())


def test_identity_includes_endpoint_and_vector_options():
    a = reverie.embeddings.create("gemini", SearchSettings(provider="gemini"))
    b = reverie.embeddings.create("gemini", SearchSettings(provider="gemini", remote={"baseUrl": "http://proxy/v1beta"}))
    assert a.provider_key != b.provider_key and a.key_options["outputDimensionality"] == 768
    plain = reverie.embeddings.create("ollama", SearchSettings(provider="ollama", model="all-minilm"))
    nomic = reverie.embeddings.create("ollama", SearchSettings(provider="ollama", model="nomic-embed-text:v1.5"))
    assert "prefixes" not in plain.key_options and nomic.key_options["prefixes"][0] == "search_query: "
    v1 = reverie.embeddings.create("ollama", SearchSettings(provider="ollama", remote={"baseUrl": "http://h:11434/v1"}))
    assert v1.base_url == "http://h:11434"


# -- through search: fail closed -------------------------------------------------------------------
def test_search_is_unavailable_on_quota_and_works_otherwise(server, reverie_home, fast_retry):
    reverie_home.mkdir(parents=True, exist_ok=True)
    (reverie_home / "reverie.toml").write_text(
        f'[memory.search]\nprovider = "{server.provider}"\n\n'
        f'[memory.search.remote]\nbaseUrl = "{server.base_url}"\napiKey = "{KEY}"\ntimeoutSeconds = 3\n',
        encoding="utf-8")
    mem = Memory()
    mem.init()
    (mem.workspace / "MEMORY.md").write_text("- The hotel near the lake is booked.\n", encoding="utf-8")
    assert mem.sync().embedding_error is None
    ok = mem.search("hotel lake", record_signals=False, min_score=0)
    assert ok["mode"] == "hybrid" and ok["results"][0]["path"] == "MEMORY.md"
    server.fail_next(5, 429, EXHAUSTED[server.provider])
    out = mem.search("hotel lake", record_signals=False)
    assert out["unavailable"] is True and out["results"] == [] and KEY not in json.dumps(out)
    assert out["warning"] == "Memory search is unavailable because the embedding provider quota is exhausted."
    mem.close()


def test_retry_after_is_honoured_and_marks_a_rate_limit_not_exhausted(server, fast_retry):
    """A 429 that names its wait passes with time, whatever words its message uses."""
    body = RATE_LIMITED[server.provider] if server.provider != "mistral" else \
        {"message": "Requests rate limit exceeded for this month's tier"}
    server.fail_next(1, 429, body, headers={"Retry-After": "0"})
    make(server).embed_query("x")
    assert len(server.requests) == 2
    server.fail_next(1, 429, EXHAUSTED[server.provider], headers={"Retry-After": "120"})
    with pytest.raises(EmbeddingError, match="retry after 120 s") as info:
        make(server).embed_query("x")
    assert info.value.quota and info.value.retry_after == 120 and len(server.requests) == 3
