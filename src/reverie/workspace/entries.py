"""Entries of a note: the unit a fact lives in.

A bullet (``-``, ``*``, ``+``, ``1.``) with its continuation lines (indented, or plain lines that do
not start a new bullet, heading or block) is one entry; a plain paragraph is one entry, cut every
:data:`MAX_ENTRY_LINES` lines. A line of a session note's conversation (``user: …`` or
``assistant: …`` at the line's start, as :mod:`reverie.sessions.hook` writes them) starts an entry
of its own: each message is one entry, never glued to its neighbours (the owner's words beside what
the agent said after reading a web page). Headings are context, not entries; a date heading
(``# 2026-07-01``) is not even context. HTML-comment-only lines (markers) belong to no entry. Blocks
a dreaming system manages inside a note (``<!-- reverie:dreaming:light:start -->`` ...
``:end -->``, and OpenClaw's ``openclaw:dreaming:…`` blocks) are skipped whole: a summary of memory
is never learned as memory.

:func:`snippet_of` turns an entry into the words a person wrote: no bullet, no ``HH:MM`` stamp
(``reverie remember`` adds one), no annotation comments, one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ENTRY_LINES = 4
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_DATE_HEADING = re.compile(r"^\d{4}-\d{2}-\d{2}\b.*$")
_COMMENT_ONLY = re.compile(r"^\s*(?:<!--.*?-->\s*)+$")
_MANAGED_START = re.compile(r"<!--\s*(?:reverie|openclaw):dreaming:([a-z-]+):start\s*-->")
_MANAGED_END = r"<!--\s*(?:reverie|openclaw):dreaming:{}:end\s*-->"
_ROLE_LINE = re.compile(r"^(?:user|assistant):\s")  # a session note's message (sessions/hook.py)
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_STAMP = re.compile(r"^(?:\d{1,2}:\d{2}(?::\d{2})?)\s+")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


@dataclass(frozen=True)
class Entry:
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    text: str  # the lines as written
    heading: str | None = None  # the nearest heading above (date headings aside)

    @property
    def snippet(self) -> str:
        return snippet_of(self.text)


def managed_lines(lines: list[str]) -> set[int]:
    """0-based indexes of lines inside managed dreaming blocks (markers included). A block whose
    end marker is missing stops at the next heading of level 1 or 2."""
    out: set[int] = set()
    i = 0
    while i < len(lines):
        m = _MANAGED_START.search(lines[i])
        if not m:
            i += 1
            continue
        end_re = re.compile(_MANAGED_END.format(re.escape(m.group(1))))
        j = i + 1
        while j < len(lines) and not end_re.search(lines[j]):
            h = _HEADING.match(lines[j])
            if h and len(h.group(1)) <= 2 and j > i + 1:
                j -= 1
                break
            j += 1
        j = min(j, len(lines) - 1)
        out.update(range(i, j + 1))
        # the heading right above a managed block (## Light Sleep) goes with it
        if i and _HEADING.match(lines[i - 1]):
            out.add(i - 1)
        i = j + 1
    return out


def split_entries(text: str, max_lines: int = MAX_ENTRY_LINES) -> list[Entry]:
    lines = (text or "").split("\n")
    skip = managed_lines(lines)
    out: list[Entry] = []
    heading: str | None = None
    cur: list[int] = []
    fenced = False

    def close() -> None:
        if cur:
            body = [lines[k] for k in cur]
            out.append(Entry(cur[0] + 1, cur[-1] + 1, "\n".join(body), heading))
            cur.clear()

    for i, line in enumerate(lines):
        if i in skip:
            close()
            continue
        if _FENCE.match(line):
            close()
            fenced = not fenced
            continue
        if fenced:
            continue
        h = _HEADING.match(line)
        if h:
            close()
            title = h.group(2).strip()
            heading = None if _DATE_HEADING.match(title) else (title or None)
            continue
        if not line.strip() or _COMMENT_ONLY.match(line):
            close()
            continue
        if (_BULLET.match(line) and not line.startswith(("  ", "\t"))) or _ROLE_LINE.match(line):
            close()
            cur.append(i)
            continue
        if cur and len(cur) >= max_lines:
            close()
        cur.append(i)
    close()
    return out


def snippet_of(text: str) -> str:
    """An entry as one line of the writer's words: bullet, ``HH:MM`` stamp and comments removed."""
    parts = []
    for n, line in enumerate((text or "").split("\n")):
        line = _COMMENT.sub(" ", line).strip()
        if n == 0:
            line = _BULLET.sub("", line)
            line = _STAMP.sub("", line)
        if line:
            parts.append(line)
    return " ".join(" ".join(parts).split())


def entry_at(entries: list[Entry], line: int) -> Entry | None:
    return next((e for e in entries if e.start <= line <= e.end), None)
