"""The light and REM phases (reference §16.3-16.4). Neither writes long-term memory: light stages
candidates, REM reflects on themes and names possible lasting truths; both leave phase signals
that give the deep ranking its boost, and a body for DREAMS.md (and the phase's report).

Light: entries recalled (or ingested) within ``lookbackDays`` (2), newest first (ties: recall
count), at most ``limit`` (100), unpromoted; entries of one note whose word sets overlap by
``dedupeSimilarity`` (0.9) are staged once. Each staged entry gets a light hit.

REM: entries recalled within ``lookbackDays`` (7). Themes: concept tags with strength
``min(1, 2 × count / entries) >= minPatternStrength`` (0.75), strongest first, at most ``limit``.
Possible lasting truths: unpromoted entries (deduped at 0.88) with
``confidence = 0.45·relevance + 0.25·min(1, ln(1+recalls)/ln 7) + 0.20·min(1, days/3) + 0.10·min(1, tags/6)``
of at least 0.45, the best ``min(3, limit)``; each gets a REM hit.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from ..text.concepts import content_words, jaccard
from ..trust.secrets import holds_secret
from .facttext import fact_text
from .guard import contaminated
from .state import Deltas, ShortTermEntry, StoreView

DAY_S = 86_400
REM_TRUTH_DEDUPE = 0.88
REM_MIN_CONFIDENCE = 0.45
MAX_EVIDENCE = 3


@dataclass
class PhaseOutcome:
    name: str
    body: list[str]
    items: list[dict] = field(default_factory=list)
    themes: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        out: dict = {"items": self.items}
        if self.name == "rem":
            out["themes"] = self.themes
        return out


def _words(e: ShortTermEntry) -> frozenset[str]:
    return frozenset(content_words(e.snippet, matching=True))


def _text(e: ShortTermEntry) -> str | None:
    """The entry as a fact (:mod:`.facttext`), or None: model talk and chit-chat are never staged."""
    return fact_text(e.snippet, e.path.startswith("memory/.dreams/"))


def _evidence(e: ShortTermEntry) -> str:
    return f"{e.path}:{e.start_line}-{e.end_line}"


def _avg(e: ShortTermEntry) -> float:
    return min(1.0, e.total_score / max(1, e.signals))


def sensitive_count(view: StoreView, now_s: int, days: int) -> int:
    """Recent entries held back because they look like they hold a secret (never staged, reflected on
    or promoted; reported as "withheld: sensitive" without their text)."""
    since = now_s - days * DAY_S
    return sum(1 for e in view.entries.values() if e.last_recalled_at >= since and e.promoted_at is None
               and not contaminated(e.snippet) and holds_secret(e.snippet))


def withheld_line(n: int) -> list[str]:
    return [f"- withheld: sensitive ({n} entr{'y' if n == 1 else 'ies'} that look like a secret; "
            "found only by the owner's search)"] if n else []


def recent(view: StoreView, now_s: int, days: int) -> list[ShortTermEntry]:
    since = now_s - days * DAY_S
    out = [e for e in view.entries.values() if e.last_recalled_at >= since and not contaminated(e.snippet)
           and not holds_secret(e.snippet) and _text(e) is not None]
    out.sort(key=lambda e: (-e.last_recalled_at, -e.recall_count, e.path, e.start_line))
    return out


def _dedupe(entries: list[ShortTermEntry], threshold: float, same_path: bool) -> list[list[ShortTermEntry]]:
    groups: list[list[ShortTermEntry]] = []
    for e in entries:
        w = _words(e)
        for g in groups:
            if (not same_path or g[0].path == e.path) and jaccard(_words(g[0]), w) >= threshold:
                g.append(e)
                break
        else:
            groups.append([e])
    return groups


def light(view: StoreView, deltas: Deltas, now_s: int, settings) -> PhaseOutcome:
    if not settings.enabled or settings.limit == 0:
        return PhaseOutcome("light", ["- No notable updates."])
    pool = [e for e in recent(view, now_s, settings.lookback_days) if e.promoted_at is None]
    if "recall" not in settings.sources:  # recalls alone do not stage an entry
        pool = [e for e in pool if e.daily_count or e.grounded_count]
    groups = _dedupe(pool, settings.dedupe_similarity, same_path=True)[:settings.limit]
    body, items = [], []
    for g in groups:
        lead = g[0]
        recalls = sum(e.recall_count for e in g)
        confidence = sum(e.total_score for e in g) / max(1, sum(e.signals for e in g))
        body += [f"- Candidate: {_text(lead)}", f"  - confidence: {min(1.0, confidence):.2f}",
                 f"  - evidence: {_evidence(lead)}", f"  - recalls: {recalls}", "  - status: staged"]
        items.append({"key": lead.key, "snippet": _text(lead), "evidence": _evidence(lead),
                      "confidence": round(min(1.0, confidence), 4), "recalls": recalls,
                      "merged": [e.key for e in g[1:]]})
        deltas.light.append(lead.key)
    body = (body or ["- No notable updates."]) + withheld_line(sensitive_count(view, now_s, settings.lookback_days))
    return PhaseOutcome("light", body, items)


def truth_confidence(e: ShortTermEntry) -> float:
    return (0.45 * _avg(e) + 0.25 * min(1.0, math.log(1 + e.recall_count) / math.log(7))
            + 0.20 * min(1.0, len(e.recall_days) / 3) + 0.10 * min(1.0, len(e.concept_tags) / 6))


def rem(view: StoreView, deltas: Deltas, now_s: int, settings) -> PhaseOutcome:
    if not settings.enabled or settings.limit == 0:
        return PhaseOutcome("rem", ["### Reflections", "- No strong patterns surfaced.", "",
                                    "### Possible Lasting Truths", "- No strong patterns surfaced."])
    pool = recent(view, now_s, settings.lookback_days)
    counts: Counter = Counter()
    where: dict[str, list[ShortTermEntry]] = {}
    for e in pool:
        for tag in dict.fromkeys(e.concept_tags):
            counts[tag] += 1
            where.setdefault(tag, []).append(e)
    themes = []
    for tag, n in counts.items():
        strength = min(1.0, 2 * n / max(1, len(pool)))
        if n >= 2 and strength >= settings.min_pattern_strength:
            themes.append((strength, n, tag))
    themes.sort(key=lambda t: (-t[0], -t[1], t[2]))
    body = ["### Reflections"]
    theme_items = []
    for strength, n, tag in themes[:settings.limit]:
        refs = [_evidence(e) for e in where[tag][:MAX_EVIDENCE]]
        body += [f"- Theme: `{tag}` kept surfacing across {n} memories.", f"  - confidence: {strength:.2f}",
                 f"  - evidence: {', '.join(refs)}", "  - note: reflection"]
        theme_items.append({"tag": tag, "count": n, "strength": round(strength, 4), "evidence": refs})
    if not theme_items:
        body.append("- No strong patterns surfaced.")
    body += ["", "### Possible Lasting Truths"]
    unpromoted = [e for e in pool if e.promoted_at is None]
    deltas.rem_considered.extend(e.key for e in unpromoted)
    scored = sorted(((truth_confidence(g[0]), g[0]) for g in _dedupe(unpromoted, REM_TRUTH_DEDUPE, same_path=False)),
                    key=lambda t: (-t[0], t[1].path, t[1].start_line))
    items = []
    for conf, e in [t for t in scored if t[0] >= REM_MIN_CONFIDENCE][:max(1, min(3, settings.limit))]:
        body.append(f"- {_text(e)} [confidence={conf:.2f} evidence={_evidence(e)}]")
        items.append({"key": e.key, "snippet": _text(e), "confidence": round(conf, 4), "evidence": _evidence(e)})
        deltas.rem.append(e.key)
    if not items:
        body.append("- No strong patterns surfaced.")
    return PhaseOutcome("rem", body, items, theme_items)
