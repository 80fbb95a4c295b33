"""Trust: provenance the program records, taint, quarantine, and the gates on injection and
promotion (reference §6.5, §12). See docs/trust.md.

Depends only on ``store``, ``workspace`` and ``text``, so the indexer, the transcript code and the
runtime can all ask it; nothing here imports them.

* :mod:`.classes` origin classes and session kinds, :class:`Provenance`
* :mod:`.writer` who is writing now (``writing_as``)
* :mod:`.segments` / :mod:`.store` daily-note provenance records (byte segments, per-line hashes)
* :mod:`.taint` tool calls that taint a turn (:class:`ToolSession`)
* :mod:`.recall` recall marking and stripping (no re-ingestion)
* :mod:`.framing` recall and untrusted frames
* :mod:`.policy` ``may_inject`` / ``may_promote``
* :mod:`.tombstones`, :mod:`.lineage` what forget removed; where promoted entries came from
"""

from ..lazy_exports import lazy_exports

# each imported on first use: writing a note needs the store and the writer, not the recall policy
__getattr__ = lazy_exports(__name__, {
    ".classes": ("BACKGROUND_KINDS", "ORIGINS", "SESSION_KINDS", "TRUSTED", "Provenance", "is_trusted",
                 "least_trusted", "session_kind_of", "weakest_kind"),
    ".framing": ("frame_recall", "frame_result", "frame_untrusted", "neutralise_tags"),
    ".policy": ("Candidate", "Decision", "Trust", "injection_decision", "may_promote", "promotion_decision"),
    ".recall": ("AUTO_LANES", "RECALL_TOOLS", "RecallItem", "RecallPool", "items_from_result", "pool_of",
                "strip_recalled"),
    ".store": ("daily_guard", "file_origins", "open_trust_db", "record_whole_file", "tracked"),
    ".taint": ("ToolSession", "result_origin"),
    ".writer": ("DEFAULT_WRITER", "OWNER_CLI", "current_writer", "resolve_writer", "writing_as"),
})

__all__ = [
    "BACKGROUND_KINDS", "ORIGINS", "SESSION_KINDS", "TRUSTED", "Provenance", "is_trusted", "least_trusted",
    "session_kind_of", "weakest_kind", "frame_recall", "frame_result", "frame_untrusted", "neutralise_tags",
    "Candidate", "Decision", "Trust", "injection_decision", "may_promote", "promotion_decision", "AUTO_LANES",
    "RECALL_TOOLS", "RecallItem", "RecallPool", "items_from_result", "pool_of", "strip_recalled", "daily_guard",
    "file_origins", "open_trust_db", "record_whole_file", "tracked", "ToolSession", "result_origin",
    "DEFAULT_WRITER", "OWNER_CLI", "current_writer", "resolve_writer", "writing_as",
]
