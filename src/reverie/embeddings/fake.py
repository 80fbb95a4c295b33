"""A deterministic embedder for tests, registered like any other provider.

Each token (ASCII word, CJK character and bigram) is hashed into one of ``dims`` buckets, so texts
that share words get similar vectors. Model ``broken`` fails every call, to exercise error paths; model ``slow`` sleeps 0.2 s per batch so a
test can interrupt a long index run; model ``slow-query`` embeds documents at once and takes 2 s
per query (an embedder still loading, or a slow remote one, as a search sees it). With
``FAKE_EMBEDDER_STUCK_AFTER=N`` in the environment, any model embeds N batches of documents, then
never returns from a call and holds Ctrl-C back meanwhile, as a C engine busy with a long batch
does (a test interrupts ``reverie index`` there).
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time

import numpy as np

from ..errors import EmbeddingError
from ..text.cjk import similarity_tokens
from .base import Embedder


class FakeEmbedder(Embedder):
    provider = "fake"
    remote = False
    calls = 0  # texts embedded by all fake instances, for tests
    # set by a test: model slow-query's queries and model slow's batches of passages wait for it
    hold: threading.Event | None = None
    def __init__(self, model: str | None = None):
        self.model = model or "hash-64"
        self.dims = 64
        self.key_options = {}
        self._batches = 0

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        if self.model == "broken":
            raise EmbeddingError("fake provider 'broken' always fails")
        if self.model == "slow":
            if FakeEmbedder.hold is not None and not query:  # a test holds the batches of passages
                FakeEmbedder.hold.wait(60)
            else:
                time.sleep(0.2)
        if self.model == "slow-query" and query:
            if FakeEmbedder.hold is not None:  # a test holds queries until it has looked (no race with a clock)
                FakeEmbedder.hold.wait(60)
            else:
                time.sleep(2.0)
        stuck_after = os.environ.get("FAKE_EMBEDDER_STUCK_AFTER")
        if stuck_after and not query:
            self._batches += 1
            if self._batches > int(stuck_after):
                # signals wait while this thread sleeps, as they do while C code runs
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
                time.sleep(3600)
        FakeEmbedder.calls += len(texts)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in similarity_tokens(text):
                h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=4).digest(), "little")
                out[i, h % self.dims] += 1.0
        return out
