"""MMR's two implementations give the same order and penalties: the matrix product (numpy, used
once a vector search has loaded it) and the loop over token sets (a keyword-only search, which
never imports numpy)."""

from __future__ import annotations

import random

from reverie.search import mmr

# English and Chinese words, an empty text, and "of" with "景", which CPython hashes alike (the
# same bytes): the matrix takes them for one token, and so must the loop
WORDS = ["hotel", "lake", "view", "room", "budget", "of", "the", "release", "rollback", "湖景房", "西湖", "景",
         "酒店", "预算", "决定住", "ok", "a"]


def _text(rng: random.Random) -> str:
    if rng.random() < 0.08:
        return ""
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))


def test_the_loop_orders_as_the_matrix_does():
    rng = random.Random(7)
    for _ in range(400):
        n = rng.randint(2, 48)
        texts = [_text(rng) for _ in range(n)]
        if rng.random() < 0.3:  # near-duplicates and exact copies
            texts[rng.randrange(n)] = texts[0]
        # ties in score too: the higher score wins a tie in value, then the earlier candidate
        scores = [rng.choice([0.5, 0.25, round(rng.random(), rng.choice([1, 2, 6]))]) for _ in range(n)]
        lam = rng.choice([mmr.LAMBDA, 0.0, 1.0, 0.5])
        assert mmr._mmr_python(scores, texts, lam) == mmr._mmr_numpy(scores, texts, lam)


def test_one_or_no_candidate():
    assert mmr.mmr_order([], []) == ([], [])
    assert mmr.mmr_order([0.3], ["hotel"]) == ([0], [0.0])
