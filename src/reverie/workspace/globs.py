"""Glob matching for configured extra paths, shared by indexing and memory_get."""

from __future__ import annotations

import fnmatch


def glob_match(rel: str, pattern: str) -> bool:
    """fnmatch, with a leading ``**/`` also matching no folder at all (``**/*.md`` takes ``a.md``)."""
    if fnmatch.fnmatch(rel, pattern):
        return True
    while pattern.startswith("**/"):
        pattern = pattern[3:]
        if fnmatch.fnmatch(rel, pattern):
            return True
    return False
