"""What a caller keeps of a session's events, read incrementally: the host ids a sidecar has
recorded, the entries a recall lane has injected. A warm server opens a store for every call of a
conversation it follows; reading and decoding the whole session on each made every turn cost more
than the last. A fold keeps its state per process and per database file, and on each call reads
only the events past the position it had reached.

A session is append-only; what rewrites one (forget, retention) drops its folds in this process
(``TranscriptStore.drop_cached``). A rewrite by another process is not seen until the fold is
dropped or the process restarts: only use a fold for what stays right when an event it counted is
later scrubbed (ids already recorded, entries already injected), never to show a session's text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Iterable, TypeVar

S = TypeVar("S")
KEEP = 256

_folds: "OrderedDict[tuple, tuple[int, object]]" = OrderedDict()
_lock = threading.Lock()


def fold(store, session_id: str, name: str, kinds: Iterable[str], init: Callable[[], S],
         step: Callable[[S, object], None]) -> S:
    """``init()`` folded with ``step(state, event)`` over the session's events of ``kinds``, in order."""
    kinds = tuple(kinds)
    key = (store.cache_key, session_id, name, kinds)
    count = store.event_count(session_id)
    with _lock:
        cached = _folds.get(key)
    if cached is None or cached[0] > count:  # new here, or the session shrank (a rewrite): from the start
        position, state = 0, init()
    else:
        position, state = cached
    last = position
    for ev in store.events(session_id, kinds=kinds, from_position=position + 1):
        step(state, ev)
        last = max(last, ev.position)
    # events of other kinds up to the count need no reading; a later one of ours, read now, is counted
    position = max(last, count)
    with _lock:
        _folds[key] = (position, state)
        _folds.move_to_end(key)
        while len(_folds) > KEEP:
            _folds.popitem(last=False)
    return state


def drop(cache_key, session_ids: Iterable[str]) -> None:
    wanted = set(session_ids)
    with _lock:
        for key in [k for k in _folds if k[0] == cache_key and k[1] in wanted]:
            del _folds[key]
