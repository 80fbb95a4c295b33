"""A reading budget: results that fill ``maxTokens`` rather than a count (docs/search.md §10,
"A reading budget").

A count says nothing about how much an agent reads: six one-line turns are about 100 tokens, six
merged passages of a long note 1,000. An agent that knows what it can spend (issue 30: "when an
agent asks for a token budget rather than a count, the results fill it") asks for tokens: the
results come in ranked order while their snippets and citations fit, so a question whose answer
is spread over many short lines gets many of them, and one whose best passage is long gets fewer.
The first result always comes whole, whatever it costs: an answer cut to fit a small budget would
say less than the memory holds without saying so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..text.cjk import estimate_tokens

MAX_TOKENS = 100_000  # the largest budget accepted (a search returns at most MAX_RESULTS results anyway)
#: what one short result costs at least (a one-line turn with its citation): how many results a
#: budget may need, so the ranking is asked for enough of them
TOKENS_PER_RESULT = 12
MAX_RESULTS = 200


def results_wanted(max_tokens: int, configured: int, asked: int | None) -> int:
    """How many results to rank for a budget: the count asked for when there is one (both limits
    then hold, whichever comes first), else as many as the budget could hold."""
    if asked is not None:
        return asked
    return max(configured, min(MAX_RESULTS, math.ceil(max_tokens / TOKENS_PER_RESULT)))


def cost(snippet: str, citation: str) -> int:
    """The tokens an agent reads for one result: its snippet and the citation it quotes back."""
    return estimate_tokens(snippet) + estimate_tokens(citation)


def spent(results: Iterable[dict]) -> int:
    """The tokens of result rows (``memory_search``'s shape) as :func:`cost` counts them: what is
    left of a budget's count after a caller filtered its results."""
    return sum(cost(r.get("snippet") or "", r.get("citation") or "") for r in results)


def fitting(costs: Iterable[int], budget: int) -> tuple[int, int]:
    """(how many of the results, in order, fit in ``budget``, the tokens they use): the first
    always; the list stops at the first that would pass the budget (no smaller later one takes
    its place: the reading order is the ranking's)."""
    used = kept = 0
    for c in costs:
        if kept and used + c > budget:
            break
        used += c
        kept += 1
    return kept, used
