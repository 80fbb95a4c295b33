"""Durations, one rule set for settings and schedules.

A duration is one or more ``<number><unit>`` parts, case-insensitive, spaces allowed anywhere:
``30s``, ``5m``, ``1.5h``, ``1h30m``, ``2 d``, ``1w``, ``250ms``. Units: ``ms``, ``s``, ``m``
(minutes), ``h``, ``d``, ``w``. A bare number has no unit of its own: a caller that accepts one
names it (the pruning ttl reads ``"5"`` as five minutes, as the reference does), everywhere else
it is refused as ambiguous. Negative durations and durations over 100 years are refused.
"""

from __future__ import annotations

import re

UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000}
MAX_MS = 100 * 365 * 86_400_000
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")
_BARE = re.compile(r"\d+(?:\.\d+)?")
EXAMPLES = "30s, 5m, 2h, 1d or 1h30m"


class DurationError(ValueError):
    """Text that is not a duration (a ValueError, so settings validation reports it by key)."""


def duration_ms(text: str, *, bare_unit: str | None = None) -> float:
    """Milliseconds in ``text``; a bare number is read in ``bare_unit`` when one is given."""
    raw = re.sub(r"\s+", "", str(text or "")).lower()
    if bare_unit is not None and _BARE.fullmatch(raw):
        total = float(raw) * UNIT_MS[bare_unit]
    else:
        pos, total = 0, 0.0
        for m in _PART.finditer(raw):
            if m.start() != pos:
                break
            total += float(m.group(1)) * UNIT_MS[m.group(2)]
            pos = m.end()
        if not raw or pos != len(raw):
            raise DurationError(f"cannot read duration {text!r}: use e.g. {EXAMPLES}")
    if total > MAX_MS:
        raise DurationError(f"duration {text!r} is longer than 100 years")
    return total


def duration_seconds(text: str, *, bare_unit: str | None = None) -> float:
    return duration_ms(text, bare_unit=bare_unit) / 1000
