"""Looking at Dreaming without changing anything: ``reverie dream status`` and
``reverie promote-explain KEY|PATH:LINE``. Both open the agent database read-only and create
nothing."""

from __future__ import annotations

import re
from datetime import datetime

from ..errors import UserError
from .candidates import rehydrate, trust_candidate
from .memoryfile import entry_key_for, marker_keys
from .promote import _budget, memory_path
from .ranking import Thresholds, rank, score_entry
from .state import load, open_readonly


def _view(mem):
    conn = open_readonly(mem.agent_store)
    try:
        return load(conn)
    finally:
        if conn is not None:
            conn.close()


def _now_s(mem, now: datetime | None) -> int:
    return int((now or datetime.now(mem.settings.dreaming_tz())).timestamp())


def status(mem, now: datetime | None = None) -> dict:
    cfg = mem.settings.memory.dreaming
    view = _view(mem)
    deep = cfg.phases.deep
    th = Thresholds.from_settings(deep)
    ranked = rank(list(view.entries.values()), view.phases, _now_s(mem, now), th, deep.weights.model_dump())
    ready = [r for r in ranked if r.passed and r.entry.promoted_at is None]
    path = memory_path(mem.workspace)
    size = len(path.read_text(encoding="utf-8", errors="replace")) if path.is_file() else 0
    from .preimages import listing
    from .schedule import managed_jobs

    jobs = managed_jobs(mem)
    return {
        "enabled": cfg.enabled, "frequency": cfg.frequency,
        "timezone": str(mem.settings.dreaming_tz()), "model": cfg.model or mem.settings.chat.model,
        "lastSweep": view.state.get("lastSweep"), "lastHeartbeatReview": view.state.get("lastHeartbeatReview"),
        "store": {"entries": len(view.entries), "promoted": sum(1 for e in view.entries.values() if e.promoted_at),
                  "recalled": sum(1 for e in view.entries.values() if e.recall_count),
                  "readyToPromote": len(ready)},
        "next": [{"key": r.key, "snippet": r.entry.snippet[:120], "score": round(r.score, 4)} for r in ready[:10]],
        "thresholds": th.as_dict(),
        "memory": {"path": str(path), "chars": size, "budget": _budget(mem.settings)},
        "preimages": len(listing(mem.places, mem.workspace)),
        "automations": jobs,
    }


_PATH_LINE = re.compile(r"^(.+?):(\d+)$")


def find(view, target: str):
    """A store entry by its key, by the marker key it was promoted under, or by ``path:line``."""
    if target in view.entries:
        return view.entries[target]
    for e in view.entries.values():
        if entry_key_for(e.key) == target:
            return e
    m = _PATH_LINE.match(target)
    if m:
        path, line = m.group(1), int(m.group(2))
        hits = [e for e in view.entries.values() if e.path == path and e.start_line <= line <= e.end_line]
        if hits:
            return min(hits, key=lambda e: (e.end_line - e.start_line, e.start_line))
    return None


def explain(mem, target: str, now: datetime | None = None) -> dict:
    view = _view(mem)
    e = find(view, target.strip())
    if e is None:
        raise UserError(f"nothing in the short-term store for {target!r}: give a key (memory:<path>:<a>:<b>), "
                        "an entry key from MEMORY.md (st-...) or PATH:LINE of a dated note that search surfaced")
    return _Explainer(mem, view, now).explain(e)


def candidates(mem, now: datetime | None = None, limit: int = 12) -> dict:
    """The entries waiting in the short-term store (not promoted yet), best first, each explained
    as :func:`explain` does (every component, threshold and the trust decision): what the next
    deep sweep would consider. ``{"entries", "waiting", "promoted", "thresholds", "weights"}``."""
    view = _view(mem)
    deep = mem.settings.memory.dreaming.phases.deep
    th = Thresholds.from_settings(deep)
    ex = _Explainer(mem, view, now)
    ranked = rank(list(view.entries.values()), view.phases, ex.now_s, th, deep.weights.model_dump())
    waiting = [r for r in ranked if r.entry.promoted_at is None]
    return {"entries": [ex.explain(r.entry) for r in waiting[:max(0, limit)]], "waiting": len(waiting),
            "promoted": len(ranked) - len(waiting), "thresholds": th.as_dict(), "limit": deep.limit}


class _Explainer:
    """Explains entries of one loaded store against one clock, MEMORY.md and trust store."""

    def __init__(self, mem, view, now: datetime | None):
        self.mem, self.view, self.now_s = mem, view, _now_s(mem, now)
        self.deep = mem.settings.memory.dreaming.phases.deep
        self.th = Thresholds.from_settings(self.deep)
        path = memory_path(mem.workspace)
        self.present = marker_keys(path.read_text(encoding="utf-8", errors="replace") if path.is_file() else "")
        self._trust = None

    def trust(self):
        if self._trust is None:
            from ..trust import Trust

            self._trust = Trust(self.mem.agent_store, self.mem.workspace, readonly=True)
        return self._trust

    def explain(self, e) -> dict:
        view, deep = self.view, self.deep
        r = score_entry(e, view.phases.get(e.key), self.now_s, self.th, deep.weights.model_dump())
        out = r.as_dict()
        out["thresholds"] = self.th.as_dict()
        out["phaseSignals"] = vars(view.phase(e.key))
        out["conceptTags"] = e.concept_tags
        out["queryHashes"] = e.query_hashes
        out["recallDays"] = e.recall_days
        key = entry_key_for(e.key)
        out["entryKey"] = key
        out["inMemory"] = key in self.present
        out["promotedAt"] = e.promoted_at
        why: list[str] = []
        if e.promoted_at or out["inMemory"]:
            why.append("already promoted" + (" (its entry is in MEMORY.md)" if out["inMemory"] else
                                             " (its entry is no longer in MEMORY.md: it was merged, superseded, "
                                             "restored away or removed by hand)"))
        why += r.reasons
        got = rehydrate(self.mem.workspace, r)
        if got is None:
            why.append("its words are no longer in the file")
            out["trust"] = None
        else:
            live, snippet, _ = got
            decision = self.trust().may_promote(trust_candidate(e, e.path, live.start, live.end, snippet))
            out["trust"] = decision.as_dict()
            if not decision.allowed:
                why.append(f"trust: {decision.reason}")
        out["promotable"] = not why
        out["why"] = why or ["passes every threshold and the trust gate: the next deep sweep promotes it "
                             f"(if it is among the best {deep.limit})"]
        return out
