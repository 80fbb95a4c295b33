"""Codex CLI as a host of the memory sidecar: its hooks and its ``notify`` program in, its hook
answers out (docs/hosts/codex.md).

Codex (npm ``@openai/codex``; learned from 0.171.0) runs a command for each hook event with the event
as JSON on stdin (``session_id``, ``transcript_path``: the session's rollout, ``cwd``,
``hook_event_name`` and the event's own fields) and adds ``hookSpecificOutput.additionalContext``
from stdout to what the model sees (as a developer message). After each turn it also runs the
``notify`` program with one JSON argument (``type: agent-turn-complete``, ``thread-id``,
``turn-id``, ``cwd``, ``client``...), which names no transcript: the rollout is found by the thread
id under ``<CODEX_HOME>/sessions``.

================  ==========================================================================
SessionStart      startup context (``source``: startup, resume, clear; resume catches up first)
UserPromptSubmit  the previous turn caught up from the rollout; then trigger recall, standing
                  intents and Active Memory for ``prompt``
Stop              the new part of the rollout recorded (parsed by
                  :mod:`reverie.sessions.native.codex`): the owner's prompts ``owner``, the
                  agent's words ``agent``, ``mcp__reverie`` recall results ``recall``, every other
                  tool's output ``untrusted`` (and what the agent says after it)
PreCompact        the rollout caught up, then the pre-compaction flush
SessionEnd        the rollout caught up, then the session note (Codex gives it at most 3 s)
notify            the same as Stop, for a Codex whose hooks are off or not trusted; after a
                  ``codex exec`` turn (one turn is the whole session) also the session note
================  ==========================================================================

Memory failing never blocks the user: a memory-side failure is one line on stderr and exit 1,
which Codex reports as a failed hook and goes on (exit 2 would block a prompt or continue a turn).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .hooks import CONTEXT_EVENTS, HookAnswer, HookInputError, check_kind, handle_event, note, read_event  # noqa: F401

HOST = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd")
NOTIFY = "notify"
# notify's ``client`` for `codex exec`: the session is over when its turn is
EXEC_CLIENTS = ("codex_exec",)


def codex_home(given: str | None = None) -> Path:
    """The Codex home whose ``sessions`` hold the rollouts: given, else ``$CODEX_HOME``, else ~/.codex."""
    return Path(given or os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def run(open_memory, event: str | None, raw: str, *, kind: str = "main", home: str | None = None) -> HookAnswer:
    """One hook (the event's JSON in ``raw``, from stdin) or one notify call (``event`` ``notify``,
    its JSON argument in ``raw``) from its input to its answer. Bad input raises HookInputError."""
    check_kind(kind)
    if event == NOTIFY:
        payload = read_notify(raw)
        if payload.get("type") != "agent-turn-complete":
            return HookAnswer()  # another kind of notification: nothing to record
        name = NOTIFY
    else:
        name, payload = read_input(raw, event)
    mem = open_memory()
    try:
        return handle(mem, name, payload, kind=kind, home=home)
    finally:
        mem.close()


def read_input(raw: str, event: str | None) -> tuple[str, dict]:
    return read_event(raw, event, EVENTS, "Codex", also=", and notify")


def read_notify(raw: str) -> dict:
    try:
        payload = json.loads(raw)
    except ValueError:
        raise HookInputError("notify's argument is not JSON (Codex passes one JSON object)") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("type"), str):
        raise HookInputError("notify's argument must be a JSON object with a type")
    if payload["type"] == "agent-turn-complete":
        thread = payload.get("thread-id")
        if not isinstance(thread, str) or not thread.strip():
            raise HookInputError("notify's agent-turn-complete has no thread-id")
        payload["session_id"] = thread
    return payload


def rollout_for(home: Path, thread_id: str) -> Path | None:
    """The rollout of a thread: ``sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`` (newest day first)."""
    sessions = home / "sessions"
    if not thread_id or "/" in thread_id or not sessions.is_dir():
        return None
    found = sorted(sessions.glob(f"*/*/*/rollout-*-{thread_id}.jsonl"), reverse=True)
    return found[0] if found else None


def handle(memory, event: str, payload: dict, *, kind: str = "main", home: str | None = None) -> HookAnswer:
    """Answer one hook event (or a notify call) for the agent of ``memory``."""
    def notify(answer: HookAnswer, session, transcript) -> None:
        found = rollout_for(codex_home(home), payload["session_id"])
        if found is None:
            answer.problems.append(f"no rollout for thread {payload['session_id']} under "
                                   f"{codex_home(home) / 'sessions'}: the turn was not recorded")
        elif payload.get("client") in EXEC_CLIENTS:
            _end(answer, session, str(found), "exec")
        else:
            note(answer, _catch_up(session, str(found)))

    def session_end(answer: HookAnswer, session, transcript) -> None:
        _end(answer, session, transcript, str(payload.get("reason") or "end"))

    return handle_event(memory, HOST, event, payload, kind=kind, catch_up=_catch_up,
                        own={NOTIFY: notify, "SessionEnd": session_end})


def _end(answer: HookAnswer, session, transcript, reason: str) -> None:
    """Catch up, then end the session and write its note. After a ``codex exec`` turn Codex runs
    notify and SessionEnd at once, and both end the session: one after the other (a lock of
    their own, around the session's), and the second, finding the session ended and nothing new
    in the rollout, does nothing (catching up would start an empty session just to end it)."""
    from ..locks import FileLock

    with FileLock(str(session._folder() / f"{session._name()}.end.lock"), timeout=60):
        if _ended_and_read(session, transcript):
            return
        note(answer, _catch_up(session, transcript))
        note(answer, session.end(reason))


def _ended_and_read(session, transcript) -> bool:
    """Whether the session has no open conversation, had one, and its rollout holds no message
    past what was recorded."""
    rt = session.rt
    if rt.store.current_session(rt.key) is not None or rt.store.latest_session(rt.key) is None:
        return False
    if not isinstance(transcript, str) or not transcript:
        return True
    try:
        state = json.loads(session._state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(state, dict) or state.get("path") != transcript:
        return False
    try:
        messages, _ = read_rollout(transcript, int(state.get("offset") or 0), dict(state.get("tools") or {}))
    except (OSError, ValueError):
        return False
    return not messages


def _catch_up(session, transcript, *, pending: str | None = None):
    """Record what the rollout holds past what was recorded (``pending``: the prompt being
    submitted, which ``before_model`` records itself)."""
    if not isinstance(transcript, str) or not transcript:
        return None

    def read(state: dict):
        same = state.get("path") == transcript
        offset = int(state.get("offset") or 0) if same else 0
        tools: dict = dict(state.get("tools") or {}) if same else {}
        try:
            messages, end = read_rollout(transcript, offset, tools)
            if end < offset:  # rewritten from the start
                tools = {}
                messages, end = read_rollout(transcript, 0, tools)
        except FileNotFoundError:
            return [], state, "the rollout is gone (moved or deleted): nothing to catch up"
        if pending is not None and messages and messages[-1].role == "user" and messages[-1].text == pending:
            messages.pop()  # before_model records it; read again later, it is known by its words
        return messages, {"path": transcript, "offset": end, "tools": tools}, None

    return session.follow(read)


def read_rollout(path: str, offset: int, tools: dict) -> tuple[list, int]:
    """The messages of a rollout's complete lines from byte ``offset`` on, and the offset after
    them. ``tools`` (call id -> tool name, kept between calls) classes a result whose call was read
    by an earlier hook; it is updated with the calls read now."""
    from ..sessions.host import HostMessage
    from ..sessions.native.codex import parse_lines
    from ..sessions.native.common import tool_result

    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        if size < offset:
            return [], size
        f.seek(offset)
        data = f.read()
    cut = data.rfind(b"\n") + 1  # a line still being written is read next time
    lines = data[:cut].decode("utf-8", "replace").splitlines()
    parsed = parse_lines(lines)
    out: list[HostMessage] = []
    for m in parsed.messages:
        for part in m.tool_calls or ():
            tools[part.id] = part.name
        if m.role == "tool_result" and not m.tool_name and m.tool_call_id in tools:
            m = tool_result(m.text, tools[m.tool_call_id], m.tool_call_id, m.host_id, m.timestamp)
        out.append(m)
    return out, offset + cut
