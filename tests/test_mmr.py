"""MMR's two implementations give the same order and penalties: the matrix (numpy, used
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


def test_shared_token_counts_are_the_set_intersections():
    """The bit-set count of shared tokens (numpy 2's popcount) and the einsum used before numpy 2
    both give |A ∩ B| for every pair of rows."""
    import numpy as np

    rng = random.Random(3)
    for _ in range(60):
        n, v = rng.randint(1, 48), rng.randint(1, 700)  # widths not a multiple of 64 bits too
        inc = np.array([[rng.random() < 0.1 for _ in range(v)] for _ in range(n)], dtype=bool)
        sets = [set(np.flatnonzero(row)) for row in inc]
        want = [[len(a & b) for b in sets] for a in sets]
        assert mmr._shared_counts(inc).tolist() == want
        f = inc.astype(np.float32)
        assert np.einsum("ik,jk->ij", f, f).tolist() == want


def test_mmr_leaves_no_thread_pool_spinning():
    """MMR over a full pool leaves nothing burning CPU once it has answered: a BLAS product's
    worker threads spin-wait after it (0.11 s of CPU in the sleep below, measured), which
    kept a second core busy in every searching process."""
    import os
    import subprocess
    import sys

    # Only the other threads' CPU counts (process time less the main thread's), and only after
    # numpy's own start-up has settled: importing numpy starts the pool, whose threads spin for
    # ~0.06 s of CPU on their own, before any search runs.
    script = """
import time
import numpy  # noqa: F401 (loaded: MMR takes its matrix road, as in a vector search)
from reverie.search import mmr

def others():
    return time.process_time() - time.thread_time()

for _ in range(50):  # until the pool is quiet: no CPU across 0.2 s
    a = others()
    time.sleep(0.2)
    if others() - a < 0.002:
        break
texts = [" ".join(f"w{(i * 7 + k) % 2400}" for k in range(80)) for i in range(48)]
c = others()
for _ in range(5):
    mmr.mmr_order([1.0 - i / 100 for i in range(48)], texts)
time.sleep(0.3)
print(others() - c)
"""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 0.03  # quiet workers: ~0; a BLAS product's spin: ~0.1 s (measured)
