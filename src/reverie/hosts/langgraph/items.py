"""LangGraph store items as entries of reverie's daily notes, and how they are found again.

An item is one daily-note entry, appended through reverie (so it has provenance, is indexed and is
searchable like any note), ending with a marker that holds its key::

    - 14:03 The owner prefers window seats <!-- langgraph: {"key":"seat","scope":["prefs"]} -->

The visible words are the value's text field (the first of :data:`TEXT_FIELDS` holding text), so
search, Dreaming and the owner read a sentence, not JSON; the marker keeps the key, the scope below
the agent, the field's name when it is not ``content`` and the value's other fields. A value with
no text field is written as its JSON, and kept whole in the marker.

The notes are canonical: items are found by reading the daily notes (each parsed once per change
of its size or mtime), never from a table of our own, so a rebuilt index or a copied workspace
keeps them. Putting a key again appends a new entry: the newest is the item, older ones are its
history. Text written here goes through :func:`neutralise_annotations`: a value cannot carry a
``<!-- trigger: -->``, ``<!-- importance: -->`` or a marker of its own.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path

from ...workspace.annotations import neutralise_annotations

TEXT_FIELDS = ("content", "text", "memory", "data")
_MARKER = re.compile(r" ?<!-- langgraph: (\{.*\}) -->\s*$")
_DAILY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
_ENTRY = re.compile(r"^- (\d{2}):(\d{2}) ")


@dataclass(frozen=True, eq=False)
class Version:
    """One entry of one key: the newest of a key's versions is the item."""

    scope: tuple[str, ...]
    key: str
    value: dict
    path: str  # workspace-relative
    start: int  # first line of the entry (1-based)
    end: int  # its last line, the one with the marker
    at: datetime
    entry: str  # the entry's lines as they are in the file (what forget is given)

    @property
    def place(self) -> tuple[str, int]:
        return self.path, self.start


def render(value: dict, key: str, scope: tuple[str, ...]) -> str:
    """The entry's text for ``Memory.remember``: the value's words, then the marker."""
    meta: dict = {"key": key}
    if scope:
        meta["scope"] = list(scope)
    field = next((f for f in TEXT_FIELDS if isinstance(value.get(f), str) and value[f].strip()), None)
    if field is None:
        text = json.dumps(value, ensure_ascii=False, default=str)
        meta["value"] = value
    else:
        text = value[field]
        if field != "content":
            meta["field"] = field
        rest = {k: v for k, v in value.items() if k != field}
        if rest:
            meta["rest"] = rest
    # '<' and '>' only occur inside JSON strings: escaped, no '-->' can end the comment early
    dumped = json.dumps(meta, ensure_ascii=False, separators=(",", ":"), default=str)
    dumped = dumped.replace("<", "\\u003c").replace(">", "\\u003e")
    return f"{neutralise_annotations(text).strip()} <!-- langgraph: {dumped} -->"


def parse(rel: str, text: str, tz) -> list[Version]:
    """The items of one daily note, in file order."""
    m = _DAILY.match(Path(rel).name)
    if m is None or "<!-- langgraph: " not in text:
        return []
    day = date(int(m[1]), int(m[2]), int(m[3]))
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        mark = _MARKER.search(line)
        if mark is None:
            continue
        start = i
        while start > 0 and not _ENTRY.match(lines[start]) and (lines[start].startswith("  ") or not lines[start]):
            start -= 1  # up the entry's continuation lines to its "- HH:MM" line
        head = _ENTRY.match(lines[start])
        try:
            meta = json.loads(mark[1])
        except ValueError:
            continue  # an edited marker that is no longer JSON: an ordinary line now
        if head is None or not isinstance(meta, dict) or not isinstance(meta.get("key"), str):
            continue
        raw = lines[start:i + 1]
        raw[-1] = raw[-1][:mark.start()]
        body = [raw[0][head.end():]] + [ln[2:] if ln.startswith("  ") else ln for ln in raw[1:]]
        words = "\n".join(body).strip()
        at = datetime.combine(day, time(int(head[1]), int(head[2])), tz)
        out.append(Version(tuple(meta.get("scope") or ()), meta["key"], _value(meta, words), rel, start + 1, i + 1,
                           at, "\n".join(lines[start:i + 1])))
    return out


def _value(meta: dict, words: str) -> dict:
    if "value" in meta and isinstance(meta["value"], dict):
        return meta["value"]
    return {meta.get("field") or "content": words, **(meta.get("rest") or {})}


class Items:
    """The store items of one workspace, read from its daily notes."""

    def __init__(self, workspace: Path, tz):
        self.workspace = Path(workspace)
        self.tz = tz
        self._files: dict[str, tuple[int, int, list[Version]]] = {}
        self._lock = threading.Lock()

    def versions(self) -> list[Version]:
        """Every entry of every key, oldest first (by day, then by place in the note)."""
        folder = self.workspace / "memory"
        try:
            names = sorted(e.name for e in os.scandir(folder) if e.is_file() and _DAILY.match(e.name))
        except FileNotFoundError:
            return []
        out: list[Version] = []
        with self._lock:
            for name in names:
                rel = f"memory/{name}"
                try:
                    st = os.stat(folder / name)
                except FileNotFoundError:
                    continue
                cached = self._files.get(rel)
                if cached is None or cached[:2] != (st.st_mtime_ns, st.st_size):
                    text = (folder / name).read_text(encoding="utf-8", errors="replace")
                    cached = (st.st_mtime_ns, st.st_size, parse(rel, text, self.tz))
                    self._files[rel] = cached
                out += cached[2]
        return out

    def current(self) -> dict[tuple[tuple[str, ...], str], tuple[Version, Version]]:
        """(scope, key) -> (its first version, its newest): the items as they are now."""
        out: dict = {}
        for v in self.versions():
            first = out.get((v.scope, v.key), (v, v))[0]
            out[(v.scope, v.key)] = (first, v)
        return out

    def history(self, scope: tuple[str, ...], key: str) -> list[Version]:
        return [v for v in self.versions() if v.scope == scope and v.key == key]
