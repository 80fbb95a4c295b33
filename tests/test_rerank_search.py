"""Search with a reranker behind a real local HTTP server speaking the ``/rerank`` shape: it reorders
as the server says, and every failure (deadline, errors after retries, a malformed answer) leaves
the answer as it would be without a reranker (fail open), with the reason in ``debug.rerank``."""

from __future__ import annotations

import json
import logging
import threading

import pytest

from http_helpers import JsonHandler, fast_retry, serving  # noqa: F401 (fast_retry: a fixture)

from reverie import Memory, retry

KEY = "rr-search-KEY-42"
NOTES = {
    "memory/hotel.md": "- The hotel by the lake is booked for Friday; hotel confirmation 4411.\n",
    "memory/views.md": "- Hotel rooms with a lake view cost extra at the hotel.\n",
    "memory/cabin.md": "- Last spring we stayed in a cabin; the lake was cold.\n",
    "memory/tea.md": "- Wei likes jasmine tea in the morning.\n",
    "memory/bikes.md": "- The bikes need new tyres before the trip.\n",
}


class Server:
    """Judges a document relevant (0.95) when it holds ``prefer``, else not (0.02)."""

    def __init__(self):
        self.prefer = "cabin"
        self.requests: list[dict] = []
        self.answers: list[tuple[int, str, dict]] = []  # queued answers instead of a judgement
        self.hang = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()


def handler(state: Server):
    class Handler(JsonHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with state.lock:
                state.requests.append({"path": self.path, "json": body,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}})
                queued = state.answers.pop(0) if state.answers else None
            if state.hang.is_set():
                state.release.wait(30)
                return
            if queued:
                return self._send_raw(*queued)
            results = [{"index": i, "relevance_score": 0.95 if state.prefer in d.lower() else 0.02}
                       for i, d in enumerate(body["documents"])]
            self._send(200, json.dumps({"results": sorted(results, key=lambda r: -r["relevance_score"])}))

    return Handler


@pytest.fixture
def server():
    state = Server()
    with serving(handler(state), release=state.release) as root:
        state.root = root
        yield state


def queue(state: Server, n: int, status: int, body, headers: dict | None = None) -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    state.answers.extend([(status, text, headers or {})] * n)


@pytest.fixture
def baseline(reverie_home):
    """The workspace, and the answer to "hotel lake" without a reranker."""
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    for rel, text in NOTES.items():
        (mem.workspace / rel).write_text(text, encoding="utf-8")
    mem.sync()
    out = mem.search("hotel lake", min_score=0, record_signals=False)
    mem.close()
    return out


def reranked(server: Server, **rerank) -> Memory:
    sets = {"provider": '"http"', "baseUrl": json.dumps(server.root), "apiKey": json.dumps(KEY),
            "timeoutMs": "5000", **{k: str(v) for k, v in rerank.items()}}
    return Memory(overrides=['memory.search.provider="fake"',
                             *[f"memory.search.rerank.{k}={v}" for k, v in sets.items()]])


def order(out: dict) -> list[str]:
    return [r["path"] for r in out["results"]]


def same_as_without(out: dict, baseline: dict) -> None:
    assert order(out) == order(baseline)
    assert [r["score"] for r in out["results"]] == [r["score"] for r in baseline["results"]]


def search(mem: Memory, **kw) -> dict:
    return mem.search("hotel lake", min_score=0, record_signals=False, **kw)


def test_rerank_reorders_as_the_server_says(server, baseline):
    assert order(baseline)[0] != "memory/cabin.md"
    mem = reranked(server)
    out = search(mem, explain=True)
    assert order(out)[0] == "memory/cabin.md"
    assert set(order(out)) == set(order(baseline))  # reordered: nothing hidden, nothing admitted
    rr = out["debug"]["rerank"]
    assert rr["applied"] is True and rr["provider"] == "http" and rr["pool"] == len(server.requests[0]["json"]
                                                                                      ["documents"])
    req = server.requests[0]
    assert req["path"] == "/rerank" and req["json"]["query"] == "hotel lake"
    assert req["headers"]["authorization"] == f"Bearer {KEY}"
    top = out["results"][0]["explain"]["rerank"]
    assert top["judged"] is True and top["score"] == 0.95 and top["after"] > top["before"]
    mem.close()


def test_weight_zero_changes_nothing_but_is_still_asked(server, baseline):
    mem = reranked(server, weight=0)
    out = search(mem)
    same_as_without(out, baseline)
    assert out["debug"]["rerank"]["applied"] is True and len(server.requests) == 1
    mem.close()


def test_pool_size_bounds_what_is_sent(server, baseline):
    mem = reranked(server, poolSize=2)
    out = search(mem)
    assert len(server.requests[0]["json"]["documents"]) == 2 and out["debug"]["rerank"]["pool"] == 2
    mem.close()


def test_deadline_passed_fails_open_with_a_note(server, baseline):
    server.hang.set()  # the server takes the request and never answers
    mem = reranked(server, timeoutMs=200)
    out = search(mem)
    same_as_without(out, baseline)
    rr = out["debug"]["rerank"]
    assert rr["applied"] is False and rr["timedOut"] is True
    assert "deadline of 200 ms" in rr["reason"] and rr["reason"].endswith("results as without rerank")
    mem.close()


def test_server_errors_are_retried_then_the_rerank_applies(server, baseline, fast_retry):
    queue(server, 2, 503, {"message": "overloaded"})
    mem = reranked(server)
    out = search(mem)
    assert out["debug"]["rerank"]["applied"] is True and order(out)[0] == "memory/cabin.md"
    assert len(server.requests) == 3
    mem.close()


def test_rate_limited_after_retries_fails_open(server, baseline, fast_retry):
    queue(server, retry.ATTEMPTS, 429, {"message": "too many requests"})
    mem = reranked(server)
    out = search(mem)
    same_as_without(out, baseline)
    rr = out["debug"]["rerank"]
    assert rr["applied"] is False and rr["timedOut"] is False and "rate limited (HTTP 429)" in rr["reason"]
    assert len(server.requests) == retry.ATTEMPTS
    mem.close()


def test_malformed_answers_fail_open_with_one_warning(server, baseline, caplog):
    caplog.set_level(logging.WARNING, logger="reverie.search")
    mem = reranked(server)
    queue(server, 3, 200, {"results": [{"index": 99, "relevance_score": 1.0}]})
    for _ in range(3):
        out = search(mem)
        same_as_without(out, baseline)
        assert "malformed response: index 99" in out["debug"]["rerank"]["reason"]
    warned = [r for r in caplog.records if r.name == "reverie.search"]
    assert len(warned) == 1 and "without rerank" in warned[0].getMessage() and "malformed" in warned[0].getMessage()
    assert search(mem)["debug"]["rerank"]["applied"] is True  # working again ...
    queue(server, 1, 200, "<html>oops</html>")
    assert "not JSON" in search(mem)["debug"]["rerank"]["reason"]
    assert len([r for r in caplog.records if r.name == "reverie.search"]) == 2  # ... so a new failure warns
    mem.close()


def test_a_key_from_the_environment_never_reaches_another_host(server, baseline, monkeypatch):
    monkeypatch.setenv("COHERE_API_KEY", "env-cohere-key")
    mem = Memory(overrides=['memory.search.provider="fake"', 'memory.search.rerank.provider="cohere"',
                            f'memory.search.rerank.baseUrl="{server.root}"'])
    out = search(mem)
    same_as_without(out, baseline)
    assert "no API key; set COHERE_API_KEY" in out["debug"]["rerank"]["reason"]
    assert server.requests == []
    mem.close()


def test_status_shows_the_reranker_and_deep_probes_it(server, baseline):
    mem = reranked(server, poolSize=30, timeoutMs=300)
    rr = mem.status()["rerank"]
    assert (rr["provider"], rr["endpoint"], rr["poolSize"], rr["timeoutMs"]) == ("http", server.root + "/rerank", 30,
                                                                                 300)
    assert "probe" not in rr and server.requests == []
    assert mem.status(deep=True)["rerank"]["probe"]["ok"] is True and len(server.requests) == 1
    server.hang.set()
    deep = mem.status(deep=True)
    assert deep["rerank"]["probe"]["ok"] is False
    assert any(w.startswith("rerank provider: no answer within the deadline") for w in deep["warnings"])
    mem.close()
