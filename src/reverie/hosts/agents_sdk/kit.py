"""One conversation of an Agents SDK program, followed by reverie: the state the three pieces share.

The SDK calls, in each ``Runner.run``: ``session.get_items`` (the history), ``session.add_items``
with the new input, then for every model call ``call_model_input_filter``, and ``add_items`` with
what each step produced. So the newest user message reaches reverie *before* the model call that
answers it; :meth:`AgentsKit.add` holds it until the filter runs ``before_model`` on it, which
records it (the owner's words) and runs the lanes in one step. A user message the filter never
sees (a program that wired the session but not the filter) is recorded with the next add, without
lanes.

Everything here is synchronous (reverie is local SQLite); the SDK-facing coroutines run it in a
worker thread so the program's event loop keeps turning. A memory-side failure is logged and the
conversation goes on without memory; only reading the history (``get_items``) raises, since
without it the SDK has no conversation to continue.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import replace

from ...sessions.host import HostMessage
from ...sidecar import FollowedSession
from . import history
from .items import as_dict, newest_user, role_of, text_of, to_host

log = logging.getLogger("reverie.agents_sdk")
HOST = "agents-sdk"


class AgentsKit:
    """reverie for one SDK conversation: ``session`` (the SDK's Session), ``run_config`` (the
    before-model lanes), ``tools`` (reverie's tools as function tools), ``flush()``, ``end()``."""

    def __init__(self, memory, session_id: str, *, kind: str = "main", owner: bool = True,
                 projects: list[str] | None = None, cwd: str | None = None, tools: bool = True):
        from .session import ReverieSession
        from .tools import function_tools

        _require_sdk()
        self.memory = memory
        self.owner = owner
        self.followed = FollowedSession(memory, host=HOST, key=session_id, kind=kind, projects=projects, cwd=cwd,
                                        owner=owner)
        self._lock = threading.RLock()
        self._pending: list[str] = []  # user messages added, not yet seen by the filter
        self._startup: str | None = None  # the startup context, once per session
        self._turn_text = ""  # what before_model gave for the turn in progress
        self._key: tuple[int, str] | None = None  # the turn the filter prepared, for a program without our session
        self._used = False  # the program records through our session
        self._names: dict[str, str] = {}  # call id -> tool name
        self._handoffs: set[str] = set()
        self._taint = None
        self.last: dict[str, object] = {}  # the newest Outcome of each sidecar step, for the program to inspect
        reverie = memory.tools()
        self.reverie_tools = frozenset(t.name for t in reverie)
        self.tools = function_tools(self, reverie) if tools else []
        self.session = ReverieSession(self, session_id)

    @property
    def run_config(self):
        """A ``RunConfig`` with the before-model lanes; with a RunConfig of your own, give it
        ``call_model_input_filter=kit.input_filter``."""
        from agents import RunConfig

        return RunConfig(call_model_input_filter=self.input_filter)

    # -- the before-model lanes --------------------------------------------------------------------
    async def input_filter(self, data):
        """``RunConfig.call_model_input_filter``: the startup context and the turn's recall go into
        the instructions of every model call of the turn (the model needs them after a tool call too;
        nothing is added to the history)."""
        from agents.run_config import ModelInputData

        md = data.model_data
        try:
            await asyncio.to_thread(self._lanes, list(md.input), data.agent)
        except Exception as exc:  # memory failing never fails the model call
            log.warning("reverie: before-model lanes skipped: %s: %s", type(exc).__name__, exc)
        extra = [t for t in (self._startup, self._turn_text) if t]
        if not extra:
            return md
        return ModelInputData(input=md.input, instructions="\n\n".join([*([md.instructions] if md.instructions
                                                                            else []), *extra]))

    def _lanes(self, items: list, agent) -> None:
        with self._lock:
            self._handoffs |= _handoff_names(agent)
            count, text = newest_user(items)
            if self._pending:
                earlier, newest = self._pending[:-1], self._pending[-1]
                self._pending = []
                if earlier:
                    self._after([HostMessage("user", t, self._user_origin()) for t in earlier])
                self._prepare(newest)
            elif not self._used and text and (count, text) != self._key:
                # lanes without our session (the program keeps its history elsewhere): one turn per new message
                self._key = (count, text)
                self._prepare(text)
            elif self._startup is None:
                self._start()
            self._observe([as_dict(i) for i in items][_after_newest_user(items):])

    def _start(self) -> None:
        out = self._step(self.followed.start())
        self._startup = out.text if out.error is None else ""

    def _prepare(self, text: str) -> None:
        if self._startup is None:
            self._start()
        out = self._step(self.followed.before_model(text))
        self._turn_text = out.text if out.error is None else ""
        if out.error is not None:  # no lanes this turn; the message is still the owner's words
            self._after([HostMessage("user", text, self._user_origin())])
        elif out.repeated:
            history.restore_user(self.followed.rt, text)
        else:
            self._new_taint()

    def _new_taint(self) -> None:
        from ...trust import ToolSession
        from ...trust.classes import turn_writer

        rt = self.followed.rt
        row = rt.session
        self._taint = ToolSession(turn_writer("owner" if self.owner else "untrusted", rt.kind, row.session_id,
                                              low_trust=bool(row.low_trust)))

    def taint(self):
        """The turn's tool session: reverie's tools run with it, so a ``memory_append`` after a web
        page is the untrusted write it is."""
        from ...trust import Provenance, ToolSession

        with self._lock:
            if self._taint is None:
                self._taint = ToolSession(Provenance("agent", "unknown", None, HOST))
            return self._taint

    def _observe(self, items: list[dict]) -> None:
        for item in items:
            if item.get("type") == "function_call_output":
                name = self._names.get(str(item.get("call_id") or "")) or "tool"
                if name not in self.reverie_tools and name not in self._handoffs:
                    self.taint().observe("untrusted", name)

    # -- the transcript ----------------------------------------------------------------------------
    def add(self, items: list) -> None:
        """``Session.add_items``: record the items; the newest user message waits for the filter."""
        with self._lock:
            self._used = True
            items = [as_dict(i) for i in items]
            for item in items:
                if item.get("type") == "function_call" and item.get("call_id"):
                    self._names[str(item["call_id"])] = str(item.get("name") or "")
            held = None
            if items and role_of(items[-1]) == "user":
                held = text_of(items[-1].get("content"))
                items = items[:-1]
                if not items and self._pending and self._pending[-1] == held:
                    return  # a retried add of the message waiting for the filter
            messages = [HostMessage("user", t, self._user_origin()) for t in self._pending]
            self._pending = []
            converted, skipped = to_host(items, self._tool_name, reverie_tools=self.reverie_tools,
                                         handoffs=frozenset(self._handoffs), user_origin=self._user_origin())
            if skipped:
                log.info("reverie: left out of the transcript (no place for them): %s", ", ".join(sorted(set(skipped))))
            if self._taint is not None and self._taint.taint == "untrusted":
                # the turn read untrusted output in an earlier add: the sidecar sees one add at a time
                converted = [replace(m, origin="untrusted") if m.role in ("assistant", "tool_call") else m
                             for m in converted]
            messages += history.unrecorded(self.followed.rt, converted)
            self._observe(items)
            if messages:
                self._after(messages)
            if held is not None:
                self._pending.append(held)

    def _after(self, messages: list[HostMessage]) -> None:
        self._step(self.followed.after_turn(messages))

    def _user_origin(self) -> str:
        return "owner" if self.owner else "untrusted"

    def _tool_name(self, call_id: str) -> str | None:
        return self._names.get(call_id) or history.tool_name(self.followed.rt, call_id)

    def items(self, limit: int | None = None) -> list[dict]:
        """``Session.get_items``: the conversation as the SDK gives it, rebuilt from the transcript."""
        with self._lock:
            out = [item for _, _, item in history.visible(self.followed.rt)]
            out += [{"role": "user", "content": t} for t in self._pending]
            return out[-limit:] if limit else out

    def pop(self) -> dict | None:
        """``Session.pop_item``: the newest item leaves the SDK's history (history.py)."""
        with self._lock:
            if self._pending:
                return {"role": "user", "content": self._pending.pop()}
            return history.pop(self.followed.rt)

    def clear(self) -> None:
        """``Session.clear_session``: the conversation ends (its note is written); the next run
        starts a new reverie session, with the startup context again."""
        with self._lock:
            self._flush_pending()
            self._step(self.followed.end("clear"))
            self._pending, self._startup, self._turn_text, self._key, self._taint = [], None, "", None, None

    # -- the program's own calls -------------------------------------------------------------------
    def flush_now(self):
        with self._lock:
            messages = [HostMessage("user", t, self._user_origin()) for t in self._pending]
            self._pending = []
            return self._step(self.followed.before_compaction(messages))

    def end_now(self, reason: str = "exit"):
        with self._lock:
            self._flush_pending()
            return self._step(self.followed.end(reason))

    async def flush(self):
        """The pre-compaction flush: call it before you trim the history the model sees (the SDK
        has no compaction event for a session of ours). Once per cycle; returns the Outcome."""
        return await asyncio.to_thread(self.flush_now)

    async def end(self, reason: str = "exit"):
        """The conversation is over: its session note is written. Returns the Outcome."""
        return await asyncio.to_thread(self.end_now, reason)

    def _flush_pending(self) -> None:
        if self._pending:
            self._after([HostMessage("user", t, self._user_origin()) for t in self._pending])
            self._pending = []

    def _step(self, out):
        self.last[out.step] = out
        if out.error:
            log.warning("reverie: %s: %s", out.step, out.error)
        return out

    def close(self) -> None:
        self.followed.close()


def _require_sdk() -> None:
    try:
        import agents  # noqa: F401
    except ImportError:
        from ...errors import UserError

        raise UserError("the OpenAI Agents SDK is not installed: pip install openai-agents") from None


def _after_newest_user(items: list) -> int:
    for i in range(len(items) - 1, -1, -1):
        if role_of(as_dict(items[i])) == "user":
            return i + 1
    return 0


def _handoff_names(agent) -> set[str]:
    """The tool names under which ``agent`` can hand the conversation to another agent."""
    try:
        from agents.handoffs import Handoff
    except ImportError:  # pragma: no cover - the SDK is there whenever the filter runs
        return set()
    names = set()
    for h in getattr(agent, "handoffs", None) or []:
        try:
            names.add(h.tool_name if isinstance(h, Handoff) else Handoff.default_tool_name(h))
        except Exception:  # an object the SDK will refuse anyway
            continue
    return names
