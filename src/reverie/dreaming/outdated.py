"""Facts that change, kept current by reverie: when Dreaming promotes a fact that updates an entry it
promoted before ("I got a new phone number: 0151 5550 9876" after "My phone number is 0176 5550
1234"), the earlier entry is marked superseded **in place**, with the seeds' observed/status
contract on the line above it::

    <!-- observed: 2026-10-10 | status: superseded -->
    <!-- reverie-entry: st-b9519e2498a4 -->
    - My phone number is 0176 5550 1234. Source: memory/2026-10-10.md#L3-L3 <!-- trigger: phone number -->

Nothing is removed: the history stays in the file, where the owner reads it. A superseded entry no
longer fires its trigger (recall/trigger.py), and search ranks it × 0.5 below the fact that replaced
it (search/rescore.py), so the automatic lanes and the startup context stop offering the old value.

The judgement is reverie's own code (:func:`reverie.search.newest.updates_fact`), never a model's
free text, and deliberately strict: the subject shared (two words' worth), a new number or a word
announcing a change, the same people, and the later fact's note dated after the one the earlier
cites (a later day, or a later line of one note: two notes of one day are not ordered). Only
entries Dreaming wrote are marked (a line a person wrote is theirs to edit), each once.
A supersede key the owner wrote (``<!-- supersede-key: … -->``, docs/dreaming.md) still *replaces*
its lineage; this covers the facts nobody keyed.
"""

from __future__ import annotations

import re

from ..search.newest import dated, updates_fact
from ..text.facts import same_fact
from .memoryfile import ENTRY_RE, LINEAGE_RE, MARKER_ONLY, STATUS_RE, entry_project, generated, is_entry_line

SUPERSEDED = "superseded"
_CITED = re.compile(r"\bSource:\s+(memory/[^#\s]+\.md)#L(\d+)")


def status_marker(observed: str) -> str:
    return f"<!-- observed: {observed} | status: {SUPERSEDED} -->"


def _top_marker(lines: list[str], i: int) -> int:
    """The first line of entry ``i``'s block (its lineage or entry marker), or ``i`` itself."""
    j = i
    while j > 0 and MARKER_ONLY.match(lines[j - 1]) and (ENTRY_RE.search(lines[j - 1]) or LINEAGE_RE.search(lines[j - 1])
                                                          or STATUS_RE.search(lines[j - 1])):
        j -= 1
    return j


def _marked(lines: list[str], i: int) -> bool:
    j = i - 1
    while j >= 0 and MARKER_ONLY.match(lines[j]):
        if STATUS_RE.search(lines[j]):
            return True
        j -= 1
    return False


def fact_of(text: str, source_ref: str, project: str | None) -> tuple[str, str, int, str | None]:
    """A promoted fact as :func:`outdated_by` reads it, from its citation (``path#La-Lb``)."""
    path, _, lines = source_ref.partition("#L")
    first = lines.split("-")[0]
    return text, path, int(first) if first.isdigit() else 0, project


def outdated_by(text: str, facts: list[tuple[str, str, int, str | None]]) -> list[tuple[str, str]]:
    """The entries of ``text`` that a later one updates, where one of the two is a fact just promoted
    (``facts``: its text, its note's path, its first line, its project group), as (the outdated entry
    line, the citation of the entry that updates it). Both ways: a new fact outdates an older entry,
    and an older fact promoted late (its recalls came later) is outdated by a newer entry already there."""
    lines = text.split("\n")
    new_refs = {(path, start) for _, path, start, _ in facts}
    entries = []  # (line index, its date, the cited (path, line), its project)
    for i, line in enumerate(lines):
        if not is_entry_line(line) or not generated(lines, i) or _marked(lines, i):
            continue
        cited = _CITED.search(line)
        when = dated("MEMORY.md", 0, line)
        if cited and when is not None:  # an entry citing no dated note cannot be ordered
            entries.append((i, when, (cited.group(1), int(cited.group(2))), entry_project(line)))
    out: list[tuple[str, str]] = []
    marked: set[int] = set()
    for i, when_i, ref_i, project_i in entries:  # i: the later one
        for j, when_j, ref_j, project_j in entries:
            # later: a later day, or a later line of the same note (two notes of one day are not ordered)
            later = when_i[0] > when_j[0] or (ref_i[0] == ref_j[0] and ref_i[1] > ref_j[1])
            if j in marked or not later or project_i != project_j or not (ref_i in new_refs or ref_j in new_refs):
                continue
            if not same_fact(lines[i], lines[j]) and updates_fact(lines[i], lines[j]):
                out.append((lines[j].rstrip(), f"{ref_i[0]}#L{ref_i[1]}"))
                marked.add(j)
    return out


def mark_outdated(text: str, outdated: list[tuple[str, str]]) -> str:
    """``text`` with the status marker above each outdated entry (the first occurrence of each line
    that is not marked yet)."""
    if not outdated:
        return text
    lines = text.split("\n")
    todo = [line for line, _ in outdated]
    inserts: dict[int, str] = {}
    for i, line in enumerate(lines):
        key = line.rstrip()
        if key in todo and is_entry_line(line) and generated(lines, i) and not _marked(lines, i):
            todo.remove(key)
            when = dated("MEMORY.md", 0, line)
            inserts[_top_marker(lines, i)] = status_marker(when[0] if when else "")
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in inserts:
            out.append(inserts[i])
        out.append(line)
    return "\n".join(out)
