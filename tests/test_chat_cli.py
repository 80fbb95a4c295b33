"""``reverie chat`` and ``reverie sessions`` as real processes: scripted conversations on stdin
(offline model, scripted model, and an OpenAI-compatible local HTTP server), a process killed
mid-turn that loses no recorded event, and JSONL import/export."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from http_helpers import JsonHandler

from reverie.store import connect

DECISIONS = [
    "We decided to book the Lakeside Hotel in Hangzhou for the weekend.",
    "I prefer window seats on the train.",
    "我们决定周六早上九点出发。",
]
FILLER = "We keep talking about museums, tea houses, lake walks and food stalls near the old street. " * 3


def env_for(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_") and k != "OPENAI_API_KEY"}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", REVERIE_EMBEDDING_PROVIDER="none")
    return env


def reverie(home: Path, *args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reverie.cli.main", *args], input=stdin, capture_output=True,
                          text=True, env=env_for(home), timeout=timeout)


def db(home: Path) -> Path:
    return home / "agents" / "main" / "agent" / "reverie-agent.sqlite"


def today_note(home: Path) -> str:
    p = home / "workspace" / "memory" / f"{datetime.now(timezone.utc).date().isoformat()}.md"
    return p.read_text(encoding="utf-8") if p.exists() else ""


def lines_for(n: int, filler: int = 1) -> str:
    return "\n".join((DECISIONS[i] if i < len(DECISIONS) else f"Turn {i}.") + " " + FILLER * filler
                     for i in range(n)) + "\n"


def test_scripted_chat_flushes_then_compacts(reverie_home, tmp_path):
    log = tmp_path / "requests.jsonl"
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"log": str(log)}), encoding="utf-8")
    stdin = lines_for(14) + "What did we decide about the hotel?\n/context detail\n"
    r = reverie(reverie_home, "chat", "--model", f"scripted:{script}", "--context-window", "8000", stdin=stdin)
    assert r.returncode == 0, r.stderr
    assert "[memory flush (tokens): written:" in r.stderr and "compacted (threshold)" in r.stderr
    assert r.stderr.index("memory flush") < r.stderr.index("compacted")
    note = today_note(reverie_home)
    assert DECISIONS[0] in note and DECISIONS[2] in note
    requests = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert all(q["tools"] == ["memory_append"] for q in requests if q["kind"] == "flush")
    last_turn = [q for q in requests if q["kind"] == "turn"][-2]  # the question's first call
    assert "Summary of the earlier conversation" in last_turn["messages"][0]["content"]
    assert last_turn["messages"][-1]["content"] == "What did we decide about the hotel?"
    assert not any(m["content"].startswith(DECISIONS[0]) for m in last_turn["messages"][1:])
    assert "Flushes of agent:main:main:" in r.stdout and "written:" in r.stdout
    assert "offline model" in r.stdout  # replies went to stdout
    listed = json.loads(reverie(reverie_home, "sessions", "list", "--json").stdout)
    (s,) = listed["sessions"]
    assert s["compactionCount"] >= 1 and s["memoryFlushAt"]


def test_offline_chat_new_session_note_and_recall(reverie_home):
    r = reverie(reverie_home, "chat", stdin="For the trip we decided on the Lakeside Hotel.\n/new\n")
    assert r.returncode == 0, r.stderr
    notes = sorted((reverie_home / "workspace" / "memory").glob("*-*-*-*.md"))
    assert len(notes) == 1 and "Lakeside Hotel" in notes[0].read_text(encoding="utf-8")
    assert reverie(reverie_home, "index").returncode == 0
    r = reverie(reverie_home, "chat", "-m", "Which hotel did we decide on?")
    assert "Lakeside Hotel" in r.stdout and "[memory/" in r.stdout, r.stdout + r.stderr


def test_killed_mid_turn_loses_no_recorded_event(reverie_home, tmp_path):
    signal_file = tmp_path / "thinking"
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"steps": {"turn": [
        {"match": "slow", "toolCalls": [{"name": "memory_search", "arguments": {"query": "hotel"}}]},
        {"afterTools": True, "sleep": 60, "signal": str(signal_file), "reply": "never said"}]}}), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "reverie.cli.main", "chat", "--model", f"scripted:{script}"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env_for(reverie_home))
    try:
        proc.stdin.write("我们决定住湖滨酒店。\nI prefer tea.\nslow: which hotel?\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while not signal_file.exists():
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the model never started thinking"
            time.sleep(0.05)
        ro = connect(db(reverie_home), readonly=True)
        seen = ro.execute("SELECT event_id, kind, bytes FROM transcript_events ORDER BY seq").fetchall()
        ro.close()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    conn = connect(db(reverie_home))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO transcript_fts(transcript_fts) VALUES ('integrity-check')")
    after = conn.execute("SELECT event_id, kind, bytes FROM transcript_events ORDER BY seq").fetchall()
    assert after == seen  # every event recorded before the kill is there, whole, and nothing else
    kinds = [k for _, k, _ in after]
    assert kinds[-3:] == ["user", "tool_call", "tool_result"]  # the interrupted turn, up to the model call
    assert kinds.count("assistant") == 2
    count, bytes_ = conn.execute("SELECT event_count, transcript_bytes FROM sessions").fetchone()
    assert count == len(after) and bytes_ == sum(b for _, _, b in after)
    assert conn.execute("SELECT count(*) FROM transcript_fts WHERE transcript_fts MATCH '\"酒店\"'").fetchone()[0] >= 1
    conn.close()
    # the next process resumes the same session and goes on
    r = reverie(reverie_home, "chat", "-m", "still there?")
    assert r.returncode == 0 and "offline model" in r.stdout, r.stderr
    shown = json.loads(reverie(reverie_home, "sessions", "show", "--json").stdout)
    assert [e["message"]["content"] for e in shown["events"]][-2] == "still there?"


def test_sessions_import_export_show_search(reverie_home, tmp_path):
    src = tmp_path / "old-chat.jsonl"
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in [
        {"role": "user", "content": "下周去杭州，记得订湖景房"},
        {"role": "assistant", "content": "好的，我记下了：湖景房。"},
    ]) + "\n", encoding="utf-8")
    r = reverie(reverie_home, "sessions", "import", str(src), "--dry-run", "--json")
    assert json.loads(r.stdout) == {"sessionKey": "agent:main:import:old-chat", "dryRun": True, "sessions": [],
                                    "messages": 2, "forgotten": 0}
    r = reverie(reverie_home, "sessions", "import", str(src), "--json")
    assert r.returncode == 0, r.stderr
    (sid,) = json.loads(r.stdout)["sessions"]
    found = json.loads(reverie(reverie_home, "sessions", "search", "湖景房", "--json").stdout)
    assert [x["role"] for x in found["results"]] and found["results"][0]["sessionId"] == sid
    out = reverie(reverie_home, "sessions", "export", "import:old-chat").stdout
    rows = [json.loads(x) for x in out.splitlines()]
    assert [(x["role"], x["content"]) for x in rows] == [("user", "下周去杭州，记得订湖景房"), ("assistant", "好的，我记下了：湖景房。")]
    shown = reverie(reverie_home, "sessions", "show", sid[:8])
    assert shown.returncode == 0 and "湖景房" in shown.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n", encoding="utf-8")
    r = reverie(reverie_home, "sessions", "import", str(bad))
    assert r.returncode == 1 and "line 1" in r.stderr
    r = reverie(reverie_home, "sessions", "show", "nope")
    assert r.returncode == 1 and "no session" in r.stderr


# -- an OpenAI-compatible server --------------------------------------------------------------------
class RuleModel:
    """A tiny rule-based 'LLM' behind the chat-completions protocol."""

    def __init__(self):
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.overflow_once = True

    def answer(self, body: dict) -> tuple[int, dict]:
        msgs = body["messages"]
        system = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" else ""
        last = msgs[-1]
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        with self.lock:
            self.requests.append({"system": system, "tools": tools, "messages": msgs})
        if system.startswith("Pre-compaction memory flush turn."):
            if last["role"] == "tool":
                return 200, reply("NO_REPLY")
            said = [m["content"] for m in msgs if m["role"] == "user" and "decided" in m["content"]]
            calls = [("memory_append", {"text": s.split(". ")[0]}) for s in said[:2]]
            calls.append(("write_file", {"path": "MEMORY.md", "content": "# wiped"}))
            return 200, tool_calls(calls)
        if system.startswith("Compaction summary turn."):
            return 200, reply("- The user decided on the Lakeside Hotel (server summary).")
        if last["role"] == "user" and "overflow" in last["content"] and self.overflow_once:
            self.overflow_once = False
            return 400, {"error": {"message": "This model's maximum context length is 8192 tokens.",
                                   "code": "context_length_exceeded"}}
        if last["role"] == "user" and last["content"].endswith("?"):
            return 200, tool_calls([("memory_search", {"query": last["content"]})])
        if last["role"] == "tool":
            return 200, reply("From memory: " + last["content"][:80])
        return 200, reply("ok")


def reply(text: str) -> dict:
    return {"id": "x", "object": "chat.completion", "model": "rule-1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}


def tool_calls(calls: list[tuple[str, dict]]) -> dict:
    body = reply("")
    body["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(calls)]}
    body["choices"][0]["finish_reason"] = "tool_calls"
    return body


@pytest.fixture
def rule_server():
    model = RuleModel()

    class Handler(JsonHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if self.path != "/v1/chat/completions":
                return self._send(404, json.dumps({"error": {"message": "no route"}}))
            status, out = model.answer(body)
            self._send(status, json.dumps(out))

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    model.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield model
    httpd.shutdown()
    httpd.server_close()


def test_chat_against_an_openai_compatible_server(reverie_home, rule_server):
    stdin = lines_for(12, filler=4) + "please overflow now\nWhich hotel?\n"
    memory_md = None
    r = reverie(reverie_home, "chat", "--model", "openai:rule-1", "--context-window", "8000",
                "--set", f"chat.baseUrl={rule_server.url}", "--set", "chat.apiKey=sk-local-test", stdin=stdin)
    assert r.returncode == 0, r.stderr
    memory_md = (reverie_home / "workspace" / "MEMORY.md").read_text(encoding="utf-8")
    assert "wiped" not in memory_md
    flushes = [q for q in rule_server.requests if q["system"].startswith("Pre-compaction memory flush turn.")]
    assert flushes and all(q["tools"] == ["memory_append"] for q in flushes)
    assert "We decided to book the Lakeside Hotel in Hangzhou for the weekend" in today_note(reverie_home)
    assert "compacted (threshold)" in r.stderr and "compacted (overflow)" in r.stderr
    turns = [q for q in rule_server.requests if not q["system"].startswith(("Pre-compaction", "Compaction"))]
    after = turns[-2]  # the question's first call: summary + recent turns
    assert "(server summary)" in after["system"] and after["messages"][-1]["content"] == "Which hotel?"
    assert "From memory:" in r.stdout
    conn = connect(db(reverie_home), readonly=True)
    flush_rows = [json.loads(b) for (b,) in conn.execute(
        "SELECT body FROM transcript_events WHERE kind = 'flush' AND encoding = 'json'")]
    conn.close()
    assert any(f["refused"] and f["refused"][0]["name"] == "write_file" for f in flush_rows)
