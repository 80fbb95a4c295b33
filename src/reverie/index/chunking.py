"""Markdown chunking: entries as the units search scores and shows, windows as their context.

A **unit** is one entry of a note: a list item with its continuation lines and sub-items, one line
of prose (a turn of a conversation, a table row), a fenced code block, or, in the curated files
(``MEMORY.md``, ``USER.md``), a ``##`` section's prose. A comment-only line (``<!-- observed: … -->``
in USER.md, a promotion marker) belongs to the entry below it. Each unit keeps only its own entry's
annotations. An entry longer than :data:`UNIT_TOKENS` is cut into pieces at sentence ends; the pieces
share the entry's annotations. Lines are 1-based and inclusive.

A **window** is a run of consecutive units of one file of about ``tokens`` tokens (the reference's
400), each carrying the last units of the previous one up to ``overlap`` tokens (80). Search scores a
unit with its window's and its file's relevance as context, and a result cites its window, so an
agent that reads the citation sees the unit in its surroundings. In the curated files every entry
is its own window: a neighbour's facts are not its context.

The three metadata lines of a session note reverie writes (``- **Session Key**: …``, ``- **Session
ID**: …``, ``- **Source**: …`` under ``# Session: …``) are no unit: they say where a conversation came
from, not what was said. Indexed, "claude" or "source" found every session note's header, and the
note's random session id made its file context (and so its scores) differ from one write of the same
conversation to the next. (An index made before keeps those chunks until the note is indexed again,
``reverie index --force``; they are harmless, so the chunker's identity is unchanged.)

Budgets are CJK-weighted (reference §6.2): a CJK code point weighs 4 characters, about one token.
Why units this small: measured on LoCoMo, scoring single entries with their window as context puts
the answer into what the agent reads about twice as often per token as scoring 400-token windows
and showing their first 700 characters (docs/search.md).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ..text.boilerplate import session_meta_lines
from ..text.cjk import weighted_length

UNIT_TOKENS = 128  # a unit's budget: about one paragraph, and always inside one snippet
# Part of the index identity: an index chunked another way says it needs a rebuild.
CHUNKER = f"entries-{UNIT_TOKENS}"
CURATED_FILES = frozenset({"MEMORY.md", "memory.md", "USER.md"})

_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM_RE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_COMMENT_LINE_RE = re.compile(r"^\s*<!--.*-->\s*$")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_ANNOTATION_RE = re.compile(r"<!--\s*[a-zA-Z_-]+\s*:.*?-->", re.S)
# where a long entry may be cut: after a sentence end (and its closing quotes), or a CJK clause end
_SENTENCE_END_RE = re.compile(r"(?<=[.!?;:])[\"')\]”’]*\s+|(?<=[。！？；…])")
_TERMINAL = tuple(".!?;:。！？；…)]\"'”’>")


@dataclass(frozen=True)
class Chunk:
    """A unit: what the keyword and vector legs score and what a snippet shows."""

    start_line: int
    end_line: int
    text: str
    hash: str
    context: str = ""  # the headings above it: part of what is embedded and keyword-indexed
    annotations: str = ""  # the annotation comments of its entry (pieces of a long entry share them)
    heading_line: int = 0  # the line of the nearest heading above, 0 when none

    @property
    def index_text(self) -> str:
        """What the keyword index and the embedder read: the headings, then the text."""
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True)
class Window:
    """A run of units ``first..last`` (indexes into the file's unit list) and the lines it spans."""

    start_line: int
    end_line: int
    first: int
    last: int


@dataclass
class Chunked:
    units: list[Chunk]
    windows: list[Window]


@dataclass
class _Block:
    start: int  # 1-based line numbers; ``lines`` are the file's lines start..end
    end: int
    lines: list[str]
    kind: str  # "item" | "line" | "code" | "section"
    context: str
    heading_line: int
    noted: bool  # begins with comment-only lines (USER.md metadata, a promotion marker)


def _heading(line: str) -> tuple[int, str] | None:
    m = _HEADING_RE.match(line)
    if not m:
        return None
    title = _COMMENT_RE.sub("", m.group(2) or "").strip().rstrip("#").strip()
    return len(m.group(1)), title


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _is_break(line: str) -> bool:
    """Does ``line`` start a new block (so it cannot continue a list item or a wrapped line)?"""
    return bool(_ITEM_RE.match(line) or _HEADING_RE.match(line) or _FENCE_RE.match(line)
                or _COMMENT_LINE_RE.match(line) or line.lstrip().startswith("|"))


def _wrapped(prev: str, line: str) -> bool:
    """Is ``line`` the hard-wrapped continuation of the prose line before it? A long line that ends
    mid-sentence followed by one starting in lower case; one fact per line stays one unit per line."""
    p = prev.rstrip()
    return (len(p) >= 60 and not p.endswith(_TERMINAL) and bool(line[:1]) and line[0].islower())


def _blocks(lines: list[str], curated: bool) -> list[_Block]:
    blocks: list[_Block] = []
    heads: list[tuple[int, str, int]] = []  # (level, title, line)
    notes: list[tuple[int, str]] = []
    i, n = 0, len(lines)
    meta = session_meta_lines(lines)

    def context() -> tuple[str, int]:
        titles = [t for _, t, _ in heads if t]
        return " / ".join(titles[-2:]), (heads[-1][2] if heads else 0)

    def add(start: int, end: int, kind: str) -> None:
        ctx, hline = context()
        first = notes[0][0] if notes else start
        blocks.append(_Block(first, end, lines[first - 1:end], kind, ctx, hline, bool(notes)))
        notes.clear()

    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        h = _heading(line)
        if h is not None:
            level, title = h
            while heads and heads[-1][0] >= level:
                heads.pop()
            heads.append((level, title, i + 1))
            notes.clear()  # markers above a heading annotate no entry
            i += 1
            continue
        if _COMMENT_LINE_RE.match(line):
            notes.append((i + 1, line))
            i += 1
            continue
        start = i
        fence = _FENCE_RE.match(line)
        if fence:
            mark = fence.group(1)
            i += 1
            while i < n and not lines[i].lstrip().startswith(mark[0] * len(mark)):
                i += 1
            i = min(i + 1, n)
            add(start + 1, i, "code")
            continue
        if i + 1 in meta:
            i += 1
            continue
        if _ITEM_RE.match(line):
            indent = _indent(line)
            i += 1
            while i < n:
                nxt = lines[i]
                if nxt.strip():
                    deeper = _indent(nxt) > indent  # a sub-item or an indented line stays in the entry
                    if not deeper and (_ITEM_RE.match(nxt) or _HEADING_RE.match(nxt) or _FENCE_RE.match(nxt)
                                       or _COMMENT_LINE_RE.match(nxt)):
                        break
                    i += 1
                    continue
                # a blank line ends the item unless indented content follows (a loose item)
                j = i
                while j < n and not lines[j].strip():
                    j += 1
                if j < n and _indent(lines[j]) > indent and _indent(lines[j]) >= 2:
                    i = j
                    continue
                break
            end = i
            while end > start and not lines[end - 1].strip():
                end -= 1
            add(start + 1, end, "item")
            continue
        i += 1
        while i < n and lines[i].strip() and not _is_break(lines[i]) and _wrapped(lines[i - 1], lines[i]):
            i += 1
        add(start + 1, i, "line")
    if curated:
        blocks = _sections(blocks, lines)
    return blocks


def _sections(blocks: list[_Block], lines: list[str]) -> list[_Block]:
    """Curated files: the prose under one heading, with the heading line (where its annotations
    may sit), is one entry, a ``##`` section; list items under it stay entries of their own."""
    out: list[_Block] = []
    for b in blocks:
        prev = out[-1] if out else None
        if b.kind == "item" or not b.heading_line:
            out.append(b)
        elif (prev is not None and prev.kind == "section" and prev.heading_line == b.heading_line
              and not b.noted):
            prev.end = b.end
            prev.lines = lines[prev.start - 1:b.end]
        elif prev is None or prev.end < b.heading_line:  # the first prose under its heading
            b.start = b.heading_line
            b.lines = lines[b.start - 1:b.end]
            b.kind = "section"
            out.append(b)
        else:
            out.append(b)
    return out


def _pieces(text: str, budget: int) -> list[str]:
    """``text`` cut into pieces of at most ``budget`` weighted characters, at sentence ends where it
    can; a sentence longer than the budget is cut by weight (never inside a code point)."""
    if weighted_length(text) <= budget:
        return [text]
    sentences = [s for s in _SENTENCE_END_RE.split(text) if s]
    pieces: list[str] = []
    cur = ""
    for s in sentences:
        while weighted_length(s) > budget:  # one sentence over budget: cut it by weight
            cut, w = 0, 0
            for cut, ch in enumerate(s):
                w += weighted_length(ch)
                if w > budget:
                    break
            cut = max(1, cut)
            if cur:
                pieces.append(cur)
                cur = ""
            pieces.append(s[:cut])
            s = s[cut:]
        if cur and weighted_length(cur) + 1 + weighted_length(s) > budget:
            pieces.append(cur)
            cur = s
        else:
            cur = f"{cur} {s}" if cur else s
    if cur:
        pieces.append(cur)
    return [p.strip() for p in pieces if p.strip()]


def _units_of(block: _Block, budget: int) -> list[Chunk]:
    body = block.lines
    text = "\n".join(body)
    annotations = " ".join(_ANNOTATION_RE.findall(text))
    if weighted_length(text) <= budget:
        return [_chunk(block.start, block.end, text, block, annotations)]
    # a long entry: pack whole lines while they fit; cut a line that alone is too long
    out: list[Chunk] = []
    first_line = block.start
    cur: list[str] = []
    cur_start = first_line
    cost = 0
    for k, line in enumerate(body):
        lineno = first_line + k
        w = weighted_length(line) + 1
        if cur and cost + w > budget:
            out.append(_chunk(cur_start, lineno - 1, "\n".join(cur), block, annotations))
            cur, cost = [], 0
        if w > budget:
            for piece in _pieces(line, budget):
                out.append(_chunk(lineno, lineno, piece, block, annotations))
            continue
        if not cur:
            cur_start = lineno
        cur.append(line)
        cost += w
    if cur:
        out.append(_chunk(cur_start, first_line + len(body) - 1, "\n".join(cur), block, annotations))
    return [c for c in out if c.text.strip()]


def _chunk(start: int, end: int, text: str, block: _Block, annotations: str) -> Chunk:
    ctx = block.context
    digest = hashlib.sha256(f"{ctx}\0{text}\0{annotations}".encode("utf-8")).hexdigest()
    return Chunk(start, end, text, digest, ctx, annotations, block.heading_line)


def _windows(units: list[Chunk], tokens: int, overlap: int, curated: bool) -> list[Window]:
    if curated:
        return [Window(u.start_line, u.end_line, i, i) for i, u in enumerate(units)]
    budget, carry_budget = max(32, tokens * 4), overlap * 4
    out: list[Window] = []
    first, cost = 0, 0
    for i, u in enumerate(units):
        w = weighted_length(u.text) + 1
        if i > first and cost + w > budget:
            out.append(_window(units, first, i - 1))
            # the next window starts with the last units of this one, up to the overlap
            back, acc = i, 0
            while back - 1 > first and acc + weighted_length(units[back - 1].text) + 1 <= carry_budget:
                back -= 1
                acc += weighted_length(units[back].text) + 1
            first, cost = back, acc
        cost += w
    if units:
        out.append(_window(units, first, len(units) - 1))
    return out


def _window(units: list[Chunk], first: int, last: int) -> Window:
    start = units[first].start_line
    h = units[first].heading_line
    # the heading that introduces the window's first unit belongs to it, when nothing is between
    if h and (first == 0 or units[first - 1].end_line < h):
        start = h
    return Window(start, max(u.end_line for u in units[first:last + 1]), first, last)


def chunk_markdown(content: str, tokens: int = 400, overlap: int = 80, *, curated: bool = False,
                   whole: bool = False) -> Chunked:
    """Units and windows of one Markdown file (``curated`` for MEMORY.md / USER.md). ``whole`` keeps
    a generated description (a table file's) as one unit of up to ``tokens``: its parts only make
    sense together (which file, which table, how to query it)."""
    lines = content.split("\n")
    units: list[Chunk] = []
    if whole:
        first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
        if first is None:
            return Chunked([], [])
        last = max(i for i, ln in enumerate(lines) if ln.strip())
        block = _Block(first + 1, last + 1, lines[first:last + 1], "section", "", 0, False)
        units = _units_of(block, max(32, tokens * 4))
        return Chunked(units, [Window(u.start_line, u.end_line, i, i) for i, u in enumerate(units)])
    budget = UNIT_TOKENS * 4
    for block in _blocks(lines, curated):
        units.extend(_units_of(block, budget))
    return Chunked(units, _windows(units, tokens, overlap, curated))


def is_curated(path: str) -> bool:
    """MEMORY.md and USER.md at the workspace root hold entries, each its own window."""
    return "/" not in path and path in CURATED_FILES
