"""A native host transcript recorded into the transcript store (``reverie sessions import``).

One host session is one reverie session, found again by the host's session id (kept in every
event's ``host`` record; the host's id for the message is in ``hostId``), so importing the same
file twice adds nothing and importing a transcript that grew adds only its new messages. A
message's role is its event kind (``user``, ``assistant``, ``tool_call``, ``tool_result``,
``system``).

Each message is recorded with the class the runtime would have recorded in a live chat
(docs/trust.md): the owner's prompts ``owner``; the agent's words ``agent`` -- lowered to
``untrusted`` once the turn has read outside content (a tool result or command output from
anything but reverie), as the runtime's taint does; tool results by the tool; host scaffolding
``system``. In a group chat the transcript does not say which speaker is the owner: every user
message is ``untrusted`` and the session low-trust. A result of reverie's recall tools is recorded
under the tool's bare name (``memory_search``) with a recall mark of what it returned, exactly as
the runtime records one, so the flush, the session note and transcript search leave recalled
text out and the agent quoting it is never ingested again. Messages ``reverie forget`` removed
are not brought back.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from ...errors import UserError
from ...models.base import ChatMessage, ToolCall
from ...trust import RECALL_TOOLS, RecallItem, items_from_result, least_trusted, result_origin
from ...trust.tombstones import Tombstones, message_texts
from ..host import HostMessage, reverie_tool
from ..jsonl import ms_of
from ..recall_marks import RecallLedger
from ..store import SessionRow, TranscriptStore, message_to_dict
from . import NAMES, Parsed

_NO_ORIGIN = SimpleNamespace(origin=None)  # reverie's recall tools declare none: their results' provenance decides


def read_lines(path: Path) -> list[str]:
    """A transcript's lines (split on newlines only: a JSON string may hold U+2028, which
    ``splitlines`` would cut); bytes that are not UTF-8 are replaced, not fatal."""
    try:
        return path.read_bytes().decode("utf-8", "replace").split("\n")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None


@dataclass
class FileReport:
    path: str
    format: str
    session_key: str
    host_session: str
    session_id: str | None = None
    taken: Counter = field(default_factory=Counter)  # event kind -> messages recorded now
    already: int = 0  # recorded by an earlier import
    forgotten: int = 0
    recall: int = 0  # recall results marked
    skipped: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"path": self.path, "format": self.format, "hostSession": self.host_session,
                "sessionKey": self.session_key, "sessionId": self.session_id, "messages": sum(self.taken.values()),
                "taken": dict(self.taken), "alreadyRecorded": self.already, "forgotten": self.forgotten,
                "recallMarked": self.recall, "skipped": self.skipped}

    def line(self, dry_run: bool = False) -> str:
        kinds = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(self.taken.items()))
        out = (f"{Path(self.path).name}: {NAMES.get(self.format, self.format)} session {self.host_session} -> "
               f"{self.session_key}: {'would take' if dry_run else 'took'} {sum(self.taken.values())} message(s)"
               + (f" ({kinds})" if kinds else ""))
        if self.recall:
            out += f", {self.recall} recall result(s) marked"
        if self.already:
            out += f", {self.already} already recorded"
        if self.forgotten:
            out += f", {self.forgotten} forgotten"
        by_type = self.skipped.get("byType") or {}
        if by_type:
            out += f"; skipped {self.skipped['lines']} line(s): " + ", ".join(f"{k} {n}" for k, n in by_type.items())
        for p in self.skipped.get("problems") or []:
            out += f"; line {p['line']}: {p['why']}"
        return out


def _key(m: HostMessage) -> str:
    """What identifies a message across imports: the host's id for it, else its content (an
    OpenClaw file of format version 1 has no ids)."""
    if m.host_id:
        return m.host_id
    return "sha1:" + hashlib.sha1(f"{m.role}|{m.timestamp}|{m.tool_call_id}|{m.text}".encode("utf-8",
                                                                                         "surrogatepass")).hexdigest()


def _existing(store: TranscriptStore, key: str, fmt: str, host_session: str) -> SessionRow | None:
    for row in store.sessions(key):
        # the first events: a recall mark, which has no host record, can come before a message
        host = next((ev.data["host"] for ev in store.events(row.session_id, limit=3)
                     if isinstance(ev.data.get("host"), dict)), None)
        if host is not None and host.get("format") == fmt and host.get("session") == host_session:
            return row
    return None


def _chat(m: HostMessage) -> ChatMessage:
    if m.role == "tool_call":
        calls = [ToolCall(c.id, reverie_tool(c.name) or c.name, dict(c.arguments)) for c in m.tool_calls]
        return ChatMessage("assistant", m.text, calls)
    if m.role == "tool_result":
        return ChatMessage("tool", m.text, tool_call_id=m.tool_call_id, name=reverie_tool(m.tool_name) or m.tool_name)
    return ChatMessage(m.role, m.text)  # user or assistant


def _recall(m: HostMessage) -> tuple[str, list[RecallItem]] | None:
    """(recorded class, what memory returned) of a result of reverie's recall tools, else None."""
    bare = reverie_tool(m.tool_name) if m.role == "tool_result" else None
    if bare not in RECALL_TOOLS:
        return None
    try:
        result = json.loads(m.text)
    except ValueError:
        result = None
    if isinstance(result, dict):
        return result_origin(_NO_ORIGIN, result), items_from_result(bare, result)
    # a host that reworded the answer: all of it is what memory said
    return "agent", [RecallItem(m.text)] if m.text.strip() else []


def import_native(store: TranscriptStore, path: Path, fmt: str, parsed: Parsed, *, session_key: str, chat_type: str,
                  sender: str | None = None, dry_run: bool = False) -> FileReport:
    host_session = parsed.session_id or path.name.split(".jsonl", 1)[0]
    report = FileReport(str(path), fmt, session_key, host_session, skipped=parsed.skipped.as_dict())
    row = _existing(store, session_key, fmt, host_session)
    # ``hostId``: the field the sidecar records its host messages' ids in too
    seen = {ev.data.get("hostId") for ev in store.events(row.session_id)} if row else set()
    tombs = Tombstones(store.conn)
    group = chat_type == "group"
    base = "untrusted" if group else "agent"
    taint, dropped = base, set()
    writes: list[tuple[HostMessage, str, str, tuple | None]] = []  # (message, class, key, recall)
    for m in parsed.messages:
        recall = _recall(m)
        origin = "untrusted" if group and m.origin == "owner" else m.origin
        if m.role == "user":
            taint = least_trusted(base, None if origin == "owner" else origin)  # a new turn
        elif m.role in ("assistant", "tool_call"):
            origin = least_trusted(origin, taint)
        elif recall is not None:
            origin = recall[0]
        if m.role == "tool_result" or origin == "untrusted":
            taint = least_trusted(taint, origin)  # what the agent read from here to the end of the turn
        key = _key(m)
        if key in seen:
            report.already += 1
            continue
        texts = message_texts(m.text, [c.arguments for c in m.tool_calls])
        if tombs and (any(tombs.forgotten(t) for t in texts) or (m.tool_call_id and m.tool_call_id in dropped)):
            dropped.update(c.id for c in m.tool_calls)  # and the results answering it
            report.forgotten += 1
            continue
        seen.add(key)
        writes.append((m, origin, key, recall))
        report.taken[m.role] += 1
        report.recall += recall is not None
    if dry_run or not writes:
        report.session_id = row.session_id if row else None
        return report
    created = row is None
    if created:
        row = store.start_session(session_key, chat_type=chat_type, channel=fmt, sender=sender, origin="import",
                                  started_at=next((ms_of(m.timestamp) for m, *_ in writes if ms_of(m.timestamp)), None),
                                  session_kind="interactive")
        if group:
            store.mark_low_trust(row.session_id)
    report.session_id = row.session_id
    ledger = RecallLedger(store, None)
    try:
        for m, origin, key, recall in writes:
            if recall is not None:
                # the mark goes first: an import cut short here must not leave the result unmarked
                # (a second import skips the result, so it would never be marked)
                ledger.mark(row.session_id, reverie_tool(m.tool_name), recall[1], auto=False)
            host = {"format": fmt, "session": host_session}
            if m.tool_name and reverie_tool(m.tool_name):
                host["tool"] = m.tool_name  # recorded under reverie's bare name
            if m.role == "system":  # as the sidecar records host scaffolding
                payload = {"text": m.text, "event": "host"}
            else:
                payload = {"message": message_to_dict(_chat(m))}
            payload.update(imported=fmt, host=host, hostId=key)
            if m.role == "user" and sender:
                payload["sender"] = sender
            store.append(row.session_id, m.role, payload, at=ms_of(m.timestamp), origin=origin)
    finally:
        if created:  # a host transcript is history, not an open chat, even if the import stopped
            store.end_session(row.session_id, "import")
    return report
