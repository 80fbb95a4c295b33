"""Maximal marginal relevance: reorder near-duplicates apart (λ 0.7, token Jaccard).

MMR only reorders; scores and eligibility are untouched. The greedy pass runs over the whole
candidate list once, so any prefix of its output is the same whatever count is asked for.
Pairwise Jaccard comes from one matrix product over token incidence (a pure-Python double loop
cost 30 ms per search for 48 chunks of 400 tokens).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..text.cjk import similarity_tokens

LAMBDA = 0.7


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


@lru_cache(maxsize=8192)
def _token_ids(text: str) -> np.ndarray:
    """The text's distinct tokens as int64 hashes (equal tokens, equal ids, within a process)."""
    return np.fromiter((hash(t) for t in similarity_tokens(text)), dtype=np.int64)


def similarity_matrix(texts: list[str]) -> np.ndarray:
    ids = [_token_ids(t) for t in texts]
    n = len(texts)
    lengths = np.array([len(a) for a in ids])
    flat = np.concatenate(ids) if lengths.sum() else np.zeros(0, dtype=np.int64)
    vocab, cols = np.unique(flat, return_inverse=True)
    rows = np.repeat(np.arange(n), lengths)
    inc = np.zeros((n, max(1, len(vocab))), dtype=np.float32)
    if len(rows):
        inc[rows, cols] = 1.0
    inter = inc @ inc.T
    sizes = inc.sum(axis=1)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / union, 1.0)  # both empty: identical
    empty = sizes == 0
    sim[np.ix_(empty, ~empty)] = 0.0  # one empty: nothing in common
    sim[np.ix_(~empty, empty)] = 0.0
    return sim


def mmr_order(scores: list[float], texts: list[str], lam: float = LAMBDA) -> tuple[list[int], list[float]]:
    """Indices in MMR order and, for each pick, the penalty (max similarity to earlier picks)."""
    n = len(scores)
    if n <= 1:
        return list(range(n)), [0.0] * n
    lam = max(0.0, min(1.0, lam))
    sc = np.asarray(scores, dtype=np.float64)
    lo, hi = sc.min(), sc.max()
    rel = np.ones(n) if hi == lo else (sc - lo) / (hi - lo)
    sim = similarity_matrix(texts)
    remaining = np.ones(n, dtype=bool)
    max_sim = np.zeros(n)
    order: list[int] = []
    penalties: list[float] = []
    for _ in range(n):
        val = lam * rel - (1 - lam) * max_sim
        val[~remaining] = -np.inf
        best_val = val.max()
        ties = np.flatnonzero(val == best_val)
        best = int(ties[np.argmax(sc[ties])]) if len(ties) > 1 else int(ties[0])  # ties: higher score
        order.append(best)
        penalties.append(float(max_sim[best]))
        remaining[best] = False
        np.maximum(max_sim, sim[best], out=max_sim)
    return order, penalties
