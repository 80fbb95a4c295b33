"""An explicitly configured remote provider that fails at query time fails closed (reference §7.8):
``unavailable: true`` with the reason and what to do, never keyword results passed off as semantic.

A real local HTTP server speaks the OpenAI embeddings protocol. It answers while the index is
built (so the stored identity matches and the vector leg runs), then is switched to failing.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from http_helpers import JsonHandler

import reverie.retry as retry
from reverie import Memory

from engines import engine_env

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL

KEY = "sk-test-SECRET-unavailable-42"
QUOTA_WARNING = "Memory search is unavailable because the embedding provider quota is exhausted."
QUOTA_ACTION = "Top up or switch embedding provider, then retry memory_search."
ERROR_WARNING = "Memory search is unavailable due to an embedding/provider error."
ERROR_ACTION = "Check embedding provider configuration and retry memory_search."


class Server:
    def __init__(self):
        self.failure: tuple[int, str] | None = None  # (status, body) for every request while set
        self.requests = 0
        self.url = ""
        self.httpd: ThreadingHTTPServer | None = None

    def fail(self, status: int, body: dict | str = "") -> None:
        self.failure = (status, json.dumps(body) if isinstance(body, dict) else body)

    def stop(self) -> None:
        """Close the listening socket: the same URL now refuses connections."""
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None


def _vector(text: str) -> list[float]:
    # words hashed into 16 buckets: texts sharing words get similar vectors
    out = [0.0] * 16
    for word in text.lower().split():
        out[hashlib.sha256(word.encode()).digest()[0] % 16] += 1.0
    out[15] += 0.01
    return out


def _handler(state: Server):
    class Handler(JsonHandler):

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            state.requests += 1
            if state.failure is not None:
                return self._send(*state.failure)
            data = [{"object": "embedding", "index": i, "embedding": _vector(t)} for i, t in enumerate(body["input"])]
            self._send(200, json.dumps({"object": "list", "data": data, "model": body["model"]}))

    return Handler


@pytest.fixture
def server():
    state = Server()
    state.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    threading.Thread(target=state.httpd.serve_forever, args=(0.05,), daemon=True).start()
    state.url = f"http://127.0.0.1:{state.httpd.server_address[1]}/v1"
    yield state
    state.stop()


@pytest.fixture
def fast_retry(monkeypatch):
    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)


@pytest.fixture
def indexed(reverie_home: Path, server: Server):
    """A home configured for the local server, indexed while the server answers."""
    reverie_home.mkdir(parents=True, exist_ok=True)
    (reverie_home / "reverie.toml").write_text(
        '[memory.search]\nprovider = "openai"\nmodel = "test-embed"\n\n'
        f'[memory.search.remote]\nbaseUrl = "{server.url}"\napiKey = "{KEY}"\ntimeoutSeconds = 3\n',
        encoding="utf-8")
    mem = Memory()
    mem.init()
    (mem.workspace / "memory" / "2026-11-20.md").write_text(
        "- Booked the hotel near the lake for two nights.\n", encoding="utf-8")
    report = mem.sync()
    assert report.embedding_error is None
    ok = mem.search("hotel lake", record_signals=False)
    assert ok["mode"] == "hybrid" and [r["path"] for r in ok["results"]] == ["memory/2026-11-20.md"]
    assert ok["results"][0]["vectorScore"] is not None
    mem.close()
    return reverie_home


def assert_unavailable(out: dict, quota: bool) -> None:
    assert out["unavailable"] is True and out["disabled"] is True
    assert out["results"] == []
    assert out["error"] and isinstance(out["error"], str)
    assert KEY not in json.dumps(out)
    assert out["warning"] == (QUOTA_WARNING if quota else ERROR_WARNING)
    assert out["action"] == (QUOTA_ACTION if quota else ERROR_ACTION)
    assert out["provider"] == "openai"


def run_cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_") and k != "OPENAI_API_KEY"}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", **engine_env())
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args],
                          env=env, capture_output=True, text=True, timeout=60)


# -- the API ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("status,body,quota,needle", [
    (500, {"error": {"message": "upstream exploded"}}, False, "HTTP 500"),
    (503, "service unavailable", False, "HTTP 503"),
    (429, {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                     "code": "insufficient_quota"}}, True, "429"),
    (429, {"error": {"message": "Rate limit reached, slow down"}}, True, "429"),
    (401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}, False, "authentication"),
])
def test_failing_server_makes_search_unavailable(indexed, server, fast_retry, status, body, quota, needle):
    server.fail(status, body)
    mem = Memory()
    before = server.requests
    out = mem.search("hotel lake", record_signals=False)
    assert_unavailable(out, quota)
    assert needle in out["error"]
    assert server.requests > before  # the provider really was asked
    mem.close()


def test_insufficient_quota_is_not_retried(indexed, server, fast_retry):
    server.fail(429, {"error": {"message": "quota", "type": "insufficient_quota"}})
    mem = Memory()
    before = server.requests
    assert_unavailable(mem.search("hotel", record_signals=False), quota=True)
    assert server.requests - before == 1  # waiting cannot refill a quota
    mem.close()


def test_unreachable_server_makes_search_unavailable(indexed, server, fast_retry):
    server.stop()
    mem = Memory()
    out = mem.search("hotel lake", record_signals=False)
    assert_unavailable(out, quota=False)
    assert "connection failed" in out["error"]
    mem.close()


def test_memory_search_tool_returns_the_unavailable_result(indexed, server, fast_retry):
    server.fail(500, {"error": {"message": "boom"}})
    mem = Memory()
    tool = {t.name: t for t in mem.tools()}["memory_search"]
    assert_unavailable(tool.call({"query": "hotel"}), quota=False)
    mem.close()


def test_search_recovers_when_the_server_comes_back(indexed, server, fast_retry):
    server.fail(500, "down")
    mem = Memory()
    assert mem.search("hotel", record_signals=False)["unavailable"] is True
    server.failure = None
    out = mem.search("hotel", record_signals=False)
    assert "unavailable" not in out and out["mode"] == "hybrid"
    assert [r["path"] for r in out["results"]] == ["memory/2026-11-20.md"]
    mem.close()


def test_empty_query_does_not_call_the_failing_provider(indexed, server):
    server.fail(500, "down")
    mem = Memory()
    before = server.requests
    out = mem.search("   ")
    assert out["results"] == [] and "unavailable" not in out
    assert server.requests == before
    mem.close()


# -- the CLI ------------------------------------------------------------------------------------------
def test_cli_search_json_reports_unavailable_and_exits_1(indexed, server):
    server.fail(429, {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}})
    proc = run_cli(indexed, "search", "hotel lake", "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert_unavailable(data, quota=True)
    assert "Traceback" not in proc.stderr


def test_cli_search_human_output_says_unavailable_and_exits_1(indexed, server):
    server.stop()
    proc = run_cli(indexed, "search", "hotel lake")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "memory search unavailable" in proc.stderr and ERROR_ACTION in proc.stderr
    assert KEY not in proc.stderr and "Traceback" not in proc.stderr
