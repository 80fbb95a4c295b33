"""Time budgets for callers that cannot wait: a host's hook before its model call, a sidecar step.

The query embedding is the one step of a search that can take seconds — the local model loading
on first use (1–5 s), a remote embedder slow to answer, a machine under load — while everything
else takes milliseconds. Inside :func:`embed_budget`, a search waits for its query vector at most
that long; past it, the search answers keyword-only and says so (the note is collected for the
caller, and the search's ``debug.vectorSkipped``), and the embedding goes on in its thread, so the
model is loaded for the next search of a warm process. Outside a budget nothing changes: a
command-line search waits for its vector as it always has.

The budget travels with the context (:mod:`contextvars`): :func:`run_bounded` starts its thread in
a copy of the caller's context, so the Active Memory pass keeps the turn's budget.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from typing import Any, Callable, Iterator

_BUDGET: contextvars.ContextVar[tuple[float, list[str]] | None] = contextvars.ContextVar("reverie_embed_budget",
                                                                                          default=None)


@contextlib.contextmanager
def embed_budget(seconds: float | None) -> Iterator[list[str]]:
    """Bound every query embedding inside to ``seconds`` (None: no bound). Yields the list that
    collects one note per search that went keyword-only because of it."""
    notes: list[str] = []
    if seconds is None:
        yield notes
        return
    token = _BUDGET.set((max(0.0, float(seconds)), notes))
    try:
        yield notes
    finally:
        _BUDGET.reset(token)


def embed_seconds() -> float | None:
    """The budget of a query embedding here, or None."""
    found = _BUDGET.get()
    return found[0] if found else None


def note(text: str) -> None:
    """Tell the budget's owner that a search degraded (once per distinct note)."""
    found = _BUDGET.get()
    if found and text not in found[1]:
        found[1].append(text)


def run_bounded(fn: Callable[[], Any], timeout_s: float, *, name: str = "reverie-bounded"):
    """Run ``fn`` in its own daemon thread (in a copy of this context) and wait at most
    ``timeout_s``: (finished, value, error). The thread is never joined past the deadline; what it
    returns afterwards is dropped."""
    box: dict = {}
    done = threading.Event()
    context = contextvars.copy_context()

    def work() -> None:
        try:
            box["value"] = context.run(fn)
        except BaseException as exc:  # reported to the caller, never raised in the thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name=name, daemon=True).start()
    if not done.wait(timeout_s):
        return False, None, None
    return True, box.get("value"), box.get("error")
