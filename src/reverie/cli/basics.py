"""What every command uses, without the command-line framework: the options every command takes,
the agent's Memory for them, and output (people's messages on stderr, ``--json`` on stdout).

Kept free of typer so that the commands fast.py answers before typer loads share them.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


@dataclass
class Opts:
    home: Path | None = None
    agent: str | None = None
    workspace: Path | None = None
    sets: list[str] = field(default_factory=list)
    json: bool = False


# The places of every agent a command opened: when a database error reaches the top, the entry
# point looks here to tell a damaged agent database (and the command that repairs it) apart.
# Bounded: a warm server (reverie serve) runs command after command in one process.
OPENED: collections.deque = collections.deque(maxlen=32)


# In a warm server (reverie serve) the command lines it runs borrow agents it keeps open
# (reverie.serve.lending); a one-shot process opens its own.
LENDER: contextvars.ContextVar = contextvars.ContextVar("reverie_memory_lender", default=None)


def memory_for(o: Opts, *, create: bool = True, home_only: bool = False, **kw):
    """The agent's Memory. ``create=False`` is for commands that only read: a home or agent that
    does not exist is then an error (a mistyped --home or --agent), and nothing is created.
    ``home_only``: the command reads the home's shared state (automations); the agent must exist
    only when one was named."""
    import os

    lender = LENDER.get()
    mem = lender.lend(o.home, o.agent, o.workspace, o.sets, **kw) if lender is not None else None
    if mem is None:
        from ..api import Memory

        mem = Memory(home=o.home, agent=o.agent, workspace=o.workspace, overrides=o.sets, **kw)
    if not create:
        named = bool(o.agent or os.environ.get("REVERIE_AGENT"))
        mem.places.require_existing(tuple(mem.settings.agents), agent=named or not home_only)
    OPENED.append(mem.places)
    return mem


def hook_memory(o: Opts):
    """The agent's memory for one host hook: lent by a warm server, or this process's own, which
    answers this one call and exits (its background indexing then leaves the vectors for later)."""
    mem = memory_for(o)
    return mem if LENDER.get() is not None else mem.one_call()


@contextlib.contextmanager
def opened_memory(o: Opts, **kw):
    """:func:`memory_for`, closed when the command is done (its background work stopped, its
    recall signals flushed)."""
    mem = memory_for(o, **kw)
    try:
        yield mem
    finally:
        mem.close()


def say(message: str) -> None:
    """A message for people: stderr, so stdout stays clean for --json."""
    print(message, file=sys.stderr, flush=True)


def emit(o: Opts, data: Any, human: Callable[[Any], None] | None = None) -> None:
    if o.json:
        import json

        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
        sys.stdout.flush()
    elif human is not None:
        human(data)
    else:
        import json

        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


