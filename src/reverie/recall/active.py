"""Lane 2: Active Memory (reference §10, addendum rows 6-7) -- a bounded recall pass before the reply.

When it runs: ``memory.activeMemory.enabled`` (or ``/active-memory on`` for the session), an
interactive session of the owner, an agent in ``agents`` and a chat type in ``allowedChatTypes``
(default: direct chats only) -- or any direct chat of an agent that remembers across
conversations. ``mode``: ``off``; ``always`` (every such turn); ``escalate`` (default: only when the
message asks about the past, :mod:`.intent_words`, and trigger recall injected nothing).

What it does: a sub-conversation with the recall model (``memory.activeMemory.model``, else the
chat model), which may call only ``memory_search`` and ``memory_get``, over a query built by
``queryMode`` (``message``: the latest message; ``recent``: the last user and assistant turns
within their character budgets; ``full``: the whole conversation; the search query itself is cut
to 480 characters), in a ``promptStyle``. Its answer is ``NONE`` or one compact fact of at most
``maxSummaryChars``; a fact is injected as hidden context framed as untrusted metadata, and only
when everything it was drawn from is ``owner``/``agent`` content (the trust gate).

It never blocks the reply beyond ``timeoutMs``: the pass runs in its own thread, and the turn
waits for it at most that long, then goes on without it (the pass's model call gets the remaining
time as its own timeout, and whatever it returns later is dropped). It shares no lock with the
reply, so it cannot deadlock behind it. ``circuitBreakerMaxTimeouts`` timeouts in a row pause it
for ``circuitBreakerCooldownMs``; identical queries within ``cacheTtlMs`` reuse the last answer.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

from ..trust import RecallItem
from .intent_words import has_recall_intent

MAX_QUERY_CHARS = 480
CACHE_ENTRIES = 1_000
STYLE_BY_QUERY_MODE = {"message": "strict", "recent": "balanced", "full": "contextual"}


@dataclass
class Outcome:
    status: str  # ok | none | timeout | error | skipped | circuit-open
    reason: str = ""
    summary: str = ""
    query: str = ""
    elapsed_ms: float = 0.0
    sources: list[RecallItem] = field(default_factory=list)
    origin: str | None = None
    cached: bool = False

    def line(self) -> str:
        """The status line people see (``/verbose``-style, on stderr and in the transcript)."""
        q = self.query if len(self.query) <= 60 else self.query[:59] + "…"
        extra = f" summary={len(self.summary)} chars" if self.summary else ""
        why = f" ({self.reason})" if self.reason else ""
        return f"active memory: status={self.status} elapsed={self.elapsed_ms:.0f}ms query={q!r}{extra}{why}"

    def as_dict(self) -> dict:
        return {"status": self.status, "reason": self.reason, "summary": self.summary, "query": self.query,
                "elapsedMs": round(self.elapsed_ms, 1), "origin": self.origin, "cached": self.cached,
                "sources": [s.as_dict() for s in self.sources]}


def chat_label(session_key: str, chat_type: str) -> str:
    return "channel" if ":channel:" in session_key else chat_type


def decision(mode: str, message: str, strong_hit: bool) -> str:
    """``recall`` or why not (reference ``resolveRecallEscalationDecision``)."""
    if mode == "off":
        return "mode-off"
    if mode == "always":
        return "recall"
    if strong_hit:
        return "strong-lane-one-hit"
    return "recall" if has_recall_intent(message) else "no-recall-intent"


def _cut(text: str, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


def build_query(cfg, message: str, history: list[tuple[str, str]]) -> tuple[str, str]:
    """(search query, conversation shown to the recall model) for ``cfg.query_mode``. ``history``
    is the conversation before the latest message, oldest first, as (role, text)."""
    mode = cfg.query_mode
    if mode == "message":
        return _cut(message, MAX_QUERY_CHARS), ""
    if mode == "full":
        convo = "\n".join(f"{r}: {' '.join(t.split())}" for r, t in history)
        return _cut((convo + "\n" + message)[-MAX_QUERY_CHARS:], MAX_QUERY_CHARS), convo[-8_000:]
    user_at = [i for i, (r, _) in enumerate(history) if r == "user"]
    helper_at = [i for i, (r, _) in enumerate(history) if r == "assistant"]
    keep = set(user_at[max(0, len(user_at) - cfg.recent_user_turns):] if cfg.recent_user_turns else [])
    keep |= set(helper_at[max(0, len(helper_at) - cfg.recent_assistant_turns):] if cfg.recent_assistant_turns else [])
    lines = []
    for i in sorted(keep):
        r, t = history[i]
        lines.append(f"{r}: {_cut(t, cfg.recent_user_chars if r == 'user' else cfg.recent_assistant_chars)}")
    users = [history[i][1] for i in sorted(keep) if history[i][0] == "user"]
    convo = "\n".join(lines)
    recent_users = " ".join(_cut(t, cfg.recent_user_chars) for t in users)
    # the latest message leads: it is what is asked now (the search query is cut from the end)
    query = _cut(f"{message} {recent_users}".strip(), MAX_QUERY_CHARS)
    return query, convo


class Breaker:
    def __init__(self, max_timeouts: int, cooldown_ms: int):
        self.max = max_timeouts
        self.cooldown = cooldown_ms / 1000
        self.timeouts = 0
        self.open_until = 0.0

    def is_open(self) -> bool:
        return time.monotonic() < self.open_until

    def record(self, timed_out: bool) -> None:
        if not timed_out:
            self.timeouts = 0
            return
        self.timeouts += 1
        if self.timeouts >= self.max:
            self.open_until = time.monotonic() + self.cooldown
            self.timeouts = 0


def run_bounded(fn, timeout_s: float):
    """:func:`reverie.budget.run_bounded`, in the pass's own named thread."""
    from ..budget import run_bounded as bounded

    return bounded(fn, timeout_s, name="reverie-active-memory")


class ActiveMemory:
    """Active Memory of one runtime: its session toggle, cache and circuit breaker."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.toggle: bool | None = None  # /active-memory on|off for this session
        self.breaker = Breaker(cfg.circuit_breaker_max_timeouts, cfg.circuit_breaker_cooldown_ms)
        self._cache: OrderedDict[tuple, tuple[float, Outcome]] = OrderedDict()
        self.last: Outcome | None = None

    @property
    def style(self) -> str:
        return self.cfg.prompt_style or STYLE_BY_QUERY_MODE[self.cfg.query_mode]

    def enabled(self) -> bool:
        return self.toggle if self.toggle is not None else self.cfg.enabled

    def eligibility(self, *, agent: str, label: str, kind: str, owner: bool, across: bool) -> tuple[bool, str]:
        if not self.enabled():
            return False, ("off for this session (/active-memory off)" if self.toggle is False
                           else "off (memory.activeMemory.enabled = false)")
        if kind != "interactive":
            return False, f"never in {kind} sessions"
        if not owner:
            return False, "only on the owner's turns"
        if across and label == "direct":
            return True, "remembers across conversations"
        if agent not in self.cfg.agents:
            return False, f"agent {agent!r} is not in memory.activeMemory.agents"
        if label not in self.cfg.allowed_chat_types:
            return False, f"{label} chats are not in memory.activeMemory.allowedChatTypes"
        return True, "ok"

    def run(self, query: str, pass_fn, scope: tuple = ()) -> Outcome:
        """One bounded pass: ``pass_fn(deadline)`` returns an :class:`Outcome`. ``scope`` (the
        session, its projects, whether it recalls across conversations) is part of the cache key:
        an answer is reused only where it was found."""
        key = (query, self.style, self.cfg.query_mode, *scope)
        now = time.monotonic()
        hit = self._cache.get(key)
        if hit is not None and now - hit[0] <= self.cfg.cache_ttl_ms / 1000:
            cached = Outcome(**{**hit[1].__dict__, "cached": True, "elapsed_ms": 0.0})
            self.last = cached
            return cached
        if self.breaker.is_open():
            out = Outcome("circuit-open", f"{self.cfg.circuit_breaker_max_timeouts} timeouts in a row; paused",
                          query=query)
            self.last = out
            return out
        timeout = self.cfg.timeout_ms / 1000
        t0 = time.monotonic()
        finished, value, error = run_bounded(lambda: pass_fn(t0 + timeout), timeout)
        elapsed = (time.monotonic() - t0) * 1000
        if not finished:
            out = Outcome("timeout", f"no answer within timeoutMs {self.cfg.timeout_ms}", query=query,
                          elapsed_ms=elapsed)
        elif error is not None:
            out = Outcome("error", f"{type(error).__name__}: {error}", query=query, elapsed_ms=elapsed)
        else:
            out = value
            out.elapsed_ms, out.query = elapsed, query
        self.breaker.record(out.status == "timeout")
        if out.status in ("ok", "none"):
            self._cache[key] = (time.monotonic(), out)
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        self.last = out
        return out
