"""Conversations: transcripts in the agent database, compaction, the pre-compaction memory flush,
the session-memory hook, pruning of old tool results, and transcript search.

The seeds' first two steps of memory: every message is kept first (the transcript), then a little
of it becomes a daily note (the flush, the session note). :mod:`reverie.runtime` drives them.
"""

from .compaction import ActiveContext, active_context, split_for_compaction, summarize, units
from .context import MEMORY_RECALL, ModelInput, build_input
from .flush import FlushResult, run_flush
from .hook import SessionMemoryHook, write_session_note
from .jsonl import export_lines, import_jsonl, parse_jsonl
from .keys import channel_of, chat_type_of, main_key, normalize_key
from .plan import MAX_OVERFLOW_COMPACTION_ATTEMPTS, WindowPlan, effective_reserve, window_plan
from .pruning import Pruner, resolve_mode
from .schema import TRANSCRIPT_MIGRATIONS
from .search import can_see, history, search
from .store import MESSAGE_KINDS, Event, SessionRow, TranscriptStore, iso_ms

__all__ = [
    "ActiveContext", "active_context", "split_for_compaction", "summarize", "units", "MEMORY_RECALL", "ModelInput",
    "build_input", "FlushResult", "run_flush", "SessionMemoryHook", "write_session_note", "export_lines",
    "import_jsonl", "parse_jsonl", "channel_of", "chat_type_of", "main_key", "normalize_key",
    "MAX_OVERFLOW_COMPACTION_ATTEMPTS", "WindowPlan", "effective_reserve", "window_plan", "Pruner", "resolve_mode",
    "TRANSCRIPT_MIGRATIONS", "can_see", "history", "search", "MESSAGE_KINDS", "Event", "SessionRow",
    "TranscriptStore", "iso_ms",
]
