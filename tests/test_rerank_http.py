"""The ``/rerank`` adapters (Cohere, Jina, Voyage, any server speaking the shape) against a real local
HTTP server that speaks each API's request and response shapes, errors included."""

from __future__ import annotations

import json
import threading

import pytest

from http_helpers import JsonHandler, fast_retry, serving  # noqa: F401 (fast_retry: a fixture)

import reverie.rerank
from reverie import retry
from reverie.config import RerankSettings, load_settings
from reverie.errors import ConfigError
from reverie.rerank import RerankError

KEY = "rr-KEY-0123456789-secret"
PATHS = {"cohere": "/v2/rerank", "jina": "/v1/rerank", "voyage": "/v1/rerank", "http": "/rerank"}
BASES = {"cohere": "", "jina": "/v1", "voyage": "/v1", "http": ""}
MODELS = {"cohere": "rerank-v3.5", "jina": "jina-reranker-v2-base-multilingual", "voyage": "rerank-2.5", "http": None}
ENV = {"cohere": "COHERE_API_KEY", "jina": "JINA_API_KEY", "voyage": "VOYAGE_API_KEY"}


def relevance(query: str, doc: str) -> float:
    """The server's judgement: the share of the query's words in the document."""
    words = query.lower().split()
    return round(sum(w in doc.lower() for w in words) / len(words), 4)


class Server:
    def __init__(self, provider: str):
        self.provider = provider
        self.requests: list[dict] = []
        self.failures: list[tuple[int, str, dict]] = []
        self.lock = threading.Lock()
        self.root = ""
        self.hang = threading.Event()  # set: answer nothing until released
        self.release = threading.Event()
        self.logits = False

    def fail_next(self, n: int, status: int, body, headers: dict | None = None) -> None:
        text = json.dumps(body) if not isinstance(body, str) else body
        self.failures.extend([(status, text, headers or {})] * n)

    @property
    def base_url(self) -> str:
        return self.root + BASES[self.provider]


def answer(state: Server, body: dict) -> dict:
    scored = [(i, relevance(body["query"], d)) for i, d in enumerate(body["documents"])]
    if state.logits:
        scored = [(i, 8.0 * s - 4.0) for i, s in scored]
    scored.sort(key=lambda p: -p[1])  # the APIs answer best first: the adapter must go by index
    top = body.get("top_k" if state.provider == "voyage" else "top_n", len(scored))
    items = [{"index": i, "relevance_score": s} for i, s in scored[:top]]
    if state.provider == "voyage":
        return {"object": "list", "data": items, "model": body["model"], "usage": {"total_tokens": 9}}
    if state.provider == "jina":
        return {"model": body["model"], "usage": {"total_tokens": 9},
                "results": [{**it, "document": {"text": body["documents"][it["index"]]}} for it in items]}
    return {"id": "r-1", "results": items, "meta": {"billed_units": {"search_units": 1}}}


def handler(state: Server):
    class Handler(JsonHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with state.lock:
                state.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                       "json": body})
                failure = state.failures.pop(0) if state.failures else None
            if state.hang.is_set():
                state.release.wait(30)
                return
            if self.path != PATHS[state.provider]:
                return self._send(404, json.dumps({"message": f"no route {self.path}"}))
            if failure:
                return self._send_raw(*failure)
            self._send(200, json.dumps(answer(state, body)))

    return Handler


@pytest.fixture(params=list(PATHS))
def server(request):
    state = Server(request.param)
    with serving(handler(state), release=state.release) as root:
        state.root = root
        yield state


def make(server: Server, api_key: str | None = KEY, **settings):
    cfg = RerankSettings(provider=server.provider, baseUrl=server.base_url, apiKey=api_key, **settings)
    return reverie.rerank.create(server.provider, cfg)


DOCS = ["the hotel near the lake", "quantum cooling of atoms", "a lake", "hotel lake booking confirmed"]


# -- request and response shapes -------------------------------------------------------------------
def test_scores_come_back_by_index_whatever_order_the_server_answers(server):
    rr = make(server)
    scores = rr.rerank("hotel lake", DOCS)
    assert scores == [1.0, 0.0, 0.5, 1.0]
    req = server.requests[-1]
    assert req["path"] == PATHS[server.provider]
    body = req["json"]
    assert body["query"] == "hotel lake" and body["documents"] == DOCS
    assert body["top_k" if server.provider == "voyage" else "top_n"] == len(DOCS)
    assert body.get("model") == MODELS[server.provider]  # the generic server gets none unless configured
    assert req["headers"]["authorization"] == f"Bearer {KEY}"


def test_a_configured_model_is_sent(server):
    make(server, model="my-reranker").rerank("lake", ["a lake"])
    assert server.requests[-1]["json"]["model"] == "my-reranker"


def test_raw_logits_are_mapped_to_probabilities(server):
    server.logits = True  # some local servers answer logits: +4 for a full match, -4 for none
    scores = make(server).rerank("hotel lake", DOCS)
    assert scores[0] == scores[3] > 0.98 and scores[1] < 0.02 and scores[2] == pytest.approx(0.5)


def test_a_full_endpoint_as_base_url_works_too(server):
    rr = make(server) if server.provider != "http" else reverie.rerank.create(
        "http", RerankSettings(provider="http", baseUrl=server.root + "/rerank", apiKey=KEY))
    assert rr.rerank("lake", ["a lake"]) == [1.0]


def test_http_provider_needs_a_base_url():
    with pytest.raises(ConfigError, match="needs memory.search.rerank.baseUrl"):
        reverie.rerank.create("http", RerankSettings(provider="http"))


# -- failures --------------------------------------------------------------------------------------
def test_rate_limit_and_server_error_are_retried(server, fast_retry):
    server.fail_next(1, 429, {"message": "too many requests"}, headers={"Retry-After": "0"})
    server.fail_next(1, 503, {"message": "overloaded"})
    assert make(server).rerank("lake", DOCS)[2] == 1.0
    assert len(server.requests) == 3
    server.requests.clear()
    server.fail_next(retry.ATTEMPTS, 503, {"message": "overloaded"})
    with pytest.raises(RerankError, match=r"server error \(HTTP 503\): overloaded") as info:
        make(server).rerank("lake", DOCS)
    assert info.value.retryable and len(server.requests) == retry.ATTEMPTS


def test_a_wait_longer_than_the_deadline_is_not_waited_for(server, fast_retry):
    import time

    server.fail_next(1, 429, {"message": "slow down"}, headers={"Retry-After": "20"})
    with pytest.raises(RerankError, match="rate limited"):
        make(server).rerank("lake", DOCS, deadline=time.monotonic() + 5)
    assert len(server.requests) == 1


MALFORMED = [
    ("not json at all", "not JSON"),
    ({"unexpected": True}, 'no "results" list'),
    ({"results": [{"index": 0}]}, 'needs "index" and "relevance_score"'),
    ({"results": [{"index": 9, "relevance_score": 0.5}]}, "index 9 is not one of the 4 documents"),
    ({"results": [{"index": 0, "relevance_score": 0.5}, {"index": 0, "relevance_score": 0.4}]}, "scored twice"),
    ({"results": [{"index": 0, "relevance_score": "high"}]}, "'high' for document 0 is not a finite number"),
    ({"results": []}, "no document was scored"),
]


@pytest.mark.parametrize("body,why", MALFORMED)
def test_a_malformed_answer_is_one_clear_error_and_not_retried(body, why, fast_retry):
    state = Server("cohere")
    with serving(handler(state)) as root:
        state.root = root
        state.fail_next(1, 200, body)
        with pytest.raises(RerankError) as info:
            make(state).rerank("lake", DOCS)
    msg = str(info.value)
    assert msg.startswith(f"rerank cohere ({root}): malformed response") and why in msg and "\n" not in msg
    assert not info.value.retryable and len(state.requests) == 1


def test_bad_key_says_which_variable_and_never_shows_the_key(server, fast_retry):
    server.fail_next(1, 401, {"message": f"invalid api token {KEY}"})
    with pytest.raises(RerankError, match="authentication failed") as info:
        make(server).rerank("lake", DOCS)
    assert KEY not in str(info.value) and not info.value.retryable and len(server.requests) == 1
    if server.provider in ENV:
        assert ENV[server.provider] in str(info.value)


def test_an_echoed_key_is_scrubbed_from_other_errors(fast_retry):
    state = Server("jina")
    with serving(handler(state)) as root:
        state.root = root
        state.fail_next(1, 400, {"detail": f"bad request from key {KEY}"})
        with pytest.raises(RerankError, match="request rejected") as info:
            make(state).rerank("lake", DOCS)
    assert KEY not in str(info.value) and "***" in str(info.value)


# -- keys from the environment ---------------------------------------------------------------------
@pytest.mark.parametrize("provider", list(ENV))
def test_env_key_goes_to_the_providers_own_host_only(provider):
    env = {"REVERIE_RERANK_PROVIDER": provider, ENV[provider]: "env-key"}
    own = reverie.rerank.create(provider, load_settings(None, env=env).search.rerank)
    assert own._api_key == "env-key" and own.base_url.startswith("https://api.")
    state = Server(provider)
    with serving(handler(state)) as root:
        state.root = root
        elsewhere = load_settings(None, env={**env, "REVERIE_RERANK_BASE_URL": state.base_url}).search.rerank
        rr = reverie.rerank.create(provider, elsewhere)
        with pytest.raises(RerankError, match=f"no API key; set {ENV[provider]}"):
            rr.rerank("lake", DOCS)
    assert state.requests == []  # the key never left for a host that is not the provider's


def test_generic_server_never_gets_a_key_from_the_environment():
    env = {"COHERE_API_KEY": "c", "JINA_API_KEY": "j", "VOYAGE_API_KEY": "v", "OPENAI_API_KEY": "o"}
    state = Server("http")
    with serving(handler(state)) as root:
        state.root = root
        cfg = load_settings(None, env={**env, "REVERIE_RERANK_PROVIDER": "http",
                                       "REVERIE_RERANK_BASE_URL": root}).search.rerank
        assert reverie.rerank.create("http", cfg).rerank("lake", ["a lake"]) == [1.0]
    assert "authorization" not in state.requests[0]["headers"]


def test_the_rerank_key_is_never_shown():
    env = {"REVERIE_RERANK_PROVIDER": "cohere", "REVERIE_RERANK_API_KEY": KEY}
    settings = load_settings(None, env=env)
    assert settings.search.rerank.api_key == KEY
    assert KEY not in json.dumps(settings.redacted())
