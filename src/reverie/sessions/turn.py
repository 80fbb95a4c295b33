"""What one turn of a conversation produced, for whoever runs the turn (``reverie chat``, a chat
command, a cron turn, a host following its own loop through the sidecar). It lives here, below the
hosts, so that the pieces a turn calls (chat commands, the sidecar) need not import the runtime."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TurnResult:
    input: str
    reply: str | None = None  # what to show; None when suppressed (NO_REPLY) or nothing
    command: str | None = None
    suppressed: bool = False
    session_id: str = ""
    tool_calls: list[str] = field(default_factory=list)
    flush: dict | None = None
    compactions: list[dict] = field(default_factory=list)
    error: str | None = None
    notices: list[str] = field(default_factory=list)  # one-liners for people (stderr)
    data: dict | None = None

    def as_dict(self) -> dict:
        return dict(self.__dict__)
