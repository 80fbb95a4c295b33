"""Conversations: transcripts in the agent database, compaction, the pre-compaction memory flush,
the session-memory hook, pruning of old tool results, and transcript search.

The seeds' first two steps of memory: every message is kept first (the transcript), then a little
of it becomes a daily note (the flush, the session note). :mod:`reverie.runtime` drives them.
"""

from ..lazy_exports import lazy_exports

# ``search`` is the name of a function and of the module defining it: imported here, so that the
# package's ``search`` is the function whichever is imported first (see reverie.lazy_exports)
from .search import can_see, history, search

# the rest is imported on first use: reading the bootstrap files (status) needs no transcript store
__getattr__ = lazy_exports(__name__, {
    ".compaction": ("ActiveContext", "active_context", "split_for_compaction", "summarize", "units"),
    ".context": ("MEMORY_RECALL", "ModelInput", "build_input"),
    ".flush": ("FlushResult", "run_flush"),
    ".hook": ("SessionMemoryHook", "write_session_note"),
    ".jsonl": ("export_lines", "import_jsonl", "parse_jsonl"),
    ".keys": ("channel_of", "chat_type_of", "main_key", "normalize_key"),
    ".plan": ("MAX_OVERFLOW_COMPACTION_ATTEMPTS", "WindowPlan", "effective_reserve", "window_plan"),
    ".pruning": ("Pruner", "resolve_mode"),
    ".schema": ("TRANSCRIPT_MIGRATIONS",),
    ".store": ("MESSAGE_KINDS", "Event", "SessionRow", "TranscriptStore", "iso_ms"),
})

__all__ = [
    "ActiveContext", "active_context", "split_for_compaction", "summarize", "units", "MEMORY_RECALL", "ModelInput",
    "build_input", "FlushResult", "run_flush", "SessionMemoryHook", "write_session_note", "export_lines",
    "import_jsonl", "parse_jsonl", "channel_of", "chat_type_of", "main_key", "normalize_key",
    "MAX_OVERFLOW_COMPACTION_ATTEMPTS", "WindowPlan", "effective_reserve", "window_plan", "Pruner", "resolve_mode",
    "TRANSCRIPT_MIGRATIONS", "can_see", "history", "search", "MESSAGE_KINDS", "Event", "SessionRow",
    "TranscriptStore", "iso_ms",
]
