"""Counting questions: "how many times did I go swimming?", "我一共看了几个医生？".

The answer to such a question is spread over many notes, each mentioning one instance in passing
(a swim on Tuesday in a session about work, a dentist's filling in one about the weekend). Two
things of the usual ranking work against that (docs/search.md §5):

- a unit is judged half by its own words and half by its window and file, which is right for a
  fact asked about once (a reply such as "yes, in May" means something only beside its question)
  but sinks a passing mention in a session about something else: every instance of a count is
  such a mention;
- the vector leg scores the units of the best :data:`~reverie.search.context.COARSE_WINDOWS`
  windows only, and a window about something else holding one instance is not among them.

So a counting question judges units mostly by their own relevance (:data:`OWN_WEIGHT`) and scores
the units of more windows (:data:`COARSE_WINDOWS`). Measured on the long-history benchmark (every
evidence session among the first five notes; docs/benchmarks.md): aggregate questions over
sessions of about 35 lines 0.222 → 0.444, short sessions 0.500 → 0.528; on LoCoMo, whose "how
many…" questions take this path too, read@ budgets unchanged within 0.002.
"""

from __future__ import annotations

from ..text.cjk import LazyPattern

OWN_WEIGHT = 0.8  # a unit's own relevance against its context's (0.5 for other questions)
COARSE_WINDOWS = 96  # windows whose units are all read (12 for other questions) ...
UNITS_KEPT = 256  # ... of which the nearest by their own vector are scored (and every keyword hit)

# "how many / how often", "how much … in total / altogether / so far", "in total", "the total
# number"; "一共 / 总共 / 总计 / 加起来", "几" with a measure word of things or times ("几次 / 几个 /
# 几本 / 几场"; not "几点", what time, nor "几天前 / 这几天 / 几个月前 / 几年前", a few days ago),
# "多少次 / 多少个"
_ASKS = LazyPattern(
    r"\bhow\s+(?:many|often)\b"
    r"|\bhow\s+much\b[^.?!\n]{0,60}\b(?:in\s+total|altogether|so\s+far|overall|all\s+together)\b"
    r"|\bin\s+total\b|\btotal\s+(?:number|amount)\b"
    r"|一共|总共|总计|加起来|累计"
    r"|几(?:次|个(?!月|星期|小时|钟头)|本|场|盆|家|回|趟|种|件|部|篇|首|顿|杯|双|条|只|张|门)"
    r"|多少(?:次|个|本|场|回|趟|位|种|件|部|篇|首|顿|杯)", 0)


def asks_to_count(query: str) -> bool:
    return _ASKS.search(query.lower()) is not None


# a count of what happened over time: "how many times / how often", "in total", "so far", "how
# many … did I …", "几次 / 多少次 / 一共 / 总共…" (not "how many cats do I have?", "how many people
# are on my team?": a value, which a later note updates)
_INSTANCES = LazyPattern(
    r"\bhow\s+often\b|\bhow\s+many\s+times\b|\bin\s+total\b|\baltogether\b|\ball\s+together\b"
    r"|\btotal\s+(?:number|amount)\b|\bso\s+far\b|\bhow\s+(?:many|much)\b[^.?!\n]{0,60}\bdid\s+(?:i|we)\b"
    r"|几次|多少次|几回|几趟|一共|总共|总计|累计|加起来", 0)
# ... unless it asks for the value as it stands ("how many kilometres is my longest run now?")
_NOW = LazyPattern(r"\b(?:now|currently|current|these\s+days|at\s+the\s+moment|latest)\b|现在|目前|如今|最新", 0)


def counts_instances(query: str) -> bool:
    """A counting question about instances over time ("how many times did I swim?", "how many
    concerts did I attend in total?"): each saying is one of the things counted, none updates
    another (search/newest.py is not asked). A count of a value ("how many cats do I have?") or
    one that asks for it now is a question about the newest fact."""
    low = query.lower()
    return asks_to_count(low) and _INSTANCES.search(low) is not None and _NOW.search(low) is None
