"""Session pruning, ``cache-ttl`` mode (reference §19): old tool results are trimmed or cleared in
the model input only. The stored transcript never changes; what was pruned is remembered (by event)
so the next input prunes the same results the same way and a provider's prompt cache stays valid
until the TTL allows the next prune.

Per model call: skip until ``ttl`` has passed since the last prune; estimate the context in
CJK-weighted characters against the window (4 characters a token); below ``softTrimRatio`` do
nothing; soft-trim tool results longer than ``softTrim.maxChars`` to head + ``...`` + tail; if the
context is still at or above ``hardClearRatio`` and at least ``minPrunableToolChars`` of prunable
tool output remain, clear older results (oldest first) to the placeholder. Never touched: anything
before the first user message and the last ``keepLastAssistants`` assistant turns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models.base import ChatMessage
from ..text.cjk import weighted_length

CHARS_PER_TOKEN = 4


@dataclass
class PruneStats:
    mode: str
    soft_trimmed: int = 0
    hard_cleared: int = 0
    chars_before: int = 0
    chars_after: int = 0
    ran: bool = False
    skipped: str | None = None

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Pruner:
    settings: object  # reverie.config.PruningSettings
    mode: str  # "off" | "cache-ttl" (resolved)
    ttl: float
    decisions: dict[int, str] = field(default_factory=dict)  # event seq -> "soft" | "hard"
    last_prune: float | None = None

    def reset(self) -> None:
        self.decisions.clear()
        self.last_prune = None

    def _soft(self, text: str) -> str:
        st = self.settings.soft_trim
        head, tail = text[:st.head_chars], text[len(text) - st.tail_chars:] if st.tail_chars else ""
        return (f"{head}\n...\n{tail}\n[Tool result trimmed: kept the first {st.head_chars} and last "
                f"{st.tail_chars} of {len(text)} characters]")

    def _render(self, seq: int | None, msg: ChatMessage) -> ChatMessage:
        how = self.decisions.get(seq) if seq is not None else None
        if how is None or msg.role != "tool":
            return msg
        content = self.settings.hard_clear.placeholder if how == "hard" else self._soft(msg.content)
        return ChatMessage(msg.role, content, msg.tool_calls, msg.tool_call_id, msg.name)

    def apply(self, items: list[tuple[int | None, ChatMessage]], window: int, now: float,
              fixed_chars: int = 0) -> tuple[list[ChatMessage], PruneStats]:
        """``items`` are (event seq, message) in order; returns the messages to send."""
        stats = PruneStats(self.mode)
        if self.mode == "off":
            stats.skipped = "off"
            return [m for _, m in items], stats
        s = self.settings
        due = self.last_prune is None or now - self.last_prune >= self.ttl
        if due:
            budget = max(1, window * CHARS_PER_TOKEN)

            def size() -> int:
                return fixed_chars + sum(weighted_length(self._render(q, m).content) for q, m in items)

            stats.chars_before = size()
            first_user = next((i for i, (_, m) in enumerate(items) if m.role == "user"), len(items))
            assistants = [i for i, (_, m) in enumerate(items) if m.role == "assistant"]
            protect_from = assistants[-s.keep_last_assistants] if s.keep_last_assistants and \
                len(assistants) >= s.keep_last_assistants else (len(items) if not s.keep_last_assistants else 0)
            prunable = [i for i in range(first_user, protect_from)
                        if items[i][1].role == "tool" and items[i][0] is not None]
            changed = False
            if stats.chars_before / budget >= s.soft_trim_ratio:
                for i in prunable:
                    seq, msg = items[i]
                    if seq not in self.decisions and len(msg.content) > s.soft_trim.max_chars:
                        self.decisions[seq] = "soft"
                        changed = True
                remaining = sum(len(self._render(items[i][0], items[i][1]).content) for i in prunable
                                if self.decisions.get(items[i][0]) != "hard")
                if (s.hard_clear.enabled and size() / budget >= s.hard_clear_ratio
                        and remaining >= s.min_prunable_tool_chars):
                    for i in prunable:
                        if size() / budget < s.hard_clear_ratio:
                            break
                        if self.decisions.get(items[i][0]) != "hard":
                            self.decisions[items[i][0]] = "hard"
                            changed = True
            else:
                stats.skipped = "below softTrimRatio"
            if changed:
                self.last_prune = now  # the TTL clock restarts only when something changed
                stats.ran = True
        else:
            stats.skipped = "ttl"
        out = [self._render(q, m) for q, m in items]
        stats.soft_trimmed = sum(1 for q, _ in items if self.decisions.get(q) == "soft")
        stats.hard_cleared = sum(1 for q, _ in items if self.decisions.get(q) == "hard")
        stats.chars_after = fixed_chars + sum(weighted_length(m.content) for m in out)
        if not stats.chars_before:
            stats.chars_before = fixed_chars + sum(weighted_length(m.content) for _, m in items)
        return out, stats


def resolve_mode(settings, provider: str) -> tuple[str, float]:
    """``auto``: cache-ttl with a 1 h ttl for anthropic (only where ttl is unset), off otherwise."""
    mode = settings.mode
    ttl = settings.ttl
    if mode == "auto":
        if provider == "anthropic":
            mode = "cache-ttl"
            if "ttl" not in settings.model_fields_set:
                ttl = 3600.0
        else:
            mode = "off"
    return mode, ttl
