"""Index work in this process that nobody waits for, and urgent work handed to a running sync.

One background thread per index does full runs, targeted runs and vector fills, one after the
other; requests made while it works are merged into its next turn. It never waits for the sync
lock: when another process holds it, that process is already bringing the index up to date.

A note reverie just wrote must be searchable at once, but a long run (a first index of thousands
of notes) holds the sync lock for minutes. So a targeted request made while a run of this process
holds the lock in its files phase is queued for that run, which serves it between two batches;
in its vectors phase the caller writes the text beside the run (see ``MemoryIndex.sync_paths``);
otherwise the caller takes the lock itself.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Callable

from .sync import Syncer, SyncReport


def lower_cpu_priority(niceness: int = 10) -> None:
    """For a process that only indexes (``reverie index``, ``reverie watch``): run at a lower CPU
    priority. On an idle machine this costs nothing; on a busy one, searches in other processes
    (an MCP server, a chat) keep their latency while a rebuild runs. Never for a process that also
    searches: a lower-priority thread holding Python's GIL would slow its searches down."""
    try:
        os.nice(niceness)
    except (AttributeError, OSError):  # not on this platform, or not allowed: index at full speed
        pass


@dataclass
class UrgentRequest:
    keys: list[str]
    in_scope: bool
    vectors: bool
    done: threading.Event = field(default_factory=threading.Event)
    report: SyncReport | None = None
    error: BaseException | None = None


class UrgentQueue:
    """Targeted work for the run that holds the lock in this process."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._items: list[UrgentRequest] = []
        self.active = 0  # runs of this process holding the sync lock now
        self.stage: str | None = None  # "vectors" once the (full) run holding it only embeds

    def set_stage(self, name: str) -> None:
        self.stage = name

    def offer(self, req: UrgentRequest) -> bool:
        """Queue ``req`` if a run of this process can serve it; False when none runs."""
        with self._mutex:
            if not self.active:
                return False
            if req not in self._items:
                self._items.append(req)
            return True

    def withdraw(self, req: UrgentRequest) -> None:
        with self._mutex:
            if req in self._items:
                self._items.remove(req)

    def serve(self, syncer: Syncer) -> None:
        with self._mutex:
            todo, self._items = self._items, []
        for req in todo:
            try:
                req.report = syncer.run_paths(req.keys, in_scope=req.in_scope, vectors=req.vectors)
            except BaseException as exc:  # the requester reports it; the run goes on
                req.error = exc
            req.done.set()

    def enter(self) -> None:
        with self._mutex:
            self.active += 1

    def leave(self, syncer: Syncer | None) -> None:
        if syncer is not None:
            self.serve(syncer)  # whatever arrived during the last batch
        with self._mutex:
            self.active -= 1
            if not self.active:
                self.stage = None


@dataclass
class _Wanted:
    full: bool = False
    vectors: bool = False
    paths: set[str] = field(default_factory=set)

    def empty(self) -> bool:
        return not (self.full or self.vectors or self.paths)


class BackgroundSync:
    """The background thread of one index. ``run(kind, arg)`` does one unit of work and returns
    its report, or None when the sync lock is held elsewhere."""

    def __init__(self, run: Callable[[str, object], SyncReport | None]):
        self._run = run
        self._mutex = threading.Lock()
        self._wanted = _Wanted()
        self._thread: threading.Thread | None = None
        self.stop = threading.Event()
        self.files_ready = threading.Event()  # a full run got past its files phase (or ended)
        self.last_error: str | None = None
        self.last_exception: BaseException | None = None  # the failure itself, for a diagnosis
        self.last_skipped = False  # the last turn found the lock held by another process
        self.last_report: SyncReport | None = None

    def request(self, *, full: bool = False, vectors: bool = False, paths=()) -> None:
        with self._mutex:
            self._wanted.full |= full
            self._wanted.vectors |= vectors
            self._wanted.paths.update(paths)
            if full:
                self.files_ready.clear()
            if self._thread is None and not self.stop.is_set():
                self._thread = threading.Thread(target=self._loop, name="reverie-index", daemon=True)
                self._thread.start()

    def running(self) -> bool:
        with self._mutex:
            return self._thread is not None

    def wait(self, timeout: float | None) -> bool:
        """Wait for the thread to run out of work; True if it did within ``timeout``."""
        t = self._thread
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    def _loop(self) -> None:
        while True:
            with self._mutex:
                wanted, self._wanted = self._wanted, _Wanted()
                if wanted.empty() or self.stop.is_set():
                    self._thread = None
                    self.files_ready.set()
                    return
            try:
                if wanted.full:
                    report = self._run("full", None)
                else:
                    report = self._run("paths", list(wanted.paths)) if wanted.paths else SyncReport()
                    if report is not None and wanted.vectors:
                        report = self._run("vectors", None)
                self.last_skipped = report is None
                self.last_report = report if report is not None else self.last_report
                self.last_error, self.last_exception = None, None
            except Exception as exc:  # reported by search; never raised into a search
                self.last_error, self.last_exception = f"{type(exc).__name__}: {exc}", exc
            finally:
                if wanted.full:
                    self.files_ready.set()
