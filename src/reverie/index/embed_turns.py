"""Queries first: who may use a local embedder next.

The bundled engine runs one call at a time. Background indexing embeds in short slices and, before
each slice, waits while a query embedding (a search, or the vector of a note just written) is
waiting or running; a query therefore waits for at most the one slice in flight, never for a whole
indexing run. Remote providers answer calls in parallel and are not gated.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

_cond = threading.Condition()
_urgent = 0


@contextlib.contextmanager
def urgent(emb) -> Iterator[None]:
    """Hold around an embedding call that someone is waiting for."""
    global _urgent
    if getattr(emb, "remote", False):
        yield
        return
    with _cond:
        _urgent += 1
    try:
        yield
    finally:
        with _cond:
            _urgent -= 1
            _cond.notify_all()


def background_turn(emb, timeout: float = 30.0) -> None:
    """Call before each background slice: returns once no urgent call waits (or after ``timeout``,
    so that a stream of queries can slow indexing down but never stop it)."""
    if getattr(emb, "remote", False):
        return
    with _cond:
        _cond.wait_for(lambda: _urgent == 0, timeout)


def urgent_waiting() -> bool:
    return _urgent > 0
