"""Language-neutral query vectors for embedders that carry their language in every vector.

The bundled multilingual-e5-small scores a Chinese question against every Chinese note 0.82-0.88
and every English note 0.70-0.79, whatever they say (issue 30): a direction in its space says
which language a text is in, and the cosine of two texts in one language holds that direction's
product on top of their meaning. With ``d`` that direction (unit length; measured on parallel
sentences, ``benchmarks/language_axis.py``) the cosine used is::

    cos'(q, x) = q·x − s·(q·d)(x·d) + s·(q·d)²  =  (q − s·(q·d) d)·x + s·(q·d)²

The middle term takes (a share ``s`` of) the language out of the comparison; the last puts back
what a note in the query's own language had (x·d ≈ q·d), so same-language scores, and what
minScore means for them, barely move while a note in the other language is judged by what it
says. ``s`` = 0.7, not 1: with all of it out, a note and its translation tie, and two notes saying
the same thing in both languages (tests/test_search_semantic.py) lost their same-language order;
at 0.7 the own language still breaks such a tie, and the cross-language set of
benchmarks/long_history.py finds the right note in the first 3 for 0.942 of its questions (0.587
without the axis, 1.000 with all of it out), same-language precision unchanged. Both parts ride on the
query alone: the index and its vectors are unchanged. Models without a measured axis are left as
they are.
"""

from __future__ import annotations

import threading
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

STRENGTH = 0.7


@lru_cache(maxsize=8)
def _axis(model: str):
    from .language_axes import AXES

    values = AXES.get(model)
    if values is None:
        return None
    import numpy as np  # a vector search: loaded already

    d = np.asarray(values, dtype=np.float32)
    return d / np.linalg.norm(d)


#: where a text's projection on the axis changes language: the midpoint of the two languages'
#: notes (multilingual-e5-small: Chinese notes 0.21-0.32, English ones -0.06-0.04; texts mixing
#: both fall between), measured on the notes of benchmarks/long_history.py's cross-language set
MIDPOINTS = {"multilingual-e5-small": 0.12}
#: the share of the memory's files in another language than the query's from which the language is
#: taken out of the query (a few such files, and a question may be about one of them)
OTHER_MIN = 0.01


# per file matrix (a snapshot's is never changed in place: a refreshed snapshot has a new one), the
# files' sides of the midpoint. Projecting 20,000 files cost ~3 ms a query; kept, a query reads two
# counts. Keyed by the matrix's id, checked against a weak reference to it (an id can be reused)
_sides: dict[int, tuple] = {}
_sides_lock = threading.Lock()
_SIDES_KEPT = 8


def other_language_share(d: np.ndarray, mid: float, query: np.ndarray, files: np.ndarray) -> float:
    """The share of ``files`` (unit vectors, a row each) on the other side of ``mid`` from the query."""
    import numpy as np

    key = (id(files), id(d), mid)
    with _sides_lock:
        kept = _sides.get(id(files))
    if kept is not None and kept[0]() is files and kept[1] == key:
        high, n = kept[2]
    else:
        proj = files @ d
        # rows of files that vanished are zero vectors: not a file in any language
        live = np.any(files != 0, axis=1)
        high, n = int((live & (proj >= mid)).sum()), int(live.sum())
        with _sides_lock:
            if len(_sides) >= _SIDES_KEPT:
                _sides.clear()
            _sides[id(files)] = (weakref.ref(files), key, (high, n))
    if not n:
        return 0.0
    other = (n - high) if float(query @ d) >= mid else high
    return other / n


def neutral(model: str | None, query: np.ndarray, files: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """(the query vector without its language, the offset added to every cosine with it).

    ``files``: the memory's file vectors, when known. If none of them is in another language than
    the query (fewer than :data:`OTHER_MIN` of them), the query is left as it is: there is nothing
    across languages to find, and taking the language out only adds each note's own share of it to
    the comparison (a Chinese conversation over a Chinese memory: R@5 0.525 -> 0.425 with it,
    benchmarks/zh_dialogue_memory.py)."""
    d = _axis(model or "")
    if d is None or query.shape[0] != d.shape[0]:
        return query, 0.0
    import numpy as np

    q = np.asarray(query, dtype=np.float32)
    mid = MIDPOINTS.get(model or "")
    if files is not None and mid is not None and files.shape[0] and files.shape[1] == d.shape[0]:
        if other_language_share(d, mid, q, files) < OTHER_MIN:
            return query, 0.0
    share = float(q @ d)
    return q - STRENGTH * share * d, STRENGTH * share * share
