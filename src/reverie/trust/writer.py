"""Who is writing right now: the provenance a write without an explicit one gets.

The chat runtime and the MCP server run every tool call inside :func:`writing_as` with the
turn's provenance (its taint included), so ``memory_append`` -- which only calls
``Memory.remember`` -- records the right origin without every tool having to carry it. Outside any
call, writes get the caller's explicit provenance or :data:`DEFAULT_WRITER`.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Iterator

from .classes import Provenance

# A program calling the Python API directly is the agent's host: its writes are the agent's.
DEFAULT_WRITER = Provenance("agent", "unknown", None, "api")
OWNER_CLI = Provenance("owner", "interactive", None, "remember")

_current: contextvars.ContextVar[Provenance | None] = contextvars.ContextVar("reverie_writer", default=None)


_context: contextvars.ContextVar[str | None] = contextvars.ContextVar("reverie_recall_context", default=None)


def current_writer() -> Provenance | None:
    return _current.get()


def current_context() -> str | None:
    """The conversation (or MCP connection) a tool call in progress belongs to: what a recall is
    counted under, so Dreaming can tell use across conversations from one caller's own searches."""
    return _context.get()


def resolve_writer(explicit: Provenance | None = None) -> Provenance:
    """An explicit provenance, else the one of the tool call in progress, else the default."""
    return explicit or _current.get() or DEFAULT_WRITER


@contextlib.contextmanager
def writing_as(provenance: Provenance, context: str | None = None) -> Iterator[Provenance]:
    token = _current.set(provenance)
    ctx_token = _context.set(context) if context is not None else None
    try:
        yield provenance
    finally:
        if ctx_token is not None:
            _context.reset(ctx_token)
        _current.reset(token)
