"""Session keys (reference §20): main ``agent:<agentId>:main``, groups
``agent:<agentId>:<channel>:group:<id>``, cron ``cron:<jobId>``, hooks ``hook:<uuid>``."""

from __future__ import annotations

import re

from ..errors import UserError

_SAFE = re.compile(r"^[^\s\x00-\x1f]{1,200}$")


def main_key(agent: str) -> str:
    return f"agent:{agent}:main"


def normalize_key(raw: str | None, agent: str) -> str:
    """``None``/``main`` -> the main key; ``telegram:group:42`` -> ``agent:<agent>:telegram:group:42``.
    A key of another agent is refused: agents never share sessions."""
    key = (raw or "").strip() or "main"
    if not _SAFE.match(key):
        raise UserError(f"invalid session key {raw!r}: 1-200 characters, no spaces or control characters")
    if key.startswith(("cron:", "hook:")):
        return key
    if key.startswith("agent:"):
        parts = key.split(":")
        if len(parts) < 3 or not parts[2]:
            raise UserError(f"invalid session key {raw!r}: expected agent:<agentId>:<name>")
        if parts[1] != agent:
            raise UserError(f"session key {raw!r} belongs to agent {parts[1]!r}, not {agent!r}")
        return key
    return f"agent:{agent}:{key}"


def chat_type_of(key: str) -> str:
    """``group`` for group and channel chats, ``direct`` otherwise."""
    return "group" if (":group:" in key or ":channel:" in key) else "direct"


def channel_of(key: str) -> str:
    parts = key.split(":")
    if parts[0] == "agent" and len(parts) >= 5 and parts[3] in ("group", "channel", "direct", "dm"):
        return parts[2]
    if parts[0] in ("cron", "hook"):
        return parts[0]
    return "cli"


def is_main(key: str, agent: str) -> bool:
    return key == main_key(agent)
