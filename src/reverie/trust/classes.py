"""Origin classes and session kinds (reference §6.5, §12), and how they combine.

Both are decided by the program from who produced a piece of content, and stored in SQLite
columns; they are never parsed from the text itself:

* ``owner``: the authenticated owner's own words (the local owner at the terminal, ``reverie
  remember`` on the command line);
* ``agent``: the agent's own words, and the curated workspace files inside the operator's
  boundary (``MEMORY.md``, ``USER.md``);
* ``untrusted``: everything that came from outside (web pages, HTTP, e-mail, other senders,
  other MCP servers, outside edits of daily notes), and whatever the agent wrote in the same turn
  after reading it;
* ``system``: scaffolding (cron and heartbeat preambles, automation job text).

Session kinds: ``interactive``, ``cron``, ``heartbeat``, ``subagent``, ``unknown``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

ORIGINS = ("owner", "agent", "untrusted", "system")
SESSION_KINDS = ("interactive", "cron", "heartbeat", "subagent", "unknown")
TRUSTED = frozenset({"owner", "agent"})
# Session kinds whose content never becomes a durable memory (reference §12).
BACKGROUND_KINDS = frozenset({"cron", "heartbeat", "subagent"})

# Lower is less trusted. ``system`` is above ``untrusted`` (it is ours, not an attacker's) but
# below ``agent``: scaffolding is never promoted or injected as memory.
_RANK = {"untrusted": 0, "system": 1, "agent": 2, "owner": 3}
# For a chunk that mixes kinds, the one that blocks promotion wins.
_KIND_RANK = {"subagent": 0, "heartbeat": 0, "cron": 0, "unknown": 1, "interactive": 2}


def check_origin(origin: str) -> str:
    if origin not in _RANK:
        raise ValueError(f"unknown origin class {origin!r}; expected one of {', '.join(ORIGINS)}")
    return origin


def check_kind(kind: str) -> str:
    if kind not in _KIND_RANK:
        raise ValueError(f"unknown session kind {kind!r}; expected one of {', '.join(SESSION_KINDS)}")
    return kind


def least_trusted(*origins: str | None) -> str:
    """The least trusted of ``origins`` (``None`` entries ignored; ``agent`` when none is given)."""
    given = [check_origin(o) for o in origins if o is not None]
    return min(given, key=_RANK.__getitem__) if given else "agent"


def weakest_kind(*kinds: str | None) -> str:
    given = [check_kind(k) for k in kinds if k is not None]
    return min(given, key=_KIND_RANK.__getitem__) if given else "unknown"


def is_trusted(origin: str | None) -> bool:
    return origin in TRUSTED


def session_kind_of(session_key: str | None) -> str:
    """The kind a session key implies (reference §20): ``cron:<job>`` -> cron, a key naming
    ``heartbeat`` or ``subagent`` -> that kind, ``hook:<id>`` -> unknown, anything else
    (a direct or group chat) -> interactive. A runtime may state the kind explicitly instead."""
    key = (session_key or "").strip()
    if not key:
        return "unknown"
    parts = key.split(":")
    if parts[0] == "cron":
        return "cron"
    if parts[0] == "hook":
        return "unknown"
    if "heartbeat" in parts:
        return "heartbeat"
    if "subagent" in parts or parts[0] == "subagent":
        return "subagent"
    return "interactive"


def sender_origin(kind: str, owner: bool, *, hook_source: str | None = None) -> str:
    """The class of a user message: a cron, heartbeat or sub-agent preamble is scaffolding
    (``system``); a session fed by an external content hook (mail, webhook) speaks for outsiders;
    otherwise the owner is ``owner`` and anyone else ``untrusted``."""
    if kind in BACKGROUND_KINDS:
        return "system"
    if hook_source:
        return "untrusted"
    return "owner" if owner else "untrusted"


@dataclass(frozen=True)
class Provenance:
    """Who wrote something: origin class, session kind, and the session it came from (if any)."""

    origin: str = "agent"
    kind: str = "unknown"
    session_id: str | None = None
    writer: str = "api"  # remember | memory_append | flush | automation | hook | outside | legacy | api

    def __post_init__(self) -> None:
        check_origin(self.origin)
        check_kind(self.kind)

    def downgraded(self, origin: str) -> "Provenance":
        """The same writer, no more trusted than ``origin``."""
        return replace(self, origin=least_trusted(self.origin, origin))

    def as_dict(self) -> dict:
        return {"originClass": self.origin, "sessionKind": self.kind, "sessionId": self.session_id,
                "writer": self.writer}


def turn_writer(user_origin: str, kind: str, session_id: str | None, *, low_trust: bool = False) -> Provenance:
    """What the agent writes in a turn before it reads anything: ``agent``, lowered by a
    non-owner's (or a preamble's) message and by a low-trust session."""
    origin = least_trusted("agent", None if user_origin == "owner" else user_origin,
                           "untrusted" if low_trust else None)
    return Provenance(origin, kind, session_id, "agent")
