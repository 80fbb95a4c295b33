"""`reverie mcp` over real stdio, spoken to in raw JSON-RPC bytes (issue 10 points 4 and 10, issue 9
§3): every request gets an answer (a lone surrogate used to get none at all), tool errors are plain
words, the server reports reverie's version, and an MCP client can list the owner's standing
intents but never cancel them."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

import reverie


class Wire:
    """A `reverie mcp` process and the bytes on its stdin and stdout."""

    def __init__(self, home: Path):
        env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
        env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", REVERIE_EMBEDDING_PROVIDER="fake")
        self.proc = subprocess.Popen([sys.executable, "-c", "from reverie.cli.main import run; run()", "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.buffer = b""

    def send(self, raw: bytes) -> None:
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 20.0) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, left))
            if not ready:
                raise AssertionError("no answer from the server (a request left hanging)")
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError(f"the server exited: {self.proc.stderr.read().decode()[-2000:]}")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, raw: bytes) -> dict:
        self.send(raw)
        return self.receive()

    def call(self, rid: int, name: str, arguments_json: str) -> dict:
        return self.request(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}'
                            % (rid, name.encode(), arguments_json.encode()))

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def wire(reverie_home):
    w = Wire(reverie_home)
    init = w.request(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}).encode())
    w.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    w.init = init
    yield w
    w.close()


def text_of(response: dict) -> str:
    return response["result"]["content"][0]["text"]


def test_lone_surrogates_get_a_refusal_not_silence(wire, reverie_home):
    # the bytes are exactly what a client sends: a JSON escape of a lone surrogate
    got = wire.call(2, "memory_get", r'{"path": "\ud800.md"}')
    assert got["id"] == 2 and got["error"]["code"] == -32602
    assert "params.arguments.path contains a lone surrogate (\\ud800)" in got["error"]["message"]
    got = wire.call(3, "memory_append", r'{"text": "note \udcff end"}')
    assert got["id"] == 3 and got["error"]["code"] == -32602 and "nothing was done" in got["error"]["message"]
    assert not list((reverie_home / "workspace" / "memory").glob("*.md"))  # nothing was appended
    assert wire.request(b'{"jsonrpc":"2.0","id":4,"method":"ping"}') == {"jsonrpc": "2.0", "id": 4, "result": {}}


def test_unreadable_lines_are_answered_as_json_rpc_says(wire):
    assert wire.request(b"this is not json") == {"jsonrpc": "2.0", "id": None,
                                                 "error": {"code": -32700,
                                                           "message": "Parse error: the line is not valid JSON"}}
    bad = wire.request(b'{"jsonrpc":"2.0","id":5,"method":42}')
    assert bad["id"] == 5 and bad["error"]["code"] == -32600 and "https://" not in bad["error"]["message"]
    wire.send(b'{"jsonrpc":"2.0","method":"notifications/\\ud800"}')  # a notification: no answer, no harm
    assert wire.request(b'{"jsonrpc":"2.0","id":6,"method":"ping"}')["id"] == 6


def test_paths_that_crashed_are_clean_refusals(wire):
    unknown_user = wire.call(2, "memory_get", '{"path": "~nosuchuser/MEMORY.md"}')["result"]
    assert unknown_user["isError"] and "no such user for '~'" in unknown_user["content"][0]["text"]
    too_long = wire.call(3, "memory_get", json.dumps({"path": "memory/" + "a" * 300 + ".md"}))["result"]
    assert too_long["isError"] and "longer than 255 bytes" in too_long["content"][0]["text"]
    for rid, args in ((4, '{"path": 5}'), (5, '{"path": "MEMORY.md", "from": "abc"}'),
                      (6, '{"path": "MEMORY.md", "lines": 0}'), (7, '{"path": "MEMORY.md", "limit": 3}')):
        result = wire.call(rid, "memory_get", args)["result"]
        text = result["content"][0]["text"]
        assert result["isError"] and text.startswith("Error executing tool memory_get: memory_get: "), text
        assert "pydantic" not in text and "https://" not in text and "validation error" not in text


def test_the_server_reports_reverie_and_honest_intent_tools(wire):
    info = wire.init["result"]["serverInfo"]
    assert info == {"name": "reverie", "version": reverie.__version__}
    tools = {t["name"]: t for t in wire.request(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')["result"]["tools"]}
    assert "intent" not in tools  # create and cancel are the owner's acts: not offered here
    assert tools["intent_list"]["annotations"]["readOnlyHint"] is True
    assert tools["intent_list"]["annotations"]["destructiveHint"] is False
    assert tools["memory_append"]["annotations"]["destructiveHint"] is False
    cancel = wire.call(3, "intent", '{"action": "cancel", "id": "si_x"}')
    assert cancel.get("error") or cancel["result"]["isError"]
    listed = wire.call(4, "intent_list", "{}")
    assert json.loads(text_of(listed)) == {"intents": []}
