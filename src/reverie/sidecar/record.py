"""A host's turn into the transcript: each message with the class the host vouches for, taint
applied, reverie's own recall results marked as recall, nothing recorded twice.

The rules are those of ``reverie chat`` (docs/trust.md), with the host as the witness of who wrote
what: the owner's messages ``owner``; the agent's ``agent`` until the turn has read an untrusted
tool result, and ``untrusted`` after it; any tool's output but reverie's ``untrusted``; a result
of ``memory_search`` / ``memory_get`` is what memory said (its class is that of the entries it
returned) and is marked as recall, so the flush, the session note and the transcript index never
write it back into memory.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from ..models.base import ChatMessage, ToolCall
from ..sessions.host import HostMessage, loads_tools_only, reverie_tool
from ..trust import Provenance, ToolSession, items_from_result
from ..trust.classes import least_trusted, turn_writer


# what a transcript adds to a message's words for its non-text parts (sessions.native.common)
_PART_MARKERS = re.compile(r"\[(?:image|tool [^\]\n]+)\]")


def _words(text: str) -> str:
    """A message's words for matching: the markers of its images and tool references left out
    (``before_model`` records the prompt's text; the host's transcript has the image beside it)."""
    return " ".join(_PART_MARKERS.sub(" ", text or "").split())


def _unnamed_key(kind: str, text: str, call_ids: tuple) -> tuple:
    """What matches a message the host gave no id with one recorded earlier: its kind, its words
    and the ids of the tool calls it makes or answers (two calls with no text of their own, one
    after the other, are two messages)."""
    return (kind, _words(text), call_ids)


def _message_call_ids(m: HostMessage) -> tuple:
    if m.role == "tool_call":
        return tuple(str(c.id) for c in m.tool_calls)
    return (str(m.tool_call_id),) if m.role == "tool_result" and m.tool_call_id else ()


def _event_call_ids(ev) -> tuple:
    msg = ev.data.get("message")
    if not isinstance(msg, dict):
        return ()
    if ev.kind == "tool_call":  # (the transcript's message, as ChatMessage.to_dict writes it)
        return tuple(str(c.get("id")) for c in msg.get("toolCalls") or () if isinstance(c, dict))
    return (str(msg["toolCallId"]),) if ev.kind == "tool_result" and msg.get("toolCallId") else ()


UNNAMED_KEPT = 512  # the newest messages recorded without a host id that a later call can match


def _new_state() -> dict:
    return {"ids": set(), "unnamed": [], "turn": []}


def _step(state: dict, ev) -> None:
    """One recorded message into what ``record`` keeps of the session: the host ids recorded, the
    (kind, words) of the newest messages recorded without one (a user message ``before_model``
    recorded, a message of a host that gives no ids), and the current turn's (kind, origin)."""
    if ev.data.get("hostId"):
        state["ids"].add(ev.data["hostId"])
    else:
        state["unnamed"].append(_unnamed_key(ev.kind, ev.text, _event_call_ids(ev)))
        del state["unnamed"][:-UNNAMED_KEPT]
    if ev.kind == "user":
        state["turn"] = [("user", ev.origin)]
    elif ev.kind == "tool_result":
        state["turn"].append(("tool_result", ev.origin))


def record(rt, messages: list[HostMessage]) -> tuple[int, int, list[str]]:
    """(recorded, skipped as already recorded, notices)."""
    from ..sessions.folds import fold

    sid = rt.session.session_id
    # what is recorded already, and the turn's taint so far (kept between calls, read incrementally)
    state = fold(rt.store, sid, "sidecar-recorded", ("user", "assistant", "tool_call", "tool_result"),
                 _new_state, _step)
    ids = state["ids"]
    # recent messages recorded without the host's id, as a multiset (two alike are two messages)
    tail = Counter(state["unnamed"][-max(8, 2 * len(messages)):])
    row = rt.session
    taint = _turn_so_far(rt, sid, row, list(state["turn"]))
    recorded = skipped = 0
    notices: list[str] = []
    tainted_saves: list[tuple[str, str | None]] = []  # (the text saved, when the host says it was)
    for m in messages:
        kind = "tool_call" if m.role == "tool_call" else m.role
        known = bool(m.host_id and m.host_id in ids)
        if not known:  # (a prompt before_model recorded comes back with the host's id)
            key = _unnamed_key(kind, m.text, _message_call_ids(m))
            if tail[key] > 0:
                tail[key] -= 1
                known = True
        if known:
            skipped += 1
            if m.role == "tool_call" and _said(taint, m.origin) == "untrusted":
                # recorded by an earlier call, which may have stopped before re-classing the save
                # (or run before the save was in its note): again; re-classing is idempotent
                tainted_saves += _appended(m)
            taint = _observe(rt, sid, row, taint, m)
            continue
        extra = {"hostId": m.host_id} if m.host_id else {}
        if m.role == "user":
            if m.origin == "owner" and not row.low_trust:
                origin = rt.sender_origin(True)
            else:
                origin = least_trusted(m.origin if m.origin != "recall" else "untrusted", "untrusted")
            rt.store.append_message(sid, "user", ChatMessage("user", m.text), channel=rt.channel, origin=origin,
                                    at=rt.said_at(), **extra)
            taint = ToolSession(turn_writer(origin, rt.kind, sid, low_trust=bool(row.low_trust)))
        elif m.role == "assistant":
            rt.store.append_message(sid, "assistant", ChatMessage("assistant", m.text),
                                    origin=_said(taint, m.origin), at=rt.said_at(), **extra)
        elif m.role == "tool_call":
            # reverie's own tools by their own names: what strips recall (the flush, the index, the
            # class of a turn's context) knows them so, whatever prefix the host gives them
            calls = [ToolCall(c.id, reverie_tool(c.name) or c.name, dict(c.arguments or {})) for c in m.tool_calls]
            said = _said(taint, m.origin)
            rt.store.append_message(sid, "tool_call", ChatMessage("assistant", m.text, tool_calls=calls),
                                    origin=said, at=rt.said_at(), **extra)
            if said == "untrusted":  # saved through reverie's own tool after reading untrusted content
                tainted_saves += _appended(m)
        elif m.role == "tool_result":
            origin = _result(rt, sid, taint, m)
            name = reverie_tool(m.tool_name) or m.tool_name
            if name != m.tool_name:
                extra = {**extra, "hostToolName": m.tool_name}
            rt.store.append_message(sid, "tool_result", ChatMessage("tool", m.text, tool_call_id=m.tool_call_id,
                                                                    name=name), origin=origin, at=rt.said_at(), **extra)
        else:  # system: scaffolding, never memory
            rt.store.append(sid, "system", {"text": m.text, "event": "host", **extra}, origin="system")
        recorded += 1
        if m.host_id:
            ids.add(m.host_id)
    if taint.reasons:
        notices.append("this turn read untrusted content (" + "; ".join(taint.reasons)
                       + "): what the agent said after it is classed untrusted")
    if tainted_saves:
        notices += _distrust_saves(rt, tainted_saves)
    return recorded, skipped, notices


def _appended(m: HostMessage) -> list[tuple[str, str | None]]:
    """(the text, the host's timestamp) of each call to reverie's memory_append in ``m``."""
    return [(c.arguments["text"], m.timestamp) for c in m.tool_calls
            if reverie_tool(c.name) == "memory_append" and isinstance((c.arguments or {}).get("text"), str)]


def _distrust_saves(rt, saves: list[tuple[str, str | None]]) -> list[str]:
    """What the agent saved with ``memory_append`` after the turn read untrusted content: the MCP
    server wrote it as the agent's (it could not see the turn), the host's record shows the turn;
    its entry in the day's note becomes untrusted. The day: the host's timestamp of the call (a
    turn caught up days later), else the turn's day or today, by either clock."""
    from datetime import date, timedelta

    from ..timestamps import parse_iso
    from ..trust.claims import distrust_saved

    today = rt.now().date()
    days = []
    for _, at in saves:
        when = parse_iso(str(at)) if at else None
        if when is not None and when.tzinfo is not None:
            days += [when.astimezone(rt.tz).date(), when.date()]
    days += [today, date.today(), today - timedelta(days=1)]
    changed = distrust_saved(rt.memory, [t for t, _ in saves], days)
    return [f"what the agent saved after reading untrusted content is classed untrusted ({', '.join(changed)})"] \
        if changed else []


def _turn_so_far(rt, sid: str, row, turn: list[tuple[str, str | None]]) -> ToolSession:
    """The taint of the turn in progress as recorded so far (``turn``: the (kind, origin) of its
    user message and tool results): a host may hand one turn over in two calls (Claude Code's Stop
    runs before the last answer is in its transcript; a compaction can fall mid-turn), and what the
    agent says after untrusted output stays untrusted across them."""
    first = turn[0] if turn and turn[0][0] == "user" else None
    base = turn_writer(first[1], rt.kind, sid, low_trust=bool(row.low_trust)) if first is not None \
        else Provenance("agent", rt.kind, sid, rt.origin)
    taint = ToolSession(base)
    for kind, origin in turn:
        if kind == "tool_result" and origin not in ("owner", "agent", "system"):
            taint.observe(origin or "untrusted", "earlier in this turn")
    return taint


def _said(taint: ToolSession, declared: str) -> str:
    """What the agent says: the host's word for it, lowered by what the turn has read."""
    base = declared if declared in ("agent", "untrusted", "system") else "untrusted"
    return least_trusted(base, taint.writer().origin)


def _observe(rt, sid: str, row, taint: ToolSession, m: HostMessage) -> ToolSession:
    """A message recorded before, met again: what it put into the turn still counts (a user
    message begins a new turn)."""
    if m.role == "user":
        origin = rt.sender_origin(True) if m.origin == "owner" and not row.low_trust else "untrusted"
        return ToolSession(turn_writer(origin, rt.kind, sid, low_trust=bool(row.low_trust)))
    if m.role == "tool_result" and (m.origin == "untrusted" or reverie_tool(m.tool_name) is None) \
            and not _scaffolding(m):
        taint.observe("untrusted", m.tool_name or "tool")
    elif m.role == "tool_result" and m.origin == "recall" and (bare := reverie_tool(m.tool_name)) in RECALLING:
        if _recalled(bare, m.text)[0] == "untrusted":
            taint.observe("untrusted", f"{bare} returned untrusted memory")
    return taint


RECALLING = ("memory_search", "memory_get")


def _recalled(bare: str, text: str) -> tuple[str, list]:
    """(the least trusted class among what a recall tool returned, its items)."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    items = items_from_result(bare, parsed) if isinstance(parsed, dict) else []
    return (least_trusted(*[i.origin for i in items if i.origin]) if items else "agent"), items


def _scaffolding(m: HostMessage) -> bool:
    """A host's tool result that only loads tools, as the host says and its words show."""
    return m.origin == "system" and loads_tools_only(m.tool_name, m.text)


def _result(rt, sid: str, taint: ToolSession, m: HostMessage) -> str:
    """The class of a tool result, recording a recall mark for reverie's recall tools."""
    bare = reverie_tool(m.tool_name)
    if m.origin == "recall" and bare in RECALLING:
        origin, items = _recalled(bare, m.text)
        if items:
            rt.inject(bare, items, into_context=False)
        if origin == "untrusted":
            taint.observe("untrusted", f"{bare} returned untrusted memory")
        return origin
    if bare is not None and m.origin in ("agent", "system", "recall"):
        return "agent" if m.origin == "recall" else m.origin  # reverie's own tools: reverie's words
    if _scaffolding(m):
        return "system"
    taint.observe("untrusted", m.tool_name or "tool")
    return "untrusted"
