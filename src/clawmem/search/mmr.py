"""Maximal marginal relevance: reorder near-duplicates apart (λ 0.7, token Jaccard).

MMR only reorders; scores and eligibility are untouched. The greedy pass runs over the whole
candidate list once, so any prefix of its output is the same whatever count is asked for.
"""

from __future__ import annotations

from ..text.cjk import similarity_tokens

LAMBDA = 0.7


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def mmr_order(scores: list[float], texts: list[str], lam: float = LAMBDA) -> tuple[list[int], list[float]]:
    """Indices in MMR order and, for each pick, the penalty (max similarity to earlier picks)."""
    n = len(scores)
    if n <= 1:
        return list(range(n)), [0.0] * n
    lam = max(0.0, min(1.0, lam))
    lo, hi = min(scores), max(scores)
    rel = [1.0] * n if hi == lo else [(s - lo) / (hi - lo) for s in scores]
    toks = [similarity_tokens(t) for t in texts]
    remaining = list(range(n))
    order: list[int] = []
    penalties: list[float] = []
    max_sim = [0.0] * n
    while remaining:
        best, best_val = remaining[0], None
        for i in remaining:
            val = lam * rel[i] - (1 - lam) * max_sim[i]
            if best_val is None or val > best_val or (val == best_val and scores[i] > scores[best]):
                best, best_val = i, val
        order.append(best)
        penalties.append(max_sim[best])
        remaining.remove(best)
        for i in remaining:
            sim = jaccard(toks[best], toks[i])
            if sim > max_sim[i]:
                max_sim[i] = sim
    return order, penalties
