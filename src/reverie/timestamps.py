"""Times as hosts and transcripts write them: ISO 8601 text (``Z`` or an offset, or none) or epoch
numbers in seconds or milliseconds (OpenClaw writes both). One reading for every place that takes
a host's time: a text that is not a time is None, never an exception."""

from __future__ import annotations

import math
from datetime import datetime

#: an epoch number above this is in milliseconds (1973 in ms; year 2286 in seconds)
MS_ABOVE = 10_000_000_000


def parse_iso(value: object) -> datetime | None:
    """The time an ISO 8601 text names (``2026-07-01T09:30:00Z``, ``…+08:00``, a date), None when
    the text is empty or not a time."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def epoch_ms(value: object) -> int | None:
    """Epoch milliseconds of an ISO 8601 text or of an epoch number (seconds or milliseconds)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value if value > MS_ABOVE else value * 1000) if math.isfinite(value) else None
    when = parse_iso(value)
    try:  # a naive time of year 1 has no epoch in the local zone
        return None if when is None else int(when.timestamp() * 1000)
    except (ValueError, OverflowError, OSError):
        return None
