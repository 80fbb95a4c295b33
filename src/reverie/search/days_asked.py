"""The days a question names, read without vectors: the keyword-only time leg.

With vectors, a question that says when reads the best windows of the notes dated then, whatever
its words matched (timeq.py, "the time leg"). Without them the words are all there is, and a
question's words seldom are the note's: "我二月去哪里爬山了？" is answered by "今天去爬了香山" (no
two-character word in common: the keyword index found nothing at all), "Which movie did I see the
week before my trip?" by "Watched the film … at the cinema". What the question does say is when,
and a range of a week or a month holds few notes. So, keyword-only:

* the units of the daily notes dated in the range (when it holds at most :data:`MAX_NOTES`) are
  read, and each is matched *loosely* (search/loose.py): the share of the question's meaningful
  characters (爬, 山) and rough stems of Latin words it holds; a unit holding some becomes a
  candidate whose keyword relevance is at least ``loose.WEIGHT`` times that share (below a unit
  holding the question's words themselves);
* when the range spans at most :data:`FEW_DAYS` days ("the week before my trip", "last week",
  "yesterday"), each note's first unit joins too, matched or not, with a keyword relevance of at least
  :data:`DAY_WEIGHT`: below a unit that holds the question's words, above one that holds a single
  word of it somewhere else in time ("… saves a second trip" for "the week before my trip"). The
  question asked what happened on those few days, and these are those days.

A range wider than :data:`MAX_NOTES` notes ("this year") is left to the words and the time lift.
"""

from __future__ import annotations

from . import loose
from .rescore import note_date

MAX_NOTES = 31  # a month of daily notes
FEW_DAYS = 14  # a range of at most two weeks: every note of it is shown
DAY_WEIGHT = 0.2  # a day's first unit, matched or not: above a unit that holds one word of a long question


def few_days(when) -> bool:
    """Whether the range ``when`` (a timeq.TimeRange) is short enough to show each of its notes."""
    return (when.end - when.start).days + 1 <= FEW_DAYS


def keep(pool: list, wanted: frozenset[str], found: set[int], alone: set[int], few: bool, when=None) -> list:
    """Sets the loose share of ``wanted`` (the question's loose terms) of the units the loose leg
    ``found`` and of the days' asked; returns the pool without those that only the loose leg
    (``alone``) or the days brought and that hold none of the question's terms, loosely or not
    (each day's first unit stays when the range is ``few`` days)."""
    out = []
    for c in pool:
        if not c.specificity and (c.dated or c.seq in found):
            # a question that says when: only the days asked are matched loosely (a hike of
            # another month is no answer to "where did I hike last week", whatever it shares)
            c.loose = loose.share(c.text, wanted) if when is None or when.holds(note_date(c.path)) else 0.0
            if (c.dated or c.seq in alone) and not (c.loose or c.kw is not None or (few and c.dated == 2)):
                continue
        out.append(c)
    return out


def lift(pool: list, few: bool) -> None:
    """A unit is at least as relevant by keyword as the question's terms it holds loosely say
    (search/loose.py), and a day's first unit of a few days asked at least :data:`DAY_WEIGHT`."""
    for c in pool:
        if not c.specificity:
            c.keyword = max(c.keyword, loose.WEIGHT * c.loose, DAY_WEIGHT if few and c.dated == 2 else 0.0)
