"""Open agents lent to the command lines a warm server runs.

A one-shot ``reverie search`` opens the agent's memory, reads its settings, opens its database and
index, loads the index's vectors into memory, and closes it all again. In ``reverie serve`` the
same command borrows an agent that is already open: the vectors stay loaded between commands,
and only the work of the command itself is left. Each open agent serves one command at a time
(a command may set attributes on it); it goes back with those reset, and is opened anew when its
settings file changed since (a one-shot command always reads the settings as they are now).
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict

MAX_IDLE_PER_KEY = 2
MAX_IDLE = 8


class Lent:
    """The borrowed memory: everything but ``close``, which is the lender's to do."""

    __slots__ = ("_mem",)

    def __init__(self, mem):
        object.__setattr__(self, "_mem", mem)

    def __getattr__(self, name):
        return getattr(self._mem, name)

    def __setattr__(self, name, value):
        setattr(self._mem, name, value)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def _stamp(mem) -> tuple | None:
    try:
        st = os.stat(mem.config_path)
        return st.st_mtime_ns, st.st_size, st.st_ino
    except OSError:
        return None


class Lender:
    def __init__(self):
        self._idle: dict[tuple, list] = defaultdict(list)
        self._order: list[tuple] = []  # keys as their memories came back, oldest first
        self._lock = threading.Lock()
        self._local = threading.local()

    def lend(self, home, agent, workspace, sets: list[str], **kw):
        """An open memory for these options (None: the caller opens its own, e.g. with extra
        arguments a shared one cannot honour)."""
        if kw:
            return None
        from ..api import Memory

        key = (str(home) if home else None, agent, str(workspace) if workspace else None, tuple(sets))
        mem = None
        with self._lock:
            while self._idle[key]:
                candidate, stamp = self._idle[key].pop()
                if stamp == _stamp(candidate):
                    mem = candidate
                    break
                _close(candidate)  # its settings changed: open anew
        if mem is None:
            mem = Memory(home=home, agent=agent, workspace=workspace, overrides=list(sets))
        borrowed = getattr(self._local, "borrowed", None)
        if borrowed is None:
            borrowed = self._local.borrowed = []
        borrowed.append((key, mem, _stamp(mem), getattr(mem, "projects", None)))
        return Lent(mem)

    def give_back(self) -> None:
        """Everything this thread borrowed goes back (called when its command is done)."""
        borrowed, self._local.borrowed = getattr(self._local, "borrowed", None) or [], []
        for key, mem, stamp, projects in borrowed:
            try:
                mem.projects = projects  # what the command set for itself
                if getattr(mem, "_signals", None) is not None:
                    mem._signals.flush()  # its recall signals written, as a close would
            except Exception:
                _close(mem)
                continue
            evicted = []
            with self._lock:
                idle = self._idle[key]
                if len(idle) >= MAX_IDLE_PER_KEY:
                    evicted.append(mem)
                else:
                    idle.append((mem, stamp))
                    self._order = [k for k in self._order if k != key][-4 * MAX_IDLE:] + [key]
                    # in all: the least recently returned go first (each holds its vectors in memory)
                    while sum(len(v) for v in self._idle.values()) > MAX_IDLE:
                        old = next((k for k in self._order if self._idle.get(k)), None) or \
                            next(k for k, v in self._idle.items() if v)
                        evicted.append(self._idle[old].pop(0)[0])
                        if not self._idle[old]:
                            self._order = [k for k in self._order if k != old]
            for m in evicted:
                _close(m)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, defaultdict(list)
        for entries in idle.values():
            for mem, _ in entries:
                _close(mem)


def _close(mem) -> None:
    try:
        mem.close()
    except Exception:
        pass
