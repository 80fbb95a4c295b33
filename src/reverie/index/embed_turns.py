"""Queries first: who may use a local embedder next.

The bundled engine runs one call at a time, and on a busy two-core machine one background batch
of passages can take seconds. So a query never queues behind indexing: it announces itself (the
background run starts no new batch while a query waits), waits a quarter of a second at most for
the batch in flight, and if the engine is still busy its search goes keyword-only and says why.
Remote providers answer calls in parallel and are not gated.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

QUERY_WAIT_SECONDS = 0.25

_cond = threading.Condition()
_urgent = 0  # queries waiting for or using the engine
_busy = 0    # background batchs in the engine now


def _gated(emb) -> bool:
    return not getattr(emb, "remote", False)


@contextlib.contextmanager
def urgent(emb) -> Iterator[None]:
    """Hold around an embedding call someone waits for: no background batch starts meanwhile."""
    global _urgent
    if not _gated(emb):
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


@contextlib.contextmanager
def query_turn(emb, timeout: float = QUERY_WAIT_SECONDS) -> Iterator[bool]:
    """Yields whether the engine is free for a query (waiting at most ``timeout`` for the
    background batch in flight); embed only when it yields True."""
    with urgent(emb):
        if not _gated(emb):
            yield True
            return
        with _cond:
            free = _cond.wait_for(lambda: _busy == 0, timeout)
        yield free


def background_turn(emb, timeout: float = 30.0) -> None:
    """Call before each background batch: returns once no query waits (or after ``timeout``, so
    that a stream of queries can slow indexing down but never stop it)."""
    if not _gated(emb):
        return
    with _cond:
        _cond.wait_for(lambda: _urgent == 0, timeout)


@contextlib.contextmanager
def background_call(emb) -> Iterator[None]:
    """Hold around a background batch in the engine (a query then knows it would wait)."""
    global _busy
    if not _gated(emb):
        yield
        return
    with _cond:
        _busy += 1
    try:
        yield
    finally:
        with _cond:
            _busy -= 1
            _cond.notify_all()
