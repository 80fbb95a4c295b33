"""reverie following the conversations of a LangGraph program: one :class:`GraphMemory` per program,
one sidecar session (:class:`reverie.sidecar.FollowedSession`) per graph thread.

Per model call, :meth:`GraphMemory.prepare` gives the text to add to the system prompt of that call
only: the thread's startup context (asked once per thread in this process) and what recall found for
the newest human message (asked once per turn; the turn's later model calls, after tool calls, get
the same text). It never enters the graph's state: the graph keeps owning its history.
:meth:`GraphMemory.record` records the newest turn with provenance (safe after every model call:
what is recorded is skipped by message id). A turn whose post-turn step never ran (the run failed,
the process restarted) is caught up when the next turn is prepared.

While a turn runs, tools run as the turn's writer (:meth:`GraphMemory.writer`): the agent, and
``untrusted`` once the turn has read outside content, so what ``memory_append`` or the store writes
after a web page is recorded as untrusted, as in ``reverie chat``.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from typing import Iterable

from ...sidecar import KINDS, FollowedSession, Outcome
from .messages import kind_of, messages_of, newest_turn, previous_turn, read_untrusted, text_of, to_host

log = logging.getLogger("reverie.langgraph")
MAX_THREADS = 256  # sessions kept open; the least recently used beyond this is closed (and reopens on use)


class _Thread:
    def __init__(self, session: FollowedSession):
        self.session = session
        self.lock = threading.RLock()
        self.session_id: str | None = None
        self.started: str | None = None  # the startup context, once asked
        self.prepared: tuple[str, str] | None = None  # (turn, what recall injected for it)
        self.recorded: str | None = None  # the id of the last message recorded
        self.taint = None  # the turn's ToolSession: who writes now


class GraphMemory:
    """reverie as the memory of a LangGraph program (docs/hosts/langgraph.md).

    ``kind`` is the sidecar's session kind (main, group, cron, subagent); ``owner=False`` for a graph
    that talks to people other than the memory's owner (their messages are then ``untrusted``);
    ``reverie_tools`` names reverie's tools the program loads itself (over MCP), so that their results
    are known as recall."""

    def __init__(self, memory, *, host: str = "langgraph", kind: str = "main", owner: bool = True,
                 projects: list[str] | None = None, cwd: str | None = None, reverie_tools: Iterable[str] = ()):
        from ...errors import UserError

        if kind not in KINDS:
            raise UserError(f"session kind must be one of {', '.join(KINDS)}, not {kind!r}")
        self.memory = memory
        self.host, self.kind, self.owner = host, kind, owner
        self.reverie_tools = set(reverie_tools)
        self._args = dict(projects=projects, cwd=cwd, owner=owner)
        self._threads: OrderedDict[str, _Thread] = OrderedDict()
        self._lock = threading.Lock()
        self._store = None
        self.owns_memory = False

    # -- threads --------------------------------------------------------------------------------
    def thread_of(self, messages: Iterable = (), config: dict | None = None) -> str:
        """The conversation: the run's ``thread_id``, else its first message's id."""
        if config is None:
            try:
                from langgraph.config import get_config

                config = get_config()
            except (ImportError, RuntimeError):  # called outside a graph run
                config = None
        thread = ((config or {}).get("configurable") or {}).get("thread_id")
        if thread:
            return str(thread)
        first = next((m.id for m in messages if getattr(m, "id", None)), None)
        return f"conversation-{first}" if first else "default"

    def _thread(self, key: str) -> _Thread:
        with self._lock:
            th = self._threads.get(key)
            if th is None:
                th = self._threads[key] = _Thread(FollowedSession(self.memory, host=self.host, key=key,
                                                                  kind=self.kind, **self._args))
                while len(self._threads) > MAX_THREADS:
                    self._threads.popitem(last=False)[1].session.close()
            else:
                self._threads.move_to_end(key)
            return th

    def session(self, thread: str) -> FollowedSession:
        """The sidecar session of a thread (its transcript: ``session(t).rt.store``)."""
        return self._thread(str(thread)).session

    # -- a turn -----------------------------------------------------------------------------------
    def prepare(self, messages: Iterable, *, thread: str | None = None) -> str:
        """What to add to the system prompt of this model call ("" for nothing)."""
        messages = list(messages)
        th = self._thread(thread or self.thread_of(messages))
        i, turn = newest_turn(messages)
        human = turn[0] if i >= 0 else None
        turn_id = (getattr(human, "id", None) or text_of(human)) if human is not None else None
        with th.lock:
            if th.started is None:
                first = sum(kind_of(m) == "human" for m in messages) <= 1
                out = _check(th.session.start("startup" if first else "resume"))
                th.started, th.session_id = out.text, out.session_id or th.session_id
            if human is not None and (th.prepared is None or th.prepared[0] != turn_id):
                earlier = previous_turn(messages)
                if earlier and th.recorded != getattr(earlier[-1], "id", None):
                    self._record(th, earlier)  # its post-turn step never ran: record it before the new turn
                out = _check(th.session.before_model(text_of(human), turn=getattr(human, "id", None)))
                th.prepared, th.session_id = (turn_id, out.text), out.session_id or th.session_id
            recalled = th.prepared[1] if human is not None and th.prepared and th.prepared[0] == turn_id else ""
            th.taint = self._taint(th.session_id, turn if human is not None else [])
            return "\n\n".join(p for p in (th.started, recalled) if p)

    def record(self, messages: Iterable, *, thread: str | None = None) -> Outcome:
        """Record the newest turn (from the newest human message on) with provenance."""
        messages = list(messages)
        th = self._thread(thread or self.thread_of(messages))
        with th.lock:
            return self._record(th, newest_turn(messages)[1])

    def _record(self, th: _Thread, turn: list) -> Outcome:
        out = _check(th.session.after_turn(to_host(turn, owner=self.owner, reverie_tools=self.reverie_tools)))
        if out.error is None and turn:
            th.recorded = getattr(turn[-1], "id", None)
        return out

    def before_compaction(self, thread: str, messages: Iterable = ()) -> Outcome:
        """Call before the program trims or summarises a thread's history: records what is not yet
        recorded, runs the pre-compaction flush (once per cycle) and begins the next cycle."""
        th = self._thread(str(thread))
        with th.lock:
            if messages:
                self._record(th, newest_turn(list(messages))[1])
            out = _check(th.session.before_compaction())
            th.started = _check(th.session.start("compact")).text
        return out

    def end(self, thread: str, reason: str = "end") -> Outcome:
        """The thread is over: reverie writes its session note."""
        th = self._thread(str(thread))
        with th.lock:
            out = _check(th.session.end(reason))
        with self._lock:
            self._threads.pop(str(thread), None)
        th.session.close()
        return out

    # -- who writes while a turn runs -------------------------------------------------------------
    def _taint(self, session_id: str | None, turn: list):
        from ...trust import ToolSession
        from ...trust.classes import turn_writer

        taint = ToolSession(turn_writer("owner" if self.owner else "untrusted", KINDS[self.kind][1], session_id))
        for why in read_untrusted(turn, self.reverie_tools):
            taint.observe("untrusted", why)
        return taint

    def _running(self, thread: str | None = None):
        th = self._threads.get(thread or self.thread_of())
        return th.taint if th is not None else None

    def taint_now(self, thread: str | None = None):
        """The running turn's :class:`reverie.trust.ToolSession` (a fresh agent one outside a turn)."""
        return self._running(thread) or self._taint(None, [])

    def writer(self, tool: str | None = None, thread: str | None = None):
        """The provenance of a write made now, inside a turn of a graph run; None outside one."""
        taint = self._running(thread)
        return taint.writer(tool) if taint is not None else None

    # -- the graph's surfaces ---------------------------------------------------------------------
    def pre_model_hook(self, state) -> dict:
        """``create_react_agent(pre_model_hook=...)``, or a node before the model in a graph of your
        own: the model gets ``llm_input_messages``; the state's ``messages`` are left as they are."""
        messages = messages_of(state)
        return {"llm_input_messages": with_system(messages, self.prepare(messages))}

    def post_model_hook(self, state) -> dict:
        """``create_react_agent(post_model_hook=...)``, or a node after the model: records the turn."""
        self.record(messages_of(state))
        return {}

    def middleware(self, *, tools: bool = True):
        """For ``langchain.agents.create_agent(middleware=[...])``, with reverie's tools unless
        ``tools=False``."""
        from .middleware import ReverieMiddleware

        return ReverieMiddleware(self, tools=self.tools() if tools else [])

    def tools(self) -> list:
        """reverie's agent tools as LangChain tools, each run as the turn's writer."""
        from langchain_core.tools import StructuredTool

        out = []
        for tool in self.memory.tools():
            self.reverie_tools.add(tool.name)
            out.append(StructuredTool.from_function(func=_runner(self, tool), name=tool.name,
                                                    description=tool.description, args_schema=tool.schema,
                                                    handle_tool_error=True))
        return out

    @property
    def store(self):
        """LangGraph's store over this memory's home (:class:`ReverieStore`)."""
        if self._store is None:
            from .store import ReverieStore

            self._store = ReverieStore(self.memory, writer=self.writer)
        return self._store

    def close(self) -> None:
        with self._lock:
            threads, self._threads = list(self._threads.values()), OrderedDict()
        for th in threads:
            th.session.close()
        if self._store is not None:
            self._store.close()
        if self.owns_memory:  # connect() opened it
            self.memory.close()


def _runner(gm: GraphMemory, tool):
    def run(**arguments):
        from langchain_core.tools import ToolException

        from ...errors import ReverieError

        try:
            result, _ = gm.taint_now().call(tool, arguments)
        except ReverieError as exc:  # the model reads the one-line reason and can try again
            raise ToolException(str(exc)) from None
        return json.dumps(result, ensure_ascii=False, default=str)

    return run


def with_system(messages: list, text: str) -> list:
    """``messages`` with ``text`` added to their leading system message (or as one)."""
    if not text:
        return list(messages)
    from langchain_core.messages import SystemMessage

    if messages and kind_of(messages[0]) == "system":
        return [SystemMessage(content=f"{text_of(messages[0])}\n\n{text}"), *messages[1:]]
    return [SystemMessage(content=text), *messages]


def _check(out: Outcome) -> Outcome:
    if out.error:  # memory failing never fails the graph: the turn goes on without it
        log.warning("reverie %s: %s", out.step, out.error)
    return out
