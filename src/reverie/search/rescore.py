"""Deterministic re-scoring: temporal decay, importance, project affinity, supersession (reference §7.4).

Relevance dominates the multipliers: a factor above 1 (importance over 5, an active project) lifts a
result only as far as the result is already about the query. It applies in full to a result within
2 % of the best one's relevance and fades to nothing at :data:`BOOST_GATE` (90 %) of it; a factor
below 1 (low importance, a foreign project, a superseded directive) always applies in full.
Calibrated on LoCoMo's relevance gaps (docs/search.md).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from datetime import date, datetime, timezone

HALF_LIFE_DAYS = 30.0
BOOST_GATE = 0.90  # below this share of the best result's relevance, a boost does nothing
BOOST_FULL = 0.98  # from this share on, it applies in full
DECAY_FLOOR = 0.95  # reverie's default; the reference has none (see config.DecaySettings)
_DATED_RE = re.compile(r"(?:^|/)memory/(?:.*/)?(\d{4})-(\d{2})-(\d{2})(?:-[^/]*)?\.md$", re.I)


# the multipliers a question's own words set, by their key in explain (search/pipeline.py ``_trace``)
# and as the CLI and the web view name them: the days it named, a stated taste, a statement of change
QUESTION_LIFTS = (("time", "the days asked about"), ("taste", "stated taste"),
                  ("need", "a concern in the situation asked about"), ("now", "statement of change"))


@lru_cache(maxsize=65_536)
def note_date(path: str) -> date | None:
    """The date in a daily note's file name (``memory/2026-07-01.md``, ``…-slug.md``), if valid."""
    m = _DATED_RE.search(path)
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None  # an impossible calendar date is no date


@lru_cache(maxsize=65_536)
def is_evergreen(path: str) -> bool:
    """MEMORY.md, USER.md and undated notes under memory/ never decay."""
    name = path.rsplit("/", 1)[-1]
    if name in ("MEMORY.md", "memory.md", "USER.md") and "/" not in path:
        return True
    return path.startswith("memory/") and note_date(path) is None


def decay_multiplier(path: str, now: datetime, mtime: float | None = None,
                     half_life_days: float = HALF_LIFE_DAYS, floor: float = DECAY_FLOOR) -> tuple[float, float | None]:
    """(multiplier, age in days) for a chunk of ``path``; evergreen files return (1.0, None)."""
    if half_life_days <= 0 or is_evergreen(path):
        return 1.0, None
    d = note_date(path)
    if d is not None:
        born = datetime(d.year, d.month, d.day, tzinfo=timezone.utc)
    elif mtime is not None:
        born = datetime.fromtimestamp(mtime, tz=timezone.utc)
    else:
        return 1.0, None
    now_utc = now.astimezone(timezone.utc) if now.tzinfo else now.replace(tzinfo=timezone.utc)
    age = max(0.0, (now_utc - born).total_seconds() / 86400.0)
    return floor + (1.0 - floor) * math.exp(-math.log(2) / half_life_days * age), age


def band(content: float, best: float, none: float, full: float) -> float:
    """How much of a lift a result may take, by its share of the best relevance: 0 below ``none``,
    all of it from ``full``, in between in proportion (1 when nothing is relevant at all)."""
    if best <= 0:
        return 1.0
    return max(0.0, min(1.0, (content / best - none) / (full - none)))


def boost_gate(content: float, best: float) -> float:
    """How much of a boost a result may take: 0 below 90 % of the best relevance, 1 from 98 %."""
    return band(content, best, BOOST_GATE, BOOST_FULL)


def gated(multiplier: float, gate: float) -> float:
    """A combined multiplier with its boost part (above 1) scaled by ``gate``; penalties stay whole."""
    return multiplier if multiplier <= 1.0 else 1.0 + (multiplier - 1.0) * gate


def importance_multiplier(importance: int | None) -> float:
    if importance is None:
        return 1.0
    return 0.75 + 0.05 * max(1, min(10, int(importance)))


def status_multiplier(status: str | None) -> float:
    """A superseded directive (USER.md ``status: superseded``) stays findable but yields to the
    active one that replaced it."""
    return 0.5 if status == "superseded" else 1.0


PROJECT_LIFT = 1.15  # an entry of an active project (and 0.90 one of another)


def project_multiplier(project_key: str | None, active: list[str] | None) -> float:
    if not project_key or not active:
        return 1.0
    keys = [k.strip() for k in project_key.split(";") if k.strip()]
    if not keys:
        return 1.0
    return PROJECT_LIFT if all(k in active for k in keys) else 0.90
