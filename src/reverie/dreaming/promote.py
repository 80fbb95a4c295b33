"""Writing the deep phase's promotions into ``MEMORY.md`` (reference §16.5 steps 4-6, §16.8).

1. ``MEMORY.md`` is read for a compare-and-set (through a symlink to its target; a file that is
   not UTF-8 or not a regular file is refused). Candidates whose marker is there already are
   *reconciled* (counted, never written twice); candidates that state the same fact as a line a
   person wrote are *known* (that line stays, nothing is added); candidates that state the same
   fact as a better one of this sweep are *folded* into it.
2. The rest go to consolidation (:mod:`.consolidate`, one validated model pass per project group).
   The rewrite is written only if ``MEMORY.md`` still has the hash it had when the model was asked
   (checked before writing and again just before the atomic rename), after keeping a preimage.
3. Any failure -- a rejected plan, a model error, a changed file, a folder that refuses the atomic
   replace, a plan over the budget -- falls back to *append-only* for this sweep: a fresh read, the
   oldest generated blocks dropped if the budget needs it (:mod:`.budget`), a new dated section
   appended through the same compare-and-set (in place only if the folder refuses the rename). If
   that write meets a changed file too, the sweep skips promotion cleanly: nothing is written,
   nothing is marked, the candidates wait for the next night.
4. Lineage rows record which sessions each written entry came from (``reverie forget`` follows
   them); merged entries inherit the rows of what they replace.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import faults
from ..errors import UserError, WriteConflict
from ..models import ChatModelError
from ..text.facts import same_fact
from ..trust import lineage as lin
from ..workspace.writes import ReplaceBlocked, apply_replace, plan_replace, sha256_bytes
from .budget import compact
from .candidates import Chosen
from .consolidate import Group, PlanRejected, consolidate
from .dreamsfile import highlight
from .outdated import mark_outdated
from .trigger_words import triggers_for
from .memoryfile import (ENTRY_RE, PROMOTED_HEADING, append_section, appended_entry, block, consolidated_entry,
                         display_snippet, entry_key_for, entry_lines, generated_entries, marker_keys,
                         section_text)
from .validate import ConsolidationCandidate

log = logging.getLogger("reverie.dreaming")


@dataclass
class DeepOutcome:
    mode: str = "none"  # none | consolidated | append | skipped
    reason: str | None = None  # why the rewrite (or the whole promotion) was skipped
    counts: dict = field(default_factory=lambda: {"added": 0, "merged": 0, "superseded": 0, "outdated": 0})
    promoted: list[dict] = field(default_factory=list)
    reconciled: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    folded: list[dict] = field(default_factory=list)
    highlights: list[str] = field(default_factory=list)
    compacted_dates: list[str] = field(default_factory=list)
    preimage: str | None = None
    before_sha: str | None = None  # MEMORY.md's hash before and after the write (.history links them)
    after_sha: str | None = None
    marked: list[str] = field(default_factory=list)  # short-term keys to mark promoted
    lineage: dict[str, list[str]] = field(default_factory=dict)  # entry key -> sessions
    retired: list[str] = field(default_factory=list)  # entry keys no longer in MEMORY.md
    inherit: dict[str, list[str]] = field(default_factory=dict)  # merged entry key -> keys it replaced
    # entries a promoted fact updates, marked superseded in place (.outdated): {"entry", "by"}
    outdated: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"mode": self.mode, "reason": self.reason, "counts": self.counts, "promoted": self.promoted,
                "reconciled": self.reconciled, "known": self.known, "folded": self.folded,
                "highlights": self.highlights, "compactedDates": self.compacted_dates, "preimage": self.preimage,
                "outdated": self.outdated}


def memory_path(workspace: Path) -> Path:
    p = workspace / "MEMORY.md"
    if not p.exists() and not p.is_symlink() and (workspace / "memory.md").exists():
        return workspace / "memory.md"
    return p


def index_written(mem, out: DeepOutcome) -> None:
    """MEMORY.md was just rewritten: index it at once, as a note written with ``memory_append`` is,
    so the next search (the next night's recalls too) reads what was promoted, not the file as it
    was before; otherwise that would depend on when the index next looks for changed files."""
    if out.after_sha and out.after_sha != out.before_sha:  # (set only by a write)
        mem._index_own_write(memory_path(mem.workspace))


def _cap(deep) -> int:
    return deep.max_promoted_snippet_tokens * 4


def _budget(settings) -> int:
    deep = settings.memory.dreaming.phases.deep
    if deep.memory_max_chars <= 0:
        return 0
    return min(deep.memory_max_chars, settings.sessions.bootstrap.max_chars)


def _threshold(settings) -> float:
    return settings.memory.trigger_recall.threshold


def _candidate(c: Chosen, alias: str, deep, threshold: float = 0.65) -> ConsolidationCandidate:
    shown = display_snippet(c.snippet, _cap(deep))
    # triggers from the fact's salient words, each tried on ordinary messages first (.trigger_words)
    entry = consolidated_entry(shown, c.path, c.start, c.end, triggers_for(shown, threshold=threshold),
                               c.ranked.score, c.project)
    return ConsolidationCandidate(alias, c.key, entry_key_for(c.key), shown, entry, f"{c.path}#L{c.start}-L{c.end}",
                                  c.origin, c.project, c.supersedes)


def _groups(cands: list[ConsolidationCandidate]) -> list[Group]:
    keys = sorted({c.project for c in cands}, key=lambda p: (p is not None, p or ""))
    return [Group(p, [c for c in cands if c.project == p]) for p in keys]


def _keys_above(text: str, lines: Counter) -> list[str]:
    """Marker keys of the given entry lines (the marker sits right above its entry)."""
    rows = text.split("\n")
    out = []
    for i, row in enumerate(rows):
        if lines.get(row.rstrip()) and i:
            j = i - 1
            while j >= 0 and rows[j].strip().startswith("<!--"):
                m = ENTRY_RE.search(rows[j])
                if m:
                    out.append(m.group(1).strip())
                j -= 1
    return out


def triage(chosen: list[Chosen], current: str, out: DeepOutcome) -> list[Chosen]:
    present = marker_keys(current)
    ours = Counter(generated_entries(current))
    person = [ln for ln in entry_lines(current) if not ours.get(ln)]
    todo: list[Chosen] = []
    for c in chosen:
        key = entry_key_for(c.key)
        if key in present:
            out.reconciled.append(c.key)
            out.marked.append(c.key)
            out.lineage.setdefault(key, []).extend(c.sessions)
        elif any(same_fact(ln, c.snippet) for ln in person):
            out.known.append(c.key)
            out.marked.append(c.key)
        else:
            into = next((k for k in todo if k.project == c.project and same_fact(k.snippet, c.snippet)), None)
            if into is not None:
                out.folded.append({"key": c.key, "into": into.key})
                out.marked.append(c.key)
                out.lineage.setdefault(entry_key_for(into.key), []).extend(c.sessions)
            else:
                todo.append(c)
    return todo


def promote(chosen: list[Chosen], *, workspace: Path, settings, models: list, day: str, preimage_dir: Path,
            dry_run: bool) -> DeepOutcome:
    deep = settings.memory.dreaming.phases.deep
    out = DeepOutcome()
    path = memory_path(workspace)
    try:
        plan = plan_replace(path)
    except UserError as exc:
        out.mode, out.reason = "skipped", str(exc)
        return out
    todo = triage(chosen, plan.text, out)
    faults.point("dream:planned")
    if not todo:
        return out
    aliases = [_candidate(c, f"c{i}", deep, _threshold(settings)) for i, c in enumerate(todo, 1)]
    by_key = {c.key: c for c in todo}
    reason = None
    try:
        cplan = _ask(models, plan.text, _groups(aliases), day, deep, settings, _budget(settings))
        faults.point("dream:model-answered")
        if not dry_run:
            out.preimage = _str(apply_replace(plan, cplan.text, preimage_dir=preimage_dir))
            out.before_sha, out.after_sha = plan.expected_hash, _sha(cplan.text)
        out.mode = "consolidated"
        out.counts = cplan.counts()
        for op in cplan.operations:
            c = by_key[op.candidate.key]
            out.promoted.append({"key": c.key, "entryKey": op.candidate.entry_key, "action": op.action,
                                 "snippet": op.candidate.text, "entry": op.candidate.result_entry,
                                 "replaced": op.prior})
            out.marked.append(c.key)
            out.lineage.setdefault(op.candidate.entry_key, []).extend(c.sessions)
            out.highlights.append(highlight("+", op.candidate.result_entry))
            out.highlights += [highlight("-", p) for p in op.prior]
        _note_outdated(out, cplan.outdated)
        old_keys = _keys_above(plan.text, cplan.removed)
        out.retired = old_keys
        out.inherit = {op.candidate.entry_key: _keys_above(plan.text, Counter(op.prior))
                       for op in cplan.operations if op.action == "merged"}
        return out
    except PlanRejected as exc:
        reason = f"consolidation plan rejected (rule {exc.rule}): {exc}"
    except ChatModelError as exc:
        reason = f"consolidation model failed: {exc}"
    except WriteConflict:
        reason = "MEMORY.md changed while consolidation was running"
    except ReplaceBlocked:
        reason = "the MEMORY.md directory blocked atomic replacement"
    log.info("dreaming: %s; appending instead", reason)
    return _append(todo, aliases, out, reason, path=path, settings=settings, day=day, preimage_dir=preimage_dir,
                   dry_run=dry_run)


def _str(p) -> str | None:
    return str(p) if p else None


def _sha(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def _ask(models: list, current: str, groups: list[Group], day: str, deep, settings, budget: int):
    last: Exception | None = None
    for model in models:
        try:
            return consolidate(model, current, groups, day=day, timeout=settings.memory.dreaming.timeout_seconds,
                               max_loss=deep.max_prior_entry_loss_fraction, budget=budget)
        except ChatModelError as exc:  # the Dreaming model cannot be used: the chat model once
            last = exc
    raise last if last else ChatModelError("no model for consolidation")


def _append(todo: list[Chosen], aliases: list[ConsolidationCandidate], out: DeepOutcome, reason: str, *,
            path: Path, settings, day: str, preimage_dir: Path, dry_run: bool) -> DeepOutcome:
    out.reason = reason
    try:
        plan = plan_replace(path)  # a fresh read: the file may have changed, that is why we are here
    except UserError as exc:
        out.mode, out.reason = "skipped", f"{reason}; {exc}"
        return out
    present = marker_keys(plan.text)
    groups: dict[str | None, list[list[str]]] = {}
    written = []
    for c, a in zip(todo, aliases):
        if a.entry_key in present:  # promoted meanwhile by another writer
            out.reconciled.append(c.key)
            out.marked.append(c.key)
            continue
        e = c.ranked.entry
        entry = appended_entry(a.text, c.path, c.start, c.end, triggers_for(a.text, threshold=_threshold(settings)),
                               c.ranked.score, e.signals,
                               e.recall_count, c.ranked.components["relevance"], c.project)
        groups.setdefault(c.project, []).append(block(entry, a.entry_key, c.supersedes))
        written.append((c, a, entry))
    if not written:
        out.mode = "none"
        return out
    ordered = sorted(groups.items(), key=lambda kv: (kv[0] is not None, kv[0] or ""))
    section = section_text(f"## {PROMOTED_HEADING} ({day})", ordered)
    budget = _budget(settings)
    comp = compact(plan.text, section, budget)
    if not comp.fits:
        out.mode = "skipped"
        out.reason = (f"{reason}; MEMORY.md is over its budget of {budget} characters even without the blocks "
                      "Dreaming wrote (what a person wrote is never deleted): nothing promoted")
        return out
    new_text = append_section(comp.text, f"## {PROMOTED_HEADING} ({day})", ordered)
    new_text, outdated = mark_outdated(new_text, [a.source_ref for _, a, _ in written], budget)
    if not dry_run:
        try:
            out.preimage = _str(apply_replace(plan, new_text, preimage_dir=preimage_dir, in_place_fallback=True))
            out.before_sha, out.after_sha = plan.expected_hash, _sha(new_text)
        except WriteConflict:
            out.mode = "skipped"
            out.reason = "MEMORY.md changed immediately before the dreaming write could commit; nothing promoted"
            return out
    out.mode = "append"
    out.compacted_dates = comp.compacted_dates
    out.counts = {"added": len(written), "merged": 0, "superseded": 0, "outdated": 0}
    _note_outdated(out, outdated)
    for c, a, entry in written:
        out.promoted.append({"key": c.key, "entryKey": a.entry_key, "action": "added", "snippet": a.text,
                             "entry": entry, "replaced": []})
        out.marked.append(c.key)
        out.lineage.setdefault(a.entry_key, []).extend(c.sessions)
        out.highlights.append(highlight("+", entry))
    return out


def _note_outdated(out: DeepOutcome, outdated: list[tuple[str, str]]) -> None:
    out.outdated = [{"entry": line, "by": by} for line, by in outdated]
    out.counts["outdated"] = len(outdated)
    out.highlights += [highlight("~", line) for line, _ in outdated]


def record_lineage(conn, out: DeepOutcome) -> None:
    """Lineage rows for what was written (a merged entry inherits the rows of what it replaced);
    rows of entries no longer in ``MEMORY.md`` go."""
    lin.LINEAGE_MIGRATIONS.apply(conn)
    for key, sessions in out.lineage.items():
        old = out.inherit.get(key) or []
        inherited = [r[0] for r in conn.execute(
            f"SELECT DISTINCT session_id FROM {lin.TABLE} WHERE entry_key IN ({','.join('?' * len(old))})",
            old)] if old else []
        ids = [s for s in dict.fromkeys([*sessions, *inherited]) if s]
        if ids:
            lin.record_origins(conn, key, ids)
    if out.retired:
        conn.execute(f"DELETE FROM {lin.TABLE} WHERE entry_key IN ({','.join('?' * len(out.retired))})",
                     out.retired)


def deep_body(out: DeepOutcome, skipped: list[dict]) -> list[str]:
    lines = []
    for p in out.promoted:
        lines.append(f"- Promoted ({p['action']}): {highlight('', p['entry']).strip()}")
    for o in out.outdated:
        lines.append(f"- Marked superseded in place (updated by {o['by']}): {highlight('', o['entry']).strip()}")
    for k in out.reconciled:
        lines.append(f"- Already in MEMORY.md: `{k}`")
    if out.reason:
        lines.append(f"- Note: {out.reason}")
    for s in skipped[:5]:
        lines.append(f"- Held back: {s['snippet'][:120]} ({s['reason']})")
    return lines or ["- Nothing promoted."]
