"""A context window sized from what a session's prompt costs before anyone speaks.

Tests of the flush and compaction thresholds need a known amount of room for messages. The fixed
part of the prompt (system prompt, workspace files, tool definitions) grows whenever a tool is
added, so a fixed window (16,000 tokens) silently moved every threshold; this sizes the window so
that the flush threshold sits ``headroom`` tokens above that fixed part.
"""

from __future__ import annotations

from reverie.sessions.plan import window_plan


def roomy_window(mem, model, headroom: int = 1_500) -> int:
    """The smallest window whose flush threshold (sessions/plan.py) is at least the empty
    session's prompt plus ``headroom`` tokens (the threshold never falls as the window grows)."""
    probe = mem.runtime(model, context_window=200_000, session="threshold-probe")
    wanted = probe.context_report()["input"]["totalTokens"] + headroom
    probe.close()
    lo, hi = 1_000, 1_000_000
    while lo < hi:
        mid = (lo + hi) // 2
        if window_plan(mid, mem.settings.compaction).flush_threshold >= wanted:
            hi = mid
        else:
            lo = mid + 1
    return lo
