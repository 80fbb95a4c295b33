"""The shape of what Dreaming writes into ``MEMORY.md`` (reference §2.1), and reading it back.

A promoted entry is one bullet with a marker on the line above it (the lineage table points at
the key, so ``reverie forget`` can find it), and for a fact that can change, a lineage marker
above that::

    <!-- reverie-lineage: home-city -->
    <!-- reverie-entry: st-1a2b3c4d5e6f -->
    - I live in Berlin now. Source: memory/2026-07-18.md#L5-L5 <!-- trigger: live, berlin --> <!-- importance: 8 -->

Consolidated entries end in ``Source: path#La-Lb``; entries of the append-only fallback carry their
score instead (``[score=0.812 signals=4 recalls=3 avg=0.640 source=memory/2026-07-01.md:3-5]``).
Sections: ``## Consolidated Memory (YYYY-MM-DD)`` and ``## Promoted From Short-Term Memory
(YYYY-MM-DD)``, with ``### Global`` / ``### Project: <key>`` when a section holds several project
groups. OpenClaw's ``openclaw-memory-promotion:`` and ``openclaw-memory-lineage:`` markers are
recognised too (an imported workspace keeps working).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

from ..trust.lineage import entry_marker
from ..workspace.annotations import parse_annotations

MEMORY_HEADER = "# Long-Term Memory"
ENTRY_RE = re.compile(r"<!--\s*(?:reverie-entry:\s*|openclaw-memory-promotion:)(.+?)\s*-->")
LINEAGE_RE = re.compile(r"<!--\s*(?:reverie-lineage:\s*|openclaw-memory-lineage:)(.+?)\s*-->")
MARKER_ONLY = re.compile(r"^\s*(?:<!--.*?-->\s*)+$")
FENCE = re.compile(r"^\s*(```|~~~)")
PROMOTED_HEADING = "Promoted From Short-Term Memory"
CONSOLIDATED_HEADING = "Consolidated Memory"
GENERATED_HEADING_RE = re.compile(rf"^## ({PROMOTED_HEADING}|{CONSOLIDATED_HEADING}) \((\d{{4}}-\d{{2}}-\d{{2}})\)\s*$")
GROUP_HEADING_RE = re.compile(r"^### (?:Global|Project: .+)\s*$")
SUPERSEDE_ANNOTATION = re.compile(r"<!--\s*supersede-key\s*:\s*(.*?)\s*-->", re.I)
# the observed/status marker of an entry a later fact updated (.outdated): it travels with the entry
STATUS_RE = re.compile(r"<!--\s*(?:observed\s*:[^>]*?\|\s*)?status\s*:", re.I)
_KEY_SAFE = re.compile(r"[^a-z0-9._:-]+")


def entry_key_for(candidate_key: str) -> str:
    """The marker key of a short-term candidate: stable, so a second promotion finds the first."""
    return "st-" + hashlib.sha1(candidate_key.encode("utf-8")).hexdigest()[:12]


def supersede_key(raw: str | None) -> str | None:
    """A ``<!-- supersede-key: … -->`` value as a marker-safe key (``Home city`` -> ``home-city``)."""
    if not raw:
        return None
    key = _KEY_SAFE.sub("-", raw.strip().lower()).strip("-")[:80]
    return key or None


def supersede_key_in(text: str) -> str | None:
    m = SUPERSEDE_ANNOTATION.search(text or "")
    return supersede_key(m.group(1)) if m else None


def lineage_marker(key: str) -> str:
    return f"<!-- reverie-lineage: {key} -->"


def is_entry_line(line: str) -> bool:
    """What the loss fraction counts (reference §16.7): a non-empty line that is not a heading, a
    comment line or a code fence."""
    s = line.strip()
    return bool(s) and not s.startswith(("#", "<!--", "-->")) and not FENCE.match(s)


def entry_lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in (text or "").split("\n") if is_entry_line(ln)]


def marker_keys(text: str) -> set[str]:
    return {m.group(1).strip() for m in ENTRY_RE.finditer(text or "")}


def _is_bullet(line: str) -> bool:
    return bool(re.match(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+", line))


def continued(lines: list[str], i: int) -> bool:
    """Whether the entry starting at ``lines[i]`` has continuation lines below it."""
    if i + 1 >= len(lines):
        return False
    nxt = lines[i + 1]
    return bool(nxt.strip()) and not nxt.lstrip().startswith("#") and not _is_bullet(nxt) \
        and not MARKER_ONLY.match(nxt)


def markers_above(lines: list[str], i: int) -> list[int]:
    """Indexes of the marker lines directly above line ``i`` (entry marker, lineage marker, status)."""
    out = []
    j = i - 1
    while j >= 0 and MARKER_ONLY.match(lines[j]) and (ENTRY_RE.search(lines[j]) or LINEAGE_RE.search(lines[j])
                                                       or STATUS_RE.search(lines[j])):
        out.append(j)
        j -= 1
    return out


def generated(lines: list[str], i: int) -> bool:
    """Whether the entry at ``lines[i]`` carries a promotion marker (Dreaming wrote it)."""
    return any(ENTRY_RE.search(lines[j]) for j in markers_above(lines, i))


def generated_entries(text: str) -> list[str]:
    lines = (text or "").split("\n")
    return [ln.rstrip() for i, ln in enumerate(lines) if is_entry_line(ln) and generated(lines, i)]


def lineage_entries(text: str) -> dict[str, list[str]]:
    """``supersede key -> the entry lines carrying it`` (the lineage marker sits above the entry)."""
    lines = (text or "").split("\n")
    out: dict[str, list[str]] = {}
    for i, line in enumerate(lines):
        if not is_entry_line(line):
            continue
        for j in markers_above(lines, i):
            m = LINEAGE_RE.search(lines[j])
            if m:
                out.setdefault(m.group(1).strip(), []).append(line.rstrip())
    return out


def entry_project(line: str) -> str | None:
    projects = parse_annotations(line).projects
    return projects[0] if projects else None


def remove_entries(text: str, remove: Counter) -> str:
    """``text`` without the first occurrences of each line in ``remove`` (and their marker lines)."""
    lines = text.split("\n")
    left = Counter(remove)
    drop: set[int] = set()
    for i, line in enumerate(lines):
        key = line.rstrip()
        if left.get(key, 0) > 0 and is_entry_line(line) and generated(lines, i):  # never a person's line
            left[key] -= 1
            drop.add(i)
            drop.update(markers_above(lines, i))
    return "\n".join(ln for i, ln in enumerate(lines) if i not in drop)


def drop_empty_generated_sections(text: str) -> str:
    """A dated section Dreaming wrote whose entries have all been merged away goes too."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if GENERATED_HEADING_RE.match(lines[i]):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("## ") and not lines[j].startswith("# "):
                j += 1
            body = lines[i + 1:j]
            if all(not b.strip() or GROUP_HEADING_RE.match(b) for b in body):
                i = j
                continue
            out.extend(lines[i:j])
            i = j
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


# -- formats ---------------------------------------------------------------------------------------------
def _one_line(text: str, limit: int = 64) -> str:
    t = re.sub(r"<!--|-->|[\r\n,;]", " ", text or "")
    return " ".join(t.split())[:limit].strip()


def annotations(phrases: list[str], score: float, project: str | None) -> str:
    """The annotation comments of a promoted entry: its trigger phrases (:mod:`.trigger_words`;
    none written when there are none), importance and project."""
    triggers = [t for t in (_one_line(x) for x in phrases[:3]) if t]
    parts = []
    if triggers:
        parts.append(f"<!-- trigger: {', '.join(triggers)} -->")
    parts.append(f"<!-- importance: {max(3, min(10, round(score * 10)))} -->")
    if project and not any(c in project for c in "\r\n<>"):
        parts.append(f"<!-- project: {project.replace(';', chr(92) + ';')} -->")
    return " ".join(parts)


def display_snippet(snippet: str, max_chars: int) -> str:
    """The promoted text, cut to ``max_chars`` (reference §16.5): at a sentence end beyond 55 % of
    the limit, else at a space beyond 65 %, else hard; ``...`` appended when cut."""
    text = " ".join(re.sub(r"<!--|-->", " ", snippet or "").split())
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    cut = max(head.rfind(". "), head.rfind("! "), head.rfind("? "))
    if cut >= 0.55 * max_chars:
        return head[:cut + 1] + "..."
    space = head.rfind(" ")
    if space >= 0.65 * max_chars:
        return head[:space] + "..."
    return head + "..."


def source_ref(path: str, start: int, end: int) -> str:
    return f"{path}#L{start}-L{end}"


def consolidated_entry(snippet: str, path: str, start: int, end: int, tags: list[str], score: float,
                       project: str | None) -> str:
    return f"- {snippet} Source: {source_ref(path, start, end)} {annotations(tags, score, project)}"


def appended_entry(snippet: str, path: str, start: int, end: int, tags: list[str], score: float, signals: int,
                   recalls: int, avg: float, project: str | None) -> str:
    meta = f"[score={score:.3f} signals={signals} recalls={recalls} avg={avg:.3f} source={path}:{start}-{end}]"
    return f"- {snippet} {meta} {annotations(tags, score, project)}"


def block(entry: str, key: str, lineage: str | None) -> list[str]:
    out = [lineage_marker(lineage)] if lineage else []
    return out + [entry_marker(key), entry]


def with_header(text: str) -> str:
    """A file that is empty gets ``# Long-Term Memory`` when Dreaming first writes it."""
    return text if text.strip() else MEMORY_HEADER + "\n"


def section_text(heading: str, groups: list[tuple[str | None, list[list[str]]]]) -> str:
    """A new dated section: one block per entry, grouped under ``### Global`` / ``### Project: <key>``
    when there is more than one group."""
    out = [heading]
    many = len(groups) > 1
    for project, blocks in groups:
        if many:
            out += ["", f"### Project: {project}" if project else "### Global"]
        for b in blocks:
            out += b
    return "\n".join(out) + "\n"


def append_section(text: str, heading: str, groups: list[tuple[str | None, list[list[str]]]]) -> str:
    return with_header(text).rstrip("\n") + "\n\n" + section_text(heading, groups)
