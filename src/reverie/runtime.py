"""The per-agent runtime: runs conversation turns over one agent's memory.

A user turn: record the message; match standing intents (no model call, fails open); assemble the
model input (system prompt with the Memory Recall section, workspace files, the compaction
summary, the active messages pruned in the input only, the tools); flush to today's note first
when the context nears compaction; call the model and run its tool calls (at most
``sessions.maxToolRounds`` rounds; a call to a tool that was not offered is refused and recorded);
record every event as it happens; compact after the turn when the context passes window −
reserve, and on a context-overflow error (compact, retry, at most 3 times).

Every compaction path runs the pre-compaction flush first when this cycle has not had one
(openclaw #114081: the overflow path never flushed).

Trust (docs/trust.md): every event is recorded with its origin class -- the owner's messages
``owner``, a non-owner's (or a hook's) ``untrusted``, cron and heartbeat preambles ``system``, the
agent's words ``agent`` until the turn reads something untrusted (a tool declared
``origin="untrusted"``, an untrusted memory hit), after which everything it says and writes until
the end of the turn is ``untrusted``. A non-owner in a group or channel makes the session low-trust
(every turn starts untrusted). Memory enters the context only through :meth:`Runtime.inject`,
which records a recall mark; the flush, the session-memory hook and the transcript search index
strip what was recalled. Commands: ``/new`` and ``/reset`` (a new
session id for the same key; the session-memory hook writes the previous one in the background),
``/compact [instructions]``, ``/context [list|detail]``, ``/help``.
"""

from __future__ import annotations

import inspect
import json
import os
import time
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, Callable

from . import models
from .errors import ReverieError
from .intents.model import LOCAL_OWNER  # the owner at this machine's terminal (re-exported here)
from .models.base import ChatMessage, ChatModel, ChatModelError, ContextOverflowError, ToolCall
from .models.offline import SLUG_SYSTEM_PREFIX
from .sessions import (MAX_OVERFLOW_COMPACTION_ATTEMPTS, ActiveContext, ModelInput, Pruner, SessionMemoryHook,
                       SessionRow, TranscriptStore, active_context, build_input, channel_of, chat_type_of,
                       normalize_key, resolve_mode, run_flush, split_for_compaction, summarize, window_plan)
from .sessions.compaction import entries_for_summary
from .sessions.flush import FlushResult, is_no_reply
from .sessions.recall_marks import RecallLedger, context_origin, written_from
from .chat_commands import COMMANDS, HELP, parse_command, run_command  # noqa: F401 (re-exported)
from .tools.base import Tool
from .trust import (RECALL_TOOLS, Provenance, RecallItem, ToolSession, frame_result, items_from_result,
                    session_kind_of, strip_recalled)
from .trust.framing import recall_block
from .recall.lanes import RecallLanes, with_projects
from .recall.startup import entry_filter
from .recall.switch import guard_tool
from .trust.classes import check_kind, sender_origin, turn_writer
from .sessions.turn import TurnResult  # noqa: F401 (its home is below the hosts; reverie.runtime.TurnResult stays)

class Runtime:
    """One conversation of one agent (a session key), across its sessions."""

    def __init__(self, memory, model: ChatModel | str | None = None, *, session_key: str | None = None,
                 chat_type: str | None = None, channel: str | None = None, sender: str | None = None,
                 owner: bool = True, context_window: int | None = None,
                 clock: Callable[[], datetime] | None = None, origin: str = "chat",
                 session_kind: str | None = None, hook_source: str | None = None, tools: list[Tool] | None = None,
                 projects: list[str] | None = None, cwd: str | os.PathLike | None = None):
        self.memory = memory
        self.settings = memory.settings
        self.agent = memory.places.agent
        chat = self.settings.chat
        self.model = model if isinstance(model, ChatModel) else models.create(model or chat.model, chat)
        self.window = int(context_window or chat.context_window or self.model.context_window)
        self.plan = window_plan(self.window, self.settings.compaction)
        self.key = normalize_key(session_key, self.agent)
        self.chat_type = chat_type or chat_type_of(self.key)
        self.channel = channel or channel_of(self.key)
        self.sender = sender
        self.owner = owner
        self.origin = origin  # chat | cron: recorded on each session this runtime starts
        # what kind of session this is: stated by the host, else implied by the key (cron:..)
        self.kind = check_kind(session_kind) if session_kind else session_kind_of(self.key)
        self.hook_source = hook_source  # a session fed by an external content hook (gmail, webhook)
        # host tools (web fetch, mail...): outside content unless the host says otherwise
        self.extra_tools = [t if t.origin else replace(t, origin="untrusted") for t in tools or []]
        self._turn: tuple[str | None, bool] | None = None  # (sender, owner) of the turn in progress
        self._taint: ToolSession | None = None
        self._turn_blocks: list[tuple[str, str]] | None = None  # blocks injected into this turn
        # Recall lanes run before each reply (trigger recall, Active Memory): each gets the user's
        # text and puts what it finds into the turn with self.inject(lane, items). Fail open.
        self.lanes: list[Callable[[str], Any]] = []
        self._result: TurnResult | None = None
        # startup context, trigger recall, Active Memory (reverie.recall); projects: the active set,
        # cwd: the folder whose repository is the inferred project
        self.recall_lanes = RecallLanes(self, projects, cwd)
        self.recall_lanes.install()
        self.projects = self.recall_lanes.scope
        self.tz = self.settings.tz()
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        self._given_clock = clock  # a clock of its own (a replayed conversation), or None
        self.store = TranscriptStore(memory.agent_store)
        mode, ttl = resolve_mode(self.settings.sessions.pruning, self.model.provider)
        self.pruner = Pruner(self.settings.sessions.pruning, mode, ttl)
        hook = self.settings.sessions.memory_hook
        self.hook = SessionMemoryHook(memory.agent_store, memory.workspace, self.tz, messages=hook.messages,
                                      slug_fn=self._slug if hook.llm_slug else None, enabled=hook.enabled,
                                      writable=self._writable()[0], on_written=self._index_note)
        self._session: SessionRow | None = None
        self.recall = RecallLedger(self.store, memory.trust if hasattr(memory, "trust") else None)
        self._maintenance: dict[str, ChatModel] = {}
        self.last_input: ModelInput | None = None

    # -- pieces ---------------------------------------------------------------------------------
    def now(self) -> datetime:
        return self._clock().astimezone(self.tz)

    def own_clock(self):
        """This conversation's clock when it runs on one of its own (else None: the wall clock)."""
        return self._given_clock

    def said_at(self) -> int | None:
        """When a message is recorded (ms): the transcript's own clock, unless this conversation runs
        on a clock of its own (a host replaying its history, a benchmark's month), whose time its
        messages then carry, as its notes do: what was said is ordered by when it was said."""
        clock = self.own_clock()
        return int(clock().timestamp() * 1000) if clock is not None else None

    @property
    def session(self) -> SessionRow:
        """The open session of this key (resumed, or started on first use); re-read each time."""
        if self._session is not None:
            row = self.store.session(self._session.session_id)
            if row is not None and row.ended_at is None:
                self._session = row
                return row
        row = self.store.current_session(self.key)
        if row is None:
            row = self.store.start_session(
                self.key, chat_type=self.chat_type, channel=self.channel, sender=self.sender, origin=self.origin,
                model=f"{self.model.provider}:{self.model.model}", session_kind=self.kind,
                hook_source=self.hook_source)
        # a session started or resumed: bring the index up to date, never waiting; a warm process
        # that starts many sessions (a server following hosts) needs it at most once in a few seconds
        self.memory.resync_in_background()
        self._session = row
        return row

    def _maintenance_model(self, which: str) -> ChatModel:
        spec = (self.settings.compaction.memory_flush.model if which == "flush" else self.settings.compaction.model)
        if not spec:
            return self.model
        if which not in self._maintenance:
            self._maintenance[which] = models.create(spec, self.settings.chat)
        return self._maintenance[which]

    def writable(self) -> tuple[bool, str | None]:
        """Whether this conversation may write to the workspace, and why not."""
        return self._writable()

    def _writable(self) -> tuple[bool, str | None]:
        access = self.settings.sessions.workspace_access
        if access != "rw":
            return False, f"workspace is read-only (sessions.workspaceAccess = {access})"
        probe = self.memory.workspace
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if not os.access(probe, os.W_OK):
            return False, f"workspace is not writable ({probe})"
        return True, None

    def tools(self) -> list[Tool]:
        """What a turn offers: the memory tools (``Memory.tools()``, all of them) plus
        sessions_search and sessions_history; nothing that writes when the workspace is read-only."""
        from .tools.sessions import sessions_tools

        tools_fn = self.memory.tools
        ctx = self._turn_context()
        try:
            params = inspect.signature(tools_fn).parameters
        except (TypeError, ValueError):
            params = {}
        clock = self.own_clock()
        kw = {"clock": clock} if clock is not None and "clock" in params else {}
        tools = list(tools_fn(ctx, **kw) if ctx is not None and "context" in params else tools_fn(**kw))
        tools += sessions_tools(self.store, lambda: self.session, visibility=self.settings.sessions.visibility,
                                owner=lambda: self._identity()[1])
        # memory.enabled = false: every memory and transcript tool refuses on its next call
        tools = [guard_tool(with_projects(t, self.projects) if t.name == "memory_search" else t, self.memory.switch)
                 for t in tools] + self.extra_tools
        if not self._writable()[0]:
            tools = [t for t in tools if t.read_only]
        tools = [self.recall.no_resave(t, lambda: self.session.session_id) if t.name == "memory_append" else t
                 for t in tools]
        seen: dict[str, Tool] = {}
        for t in tools:
            seen.setdefault(t.name, t)
        return list(seen.values())

    def _turn_context(self):
        try:
            from .intents import TurnContext
        except Exception:  # the intents package is optional here
            return None
        # The local owner at the terminal is an identified sender too: without one, the owner was
        # offered the intent tool but every create was refused for a missing sender identity.
        sender, owner = self._identity()
        sender = sender or (LOCAL_OWNER if owner else None)
        return TurnContext(channel=self.channel, sender=sender, conversation=self.key, owner=owner,
                           session=self._session.session_id if self._session else None)

    def _identity(self) -> tuple[str | None, bool]:
        """(sender, owner) of the message being answered (a group turn may come from anyone)."""
        return self._turn if self._turn is not None else (self.sender, self.owner)

    def _build(self, defs: list[dict], extra: list[tuple[str, str]] | None = None,
               ctx: ActiveContext | None = None) -> ModelInput:
        ctx = ctx or active_context(self.store, self.session.session_id)
        inp = build_input(agent=self.agent, now=self.now(), workspace=self.memory.workspace, chat_type=self.chat_type,
                          bootstrap_settings=self.settings.sessions.bootstrap, ctx=ctx, tools=defs,
                          pruner=self.pruner, window=self.window, clock=time.monotonic(), extra_blocks=extra,
                          allow_hard_links=self.settings.search.allow_hard_links, admit=self._admit,
                          session_kind=self.kind, entries=entry_filter(self.projects),
                          memory_enabled=self.memory.switch.enabled)
        self.recall.mark_startup(self.session.session_id, inp.bootstrap)
        return inp

    def _admit(self, name: str, text: str) -> str:
        """Startup files keep only the lines an automatic lane may inject (owner/agent)."""
        trust = getattr(self.memory, "trust", None)
        return trust.injectable_lines(name, text)[0] if trust is not None else text

    # -- turns ----------------------------------------------------------------------------------
    def send(self, text: str, *, sender: str | None = None, owner: bool | None = None) -> TurnResult:
        """One line from the user: a command or a message. Never raises for model or tool failures.

        ``sender``/``owner`` describe who wrote this line when it is not the runtime's own sender
        (group and channel chats): a non-owner's words are ``untrusted``."""
        stripped = (text or "").strip()
        turn_owner = self.owner if owner is None else bool(owner)
        cmd = parse_command(stripped)
        if cmd is not None and turn_owner:  # only the owner runs commands; others are just talking
            return run_command(self, cmd[0], cmd[1], stripped)
        if not stripped:
            return TurnResult(text, session_id=self.session.session_id)
        self._turn = (sender if sender is not None else self.sender, turn_owner)
        try:
            return self._user_turn(text)
        finally:
            self._turn = None
            self._taint = None

    # -- trust -----------------------------------------------------------------------------------
    def sender_origin(self, owner: bool) -> str:
        """The class of a user message in this session."""
        return sender_origin(self.kind, owner, hook_source=self.hook_source)

    def inject(self, lane: str, items: list[RecallItem], *, into_context: bool | None = None) -> str:
        """The one way memory enters the model's context (startup files, recall tool results,
        standing intents, and the recall lanes: trigger recall, Active Memory).

        Records a recall mark (lane, path, lines, text) in the transcript, so that what was
        recalled is stripped before the flush, the session-memory hook or transcript indexing
        see the conversation. Automatic lanes (``trust.AUTO_LANES``) admit only owner/agent items;
        the admitted ones are returned as one ``<recalled-memory>`` block and, during a turn,
        added to the model input of that turn. ``into_context=False`` only records (a tool result
        that is already in the context)."""
        sid = self.session.session_id
        marked = self.recall.mark(sid, lane, items, auto=into_context)
        if into_context is False or not marked.admitted:
            return ""
        block = recall_block(lane, marked.admitted)
        if self._turn_blocks is not None:
            self._turn_blocks.append((lane, block))
        return block

    # -- what the recall lanes use (reverie.recall.lanes) ---------------------------------------------
    def notice(self, line: str) -> None:
        """A one-line notice for people about the turn in progress."""
        if self._result is not None:
            self._result.notices.append(line)

    def carry(self, name: str, block: str) -> None:
        """Keep a block injected earlier in this session (already marked) in this turn's context."""
        if self._turn_blocks is not None and block:
            self._turn_blocks.append((name, block))

    def turn_owner(self) -> bool:
        return self._identity()[1]

    def history_pairs(self) -> list[tuple[str, str]]:
        """The active conversation as (role, text), user and assistant messages with text."""
        return [(ev.kind, ev.text) for ev in active_context(self.store, self.session.session_id).events
                if ev.kind in ("user", "assistant") and (ev.text or "").strip()]

    def prepare_turn(self, text: str, result: TurnResult, **recorded: Any) -> list[tuple[str, str]]:
        """Everything before the model call of a user turn, for this runtime's own loop and for a
        host that owns its loop (reverie.sidecar): record the message (``recorded``: more fields
        for its event, such as the host's id for it), start the turn's taint, match standing
        intents, run the recall lanes. Returns the blocks to put into this turn's model input."""
        sid = self.session.session_id
        sender, owner = self._identity()
        origin = self.sender_origin(owner)
        self.store.append_message(sid, "user", ChatMessage("user", text), sender=sender, channel=self.channel,
                                  origin=origin, at=self.said_at(), **recorded)
        self.store.add_participant(sid, sender or (LOCAL_OWNER if owner else None))
        if origin == "untrusted" and self.chat_type == "group":
            self.store.mark_low_trust(sid)  # a non-owner spoke in a group: the session stays low-trust
        row = self.session
        self._taint = ToolSession(turn_writer(origin, self.kind, row.session_id, low_trust=bool(row.low_trust)))
        self._turn_blocks, self._result = [], result
        self._intent_blocks(text, result)
        from .budget import embed_budget

        # a search of these lanes never waits seconds for the embedder (loading, or slow): keyword-only
        with embed_budget(self.settings.memory.active_memory.embed_budget_ms / 1000) as degraded:
            for lane in self.lanes:
                try:
                    lane(text)
                except Exception as exc:  # a recall lane never blocks a reply
                    result.notices.append(f"recall lane skipped: {type(exc).__name__}: {exc}")
        result.notices += degraded
        return self._turn_blocks

    def _user_turn(self, text: str) -> TurnResult:
        result = TurnResult(text, session_id=self.session.session_id)
        extra = self.prepare_turn(text, result)
        writable, why = self._writable()
        if not writable:
            # Without this the model may answer "noted" to "remember ..." with no tool to save it
            extra.append(("memory is read-only", f"Memory cannot be written in this conversation ({why}). If "
                          "the user asks you to remember or note something, say plainly that it was NOT saved."))
        tools = self.tools()
        defs = [t.openai() for t in tools]
        self._maybe_flush(self._build(defs, extra), result)
        self._loop(tools, defs, extra, result)
        if self._taint.reasons:
            result.notices.append("this turn read untrusted content (" + "; ".join(self._taint.reasons)
                                  + "): what it wrote is classed untrusted")
        self._turn_blocks = self._result = None
        if self.plan.compaction_enabled:
            after = self._build(defs, extra)
            if after.tokens > self.plan.compaction_threshold:
                self.compact("threshold", result=result)
        return result

    def _intent_blocks(self, text: str, result: TurnResult) -> list[tuple[str, str]]:
        match = getattr(self.memory, "match_intents", None)
        ctx = self._turn_context()
        if match is None or ctx is None or not self.memory.switch.enabled:
            return []
        try:
            out = match(text, ctx)
        except Exception as exc:  # standing intents fail open: nothing injected
            result.notices.append(f"standing intents skipped: {exc}")
            return []
        block = getattr(out, "block", "")
        if getattr(out, "fired", None):
            self.store.append(self.session.session_id, "system",
                              {"text": "standing intents fired", "event": "intents", "fired": out.fired})
            for fired in out.fired:  # the person sees it fired, whatever the model makes of it
                result.notices.append(f"standing intent fired: {' '.join(str(fired.get('description')).split())}"
                                      f" ({fired.get('id')}, {fired.get('status')})")
        if block:
            # the owner's standing intents, worded by the agent that created them
            self.recall.mark(self.session.session_id, "intents", [RecallItem(block, origin="agent")], auto=True)
            if self._turn_blocks is not None:
                self._turn_blocks.append(("standing intents", block))
        return [("standing intents", block)] if block else []

    def _loop(self, tools: list[Tool], defs: list[dict], extra, result: TurnResult) -> None:
        by_name = {t.name: t for t in tools}
        chat = self.settings.chat
        max_rounds = self.settings.sessions.max_tool_rounds
        rounds = overflows = 0
        sid = self.session.session_id
        while True:
            offer = defs if rounds < max_rounds else []
            inp = self._build(offer, extra)
            self.last_input = inp
            try:
                resp = self.model.complete(inp.messages, offer or None, timeout=chat.timeout_seconds,
                                           max_tokens=chat.max_output_tokens)
            except ContextOverflowError as exc:
                overflows += 1
                self.store.append(sid, "system", {"text": f"context overflow: {exc}", "event": "overflow",
                                                  "attempt": overflows, "tokens": inp.tokens})
                if overflows > MAX_OVERFLOW_COMPACTION_ATTEMPTS:
                    result.error = f"context overflow after {MAX_OVERFLOW_COMPACTION_ATTEMPTS} compactions: {exc}"
                    result.reply = ("[The conversation is still too long for the model after compacting "
                                    f"{MAX_OVERFLOW_COMPACTION_ATTEMPTS} times. Start a new session with /new.]")
                    return
                self.compact("overflow", result=result, attempt=overflows)
                continue
            except ChatModelError as exc:
                self.store.append(sid, "system", {"text": f"model error: {exc}", "event": "model-error"})
                result.error = str(exc)
                result.reply = f"[model error: {exc}]"
                return
            usage = resp.usage
            self.store.add_usage(sid, usage.input_tokens, usage.output_tokens,
                                 max(usage.input_tokens, inp.tokens) + usage.output_tokens)
            msg = resp.message
            meta = {"model": resp.model or self.model.model, "usage": {"input": usage.input_tokens,
                                                                        "output": usage.output_tokens}}
            said = self._agent_origin()
            if not msg.tool_calls:
                self.store.append_message(sid, "assistant", msg, origin=said, at=self.said_at(), **meta)
                if is_no_reply(msg.content):
                    result.suppressed = True
                else:
                    result.reply = msg.content
                return
            self.store.append_message(sid, "tool_call", msg, origin=said, at=self.said_at(), **meta)
            for call in msg.tool_calls:
                result.tool_calls.append(call.name)
                out, refused, origin = self._run_tool(by_name if offer else {}, call)
                content = json.dumps(out, ensure_ascii=False, default=str)
                self.store.append_message(sid, "tool_result", ChatMessage("tool", content, tool_call_id=call.id,
                                                                          name=call.name), refused=refused,
                                          origin=origin, at=self.said_at())
                if call.name in RECALL_TOOLS and not refused:
                    self.inject(call.name, items_from_result(call.name, out), into_context=False)
            rounds += 1
            if not offer:  # the model asked for tools after the last allowed round
                self.store.append(sid, "system", {"text": f"tool round limit ({max_rounds}) reached",
                                                  "event": "tool-limit"})
                result.reply = msg.content or f"[stopped: the limit of {max_rounds} tool rounds was reached]"
                return

    def _agent_origin(self) -> str:
        """The class of what the agent says now: agent, or less once the turn read something."""
        return self._taint.writer().origin if self._taint is not None else "agent"

    def _run_tool(self, by_name: dict[str, Tool], call: ToolCall) -> tuple[dict, bool, str]:
        """(result, refused, origin class of the result) -- the call runs with the turn's taint."""
        tool = by_name.get(call.name)
        if tool is None:
            return {"error": f"tool {call.name!r} is not available in this turn", "refused": True}, True, "system"
        taint = self._taint or ToolSession(Provenance("agent", self.kind, self.session.session_id, "agent"))
        try:
            out, origin = taint.call(tool, call.arguments)
            return out, False, origin
        except ReverieError as exc:
            out = {"error": str(exc)}
        except Exception as exc:  # a tool bug must not end the conversation
            out = {"error": f"internal error in {call.name}: {type(exc).__name__}: {exc}"}
        # an outside tool's error text is outside content too
        origin = tool.origin or "agent"
        taint.observe(origin, call.name)
        return (frame_result(out, call.name) if origin == "untrusted" else out), False, origin

    # -- flush and compaction -------------------------------------------------------------------
    def _maybe_flush(self, inp: ModelInput, result: TurnResult) -> FlushResult | None:
        row = self.session
        if not self.plan.flush_enabled or row.flushed_this_cycle or not self.memory.switch.enabled:
            return None
        trigger = None
        if self.plan.flush_threshold > 0 and inp.tokens >= self.plan.flush_threshold:
            trigger = "tokens"
        elif self.plan.force_flush_bytes and row.transcript_bytes >= self.plan.force_flush_bytes:
            trigger = "bytes"
        if trigger is None:
            return None
        return self.flush(trigger, result=result, inp=inp)

    def flush(self, trigger: str = "manual", *, result: TurnResult | None = None,
              inp: ModelInput | None = None) -> FlushResult:
        """Run the pre-compaction flush now and record its status (whatever it is)."""
        row = self.session
        if inp is None:
            inp = self._build([t.openai() for t in self.tools()])
        pool = self.recall.pool(row.session_id)
        # The flush sees no workspace files and no injected blocks, and its appends are recorded
        # with the least trusted class of the conversation it reads (flush quarantine).
        fr = run_flush(self._maintenance_model("flush"), inp.history, strip_recalled(inp.core_system, pool),
                       workspace=self.memory.workspace, tz=self.tz, now=self.now(),
                       timeout=self.settings.compaction.memory_flush.timeout_seconds, trigger=trigger,
                       writable=self._writable(), agent_db=self.memory.agent_store,
                       provenance=Provenance(context_origin(self.store, row.session_id), self.kind, row.session_id,
                                             "flush"), recall=pool)
        if fr.path:
            self._index_note(self.memory.workspace / fr.path)
        self.store.append(row.session_id, "flush", {**fr.as_dict(), "text": fr.line(), "tokens": inp.tokens,
                                                     "compactionCount": row.compaction_count}, origin=fr.origin)
        self.store.update_session(row.session_id, memory_flush_at=int(time.time() * 1000),
                                  memory_flush_compaction_count=row.compaction_count)
        if result is not None:
            result.flush = fr.as_dict()
            result.notices.append(f"memory flush ({trigger}): {fr.line()}")
        return fr

    def _index_note(self, path) -> None:
        """A note this conversation wrote (a flush, the session note) is indexed at once, like one
        written with ``memory_append``: a search right after finds it, and what a search right after
        returns never depends on when the index next looks for changed files."""
        index = getattr(self.memory, "_index_own_write", None)
        if index is not None:
            index(path)

    def _said_since_last_flush(self, row: SessionRow) -> bool:
        """Whether a message arrived after the last flush: repeated overflow compactions within one
        turn would otherwise ask the model to save the very same messages again."""
        last = self.store.latest_event(row.session_id, "flush")
        if last is None:
            return True
        newest = self.store.latest_event(row.session_id, "user")
        return newest is not None and newest.position > last.position

    def compact(self, reason: str = "manual", *, instructions: str | None = None, result: TurnResult | None = None,
                attempt: int = 0) -> dict:
        """Summarise the older messages; returns the compaction record (status ``nothing`` when
        everything already fits in the recent window)."""
        row = self.session
        defs = [t.openai() for t in self.tools()]
        # Every message about to be summarised has been through a flush: the cycle's flush may have
        # run turns ago (or never, on the overflow path), so flush again when anything was said
        # since; the flush tool never appends a note twice.
        if self.plan.flush_enabled and self._said_since_last_flush(row):
            self.flush("compaction", result=result)
            row = self.session
        ctx = active_context(self.store, row.session_id)
        before = self._build(defs, ctx=ctx)
        # What the prompt holds besides messages (system prompt, workspace files, tools) is fixed;
        # of what is left under the threshold, a quarter goes to the summary and at most a quarter
        # to the recent messages, so a compaction frees half of it and does not repeat next turn.
        fixed = before.tokens - before.message_tokens - before.summary_tokens
        available = max(0, self.plan.compaction_threshold - fixed)
        keep = max(1, min(self.plan.keep_recent, available // 4) >> attempt)
        older, kept = split_for_compaction(ctx.events, keep)
        while not older and reason != "threshold" and keep > 1 and len(ctx.events) > 1:
            keep //= 2
            older, kept = split_for_compaction(ctx.events, keep)
        if not older:
            out = {"status": "nothing", "reason": "nothing older than the recent messages to summarise",
                   "tokensBefore": before.tokens}
            if result is not None:
                result.compactions.append(out)
            return out
        budget = max(128, min(4_000, available // 4))
        chunk = max(512, self.plan.compaction_threshold - budget - 1_000)
        sr = summarize(self._maintenance_model("compaction"), ctx.summary, entries_for_summary(older),
                       instructions=instructions, budget_tokens=budget, chunk_tokens=chunk,
                       timeout=self.settings.compaction.timeout_seconds)
        after = self._build(defs, ctx=ActiveContext(sr.summary, None, kept))
        record = {"status": "compacted", "summary": sr.summary, "firstKeptPosition": kept[0].position,
                  "firstKeptEventId": kept[0].event_id, "tokensBefore": before.tokens, "tokensAfter": after.tokens,
                  "reason": reason, "instructions": instructions or None, "summarizer": sr.summarizer,
                  "summarizerError": sr.error, "summarisedMessages": len(older),
                  "summarisedFrom": older[0].position, "summarisedTo": older[-1].position,
                  "keptMessages": len(kept), "keepRecentTokens": keep, "compactionNumber": row.compaction_count + 1}
        self.store.append(row.session_id, "compaction", record, origin=written_from(older, ctx.compaction))
        self.store.update_session(row.session_id, compaction_count=row.compaction_count + 1,
                                  total_tokens=after.tokens, total_tokens_fresh=0)
        if result is not None:
            result.compactions.append(record)
            result.notices.append(f"compacted ({reason}): {len(older)} message(s) summarised by {sr.summarizer}; "
                                  f"{before.tokens:,} -> {after.tokens:,} tokens")
        return record

    # -- commands -------------------------------------------------------------------------------
    def new_session(self, reason: str = "new", *, result: TurnResult | None = None) -> SessionRow:
        """End the current session (its transcript stays) and start a new one for the same key; the
        session-memory hook writes the previous one in the background."""
        old = self.session
        self.store.end_session(old.session_id, reason)
        if self.memory.switch.enabled:  # memory switched off: no session note either
            self.hook.fire(old.session_id, reason, self.now())
        self.recall_lanes.on_new_session(reason)
        self.pruner.reset()
        self.recall.reset()
        self._session = None
        new = self.session
        if result is not None:
            result.session_id = new.session_id
            result.notices.append(f"session {old.session_id[:8]} ended; new session {new.session_id[:8]}")
        return new

    def context_report(self, *, detail: bool = False) -> dict:
        """What goes into the model input now (or went into the last call), and every flush."""
        inp = self._build([t.openai() for t in self.tools()])
        row = self.session
        flushes = [{"at": ev.created_at, "sessionId": ev.session_id, "status": ev.data.get("status"),
                    "trigger": ev.data.get("trigger"), "reason": ev.data.get("reason"), "path": ev.data.get("path"),
                    "appended": len(ev.data.get("appended") or []), "refused": ev.data.get("refused") or [],
                    "line": ev.data.get("text")} for ev in self.store.events_of_key(self.key, "flush")]
        return {"model": f"{self.model.provider}:{self.model.model}", "session": row.as_dict(),
                "plan": self.plan.as_dict(), "input": inp.report(self.window, detail=detail),
                "flushedThisCycle": row.flushed_this_cycle, "flushes": flushes,
                "sessionNotes": list(self.hook.results), "recall": self.recall_lanes.report()}

    def _slug(self, messages: list[tuple[str, str]]) -> str:
        text = "\n".join(f"{r}: {t}" for r, t in messages[:6])[:4000]
        resp = self.model.complete([ChatMessage("system", f"{SLUG_SYSTEM_PREFIX} Answer with a 1-4 word lowercase "
                                                          "slug naming the topic of this conversation, words joined "
                                                          "by hyphens, nothing else."),
                                    ChatMessage("user", text)], None, timeout=30)
        return resp.message.content

    # -- lifetime -------------------------------------------------------------------------------
    def wait_for_hooks(self, timeout: float | None = 30.0) -> bool:
        return self.hook.wait(timeout)

    def close(self, timeout: float = 30.0) -> None:
        self.hook.wait(timeout)
        self.store.close()

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
