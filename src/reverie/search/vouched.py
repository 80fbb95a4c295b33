"""A keyword relevance that legs without the question's words vouch for.

Three legs bring units that hold few or none of the question's words, yet answer it, and say how
relevant by keyword such a unit is at least (each module says why):

* the question's characters, held loosely (search/loose.py): ``loose.WEIGHT`` times the share of them;
* keyword-only, the first unit of a note of the few days asked (search/days_asked.py):
  ``days_asked.DAY_WEIGHT``;
* keyword-only, a stated taste on a topic an advice question names (search/taste.py):
  ``taste.TOPIC_WEIGHT``.
"""

from __future__ import annotations

from . import counting, days_asked, loose, taste


def evidence(c) -> float:
    """What of candidate ``c`` answers the question without its words: the characters it holds
    loosely, a taste on the topic asked about (the relevance floor counts these as coverage,
    search/floor.py; a day's first unit only adds to an answer, and is not counted there)."""
    return max(loose.WEIGHT * c.loose, taste.TOPIC_WEIGHT if c.topical else 0.0)


def floor_of(c) -> float:
    """The keyword relevance the legs vouch for of candidate ``c`` (0: none). In the order, a line
    naming nothing of the kind a count counts holds the question's characters ×NO_KIND
    (search/counting.py; not in the relevance floor's judgement, which reads :func:`evidence`)."""
    if c.names_kind is False:
        held = max(loose.WEIGHT * c.loose * counting.NO_KIND, taste.TOPIC_WEIGHT if c.topical else 0.0)
    else:
        held = evidence(c)
    return max(held, days_asked.DAY_WEIGHT if c.dated else 0.0)


def lift(pool: list) -> None:
    """A unit is at least as relevant by keyword as its legs vouch. (A unit the path leg found keeps
    its path score where that is more: ``Candidate.text_score`` reads the keyword leg once it is set.)"""
    for c in pool:
        if c.specificity:
            continue
        floor = floor_of(c)
        if floor > c.keyword:
            c.keyword = max(floor, c.path_score or 0.0) if c.kw is None else floor
