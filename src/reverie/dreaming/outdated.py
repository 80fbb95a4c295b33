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
from .memoryfile import STATUS_RE, entry_project, generated, is_entry_line, markers_above

SUPERSEDED = "superseded"
_CITED = re.compile(r"\bSource:\s+(memory/[^#\s]+\.md)#L(\d+)")


def status_marker(observed: str) -> str:
    return f"<!-- observed: {observed} | status: {SUPERSEDED} -->"


def _cited_line(source_ref: str) -> tuple[str, int]:
    """(the note, its first line) of a citation ``path#La-Lb``."""
    path, _, lines = source_ref.partition("#L")
    first = lines.split("-")[0]
    return path, int(first) if first.isdigit() else 0


def mark_outdated(text: str, promoted: list[str], budget: int) -> tuple[str, list[tuple[str, str]]]:
    """``text`` (the new MEMORY.md) with each entry that a later one updates marked superseded in
    place, where one of the two was just promoted (``promoted``: the citations, ``path#La-Lb``, of
    what this sweep wrote), and those entries as (the entry line, the citation of the entry that
    updates it). Both ways: a new fact outdates an older entry, and an older fact promoted late (its
    recalls came later) is outdated by a newer entry already there. Left unmarked when the markers
    would take the file over its ``budget`` (they are a ranking hint, never worth a promotion)."""
    lines = text.split("\n")
    new_refs = {_cited_line(ref) for ref in promoted}
    entries = []  # (line index, its date, the cited (path, line), its project)
    for i, line in enumerate(lines):
        if not is_entry_line(line) or not generated(lines, i) or \
                any(STATUS_RE.search(lines[j]) for j in markers_above(lines, i)):
            continue  # (a person's line, or one marked already)
        cited = _CITED.search(line)
        when = dated("MEMORY.md", 0, line)
        if cited and when is not None:  # an entry citing no dated note cannot be ordered
            entries.append((i, when, (cited.group(1), int(cited.group(2))), entry_project(line)))
    outdated: dict[int, str] = {}  # the outdated entry's line index -> the citation of what updates it
    for i, when_i, ref_i, project_i in entries:  # i: the later one
        for j, when_j, ref_j, project_j in entries:
            # later: a later day, or a later line of the same note (two notes of one day are not ordered)
            later = when_i[0] > when_j[0] or (ref_i[0] == ref_j[0] and ref_i[1] > ref_j[1])
            if j in outdated or not later or project_i != project_j or not (ref_i in new_refs or ref_j in new_refs):
                continue
            if not same_fact(lines[i], lines[j]) and updates_fact(lines[i], lines[j]):
                outdated[j] = f"{ref_i[0]}#L{ref_i[1]}"
    if not outdated:
        return text, []
    dates = {i: when[0] for i, when, _, _ in entries}
    # the marker goes at the top of the entry's block (above its lineage and entry markers)
    tops = {min(markers_above(lines, j), default=j): status_marker(dates[j]) for j in outdated}
    out: list[str] = []
    for k, line in enumerate(lines):
        if k in tops:
            out.append(tops[k])
        out.append(line)
    marked = "\n".join(out)
    if budget > 0 and len(marked) > budget:
        return text, []
    return marked, [(lines[j].rstrip(), by) for j, by in outdated.items()]
