"""The workspace files: layout, entry annotations, and the only safe ways to write them."""

from ..lazy_exports import lazy_exports

# each imported on first use: reading a file (reverie get) needs none of the writers
__getattr__ = lazy_exports(__name__, {
    ".annotations": ("EntryAnnotations", "parse_annotations", "strip_annotations"),
    ".layout": ("MEMORY_HEADER", "init_workspace"),
    ".writes": ("ReplacePlan", "append_daily", "append_text", "daily_note_path", "format_bullet", "plan_replace",
                "apply_replace", "sha256_bytes"),
})

__all__ = [
    "EntryAnnotations", "parse_annotations", "strip_annotations", "MEMORY_HEADER", "init_workspace",
    "ReplacePlan", "append_daily", "append_text", "daily_note_path", "format_bullet", "plan_replace",
    "apply_replace", "sha256_bytes",
]
