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


def neutral(model: str | None, query: np.ndarray) -> tuple[np.ndarray, float]:
    """(the query vector without its language, the offset added to every cosine with it)."""
    d = _axis(model or "")
    if d is None or query.shape[0] != d.shape[0]:
        return query, 0.0
    import numpy as np

    q = np.asarray(query, dtype=np.float32)
    share = float(q @ d)
    return q - STRENGTH * share * d, STRENGTH * share * share
