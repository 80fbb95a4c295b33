"""Maximal marginal relevance: reorder near-duplicates apart (λ 0.7, token Jaccard).

MMR only reorders; scores and eligibility are untouched. The greedy pass runs over the whole
candidate list once, so any prefix of its output is the same whatever count is asked for.

Two implementations with the same answer: where numpy is loaded already (a vector search, a
server), pairwise Jaccard comes from one matrix product over token incidence (a pure-Python double
loop cost 30 ms per search for 48 chunks of 400 tokens); otherwise (a keyword-only search, which
must not pay ~100 ms to import numpy for this) a loop over the token sets, whose units are small
now. Both round Jaccard to single precision as the matrix product does; a test holds them equal.
"""

from __future__ import annotations

import struct
import sys
from functools import lru_cache
from typing import TYPE_CHECKING

from ..text.cjk import similarity_tokens

if TYPE_CHECKING:
    import numpy as np

LAMBDA = 0.7
_SINGLE = struct.Struct("f")


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


@lru_cache(maxsize=8192)
def _token_ids(text: str) -> np.ndarray:
    """The text's distinct tokens as int64 hashes (equal tokens, equal ids, within a process)."""
    import numpy as np

    return np.fromiter((hash(t) for t in similarity_tokens(text)), dtype=np.int64)


@lru_cache(maxsize=8192)
def _token_set(text: str) -> frozenset[int]:
    """:func:`_token_ids` as a set: the same hashes, so that tokens the matrix takes for one (a
    2-letter ASCII word and the CJK character with the same bytes, "of" and "景", hash alike in
    CPython) are one here too."""
    return frozenset(hash(t) for t in similarity_tokens(text))


def similarity_matrix(texts: list[str]) -> np.ndarray:
    import numpy as np

    ids = [_token_ids(t) for t in texts]
    n = len(texts)
    lengths = np.array([len(a) for a in ids])
    flat = np.concatenate(ids) if lengths.sum() else np.zeros(0, dtype=np.int64)
    vocab, cols = np.unique(flat, return_inverse=True)
    rows = np.repeat(np.arange(n), lengths)
    inc = np.zeros((n, max(1, len(vocab))), dtype=bool)
    if len(rows):
        inc[rows, cols] = True
    inter = _shared_counts(inc)
    sizes = inc.sum(axis=1).astype(np.float32)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / union, 1.0)  # both empty: identical
    empty = sizes == 0
    sim[np.ix_(empty, ~empty)] = 0.0  # one empty: nothing in common
    sim[np.ix_(~empty, empty)] = 0.0
    return sim


def _shared_counts(inc: np.ndarray) -> np.ndarray:
    """How many tokens each pair of rows of the 0/1 matrix ``inc`` shares, without BLAS: a float
    ``inc @ inc.T`` started OpenBLAS's thread pool, whose threads then spin-wait for more work,
    so each searching process kept a second core busy (a searcher with a 50 ms pause between
    searches used 10.5 s of CPU for 2.8 s of searching; 2.5 s for 2.5 s now). Rows as bit sets, counted
    with popcount (numpy 2); numpy's own einsum loop before that (no thread pool either)."""
    import numpy as np

    if not hasattr(np, "bitwise_count"):  # numpy < 2
        f = inc.astype(np.float32)
        return np.einsum("ik,jk->ij", f, f)
    bits = np.packbits(inc, axis=1)
    pad = -bits.shape[1] % 8
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    words = bits.view(np.uint64)
    return np.bitwise_count(words[:, None, :] & words[None, :, :]).sum(axis=2, dtype=np.int64).astype(np.float32)


def _similarity(a: frozenset[int], b: frozenset[int]) -> float:
    """:func:`jaccard` rounded to single precision, as :func:`similarity_matrix` computes it (a
    quotient of two small integers rounded to double, then to single, is the single-precision
    quotient: double has more than twice single's precision, plus two bits)."""
    if not a or not b:
        return 1.0 if not a and not b else 0.0
    inter = len(a & b)
    return _SINGLE.unpack(_SINGLE.pack(inter / (len(a) + len(b) - inter)))[0]


def mmr_order(scores: list[float], texts: list[str], lam: float = LAMBDA) -> tuple[list[int], list[float]]:
    """Indices in MMR order and, for each pick, the penalty (max similarity to earlier picks)."""
    n = len(scores)
    if n <= 1:
        return list(range(n)), [0.0] * n
    lam = max(0.0, min(1.0, lam))
    if "numpy" in sys.modules:
        return _mmr_numpy(scores, texts, lam)
    return _mmr_python(scores, texts, lam)


def _mmr_numpy(scores: list[float], texts: list[str], lam: float) -> tuple[list[int], list[float]]:
    import numpy as np

    n = len(scores)
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


def _mmr_python(scores: list[float], texts: list[str], lam: float) -> tuple[list[int], list[float]]:
    n = len(scores)
    sc = [float(s) for s in scores]
    lo, hi = min(sc), max(sc)
    rel = [1.0] * n if hi == lo else [(s - lo) / (hi - lo) for s in sc]
    tokens = [_token_set(t) for t in texts]
    remaining = set(range(n))
    max_sim = [0.0] * n
    order: list[int] = []
    penalties: list[float] = []
    for _ in range(n):
        val = {i: lam * rel[i] - (1 - lam) * max_sim[i] for i in remaining}
        best_val = max(val.values())
        ties = [i for i in sorted(remaining) if val[i] == best_val]
        best = max(ties, key=lambda i: sc[i])  # ties: higher score, then the earlier one
        order.append(best)
        penalties.append(max_sim[best])
        remaining.discard(best)
        for j in remaining:  # only the candidates still to place need their penalty
            max_sim[j] = max(max_sim[j], _similarity(tokens[best], tokens[j]))
    return order, penalties

