"""OpenAI-compatible and Anthropic models consolidate through the same validator as the offline
model, over real local HTTP servers speaking their wire protocols: a good plan is applied, a bad
one makes the sweep append instead, a server that fails falls back too; the diary comes from the
model when it answers."""

from __future__ import annotations

import json

import pytest
from dreaming_helpers import durable_life, memory_text, night, open_mem
from http_helpers import JsonHandler, serving

from reverie.models.offline_dreams import CONSOLIDATION_SYSTEM_PREFIX

DIARY = ("I drifted past a jar of peanuts that glowed like a warning lamp, and I kept it near the door " * 3).strip()


def plan_for(request: dict, bad: bool) -> str:
    cands = request["candidates"]
    if bad:
        return "I merged everything nicely for you!"
    return json.dumps({"operations": [{"candidateKey": c["candidateKey"], "action": "added",
                                       "resultEntry": c["resultEntry"], "priorEntries": []} for c in cands]})


def make_handler(kind: str, state: dict):
    class Handler(JsonHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            state.setdefault("paths", []).append(self.path)
            if state.get("status", 200) != 200:
                return self._send(state["status"], json.dumps({"error": {"message": "down", "type": "server"}}))
            if kind == "openai":
                system = body["messages"][0]["content"]
                user = body["messages"][-1]["content"]
            else:
                system = body.get("system") or ""
                system = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
                last = body["messages"][-1]["content"]
                user = last if isinstance(last, str) else " ".join(b.get("text", "") for b in last)
            if system.startswith(CONSOLIDATION_SYSTEM_PREFIX):
                state["consolidations"] = state.get("consolidations", 0) + 1
                text = plan_for(json.loads(user), state.get("bad", False))
            else:
                text = DIARY
            if kind == "openai":
                out = {"id": "c1", "object": "chat.completion", "model": "served",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
            else:
                out = {"id": "m1", "type": "message", "role": "assistant", "model": "served",
                       "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                       "usage": {"input_tokens": 10, "output_tokens": 5}}
            self._send(200, json.dumps(out))

    return Handler


def settings_for(kind: str, base: str) -> list[str]:
    if kind == "openai":
        return ['chat.model="openai:test-model"', f'chat.baseUrl="{base}/v1"', 'chat.apiKey="sk-test"']
    return ['chat.model="anthropic:claude-test"', f'chat.baseUrl="{base}"', 'chat.apiKey="sk-ant-test"']


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_good_plan_from_a_provider_is_validated_and_applied(reverie_home, kind):
    state: dict = {}
    with serving(make_handler(kind, state)) as base:
        mem = open_mem(*settings_for(kind, base))
        durable_life(mem)
        out = mem.dream(now=night(4)).as_dict()
        mem.close()
    deep = out["phases"]["deep"]
    assert state["consolidations"] == 1 and deep["mode"] == "consolidated" and deep["counts"]["added"] == 1
    assert "I am allergic to peanuts. Source:" in memory_text(mem)
    assert out["diary"]["author"].startswith(kind) and DIARY in (mem.workspace / "DREAMS.md").read_text()


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_bad_plan_from_a_provider_falls_back_to_append(reverie_home, kind):
    state: dict = {"bad": True}
    with serving(make_handler(kind, state)) as base:
        mem = open_mem(*settings_for(kind, base))
        durable_life(mem)
        deep = mem.dream(now=night(4)).as_dict()["phases"]["deep"]
        mem.close()
    assert deep["mode"] == "append" and "rule 1" in deep["reason"]
    text = memory_text(mem)
    assert "## Promoted From Short-Term Memory (2026-06-06)" in text and "[score=" in text
    assert "merged everything" not in text


def test_a_provider_that_fails_falls_back_and_the_diary_is_the_offline_summary(reverie_home, monkeypatch):
    import reverie.retry as retry

    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)  # the 500s are retried: quickly here
    state: dict = {"status": 500}
    with serving(make_handler("openai", state)) as base:
        mem = open_mem(*settings_for("openai", base))
        durable_life(mem)
        out = mem.dream(now=night(4)).as_dict()
        mem.close()
    deep = out["phases"]["deep"]
    assert deep["mode"] == "append" and "consolidation model failed" in deep["reason"]
    assert out["diary"]["author"] == "offline"
    assert "I am allergic to peanuts." in memory_text(mem)
