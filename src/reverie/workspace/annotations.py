"""Entry annotations written as HTML comments on a memory entry's line.

``<!-- trigger: a; b -->``, ``<!-- importance: N -->`` (1..10), ``<!-- project: k1; k2 -->`` and,
in USER.md, ``<!-- observed: YYYY-MM-DD | status: active|superseded -->`` on the line above a
directive. Missing annotations stay ``None``/empty: neutral ranking, never a trigger candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

_COMMENT_RE = re.compile(r"<!--\s*([a-zA-Z_-]+)\s*:(.*?)-->", re.S)
# The matcher's separators (reference §27 #4): newline, ';', '|'. Commas are accepted too because
# promotion writes triggers joined by ", " and people write them that way.
_TRIGGER_SPLIT_RE = re.compile(r"[\n;|,]")
_PROJECT_SPLIT_RE = re.compile(r"(?<!\\);")


@dataclass
class EntryAnnotations:
    triggers: list[str] = field(default_factory=list)
    importance: int | None = None
    projects: list[str] = field(default_factory=list)
    observed: date | None = None
    status: str | None = None  # "active" | "superseded"
    invalid: list[str] = field(default_factory=list)  # annotations we could not read, for status

    @property
    def empty(self) -> bool:
        return not (self.triggers or self.importance or self.projects or self.observed or self.status)

    def merge(self, other: "EntryAnnotations") -> None:
        """Fold another entry's annotations into a chunk-level summary."""
        for t in other.triggers:
            if t not in self.triggers:
                self.triggers.append(t)
        if other.importance is not None:
            self.importance = max(self.importance or 0, other.importance)
        for p in other.projects:
            if p not in self.projects:
                self.projects.append(p)
        if other.observed and (self.observed is None or other.observed > self.observed):
            self.observed = other.observed
        if other.status == "active" or (other.status and self.status is None):
            self.status = other.status
        self.invalid.extend(other.invalid)


def _norm_phrase(text: str) -> str:
    return " ".join(text.split()).strip().lower()


def parse_annotations(text: str) -> EntryAnnotations:
    """Annotations found anywhere in ``text`` (a line, an entry, or a chunk)."""
    out = EntryAnnotations()
    for m in _COMMENT_RE.finditer(text):
        kind, body = m.group(1).lower(), m.group(2).strip()
        one = EntryAnnotations()
        if kind == "trigger" or kind == "triggers":
            one.triggers = [p for p in (_norm_phrase(x) for x in _TRIGGER_SPLIT_RE.split(body)) if p]
        elif kind == "importance":
            try:
                value = int(body)
            except ValueError:
                one.invalid.append(f"importance: {body!r} is not a whole number")
            else:
                if 1 <= value <= 10:
                    one.importance = value
                else:
                    one.invalid.append(f"importance: {value} is outside 1..10")
        elif kind == "project":
            keys = [k.strip().replace("\\;", ";") for k in _PROJECT_SPLIT_RE.split(body)]
            for k in keys:
                if not k:
                    continue
                if any(c in k for c in "\r\n<>"):
                    one.invalid.append(f"project: {k!r} holds a forbidden character")
                else:
                    one.projects.append(k)
        elif kind == "observed":
            # "2026-07-01 | status: active" -- the status rides in the same comment
            first, _, rest = body.partition("|")
            try:
                one.observed = date.fromisoformat(first.strip())
            except ValueError:
                one.invalid.append(f"observed: {first.strip()!r} is not YYYY-MM-DD")
            sm = re.search(r"status\s*:\s*([a-zA-Z]+)", rest)
            if sm:
                status = sm.group(1).lower()
                if status in ("active", "superseded"):
                    one.status = status
                else:
                    one.invalid.append(f"status: {status!r} is not active or superseded")
        elif kind == "status":
            status = body.lower()
            if status in ("active", "superseded"):
                one.status = status
        else:
            continue  # other comments (promotion markers, notes) are not annotations
        out.merge(one)
    return out


def strip_annotations(text: str) -> str:
    """The entry text without its annotation comments."""
    return " ".join(_COMMENT_RE.sub(" ", text).split())


def neutralise_annotations(text: str) -> str:
    """Model-written text cannot carry annotations: ``<!--`` becomes ``<!‐‐`` (hyphens swapped for
    U+2010), so a prompt-injected ``<!-- importance: 10 -->`` stays visible but is inert."""
    return text.replace("<!--", "<!\u2010\u2010")
