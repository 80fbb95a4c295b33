"""The recall lanes of one conversation, wired into :class:`reverie.runtime.Runtime`.

Before each reply, in order (each fails open: a lane that breaks is skipped with a notice):

1. **startup context** -- the first turn of a new or reset direct session gets today's and
   yesterday's daily notes (:mod:`.startup`); the block stays in the context for the session;
2. **trigger recall** -- curated entries whose trigger phrases the message holds (:mod:`.trigger`);
3. **Active Memory** -- an optional bounded recall pass (:mod:`.active`), which in ``escalate``
   mode stands aside when lane 2 injected something.

Everything they put into the context goes through ``Runtime.inject`` (the trust gate and the recall
mark: the transcript records what was injected, from which file and lines, and why). The runtime
only wires this in; all lane logic lives here.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from ..errors import UserError
from ..sessions.bootstrap import audience_of
from ..trust import RecallItem
from ..trust.framing import recall_block
from . import startup, trigger
from .across import may_recall_across
from .active import ActiveMemory, build_query, chat_label, decision
from .projects import ProjectScope, infer_project

STARTUP_BLOCK = "startup context"


def remembers_across(settings, agent: str) -> bool:
    per_agent = settings.agents.get(agent)
    if per_agent is not None and per_agent.remember_across_conversations is not None:
        return per_agent.remember_across_conversations
    return settings.memory.active_memory.remember_across_conversations


def with_projects(tool, scope: ProjectScope):
    """``memory_search`` that ranks with the session's active projects unless the call names some."""
    inner = tool.handler

    def handler(args: dict) -> dict:
        if args.get("projects") is None and scope.keys:
            args = {**args, "projects": scope.keys}
        return inner(args)

    return replace(tool, handler=handler)


class RecallLanes:
    def __init__(self, rt, projects: list[str] | None = None, cwd: str | Path | None = None):
        self.rt = rt
        mem = rt.memory
        self.settings = mem.settings
        cfg = self.settings.memory.projects
        inferred = infer_project(cwd, cfg.map) if cwd is not None and cfg.infer else None
        self.scope = ProjectScope(projects or [], inferred=inferred)
        self.active = ActiveMemory(self.settings.memory.active_memory)
        self.start_reason = "new"
        self.strong_hit = False
        self.last_trigger: dict | None = None
        self._startup: dict[str, str | None] = {}  # session id -> its startup block ("" none, None undecided)
        self._seen: dict[str, set] = {}
        self._recall_model = None
        self._toggle_read = False

    def install(self) -> None:
        self.rt.lanes.extend([self.startup_lane, self.trigger_lane, self.active_lane])

    # -- shared --------------------------------------------------------------------------------
    @property
    def audience(self) -> str:
        return audience_of(self.rt.chat_type, self.rt.kind)

    def _enabled(self) -> bool:
        return self.rt.memory.switch.enabled

    def on_new_session(self, reason: str) -> None:
        self.start_reason = reason
        self.strong_hit = False

    def _lane_events(self, sid: str, lane: str) -> list[dict]:
        """The session's recall marks of ``lane`` (what it injected), read incrementally."""
        from ..sessions.folds import fold

        def step(found: list, ev) -> None:
            if ev.data.get("event") == "recall" and ev.data.get("lane") == lane:
                found.append(ev.data)

        return list(fold(self.rt.store, sid, f"recall-lane:{lane}", ("system",), list, step))

    # -- 1. startup context --------------------------------------------------------------------
    def startup_lane(self, text: str) -> None:
        sid = self.rt.session.session_id
        if sid not in self._startup:
            block, injected = self._decide_startup(sid)
            self._startup[sid] = block
            if injected:
                return  # Runtime.inject put it into this turn already
        block = self._startup[sid]
        if block and self._enabled():
            self.rt.carry(STARTUP_BLOCK, block)

    def _decide_startup(self, sid: str) -> tuple[str, bool]:
        """(the session's startup block, whether it was injected just now)."""
        # a session that already began (a resumed one) keeps the notes it began with
        for data in self._lane_events(sid, "startup"):
            items = [RecallItem.from_dict(i) for i in data.get("items") or []]
            notes = [i for i in items if (i.path or "").startswith("memory/")]
            if notes:
                return recall_block("startup", notes), False
        sc = self.settings.sessions.startup_context
        users = self.rt.store.events(sid, kinds=("user",))
        if (len(users) > 1 or not sc.enabled or self.start_reason not in sc.apply_on or self.audience != "main"
                or not self._enabled()):
            return "", False
        classes: dict[str, tuple[str, str]] = {}
        notes, _ = startup.load_notes(self.rt.memory.workspace, sc, self.rt.now(), self.rt.tz, self.scope,
                                      admit=lambda rel, text, first: self._admit(rel, text, first, classes),
                                      allow_hard_links=self.settings.search.allow_hard_links)
        items = [RecallItem(n.text, n.path, n.first_line, max(n.first_line, n.last_line),
                            *classes.get(n.path, ("agent", None)),
                            why=f"{n.role} of {n.why} ({n.day}): {n.status}"
                                + (f", {n.raw_chars:,} -> {n.injected_chars:,} chars" if n.truncated else ""),
                            checked=n.path in classes)
                 for n in notes if n.text]
        block = self.rt.inject("startup", items) if items else ""
        return block, bool(block)

    def _admit(self, rel: str, text: str, first: int, classes: dict | None = None) -> tuple[str, int]:
        """The lines of a note the startup context may carry (owner and agent lines); ``classes``
        gets the class of what was kept, by path (the note's other lines do not count against it)."""
        trust = getattr(self.rt.memory, "trust", None)
        if trust is None:
            return text, 0
        kept, dropped, origin, kind = trust.injectable(rel, text, first)
        if classes is not None:
            classes[rel] = (origin, kind)
        return kept, dropped

    # -- 2. trigger recall ----------------------------------------------------------------------
    def trigger_lane(self, text: str) -> None:
        self.strong_hit = False
        cfg = self.settings.memory.trigger_recall
        state = self.rt.memory.switch.state()
        if not (cfg.enabled and state.enabled and state.search_enabled) or self.audience != "main":
            return
        if not self.rt.turn_owner() or not self.rt.memory.workspace.is_dir():
            return
        t0 = time.perf_counter()
        conn, generation = self.rt.memory.index.snapshot()
        sid = self.rt.session.session_id
        seen = self._seen.get(sid)
        if seen is None:
            seen = {trigger.entry_key(i.get("path"), i.get("text") or "") for d in self._lane_events(sid, "trigger")
                    for i in d.get("items") or []}
            self._seen[sid] = seen
        res = trigger.match(conn, generation, text, self.scope, seen=seen, threshold=cfg.threshold,
                            limit=cfg.max_injections)
        items = trigger.items_within(res.matches, cfg.max_chars)
        for m in res.matches:
            seen.add(m.entry.key)
        block = self.rt.inject("trigger", items) if items else ""
        self.strong_hit = bool(block)
        self.last_trigger = {"matched": len(res.matches), "injected": len(items) if block else 0,
                             "leftOutInactiveProject": res.skipped_project, "alreadyInjected": res.skipped_seen,
                             "ms": round((time.perf_counter() - t0) * 1000, 2)}
        if res.skipped_project:
            self.rt.store.append(sid, "system", {
                "event": "trigger-recall", "text": f"trigger recall: {res.skipped_project} matching entr"
                f"{'y' if res.skipped_project == 1 else 'ies'} left out: annotated for a project that is not "
                f"active ({self.scope.describe()})", "leftOut": res.skipped_project}, origin="system")

    # -- 3. Active Memory -----------------------------------------------------------------------
    def _read_toggle(self) -> None:
        """A conversation resumed in a new process keeps its last ``/active-memory on|off``."""
        self._toggle_read = True
        for ev in reversed(self.rt.store.events_of_key(self.rt.key, "command", limit=500)):
            words = (ev.data.get("text") or "").split()
            if ev.data.get("command") == "active-memory" and len(words) > 1 and words[1].lower() in ("on", "off"):
                self.active.toggle = words[1].lower() == "on"
                return

    def active_eligibility(self) -> tuple[bool, str, bool]:
        """(eligible, why, across) for the turn in progress."""
        if not self._toggle_read:
            self._read_toggle()
        state = self.rt.memory.switch.state()
        if not (state.enabled and state.search_enabled):
            return False, "memory is disabled" if not state.enabled else "memory search is disabled", False
        owner = self.rt.turn_owner()
        across = remembers_across(self.settings, self.rt.agent) and may_recall_across(
            self.rt.chat_type, self.rt.kind, owner)[0]
        ok, why = self.active.eligibility(agent=self.rt.agent, label=chat_label(self.rt.key, self.rt.chat_type),
                                          kind=self.rt.kind, owner=owner, across=across)
        return ok, why, across

    def _model(self):
        spec = self.settings.memory.active_memory.model
        if not spec:
            return self.rt.model
        if self._recall_model is None:
            from .. import models

            self._recall_model = models.create(spec, self.settings.chat)
        return self._recall_model

    def active_lane(self, text: str) -> None:
        from .active_pass import recall_tools, run_pass

        ok, why, across = self.active_eligibility()
        if not ok:
            return
        cfg = self.active.cfg
        verdict = decision(cfg.mode, text, self.strong_hit)
        if verdict != "recall":
            self.active.last = None
            return
        sid = self.rt.session.session_id
        history = self.rt.history_pairs()
        query, convo = build_query(cfg, text, history[:-1] if history and history[-1] == ("user", text) else history)
        tools = recall_tools(self.rt.memory, projects=self.scope.keys, across_session=sid if across else None,
                             clock=self.rt.own_clock())
        model, style = self._model(), self.active.style
        out = self.active.run(query, lambda deadline: run_pass(model, tools, style=style,
                                                               max_chars=cfg.max_summary_chars, query=query,
                                                               message=text, convo=convo, deadline=deadline),
                              scope=(sid, tuple(self.scope.keys), across))
        self.rt.store.append(sid, "system", {"event": "active-memory", "text": out.line(), **out.as_dict()},
                             origin="system")
        self.rt.notice(out.line())
        if out.status != "ok":
            return
        src = out.sources[0] if len(out.sources) == 1 else None
        cites = ", ".join(f"{s.path}#L{s.start_line}" if s.start_line else str(s.path) for s in out.sources)
        item = RecallItem(out.summary, src.path if src else None, src.start_line if src else None,
                          src.end_line if src else None, out.origin or "untrusted",
                          why=f"Active Memory ({cfg.mode}, {style}, {out.elapsed_ms:.0f} ms) from {cites or 'memory'}")
        self.rt.inject("active-memory", [item])

    # -- commands and reports -------------------------------------------------------------------
    def command(self, name: str, arg: str) -> str:
        if name == "project":
            word = arg.strip()
            if not word:
                return f"Active projects: {self.scope.describe()}. /project <key> adds one; /project clear."
            if word.lower() in ("clear", "none", "off"):
                self.scope.clear()
                return "No active project now: entries annotated for a project stay out of recall."
            try:
                key = self.scope.activate(word)
            except UserError as exc:  # a bad key is a reply, never the end of the chat
                return f"Not changed: {exc}."
            return f"Active projects: {', '.join(self.scope.keys)} ({key} most recent)."
        word = arg.strip().lower() or "status"
        if word in ("on", "off"):
            self._toggle_read = True
            self.active.toggle = word == "on"  # the command event the runtime recorded keeps it
            return f"Active Memory is {word} for this session."
        if word != "status":
            return "Usage: /active-memory on|off|status"
        return self.active_status()

    def active_status(self) -> str:
        ok, why, across = self.active_eligibility()
        cfg = self.active.cfg
        parts = [f"Active Memory: {'on' if self.active.enabled() else 'off'}"
                 + (" (this session)" if self.active.toggle is not None else ""),
                 f"mode {cfg.mode}, queryMode {cfg.query_mode}, style {self.active.style}, "
                 f"timeout {cfg.timeout_ms} ms, max {cfg.max_summary_chars} chars",
                 "runs on this session's turns" if ok else f"does not run here: {why}",
                 f"across conversations: {'yes' if across else 'no'}"]
        if self.active.last is not None:
            parts.append("last: " + self.active.last.line())
        return "; ".join(parts) + "."

    def report(self) -> dict:
        sid = self.rt.session.session_id
        events = []
        for ev in self.rt.store.events(sid, kinds=("system",)):
            d = ev.data
            if d.get("event") == "recall" and d.get("auto"):
                events.append({"position": ev.position, "lane": d.get("lane"), "text": d.get("text"),
                               "items": [{k: i.get(k) for k in ("path", "lines", "why", "originClass")}
                                         for i in d.get("items") or []],
                               "refused": d.get("refused") or []})
            elif d.get("event") in ("active-memory", "trigger-recall"):
                events.append({"position": ev.position, "lane": d.get("event"), "text": d.get("text")})
        cut = [i.get("path") for d in self._lane_events(sid, "startup") for i in d.get("items") or []
               if (i.get("path") or "").startswith("memory/") and any(w in (i.get("why") or "")
                                                                      for w in ("truncated", "clamped"))]
        ok, why, across = self.active_eligibility()
        return {"projects": self.scope.keys, "startupNotesCut": cut, "projectsInferred": self.scope.inferred.how if self.scope.inferred else None,
                "audience": self.audience, "startReason": self.start_reason,
                "trigger": self.last_trigger, "activeMemory": {"on": self.active.enabled(), "runsHere": ok,
                                                              "why": why, "acrossConversations": across,
                                                              "mode": self.active.cfg.mode},
                "events": events[-40:]}
