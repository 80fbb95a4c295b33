"""A memory file as Markdown, one row per source line, so a citation ``path#L5-L9`` can point at
(and highlight) exactly the lines it names.

Block structure (headings, list items, quotes, fences, tables) is recognised per line here; the
inline part of each line (emphasis, code, links) goes through markdown-it-py with raw HTML off,
so ``<script>`` in a note is shown as text, never run. Images are off too (a note must not make
the browser fetch a tracking pixel), and links get ``rel="noopener noreferrer nofollow"``. The
page's Content-Security-Policy is a second fence behind this one.

Annotation comments (``<!-- importance: 8 -->``...) become badges; other comments are shown
muted; a neutralised annotation (``<!‐‐``, written by an agent) is shown as text with a badge
saying it is inert.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from ..workspace.annotations import parse_annotations

_COMMENT = re.compile(r"<!--(.*?)-->")
_NEUTRALISED = "<!\u2010\u2010"
_ANNOTATION_KINDS = ("trigger", "triggers", "importance", "project", "observed", "status")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_QUOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
_HR = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")

_md = None


def _inline(text: str) -> Markup:
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": False, "linkify": False}).disable("image")

        def link_open(renderer, tokens, idx, options, env):
            tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
            return renderer.renderToken(tokens, idx, options, env)

        md.add_render_rule("link_open", link_open)
        _md = md
    return Markup(_md.renderInline(text))


@dataclass
class Badge:
    kind: str  # importance | trigger | project | observed | status | comment | inert | invalid
    label: str
    title: str = ""


@dataclass
class Line:
    n: int
    kind: str  # blank | heading | bullet | quote | fence | code | table | hr | text
    html: Markup
    level: int = 0
    marker: str = ""
    badges: list[Badge] = field(default_factory=list)
    origin: str | None = None  # owner | agent | untrusted | system, where the file records it
    origin_note: str = ""  # session kind and writer of that origin
    origin_start: bool = False  # the first line of a run of one origin (where its badge goes)
    highlighted: bool = False


def _badges(comment_body: str) -> list[Badge]:
    raw = f"<!--{comment_body}-->"
    kind = comment_body.strip().split(":", 1)[0].strip().lower()
    if kind not in _ANNOTATION_KINDS or ":" not in comment_body:
        text = " ".join(comment_body.split())
        return [Badge("comment", text[:60] + ("…" if len(text) > 60 else ""), text)]
    ann = parse_annotations(raw)
    out: list[Badge] = []
    if ann.importance is not None:
        out.append(Badge("importance", f"importance {ann.importance}", "ranking multiplier from importance"))
    out.extend(Badge("trigger", f"trigger: {t}", "recalled when this is said") for t in ann.triggers)
    out.extend(Badge("project", f"project: {p}", "ranked up when this project is active") for p in ann.projects)
    if ann.observed:
        out.append(Badge("observed", f"observed {ann.observed.isoformat()}"))
    if ann.status:
        out.append(Badge("status", ann.status))
    out.extend(Badge("invalid", "invalid annotation", why) for why in ann.invalid)
    return out


def _split_comments(text: str) -> tuple[str, list[Badge]]:
    badges: list[Badge] = []
    for m in _COMMENT.finditer(text):
        badges.extend(_badges(m.group(1)))
    if _NEUTRALISED in text:
        badges.append(Badge("inert", "inert annotation",
                            "written by an agent: annotation comments in agent text are neutralised"))
    return _COMMENT.sub(" ", text).rstrip(), badges


def render_lines(content: str, *, first_line: int = 1, highlight: tuple[int, int] | None = None,
                 in_fence: bool = False) -> list[Line]:
    """Rows for ``content`` (lines numbered from ``first_line``); ``highlight`` is an inclusive range."""
    rows = content.split("\n")
    if content.endswith("\n"):
        rows.pop()
    out: list[Line] = []
    for i, raw in enumerate(rows):
        n = first_line + i
        line = _line(n, raw, in_fence)
        if line.kind == "fence":
            in_fence = not in_fence
        line.highlighted = bool(highlight and highlight[0] <= n <= highlight[1])
        out.append(line)
    return out


def _line(n: int, raw: str, in_fence: bool) -> Line:
    if _FENCE.match(raw):
        return Line(n, "fence", escape(raw))
    if in_fence:
        return Line(n, "code", escape(raw))
    if not raw.strip():
        return Line(n, "blank", Markup(""))
    if _HR.match(raw):
        return Line(n, "hr", escape(raw.strip()))
    if raw.lstrip().startswith("|"):
        text, badges = _split_comments(raw)
        return Line(n, "table", escape(text), badges=badges)
    m = _HEADING.match(raw)
    if m:
        text, badges = _split_comments(m.group(2))
        return Line(n, "heading", _inline(text), level=len(m.group(1)), badges=badges)
    m = _BULLET.match(raw)
    if m:
        text, badges = _split_comments(m.group(3))
        marker = m.group(2) if m.group(2)[0].isdigit() else "•"
        indent = len(m.group(1).expandtabs(4))
        return Line(n, "bullet", _inline(text), level=min(indent // 2, 8), marker=marker, badges=badges)
    m = _QUOTE.match(raw)
    if m:
        text, badges = _split_comments(m.group(1))
        return Line(n, "quote", _inline(text), badges=badges)
    text, badges = _split_comments(raw)
    indent = len(raw) - len(raw.lstrip(" \t"))
    return Line(n, "text", _inline(text.strip()), level=min(indent // 2, 8), badges=badges)


def parse_range(raw: str | None) -> tuple[int, int] | None:
    """``"5-9"``, ``"L5-L9"`` or ``"5"`` -> (5, 9); anything else -> None."""
    if not raw:
        return None
    m = re.fullmatch(r"L?(\d{1,9})(?:-L?(\d{1,9}))?", raw.strip())
    if not m:
        return None
    a = int(m.group(1))
    b = int(m.group(2) or a)
    return (min(a, b), max(a, b)) if a >= 1 else None
