"""What every host's hook command shares: the answer it prints, and how memory failing is said.

A hook runs inside the host's loop, before or after the model, on every prompt: whatever goes
wrong on memory's side must never block the user. Bad input (not what the host sends) and a
reverie error (a bad setting, a home that cannot be opened) are one line on stderr and exit 1;
anything else is one line saying memory was unavailable for this hook, also exit 1 — which the
hosts report and go on (exit 2 would block the prompt in Claude Code and Codex alike).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Callable


class HookInputError(ValueError):
    """The hook's input is not what the host sends: said in one line."""


@dataclass
class HookAnswer:
    stdout: str = ""
    problems: list[str] = field(default_factory=list)  # one line each, for stderr
    exit_code: int = 0
    outcomes: list[dict] = field(default_factory=list)

    def emit(self) -> int:
        """Print the answer as the host reads it (stdout), problems on stderr; the exit code."""
        if self.stdout:
            print(self.stdout, flush=True)
        for line in self.problems:
            print(f"reverie: {line}", file=sys.stderr, flush=True)
        return self.exit_code


KINDS = ("main", "group", "cron", "subagent")
# the events whose answer is context for the model (the others only record)
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit")


def check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise HookInputError(f"--kind must be main, group, cron or subagent, not {kind!r}")


def read_event(raw: str, event: str | None, events: tuple[str, ...], host: str, *, also: str = "") -> tuple[str, dict]:
    """(the event, its payload) from a hook's stdin as ``host`` sends it (one JSON object with
    ``session_id`` and ``hook_event_name``); ``event`` as the command line names it, which wins."""
    try:
        payload = json.loads(raw)
    except ValueError:
        raise HookInputError(f"the hook's input is not JSON ({host} sends one JSON object on stdin)") from None
    if not isinstance(payload, dict):
        raise HookInputError("the hook's input must be a JSON object")
    named = event or payload.get("hook_event_name")
    if not named:
        raise HookInputError("no hook event: give it on the command line or in hook_event_name")
    if named not in events:
        raise HookInputError(f"unknown {host} hook event {named!r} (reverie answers {', '.join(events)}{also})")
    if not isinstance(payload.get("session_id"), str) or not payload["session_id"].strip():
        raise HookInputError("the hook's input has no session_id")
    return named, payload


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def answer(run: Callable[[], HookAnswer]) -> int:
    """Run one hook (``run`` reads its input and answers) and print its answer: the exit code."""
    from ..errors import ReverieError

    try:
        found = run()
    except (HookInputError, ReverieError) as exc:
        print(f"reverie: error: {_first_line(exc)}", file=sys.stderr, flush=True)
        return 1
    except Exception as exc:  # exit 2 would block the user's prompt: memory failing never does
        print(f"reverie: error: memory unavailable for this hook: {_first_line(exc)}", file=sys.stderr, flush=True)
        return 1
    return found.emit()


def note(answer: HookAnswer, out) -> None:
    """One sidecar step's outcome into the answer; a failed step is a problem line (exit 1)."""
    if out is None:
        return
    answer.outcomes.append(out.as_dict() if hasattr(out, "as_dict") else dict(out))
    if getattr(out, "error", None):
        answer.problems.append(f"memory {out.step} failed: {out.error}; the conversation goes on without it")


def handle_event(memory, host: str, event: str, payload: dict, *, kind: str, catch_up,
                 own: dict[str, Callable] | None = None) -> HookAnswer:
    """Answer one hook event of a host whose hooks follow its conversations through the sidecar
    (Claude Code and Codex send the same events): ``catch_up(session, transcript, pending=None)``
    records what the host's transcript holds past what was recorded; ``own[event](answer,
    session, transcript)`` answers an event the host handles its own way instead."""
    from ..sidecar import FollowedSession

    answer = HookAnswer()
    session = FollowedSession(memory, host=host, key=payload["session_id"], kind=kind,
                              cwd=payload.get("cwd") if isinstance(payload.get("cwd"), str) else None)
    text = ""
    try:
        transcript = payload.get("transcript_path")
        if own and event in own:
            own[event](answer, session, transcript)
        elif event == "SessionStart":
            if payload.get("source") == "resume":
                note(answer, catch_up(session, transcript))
            out = session.start(str(payload.get("source") or "startup"))
            note(answer, out)
            text = out.text
        elif event == "UserPromptSubmit":
            prompt = payload.get("prompt")
            if not isinstance(prompt, str):
                raise HookInputError("UserPromptSubmit without a prompt")
            note(answer, catch_up(session, transcript, pending=prompt))
            turn = payload.get("turn_id")  # Codex names its turns: a retried hook is known by it
            out = session.before_model(prompt, turn=turn if isinstance(turn, str) else None)
            note(answer, out)
            text = out.text
        elif event in ("Stop", "SubagentStop"):
            note(answer, catch_up(session, transcript))
        elif event == "PreCompact":
            note(answer, catch_up(session, transcript))
            note(answer, session.before_compaction())
        elif event == "SessionEnd":
            note(answer, catch_up(session, transcript))
            note(answer, session.end(str(payload.get("reason") or "end")))
    finally:
        session.close()
    if text and event in CONTEXT_EVENTS:
        answer.stdout = json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}},
                                   ensure_ascii=False)
    if answer.problems:
        answer.exit_code = 1
    return answer
