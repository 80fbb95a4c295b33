"""Results: passages (consecutive results citing one window, merged), snippets and result rows."""

from __future__ import annotations

from dataclasses import dataclass

from ..trust.secrets import holds_secret
from .candidates import Candidate
from .citation import format_citation

SNIPPET_CHARS = 700


@dataclass
class Passage:
    """A result: one unit, or consecutive results citing the same window, merged (the reading order
    is unchanged, and ten results cite more of the memory than ten units would)."""

    units: list[Candidate]
    superseded_by: str | None = None  # the citation of a later note that updates it (search/newest.py)

    @property
    def lead(self) -> Candidate:
        return self.units[0]

    @property
    def citation(self) -> str:
        c = self.lead
        return format_citation(c.path, c.window_start or c.start_line, c.window_end or c.end_line)

    @property
    def text(self) -> str:
        return " ".join(u.text for u in self.units)


def passages(ordered: list[Candidate]) -> list[Passage]:
    out: list[Passage] = []
    key = None  # the current passage's window and provenance
    size = 0  # its snippet's length so far
    for c in ordered:
        # never across provenance: a passage carries one origin class (an untrusted line must not
        # ride unframed in a trusted one's snippet)
        mine = (c.path, c.source, c.window_start, c.window_end, c.origin_class, c.session_kind)
        if out and mine == key and c.window_end > c.window_start and size + len(c.text) <= SNIPPET_CHARS:
            out[-1].units.append(c)
            size += len(c.text) + 3
        else:
            out.append(Passage([c]))
            key, size = mine, len(c.text) + 3
    return out


def _snippet(units: list[Candidate]) -> tuple[str, int, int]:
    """The units' text in file order; a gap between them is shown as a line "…"."""
    parts = sorted(units, key=lambda u: (u.start_line, u.seq))
    out: list[str] = []
    for i, u in enumerate(parts):
        if i and u.start_line > parts[i - 1].end_line + 1:
            out.append("…")
        out.append(u.text)
    text = "\n".join(out)
    if len(text) > SNIPPET_CHARS:
        text = text[:SNIPPET_CHARS - 1] + "…"
    return text, parts[0].start_line, max(u.end_line for u in parts)


def result_row(p: Passage | Candidate, explain: bool) -> dict:
    units = p.units if isinstance(p, Passage) else [p]
    c = units[0]
    snippet, first, last = _snippet(units)
    row = {
        "path": c.path,
        "startLine": c.window_start or c.start_line,
        "endLine": c.window_end or c.end_line,
        "score": round(c.score, 6),
        "vectorScore": None if c.vector is None else round(c.vector, 6),
        "textScore": round(c.text_score, 6),
        "snippet": snippet,
        "snippetStartLine": first,
        "snippetEndLine": last,
        "source": c.source,
        "citation": format_citation(c.path, c.window_start or c.start_line, c.window_end or c.end_line),
        "corpus": "memory",
    }
    if c.importance is not None:
        row["importance"] = c.importance
    if c.triggers:
        row["triggers"] = c.triggers
    if c.project_key:
        row["projectKey"] = c.project_key
    if c.status:
        row["status"] = c.status
    if c.origin_class:
        row["provenance"] = {"originClass": c.origin_class, "sessionKind": c.session_kind}
    if holds_secret(snippet):  # found for an explicit search, never used on its own (docs/trust.md)
        row["sensitive"] = True
    if isinstance(p, Passage) and p.superseded_by:
        row["supersededBy"] = p.superseded_by
    if explain:
        row["explain"] = c.trace
        if len(units) > 1:
            row["explain"]["merged"] = [{"lines": [u.start_line, u.end_line], "score": round(u.score, 4)}
                                        for u in units[1:]]
    return row
