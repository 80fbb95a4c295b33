"""The ``scripted`` chat model: a deterministic stand-in for a real provider in tests and demos,
registered like one (``scripted:/path/to/script.json``).

A script is JSON::

    {"contextWindow": 8000,
     "log": "/tmp/requests.jsonl",          # optional: every request appended as one JSON line
     "steps": {"turn": [...], "flush": [...], "compaction": [...], "slug": [...], "recall": [...],
               "consolidation": [...], "diary": [...]}}

Each kind of call consumes its own queue in order; when a queue is empty, or its head has a
``match`` that the last user message does not contain, the call is answered by the offline model.
A step is ``{"reply": "text"}``, ``{"toolCalls": [{"name": .., "arguments": {..}}]}``,
``{"error": "overflow" | "error" | "timeout", "message": ".."}``, and may add ``"sleep": seconds``
(honouring the caller's timeout unless ``"ignoreTimeout": true``) and ``"signal": "/path"`` (a file created just before sleeping,
so a test knows the model is "thinking"). ``"waitFor": "/path"`` holds the answer until that file
exists (at most 60 s): a test looks at what happens meanwhile, then lets the model answer, with no
race against a clock.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path

from ..errors import ConfigError
from .base import ChatMessage, ChatModel, ChatModelError, ChatResponse, ContextOverflowError, ToolCall, Usage
from .offline import (ACTIVE_MEMORY_SYSTEM_PREFIX, COMPACTION_SYSTEM_PREFIX, FLUSH_SYSTEM_PREFIX, SLUG_SYSTEM_PREFIX,
                      OfflineModel)
from .offline_dreams import CONSOLIDATION_SYSTEM_PREFIX, DIARY_SYSTEM_PREFIX
from ..text.cjk import estimate_tokens

KINDS = ("turn", "flush", "compaction", "slug", "recall", "consolidation", "diary")


def kind_of(messages: list[ChatMessage]) -> str:
    system = messages[0].content if messages and messages[0].role == "system" else ""
    if system.startswith(FLUSH_SYSTEM_PREFIX):
        return "flush"
    if system.startswith(COMPACTION_SYSTEM_PREFIX):
        return "compaction"
    if system.startswith(SLUG_SYSTEM_PREFIX):
        return "slug"
    if system.startswith(ACTIVE_MEMORY_SYSTEM_PREFIX):
        return "recall"
    if system.startswith(CONSOLIDATION_SYSTEM_PREFIX):
        return "consolidation"
    if system.startswith(DIARY_SYSTEM_PREFIX):
        return "diary"
    return "turn"


class ScriptedModel(ChatModel):
    provider = "scripted"

    def __init__(self, name: str = "", settings=None, *, script: dict | None = None):
        if script is None:
            if not name:
                raise ConfigError("bad value for 'chat.model': scripted needs a script file: scripted:/path/script.json")
            try:
                script = json.loads(Path(name).expanduser().read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ConfigError(f"bad value for 'chat.model': cannot read script {name!r}: {exc}") from None
        self.model = f"scripted:{Path(name).name}" if name else "scripted"
        self.context_window = int(script.get("contextWindow") or 200_000)
        self.steps = {k: list(script.get("steps", {}).get(k, [])) for k in KINDS}
        self.log = script.get("log")
        self.requests: list[dict] = []  # what each call was given (in-process tests read this)
        self._fallback = OfflineModel("offline", None)
        self._lock = threading.Lock()

    def complete(self, messages: list[ChatMessage], tools: list[dict] | None = None, *,
                 timeout: float | None = None, max_tokens: int | None = None) -> ChatResponse:
        kind = kind_of(messages)
        record = {"kind": kind, "messages": [{"role": m.role, "content": m.content,
                                              "toolCalls": [c.name for c in m.tool_calls]} for m in messages],
                  "tools": [t["function"]["name"] for t in tools or []]}
        last_user = next((m.content for m in reversed(messages) if m.role == "user"), "")
        with self._lock:
            self.requests.append(record)
            if self.log:
                with open(self.log, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            queue = self.steps[kind]
            step = None
            # a step answers a user message, not the follow-up call after a tool round
            fresh = not messages or messages[-1].role != "tool" or kind != "turn"
            if queue and (fresh or queue[0].get("afterTools")):
                match = queue[0].get("match")
                if match is None or match in last_user:
                    step = queue.pop(0)
        if step is None:
            return self._fallback.complete(messages, tools, timeout=timeout, max_tokens=max_tokens)
        if step.get("signal"):
            Path(step["signal"]).touch()
        if step.get("waitFor"):
            gate, until = Path(step["waitFor"]), time.monotonic() + 60
            while not gate.exists() and time.monotonic() < until:
                time.sleep(0.01)
        if step.get("sleep"):
            pause = float(step["sleep"])
            if timeout is not None and pause > timeout and not step.get("ignoreTimeout"):
                time.sleep(timeout)
                raise ChatModelError(f"scripted model timed out after {timeout:g} s", retryable=True)
            time.sleep(pause)
        err = step.get("error")
        if err == "overflow":
            raise ContextOverflowError(step.get("message") or "context length exceeded", status=400)
        if err == "timeout":
            raise ChatModelError(step.get("message") or "request timed out", retryable=True)
        if err:
            raise ChatModelError(step.get("message") or "scripted failure", status=500)
        calls = [ToolCall(c.get("id") or "call_" + uuid.uuid4().hex[:12], c["name"], c.get("arguments") or {})
                 for c in step.get("toolCalls") or []]
        msg = ChatMessage("assistant", step.get("reply", ""), tool_calls=calls)
        usage = Usage(sum(estimate_tokens(m.content) + 4 for m in messages), estimate_tokens(msg.content))
        return ChatResponse(msg, usage, "tool_calls" if calls else "stop", self.model)
