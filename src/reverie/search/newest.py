"""The newest fact first: when a later note updates an earlier one, search shows the later one first
and marks the earlier one as superseded (its history stays readable, nothing is removed).

A result *updates* another when both come from dated notes (``memory/YYYY-MM-DD.md``; the same day:
the later line) or one is an entry Dreaming promoted into ``MEMORY.md`` or ``USER.md``, dated by the
note it cites (``Source: memory/YYYY-MM-DD….md#L3``: a fact promoted in October is October's), the
later one is about the same subject — at least two shared content words and two fifths of the
smaller text's — and says something else about it: other numbers ("December 22" after "December
15", "room 1208" after "room 812"), or words that announce a change ("now", "moved", "no longer",
"新的", "改为"...). Undated results (the owner's own lines of MEMORY.md and USER.md, conversations)
are left where they are: Dreaming keeps the curated files current (``status: superseded``).

How this compares with other designs (add-only stores that read time-aware, invalidation windows,
expiry) is in docs/search.md.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..text.concepts import content_words, numbers

HORIZON = 24  # how far down the ranked list an update is looked for

_DATED = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})(?:-[^/]+)?\.md$")
_CHANGE = re.compile(r"\b(?:now|new|newly|changed?|moved|instead|no longer|anymore|updated?|rescheduled|postponed|"
                     r"switched|replaced|actually)\b|新的|改为|改成|换成|换到|现在|搬到|推迟|提前|不再|改到|更新", re.I)
# words that say when or how, not what about: left out of the subject
_NOT_SUBJECT = frozenset({"now", "new", "newly", "change", "changed", "moved", "instead", "longer", "anymore",
                          "update", "updated", "rescheduled", "postponed", "switched", "replaced", "actually",
                          "date", "today", "yesterday", "tomorrow"})


# the curated files Dreaming promotes into, each entry citing the note it came from
CURATED = ("MEMORY.md", "USER.md")
_CITED = re.compile(r"\bSource:\s+memory/(\d{4}-\d{2}-\d{2})(?:-[^/#\s]+)?\.md#L(\d+)")
_ANNOTATIONS = re.compile(r"<!--.*?-->|\bSource:\s+\S+", re.S)


def dated(path: str, line: int, text: str = "") -> tuple[str, int] | None:
    """(the note's date, the line) of a result in a dated note, or of a promoted entry (``text``)
    by the dated note it cites; None when neither says when."""
    m = _DATED.match(path or "")
    if m:
        return m.group(1), int(line or 0)
    if (path or "") not in CURATED:  # a citation inside any other text (a web clip) dates nothing
        return None
    c = _CITED.search(text) if text and "Source:" in text else None
    return (c.group(1), int(c.group(2))) if c else None


def _subject(text: str) -> frozenset[str]:
    nums = numbers(text)
    return frozenset(w for w in content_words(text, matching=True) if w not in nums and w not in _NOT_SUBJECT
                     and not w.isdigit())


@lru_cache(maxsize=4096)
def _facts(text: str) -> tuple[frozenset[str], frozenset[str], bool, str]:
    """What an update is judged on, once per text: its subject, its numbers, whether it announces a
    change, its words (a promoted entry's annotations and citation left out)."""
    if "<!--" in text or "Source:" in text:
        text = _ANNOTATIONS.sub(" ", text)
    return _subject(text), numbers(text), bool(_CHANGE.search(text)), text.strip()


def _updates(later: tuple, earlier: tuple) -> bool:
    (a, na, change, words_a), (b, nb, _, words_b) = later, earlier
    shared = a & b
    if len(shared) < 2 or 5 * len(shared) < 2 * min(len(a), len(b)):
        return False
    if na and nb and na != nb:
        return True
    return change and words_a != words_b


def updates(later: str, earlier: str) -> bool:
    """Whether ``later`` updates ``earlier`` (see the module text)."""
    return _updates(_facts(later), _facts(earlier))


def order(items: list, when, text, cite) -> tuple[list, dict[int, str]]:
    """``items`` with each updated one's newest update moved just above it when it ranked lower,
    and {id(updated item): the update's citation}. ``when(item)`` is :func:`dated`'s answer for
    it, ``text(item)`` its words, ``cite(item)`` how to name it. Order is otherwise kept."""
    out = list(items)
    # the first HORIZON of the ranked list, whatever the number of results asked for: the same
    # order for 1 or 20 (and a bounded cost on a long list)
    info = [(it, when(it)) for it in out[:HORIZON]]
    facts = {id(it): _facts(text(it)) for it, w in info if w is not None}
    by: dict[int, object] = {}
    marks: dict[int, str] = {}
    for older, when_old in info:
        if when_old is None:
            continue
        newest = None
        for newer, when_new in info:
            if newer is older or when_new is None or when_new <= when_old:
                continue
            if _updates(facts[id(newer)], facts[id(older)]) and (newest is None or when_new > newest[1]):
                newest = (newer, when_new)
        if newest is not None:
            by[id(older)] = newest[0]
            marks[id(older)] = cite(newest[0])
    for _ in range(len(out)):  # an update of an update moves up in turn
        moved = False
        for i, older in enumerate(out):
            newer = by.get(id(older))
            if newer is not None and out.index(newer) > i:
                out.insert(i, out.pop(out.index(newer)))
                moved = True
                break
        if not moved:
            break
    return out, marks


def prefer_newest(results: list[dict]) -> list[dict]:
    """Result rows (``memory_search``'s shape) ordered by :func:`order`, each updated row marked
    ``supersededBy``."""
    rows, marks = order(results, lambda r: dated(str(r.get("path") or ""), r.get("snippetStartLine") or r.get("startLine"),
                                                 str(r.get("snippet") or "")),
                        lambda r: str(r.get("snippet") or ""), lambda r: r.get("citation") or r.get("path"))
    for r in rows:
        if id(r) in marks:
            r["supersededBy"] = marks[id(r)]
    return rows
