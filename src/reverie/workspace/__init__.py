"""The workspace files: layout, entry annotations, and the only safe ways to write them."""

from .annotations import EntryAnnotations, parse_annotations, strip_annotations
from .layout import MEMORY_HEADER, init_workspace
from .writes import (
    ReplacePlan,
    append_daily,
    append_text,
    daily_note_path,
    format_bullet,
    plan_replace,
    apply_replace,
    sha256_bytes,
)

__all__ = [
    "EntryAnnotations", "parse_annotations", "strip_annotations", "MEMORY_HEADER", "init_workspace",
    "ReplacePlan", "append_daily", "append_text", "daily_note_path", "format_bullet", "plan_replace",
    "apply_replace", "sha256_bytes",
]
