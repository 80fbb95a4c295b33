"""Ranking short-term entries for promotion (reference §15.3).

    signals       = recalls + daily + grounded                      (skip if 0 or < minRecallCount)
    relevance     = clamp(totalScore / max(1, signals))
    frequency     = clamp(ln(1 + signals) / ln 11)
    diversity     = clamp(max(#queries, #recall days) / 5)          (skip if that max < minUniqueQueries)
    recency       = exp(-ln2 / halfLife × ageDays)                   (skip if ageDays > maxAgeDays >= 0)
    consolidation = max(spaced, clamp(grounded / 3)); spaced = 0 (no day), 0.2 (one day), else
                    clamp(0.55 × clamp(ln(1 + (days - 1)) / ln 5) + 0.45 × clamp(spanDays / 7))
    conceptual    = clamp(#concept tags / 6)
    phaseBoost    = clamp(0.06 × lightStrength × lightRecency + 0.09 × remStrength × remRecency),
                    strength = clamp(ln(1 + hits) / ln 7), recency half-life 14 days
    score         = 0.30 relevance + 0.24 frequency + 0.15 diversity + 0.15 recency
                    + 0.10 consolidation + 0.06 conceptual + phaseBoost

Weights that are overridden are renormalised to sum 1. Every component and every threshold is kept
on the result, for ``reverie promote-explain``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date

from .state import PhaseSignal, ShortTermEntry

DEFAULT_WEIGHTS = {"relevance": 0.30, "frequency": 0.24, "diversity": 0.15, "recency": 0.15,
                   "consolidation": 0.10, "conceptual": 0.06}
PHASE_HALF_LIFE_DAYS = 14.0
LIGHT_BOOST = 0.06
REM_BOOST = 0.09
DAY_S = 86_400


def clamp(x: float) -> float:
    return 0.0 if x != x else max(0.0, min(1.0, x))  # NaN -> 0


@dataclass
class Thresholds:
    min_score: float = 0.75
    min_recall_count: int = 3
    min_unique_queries: int = 3
    max_age_days: int = 30
    half_life_days: float = 14.0

    @classmethod
    def from_settings(cls, deep) -> "Thresholds":
        return cls(deep.min_score, deep.min_recall_count, deep.min_unique_queries, deep.max_age_days,
                   deep.recency_half_life_days)

    def as_dict(self) -> dict:
        return {"minScore": self.min_score, "minRecallCount": self.min_recall_count,
                "minUniqueQueries": self.min_unique_queries, "maxAgeDays": self.max_age_days,
                "recencyHalfLifeDays": self.half_life_days}


@dataclass
class Ranked:
    entry: ShortTermEntry
    score: float
    components: dict[str, float]
    weights: dict[str, float]
    age_days: float
    diversity_count: int
    passed: bool
    reasons: list[str] = field(default_factory=list)  # why it is not promotable (empty when passed)

    @property
    def key(self) -> str:
        return self.entry.key

    def as_dict(self) -> dict:
        return {"key": self.key, "path": self.entry.path, "startLine": self.entry.start_line,
                "endLine": self.entry.end_line, "snippet": self.entry.snippet, "score": round(self.score, 4),
                "components": {k: round(v, 4) for k, v in self.components.items()},
                "weights": {k: round(v, 4) for k, v in self.weights.items()},
                "signals": self.entry.signals, "recallCount": self.entry.recall_count,
                "dailyCount": self.entry.daily_count, "groundedCount": self.entry.grounded_count,
                "uniqueQueries": len(self.entry.query_hashes), "recallDays": len(self.entry.recall_days),
                "ageDays": round(self.age_days, 2), "passed": self.passed, "reasons": self.reasons}


def normalised_weights(weights: dict[str, float] | None) -> dict[str, float]:
    w = {k: max(0.0, float((weights or {}).get(k, v))) for k, v in DEFAULT_WEIGHTS.items()}
    total = sum(w.values())
    if total <= 0:
        return dict(DEFAULT_WEIGHTS)
    return {k: v / total for k, v in w.items()}


def _strength(hits: int) -> float:
    return clamp(math.log(1 + max(0, hits)) / math.log(7))


def _decay(age_days: float, half_life: float) -> float:
    return math.exp(-math.log(2) / half_life * max(0.0, age_days))


def phase_boost(ps: PhaseSignal | None, now_s: int) -> float:
    if ps is None:
        return 0.0
    light = rem = 0.0
    if ps.light_hits and ps.last_light_at is not None:
        light = _strength(ps.light_hits) * _decay((now_s - ps.last_light_at) / DAY_S, PHASE_HALF_LIFE_DAYS)
    if ps.rem_hits and ps.last_rem_at is not None:
        rem = _strength(ps.rem_hits) * _decay((now_s - ps.last_rem_at) / DAY_S, PHASE_HALF_LIFE_DAYS)
    return clamp(LIGHT_BOOST * light + REM_BOOST * rem)


def spaced(days: list[str]) -> float:
    parsed = sorted({date.fromisoformat(d) for d in days if _is_day(d)})
    if not parsed:
        return 0.0
    if len(parsed) == 1:
        return 0.2
    span = (parsed[-1] - parsed[0]).days
    return clamp(0.55 * clamp(math.log(1 + (len(parsed) - 1)) / math.log(5)) + 0.45 * clamp(span / 7))


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
        return True
    except (TypeError, ValueError):
        return False


def score_entry(e: ShortTermEntry, ps: PhaseSignal | None, now_s: int, th: Thresholds,
                weights: dict[str, float] | None = None) -> Ranked:
    w = normalised_weights(weights)
    signals = e.signals
    age = max(0.0, (now_s - e.last_recalled_at) / DAY_S) if e.last_recalled_at else 0.0
    diversity_count = max(len(e.query_hashes), len(e.recall_days))
    comps = {
        "relevance": clamp(e.total_score / max(1, signals)),
        "frequency": clamp(math.log(1 + signals) / math.log(11)),
        "diversity": clamp(diversity_count / 5),
        "recency": _decay(age, th.half_life_days),
        "consolidation": max(spaced(e.recall_days), clamp(e.grounded_count / 3)),
        "conceptual": clamp(len(e.concept_tags) / 6),
    }
    boost = phase_boost(ps, now_s)
    score = sum(w[k] * comps[k] for k in w) + boost
    comps["phaseBoost"] = boost
    reasons = []
    if signals == 0:
        reasons.append("no signals")
    elif signals < th.min_recall_count:
        reasons.append(f"signals {signals} < minRecallCount {th.min_recall_count}")
    if diversity_count < th.min_unique_queries:
        reasons.append(f"distinct queries/days {diversity_count} < minUniqueQueries {th.min_unique_queries}")
    if e.recall_count and len(e.recall_days) < 2 and len(e.recall_contexts) < 2:
        # what keeps proving useful is proven by use across conversations or days: one caller's own
        # searches on one day (an agent searching for the note it just wrote) prove nothing
        reasons.append("recalled on one day by one conversation only (use across conversations or days proves "
                       "an entry)")
    if th.max_age_days >= 0 and age > th.max_age_days:
        reasons.append(f"last recalled {age:.1f} days ago > maxAgeDays {th.max_age_days}")
    if score < th.min_score:
        reasons.append(f"score {score:.3f} < minScore {th.min_score}")
    return Ranked(e, score, comps, w, age, diversity_count, not reasons, reasons)


def rank(entries: list[ShortTermEntry], phases: dict[str, PhaseSignal], now_s: int, th: Thresholds,
         weights: dict[str, float] | None = None) -> list[Ranked]:
    """Every entry scored, best first (score, recall count, then path)."""
    out = [score_entry(e, phases.get(e.key), now_s, th, weights) for e in entries]
    out.sort(key=lambda r: (-r.score, -r.entry.recall_count, r.entry.path, r.entry.start_line))
    return out
