"""No re-ingestion of recall: what memory put into the context never comes back as a new memory.

Everything injected from memory (startup files, ``memory_search``/``memory_get`` results,
``sessions_search``/``sessions_history`` results, standing-intent blocks, and the recall lanes
built later) is recorded by the runtime as a ``recall`` event with its lane, path, lines and text.
Before the flush, the session-memory hook or the transcript search index sees a conversation:

* results of the recall tools are dropped whole (:data:`RECALL_TOOLS`);
* lines and sentences of the agent's messages that *reproduce* recalled text are removed.

"Reproduce" is defined on normalised text (NFKC, case-folded, only letters and digits kept, so
punctuation, spacing, quotes, bullets and full-width forms do not matter): a unit (a line, else a
sentence) reproduces recall when at least :data:`COVERAGE` of its characters lie inside runs it
shares with recalled text -- runs of at least 8 characters, or 4 for Chinese, Japanese and Korean,
whose characters carry more meaning each. Units lighter than :data:`MIN_WEIGHT` (a CJK character
weighs 2, anything else 1) are never judged: "OK, noted." or "好的" repeat nothing worth keeping.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable

from ..text.cjk import is_cjk_char

RECALL_TOOLS = frozenset({"memory_search", "memory_get", "sessions_search", "sessions_history"})
# Lanes that put memory into the context without the model asking: only owner/agent content.
AUTO_LANES = frozenset({"startup", "intents", "trigger", "active-memory"})
MIN_WEIGHT = 12
COVERAGE = 0.6
GRAM_LATIN = 8
GRAM_CJK = 4

_SENTENCE_RE = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])")


@dataclass
class RecallItem:
    """One piece of memory put into the context."""

    text: str
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    origin: str | None = None
    kind: str | None = None
    why: str | None = None  # why a lane chose it (a trigger phrase, a score), for /context and the transcript
    # the lane already kept only lines it may inject and gave their class (origin, kind): the
    # item's line range may hold lines it left out, which must not refuse the rest (not recorded)
    checked: bool = field(default=False, compare=False)

    def as_dict(self) -> dict:
        d: dict = {"text": self.text}
        if self.path:
            d["path"] = self.path
        if self.start_line is not None:
            d["lines"] = [self.start_line, self.end_line if self.end_line is not None else self.start_line]
        if self.origin:
            d["originClass"] = self.origin
        if self.kind:
            d["sessionKind"] = self.kind
        if self.why:
            d["why"] = self.why
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RecallItem":
        lines = d.get("lines") or [None, None]
        return cls(str(d.get("text") or ""), d.get("path"), lines[0], lines[1], d.get("originClass"),
                   d.get("sessionKind"), d.get("why"))


def normalise(text: str) -> str:
    """Letters and digits only, NFKC, case-folded."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def weight(norm: str) -> int:
    return sum(2 if is_cjk_char(ch) else 1 for ch in norm)


@dataclass
class RecallPool:
    """The normalised recalled texts of a conversation, indexed for :meth:`reproduces`."""

    latin: set[str] = field(default_factory=set)
    cjk: set[str] = field(default_factory=set)
    size: int = 0

    def add(self, text: str) -> None:
        norm = normalise(text)
        if not norm:
            return
        self.size += 1
        for i in range(len(norm)):
            if i + GRAM_LATIN <= len(norm):
                self.latin.add(norm[i:i + GRAM_LATIN])
            if i + GRAM_CJK <= len(norm):
                self.cjk.add(norm[i:i + GRAM_CJK])

    def __bool__(self) -> bool:
        return self.size > 0

    def coverage(self, norm: str) -> float:
        if not norm:
            return 0.0
        covered = [False] * len(norm)
        for i, ch in enumerate(norm):
            k, grams = (GRAM_CJK, self.cjk) if is_cjk_char(ch) else (GRAM_LATIN, self.latin)
            if i + k <= len(norm) and norm[i:i + k] in grams:
                for j in range(i, i + k):
                    covered[j] = True
        return sum(covered) / len(norm)

    def reproduces(self, text: str) -> bool:
        norm = normalise(text)
        return bool(self) and weight(norm) >= MIN_WEIGHT and self.coverage(norm) >= COVERAGE


def pool_of(texts: Iterable[str]) -> RecallPool:
    pool = RecallPool()
    for t in texts:
        pool.add(t)
    return pool


def strip_recalled(text: str, pool: RecallPool) -> str:
    """``text`` without the lines, else sentences, that reproduce recalled text."""
    if not pool or not text:
        return text
    kept_lines: list[str] = []
    for line in text.split("\n"):
        if pool.reproduces(line):
            continue
        parts = _SENTENCE_RE.split(line)
        if len(parts) > 1:
            kept = [p for p in parts if not pool.reproduces(p)]
            if len(kept) != len(parts):
                line = " ".join(p.strip() for p in kept if p.strip())
                if not normalise(line):
                    continue
        kept_lines.append(line)
    out = "\n".join(kept_lines)
    return out if normalise(out) else ""


# -- recall items out of tool results --------------------------------------------------------------
def items_from_result(tool: str, result: dict) -> list[RecallItem]:
    """The memory a recall tool's result put into the context."""
    if not isinstance(result, dict):
        return []
    out: list[RecallItem] = []
    if tool == "memory_search":
        for r in result.get("results") or []:
            if not isinstance(r, dict):
                continue
            prov = r.get("provenance") or {}
            out.append(RecallItem(str(r.get("snippet") or ""), r.get("path"), r.get("startLine"), r.get("endLine"),
                                  prov.get("originClass"), prov.get("sessionKind")))
    elif tool == "memory_get":
        text = result.get("text")
        if isinstance(text, str) and text:
            start = result.get("from") or 1
            prov = result.get("provenance") or {}
            out.append(RecallItem(text, result.get("path"), start, start + max(1, int(result.get("lines") or 1)) - 1,
                                  prov.get("originClass"), prov.get("sessionKind")))
    elif tool == "sessions_search":
        for r in result.get("results") or []:
            if isinstance(r, dict) and r.get("snippet"):
                out.append(RecallItem(str(r["snippet"]), f"session:{r.get('sessionId')}", origin=r.get("originClass")))
    elif tool == "sessions_history":
        for m in result.get("messages") or []:
            if isinstance(m, dict) and m.get("content"):
                out.append(RecallItem(str(m["content"]), f"session:{result.get('sessionId')}",
                                      origin=m.get("originClass")))
    return [i for i in out if i.text.strip()]
