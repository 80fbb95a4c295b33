"""Results: passages (consecutive results citing one window, merged), snippets and result rows."""

from __future__ import annotations

from dataclasses import dataclass

from ..text.boilerplate import said_by_assistant
from ..trust.secrets import holds_secret
from .candidates import Candidate
from . import reading
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


def wording(text: str) -> str:
    """A line's words with case and spacing folded: two lines of one wording say the same."""
    return " ".join(text.split()).casefold()


def repeats_last(ordered: list[Candidate], assistant_only: bool = False) -> list[Candidate]:
    """``ordered`` with a unit whose words another, better-ranked unit already said (the same line
    in another note: a greeting, an assistant's stock advice, a user's habit told every week)
    moved after every unit that says something new, in its own order. Shown again it tells the
    reader nothing, and it held the place of a note that might. ``assistant_only`` (a counting
    question, where each time the owner said a line may be one of the instances counted): only
    the assistant's repeated lines move."""
    seen: set[str] = set()
    fresh: list[Candidate] = []
    again: list[Candidate] = []
    for c in ordered:
        key = wording(c.text)
        repeat = key in seen and (not assistant_only or said_by_assistant(c.text))
        (again if repeat else fresh).append(c)
        seen.add(key)
    return fresh + again if again else ordered


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


#: the first results are always the ranking's own (the default result count); see :func:`widen`
WIDEN_AFTER = 6
#: the notes a long result list should span: an aggregate question's evidence is read from the
#: first five notes of the results (the long-chat measure of issue 30)
NOTES_WANTED = 5


def widen(found: list[Passage], n: int) -> list[Passage]:
    """The ranked passages, with the later part of the first ``n`` opened to more notes when they
    span fewer than :data:`NOTES_WANTED`.

    The best hits of a question cluster in the notes that match it best: a long session holds a
    dozen windows about its topic, and twenty results could cover three sessions while an
    aggregate question ("how many times…", "in total…") needs the fourth and fifth. Then, past the
    first ``max(WIDEN_AFTER, ⌈n/2⌉)`` results, a passage of a note already shown twice yields its
    place to the best passage of a note not shown yet (one that ranked below the cut), until five
    notes are shown, and goes just after the cut. The leading results and their order are
    untouched; so is everything when ``n`` is the default count or fewer, or when the results span
    five notes already (on LoCoMo, opening every long list to more notes cost `read@2000` 0.931 →
    0.914: the best session's later passages often are the evidence)."""
    keep = max(WIDEN_AFTER, (n + 1) // 2)
    if len(found) <= n or keep >= n:
        return found

    def note(p: Passage) -> tuple:
        return (p.lead.path, p.lead.source)

    head, rest = found[:n], found[n:]
    shown: dict[tuple, int] = {}
    for p in head:
        shown[note(p)] = shown.get(note(p), 0) + 1
    missing = NOTES_WANTED - len(shown)
    if missing <= 0:
        return found
    fresh: dict[tuple, Passage] = {}  # the best passage of each note not shown, in rank order
    for p in rest:
        if len(fresh) < missing and note(p) not in shown:
            fresh.setdefault(note(p), p)
    yielded: list[Passage] = []
    for p in reversed(head[keep:]):  # the lowest-ranked gives way first
        if len(yielded) == len(fresh):
            break
        if shown[note(p)] >= 2:
            shown[note(p)] -= 1
            yielded.append(p)
    if not yielded:
        return found
    taken = list(fresh.values())[:len(yielded)]
    out_ids = {id(p) for p in yielded}
    in_ids = {id(p) for p in taken}
    rank = {id(p): i for i, p in enumerate(found)}
    inside = sorted([p for p in head if id(p) not in out_ids] + taken, key=lambda p: rank[id(p)])
    after = sorted(yielded + [p for p in rest if id(p) not in in_ids], key=lambda p: rank[id(p)])
    return inside + after


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


def reading_cost(p: Passage) -> int:
    """The tokens an agent reads for the passage as a result (its snippet and citation)."""
    return reading.cost(_snippet(p.units)[0], p.citation)


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
