"""The SDK's history as reverie's transcript holds it: read back, popped, added back.

Reverie's transcript is append-only (it is what the flush, the session note and Dreaming read),
while the SDK's ``pop_item`` removes the newest item. A pop is therefore a system event naming the
item (``agents-sdk-pop``); the history the SDK reads leaves it out, and an item added again is
shown again (a ``restored`` event) rather than recorded twice. A popped message stays in what the
flush and the note read: it was said.
"""

from __future__ import annotations

from ...sessions.host import HostMessage
from .items import from_event

POP = "agents-sdk-pop"
MESSAGE_KINDS = ("user", "assistant", "tool_call", "tool_result", "system")


def _events(rt):
    return rt.store.events(rt.session.session_id, kinds=MESSAGE_KINDS)


def visible(rt) -> list[tuple[int, int, dict]]:
    """(position, part, SDK item) of each item of the current session the SDK has not popped."""
    events = _events(rt)
    hidden: set[tuple[int, int]] = set()
    for ev in events:
        if ev.kind == "system" and ev.data.get("event") == POP:
            at = (int(ev.data.get("position") or 0), int(ev.data.get("part") or 0))
            hidden.discard(at) if ev.data.get("restored") else hidden.add(at)
    return [(ev.position, i, item) for ev in events for i, item in enumerate(from_event(ev.kind, ev.data))
            if (ev.position, i) not in hidden]


def pop(rt) -> dict | None:
    shown = visible(rt)
    if not shown:
        return None
    position, part, item = shown[-1]
    _mark(rt, position, part, restored=False)
    return item


def _mark(rt, position: int, part: int, *, restored: bool) -> None:
    what = "added back" if restored else "popped"
    rt.store.append(rt.session.session_id, "system",
                    {"event": POP, "position": position, "part": part, "restored": restored,
                     "text": f"the Agents SDK {what} item {position}.{part}"}, origin="system")


def unrecorded(rt, messages: list[HostMessage]) -> list[HostMessage]:
    """The messages whose host id the session has not recorded; a popped one among the others is
    shown again. (The sidecar skips recorded ids too, but not those of system events, and it cannot
    know about pops.)"""
    ids = {m.host_id for m in messages if m.host_id}
    if not ids:
        return messages
    at = {ev.data["hostId"]: ev.position for ev in _events(rt) if ev.data.get("hostId") in ids}
    if not at:
        return messages
    shown = {(p, i) for p, i, _ in visible(rt)}
    for position in at.values():
        if (position, 0) not in shown:
            _mark(rt, position, 0, restored=True)
    return [m for m in messages if m.host_id not in at]


def restore_user(rt, text: str) -> None:
    """A popped user message the SDK added again before any answer: ``before_model`` calls it a
    retry and records nothing, so it is shown again."""
    users = rt.store.events(rt.session.session_id, kinds=("user",), newest=True, limit=1)
    if users and users[0].text == text and (users[0].position, 0) not in {(p, i) for p, i, _ in visible(rt)}:
        _mark(rt, users[0].position, 0, restored=True)


def tool_name(rt, call_id: str) -> str | None:
    """The tool a call id belongs to, for a result whose call came in an earlier process."""
    for ev in rt.store.events(rt.session.session_id, kinds=("tool_call",), newest=True, limit=200):
        for call in (ev.data.get("message") or {}).get("toolCalls") or []:
            if call.get("id") == call_id:
                return call.get("name")
    return None
