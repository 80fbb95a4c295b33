"""Thresholds of one context window: compaction reserve, flush threshold, recent tokens kept
(reference §13, §14.1, §14.2).

| window | reserve | soft | flush at | compact at | keep recent |
|---:|---:|---:|---:|---:|---:|
| 8,000 | 4,000 | 2,000 | 2,000 | 4,000 | 2,000 |
| 16,000 | 8,000 | 4,000 | 4,000 | 8,000 | 4,000 |
| 32,000 | 20,000 | 4,000 | 8,000 | 12,000 | 6,000 |
| 200,000 | 20,000 | 4,000 | 176,000 | 180,000 | 20,000 |

Keep recent: the reference keeps the last 20,000 tokens whatever the window, which on a small
window leaves nothing to summarise (or more than the window). reverie keeps
``min(keepRecentTokens, (window - reserve) / 2)``: half of the prompt budget, so that after a
compaction the summary plus the recent messages sit well under the compaction threshold.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

MAX_OVERFLOW_COMPACTION_ATTEMPTS = 3
DEFAULT_CONTEXT_TOKENS = 200_000


def effective_reserve(window: int, reserve: int) -> int:
    """The reserve capped against the window (§14.1): a prompt of at least min(8,000, window/2)."""
    min_prompt = min(8_000, max(1, window // 2))
    return min(reserve, max(0, window - min_prompt))


@dataclass(frozen=True)
class WindowPlan:
    window: int
    reserve: int
    soft: int
    flush_threshold: int  # flush once the prompt reaches this (<= 0: never by tokens)
    compaction_threshold: int  # compact after a turn once the prompt passes this
    keep_recent: int
    force_flush_bytes: int  # 0: off
    flush_enabled: bool
    compaction_enabled: bool

    def as_dict(self) -> dict:
        return asdict(self)


def window_plan(window: int, compaction) -> WindowPlan:
    """``compaction`` is :class:`reverie.config.CompactionSettings`."""
    window = window or DEFAULT_CONTEXT_TOKENS
    reserve = effective_reserve(window, compaction.reserve_tokens_floor)
    flush = compaction.memory_flush
    soft = min(flush.soft_threshold_tokens, max(0, (window - reserve) // 2))
    keep = min(compaction.keep_recent_tokens, max(1, (window - reserve) // 2))
    return WindowPlan(window=window, reserve=reserve, soft=soft, flush_threshold=window - reserve - soft,
                      compaction_threshold=window - reserve, keep_recent=keep,
                      force_flush_bytes=flush.force_flush_transcript_bytes,
                      flush_enabled=flush.enabled, compaction_enabled=compaction.enabled)
