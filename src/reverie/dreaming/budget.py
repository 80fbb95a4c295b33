"""The ``MEMORY.md`` budget (reference §16.9): Dreaming keeps the file under ``memoryMaxChars``
(10,000 by default, never more than ``sessions.bootstrap.maxChars``) by dropping the *oldest
generated blocks first*, and never deletes anything a person wrote.

The file is cut into blocks at every heading. A block is *generated* only when it is a dated
section Dreaming writes (``## Promoted From Short-Term Memory (YYYY-MM-DD)`` or ``## Consolidated
Memory (YYYY-MM-DD)``) whose body is nothing but blank lines, ``### Global`` / ``### Project: K``
group headings, and entries of exactly this shape: an optional lineage marker line, a promotion
marker line, one bullet line. Everything else is kept, in particular:

* a user heading inside such a section (ATX with a tab or up to three leading spaces, a bare
  ``###``, a Setext ``===`` heading) starts a user block of its own;
* a marker-only section (no bullet), a look-alike dated section without markers, a section with a
  line of prose, an orphan lineage marker, or a marker line carrying another comment beside it.

Dropping stops as soon as the text fits; the dates of dropped sections are reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .memoryfile import ENTRY_RE, GENERATED_HEADING_RE, LINEAGE_RE, entry_lines

APPEND_OVERHEAD = 21
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}=+\s*$")
_GROUP = re.compile(r"^### (?:Global|Project: \S.*)$")
_BULLET = re.compile(r"^[-*+] \S")
_ONE_MARKER = re.compile(r"^<!-- ?(?:reverie-entry: |openclaw-memory-promotion:)[^<>]+? ?-->$")
_ONE_LINEAGE = re.compile(r"^<!-- ?(?:reverie-lineage: |openclaw-memory-lineage:)[^<>]+? ?-->$")


@dataclass
class Block:
    start: int
    lines: list[str]
    date: str | None = None  # set only for generated blocks

    @property
    def generated(self) -> bool:
        return self.date is not None


@dataclass
class Compaction:
    text: str
    compacted_sections: int = 0
    compacted_dates: list[str] = field(default_factory=list)
    fits: bool = True


def _heading_at(lines: list[str], i: int) -> bool:
    if _ATX.match(lines[i]):
        return True
    return bool(lines[i].strip()) and i + 1 < len(lines) and bool(_SETEXT.match(lines[i + 1])) \
        and not lines[i].lstrip().startswith(("-", "*", "+", "<!--"))


def blocks_of(text: str) -> list[Block]:
    lines = text.split("\n")
    starts = [0] + [i for i in range(len(lines)) if _heading_at(lines, i) and not _GROUP.match(lines[i])
                    and not (i and _heading_at(lines, i - 1) and _SETEXT.match(lines[i]))]
    starts = sorted(set(starts))
    out = []
    for n, s in enumerate(starts):
        e = starts[n + 1] if n + 1 < len(starts) else len(lines)
        if e > s:
            out.append(Block(s, lines[s:e]))
    for b in out:
        m = GENERATED_HEADING_RE.match(b.lines[0])
        if m and _only_entries(b.lines[1:]):
            b.date = m.group(2)
    return out


def _only_entries(body: list[str]) -> bool:
    """Blank lines, group headings and (lineage?) + marker + one bullet, at least one such entry."""
    i, entries = 0, 0
    while i < len(body):
        line = body[i]
        if not line.strip() or _GROUP.match(line):
            i += 1
            continue
        if _ONE_LINEAGE.match(line):
            i += 1
            if i >= len(body) or not _ONE_MARKER.match(body[i]):
                return False  # an orphan lineage marker: not ours to drop
        if not _ONE_MARKER.match(body[i]):
            return False
        if i + 1 >= len(body) or not _BULLET.match(body[i + 1]):
            return False
        if i + 2 < len(body) and body[i + 2].strip() and not (
                _ONE_MARKER.match(body[i + 2]) or _ONE_LINEAGE.match(body[i + 2]) or _GROUP.match(body[i + 2])):
            return False  # a continuation line or prose after the bullet
        entries += 1
        i += 2
    return entries > 0


def compact(existing: str, addition: str, budget: int, max_loss_fraction: float = 1.0) -> Compaction:
    """``existing`` with the oldest generated blocks dropped until ``existing + addition`` fits."""
    if budget <= 0 or not existing.strip():
        return Compaction(existing, fits=True)
    need = len(addition) + APPEND_OVERHEAD
    if len(existing) + need <= budget:
        return Compaction(existing)
    blocks = blocks_of(existing)
    prior = len(entry_lines(existing))
    order = sorted((b for b in blocks if b.generated), key=lambda b: (b.date, b.start))
    dropped: set[int] = set()
    lost = 0
    size = len(existing)
    for b in order:
        if size + need <= budget:
            break
        n = len(entry_lines("\n".join(b.lines)))
        if prior and (lost + n) / prior > max_loss_fraction:
            break
        dropped.add(b.start)
        lost += n
        size -= len("\n".join(b.lines)) + 1
    kept = [b for b in blocks if b.start not in dropped]
    text = "\n".join(line for b in kept for line in b.lines).lstrip("\n")
    dates = sorted({b.date for b in blocks if b.start in dropped and b.date})
    return Compaction(text, len(dropped), dates, len(text) + need <= budget)


def markers_in(text: str) -> int:
    return len(ENTRY_RE.findall(text)) + len(LINEAGE_RE.findall(text))
