"""Following the answer forward: the line that later left the value it names.

A question about a fact as it stands ("Who's our home internet provider?") finds the statement that
answers it ("We have Comcast Xfinity for home internet"), and the line that changed it often shares
none of the question's words and little of its meaning ("Finally ditched Xfinity! We're on Google
Fiber now"): in the month of updates written apart from this code (benchmarks/updates_fresh_data.py)
such lines ranked 13th, or not at all. What they share is the value: the name the answer gives.
So, when the first result is one of the owner's dated statements naming something, the keyword
index is asked once more, for those names, and a later statement of the owner's that says the
named value was left, replaced or ended (search/newest.answers_alike: "Dr. Patel moved her
office" leaves nothing) goes first, the answer just below it marked superseded.

Only names (capitalised words of the owner's statement, not its first word nor a day or month): a
Chinese statement has no capitals, and its words are the question's as often as the value's.
"""

from __future__ import annotations

from . import newest

#: how many units the names may bring (the best by keyword relevance): a name is rare, and a later
#: statement of its change is among the few lines holding it
LIMIT = 24
# a class of text that never speaks for the owner (trust/): it changes nothing the owner said
_NOT_THE_OWNERS = frozenset({"untrusted", "system"})


def later_update(lead, asked: frozenset[str], when, fetch):
    """The latest of the owner's statements that ``fetch(names)`` finds (loaded candidates) saying
    that a value ``lead`` (the first result, a passage) names was left: (that candidate, its date)
    or None. ``when(path, line, text)`` dates a text (search/newest.dated)."""
    text = lead.text
    started = when(lead.lead.path, min(u.start_line for u in lead.units), text)
    if started is None or lead.superseded_by:
        return None
    names = newest.names_given(text, asked)
    if not names:
        return None
    best = None
    for c in fetch(names):
        if c.origin_class in _NOT_THE_OWNERS:
            continue
        said = when(c.path, c.start_line, c.text)
        if said is None or said <= started or (best is not None and said <= best[1]):
            continue
        # (the name dropped by the owner, in so many words: a line that only names it, or in which it
        # does something, "Priya left early today", "Chase cancelled my old debit card", changes nothing)
        owner = newest.owner_words(c.text)
        if owner and any(newest.drops_name(owner, n) for n in names) and newest.answers_alike(c.text, text, asked):
            best = (c, said)
    return best
