"""A scripted model server for end-to-end tests of real agent hosts (Claude Code, the OpenAI Agents SDK,
LangGraph, Codex, OpenClaw ...).

It listens on 127.0.0.1 (a free port) and speaks three wire protocols:

- Anthropic Messages: ``POST /v1/messages`` (``stream: true`` as server-sent events, or one JSON body),
  plus ``POST /v1/messages/count_tokens``;
- OpenAI Chat Completions: ``POST /v1/chat/completions`` (streaming and not);
- OpenAI Responses: ``POST /v1/responses`` (streaming and not).

``GET /v1/models`` lists one model; ``HEAD``/``GET`` of ``/`` and ``/api/hello`` answer 200
(connectivity probes). Any other
route answers 404 with a JSON error, and is recorded like every other request.

What the model says comes from a *script*: a list of steps, one per main-loop request, in order. A
step is ``Text("...")``, ``ToolCall(name, arguments)``, a list of ``ToolCall`` (parallel calls), a
``Reply`` holding both, or a callable that sees the ``Request`` and returns one of these (for example
"quote the tool result if there is one"). When the script runs out, the server answers
``Text("(script exhausted)")``.

Hosts also make requests of their own (Claude Code asks a small model for a title, checks its quota,
counts tokens ...). ``is_main`` (a predicate on ``Request``) decides which requests take the next
step; the others get ``side`` (a step or callable; by default a short text). Every request, main or
side, is kept in ``server.requests`` (a thread-safe list) for the test to assert on.

    with ModelServer([ToolCall("memory_search", {"query": "lake"}),
                      lambda req: Text("found: " + req.tool_results()[-1])]) as server:
        run_host(base_url=server.url)          # ANTHROPIC_BASE_URL=server.url
        first = server.main_requests()[0]      # OPENAI_BASE_URL=server.url + "/v1"
        assert "memory_search" in first.tool_names()
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Union

# -- what the model says ---------------------------------------------------------------------------


@dataclass
class Text:
    text: str


@dataclass
class ToolCall:
    name: str
    arguments: dict = field(default_factory=dict)
    id: str | None = None  # made up when not given (toolu_... / call_...)
    # Responses only: the namespace of a tool offered inside a ``{"type": "namespace"}`` tool (Codex
    # offers each MCP server's tools that way, as ``mcp__<server>``); sent as the call's ``namespace``
    namespace: str | None = None


@dataclass
class Reply:
    """Text and/or tool calls in one answer (text first, as models do)."""
    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)


Step = Union[Text, ToolCall, Reply, list, Callable[["Request"], Any], str]


def as_reply(step: Any, request: "Request") -> Reply:
    """A step in any of its shapes (a callable is called with the request first) as a Reply."""
    while callable(step) and not isinstance(step, (Text, ToolCall, Reply)):
        step = step(request)
    if isinstance(step, Reply):
        return step
    if isinstance(step, str):
        return Reply(text=step)
    if isinstance(step, Text):
        return Reply(text=step.text)
    if isinstance(step, ToolCall):
        return Reply(calls=[step])
    if isinstance(step, (list, tuple)):
        texts = [s.text for s in step if isinstance(s, Text)]
        return Reply(text="".join(texts), calls=[s for s in step if isinstance(s, ToolCall)])
    raise TypeError(f"not a script step: {step!r}")


# -- what the host sent ----------------------------------------------------------------------------

ANTHROPIC, CHAT, RESPONSES = "anthropic", "chat", "responses"


def _text_of(content: Any) -> str:
    """The text of a message content or tool output in any of the three APIs' shapes."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        if "text" in content and isinstance(content["text"], str):
            return content["text"]
        for key in ("content", "output"):
            if key in content:
                return _text_of(content[key])
        return ""
    if isinstance(content, list):
        return "\n".join(t for t in (_text_of(part) for part in content) if t)
    return str(content)


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body (None when there is none, the raw text when it is not JSON)
    api: str | None  # ANTHROPIC, CHAT, RESPONSES, or None for any other route
    main: bool = False  # whether it took a script step
    at: float = field(default_factory=time.monotonic)

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def stream(self) -> bool:
        return bool(isinstance(self.body, dict) and self.body.get("stream"))

    def tool_names(self) -> list[str]:
        """The names of the tools offered to the model."""
        tools = (self.body or {}).get("tools") or [] if isinstance(self.body, dict) else []
        names = []
        for tool in tools:
            if self.api == CHAT and isinstance(tool.get("function"), dict):
                names.append(tool["function"].get("name"))
            else:
                names.append(tool.get("name") or (tool.get("function") or {}).get("name"))
        return [n for n in names if n]

    def namespaced_tools(self) -> dict[str, list[str]]:
        """Responses ``{"type": "namespace", "name", "tools": [...]}`` entries: namespace -> tool names."""
        tools = (self.body or {}).get("tools") or [] if isinstance(self.body, dict) else []
        return {t["name"]: [f.get("name") for f in t.get("tools") or [] if isinstance(f, dict)]
                for t in tools if isinstance(t, dict) and t.get("type") == "namespace" and t.get("name")}

    def tool(self, name: str) -> dict | None:
        """The full definition of one offered tool."""
        for tool in (self.body.get("tools") or [] if isinstance(self.body, dict) else []):
            if tool.get("name") == name or (tool.get("function") or {}).get("name") == name:
                return tool
        return None

    def messages(self) -> list:
        """The conversation: Anthropic and Chat ``messages``, Responses ``input`` (a string as one user item)."""
        if not isinstance(self.body, dict):
            return []
        if self.api == RESPONSES:
            items = self.body.get("input") or []
            return [{"role": "user", "content": items}] if isinstance(items, str) else items
        return self.body.get("messages") or []

    def tool_results(self) -> list[str]:
        """The text of every tool result in the conversation, oldest first."""
        out = []
        for message in self.messages():
            if not isinstance(message, dict):
                continue
            if self.api == CHAT and message.get("role") == "tool":
                out.append(_text_of(message.get("content")))
            elif self.api == RESPONSES and message.get("type") == "function_call_output":
                out.append(_text_of(message.get("output")))
            elif isinstance(message.get("content"), list):
                for block in message["content"]:
                    if isinstance(block, dict) and block.get("type") in ("tool_result", "function_call_output"):
                        out.append(_text_of(block.get("content", block.get("output"))))
        return out

    def last_is_tool_result(self) -> bool:
        """Whether the newest message hands back tool output (the model's turn after a tool call)."""
        msgs = self.messages()
        if not msgs or not isinstance(msgs[-1], dict):
            return False
        last = msgs[-1]
        if last.get("role") == "tool" or last.get("type") == "function_call_output":
            return True
        content = last.get("content")
        return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                                 for b in content)

    def user_texts(self) -> list[str]:
        """The text of each user message, oldest first (tool results left out)."""
        out = []
        for message in self.messages():
            if isinstance(message, dict) and message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, list):
                    content = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
                text = _text_of(content)
                if text:
                    out.append(text)
        return out

    def system_text(self) -> str:
        if not isinstance(self.body, dict):
            return ""
        if self.api == RESPONSES:
            return _text_of(self.body.get("instructions"))
        if self.api == CHAT:
            return "\n".join(_text_of(m.get("content")) for m in self.messages()
                             if isinstance(m, dict) and m.get("role") in ("system", "developer"))
        return _text_of(self.body.get("system"))


def anthropic_with_tools(request: Request) -> bool:
    """``is_main`` for hosts that also make tool-less side calls: a request is main when it offers tools."""
    return bool(request.tool_names())


# -- the server -----------------------------------------------------------------------------------


def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


def _chunks(text: str, size: int = 12) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


class ModelServer:
    """See the module docstring. Use as a context manager, or call start() and stop()."""

    def __init__(self, script: Iterable[Step] | Callable[[Request], Any] = (), *,
                 is_main: Callable[[Request], bool] = lambda request: True,
                 side: Step | None = None, model: str = "scripted-model", input_tokens: int = 25):
        self.responder = script if callable(script) else None
        self.script = [] if callable(script) else list(script)
        self.is_main = is_main
        self.side = side if side is not None else Text("ok")
        self.model = model
        self.input_tokens = input_tokens
        self.requests: list[Request] = []
        self.errors: list[str] = []  # exceptions raised while answering (a script bug, a broken pipe)
        self._lock = threading.Lock()
        self._steps_taken = 0
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None

    # -- life ---
    def start(self) -> "ModelServer":
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True,
                         name="model-server").start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "ModelServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The base URL for Anthropic clients (ANTHROPIC_BASE_URL); OpenAI clients take url + "/v1"."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    # -- records ---
    def main_requests(self, api: str | None = None) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.main and (api is None or r.api == api)]

    def side_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if not r.main]

    def routes(self) -> list[str]:
        """``METHOD path`` of every request, in order (for reports and failure messages)."""
        with self._lock:
            return [f"{r.method} {r.path}" + (" [main]" if r.main else "") for r in self.requests]

    def describe(self) -> str:
        """A short account of the traffic, for assertion messages."""
        lines = []
        with self._lock:
            requests = list(self.requests)
        for r in requests:
            extra = ""
            if r.api:
                extra = (f" model={r.model} stream={r.stream} tools={len(r.tool_names())}"
                         f" tool_results={len(r.tool_results())}")
            lines.append(f"{r.method} {r.path}{' [main]' if r.main else ''}{extra}")
        return "\n".join(lines + [f"error: {e}" for e in self.errors]) or "(no requests)"

    # -- answers ---
    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def _reply_for(self, request: Request) -> Reply:
        with self._lock:
            request.main = bool(self.is_main(request))
            if request.main:
                if self.responder is not None:
                    step = self.responder
                elif self._steps_taken < len(self.script):
                    step = self.script[self._steps_taken]
                else:
                    step = Text("(script exhausted)")
                self._steps_taken += 1
            else:
                step = self.side
        return as_reply(step, request)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):04d}{uuid.uuid4().hex[:16]}"


# Connectivity probes answered 200: the root, and Claude Code's ``HEAD /api/hello`` (sent when
# CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is not set).
_PROBES = ("", "/v1", "/api/hello")


class _Handler(BaseHTTPRequestHandler):
    owner: ModelServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep pytest output clean
        pass

    # -- plumbing ---
    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _json(self, status: int, payload: Any, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _stream(self, events: Iterable[bytes]) -> None:
        """Server-sent events, chunked (the connection stays usable afterwards)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _request(self, body: Any, api: str | None) -> Request:
        path = self.path.split("?", 1)[0]
        request = Request(method=self.command, path=path, body=body, api=api,
                          headers={k.lower(): v for k, v in self.headers.items()})
        self.owner._record(request)
        return request

    def _not_found(self) -> None:
        self._json(404, {"type": "error", "error": {"type": "not_found_error",
                                                    "message": f"no route {self.command} {self.path}"}})

    # -- routes ---
    def do_HEAD(self) -> None:
        self._request(None, None)
        if self.path.split("?")[0].rstrip("/") in _PROBES:
            self._json(200, {})
        else:
            self._not_found()

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        self._request(None, None)
        if path in _PROBES:
            self._json(200, {"ok": True})
        elif path == "/v1/models":
            model = self.owner.model
            self._json(200, {"object": "list", "data": [
                {"id": model, "object": "model", "type": "model", "display_name": model, "owned_by": "tests",
                 "created": 0, "created_at": "2025-01-01T00:00:00Z"}], "has_more": False,
                "first_id": model, "last_id": model})
        else:
            self._not_found()

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        body = self._read_body()
        api = {"/v1/messages": ANTHROPIC, "/v1/chat/completions": CHAT, "/v1/responses": RESPONSES,
               "/chat/completions": CHAT, "/responses": RESPONSES, "/messages": ANTHROPIC}.get(path)
        if path.endswith("/messages/count_tokens"):
            self._request(body, None)
            self._json(200, {"input_tokens": self.owner.input_tokens})
            return
        request = self._request(body, api)
        if api is None:
            self._not_found()
            return
        if not isinstance(body, dict):
            self._json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "the body is not a JSON object"}})
            return
        try:
            reply = self.owner._reply_for(request)
        except Exception as exc:  # a script bug: tell the host and the test
            self.owner.errors.append(f"{type(exc).__name__}: {exc}")
            self._json(500, {"type": "error", "error": {"type": "api_error", "message": f"script: {exc!r}"}})
            return
        prefix = "toolu_" if api == ANTHROPIC else "call_"  # fresh ids: a script's ToolCall may be used again
        reply = Reply(reply.text, [ToolCall(c.name, c.arguments, c.id or self.owner.new_id(prefix), c.namespace)
                                   for c in reply.calls])
        try:
            {ANTHROPIC: self._anthropic, CHAT: self._chat, RESPONSES: self._responses}[api](request, reply)
        except (BrokenPipeError, ConnectionResetError) as exc:
            self.owner.errors.append(f"{api}: the client hung up ({exc})")

    # -- Anthropic Messages ---
    def _anthropic(self, request: Request, reply: Reply) -> None:
        owner = self.owner
        model = request.model or owner.model
        stop = "tool_use" if reply.calls else "end_turn"
        blocks: list[dict] = []
        if reply.text or not reply.calls:
            blocks.append({"type": "text", "text": reply.text})
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls]
        out_tokens = max(1, sum(len(json.dumps(b)) for b in blocks) // 4)
        usage = {"input_tokens": owner.input_tokens, "output_tokens": out_tokens,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message_id = owner.new_id("msg_")
        if not request.stream:
            self._json(200, {"id": message_id, "type": "message", "role": "assistant", "model": model,
                             "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage},
                       {"request-id": owner.new_id("req_")})
            return

        def events():
            yield _sse("message_start", {"type": "message_start", "message": {
                "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}})
            for index, block in enumerate(blocks):
                if block["type"] == "text":
                    yield _sse("content_block_start", {"type": "content_block_start", "index": index,
                                                       "content_block": {"type": "text", "text": ""}})
                    if index == 0:
                        yield _sse("ping", {"type": "ping"})
                    for piece in _chunks(block["text"]):
                        yield _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                           "delta": {"type": "text_delta", "text": piece}})
                else:
                    yield _sse("content_block_start", {"type": "content_block_start", "index": index,
                                                       "content_block": {"type": "tool_use", "id": block["id"],
                                                                         "name": block["name"], "input": {}}})
                    for piece in _chunks(json.dumps(block["input"])):
                        yield _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                           "delta": {"type": "input_json_delta",
                                                                     "partial_json": piece}})
                yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
            yield _sse("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": out_tokens}})
            yield _sse("message_stop", {"type": "message_stop"})

        self._stream(events())

    # -- OpenAI Chat Completions ---
    def _chat(self, request: Request, reply: Reply) -> None:
        owner = self.owner
        model = request.model or owner.model
        finish = "tool_calls" if reply.calls else "stop"
        completion_id = owner.new_id("chatcmpl-")
        created = int(time.time())
        calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                 for c in reply.calls]
        out_tokens = max(1, (len(reply.text) + sum(len(c["function"]["arguments"]) for c in calls)) // 4)
        usage = {"prompt_tokens": owner.input_tokens, "completion_tokens": out_tokens,
                 "total_tokens": owner.input_tokens + out_tokens}
        if not request.stream:
            message: dict = {"role": "assistant", "content": reply.text if (reply.text or not calls) else None}
            if calls:
                message["tool_calls"] = calls
            self._json(200, {"id": completion_id, "object": "chat.completion", "created": created, "model": model,
                             "choices": [{"index": 0, "message": message, "finish_reason": finish,
                                          "logprobs": None}], "usage": usage})
            return

        def chunk(delta: dict, finish_reason: str | None = None) -> bytes:
            return _sse(None, {"id": completion_id, "object": "chat.completion.chunk", "created": created,
                               "model": model, "choices": [{"index": 0, "delta": delta,
                                                            "finish_reason": finish_reason, "logprobs": None}]})

        def events():
            yield chunk({"role": "assistant", "content": ""})
            if reply.text:
                for piece in _chunks(reply.text):
                    yield chunk({"content": piece})
            for index, call in enumerate(calls):
                yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]})
                for piece in _chunks(call["function"]["arguments"]):
                    yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            yield chunk({}, finish)
            if (request.body.get("stream_options") or {}).get("include_usage"):
                yield _sse(None, {"id": completion_id, "object": "chat.completion.chunk", "created": created,
                                  "model": model, "choices": [], "usage": usage})
            yield _sse(None, "[DONE]")

        self._stream(events())

    # -- OpenAI Responses ---
    def _responses(self, request: Request, reply: Reply) -> None:
        owner = self.owner
        model = request.model or owner.model
        response_id = owner.new_id("resp_")
        items: list[dict] = []
        if reply.text or not reply.calls:
            items.append({"type": "message", "id": owner.new_id("msg_"), "status": "completed", "role": "assistant",
                          "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
        for c in reply.calls:
            items.append({"type": "function_call", "id": owner.new_id("fc_"), "call_id": c.id, "name": c.name,
                          "arguments": json.dumps(c.arguments), "status": "completed"})
            if c.namespace:
                items[-1]["namespace"] = c.namespace
        out_tokens = max(1, sum(len(json.dumps(i)) for i in items) // 4)
        body = request.body
        response = {
            "id": response_id, "object": "response", "created_at": int(time.time()), "status": "completed",
            "model": model, "output": items, "error": None, "incomplete_details": None,
            "instructions": body.get("instructions"), "metadata": body.get("metadata") or {},
            "parallel_tool_calls": body.get("parallel_tool_calls", True), "temperature": body.get("temperature"),
            "top_p": body.get("top_p"), "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "previous_response_id": body.get("previous_response_id"), "store": body.get("store", False),
            "text": body.get("text") or {"format": {"type": "text"}}, "truncation": "disabled",
            "usage": {"input_tokens": owner.input_tokens, "output_tokens": out_tokens,
                      "total_tokens": owner.input_tokens + out_tokens,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}},
        }
        if not request.stream:
            self._json(200, response)
            return
        sequence = itertools.count()

        def event(kind: str, **fields) -> bytes:
            return _sse(kind, {"type": kind, "sequence_number": next(sequence), **fields})

        def events():
            yield event("response.created", response={**response, "status": "in_progress", "output": [],
                                                      "usage": None})
            yield event("response.in_progress", response={**response, "status": "in_progress", "output": [],
                                                          "usage": None})
            for index, item in enumerate(items):
                if item["type"] == "message":
                    text = item["content"][0]["text"]
                    yield event("response.output_item.added", output_index=index,
                                item={**item, "status": "in_progress", "content": []})
                    part = {"type": "output_text", "text": "", "annotations": []}
                    yield event("response.content_part.added", item_id=item["id"], output_index=index,
                                content_index=0, part=part)
                    for piece in _chunks(text):
                        yield event("response.output_text.delta", item_id=item["id"], output_index=index,
                                    content_index=0, delta=piece, logprobs=[])
                    yield event("response.output_text.done", item_id=item["id"], output_index=index,
                                content_index=0, text=text, logprobs=[])
                    yield event("response.content_part.done", item_id=item["id"], output_index=index,
                                content_index=0, part={**part, "text": text})
                else:
                    yield event("response.output_item.added", output_index=index,
                                item={**item, "status": "in_progress", "arguments": ""})
                    for piece in _chunks(item["arguments"]):
                        yield event("response.function_call_arguments.delta", item_id=item["id"],
                                    output_index=index, delta=piece)
                    yield event("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                                arguments=item["arguments"])
                yield event("response.output_item.done", output_index=index, item=item)
            yield event("response.completed", response=response)

        self._stream(events())
