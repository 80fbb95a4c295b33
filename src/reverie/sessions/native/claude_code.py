"""Claude Code transcripts: ``~/.claude/projects/<project>/<session id>.jsonl``.

Every line is one JSON object with a ``type``. The conversation is on ``user`` and ``assistant``
lines: an envelope (``uuid``, ``parentUuid``, ``timestamp``, ``sessionId``, ``cwd``, ``isSidechain``,
``isMeta``...) around an Anthropic Messages ``message`` whose ``content`` is a string or a list of
blocks (``text``, ``thinking``, ``tool_use`` {id, name, input}, and, on user lines, ``tool_result``
{tool_use_id, content}). A streamed answer is written one content block per line. ``system``
lines carry hook and turn bookkeeping, and on newer releases the ``local_command`` markup; the rest
(``queue-operation``, ``attachment``, ``summary``, ``file-history-snapshot``, ``api-request``...)
is bookkeeping. Learned from the transcripts the pinned Claude Code writes in tests/hosts (see
tests/fixtures/transcripts/make_claude_code.py) and public descriptions of the format, which
Anthropic calls internal and unstable: unknown line types are skipped and listed, never fatal.

Each message keeps its line's ``uuid`` as its host id; a tool result, which can share a line with
others, has ``<uuid>:<tool_use_id>``.

Who wrote what: a prompt typed by the owner (and a slash command or ``!`` shell input) is
``owner``; ``isMeta`` lines, compaction summaries, "[Request interrupted" notes and synthetic API
error messages are ``system``; what a local command or ``!`` command printed is ``untrusted``;
sub-agent lines (``isSidechain``) are skipped, their answer reaches the main thread as the Task
tool's result. A tool result is classed by the call it answers (``tool_use_id`` -> name).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

from ..host import HostMessage, ToolCallPart
from . import Parsed, Skipped, json_lines
from .common import arguments, blocks_text, mcp_text, timestamp, tool_call, tool_result

BOOKKEEPING = frozenset({
    "queue-operation", "attachment", "summary", "file-history-snapshot", "file-history-delta", "custom-title",
    "agent-name", "ai-title", "last-prompt", "mode", "cost-state", "atis-latch", "api-request", "api-request-shape",
    "api-request-blob", "tools-used", "pr-link", "progress", "tag"})
_TAGS = ("command-name", "command-message", "command-args", "command-contents", "local-command-stdout",
         "local-command-stderr", "local-command-caveat", "bash-input", "bash-stdout", "bash-stderr")
_MARKUP = re.compile(r"<(%s)>(.*?)</\1>" % "|".join(_TAGS), re.S)
_PRINTED = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")
INTERRUPTED = "[Request interrupted by user"


class _State:
    def __init__(self, tools: dict[str, str] | None = None):
        self.tools = tools if tools is not None else {}  # tool_use id -> tool name
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.recognised = 0


def _markup(text: str) -> dict[str, str] | None:
    """The tags of a body made entirely of Claude Code's command markup, else None (a message
    that merely quotes a tag is the owner's text)."""
    body = text.strip()
    if not body.startswith("<"):
        return None
    tags = {m.group(1): m.group(2) for m in _MARKUP.finditer(body)}
    return tags if tags and not _MARKUP.sub("", body).strip() else None


def _typed(text: str, host_id: str | None, at: str | None) -> HostMessage | None:
    """A user-side text: the owner's words, a command the owner typed, or what a command printed."""
    tags = _markup(text)
    if tags is None:
        if text.lstrip().startswith(INTERRUPTED):
            return HostMessage("system", text, "system", host_id=host_id, timestamp=at)
        return HostMessage("user", text, "owner", host_id=host_id, timestamp=at)
    if "command-name" in tags:
        name = tags["command-name"].strip()
        name = name if name.startswith("/") else "/" + name
        return HostMessage("user", f"{name} {tags.get('command-args', '').strip()}".strip(), "owner",
                           host_id=host_id, timestamp=at)
    if "bash-input" in tags:
        return HostMessage("user", "!" + tags["bash-input"].strip(), "owner", host_id=host_id, timestamp=at)
    printed = "\n".join(tags[k].strip() for k in _PRINTED if tags.get(k, "").strip())
    # what a command printed is outside content, like any other tool's output
    return HostMessage("system", printed, "untrusted", host_id=host_id, timestamp=at) if printed else None


def _part_id(uid: str | None, call: str) -> str | None:
    """The id of a tool result: one line can hold several results beside a text, and each message
    needs an id of its own (an importer or the sidecar records a message once per id)."""
    return f"{uid}:{call}" if uid and call else uid


def _user(d: dict, st: _State, skipped: Skipped) -> list[HostMessage]:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    uid, at, content = d.get("uuid"), timestamp(d.get("timestamp")), msg.get("content")
    if d.get("isMeta") or d.get("isCompactSummary"):
        text = blocks_text(content)
        if not text.strip():
            skipped.count("user (meta)")
            return []
        return [HostMessage("system", text, "system", host_id=uid, timestamp=at)]
    out: list[HostMessage] = []
    typed: list[str] = []
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            call = str(block.get("tool_use_id") or "")
            out.append(tool_result(mcp_text(blocks_text(block.get("content"))), st.tools.get(call), call or None,
                                   _part_id(uid, call), at))
        else:
            typed.append(blocks_text(block))
    text = "\n".join(t for t in typed if t)
    said = _typed(text, uid, at) if text.strip() else None
    if said is not None:
        out.append(said)
    if not out:
        skipped.count("user (no text)")
    return out


def _assistant(d: dict, st: _State, skipped: Skipped) -> list[HostMessage]:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    uid, at, content = d.get("uuid"), timestamp(d.get("timestamp")), msg.get("content")
    if d.get("isApiErrorMessage") or msg.get("model") == "<synthetic>":  # written by Claude Code, not the model
        text = blocks_text(content)
        return [HostMessage("system", text, "system", host_id=uid, timestamp=at)] if text.strip() else []
    texts: list[str] = []
    calls: list[ToolCallPart] = []
    results: list[HostMessage] = []
    for block in content if isinstance(content, list) else [content]:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("tool_use", "server_tool_use"):
            call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
            st.tools[call_id] = name
            calls.append(ToolCallPart(call_id, name, arguments(block.get("input"))))
        elif isinstance(kind, str) and kind.endswith("_tool_result"):  # a server tool (web search) answered in line
            call = str(block.get("tool_use_id") or "")
            body = block.get("content")
            text = blocks_text(body) or json.dumps(body, ensure_ascii=False)
            results.append(tool_result(text, st.tools.get(call, kind), call or None, _part_id(uid, call), at))
        elif kind not in ("thinking", "redacted_thinking"):
            texts.append(blocks_text(block))
    text = "\n".join(t for t in texts if t)
    out = [tool_call(text, calls, uid, at)] if calls else \
        [HostMessage("assistant", text, "agent", host_id=uid, timestamp=at)] if text.strip() else []
    if not out and not results:
        skipped.count("assistant (thinking only)")
    return out + results


def _line(n: int, d: dict, st: _State, skipped: Skipped) -> list[HostMessage]:
    kind = d.get("type")
    if isinstance(d.get("sessionId"), str) and st.session_id is None:
        st.session_id = d["sessionId"]
    if isinstance(d.get("cwd"), str) and st.cwd is None:
        st.cwd = d["cwd"]
    if kind in ("user", "assistant", "system") or kind in BOOKKEEPING:
        st.recognised += 1
    if kind in ("user", "assistant") and d.get("isSidechain"):
        skipped.count(f"{kind} (sub-agent)")
        return []
    if kind == "user":
        return _user(d, st, skipped)
    if kind == "assistant":
        return _assistant(d, st, skipped)
    if kind == "system":
        said = _typed(d["content"], d.get("uuid"), timestamp(d.get("timestamp"))) \
            if d.get("subtype") == "local_command" and isinstance(d.get("content"), str) else None
        if said is None:
            skipped.count(f"system ({d.get('subtype') or 'no subtype'})")
            return []
        return [said]
    if kind in BOOKKEEPING:
        skipped.count(kind)
        return []
    if isinstance(kind, str) and ("sessionId" in d or "uuid" in d):
        st.recognised += 1  # a line type newer than this parser, in Claude Code's envelope
    skipped.problem(n, f"unknown line type {kind!r}", str(kind))
    return []


def _parse(lines: Iterable[str], st: _State, first: int = 1) -> Parsed:
    skipped = Skipped()
    messages: list[HostMessage] = []
    for n, d, _ in json_lines(lines, skipped, first=first):
        messages.extend(_line(n, d, st, skipped))
    return Parsed(messages, skipped, st.session_id, st.cwd, st.recognised)


def parse_lines(lines: Iterable[str]) -> Parsed:
    """A whole transcript."""
    return _parse(lines, _State())


def parse_from(path: Path | str, offset: int = 0, tools: dict[str, str] | None = None) -> tuple[Parsed, int]:
    """The messages of the whole lines written to ``path`` from byte ``offset`` on, and the offset
    to start from next time (a live transcript grows by appends: a line not yet ended by a newline
    is left for the next call). Line numbers count from ``offset``. An offset past the end (the
    file was replaced) starts again from 0.

    ``tools`` maps tool-call ids to tool names, so that a result is classed by the call it answers
    even when the call was read by an earlier call: keep the same dict between calls (it is
    updated in place). Without it, the part of the file before ``offset`` is scanned for calls."""
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        if offset > size:
            offset = 0
        if tools is None:
            tools = {}
            fh.seek(0)
            _calls_in(fh.read(offset), tools)
        fh.seek(offset)
        data = fh.read()
    end = data.rfind(b"\n") + 1
    parsed = _parse(data[:end].decode("utf-8", "replace").split("\n"), _State(tools))
    return parsed, offset + end


def _calls_in(data: bytes, tools: dict[str, str]) -> None:
    for raw in data.split(b"\n"):
        if b'"tool_use"' not in raw and b'"server_tool_use"' not in raw:
            continue
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        content = (d.get("message") or {}).get("content") if isinstance(d, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") in ("tool_use", "server_tool_use"):
                tools[str(block.get("id") or "")] = str(block.get("name") or "")
