"""The days a question names, without vectors, and what the question's terms hold loosely.

With vectors, a question that says when reads the best windows of the notes dated then, whatever
its words matched (timeq.py, "the time leg"). Without them the words are all there is, and a
question's words seldom are the note's: "我二月去哪里爬山了？" is answered by "今天去爬了香山" (no
two-character word in common: the keyword index found nothing at all), "Which movie did I see the
week before my trip?" by "Watched the film … at the cinema". What the question does say is when.

* Loosely (search/loose.py): the units the keyword and loose legs found are matched by the share
  of the question's loose terms they hold (its meaningful Chinese characters, rough stems of its
  Latin words), and are at least ``loose.WEIGHT`` times that share relevant by keyword (below a
  unit holding the question's words themselves). With a range, only the units of the days asked
  are matched so: a hike of another month is no answer to "where did I hike last week".
* Keyword-only, when the range spans at most :data:`FEW_DAYS` days ("the week before my trip",
  "last week", "yesterday") or holds at most :data:`FEW_NOTES` notes (a month of a memory that
  sees a session a week), the first unit of each note dated then that says something joins the
  candidates (at most :data:`MAX_NOTES` notes), matched or not, with a keyword relevance of at least
  :data:`DAY_WEIGHT`: below a unit that holds the question's words, above one that holds a single
  word of it on another day ("… saves a second trip" for "the week before my trip"). The question
  asked what happened on those few days, and these are those days. They only add to an answer:
  when nothing at all matched the question ("Did I go skydiving last week?"), they go too, and the
  answer stays "no memory of it".

A wider range that holds more notes ("this month" of daily notes, "this year") is left to the
words, the characters and the time lift.
"""

from __future__ import annotations

from . import loose
from .rescore import note_date

MAX_NOTES = 31  # notes of the days asked whose first units join (more: sessions of their own)
FEW_DAYS = 14  # a range of at most two weeks: each of its notes is shown
FEW_NOTES = 8  # ... or of any length that holds at most this many notes ("in May": three sessions)
DAY_WEIGHT = 0.2  # a day's first unit, matched or not: above a unit that holds one word of a long question
HEAD_UNITS = 8  # a note's first units read to find the first that says something


def few(when, notes: int) -> bool:
    """Whether each of the ``notes`` notes dated inside the range ``when`` (a timeq.TimeRange) is
    shown: the range spans at most :data:`FEW_DAYS` days or holds at most :data:`FEW_NOTES` notes
    (and never more than :data:`MAX_NOTES`)."""
    return 0 < notes <= MAX_NOTES and ((when.end - when.start).days + 1 <= FEW_DAYS or notes <= FEW_NOTES)


def first_said(units: list[tuple[int, str]]) -> int:
    """Of a note's first units (seq, text), in order, the first that says something: frontmatter
    ("---", "tags: [daily]", "---", a unit each or one) and headings ("# 2026-05-27") stand for no
    day; the first unit when nothing else is there."""
    inside = False  # within the frontmatter the note opens with
    for i, (seq, text) in enumerate(units):
        lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
        if i == 0 and lines and lines[0] == "---":
            inside, lines = True, lines[1:]
        while inside and lines:
            inside = lines.pop(0) != "---"
        if not inside and any(not line.startswith("#") for line in lines):
            return seq
    return units[0][0]


def _matched(c) -> bool:
    """Whether a candidate holds anything of the question: its words, its characters, its path."""
    return c.kw is not None or bool(c.loose) or c.path_score is not None


def keep(pool: list, wanted: frozenset[str], found: set[int], alone: set[int], when=None) -> list:
    """Sets the loose share of ``wanted`` (the question's loose terms) of the units the keyword and
    loose legs found (``found``) and of the days' first units; returns the pool without the units
    only the loose leg brought (``alone``) that hold none of them, and without the days' first
    units when nothing at all matched the question (they add to an answer; they are none)."""
    out = []
    for c in pool:
        if not c.specificity and (c.dated or c.kw is not None or c.seq in found):
            # a question that says when: only the days asked are matched loosely (a hike of
            # another month is no answer to "where did I hike last week", whatever it shares)
            c.loose = loose.share(c.text, wanted) if when is None or when.holds(note_date(c.path)) else 0.0
            if c.seq in alone and not c.dated and not _matched(c):
                continue
        out.append(c)
    if not any(_matched(c) or c.specificity for c in out):  # "Did I go skydiving last week?": no memory of it
        out = [c for c in out if not c.dated]
    return out
