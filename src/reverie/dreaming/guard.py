"""Snippets that are never short-term candidates: Dreaming's own output and other machinery.

Its phase bodies (``- Candidate: …``, ``status: staged``, ``Theme: `tag` kept surfacing``,
``[confidence=0.62 evidence=…]``), its markers and headings, the diary's offline label, diff
fragments, and reverie's context frames. A copy of any of these in a note is a summary of memory,
not memory: learning it would make Dreaming feed on itself.
"""

from __future__ import annotations

import re

from ..models.offline_dreams import OFFLINE_DIARY_LABEL

_PATTERNS = re.compile("|".join([
    r"^\s*(?:-\s*)?Candidate:\s", r"\bstatus:\s*staged\b", r"\bTheme:\s*`[^`]+`\s*kept surfacing",
    r"\[confidence=\d", r"\bevidence:\s*\S+:\d+-\d+", r"(?:reverie|openclaw):dreaming:", r"reverie-entry:",
    r"reverie-lineage:", r"openclaw-memory-(?:promotion|lineage):", r"^#{1,3}\s*(?:Light|REM|Deep) Sleep\b",
    r"Possible Lasting Truths", r"No notable updates\.", r"No strong patterns surfaced\.",
    r"^(?:\+\+\+|---) [ab]/", r"^@@ -\d+", r"<\s*/?\s*(?:recalled-memory|untrusted-content)\b",
    r"Memory Consolidation History", re.escape(OFFLINE_DIARY_LABEL),
]), re.I | re.M)


def contaminated(snippet: str) -> bool:
    return bool(_PATTERNS.search(snippet or ""))
