"""One Dreaming sweep: light -> REM -> deep, under the workspace's promotion lock.

* The short-term store is loaded once; each phase's changes are *deltas* committed in one
  transaction (recalls recorded meanwhile by searches are never overwritten).
* Light and REM take in daily notes and transcripts (:mod:`.ingest`), stage and reflect
  (:mod:`.phases`); deep ranks, filters and rehydrates (:mod:`.candidates`) and writes
  ``MEMORY.md`` (:mod:`.promote`).
* ``DREAMS.md`` gets the phase blocks, a history entry when ``MEMORY.md`` changed or a rewrite was
  skipped, and a diary entry; with ``storage.separateReports`` each phase also writes
  ``memory/dreaming/<phase>/YYYY-MM-DD.md``. ``USER.md`` and daily notes are never written.
* A dry run does all of it in memory: no file, no table, no row changes (the consolidation model
  is still asked, so the preview shows what it would do).
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

from .. import faults
from ..errors import UserError, WriteConflict
from ..workspace.writes import append_text, apply_replace, plan_replace
from . import diary as diary_mod
from . import dreamsfile as df
from . import history
from .candidates import select
from .ingest import Ingested, ingest_daily, ingest_sessions
from .phases import PhaseOutcome, light, rem
from .promote import DeepOutcome, deep_body, index_written, promote, record_lineage
from .state import Deltas, PhaseSignal, StoreView, apply, load, open_db, open_readonly

log = logging.getLogger("reverie.dreaming")
PHASES = ("light", "rem", "deep")
LOCK_TIMEOUT_S = 20.0  # the reference retries ~100 times over about 20 s, then fails closed


class DreamBusy(UserError):
    """Another sweep (or backfill) holds this workspace's promotion lock."""


def lock_path(places) -> Path:
    real = os.path.realpath(places.workspace)
    return places.home / "state" / "locks" / f"memory-promotion-{hashlib.sha256(real.encode()).hexdigest()[:16]}.lock"


class promotion_lock:
    """The one lock every writer of ``MEMORY.md``'s promotions holds (per workspace, across agents
    sharing it and across processes). Failing to get it skips the work (fail closed)."""

    def __init__(self, places, timeout: float = LOCK_TIMEOUT_S):
        from ..locks import FileLock

        path = lock_path(places)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(path, timeout=timeout)

    def __enter__(self):
        from ..locks import Timeout

        try:
            self._lock.acquire()
        except Timeout:
            raise DreamBusy("another Dreaming sweep is running for this workspace; try again later") from None
        return self

    def __exit__(self, *exc) -> None:
        self._lock.release()


def models_for(mem, override=None) -> list:
    """The consolidation / diary models: ``override``, else ``memory.dreaming.model`` then
    ``chat.model`` (tried when the first cannot be used)."""
    from ..models import ChatModel, create

    from ..trust.shield import shield  # Dreaming calls on its own: no secret reaches a remote model

    if isinstance(override, ChatModel):
        return [shield(override)]
    chat = mem.settings.chat
    specs = [override] if override else [mem.settings.memory.dreaming.model, chat.model]
    out, seen = [], set()
    for spec in specs:
        if spec and spec not in seen:
            seen.add(spec)
            try:
                out.append(create(spec, chat))
            except Exception as exc:  # a bad Dreaming model spec: the chat model still works
                log.warning("dreaming: model %s cannot be used: %s", spec, exc)
    if not out:
        out.append(create("offline", chat))
    return [shield(m) for m in out]


@dataclass
class Sweep:
    workspace: str
    date: str
    dry_run: bool
    phases: dict = field(default_factory=dict)
    ingested: dict = field(default_factory=dict)
    diary: dict | None = None
    reports: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"workspace": self.workspace, "date": self.date, "dryRun": self.dry_run, "ingested": self.ingested,
                "phases": self.phases, "diary": self.diary, "reports": self.reports, "seconds": round(self.seconds, 3)}


def _bump(view: StoreView, keys: list[str], which: str, at: int) -> None:
    for k in keys:
        ps = view.phases.setdefault(k, PhaseSignal(k))
        if which == "light":
            ps.light_hits += 1
            ps.last_light_at = at
        else:
            ps.rem_hits += 1
            ps.last_rem_at = at


def run_sweep(mem, *, phase: str | None = None, dry_run: bool = False, now: datetime | None = None,
              model=None, progress: Callable[[str, int, int], None] | None = None) -> Sweep:
    """One sweep; ``progress(stage, done, total)`` is told as each step starts (ingest, light, rem,
    deep, consolidate, DREAMS.md) and once more when it ends (``done``)."""
    if phase is not None and phase not in PHASES:
        raise UserError(f"unknown phase {phase!r}: light, rem or deep")
    if not mem.workspace.is_dir():
        raise UserError(f"no workspace at {mem.workspace}: run `reverie init` first")
    if not dry_run:
        mem.places.check_writable_layout()
        with promotion_lock(mem.places):
            return _sweep(mem, phase, False, now, model, progress)
    return _sweep(mem, phase, True, now, model, progress)


class _Steps:
    """Progress of a sweep as steps started out of the steps it will take."""

    def __init__(self, wanted: list[str], dry_run: bool, report):
        ingest = ["ingest"] if "light" in wanted or "rem" in wanted else []
        deep = ["deep", "consolidate"] if "deep" in wanted else []
        self.names = ingest + [p for p in wanted if p != "deep"] + deep + ([] if dry_run else ["DREAMS.md"])
        self.report = report
        self.done = 0

    def __call__(self, stage: str) -> None:
        if self.report is not None:
            self.report(stage, self.done, len(self.names))
        self.done = min(self.done + 1, len(self.names))

    def finish(self) -> None:
        if self.report is not None:
            self.report("done", len(self.names), len(self.names))


def _sweep(mem, phase: str | None, dry_run: bool, now: datetime | None, model, progress=None) -> Sweep:
    t0 = time.perf_counter()
    settings = mem.settings
    cfg = settings.memory.dreaming
    tz = settings.dreaming_tz()
    now = (now or datetime.now(tz)).astimezone(tz)
    now_s = int(now.timestamp())
    day = now.date()
    ws = mem.workspace
    wanted = [phase] if phase else [p for p in PHASES if getattr(cfg.phases, p).enabled]
    out = Sweep(str(ws), day.isoformat(), dry_run)
    step = _Steps(wanted, dry_run, progress)
    conn = open_readonly(mem.agent_store) if dry_run else open_db(mem.agent_store)
    try:
        view = load(conn)
        deltas = Deltas()
        outcomes: dict[str, PhaseOutcome] = {}
        if "light" in wanted or "rem" in wanted:
            step("ingest")
            got = Ingested()
            sources = cfg.phases.light.sources
            if "daily" in sources:
                ingest_daily(ws, view, deltas, day, cfg.phases.light.lookback_days, now_s, got)
            if "sessions" in sources:
                ingest_sessions(mem.agent_store, ws, view, deltas, now, tz, cfg.phases.light.lookback_days,
                                now_s, got)
            out.ingested = got.as_dict()
            if not dry_run:
                for rel, line in got.corpus_lines:  # Dreaming's own corpus, never a daily note
                    append_text(ws / rel, line)
            if "light" in wanted:
                step("light")
                outcomes["light"] = light(view, deltas, now_s, cfg.phases.light)
                _bump(view, deltas.light, "light", now_s)
            if "rem" in wanted:
                step("rem")
                outcomes["rem"] = rem(view, deltas, now_s, cfg.phases.rem)
                _bump(view, deltas.rem, "rem", now_s)
            if not dry_run and deltas:
                apply(conn, deltas, now_s)
        for name, o in outcomes.items():
            out.phases[name] = o.as_dict()
        deep_out: DeepOutcome | None = None
        if "deep" in wanted:
            from ..trust import Trust

            step("deep")
            trust = Trust(mem.agent_store, ws, readonly=dry_run)
            sel = select(ws, trust, view, now_s, cfg.phases.deep)
            if cfg.verbose_logging:
                for c in sel.chosen:
                    log.info("dreaming: candidate %s score %.3f: %s", c.key, c.ranked.score, c.snippet[:80])
                for s in sel.skipped:
                    log.info("dreaming: held back %s: %s", s["key"], s["reason"])
                for r in sel.ranked:
                    if not r.passed and r.entry.promoted_at is None:
                        log.info("dreaming: below thresholds %s: %s", r.key, "; ".join(r.reasons))
            step("consolidate")
            deep_out = promote(sel.chosen, workspace=ws, settings=settings, models=models_for(mem, model),
                               day=day.isoformat(), preimage_dir=mem.places.agent_dir / "preimages", dry_run=dry_run)
            faults.point("dream:memory-written")
            index_written(mem, deep_out)  # (nothing when nothing was written: a dry run, a skip)
            if not dry_run and deep_out.marked:
                record_lineage(conn, deep_out)
                apply(conn, Deltas(promoted=deep_out.marked), now_s)
            if not dry_run:
                history.record(conn, deep_out, now.isoformat(timespec="seconds"), "sweep", now_s)
            faults.point("dream:store-marked")
            out.phases["deep"] = {**deep_out.as_dict(), "candidates": [_cand(c) for c in sel.chosen],
                                  "heldBack": sel.skipped}
            outcomes["deep"] = PhaseOutcome("deep", deep_body(deep_out, sel.skipped))
        if not dry_run:
            step("DREAMS.md")
            _write_dreams(mem, cfg, outcomes, deep_out, view, now, out, model)
            faults.point("dream:dreams-written")
            if cfg.storage.separate_reports:
                out.reports = _write_reports(ws, outcomes, day.isoformat())
            apply(conn, Deltas(state={"lastSweep": {"at": now.isoformat(timespec="seconds"), "day": day.isoformat(),
                                                     "phases": wanted, "mode": deep_out.mode if deep_out else None,
                                                     "counts": deep_out.counts if deep_out else None,
                                                     "reason": deep_out.reason if deep_out else None}}), now_s)
    finally:
        if conn is not None:
            conn.close()
    out.seconds = time.perf_counter() - t0
    step.finish()
    return out


def _cand(c) -> dict:
    return {"key": c.key, "path": c.path, "startLine": c.start, "endLine": c.end, "snippet": c.snippet,
            "score": round(c.ranked.score, 4), "project": c.project, "supersedesKey": c.supersedes,
            "origin": c.origin}


def _write_dreams(mem, cfg, outcomes: dict[str, PhaseOutcome], deep_out: DeepOutcome | None, view: StoreView,
                  now: datetime, out: Sweep, model) -> None:
    try:
        path = df.dreams_path(mem.workspace)  # refused early: a symlink or a folder is never written
    except UserError as exc:
        log.warning("dreaming: %s", exc)
        out.diary = {"written": False, "reason": str(exc)}
        return
    prose, author = None, None
    if cfg.diary:
        snippets = [i["snippet"] for name in ("light", "rem") for i in (outcomes.get(name).items if outcomes.get(name)
                                                                        else [])]
        themes = [t["tag"] for t in (outcomes["rem"].themes if "rem" in outcomes else [])]
        promoted = [p["snippet"] for p in (deep_out.promoted if deep_out else [])]
        counts = {"entries": len(view.entries), "staged": len(outcomes["light"].items) if "light" in outcomes else 0,
                  "truths": len(outcomes["rem"].items) if "rem" in outcomes else 0}
        req = diary_mod.request(now.date().isoformat(), snippets, themes, promoted, counts)
        prose, author = diary_mod.write_entry(models_for(mem, model), req, cfg.timeout_seconds)
    def change(text: str) -> str:
        for name, o in outcomes.items():
            text = df.set_phase(text, name, o.body)
        text = df.history_of(deep_out, now.isoformat(timespec="seconds"), text)
        return df.add_diary(text, now.date().isoformat(), prose) if prose else text

    try:
        df.update(mem.workspace, change)
    except (OSError, WriteConflict) as exc:  # the review page never fails a sweep; its old content stays
        log.warning("dreaming: DREAMS.md not written: %s", exc)
        out.diary = {"written": False, "reason": f"DREAMS.md not written: {exc}"}
        return
    out.diary = {"written": bool(prose), "author": author, "path": str(path)} if cfg.diary else None


def _write_reports(ws: Path, outcomes: dict[str, PhaseOutcome], day: str) -> list[str]:
    written = []
    for name, o in outcomes.items():
        p = ws / "memory" / "dreaming" / name / f"{day}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        body = f"# {df.PHASE_TITLES[name]} ({day})\n\n" + "\n".join(o.body).rstrip("\n") + "\n"
        try:
            apply_replace(plan_replace(p), body)
            written.append(str(p.relative_to(ws)))
        except (UserError, WriteConflict) as exc:
            log.warning("dreaming: report %s not written: %s", p, exc)
    return written
