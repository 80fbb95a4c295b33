"""Re-index on file changes, debounced (1.5 s of quiet, at most 5 s), until stopped.

The quiet period groups a burst of edits into one sync; the maximum wait makes a workspace that
is written every second re-indexed anyway (with the quiet period alone it never was). Known files
are re-synced alone; a new file sends the watcher through a full sync, which applies discovery's
rules (what counts as memory) to it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable

DEBOUNCE_MS = 1500
MAX_WAIT_MS = 5000  # a change is synced at most this long after it was first seen
MAX_GROUP_MS = 10_000
LOCK_WAIT_SECONDS = 30.0


def _relevant(path: str, roots: list[Path]) -> bool:
    if not path.lower().endswith(".md"):
        return False
    p = Path(path)
    for root in roots:
        try:
            rel = p.relative_to(root)
        except ValueError:
            continue
        # dot-folders (.git, .dreams, …) inside the workspace are never memory; the home itself
        # may well be one (~/.reverie), so only the part below the watched root counts
        return not any(part.startswith(".") for part in rel.parts[:-1])
    return False


def watch_paths(roots: list[Path], on_change: Callable[[set[str]], None], *,
                debounce_ms: int = DEBOUNCE_MS, max_wait_ms: int = MAX_WAIT_MS, stop: threading.Event | None = None,
                ready: threading.Event | None = None) -> None:
    """Call ``on_change(paths)`` after each burst of Markdown changes under ``roots``: once
    ``debounce_ms`` pass without a change, or ``max_wait_ms`` after the first unsynced change."""
    import watchfiles

    existing = [str(r) for r in roots if r.exists()]
    if not existing:
        return
    resolved = [Path(r) for r in existing]
    if ready is not None:
        ready.set()
    # Our own quiet-period debounce: watchfiles reports changes within ~50 ms, and we call
    # on_change once ``debounce_ms`` have passed with no further change (watchfiles' own "step"
    # only checks at step boundaries, which made edit-to-searchable 1.5-3 s instead of ~1.6 s).
    quiet = debounce_ms / 1000.0
    longest = max(max_wait_ms, debounce_ms) / 1000.0
    pending: set[str] = set()
    last = first = 0.0
    for changes in watchfiles.watch(*existing, watch_filter=lambda _c, p: _relevant(p, resolved),
                                    step=50, debounce=MAX_GROUP_MS, rust_timeout=50, yield_on_timeout=True,
                                    stop_event=stop, raise_interrupt=False):
        now = time.monotonic()
        if changes:
            if not pending:
                first = now
            pending.update(p for _, p in changes)
            last = now
        if pending and (now - last >= quiet or now - first >= longest):
            batch, pending = pending, set()
            on_change(batch)


def sync_changed(index, workspace: Path, paths: set[str]):
    """Bring the index up to date after the watcher saw ``paths`` change: those files alone when
    the index knows them all, else (a new file, or the lock busy for long) a full sync."""
    keys = []
    for p in paths:
        path = Path(p)
        try:
            keys.append(path.relative_to(workspace).as_posix())
        except ValueError:
            keys.append(path.as_posix())
    report = index.sync_paths(keys, in_scope=False, wait=LOCK_WAIT_SECONDS)
    if report is None or report.unknown:
        return index.sync()
    return report
