"""The embedder interface. A provider implements one batch method plus its identity; batching,
retries and normalisation live here once."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, TypeVar

from ..errors import EmbeddingError
from ..retry import call_with_retries
from ..text.cjk import estimate_tokens

if TYPE_CHECKING:  # numpy loads with the first embedding: commands that never embed skip it
    import numpy as np

T = TypeVar("T")
MAX_BATCH_TOKENS = 8_000
MAX_BATCH_ITEMS = 64


class Embedder:
    """Base class for embedding providers.

    Subclasses set ``provider`` (registry name), ``model`` and ``dims`` (0 until known) and
    implement :meth:`_embed_batch`. Vectors come back L2-normalised float32.
    """

    provider: str = ""
    model: str = ""
    dims: int = 0
    #: whether the provider is remote (an explicit remote provider fails closed in search)
    remote: bool = False
    #: options that change the vectors, folded into ``provider_key``
    key_options: dict = {}  # subclasses assign their own dict, never mutate this one
    #: cosine below which two texts are unrelated for this model; search maps [floor, 1] onto
    #: [0, 1] so that minScore means the same for every provider (e5 rarely scores below 0.6)
    score_floor: float = 0.0
    #: the relevance floor of hybrid search (search/floor.py), measured for this model; None: none
    relevance_floor: float | None = None
    #: batching limits of the provider's API (estimated tokens and inputs per request)
    batch_tokens: int = MAX_BATCH_TOKENS
    batch_items: int = MAX_BATCH_ITEMS

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    @property
    def provider_key(self) -> str:
        blob = json.dumps({"provider": self.provider, "model": self.model, **self.key_options},
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def runtime(self) -> dict | None:
        """How an in-process engine runs (threads, wait policy), for ``status --deep``; None for
        providers without one."""
        return None

    def describe(self) -> dict:
        return {"provider": self.provider, "model": self.model, "dims": self.dims,
                "provider_key": self.provider_key}

    # -- shared machinery -------------------------------------------------------------------
    def _call(self, texts: list[str], query: bool) -> np.ndarray:
        import numpy as np

        # a provider bug must surface as a provider error, not a crash
        out = interruptible(lambda: call_with_retries(
            lambda: np.asarray(self._embed_batch(texts, query=query), dtype=np.float32), error=EmbeddingError,
            wrap=lambda exc: EmbeddingError(f"{self.provider}: {type(exc).__name__}: {exc}")))
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise EmbeddingError(f"{self.provider}: expected {len(texts)} vectors, got shape {out.shape}")
        if self.dims and out.shape[1] != self.dims:
            raise EmbeddingError(f"{self.provider}: expected {self.dims}-d vectors, got {out.shape[1]}-d")
        if not np.all(np.isfinite(out)):
            raise EmbeddingError(f"{self.provider}: the provider returned non-finite vector values")
        self.dims = out.shape[1]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def embed_documents(self, texts: list[str],
                        progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed many texts in batches within the provider's limits (by default about 8,000 estimated
        tokens and 64 inputs)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        parts: list[np.ndarray] = []
        batch: list[str] = []
        budget = 0
        for text in texts:
            cost = estimate_tokens(text) + 1
            if batch and (budget + cost > self.batch_tokens or len(batch) >= self.batch_items):
                parts.append(self._call(batch, False))
                if progress:
                    progress(len(batch))
                batch, budget = [], 0
            batch.append(text)
            budget += cost
        if batch:
            parts.append(self._call(batch, False))
            if progress:
                progress(len(batch))
        return np.vstack(parts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._call([text], True)[0]


def interruptible(work: Callable[[], T]) -> T:
    """``work()``, run on a helper thread when called on the main thread, which waits for it in a
    way Ctrl-C can cut short. A C engine busy with a batch (tens of seconds on a loaded machine)
    does not return to the interpreter, so Python could not raise KeyboardInterrupt until the
    batch ended; cut short, the batch is abandoned (the process is stopping) and what committed
    before it stays."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    done = threading.Event()
    box: dict = {}

    def worker() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=worker, name="reverie-embed", daemon=True).start()
    while not done.wait(0.5):  # (a wait with a timeout lets the main thread take signals)
        pass
    if "error" in box:
        raise box["error"]
    return box["value"]


@dataclass
class ProviderState:
    """What was asked for, what runs, and why: shown by ``reverie status``."""

    requested: str
    provider: str  # the provider in use, or "none"
    model: str | None
    reason: str
    error: str | None = None

    def as_dict(self) -> dict:
        return {"requested": self.requested, "provider": self.provider, "model": self.model,
                "reason": self.reason, "error": self.error}
