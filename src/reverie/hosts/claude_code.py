"""Claude Code as a host of the memory sidecar: its hook events in, its hook answers out.

Claude Code runs a command for each hook event with the event as JSON on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and the event's own fields) and reads the
command's stdout; ``hookSpecificOutput.additionalContext`` is added to what the model sees.

================  ==========================================================================
SessionStart      startup context (``source``: startup, resume, clear, compact: after a
                  compaction it goes in again and a new flush cycle begins)
UserPromptSubmit  the previous turn caught up from the transcript; then trigger recall,
                  standing intents and Active Memory for ``prompt``
Stop              the new part of ``transcript_path`` recorded: the owner's prompts ``owner``,
                  the agent's words ``agent``, ``mcp__reverie__`` recall results ``recall``,
                  every other tool's output ``untrusted`` (and what the agent says after it)
PreCompact        the transcript caught up, then the pre-compaction flush
SessionEnd        the transcript caught up, then the session note
================  ==========================================================================

Memory failing never blocks the user: a memory-side failure is one line on stderr and exit 1,
which Claude Code reports without stopping the prompt (only exit 2 blocks).
"""

from __future__ import annotations

from .hooks import CONTEXT_EVENTS, HookAnswer, HookInputError, check_kind, handle_event, read_event  # noqa: F401

HOST = "claude-code"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionEnd")


def run_hook(open_memory, raw: str, event: str | None, kind: str = "main") -> HookAnswer:
    """One hook call from its stdin to its answer; ``open_memory()`` gives the agent's memory (the
    caller's way: a warm server lends an open one). Bad input raises :class:`HookInputError`."""
    check_kind(kind)
    name, payload = read_input(raw, event)
    mem = open_memory()
    try:
        return handle(mem, name, payload, kind=kind)
    finally:
        mem.close()


def read_input(raw: str, event: str | None) -> tuple[str, dict]:
    """(the event, its payload) from the hook's stdin; ``event`` as the command line names it."""
    return read_event(raw, event, EVENTS, "Claude Code")


def handle(memory, event: str, payload: dict, *, kind: str = "main") -> HookAnswer:
    """Answer one hook event for the agent of ``memory``."""
    return handle_event(memory, HOST, event, payload, kind=kind, catch_up=_catch_up)


def _catch_up(session, transcript, *, pending: str | None = None):
    """Record what the transcript holds past what was recorded (``pending``: the prompt being
    submitted, which ``before_model`` records itself, when the transcript has it already)."""
    if not isinstance(transcript, str) or not transcript:
        return None
    from ..sessions.native.claude_code import parse_from

    def read(state: dict):
        same = state.get("path") == transcript
        offset = int(state.get("offset") or 0) if same else 0
        # the tool names met so far, kept between hooks: a result is classed by the call it answers
        # without reading the transcript's beginning again on every hook of a long session
        kept = state.get("tools") if same and isinstance(state.get("tools"), dict) else None
        tools: dict = dict(kept or {})
        try:
            if offset and kept is None:  # kept by an earlier reverie without the names: find them once
                parse_from(transcript, 0, tools=tools)
            parsed, end = parse_from(transcript, offset, tools=tools)
            if end < offset:  # the file was rewritten from the start: its own names only
                tools = {}
                parsed, end = parse_from(transcript, 0, tools=tools)
        except FileNotFoundError:
            return [], state, "the transcript is gone (moved or deleted): nothing to catch up"
        messages = list(parsed.messages)
        if pending is not None and messages and messages[-1].role == "user" and messages[-1].text == pending:
            messages.pop()  # before_model records it; read again later, it is known by its words
        return messages, {"path": transcript, "offset": end, "tools": tools}, None

    return session.follow(read)
