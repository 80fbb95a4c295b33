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
